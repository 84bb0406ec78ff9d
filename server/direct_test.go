package server_test

import (
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/server"
)

// nextLine returns the next line the server writes, failing after 30 s.
func (r *rawStdio) nextLine(t *testing.T) string {
	t.Helper()
	select {
	case line, ok := <-r.lines:
		if !ok {
			t.Fatal("the server closed its output")
		}
		return line
	case <-time.After(30 * time.Second):
		t.Fatal("no answer after 30s")
	}
	return ""
}

// varying matches the fields of an envelope that differ from call to call
// (a duration, a time stamp), in structuredContent and escaped in the
// text block.
var varying = regexp.MustCompile(`(duration_ms\\?":[0-9.e+-]+)|(created_at\\?":\\?"[^"\\]*)`)

// TestDirectCallIsTheSDKAnswer: a plain tool call, answered by the
// connection (directConn), gets the answer the SDK's session gives the
// same call (sent with an empty _meta, which the connection leaves to the
// SDK), byte for byte but for the id and the duration: successes,
// failures (isError), an unknown argument, a dotted name, a deprecated
// spelling.
func TestDirectCallIsTheSDKAnswer(t *testing.T) {
	r := startStdio(t, testCtx(t), cursus.Registry(), server.Options{})
	r.send(t, initLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.nextLine(t)
	calls := []struct {
		params string
		direct bool // answered by the connection
	}{
		{`"name":"tools__describe_tool","arguments":{"name":"catalog.search"}`, true},
		{`"name":"catalog__search","arguments":{"query":"xgb train"}`, true},
		{`"name":"catalog__search","arguments":{"qeury":"xgb"}`, true},
		{`"name":"catalog__search","arguments":{}`, true},
		{`"name":"catalog__search"`, true},
		{`"name":"tools__help","arguments":{"namespace":"dag"}`, true},
		{`"name":"dag__construct","arguments":{"nodes":["A","B"],"edges":[["A","B"]]}`, true},
		{`"name":"catalog__search","arguments":{"query":"<b>&\u2028"}`, true},
		{`"name":"catalog.search","arguments":{"query":"xgb"}`, false},
		{`"name":"no__such_tool","arguments":{}`, false},
	}
	for i, c := range calls {
		params := c.params
		before := server.DirectAnswers()
		r.send(t, `{"jsonrpc":"2.0","id":`+strconv.Itoa(10+2*i)+`,"method":"tools/call","params":{`+params+`}}`)
		direct := r.nextLine(t)
		answered := server.DirectAnswers() - before
		r.send(t, `{"jsonrpc":"2.0","id":`+strconv.Itoa(10+2*i)+`,"method":"tools/call","params":{`+params+`,"_meta":{}}}`)
		sdk := r.nextLine(t)
		if server.DirectAnswers() != before+answered {
			t.Fatalf("%s: the call with _meta was answered by the connection", params)
		}
		if c.direct != (answered == 1) {
			t.Errorf("%s: answered by the connection: %v, want %v", params, answered == 1, c.direct)
		}
		if a, b := varying.ReplaceAllString(direct, "X"), varying.ReplaceAllString(sdk, "X"); a != b {
			t.Errorf("%s:\nconnection: %s\nSDK:        %s", params, a, b)
		}
	}
}

// TestDirectCallNeedsAnInitializedSession: before initialize, a plain call
// goes to the SDK, which refuses it as it refuses any request then.
func TestDirectCallNeedsAnInitializedSession(t *testing.T) {
	r := startStdio(t, testCtx(t), testRegistry(t), server.Options{})
	before := server.DirectAnswers()
	r.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"other__ping","arguments":{}}}`)
	m := decodeLine(t, r.nextLine(t))
	if m["error"] == nil || server.DirectAnswers() != before {
		t.Fatalf("a call before initialize was answered %v", m)
	}
	// The SDK may read on before it has handled an initialize, and the
	// connection leaves a call to the SDK until the session is
	// initialized: wait for the initialize's answer.
	r.send(t, initLine)
	r.nextLine(t)
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"other__ping","arguments":{}}}`)
	m = decodeLine(t, r.nextLine(t))
	res, _ := m["result"].(map[string]any)
	if env, _ := res["structuredContent"].(map[string]any); env["ok"] != true || server.DirectAnswers() != before+1 {
		t.Fatalf("after initialize the call was answered %v (%d by the connection)", m, server.DirectAnswers()-before)
	}
}

