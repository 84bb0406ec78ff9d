package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/server"
)

// stuckNamespace has a tool that never returns and ignores cancellation
// (a call blocked in the kernel), and one that takes a while and honours it.
func stuckNamespace(entered chan<- struct{}) registry.Namespace {
	type none struct{}
	return registry.Namespace{Name: "stuck", Description: "Calls that do not return.", Tools: []*registry.ToolDef{
		registry.New("stuck.forever", spec("Blocks forever, deaf to cancellation."), func(context.Context, none) (*envelope.ToolResult, error) {
			entered <- struct{}{}
			select {}
		}),
		registry.New("stuck.slow", spec("Answers after a second."), func(ctx context.Context, _ none) (*envelope.ToolResult, error) {
			entered <- struct{}{}
			select {
			case <-time.After(time.Second):
				return envelope.OK(map[string]any{"slow": true}), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}),
	}}
}

// deepArgs is an arguments object nested depth levels deep.
func deepArgs(depth int) string {
	return strings.Repeat(`{"a":`, depth) + "{}" + strings.Repeat("}", depth)
}

// TestStdioSurvivesHostileFrames: every frame the SDK would choke on is
// answered with a JSON-RPC error (carrying its id when it has one) and the
// session goes on answering.
func TestStdioSurvivesHostileFrames(t *testing.T) {
	t.Parallel()
	r := startStdio(t, testCtx(t), testRegistry(t), server.Options{})
	huge := `{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"demo__echo","arguments":{"msg":"` + strings.Repeat("x", 17<<20) + `"}}}`
	r.send(t, initLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":9001,"method":"tools/call","params":{"name":"demo__echo","arguments":`+deepArgs(1200)+`}}`,
		`{"jsonrpc":"2.0","id":9002,"method":"tools/call","params":{"name":"demo__echo","arguments":`+deepArgs(998)+`}}`,
		`{"jsonrpc":"2.0","id":9003,"method":"tools/call","params":{"name":"demo__echo","arguments":`+deepArgs(990)+`}}`,
		`[]`,
		`[{"jsonrpc":"2.0","id":31,"method":"ping"},{"jsonrpc":"2.0","id":32,"method":"ping"}]`,
		"{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"tools/call\",\"params\":{\"name\":\"demo__echo\",\"arguments\":{\"msg\":\"\xff\xfe\"}}}",
		"\xff\xfe\xfd",
		`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":42,"result":{}}`,
		`null`, `"just a string"`, `{}`, `{"jsonrpc":"2.0","id":43}`,
		huge,
		`{"jsonrpc":"2.0","id":50,"method":"tools/call","params":{"name":"demo__echo","arguments":{"msg":"alive"}}}`)
	r.in.Close()
	msgs := r.readAll(t)
	got := byID(msgs)
	for id, code := range map[string]float64{"9001": -32600, "9002": -32600, "77": -32700} {
		if e, _ := got[id]["error"].(map[string]any); e == nil || e["code"] != code {
			t.Errorf("frame %s answered %v, want a JSON-RPC error %v with its id", id, got[id], code)
		}
	}
	if res, _ := got["9003"]["result"].(map[string]any); res == nil || res["isError"] != true {
		t.Errorf("990-deep arguments answered %v, want a tool result (the SDK decodes them, the registry refuses them)", got["9003"])
	}
	if res, _ := got["41"]["result"].(map[string]any); res == nil {
		t.Errorf("invalid UTF-8 inside a string answered %v, want a result", got["41"])
	}
	nulls := 0
	for _, m := range msgs {
		if m["id"] == nil && m["error"] != nil {
			nulls++
		}
	}
	if nulls < 7 { // [], the batch, the bytes, 1e400 is kept as text, the object id, null, "...", {}
		t.Errorf("%d errors with id null, want one per frame without a usable id: %v", nulls, msgs)
	}
	if res, _ := got["50"]["result"].(map[string]any); res == nil || !strings.Contains(fmt.Sprint(res["content"]), "alive") {
		t.Fatalf("the session did not go on after the hostile frames: %v", got["50"])
	}
	if err := <-r.done; err != nil {
		t.Fatal(err)
	}
}

// TestStdioStopsWithAStuckCall: with a call stuck (deaf to cancellation),
// cancelling ServeStdio's context (SIGTERM, SIGINT) and the end of input
// each end it: ServeStdio abandons the call after ShutdownGrace instead of
// waiting for it forever.
func TestStdioStopsWithAStuckCall(t *testing.T) {
	defer server.SetDrainGrace(500 * time.Millisecond)()
	for _, how := range []string{"cancel", "eof"} {
		t.Run(how, func(t *testing.T) {
			entered := make(chan struct{}, 4)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r := startStdio(t, ctx, testRegistry(t, stuckNamespace(entered)), server.Options{})
			r.send(t, initLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"stuck__forever"}}`)
			<-entered
			if how == "cancel" {
				cancel()
			} else {
				r.in.Close()
			}
			// The call never returns: ServeStdio returning at all is the
			// behaviour; the limit only turns a hang into a failure.
			select {
			case err := <-r.done:
				if err != nil {
					t.Fatalf("ServeStdio: %v", err)
				}
			case <-time.After(time.Minute):
				t.Fatalf("ServeStdio still running a minute after %s with a call stuck", how)
			}
		})
	}
}

// TestStdioCancelsCallsInFlight: stopping cancels a call that honours its
// context, and the call is answered (cancelled) before ServeStdio returns.
func TestStdioCancelsCallsInFlight(t *testing.T) {
	t.Parallel()
	entered := make(chan struct{}, 4)
	ctx, cancel := context.WithCancel(context.Background())
	r := startStdio(t, ctx, testRegistry(t, stuckNamespace(entered)), server.Options{})
	r.send(t, initLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"stuck__slow"}}`)
	<-entered
	cancel()
	select {
	case err := <-r.done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(server.ShutdownGrace + 3*time.Second):
		t.Fatal("ServeStdio did not stop")
	}
	res, _ := byID(r.readAll(t))["2"]["result"].(map[string]any)
	env, _ := res["structuredContent"].(map[string]any)
	if res["isError"] != true || env["code"] != string(envelope.CodeCancelled) {
		t.Fatalf("the call in flight was answered %v, want a cancelled envelope", res)
	}
}

func postJSON(t *testing.T, url, token, session, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

// TestHTTPBearerToken: with a token set, a request without it or with
// another one answers 401; with it, the session works (go-sdk client).
func TestHTTPBearerToken(t *testing.T) {
	t.Parallel()
	h, err := server.NewHTTPHandler(testRegistry(t), server.Options{HTTP: server.HTTPOptions{AuthToken: "s3cret-token"}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	for _, tok := range []string{"", "wrong", "s3cret-token-longer", "s3cret-toke"} {
		if resp := postJSON(t, ts.URL, tok, "", initBody); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("token %q: %d %v, want 401 with a Bearer challenge", tok, resp.StatusCode, resp.Header)
		}
	}
	if resp := postJSON(t, ts.URL, "s3cret-token", "", initBody); resp.StatusCode != http.StatusOK {
		t.Errorf("right token: %d, want 200", resp.StatusCode)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	cs, err := c.Connect(testCtx(t), &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: &http.Client{Transport: bearer{"s3cret-token"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, env := callEnv(t, cs, "demo__echo", map[string]any{"msg": "hi"}); env["ok"] != true {
		t.Fatalf("call with the token: %v", env)
	}
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPRefusesUnauthenticatedNetworkBind: ServeHTTP needs a token on
// any address (loopback too: any local user, and any web page routed to
// the port, could call the tools), NoAuth opens loopback alone, and with
// a token it serves beyond loopback.
func TestHTTPRefusesUnauthenticatedNetworkBind(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", "example.com:0"} {
		for _, noAuth := range []bool{false, true} {
			err := server.ServeHTTP(context.Background(), testRegistry(t), server.Options{HTTP: server.HTTPOptions{NoAuth: noAuth}}, addr)
			if !errors.Is(err, server.ErrUnauthenticatedBind) {
				t.Errorf("%s without a token (no_auth %v): %v, want ErrUnauthenticatedBind", addr, noAuth, err)
			}
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0", "localhost:0", "0"} {
		if err := server.ServeHTTP(context.Background(), testRegistry(t), server.Options{}, addr); !errors.Is(err, server.ErrNoAuthToken) {
			t.Errorf("%s without a token: %v, want ErrNoAuthToken", addr, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	logs := &lockedBuffer{b: &bytes.Buffer{}}
	done := make(chan error, 1)
	go func() {
		done <- server.ServeHTTP(ctx, testRegistry(t), server.Options{HTTP: server.HTTPOptions{AuthToken: "t"},
			Logger: slog.New(slog.NewTextHandler(logs, nil))}, "0.0.0.0:0")
	}()
	// It listens (and logs its URL) before it is stopped.
	waitFor(t, func() bool {
		select {
		case err := <-done:
			t.Fatalf("0.0.0.0 with a token returned before it was stopped: %v", err)
		default:
		}
		return strings.Contains(logs.String(), "serving MCP over Streamable HTTP")
	}, 10*time.Second, "ServeHTTP on 0.0.0.0 to listen")
	cancel()
	if err := <-done; err != nil {
		t.Errorf("0.0.0.0 with a token: %v", err)
	}
}

// TestHTTPSessionBound: sessions beyond MaxSessions answer 503 until one
// is closed or times out idle.
func TestHTTPSessionBound(t *testing.T) {
	t.Parallel()
	h, err := server.NewHTTPHandler(testRegistry(t), server.Options{HTTP: server.HTTPOptions{MaxSessions: 2, SessionIdleTimeout: 300 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	var ids []string
	for range 2 {
		resp := postJSON(t, ts.URL, "", "", initBody)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
			t.Fatalf("session: %d %v", resp.StatusCode, resp.Header)
		}
		ids = append(ids, resp.Header.Get("Mcp-Session-Id"))
	}
	resp := postJSON(t, ts.URL, "", "", initBody)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("third session: %d, want 503", resp.StatusCode)
	}
	// The open sessions still answer.
	if resp := postJSON(t, ts.URL, "", ids[0], `{"jsonrpc":"2.0","id":2,"method":"ping"}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("ping on an open session: %d", resp.StatusCode)
	}
	// Idle sessions expire, and their slots come back. The wait asks for a
	// new session, never touching the idle ones (a request to one would
	// keep it alive); ids[1], idle the longest, is gone by then.
	waitFor(t, func() bool {
		resp := postJSON(t, ts.URL, "", "", initBody)
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("a new session while the others idle: %d, want 200 or 503", resp.StatusCode)
		}
		return resp.StatusCode == http.StatusOK
	}, time.Minute, "an idle session to expire and its slot to come back")
	if resp := postJSON(t, ts.URL, "", ids[1], `{"jsonrpc":"2.0","id":3,"method":"ping"}`); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the session idle the longest answered %d, want 404 (expired)", resp.StatusCode)
	}
}

// TestHTTPLogsNoSessionID: session ids are bearer credentials of HTTP
// sessions: they never reach the logs, at any level.
func TestHTTPLogsNoSessionID(t *testing.T) {
	t.Parallel()
	var logs lockedBuffer
	logs.b = &bytes.Buffer{}
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	for _, guided := range []bool{false, true} {
		h, err := server.NewHTTPHandler(cursus.Registry(), server.Options{Logger: log, Guided: guided})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(h)
		cs := httpSession(t, ts.URL, "2025-06-18")
		id := cs.ID()
		if id == "" {
			t.Fatal("no session id")
		}
		callEnv(t, cs, "tools__help", map[string]any{})
		cs.Close()
		ts.Close()
		logs.mu.Lock()
		text := logs.b.String()
		logs.mu.Unlock()
		if strings.Contains(text, id) {
			t.Errorf("guided=%v: the session id %s is in the logs:\n%s", guided, id, text)
		}
		if !strings.Contains(text, "session") {
			t.Errorf("guided=%v: the test saw no session log at all:\n%s", guided, text)
		}
	}
}

// TestServeHTTPDrainsCallsInFlight: stopping ServeHTTP lets a call in
// flight finish and deliver its answer.
func TestServeHTTPDrainsCallsInFlight(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	entered := make(chan struct{}, 4)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- server.ServeHTTP(ctx, testRegistry(t, stuckNamespace(entered)), server.Options{HTTP: server.HTTPOptions{NoAuth: true}}, addr)
	}()
	var cs *mcp.ClientSession
	for range 50 {
		c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil)
		if cs, err = c.Connect(testCtx(t), &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp"}, nil); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if cs == nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var env map[string]any
	var callErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "stuck__slow"})
		if err != nil {
			callErr = err
			return
		}
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &env)
	}()
	<-entered
	cancel() // SIGTERM while the call runs
	wg.Wait()
	if callErr != nil || env["ok"] != true {
		t.Fatalf("the call in flight at shutdown: %v %v, want its answer", callErr, env)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(server.HTTPDrainTimeout + 5*time.Second):
		t.Fatal("ServeHTTP did not stop")
	}
}

// serveAndDial runs ServeHTTP on a free loopback port for the test's
// duration and returns a raw connection to it and its address.
func serveAndDial(t *testing.T, opts server.HTTPOptions) (net.Conn, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	opts.NoAuth = true
	go server.ServeHTTP(ctx, testRegistry(t), server.Options{HTTP: opts}, addr)
	var conn net.Conn
	for range 50 {
		if conn, err = net.Dial("tcp", addr); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if conn == nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn, addr
}

// TestServeHTTPReadTimeout: a client that sends its request too slowly
// (headers, or a body that never ends) is cut off after the read timeout.
func TestServeHTTPReadTimeout(t *testing.T) {
	t.Parallel()
	conn, addr := serveAndDial(t, server.HTTPOptions{ReadTimeout: 300 * time.Millisecond})
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{\"jsonrpc\":", addr)
	// The server ending the connection is the behaviour; the test's own
	// read deadline only turns a connection held forever into a failure.
	_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
	b := make([]byte, 4096)
	for {
		_, err := conn.Read(b)
		if err == nil {
			continue
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatal("a body that never ends held the connection for a minute")
		}
		break
	}
}

// TestServeHTTPIdleTimeout: a keep-alive connection is kept for the next
// request, and closed by the server once left idle.
func TestServeHTTPIdleTimeout(t *testing.T) {
	t.Parallel()
	const idle = time.Second
	conn, addr := serveAndDial(t, server.HTTPOptions{IdleTimeout: idle})
	br := bufio.NewReader(conn)
	ask := func() {
		t.Helper()
		fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", addr, len(initBody), initBody)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("no answer on the kept-alive connection: %v", err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("initialize: %d", resp.StatusCode)
		}
	}
	ask()
	ask() // the connection is kept for the next request
	// The server closing the idle connection is the behaviour; the test's
	// own read deadline only turns a connection kept forever into a failure.
	_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
	_, err := br.ReadByte()
	switch {
	case err == nil:
		t.Fatal("the server wrote on an idle connection")
	case errors.Is(err, os.ErrDeadlineExceeded):
		t.Fatal("the idle connection was still open a minute later")
	}
}

// TestGuidedReadOnlyHintEveryStage: in every stage, with the write gate
// open, no tool a stage records (a call of it writes a report) is
// annotated readOnlyHint, and every tool annotated so is read-only in the
// registry.
func TestGuidedReadOnlyHintEveryStage(t *testing.T) {
	t.Parallel()
	recorded := map[string]bool{}
	for _, name := range cursus.RecordedTools() {
		recorded[name] = true
	}
	if len(recorded) == 0 {
		t.Fatal("no stage records a tool: the test proves nothing")
	}
	reg := cursus.Registry()
	listedRecorded := 0
	for _, st := range cursus.Stages() {
		s := newServer(t, reg, server.Options{Stage: st.Name, Policy: registry.Policy{AllowDestructive: true, AllowScriptExec: true, ProjectRoot: t.TempDir()}})
		cs := connect(t, s, "")
		for tool, err := range cs.Tools(testCtx(t), nil) {
			if err != nil {
				t.Fatal(err)
			}
			if recorded[registry.DottedName(tool.Name)] {
				listedRecorded++
			}
			if !tool.Annotations.ReadOnlyHint {
				continue
			}
			def, ok := reg.Get(tool.Name)
			if !ok {
				t.Fatalf("%s: listed tool %s is not in the registry", st.Name, tool.Name)
			}
			if recorded[def.Name] || !def.ReadOnly() {
				t.Errorf("stage %s: %s is annotated readOnlyHint but writes (recorded %v, read-only %v)", st.Name, def.Name, recorded[def.Name], def.ReadOnly())
			}
		}
	}
	if listedRecorded == 0 {
		t.Error("no stage listed a tool it records: the test proves nothing")
	}
}

// TestGuidedReadOnlyHint: a tool a stage records writes a report when the
// write gate is open, so in guided mode it is not annotated read-only; with
// the gate closed nothing is written and it is.
func TestGuidedReadOnlyHint(t *testing.T) {
	t.Parallel()
	for _, open := range []bool{false, true} {
		s := newServer(t, cursus.Registry(), server.Options{Stage: "validate", Policy: registry.Policy{AllowDestructive: open, ProjectRoot: t.TempDir()}})
		cs := connect(t, s, "")
		seen := false
		for tool, err := range cs.Tools(testCtx(t), nil) {
			if err != nil {
				t.Fatal(err)
			}
			if tool.Name != "dag__validate_integrity" {
				continue
			}
			seen = true
			if tool.Annotations.ReadOnlyHint == open {
				t.Errorf("write gate open=%v: dag__validate_integrity readOnlyHint=%v", open, tool.Annotations.ReadOnlyHint)
			}
		}
		if !seen {
			t.Fatal("dag__validate_integrity is not listed in the validate stage")
		}
	}
}
