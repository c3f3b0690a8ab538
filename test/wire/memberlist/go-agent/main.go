// Command go-agent is one HashiCorp memberlist member for fdkit's conformance tests (issue 20): the
// library as Debian packages it (golang-github-hashicorp-memberlist-dev 0.2.2), driven over stdin and
// reporting on stdout, one JSON object a line, so that a test can watch what a real Go member sees of
// a cluster that fdkit members are part of. test/wire/memberlist/go-agent.ts builds, starts and reads it.
//
// Every stdout line has "t" (Unix ms), "node" (this agent's name) and "event":
//
//	ready         once created (and, with -join, joined: "joined" is memberlist's count, or "error")
//	join, leave, update
//	              from the EventDelegate: "member", "addr" (ip:port), "meta" (base64), "incarnation",
//	              "state" (alive, suspect, dead, left: a leave's state tells dead from left)
//	suspect       "member": this agent's own probe of it failed (read from memberlist's log, which is
//	              the only place memberlist 0.2.2 reports it)
//	message       "payload" (base64): a user message (gossiped, best effort or reliable)
//	remote-state  "state" (base64), "join": a push-pull brought non-empty user state
//	members       "members": [{name, addr, state, meta, incarnation}], memberlist's live members
//	ack           "command": a stdin command succeeded; left: Leave returned
//	error         "error", and "command" when a command failed
//
// Commands on stdin, one a line: meta <base64>, broadcast <base64>, send <name> <base64>,
// reliable <name> <base64>, members, leave, quit. Closing stdin, SIGTERM, SIGINT and -lifetime leave
// the cluster and exit; quit shuts down without leaving. Every other log line goes to stderr.
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/hashicorp/memberlist"
)

// output serializes stdout: memberlist calls delegates and its logger from several goroutines.
type output struct {
	mu   sync.Mutex
	enc  *json.Encoder
	name string
}

type fields map[string]interface{}

func (o *output) emit(event string, f fields) {
	if f == nil {
		f = fields{}
	}
	f["t"] = time.Now().UnixMilli()
	f["node"] = o.name
	f["event"] = event
	o.mu.Lock()
	defer o.mu.Unlock()
	_ = o.enc.Encode(f)
}

func (o *output) fail(command string, err error) {
	f := fields{"error": err.Error()}
	if command != "" {
		f["command"] = command
	}
	o.emit("error", f)
}

// stateMirror has the layout of memberlist 0.2.2's unexported nodeState, whose first field is the Node
// that the EventDelegate and Members() hand out. In 0.2.2 nodeState's own State field shadows
// Node.State, which is therefore never set (always alive); the incarnation is not exported at all. The
// mirror reads both through the Node pointer. checkMirror verifies the layout on the local node at
// start, and the agent leaves both out (state "unknown", no incarnation) when it does not hold.
type stateMirror struct {
	memberlist.Node
	Incarnation uint32
	State       memberlist.NodeStateType
	StateChange time.Time
}

// mirrorOK starts true so that the self-join of Create, which comes before the check, is described too.
var mirrorOK = true

func checkMirror(local *memberlist.Node, name string, started time.Time) bool {
	m := (*stateMirror)(unsafe.Pointer(local))
	since := m.StateChange.Sub(started)
	return m.Name == name && m.State == memberlist.StateAlive && m.Incarnation >= 1 && m.Incarnation < 16 &&
		since > -time.Minute && since < time.Minute
}

var stateNames = map[memberlist.NodeStateType]string{
	memberlist.StateAlive:   "alive",
	memberlist.StateSuspect: "suspect",
	memberlist.StateDead:    "dead",
	memberlist.StateLeft:    "left",
}

// describe is a node's fields for a line. Called from delegates, which memberlist calls with its node
// lock held, or from Members(), whose nodes memberlist may change meanwhile (a test tool's race).
func describe(n *memberlist.Node) fields {
	f := fields{
		"member": n.Name,
		"addr":   n.Address(),
		"meta":   base64.StdEncoding.EncodeToString(n.Meta),
		"state":  "unknown",
	}
	if mirrorOK {
		m := (*stateMirror)(unsafe.Pointer(n))
		f["incarnation"] = m.Incarnation
		if s, ok := stateNames[m.State]; ok {
			f["state"] = s
		}
	}
	return f
}

type events struct{ out *output }

