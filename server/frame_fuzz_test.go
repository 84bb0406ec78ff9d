package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzFrameFilter: whatever line arrives, the stdio connection (the frame
// filter in front of the SDK's transport, and frameConn) either answers it
// itself with one JSON-RPC error or reads it as the message the SDK's
// decoder makes of it, without failing (a read error would end the
// session), and the line after it is still read.
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
		t.Parallel()
		line = bytes.ReplaceAll(line, []byte("\n"), []byte(" ")) // one line
		const canary = `{"jsonrpc":"2.0","id":"canary","method":"ping"}`
		in := io.NopCloser(strings.NewReader(string(line) + "\n" + canary + "\n"))
		var answers bytes.Buffer
		tr := &frameTransport{filter: newFrameFilter(in, &lockedWriter{w: &answers}, 1<<20), out: &lockedWriter{w: io.Discard}}
		conn, err := tr.Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var read []jsonrpc.Message
		for {
			msg, err := conn.Read(context.Background())
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
		if len(read) > 2 {
			t.Fatalf("one line gave %d messages", len(read)-1)
		}
		if len(read) == 2 && !sameMessage(read[0], jsonrpc.DecodeMessage, bytes.TrimSpace(line)) {
			t.Fatalf("%.200q was read as %#v, not as the SDK decodes it", line, read[0])
		}
		var errs int
		for _, a := range bytes.Split(bytes.TrimSpace(answers.Bytes()), []byte("\n")) {
			if len(a) == 0 {
				continue
			}
			errs++
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
		blank := len(bytes.TrimSpace(line)) == 0
		if want := map[bool]int{true: 0, false: 1}[blank || len(read) == 2]; errs != want {
			t.Fatalf("%.200q: %d error answers and %d messages read; want the line answered or read, once", line, errs, len(read)-1)
		}
	})
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

// TestFrameConnCloseEndsRead: closing the stdio connection ends a read
// that waits for input, and reads after it report the end of input.
func TestFrameConnCloseEndsRead(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	defer pw.Close()
	conn, err := (&frameTransport{filter: newFrameFilter(pr, &lockedWriter{w: io.Discard}, 1<<20), out: &lockedWriter{w: io.Discard}}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := conn.Read(context.Background())
		done <- err
	}()
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != io.EOF {
		t.Fatalf("the pending read ended with %v, want io.EOF", err)
	}
	if _, err := conn.Read(context.Background()); err != io.EOF {
		t.Fatalf("a read after Close: %v, want io.EOF", err)
	}
}
