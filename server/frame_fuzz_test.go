package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzFrameFilter: whatever line arrives, the stdio connection (the frame
// filter and lineConn) answers it itself with a JSON-RPC error or reads it
// as the message the SDK's decoder makes of it, without failing (a read
// error would end the session), and the line after it is still read.
func FuzzFrameFilter(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`[]`, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `null`, `{}`, `"x"`, `1`,
		`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":2,"result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"s","method":5}`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":-7.9,"method":"tools/call","params":{"name":"x","arguments":{ "a" : [1, "\u00e9"] }}}`,
		`{"jsonrpc":"2.0","id":"","method":"","params":null}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + strings.Repeat(`{"a":`, 999) + `1` + strings.Repeat(`}`, 999) + `}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"} {"jsonrpc":"2.0","id":2,"method":"ping"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		line = bytes.ReplaceAll(line, []byte("\n"), []byte(" ")) // one line
		const canary = `{"jsonrpc":"2.0","id":"canary","method":"ping"}`
		in := io.NopCloser(strings.NewReader(string(line) + "\n" + canary + "\n"))
		var answers bytes.Buffer
		tr := &lineTransport{in: newFrameFilter(in, &lockedWriter{w: &answers}, 1<<20), out: &lockedWriter{w: io.Discard}}
		conn, err := tr.Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var read []jsonrpc.Message
		for {
			msg, err := conn.Read(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("a read failed (the session would end): %v\nline: %.200q", err, line)
			}
			read = append(read, msg)
		}
		if len(read) == 0 || !sameMessage(read[len(read)-1], jsonrpc.DecodeMessage, []byte(canary)) {
			t.Fatalf("the line after %.200q was lost", line)
		}
		if len(read) == 2 && !sameMessage(read[0], jsonrpc.DecodeMessage, bytes.TrimSpace(line)) {
			t.Fatalf("%.200q was read as %#v, not as the SDK decodes it", line, read[0])
		}
		if len(read) > 2 {
			t.Fatalf("one line gave %d messages", len(read)-1)
		}
		for _, a := range bytes.Split(bytes.TrimSpace(answers.Bytes()), []byte("\n")) {
			if len(a) == 0 {
				continue
			}
			var resp struct {
				JSONRPC string `json:"jsonrpc"`
				ID      any    `json:"id"`
				Error   *struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(a, &resp); err != nil || resp.JSONRPC != "2.0" || resp.Error == nil {
				t.Fatalf("the filter's answer %.200q is not a JSON-RPC error (%v)", a, err)
			}
		}
	})
}