func (e events) NotifyJoin(n *memberlist.Node)   { e.out.emit("join", describe(n)) }
func (e events) NotifyLeave(n *memberlist.Node)  { e.out.emit("leave", describe(n)) }
func (e events) NotifyUpdate(n *memberlist.Node) { e.out.emit("update", describe(n)) }

// userBroadcast is one queued user message; unique, so that equal payloads are all sent.
type userBroadcast struct{ msg []byte }

func (b userBroadcast) Invalidates(memberlist.Broadcast) bool { return false }
func (b userBroadcast) Message() []byte                       { return b.msg }
func (b userBroadcast) Finished()                             {}
func (b userBroadcast) UniqueBroadcast()                      {}

// delegate holds the agent's metadata, its user broadcasts and its small user state ("go:<name>").
type delegate struct {
	out   *output
	mu    sync.Mutex
	meta  []byte
	queue *memberlist.TransmitLimitedQueue
}

func (d *delegate) NodeMeta(limit int) []byte {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.meta) > limit {
		return d.meta[:limit]
	}
	return d.meta
}

func (d *delegate) setMeta(meta []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.meta = meta
}

func (d *delegate) NotifyMsg(msg []byte) {
	d.out.emit("message", fields{"payload": base64.StdEncoding.EncodeToString(msg)})
}

func (d *delegate) GetBroadcasts(overhead, limit int) [][]byte {
	return d.queue.GetBroadcasts(overhead, limit)
}

func (d *delegate) LocalState(bool) []byte { return []byte("go:" + d.out.name) }

func (d *delegate) MergeRemoteState(buf []byte, join bool) {
	if len(buf) == 0 {
		return
	}
	d.out.emit("remote-state", fields{"state": base64.StdEncoding.EncodeToString(buf), "join": join})
}

var suspectLine = regexp.MustCompile(`memberlist: Suspect (\S+) has failed, no acks received`)

// logTap passes memberlist's log to stderr and reports this agent's failed probes (log.Logger writes
// each line with one Write call).
type logTap struct{ out *output }

func (t logTap) Write(p []byte) (int, error) {
	if m := suspectLine.FindSubmatch(p); m != nil {
		t.out.emit("suspect", fields{"member": string(m[1])})
	}
	return os.Stderr.Write(p)
}

func decodeKeys(list string) ([][]byte, error) {
	if list == "" {
		return nil, nil
	}
	var keys [][]byte
	for _, k := range strings.Split(list, ",") {
		key, err := base64.StdEncoding.DecodeString(k)
		if err != nil {
			return nil, fmt.Errorf("key %q: %v", k, err)
		}
		keys = append(keys, key)
	}
	return keys, nil
}

// agent is the running member and what the commands need.
type agent struct {
	out     *output
	list    *memberlist.Memberlist
	del     *delegate
	timeout time.Duration
}

func (a *agent) member(name string) (*memberlist.Node, error) {
	for _, n := range a.list.Members() {
		if n.Name == name {
			return n, nil
		}
	}
	return nil, fmt.Errorf("no live member %q", name)
}

// run executes one command line; true when the agent should exit.
func (a *agent) run(line string) bool {
	words := strings.Fields(line)
	if len(words) == 0 {
		return false
	}
	command := words[0]
	arg := func(i int) ([]byte, error) {
		if len(words) != i+1 {
			return nil, fmt.Errorf("%s takes %d arguments", command, i)
		}
		return base64.StdEncoding.DecodeString(words[i])
	}
	var err error
	switch command {
	case "meta":
		var meta []byte
		if meta, err = arg(1); err == nil {
			a.del.setMeta(meta)
			err = a.list.UpdateNode(a.timeout)
		}
	case "broadcast":
		var msg []byte
		if msg, err = arg(1); err == nil {
			a.del.queue.QueueBroadcast(userBroadcast{msg: msg})
		}
	case "send", "reliable":
		var msg []byte
		var to *memberlist.Node
		if msg, err = arg(2); err == nil {
			if to, err = a.member(words[1]); err == nil {
				if command == "send" {
					err = a.list.SendBestEffort(to, msg)
				} else {
					err = a.list.SendReliable(to, msg)
				}
			}
		}
	case "members":
		var list []fields
		for _, n := range a.list.Members() {
			f := describe(n)
			f["name"] = f["member"]
			delete(f, "member")
			list = append(list, f)
		}
		a.out.emit("members", fields{"members": list})
		return false
	case "leave":
		if err = a.list.Leave(a.timeout); err == nil {
			a.out.emit("left", nil)
			return false
		}
	case "quit":
		_ = a.list.Shutdown()
		return true
	default:
		err = errors.New("unknown command")
	}
	if err != nil {
		a.out.fail(command, err)
	} else {
		a.out.emit("ack", fields{"command": command})
	}
	return false
}

