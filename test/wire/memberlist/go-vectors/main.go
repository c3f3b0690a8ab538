// go-vectors: golden bytes for fdkit's memberlist codec, from the libraries memberlist itself uses
// (Debian's go-msgpack with MsgpackHandle{}, compress/lzw, crypto/aes and crypto/cipher).
//
//	go-vectors vectors   prints one JSON object: name -> {hex, input?}
//	go-vectors decode    reads lines "<kind> <hex>" on stdin, prints one JSON line per input line
//
// The structs repeat memberlist's field names and tags (net.go): they are the wire format.
package main

import (
	"bufio"
	"bytes"
	"compress/lzw"
	"crypto/aes"
	"crypto/cipher"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strings"

	"github.com/hashicorp/go-msgpack/codec"
)

type ping struct {
	SeqNo      uint32
	Node       string
	SourceAddr []byte `codec:",omitempty"`
	SourcePort uint16 `codec:",omitempty"`
	SourceNode string `codec:",omitempty"`
}

type indirectPingReq struct {
	SeqNo      uint32
	Target     []byte
	Port       uint16
	Node       string
	Nack       bool
	SourceAddr []byte `codec:",omitempty"`
	SourcePort uint16 `codec:",omitempty"`
	SourceNode string `codec:",omitempty"`
}

type ackResp struct {
	SeqNo   uint32
	Payload []byte
}

type nackResp struct{ SeqNo uint32 }

type errResp struct{ Error string }

type suspect struct {
	Incarnation uint32
	Node        string
	From        string
}

type alive struct {
	Incarnation uint32
	Node        string
	Addr        []byte
	Port        uint16
	Meta        []byte
	Vsn         []uint8
}

type dead struct {
	Incarnation uint32
	Node        string
	From        string
}

type pushPullHeader struct {
	Nodes        int
	UserStateLen int
	Join         bool
}

type userMsgHeader struct{ UserMsgLen int }

type pushNodeState struct {
	Name        string
	Addr        []byte
	Port        uint16
	Meta        []byte
	Incarnation uint32
	State       int
	Vsn         []uint8
}

type compress struct {
	Algo uint8
	Buf  []byte
}

