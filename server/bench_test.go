package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/server"
	"github.com/cursus-go/cursus/tools"
)

func reportRate(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// processCPU is the CPU time (user and system) the test process used so
// far. On a shared machine it varies less than the wall time, which
// counts the time other processes hold the cores.
func processCPU() time.Duration {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

func benchList(b *testing.B, cs *mcp.ClientSession) {
	ctx := testCtx(b)
	n := 0
	b.ResetTimer()
	for b.Loop() {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		n = len(res.Tools)
	}
	reportRate(b)
	b.ReportMetric(float64(n), "tools")
}

func benchCall(b *testing.B, cs *mcp.ClientSession, name string, args any) {
	ctx := testCtx(b)
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	b.ResetTimer()
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatalf("%v %v", err, res)
		}
	}
	reportRate(b)
}

// BenchmarkListToolsInMemory: tools/list of the real registry (default
// policy) over the in-memory transport.
func BenchmarkListToolsInMemory(b *testing.B) {
	benchList(b, connect(b, newServer(b, cursus.Registry(), server.Options{}), ""))
}

// BenchmarkCallInMemory: a small tools/call round trip (demo.echo) over the
// in-memory transport.
func BenchmarkCallInMemory(b *testing.B) {
	cs := connect(b, newServer(b, testRegistry(b), server.Options{}), "")
	benchCall(b, cs, "demo__echo", map[string]any{"msg": "hi", "n": 1})
}

// BenchmarkCallInMemoryParallel: the same call from parallel goroutines on
// one session.
func BenchmarkCallInMemoryParallel(b *testing.B) {
	cs := connect(b, newServer(b, testRegistry(b), server.Options{}), "")
	ctx := testCtx(b)
	params := &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"msg": "hi"}}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
				b.Errorf("%v %v", err, res)
				return
			}
		}
	})
	reportRate(b)
}

// benchRaw measures the server alone: ServeStdio in process over pipes,
// one pre-encoded request line written and one response line read per
// iteration, no client-side decoding. cpu-µs/op is the process's CPU time
// per call (the server's, GC included, and the loop's small share).
func benchRaw(b *testing.B, r *rawStdio, request string) {
	r.send(b, initLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	<-r.lines
	line := request + "\n"
	b.ResetTimer()
	cpu := processCPU()
	for b.Loop() {
		if _, err := io.WriteString(r.in, line); err != nil {
			b.Fatal(err)
		}
		if resp := <-r.lines; !strings.Contains(resp, `"result"`) || strings.Contains(resp, `"isError":true`) {
			b.Fatalf("answer: %.300s", resp)
		}
	}
	reportRate(b)
	b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
}

// BenchmarkListToolsRawStdio: tools/list of the real registry, server side only.
func BenchmarkListToolsRawStdio(b *testing.B) {
	benchRaw(b, startStdio(b, testCtx(b), cursus.Registry(), server.Options{}), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
}

// BenchmarkCallRawStdio: a small tools/call (demo.echo), server side only.
func BenchmarkCallRawStdio(b *testing.B) {
	benchRaw(b, startStdio(b, testCtx(b), testRegistry(b), server.Options{}),
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"demo__echo","arguments":{"msg":"hi","n":1}}}`)
}

// BenchmarkListToolsStdio: tools/list against a real `cursus mcp serve`
// subprocess over stdio.
func BenchmarkListToolsStdio(b *testing.B) {
	cs, _ := subprocessSession(b, serveEnv())
	benchList(b, cs)
}

// BenchmarkCallStdio: a small tools/call round trip
// (tools__describe_tool) against a real `cursus mcp serve` subprocess.
func BenchmarkCallStdio(b *testing.B) {
	cs, _ := subprocessSession(b, serveEnv())
	benchCall(b, cs, "tools__describe_tool", map[string]any{"name": "tools.by_phase"})
}

// BenchmarkStartToFirstAnswer: from starting `cursus mcp serve` to reading
// its initialize response (the median is start-ms; ns/op includes the
// shutdown).
func BenchmarkStartToFirstAnswer(b *testing.B) {
	cursusBin(b) // build outside the timed loop
	dir := b.TempDir()
	var took []float64
	for b.Loop() {
		r := serveOnce(b, serveCommand(b, dir), "1")
		took = append(took, float64(r.took.Microseconds())/1000)
	}
	b.ReportMetric(median(took), "start-ms")
}

// BenchmarkNewServer: building the server from the real registry (part of
// the start-up time; the registry itself is built once before the loop).
func BenchmarkNewServer(b *testing.B) {
	reg := cursus.Registry()
	opts := server.Options{Policy: registry.Policy{AllowDestructive: true, AllowScriptExec: true}}
	for b.Loop() {
		if _, err := server.New(reg, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPingRawStdio: an MCP ping, server side only: the floor a cheap
// tools/call is compared with (BenchmarkCheapCallRawStdio).
func BenchmarkPingRawStdio(b *testing.B) {
	benchRaw(b, startStdio(b, testCtx(b), cursus.Registry(), server.Options{}), `{"jsonrpc":"2.0","id":4,"method":"ping"}`)
}

// BenchmarkCheapCallRawStdio: the cheap call the agent-economy goal is set
// for (tools__describe_tool {"name":"catalog.search"}), on the real
// registry, server side only; compare with BenchmarkPingRawStdio.
func BenchmarkCheapCallRawStdio(b *testing.B) {
	benchRaw(b, startStdio(b, testCtx(b), cursus.Registry(), server.Options{}),
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"tools__describe_tool","arguments":{"name":"catalog.search"}}}`)
}

