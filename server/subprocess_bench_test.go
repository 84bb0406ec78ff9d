package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// The subprocess benchmarks compare `cursus mcp serve` with a bare go-sdk
// server (testdata/baresdk) in its own process, measured side by side in
// the same run, so the machine's speed cancels out of the ratios. The
// budgets are ratios to that floor: a cheap call within 1.3 times the bare
// server's answer of the same envelope (BenchmarkCheapCallSubprocess,
// call/bare), a start to tools/list within 3 times the bare server's listing
// the same descriptors (BenchmarkStartToToolsList, start/bare); and the
// anonymous memory after a compile within 16 MiB
// (BenchmarkPeakRSSAfterCompile, anon-MiB).

var (
	bareOnce sync.Once
	barePath string
	bareErr  error
)

// bareBin builds testdata/baresdk once per test run, beside cursusBin's
// binary, and returns its path.
func bareBin(t testing.TB) string {
	t.Helper()
	cursusBin(t) // makes binDir
	bareOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		barePath = filepath.Join(binDir, "baresdk")
		cmd := exec.Command(goTool, "build", "-o", barePath, "./testdata/baresdk")
		if out, err := cmd.CombinedOutput(); err != nil {
			bareErr = errors.New("go build ./testdata/baresdk: " + err.Error() + "\n" + string(out))
		}
	})
	if bareErr != nil {
		t.Fatal(bareErr)
	}
	return barePath
}

const (
	pingLine      = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	cheapCallLine = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tools__describe_tool","arguments":{"name":"catalog.search"}}}`
	toolsListLine = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	initialized   = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// bareCmd is the bare go-sdk server answering what cursus answers: it
// lists the tools cursus lists (its default tools/list) and answers every
// call with the envelope of cursus's cheap call. The files are written once
// per benchmark, from a cursus server's own answers.
func bareCmd(b *testing.B) *exec.Cmd {
	b.Helper()
	dir := b.TempDir()
	c := startLineClient(b, serveCommand(b, b.TempDir()))
	tools := resultField(b, c.roundTrip(b, toolsListLine), "tools")
	envelope := resultField(b, c.roundTrip(b, cheapCallLine), "structuredContent")
	toolsFile, answerFile := filepath.Join(dir, "tools.json"), filepath.Join(dir, "answer.json")
	if err := os.WriteFile(toolsFile, tools, 0o600); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(answerFile, envelope, 0o600); err != nil {
		b.Fatal(err)
	}
	return exec.Command(bareBin(b), "-tools", toolsFile, "-answer", answerFile)
}

// serveCommand is `cursus mcp serve` in dir, the gates closed.
func serveCommand(b *testing.B, dir string) *exec.Cmd {
	cmd := exec.Command(cursusBin(b), "mcp", "serve")
	cmd.Env, cmd.Dir = serveEnv(), dir
	return cmd
}

// resultField is the JSON of one field of a response line's result.
func resultField(b *testing.B, line []byte, field string) json.RawMessage {
	b.Helper()
	var resp struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(line, &resp); err != nil || resp.Result[field] == nil {
		b.Fatalf("no result.%s in %.300s (%v)", field, line, err)
	}
	return resp.Result[field]
}

// lineClient speaks newline-delimited JSON-RPC to a server process.
type lineClient struct {
	in  io.WriteCloser
	out *bufio.Reader
}

// startLineClient starts cmd and initializes its session.
func startLineClient(b *testing.B, cmd *exec.Cmd) *lineClient {
	b.Helper()
	in, out := startPiped(b, cmd)
	c := &lineClient{in: in, out: bufio.NewReaderSize(out, 1<<20)}
	b.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	c.roundTrip(b, initLine)
	if _, err := io.WriteString(in, initialized+"\n"); err != nil {
		b.Fatal(err)
	}
	return c
}

// roundTrip writes one request line and reads the next line, the answer
// (the servers send nothing else unasked in these benchmarks).
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

// BenchmarkCheapCallSubprocess: a cheap call as a client process sees it,
// next to the same call answered by a bare go-sdk server (bareCmd) with
// the same envelope. Each iteration sends each server, in turn, a run of
// pings and then a run of the cheap call (tools__describe_tool
// {"name":"catalog.search"}), and times each round trip but the first of a
// run (which pays for waking a server that sat idle while the other was
// measured). It reports the medians (µs) and the budget's ratio,
// call/bare: the cheap call's median over the bare server's (at most 1.3).
func BenchmarkCheapCallSubprocess(b *testing.B) {
	servers := []struct {
		name       string
		c          *lineClient
		ping, call []float64
	}{{name: "cursus", c: startLineClient(b, serveCommand(b, b.TempDir()))}, {name: "bare", c: startLineClient(b, bareCmd(b))}}
	var answers [2][]byte
	for i, s := range servers {
		answers[i] = s.c.roundTrip(b, cheapCallLine)
		if !bytes.Contains(answers[i], []byte(`\"ok\":true`)) {
			b.Fatalf("%s: the cheap call answered %.300s", s.name, answers[i])
		}
	}
	if a, c := len(answers[0]), len(answers[1]); a < c*9/10 || a > c*11/10 {
		b.Fatalf("the answers differ in size: cursus %d bytes, bare %d", a, c)
	}
	for range 50 { // warm both up
		for _, s := range servers {
			s.c.roundTrip(b, pingLine)
			s.c.roundTrip(b, cheapCallLine)
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
			s.c.roundTrip(b, pingLine)
			for range run {
				s.ping = append(s.ping, timed(s.c, pingLine))
			}
			s.c.roundTrip(b, cheapCallLine)
			for range run {
				s.call = append(s.call, timed(s.c, cheapCallLine))
			}
		}
	}
	for _, s := range servers {
		b.ReportMetric(median(s.ping), s.name+"-ping-µs")
		b.ReportMetric(median(s.call), s.name+"-call-µs")
	}
	b.ReportMetric(median(servers[0].call)/median(servers[1].call), "call/bare")
	b.ReportMetric(median(servers[0].ping)/median(servers[1].ping), "ping/bare")
}