func encode(msgType byte, in interface{}) []byte {
	var buf bytes.Buffer
	buf.WriteByte(msgType)
	hd := codec.MsgpackHandle{}
	if err := codec.NewEncoder(&buf, &hd).Encode(in); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func lzwCompress(in []byte) []byte {
	var buf bytes.Buffer
	w := lzw.NewWriter(&buf, lzw.LSB, 8)
	w.Write(in)
	w.Close()
	return buf.Bytes()
}

// seal as memberlist's encryptPayload: version, nonce (zero here, for fixed bytes), GCM output.
func seal(vsn byte, key, plain, aad []byte) []byte {
	block, err := aes.NewCipher(key)
	if err != nil {
		panic(err)
	}
	gcm, _ := cipher.NewGCM(block)
	nonce := make([]byte, 12)
	src := plain
	if vsn == 0 {
		pad := 16 - len(plain)%16
		src = append(append([]byte{}, plain...), bytes.Repeat([]byte{byte(pad)}, pad)...)
	}
	out := append([]byte{vsn}, nonce...)
	return gcm.Seal(out, nonce, src, aad)
}

type vector struct {
	Hex   string `json:"hex"`
	Input string `json:"input,omitempty"`
}

func lcg(n int) []byte {
	out := make([]byte, n)
	seed := uint32(1)
	for i := range out {
		seed = seed*1103515245 + 12345
		out[i] = byte(seed >> 24)
	}
	return out
}

func vectors() map[string]vector {
	v := map[string]vector{}
	put := func(name string, b []byte) { v[name] = vector{Hex: hex.EncodeToString(b)} }
	put("ping", encode(0, &ping{SeqNo: 7, Node: "n1"}))
	put("ping-source", encode(0, &ping{SeqNo: 300, Node: "b", SourceAddr: []byte{127, 0, 0, 1}, SourcePort: 7946, SourceNode: "a"}))
	put("indirect-ping", encode(1, &indirectPingReq{SeqNo: 1, Target: []byte{10, 0, 0, 2}, Port: 80, Node: "x", Nack: true}))
	put("ack", encode(2, &ackResp{SeqNo: 5}))
	put("ack-payload", encode(2, &ackResp{SeqNo: 70000, Payload: bytes.Repeat([]byte{7}, 40)}))
	put("nack", encode(11, &nackResp{SeqNo: 4294967295}))
	put("suspect", encode(3, &suspect{Incarnation: 128, Node: "n", From: "m"}))
	put("alive", encode(4, &alive{Incarnation: 1, Node: "node-éa", Addr: []byte{1, 2, 3, 4}, Port: 7946,
		Meta: bytes.Repeat([]byte{9}, 300), Vsn: []uint8{1, 5, 2, 0, 0, 0}}))
	put("alive-v6", encode(4, &alive{Incarnation: 65536, Node: strings.Repeat("n", 40), Addr: make([]byte, 16), Port: 1,
		Meta: nil, Vsn: []uint8{1, 5, 2, 0, 0, 0}}))
	put("dead", encode(5, &dead{Incarnation: 2, Node: "n", From: "n"}))
	put("err", encode(13, &errResp{Error: "remote error"}))
	var pp bytes.Buffer
	pp.Write(encode(6, &pushPullHeader{Nodes: 2, UserStateLen: 3, Join: true}))
	pp.Write(encode(0, &pushNodeState{Name: "a", Addr: []byte{127, 0, 0, 1}, Port: 7946, Incarnation: 1, State: 0,
		Vsn: []uint8{1, 5, 2, 0, 0, 0}})[1:])
	pp.Write(encode(0, &pushNodeState{Name: "b", Addr: []byte{127, 0, 0, 2}, Port: 7947, Meta: []byte("m"), Incarnation: 9, State: 3,
		Vsn: []uint8{1, 5, 2, 0, 0, 0}})[1:])
	pp.Write([]byte{0xaa, 0xbb, 0xcc})
	put("push-pull", pp.Bytes())
	user := append(encode(8, &userMsgHeader{UserMsgLen: 2}), 1, 2)
	put("user-stream", user)

	lzwInputs := map[string][]byte{
		"lzw-a":     []byte("a"),
		"lzw-empty": {},
		"lzw-tobe":  []byte("TOBEORNOTTOBEORTOBEORNOT"),
		"lzw-repetitive": func() []byte {
			b := make([]byte, 100000)
			for i := range b {
				b[i] = byte(i % 7)
			}
			return b
		}(),
		"lzw-random": lcg(20000),
	}
	for name, in := range lzwInputs {
		v[name] = vector{Hex: hex.EncodeToString(lzwCompress(in)), Input: hex.EncodeToString(in)}
	}
	ackBytes := encode(2, &ackResp{SeqNo: 5})
	put("compress-ack", encode(9, &compress{Algo: 0, Buf: lzwCompress(ackBytes)}))
	crc := make([]byte, 5)
	crc[0] = 12
	c := crc32.ChecksumIEEE(ackBytes)
	crc[1], crc[2], crc[3], crc[4] = byte(c>>24), byte(c>>16), byte(c>>8), byte(c)
	put("crc-ack", append(crc, ackBytes...))
	key16 := bytes.Repeat([]byte{1}, 16)
	key24 := bytes.Repeat([]byte{4}, 24)
	key32 := bytes.Repeat([]byte{2}, 32)
	put("seal-v1-aes128-label", seal(1, key16, ackBytes, []byte("prod")))
	put("seal-v1-aes192", seal(1, key24, ackBytes, nil))
	put("seal-v1-aes256", seal(1, key32, ackBytes, nil))
	put("seal-v0-aes128", seal(0, key16, ackBytes, nil))
	return v
}

func decodeInto(b []byte, out interface{}) error {
	hd := codec.MsgpackHandle{}
	return codec.NewDecoder(bytes.NewReader(b), &hd).Decode(out)
}

// decodeLine decodes one "<kind> <hex>" line as memberlist would, into the struct of its kind.
func decodeLine(kind string, b []byte) (interface{}, error) {
	switch kind {
	case "ping":
		var m ping
		return &m, decodeInto(b[1:], &m)
	case "indirect-ping":
		var m indirectPingReq
		return &m, decodeInto(b[1:], &m)
	case "ack":
		var m ackResp
		return &m, decodeInto(b[1:], &m)
	case "nack":
		var m nackResp
		return &m, decodeInto(b[1:], &m)
	case "suspect":
		var m suspect
		return &m, decodeInto(b[1:], &m)
	case "alive":
		var m alive
		return &m, decodeInto(b[1:], &m)
	case "dead":
		var m dead
		return &m, decodeInto(b[1:], &m)
	case "err":
		var m errResp
		return &m, decodeInto(b[1:], &m)
	case "push-pull":
		// As readRemoteState: the header, the node states, then the user state.
		r := bytes.NewReader(b[1:])
		dec := codec.NewDecoder(r, &codec.MsgpackHandle{})
		var h pushPullHeader
		if err := dec.Decode(&h); err != nil {
			return nil, err
		}
		nodes := make([]pushNodeState, h.Nodes)
		for i := range nodes {
			if err := dec.Decode(&nodes[i]); err != nil {
				return nil, err
			}
		}
		user := make([]byte, h.UserStateLen)
		if _, err := io.ReadFull(r, user); err != nil {
			return nil, err
		}
		return map[string]interface{}{"header": h, "nodes": nodes, "user": hex.EncodeToString(user)}, nil
	case "lzw":
		r := lzw.NewReader(bytes.NewReader(b), lzw.LSB, 8)
		out, err := io.ReadAll(r)
		return hex.EncodeToString(out), err
	case "compress":
		var c compress
		if err := decodeInto(b[1:], &c); err != nil {
			return nil, err
		}
		out, err := io.ReadAll(lzw.NewReader(bytes.NewReader(c.Buf), lzw.LSB, 8))
		return map[string]interface{}{"algo": c.Algo, "payload": hex.EncodeToString(out)}, err
	}
	return nil, fmt.Errorf("unknown kind %q", kind)
}

// open as memberlist's decryptPayload: "open <key hex> <aad hex or -> <sealed hex>".
func open(args []string) (interface{}, error) {
	key, _ := hex.DecodeString(args[0])
	var aad []byte
	if args[1] != "-" {
		aad, _ = hex.DecodeString(args[1])
	}
	msg, _ := hex.DecodeString(args[2])
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	gcm, _ := cipher.NewGCM(block)
	plain, err := gcm.Open(nil, msg[1:13], msg[13:], aad)
	if err != nil {
		return nil, err
	}
	if msg[0] == 0 {
		plain = plain[:len(plain)-int(plain[len(plain)-1])]
	}
	return hex.EncodeToString(plain), nil
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go-vectors vectors|decode")
		os.Exit(2)
	}
	out := json.NewEncoder(os.Stdout)
	switch os.Args[1] {
	case "vectors":
		out.Encode(vectors())
	case "decode":
		in := bufio.NewScanner(os.Stdin)
		in.Buffer(make([]byte, 1<<20), 1<<24)
		for in.Scan() {
			fields := strings.Fields(in.Text())
			var value interface{}
			var err error
			if fields[0] == "open" {
				value, err = open(fields[1:])
			} else {
				b, _ := hex.DecodeString(fields[1])
				value, err = decodeLine(fields[0], b)
			}
			if err != nil {
				out.Encode(map[string]string{"error": err.Error()})
			} else {
				out.Encode(map[string]interface{}{"value": value})
			}
		}
	}
}
