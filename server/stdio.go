package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// maxFrame is the largest JSON-RPC line ServeStdio accepts (the SDK's
// default frame cap).
const maxFrame = 16 << 20

// lockedWriter serialises whole-frame writes from the SDK and from the
// frame filter, so their lines never interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close implements io.Closer; the underlying writer stays open.
func (l *lockedWriter) Close() error { return nil }

// frameFilter sits between stdin and the SDK. The SDK decodes stdin as one
// JSON stream and ends the session at the first malformed message; the
// filter instead answers a line that is not JSON with a JSON-RPC parse error
// (-32700) and a JSON value that is not a JSON-RPC message with an invalid
// request error (-32600), then goes on reading. Blank lines are skipped.
type frameFilter struct {
	src  io.ReadCloser
	r    *bufio.Reader
	out  io.Writer
	max  int
	buf  []byte // the next valid frame, newline included, being handed out
	err  error  // the read error to report once buf is empty
	line []byte
}

func newFrameFilter(src io.ReadCloser, out io.Writer, max int) *frameFilter {
	return &frameFilter{src: src, r: bufio.NewReaderSize(src, 64<<10), out: out, max: max}
}

// Read implements io.Reader.
func (f *frameFilter) Read(p []byte) (int, error) {
	for len(f.buf) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, tooLong, err := f.readLine()
		if tooLong {
			f.reject(-32700, fmt.Sprintf("Parse error: message longer than %d bytes", f.max), nil)
		} else if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			f.check(trimmed)
		}
		if err != nil {
			f.err = err
		}
	}
	n := copy(p, f.buf)
	f.buf = f.buf[n:]
	return n, nil
}

// Close implements io.Closer: it closes the source (unblocking a pending read where the OS allows).
func (f *frameFilter) Close() error { return f.src.Close() }

// readLine reads one line without its newline. A line longer than max is
// consumed to its end and reported as tooLong.
func (f *frameFilter) readLine() (line []byte, tooLong bool, err error) {
	f.line = f.line[:0]
	for {
		chunk, err := f.r.ReadSlice('\n')
		if !tooLong {
			if len(f.line)+len(chunk) > f.max+2 {
				tooLong = true
				f.line = f.line[:0]
			} else {
				f.line = append(f.line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(f.line, "\r\n"), tooLong, err
	}
}

// check queues a valid frame or answers an invalid one.
func (f *frameFilter) check(frame []byte) {
	if !json.Valid(frame) {
		f.reject(-32700, "Parse error: the line is not valid JSON", nil)
		return
	}
	if frame[0] == '[' {
		// A batch: the SDK answers or refuses it by protocol version.
		f.buf = append(append(f.buf[:0], frame...), '\n')
		return
	}
	if reason := invalidMessage(frame); reason != "" {
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(frame, &probe)
		f.reject(-32600, "Invalid Request: "+reason, probe.ID)
		return
	}
	f.buf = append(append(f.buf[:0], frame...), '\n')
}

// invalidMessage says why a JSON value is not a message the SDK would
// decode (the rules of its jsonrpc.DecodeMessage), or "" when it is one.
// It uses a cheap probe rather than DecodeMessage, which allocates heavily.
func invalidMessage(frame []byte) string {
	if frame[0] != '{' {
		return "a message must be a JSON object"
	}
	var probe struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      any             `json:"id"`
		Method  json.RawMessage `json:"method"`
	}
	if err := json.Unmarshal(frame, &probe); err != nil {
		return err.Error()
	}
	if probe.JSONRPC != "2.0" {
		return fmt.Sprintf("jsonrpc must be \"2.0\", got %q", probe.JSONRPC)
	}
	switch probe.ID.(type) {
	case nil, string, float64:
	default:
		return "id must be a string, a number or null"
	}
	if len(probe.Method) > 0 {
		var m string
		if err := json.Unmarshal(probe.Method, &m); err != nil {
			return "method must be a string"
		}
		return ""
	}
	if probe.ID == nil {
		return "a message needs a method, or an id when it is a response"
	}
	return ""
}

// reject writes a JSON-RPC error response with the given id (null when absent or unusable).
func (f *frameFilter) reject(code int, msg string, id json.RawMessage) {
	if len(id) == 0 || !(id[0] == '"' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9')) {
		id = json.RawMessage("null")
	}
	resp := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id}
	resp.Error.Code, resp.Error.Message = code, msg
	b, err := json.Marshal(resp)
	if err != nil {
		return
	}
	_, _ = f.out.Write(append(b, '\n'))
}