// TestDirectCallIsCancelled: a notifications/cancelled naming a call the
// connection answers cancels that call's context: the call is answered
// cancelled (uncancelled, the tool answers ok after a second), and the
// session goes on.
func TestDirectCallIsCancelled(t *testing.T) {
	entered := make(chan struct{}, 4)
	r := startStdio(t, testCtx(t), testRegistry(t, stuckNamespace(entered)), server.Options{})
	r.send(t, initLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.nextLine(t)
	before := server.DirectAnswers()
	r.send(t, `{"jsonrpc":"2.0","id":"slow-1","method":"tools/call","params":{"name":"stuck__slow","arguments":{}}}`)
	<-entered
	if server.DirectAnswers() != before+1 {
		t.Fatal("the call was not answered by the connection")
	}
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow-1","reason":"test"}}`)
	m := decodeLine(t, r.nextLine(t))
	res, _ := m["result"].(map[string]any)
	env, _ := res["structuredContent"].(map[string]any)
	if m["id"] != "slow-1" || env["code"] != string(envelope.CodeCancelled) {
		t.Fatalf("the cancelled call was answered %v", m)
	}
	r.send(t, `{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	if m := decodeLine(t, r.nextLine(t)); m["id"] != float64(5) || m["error"] != nil {
		t.Fatalf("after the cancellation a ping was answered %v", m)
	}
}

// TestPlainCall: the params the connection answers itself, and the ones it
// leaves to the SDK.
func TestPlainCall(t *testing.T) {
	for _, c := range []struct {
		params, name, args string
		ok                 bool
	}{
		{`{"name":"a__b","arguments":{"x":1}}`, "a__b", `{"x":1}`, true},
		{` { "arguments" : {} , "name" : "a__b" } `, "a__b", `{}`, true},
		{`{"name":"a__b"}`, "a__b", ``, true},
		{`{"name":"a__b","arguments":{"n":{"m":[1,"}"]}}}`, "a__b", `{"n":{"m":[1,"}"]}}`, true},
		{`{"name":"a__b","arguments":null}`, "", "", false},
		{`{"name":"a__b","arguments":[1]}`, "", "", false},
		{`{"name":"a__b","_meta":{}}`, "", "", false},
		{`{"name":"a__b","arguments":{},"_meta":{"progressToken":1}}`, "", "", false},
		{`{"name":"a\u005fb"}`, "", "", false},
		{`{"na\u006de":"a__b"}`, "", "", false},
		{`{"Name":"a__b"}`, "", "", false},
		{`{"name":"a__b","name":"c__d"}`, "", "", false},
		{`{"name":"a__b","arguments":{},"arguments":{}}`, "", "", false},
		{`{"name":""}`, "", "", false},
		{`{"name":1}`, "", "", false},
		{`{"arguments":{}}`, "", "", false},
		{`{}`, "", "", false},
		{`null`, "", "", false},
		{``, "", "", false},
		{`["a__b"]`, "", "", false},
	} {
		name, args, ok := server.PlainCall([]byte(c.params))
		if ok != c.ok || (ok && (name != c.name || string(args) != c.args)) {
			t.Errorf("plainCall(%s) = %q, %s, %v; want %q, %s, %v", c.params, name, args, ok, c.name, c.args, c.ok)
		}
	}
}

// TestDirectCallsAtTheEndOfInput: plain calls piped in and followed by the
// end of input are all answered before ServeStdio returns.
func TestDirectCallsAtTheEndOfInput(t *testing.T) {
	entered := make(chan struct{}, 8)
	r := startStdio(t, context.Background(), testRegistry(t, stuckNamespace(entered)), server.Options{})
	lines := []string{initLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`}
	for i := range 3 {
		lines = append(lines, `{"jsonrpc":"2.0","id":`+strconv.Itoa(20+i)+`,"method":"tools/call","params":{"name":"stuck__slow","arguments":{}}}`)
	}
	r.send(t, lines...)
	r.in.Close()
	got := byID(r.readAll(t))
	for i := range 3 {
		res, _ := got[strconv.Itoa(20+i)]["result"].(map[string]any)
		if env, _ := res["structuredContent"].(map[string]any); env["ok"] != true {
			t.Errorf("call %d piped before the end of input was answered %v", 20+i, got[strconv.Itoa(20+i)])
		}
	}
	if err := <-r.done; err != nil {
		t.Fatal(err)
	}
}
