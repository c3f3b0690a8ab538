// Command memberlist-agent is one HashiCorp memberlist member for bench/peers: the library as Debian
// packages it (golang-github-hashicorp-memberlist-dev), at memberlist.DefaultLANConfig(), bound to one
// port on 127.0.0.1, printing one JSON line per membership event on stdout, in the shape of
// `fdkit agent`'s lines:
//
//	{"t":<unix ms>,"node":"m1","event":"alive|suspect|dead|left|update|refute","member":"m3","cause":"..."}
//
// memberlist reports only joins, leaves (dead or left) and metadata updates to its EventDelegate; it
// has no hook for suspicions. The agent reads them from memberlist's own log instead: the line
// "Suspect X has failed, no acks received" is written by the member whose probe of X just failed, so a
// "suspect" event here is a suspicion this member raised itself (cause "probe-failed"), never one it
// learned by gossip. "Refuting a suspect message" becomes a "refute" event about the agent itself.
// Every other log line goes to stderr.
//
// Commands on stdin, one a line: "members" prints {"type":"members","alive":A,"total":T} (memberlist's
// own count of live members and of the members it holds in any state). When stdin closes the agent
// leaves the cluster and exits, so that it never outlives the bench; -lifetime ends it in any case.
// SIGINT and SIGTERM leave gracefully too.
package main

import (
	"bufio"
	"encoding/json"
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

	"github.com/hashicorp/memberlist"
)

// line is one stdout line.
type line struct {
	T      int64  `json:"t"`
	Node   string `json:"node"`
	Event  string `json:"event"`
	Member string `json:"member"`
	Cause  string `json:"cause"`
}

// output serializes stdout: memberlist calls its delegates and its logger from several goroutines.
type output struct {
	mu   sync.Mutex
	enc  *json.Encoder
	name string
}

func (o *output) event(event, member, cause string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	_ = o.enc.Encode(line{T: time.Now().UnixMilli(), Node: o.name, Event: event, Member: member, Cause: cause})
}

func (o *output) raw(v interface{}) {
	o.mu.Lock()
	defer o.mu.Unlock()
	_ = o.enc.Encode(v)
}

// events turns memberlist's EventDelegate calls into lines.
type events struct{ out *output }

func (e events) NotifyJoin(n *memberlist.Node) { e.out.event("alive", n.Name, "joined") }

func (e events) NotifyLeave(n *memberlist.Node) {
	if n.State == memberlist.StateLeft {
		e.out.event("left", n.Name, "left")
		return
	}
	e.out.event("dead", n.Name, "failed")
}

func (e events) NotifyUpdate(n *memberlist.Node) { e.out.event("update", n.Name, "metadata") }

var (
	suspectLine = regexp.MustCompile(`memberlist: Suspect (\S+) has failed, no acks received`)
	refuteLine  = regexp.MustCompile(`memberlist: Refuting a suspect message`)
)

// logTap receives memberlist's log lines (log.Logger writes each line with one Write call), turns the
// ones that report suspicions into events and passes every line on to stderr.
type logTap struct{ out *output }

func (t logTap) Write(p []byte) (int, error) {
	text := string(p)
	if m := suspectLine.FindStringSubmatch(text); m != nil {
		t.out.event("suspect", m[1], "probe-failed")
	} else if refuteLine.MatchString(text) {
		t.out.event("refute", t.out.name, "suspect-refuted")
	}
	return os.Stderr.Write(p)
}

func main() {
	name := flag.String("name", "", "member name (required)")
	bind := flag.String("bind", "127.0.0.1", "address to bind")
	port := flag.Int("port", 0, "UDP and TCP port (required)")
	join := flag.String("join", "", "comma-separated host:port seeds")
	lifetime := flag.Duration("lifetime", 15*time.Minute, "exit after this long in any case")
	flag.Parse()
	if *name == "" || *port <= 0 || *port > 65535 {
		fmt.Fprintln(os.Stderr, "usage: memberlist-agent -name NAME -port PORT [-bind 127.0.0.1] [-join HOST:PORT,...] [-lifetime 15m]")
		os.Exit(2)
	}

	out := &output{enc: json.NewEncoder(os.Stdout), name: *name}
	conf := memberlist.DefaultLANConfig()
	conf.Name = *name
	conf.BindAddr = *bind
	conf.BindPort = *port
	conf.AdvertiseAddr = *bind
	conf.AdvertisePort = *port
	conf.Events = events{out: out}
	conf.Logger = log.New(logTap{out: out}, "", log.LstdFlags)

	list, err := memberlist.Create(conf)
	if err != nil {
		fmt.Fprintf(os.Stderr, "memberlist-agent: %v\n", err)
		os.Exit(1)
	}

	if *join != "" {
		seeds := strings.Split(*join, ",")
		// Bounded retries: the seed may still be starting.
		for attempt := 1; ; attempt++ {
			if _, err := list.Join(seeds); err == nil {
				break
			} else if attempt == 20 {
				fmt.Fprintf(os.Stderr, "memberlist-agent: join %v: %v\n", seeds, err)
				_ = list.Shutdown()
				os.Exit(1)
			}
			time.Sleep(250 * time.Millisecond)
		}
	}

	done := make(chan string, 3)
	go func() {
		scanner := bufio.NewScanner(os.Stdin)
		for scanner.Scan() {
			if strings.TrimSpace(scanner.Text()) == "members" {
				out.raw(map[string]interface{}{"type": "members", "alive": list.NumMembers(), "total": len(list.Members())})
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
	fmt.Fprintf(os.Stderr, "memberlist-agent %s: %s, leaving\n", *name, why)
	_ = list.Leave(time.Second)
	_ = list.Shutdown()
}
