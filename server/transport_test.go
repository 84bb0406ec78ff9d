package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/server"
)

func httpSession(t testing.TB, url, protocol string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "server-test", Version: "0"}, nil)
	cs, err := c.Connect(testCtx(t), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestHTTP(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	h, err := server.NewHTTPHandler(testRegistry(t), server.Options{Version: testVersion, Policy: registry.Policy{AllowDestructive: true, ProjectRoot: root}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	for _, proto := range []string{"", "2025-11-25", "2025-06-18"} {
		t.Run("protocol="+proto, func(t *testing.T) {
			cs := httpSession(t, ts.URL+"/mcp", proto)
			if info := cs.InitializeResult().ServerInfo; info.Name != "cursus" || info.Version != testVersion {
				t.Fatalf("serverInfo = %+v", info)
			}
			names := listNames(t, cs)
			if strings.Contains(strings.Join(names, ","), "demo__run") {
				t.Fatalf("script gate closed but demo__run listed: %v", names)
			}
			scenario(t, cs, root)
		})
	}
}

// TestHTTPRefusesCrossOrigin: a browser page on another origin cannot drive
// the local server.
func TestHTTPRefusesCrossOrigin(t *testing.T) {
	t.Parallel()
	h, err := server.NewHTTPHandler(testRegistry(t), server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`
	req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Origin", "https://evil.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-origin POST answered %d, want 403", resp.StatusCode)
	}
}

func TestServeHTTPStopsOnCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var logs lockedBuffer
	logs.b = &bytes.Buffer{}
	go func() {
		done <- server.ServeHTTP(ctx, testRegistry(t), server.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil)), HTTP: server.HTTPOptions{NoAuth: true}}, "127.0.0.1:0")
	}()
	waitFor(t, func() bool { return strings.Contains(logs.String(), "serving MCP over Streamable HTTP") }, time.Minute, "ServeHTTP to listen")
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeHTTP after cancel: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeHTTP did not stop after cancel")
	}
	if err := server.ServeHTTP(context.Background(), testRegistry(t), server.Options{Tools: []string{"nope"}, HTTP: server.HTTPOptions{NoAuth: true}}, "127.0.0.1:0"); err == nil {
		t.Fatal("ServeHTTP with an unknown tool selected succeeded")
	}
}

// rawStdio runs ServeStdio over pipes: send writes requests, and every
// line the server writes arrives on lines (closed when the server is done
// writing).
type rawStdio struct {
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

func startStdio(t testing.TB, ctx context.Context, reg *registry.Registry, opts server.Options) *rawStdio {
	t.Helper()
	return pipeServe(t, func(in io.ReadCloser, out io.WriteCloser) error { return server.ServeStdio(ctx, reg, opts, in, out) })
}

// stdioSession connects a go-sdk client to ServeStdio over pipes.
func stdioSession(t testing.TB, reg *registry.Registry, opts server.Options) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(testCtx(t))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := server.ServeStdio(ctx, reg, opts, inR, outW)
		outW.Close()
		done <- err
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: "server-test", Version: "0"}, nil)
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	})
	return cs
}

// pipeServe runs serve over pipes, as rawStdio describes.
func pipeServe(t testing.TB, serve func(in io.ReadCloser, out io.WriteCloser) error) *rawStdio {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := &rawStdio{in: inW, lines: make(chan string, 1000), done: make(chan error, 1)}
	go func() {
		err := serve(inR, outW)
		outW.Close()
		r.done <- err
	}()
	go func() {
		defer close(r.lines)
		br := bufio.NewReader(outR)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				r.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return r
}

func (r *rawStdio) send(t testing.TB, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(r.in, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
}

func decodeLine(t *testing.T, line string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil || m["jsonrpc"] != "2.0" {
		t.Fatalf("stdout line is not a JSON-RPC message: %q", line)
	}
	return m
}

// readAll returns every message the server writes until it stops writing.
func (r *rawStdio) readAll(t *testing.T) []map[string]any {
	t.Helper()
	var msgs []map[string]any
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-r.lines:
			if !ok {
				return msgs
			}
			msgs = append(msgs, decodeLine(t, line))
		case <-timeout:
			t.Fatalf("server still writing after 30s; got %v", msgs)
		}
	}
}

func byID(msgs []map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, m := range msgs {
		out[fmt.Sprint(m["id"])] = m
	}
	return out
}

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"0"}}}`

// TestStdioAnswersBeforeEndOfInput: requests piped in and followed by the
// end of input are all answered, then ServeStdio returns nil.
func TestStdioAnswersBeforeEndOfInput(t *testing.T) {
	t.Parallel()
	r := startStdio(t, testCtx(t), testRegistry(t), server.Options{})
	r.send(t, initLine,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"demo__echo","arguments":{"msg":"a"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"demo__fail"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"demo__save","arguments":{"path":"x"}}}`)
	r.in.Close()
	msgs := byID(r.readAll(t))
	for _, id := range []string{"1", "2", "3", "4", "5"} {
		if msgs[id] == nil || msgs[id]["result"] == nil {
			t.Fatalf("request %s not answered with a result: %v", id, msgs)
		}
	}
	if res := msgs["5"]["result"].(map[string]any); res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), "tool_disabled") {
		t.Fatalf("gated call: %v", res)
	}
	if err := <-r.done; err != nil {
		t.Fatalf("ServeStdio at end of input: %v", err)
	}
}

// TestStdioSurvivesMalformedLines: a line that is not JSON-RPC gets a
// JSON-RPC error and the session goes on.
func TestStdioSurvivesMalformedLines(t *testing.T) {
	t.Parallel()
	r := startStdio(t, testCtx(t), testRegistry(t), server.Options{})
	r.send(t, "not json", `{"id":9,"foo":1}`, "", "   ", initLine,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"other__ping"}}`)
	r.in.Close()
	msgs := r.readAll(t)
	got := byID(msgs)
	if e, _ := msgs[0]["error"].(map[string]any); e == nil || e["code"] != float64(-32700) || msgs[0]["id"] != nil {
		t.Fatalf("first answer = %v, want a parse error with id null", msgs[0])
	}
	if e, _ := got["9"]["error"].(map[string]any); e == nil || e["code"] != float64(-32600) {
		t.Fatalf("invalid request answer = %v", got["9"])
	}
	if got["1"]["result"] == nil || got["2"]["result"] == nil {
		t.Fatalf("session did not go on after malformed lines: %v", msgs)
	}
	if err := <-r.done; err != nil {
		t.Fatal(err)
	}
}

func TestStdioStopsOnCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	r := startStdio(t, ctx, testRegistry(t), server.Options{})
	r.send(t, initLine)
	select {
	case line := <-r.lines:
		if !strings.Contains(line, `"serverInfo"`) {
			t.Fatalf("initialize answered %q", line)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer to initialize")
	}
	cancel()
	select {
	case err := <-r.done:
		if err != nil {
			t.Fatalf("ServeStdio after cancel: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not stop after cancel")
	}
}

func TestStdioSelectionError(t *testing.T) {
	t.Parallel()
	err := server.ServeStdio(context.Background(), testRegistry(t), server.Options{Namespaces: []string{"nope"}}, strings.NewReader(""), io.Discard)
	if _, ok := err.(*server.SelectionError); !ok {
		t.Fatalf("err = %v, want *SelectionError", err)
	}
}

// gatherNamespace is a tool that blocks until n calls are in flight at
// once, so a server that serialised calls would time out.
func gatherNamespace(n int64) (registry.Namespace, *atomic.Int64) {
	var arrived atomic.Int64
	all := make(chan struct{})
	var once sync.Once
	type args struct {
		ID int `json:"id" jsonschema:"required"`
	}
	return registry.Namespace{Name: "conc", Description: "Concurrency probe.", Tools: []*registry.ToolDef{
		registry.New("conc.gather", spec("Waits until every call has arrived, then echoes its id."), func(ctx context.Context, a args) (*envelope.ToolResult, error) {
			if arrived.Add(1) == n {
				once.Do(func() { close(all) })
			}
			select {
			case <-all:
				return envelope.OK(map[string]any{"id": a.ID}), nil
			case <-time.After(30 * time.Second):
				return nil, fmt.Errorf("only %d of %d calls arrived", arrived.Load(), n)
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}),
	}}, &arrived
}

// TestConcurrentCalls: 200 calls in flight at once from 8 sessions, each
// answered with its own id.
func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	const sessions, calls = 8, 200
	for _, transport := range []string{"in-memory", "http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			ns, arrived := gatherNamespace(calls)
			reg := testRegistry(t, ns)
			// Each session runs its 25 calls at once: above the default bound.
			opts := server.Options{MaxSessionCalls: calls}
			var css []*mcp.ClientSession
			if transport == "http" {
				h, err := server.NewHTTPHandler(reg, opts)
				if err != nil {
					t.Fatal(err)
				}
				ts := httptest.NewServer(h)
				t.Cleanup(ts.Close)
				for range sessions {
					css = append(css, httpSession(t, ts.URL, ""))
				}
			} else if transport == "stdio" {
				// ServeStdio writes the results itself, from the bytes
				// the registry encoded: each answer must reach the call
				// it answers.
				for range sessions {
					css = append(css, stdioSession(t, reg, opts))
				}
			} else {
				s := newServer(t, reg, opts)
				for range sessions {
					css = append(css, connect(t, s, ""))
				}
			}
			var wg sync.WaitGroup
			errs := make(chan error, calls)
			for i := range calls {
				wg.Add(1)
				go func() {
					defer wg.Done()
					cs := css[i%sessions]
					res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "conc__gather", Arguments: map[string]any{"id": i}})
					if err != nil {
						errs <- fmt.Errorf("call %d: %v", i, err)
						return
					}
					var env struct {
						OK   bool
						Data struct{ ID int }
					}
					b, _ := json.Marshal(res.StructuredContent)
					if err := json.Unmarshal(b, &env); err != nil || !env.OK || env.Data.ID != i || res.IsError {
						errs <- fmt.Errorf("call %d answered %s", i, b)
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if arrived.Load() != calls {
				t.Fatalf("%d calls reached the tool, want %d", arrived.Load(), calls)
			}
		})
	}
}

// TestStdioPerRequestProtocolCall: a tools/call of the per-request
// protocol (its _meta names protocol 2026-07-28) gets, over stdio, the
// fields the SDK adds to such results (resultType, _meta serverInfo)
// beside the envelope, as every other call gets the SDK's encoding.
func TestStdioPerRequestProtocolCall(t *testing.T) {
	t.Parallel()
	r := startStdio(t, testCtx(t), testRegistry(t), server.Options{})
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	r.send(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{`+meta+`,"name":"demo__echo","arguments":{"msg":"hi","n":1}}}`)
	line := <-r.lines
	m := decodeLine(t, line)
	res, _ := m["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	if sc["ok"] != true || res["resultType"] != "complete" {
		t.Fatalf("per-request call answered %s", line)
	}
	if rm, _ := res["_meta"].(map[string]any); rm["io.modelcontextprotocol/serverInfo"] == nil {
		t.Fatalf("no serverInfo in the result's _meta: %s", line)
	}
	content, _ := res["content"].([]any)
	if len(content) != 1 || !strings.Contains(fmt.Sprint(content[0]), `"ok":true`) {
		t.Fatalf("the text block is not the envelope: %s", line)
	}
}