func main() {
	name := flag.String("name", "", "member name (required)")
	bind := flag.String("bind", "127.0.0.1", "address to bind and advertise")
	port := flag.Int("port", 0, "UDP and TCP port (required)")
	join := flag.String("join", "", "comma-separated host:port seeds")
	keys := flag.String("keys", "", "comma-separated base64 keys, the first primary; empty: no encryption")
	meta := flag.String("meta", "", "base64 node metadata")
	profile := flag.String("profile", "lan", "lan (DefaultLANConfig) or local (DefaultLocalConfig)")
	timeout := flag.Duration("timeout", 5*time.Second, "UpdateNode and Leave timeout")
	lifetime := flag.Duration("lifetime", 10*time.Minute, "leave and exit after this long in any case")
	flag.Parse()
	if *name == "" || *port <= 0 || *port > 65535 || (*profile != "lan" && *profile != "local") {
		fmt.Fprintln(os.Stderr, "usage: go-agent -name NAME -port PORT [-bind IP] [-join HOST:PORT,...] "+
			"[-keys B64,...] [-meta B64] [-profile lan|local] [-timeout 5s] [-lifetime 10m]")
		os.Exit(2)
	}
	out := &output{enc: json.NewEncoder(os.Stdout), name: *name}
	fatal := func(err error) {
		out.fail("", err)
		os.Exit(1)
	}

	conf := memberlist.DefaultLANConfig()
	if *profile == "local" {
		conf = memberlist.DefaultLocalConfig()
	}
	conf.Name = *name
	conf.BindAddr = *bind
	conf.BindPort = *port
	conf.AdvertiseAddr = *bind
	conf.AdvertisePort = *port
	conf.Logger = log.New(logTap{out: out}, "", log.LstdFlags|log.Lmicroseconds)
	conf.Events = events{out: out}
	initialMeta, err := base64.StdEncoding.DecodeString(*meta)
	if err != nil {
		fatal(fmt.Errorf("-meta: %v", err))
	}
	del := &delegate{out: out, meta: initialMeta}
	conf.Delegate = del
	keyList, err := decodeKeys(*keys)
	if err != nil {
		fatal(fmt.Errorf("-keys: %v", err))
	}
	if len(keyList) > 0 {
		if conf.Keyring, err = memberlist.NewKeyring(keyList, keyList[0]); err != nil {
			fatal(fmt.Errorf("-keys: %v", err))
		}
	}

	started := time.Now()
	list, err := memberlist.Create(conf)
	if err != nil {
		fatal(err)
	}
	del.queue = &memberlist.TransmitLimitedQueue{NumNodes: list.NumMembers, RetransmitMult: conf.RetransmitMult}
	mirrorOK = checkMirror(list.LocalNode(), *name, started)
	if !mirrorOK {
		out.fail("", errors.New("memberlist's nodeState layout is not 0.2.2's: no incarnations or states"))
	}

	ready := fields{"addr": list.LocalNode().Address()}
	if *join != "" {
		if n, err := list.Join(strings.Split(*join, ",")); err != nil {
			ready["error"] = err.Error()
		} else {
			ready["joined"] = n
		}
	}
	out.emit("ready", ready)

	a := &agent{out: out, list: list, del: del, timeout: *timeout}
	done := make(chan string, 4)
	go func() {
		scanner := bufio.NewScanner(os.Stdin)
		scanner.Buffer(make([]byte, 64*1024), 1024*1024)
		for scanner.Scan() {
			if a.run(scanner.Text()) {
				os.Exit(0)
			}
		}
		done <- "stdin closed"
	}()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	go func() { done <- (<-signals).String() }()
	go func() {
		time.Sleep(*lifetime)
		done <- "lifetime over"
	}()

	why := <-done
	fmt.Fprintf(os.Stderr, "go-agent %s: %s, leaving\n", *name, why)
	if err := list.Leave(*timeout); err != nil {
		out.fail("leave", err)
	} else {
		out.emit("left", nil)
	}
	_ = list.Shutdown()
}
