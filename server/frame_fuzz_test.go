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
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzFrameFilter: whatever line arrives, the frame filter answers it
// itself with a JSON-RPC error or hands the SDK a frame the SDK's own
// connection reads without failing (a read error would end the session),
// and the line after it is still read.
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
		filter := newFrameFilter(in, &lockedWriter{w: &answers}, 1<<20)
		conn, err := (&mcp.IOTransport{Reader: filter, Writer: &lockedWriter{w: io.Discard}}).Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		sawCanary := false
		for !sawCanary {
			msg, err := conn.Read(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("the SDK failed to read a frame the filter passed (the session would end): %v\nline: %.200q", err, line)
			}
			b, _ := jsonrpc.EncodeMessage(msg)
			sawCanary = bytes.Contains(b, []byte(`"canary"`))
		}
		if !sawCanary {
			t.Fatalf("the line after %.200q was lost", line)
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
		}
	}
}