// TestPlainRequest: the frames the filter passes without the SDK's
// decoder are requests that decoder reads (checked here with it); anything
// unusual takes the decoder's path.
func TestPlainRequest(t *testing.T) {
	for _, c := range []struct {
		frame string
		plain bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, true},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, true},
		{` { "method" : "tools/call" , "params" : {"name":"x","arguments":{"a":[1,{"b":"\u00e9\n"}]}}, "id" : "s-1", "jsonrpc" : "2.0" } `, true},
		{`{"jsonrpc":"2.0","id":-2.5e3,"method":"ping"}`, true},
		{"\t{\r\n\"jsonrpc\" :\"2.0\",\"id\":0 ,\"method\":\"tools/call\",\"params\":{\"a\\\"}]\":\"}]\\\\\",\"b\":[\"[\",{},[[]],-0.5e-3,true,null]}}\n", true},
		{`{"jsonrpc":"2.0","method":"x","params":"{"}`, true},
		{`{}`, false},
		{`{"method":"ping","jsonrpc":"2.0","method":"ping"}`, false},
		{`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, false},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, false},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, false},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, false},
		{`{"jsonrpc":"2.0","id":"a\"b","method":"ping"}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":5}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"p\u0069ng"}`, false},
		{`{"json\u0072pc":"2.0","id":1,"method":"ping"}`, false},
		{`{"JSONRPC":"2.0","id":1,"method":"ping"}`, false},
		{`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, false},
		{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, false},
		{`{"jsonrpc":"2.0","id":2,"result":{}}`, false},
		{`{"jsonrpc":"2.0","id":1}`, false},
		{`{"id":1,"method":"ping"}`, false},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", false},
		{`{"jsonrpc":"2.0","id":1,"method":"x","params":` + strings.Repeat(`[`, plainDepth) + strings.Repeat(`]`, plainDepth) + `}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"x","params":` + strings.Repeat(`[`, plainDepth-1) + strings.Repeat(`]`, plainDepth-1) + `}`, true},
	} {
		if !json.Valid([]byte(c.frame)) {
			t.Fatalf("not JSON: %s", c.frame)
		}
		if got := plainRequest([]byte(c.frame)); got != c.plain {
			t.Errorf("plainRequest(%.80s) = %v, want %v", c.frame, got, c.plain)
		}
		if c.plain {
			if _, err := jsonrpc.DecodeMessage([]byte(c.frame)); err != nil {
				t.Errorf("the SDK refuses a plain frame %.80s: %v", c.frame, err)
			}
			msg, err := decodePlain([]byte(c.frame))
			if err != nil || !sameMessage(msg, jsonrpc.DecodeMessage, []byte(c.frame)) {
				t.Errorf("decodePlain(%.80s) = %#v, %v; the SDK decodes it otherwise", c.frame, msg, err)
			}
		}
	}
}

// sameMessage reports whether got is the message decode makes of frame:
// the same kind, id and method, and the same bytes of params, result and
// error.
func sameMessage(got jsonrpc.Message, decode func([]byte) (jsonrpc.Message, error), frame []byte) bool {
	want, err := decode(frame)
	if err != nil {
		return false
	}
	switch w := want.(type) {
	case *jsonrpc.Request:
		g, ok := got.(*jsonrpc.Request)
		return ok && g.ID == w.ID && g.Method == w.Method && bytes.Equal(g.Params, w.Params)
	case *jsonrpc.Response:
		g, ok := got.(*jsonrpc.Response)
		if !ok || g.ID != w.ID || !bytes.Equal(g.Result, w.Result) {
			return false
		}
		ge, _ := jsonrpc.EncodeMessage(g)
		we, _ := jsonrpc.EncodeMessage(w)
		return bytes.Equal(ge, we)
	}
	return false
}

// TestLineConnCloseEndsRead: closing the stdio connection ends a read
// that waits for input (the SDK's connection waits for its reader when it
// closes), and reads after it report the end of input.
func TestLineConnCloseEndsRead(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	conn, err := (&lineTransport{in: newFrameFilter(pr, &lockedWriter{w: io.Discard}, 1<<20), out: &lockedWriter{w: io.Discard}}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := conn.Read(context.Background())
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != io.EOF {
			t.Fatalf("the pending read ended with %v, want io.EOF", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end the pending read")
	}
	if _, err := conn.Read(context.Background()); err != io.EOF {
		t.Fatalf("a read after Close: %v, want io.EOF", err)
	}
}

// TestLineConnWritesLines: every message the SDK writes is one line, as
// jsonrpc.EncodeMessage encodes it.
func TestLineConnWritesLines(t *testing.T) {
	var out bytes.Buffer
	conn, err := (&lineTransport{in: newFrameFilter(io.NopCloser(strings.NewReader("")), &lockedWriter{w: io.Discard}, 1<<20), out: &lockedWriter{w: &out}}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	id, err := jsonrpc.MakeID(float64(3))
	if err != nil {
		t.Fatal(err)
	}
	msgs := []jsonrpc.Message{
		&jsonrpc.Response{ID: id, Result: json.RawMessage(`{"a":[1,2]}`)},
		&jsonrpc.Request{Method: "notifications/progress", Params: json.RawMessage(`{"progress":1}`)},
	}
	var want bytes.Buffer
	for _, m := range msgs {
		if err := conn.Write(context.Background(), m); err != nil {
			t.Fatal(err)
		}
		b, _ := jsonrpc.EncodeMessage(m)
		want.Write(append(b, '\n'))
	}
	if out.String() != want.String() {
		t.Fatalf("wrote %q, want %q", out.String(), want.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := conn.Write(ctx, msgs[0]); err == nil {
		t.Fatal("a write under a cancelled context succeeded")
	}
}
