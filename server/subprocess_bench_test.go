package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// zeroWorkEnv names the file of the result a zero-work server answers
// every tools/call with; set, it makes the test binary that server.
const zeroWorkEnv = "CURSUS_TEST_ZERO_WORK"

// serveZeroWork is a server that does no work: it reads newline-delimited
// JSON-RPC from stdin and answers each request at once from one thread,
// tools/call with the result in the file answerFile and every other
// request with an empty result. It is the floor of
// BenchmarkCheapCallSubprocess: what a client pays for the answer's size
// and the pipes alone. It returns the process's exit code.
func serveZeroWork(answerFile string) int {
	result, err := os.ReadFile(answerFile)
	if err != nil {
		return 2
	}
	r := bufio.NewReaderSize(os.Stdin, 1<<20)
	var out []byte
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return 0
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &m) != nil || m.ID == nil {
			continue
		}
		out = append(append(out[:0], `{"jsonrpc":"2.0","id":`...), m.ID...)
		out = append(out, `,"result":`...)
		if m.Method == "tools/call" {
			out = append(out, result...)
		} else {
			out = append(out, `{}`...)
		}
		if _, err := os.Stdout.Write(append(out, "}\n"...)); err != nil {
			return 0
		}
	}
}

// lineClient speaks newline-delimited JSON-RPC to a server process.
type lineClient struct {
	in  io.WriteCloser
	out *bufio.Reader
}

func startLineClient(b *testing.B, cmd *exec.Cmd) *lineClient {
	b.Helper()
	in, out := startPiped(b, cmd)
	c := &lineClient{in: in, out: bufio.NewReaderSize(out, 1<<20)}
	b.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	c.roundTrip(b, initLine)
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		b.Fatal(err)
	}
	return c
}

// roundTrip writes one request line and reads lines up to the answer
// (every request of these benchmarks is answered in order), which it
// returns.
func (c *lineClient) roundTrip(b *testing.B, request string) []byte {
	if _, err := io.WriteString(c.in, request+"\n"); err != nil {
		b.Fatal(err)
	}
	line, err := c.out.ReadBytes('\n')
	if err != nil {
		b.Fatalf("no answer to %.100s: %v", request, err)
	}
	return line
}

// BenchmarkCheapCallSubprocess: the call-cost goal as a client sees it.
// `cursus mcp serve` runs in its own process, and a zero-work server
// (serveZeroWork, the test binary itself) answers the same cheap call
// with the same bytes. Each iteration sends each server, in turn, a run of
// MCP pings and then a run of the cheap call (tools__describe_tool
// {"name":"catalog.search"}), as a host's agent might, and times each
// round trip but the first of a run (which pays for waking a server that
// sat idle while the other was measured); the medians are reported (µs),
// and the ratio call/ping for each server. The zero-work ratio is the
// floor of the goal's measure: the answer's size alone.
func BenchmarkCheapCallSubprocess(b *testing.B) {
	const (
		ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tools__describe_tool","arguments":{"name":"catalog.search"}}}`
	)
	serve := exec.Command(cursusBin(b), "mcp", "serve")
	serve.Env, serve.Dir = serveEnv(), b.TempDir()
	cursus := startLineClient(b, serve)
	answer := cursus.roundTrip(b, call)
	result, ok := bytes.CutPrefix(bytes.TrimSpace(answer), []byte(`{"jsonrpc":"2.0","id":1,"result":`))
	if !ok || !bytes.Contains(result, []byte(`"ok":true`)) {
		b.Fatalf("the cheap call's answer: %.300s", answer)
	}
	file := filepath.Join(b.TempDir(), "answer.json")
	if err := os.WriteFile(file, result[:len(result)-1], 0o600); err != nil { // without the response's closing brace
		b.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	zeroCmd := exec.Command(self)
	zeroCmd.Env = append(os.Environ(), zeroWorkEnv+"="+file)
	zero := startLineClient(b, zeroCmd)
	if got := zero.roundTrip(b, call); !bytes.Equal(got, answer) {
		b.Fatalf("the zero-work server answers %.200s, not %.200s", got, answer)
	}
	servers := []struct {
		name string
		c    *lineClient
		ping []float64
		call []float64
	}{{name: "cursus", c: cursus}, {name: "zero", c: zero}}
	for range 50 { // warm both up
		for _, s := range servers {
			s.c.roundTrip(b, ping)
			s.c.roundTrip(b, call)
		}
	}
	timed := func(c *lineClient, request string) float64 {
		t := time.Now()
		line := c.roundTrip(b, request)
		took := float64(time.Since(t).Nanoseconds()) / 1000
		if !strings.Contains(string(line), `"result"`) {
			b.Fatalf("answer: %.300s", line)
		}
		return took
	}
	const run = 10
	b.ResetTimer()
	for b.Loop() {
		for i := range servers {
			s := &servers[i]
			s.c.roundTrip(b, ping)
			for range run {
				s.ping = append(s.ping, timed(s.c, ping))
			}
			s.c.roundTrip(b, call)
			for range run {
				s.call = append(s.call, timed(s.c, call))
			}
		}
	}
	for _, s := range servers {
		p, c := median(s.ping), median(s.call)
		b.ReportMetric(p, s.name+"-ping-µs")
		b.ReportMetric(c, s.name+"-call-µs")
		b.ReportMetric(c/p, s.name+"-call/ping")
	}
}