// startFloor serves a bare SDK server over pipes, as startStdio serves
// ours: one tool, answering answer as structuredContent and text, as our
// server shapes a result, with nothing of the registry, the policy or our
// stdio layer. It is the SDK's floor for an answer of that size.
func startFloor(b *testing.B, answer []byte) *rawStdio {
	b.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "floor", Version: "0"}, nil)
	s.AddTool(&mcp.Tool{Name: "tools__describe_tool", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(answer)}}, StructuredContent: json.RawMessage(answer)}, nil
		})
	return pipeServe(b, func(in io.ReadCloser, out io.WriteCloser) error {
		return s.Run(testCtx(b), &mcp.IOTransport{Reader: in, Writer: out})
	})
}

// BenchmarkCheapCallFloorRawStdio: the cheap call's envelope, as the real
// registry answers it, from a bare SDK server (startFloor): what
// BenchmarkCheapCallRawStdio costs beyond it is ours.
func BenchmarkCheapCallFloorRawStdio(b *testing.B) {
	_, wire := cursus.Registry().CallJSON(testCtx(b), "tools.describe_tool", map[string]any{"name": "catalog.search"})
	benchRaw(b, startFloor(b, wire),
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"tools__describe_tool","arguments":{"name":"catalog.search"}}}`)
}

// BenchmarkPingFloorRawStdio: an MCP ping of a bare SDK server.
func BenchmarkPingFloorRawStdio(b *testing.B) {
	benchRaw(b, startFloor(b, []byte(`{}`)), `{"jsonrpc":"2.0","id":4,"method":"ping"}`)
}

// served is what serveOnce measured of one server process.
type served struct {
	took     time.Duration    // from the start to the wanted answer
	state    *os.ProcessState // at exit: CPU time
	pages    residentPages    // just after the wanted answer
	answered int              // the wanted answer's bytes
}

// residentPages splits a process's resident memory: anonymous pages (the
// Go heap, stacks and runtime metadata) and pages of files (the binary's
// code and read-only data, the C library). The values are zero where /proc
// is not there to read.
type residentPages struct {
	anonKiB, fileKiB int
	peakKiB          int // VmHWM: the process's peak resident set so far
}

// readResident reads pid's resident pages from /proc.
func readResident(pid int) residentPages {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return residentPages{}
	}
	field := func(name string) int {
		for line := range strings.Lines(string(b)) {
			if rest, ok := strings.CutPrefix(line, name+":"); ok {
				var kib int
				if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kib); err == nil {
					return kib
				}
			}
		}
		return 0
	}
	return residentPages{anonKiB: field("RssAnon"), fileKiB: field("RssFile"), peakKiB: field("VmHWM")}
}

// serveOnce starts cmd (a stdio MCP server), initializes, sends each
// request line and reads the answers up to the one with id want, reads the
// process's resident pages, then closes stdin and waits.
func serveOnce(b *testing.B, cmd *exec.Cmd, want string, requests ...string) served {
	var logs bytes.Buffer
	cmd.Stderr = &logs
	start := time.Now()
	stdin, stdout := startPiped(b, cmd)
	lines := append([]string{initLine, initialized}, requests...)
	if _, err := io.WriteString(stdin, strings.Join(lines, "\n")+"\n"); err != nil {
		b.Fatal(err)
	}
	br := bufio.NewReaderSize(stdout, 1<<20)
	var answer string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			b.Fatalf("no answer %s: %v", want, err)
		}
		if strings.HasPrefix(line, `{"jsonrpc":"2.0","id":`+want+`,`) {
			if !strings.Contains(line, `"result"`) || strings.Contains(line, `"isError":true`) {
				b.Fatalf("answer %s: %.300s", want, line)
			}
			answer = line
			break
		}
	}
	took := time.Since(start)
	pages := readResident(cmd.Process.Pid)
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		b.Fatalf("%v; the server's log:\n%s", err, logs.Bytes())
	}
	return served{took: took, state: cmd.ProcessState, pages: pages, answered: len(answer)}
}

// reportProcess adds the servers' median CPU time (user and system, the
// whole run), peak RSS (VmHWM after the last answer) and resident pages
// after the last answer by kind (residentPages), each metric's name
// prefixed with prefix.
func reportProcess(b *testing.B, prefix string, runs []served) {
	var cpu, rss, anon, file []float64
	for _, r := range runs {
		st := r.state
		cpu = append(cpu, float64((st.UserTime()+st.SystemTime()).Microseconds())/1000)
		// The peak is the server's VmHWM, read before it exits. Not the
		// rusage's maxrss: on Linux that also counts the memory of the test
		// process the server was forked from, up to its exec.
		if r.pages.peakKiB > 0 {
			rss = append(rss, float64(r.pages.peakKiB)/1024)
			anon = append(anon, float64(r.pages.anonKiB)/1024)
			file = append(file, float64(r.pages.fileKiB)/1024)
		}
	}
	b.ReportMetric(median(cpu), prefix+"cpu-ms")
	if len(rss) > 0 {
		b.ReportMetric(median(rss), prefix+"peak-rss-MiB")
		b.ReportMetric(median(anon), prefix+"anon-MiB")
		b.ReportMetric(median(file), prefix+"file-MiB")
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkStartToToolsList: from starting `cursus mcp serve` to reading
// its tools/list answer, next to a bare go-sdk server listing the same
// descriptors (bareCmd), started in turn. It reports the medians (start-ms,
// bare-start-ms), the budget's ratio start/bare (at most 3), the answers'
// sizes (list-bytes) and each server's CPU time and resident memory.
func BenchmarkStartToToolsList(b *testing.B) {
	bare := bareCmd(b)
	dir := b.TempDir()
	var ours, floor []served
	var took, bareTook []float64
	for b.Loop() {
		r := serveOnce(b, serveCommand(b, dir), "2", toolsListLine)
		took = append(took, float64(r.took.Microseconds())/1000)
		ours = append(ours, r)
		f := serveOnce(b, exec.Command(bare.Path, bare.Args[1:]...), "2", toolsListLine)
		bareTook = append(bareTook, float64(f.took.Microseconds())/1000)
		floor = append(floor, f)
	}
	b.ReportMetric(median(took), "start-ms")
	b.ReportMetric(median(bareTook), "bare-start-ms")
	b.ReportMetric(median(took)/median(bareTook), "start/bare")
	b.ReportMetric(float64(ours[0].answered), "list-bytes")
	b.ReportMetric(float64(floor[0].answered), "bare-list-bytes")
	reportProcess(b, "", ours)
	reportProcess(b, "bare-", floor)
}

// BenchmarkPeakRSSAfterCompile: a server's resident memory (and CPU time)
// after tools/list and one compile.definition of the xgboost-end-to-end
// example: anon-MiB is the budget's measure (at most 16 MiB); ns/op is the
// whole session.
func BenchmarkPeakRSSAfterCompile(b *testing.B) {
	root, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"compile__definition","arguments":{"dag_file":"examples/xgboost-end-to-end/dag.json","config_file":"examples/xgboost-end-to-end/config.json"}}}`
	var runs []served
	for b.Loop() {
		runs = append(runs, serveOnce(b, serveCommand(b, root), "3", toolsListLine, call))
	}
	reportProcess(b, "", runs)
}

// BenchmarkTinyCallFloorRawStdio: a tools/call answering a tiny envelope
// from a bare SDK server: the SDK's own cost of a tools/call beyond a ping.
func BenchmarkTinyCallFloorRawStdio(b *testing.B) {
	benchRaw(b, startFloor(b, []byte(`{"ok":true,"data":{}}`)),
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"tools__describe_tool","arguments":{"name":"catalog.search"}}}`)
}

// BenchmarkStartInProcess: the part of the start-up that is ours, in
// process, for a CPU profile (-cpuprofile): the default registry built
// anew (as cursus.Build does), ServeStdio over pipes, and its initialize
// and tools/list answers, which reflect every listed tool's schemas.
// Package initialisation, which the process pays before main, is not in
// it (GODEBUG=inittrace=1 shows it).
func BenchmarkStartInProcess(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		reg, err := tools.Build(cursus.DefaultNamespaces())
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		r := startStdio(b, ctx, reg, server.Options{})
		r.send(b, initLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		for line := range r.lines {
			if strings.HasPrefix(line, `{"jsonrpc":"2.0","id":2,`) {
				break
			}
		}
		cancel()
		r.in.Close()
		<-r.done
	}
}
