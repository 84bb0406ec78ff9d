package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxFrame is the largest JSON-RPC line ServeStdio accepts: the SDK's
// own cap on a frame.
const maxFrame = mcp.DefaultMaxLineLength

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

// frameFilter is the reader ServeStdio puts in front of the SDK's stdio
// transport (mcp.IOTransport). The SDK ends a session at the first line it
// cannot decode; the filter hands it only lines it can: each line the
// filter passes is one JSON object, trimmed, on a line of its own. It
// answers every other line itself, then goes on reading: a line that is
// not JSON, or is longer than max, with a parse error (-32700); a JSON
// value that is not an object (a batch, the empty batch "[]", a string)
// with an invalid request error (-32600). The answer carries the line's
// id when one can be read from it. Blank lines are skipped. An object the
// SDK's decoder still refuses (no "jsonrpc":"2.0", an id that is neither a
// string nor a number, a message nested deeper than the SDK decodes) is
// answered by the connection (frameConn), from the copy of each passed line
// the filter keeps until the SDK has read it.
//
// Batches are refused whole: MCP removed JSON-RPC batching in 2025-06-18,
// and the SDK ends a session of a newer protocol that sends one.
type frameFilter struct {
	src  io.ReadCloser
	r    *bufio.Reader
	out  io.Writer
	max  int
	err  error // the read error to report once the lines before it are handed out
	line []byte
	head []byte // the start of a line that turned out too long

	next []byte // the rest of the line being handed out, newline included

	mu     sync.Mutex
	passed [][]byte // the lines handed out and not yet read back by the SDK (take)
}

// idProbeBytes is how much of a too-long line is kept to find its id.
const idProbeBytes = 64 << 10

func newFrameFilter(src io.ReadCloser, out io.Writer, max int) *frameFilter {
	return &frameFilter{src: src, r: bufio.NewReaderSize(src, 64<<10), out: out, max: max}
}

// Read implements io.Reader: it hands out the next line the SDK can
// decode, with its newline, answering every other line on the way. A
// read never reaches past the end of a line, so the SDK's decoder, which
// reads no further than the value it decodes, has nothing of the next line
// until it asks for it.
func (f *frameFilter) Read(p []byte) (int, error) {
	for len(f.next) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, tooLong, err := f.readLine()
		if err != nil {
			f.err = err
		}
		if tooLong {
			f.reject(-32700, fmt.Sprintf("Parse error: message longer than %d bytes", f.max), probeID(f.head))
			continue
		}
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 && f.check(trimmed) {
			frame := make([]byte, len(trimmed)+1)
			copy(frame, trimmed)
			frame[len(trimmed)] = '\n'
			f.mu.Lock()
			f.passed = append(f.passed, frame[:len(trimmed)])
			f.mu.Unlock()
			f.next = frame
		}
	}
	n := copy(p, f.next)
	f.next = f.next[n:]
	return n, nil
}

// take returns the oldest line handed out that the SDK has not read back,
// and forgets it; nil when there is none.
func (f *frameFilter) take() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.passed) == 0 {
		return nil
	}
	frame := f.passed[0]
	f.passed[0] = nil
	f.passed = f.passed[1:]
	return frame
}

// Close implements io.Closer: it closes the source (unblocking a pending read where the OS allows).
func (f *frameFilter) Close() error { return f.src.Close() }

// readLine reads one line without its newline. A line longer than max is
// consumed to its end and reported as tooLong, its first bytes kept in head.
func (f *frameFilter) readLine() (line []byte, tooLong bool, err error) {
	f.line = f.line[:0]
	f.head = f.head[:0]
	for {
		chunk, err := f.r.ReadSlice('\n')
		if !tooLong {
			if len(f.line)+len(chunk) > f.max+2 {
				tooLong = true
				n := min(len(f.line), idProbeBytes)
				f.head = append(f.head, f.line[:n]...)
				f.line = f.line[:0]
			} else {
				f.line = append(f.line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if cap(f.line) > 1<<20 && len(f.line) == 0 {
			f.line = nil
		}
		return bytes.TrimRight(f.line, "\r\n"), tooLong, err
	}
}

// check reports whether the SDK's stdio connection reads frame as one
// JSON value without ending the session, and answers it when not. The
// connection decodes each line with encoding/json's streaming decoder,
// whose syntax json.Valid checks (trailing data included: the decoder
// would read it as the next value, which is not on a line of its own),
// and reads a JSON array as a batch.
func (f *frameFilter) check(frame []byte) bool {
	if !json.Valid(frame) {
		f.reject(-32700, "Parse error: the line is not valid JSON", probeID(frame))
		return false
	}
	switch frame[0] {
	case '{':
		return true
	case '[':
		f.reject(-32600, "Invalid Request: JSON-RPC batches are not supported (MCP removed batching in protocol 2025-06-18): send one message per line", nil)
	default:
		f.reject(-32600, "Invalid Request: a message must be a JSON object", nil)
	}
	return false
}

// frameConn is the SDK's stdio connection behind a frameFilter. The SDK
// ends a session when a line it reads does not decode as a JSON-RPC
// message; frameConn answers that line with an invalid request error
// (-32600) instead and reads on.
type frameConn struct {
	mcp.Connection
	filter *frameFilter
}

// Read implements mcp.Connection. Every message or decoding error the SDK's
// connection returns is of the oldest line the filter handed out and the
// SDK has not read back (the lines are decoded in order, one message
// each); a failure to read the input comes only after them.
func (c *frameConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil && (ctx.Err() != nil || errors.Is(err, io.EOF)) {
			return nil, err
		}
		frame := c.filter.take()
		if err == nil || frame == nil {
			return msg, err
		}
		derr := jsonrpcDecodeError(frame)
		if derr == nil {
			return nil, err // not the line's fault
		}
		c.filter.reject(-32600, "Invalid Request: "+decodeReason(derr), probeID(frame))
	}
}

// jsonrpcDecodeError is the error of the SDK's decoder on frame, nil when
// it decodes.
func jsonrpcDecodeError(frame []byte) error {
	_, err := jsonrpc.DecodeMessage(frame)
	return err
}

// frameTransport is ServeStdio's transport: the SDK's own stdio transport
// (mcp.IOTransport) reading through a frameFilter, its connection a
// frameConn.
type frameTransport struct {
	filter *frameFilter
	out    io.WriteCloser
}

// Connect implements mcp.Transport. The filter bounds every line, so the
// SDK's own bound is lifted: it counts a line's newline too, and would end
// the session on a line the filter accepted.
func (t *frameTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := (&mcp.IOTransport{Reader: t.filter, Writer: t.out, MaxLineLength: -1}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &frameConn{Connection: c, filter: t.filter}, nil
}

// decodeReason is the SDK decoder's complaint, without its package prefix.
func decodeReason(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "unmarshaling jsonrpc message: ")
	if strings.Contains(msg, "maximum nesting depth") {
		return "the message is nested too deeply (" + msg + ")"
	}
	return msg
}

// probeID finds the top-level "id" of a message (or of the start of one)
// without decoding the rest: it walks the tokens of the top-level object
// and returns the id when it is a string or a number (else nil).
func probeID(frame []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(frame))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := tok.(string)
		if key != "id" {
			if err := skipValue(dec); err != nil {
				return nil
			}
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil
		}
		return raw
	}
	return nil
}

// skipValue consumes one JSON value from dec, token by token (a deep or
// huge value costs no memory beyond the decoder's buffer).
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// usableID reports whether an id can be echoed: a JSON string, or a number
// a client can read back (finite as a float64).
func usableID(id json.RawMessage) bool {
	if len(id) == 0 || !json.Valid(id) {
		return false
	}
	if id[0] == '"' {
		return true
	}
	if id[0] != '-' && (id[0] < '0' || id[0] > '9') {
		return false
	}
	f, err := strconv.ParseFloat(string(id), 64)
	return err == nil && !math.IsInf(f, 0)
}

// reject writes a JSON-RPC error response with the given id (null when absent or unusable).
func (f *frameFilter) reject(code int, msg string, id json.RawMessage) {
	if !usableID(id) {
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
	resp.Error.Code, resp.Error.Message = code, strings.ToValidUTF8(msg, "\uFFFD")
	b, err := json.Marshal(resp)
	if err != nil {
		return
	}
	_, _ = f.out.Write(append(b, '\n'))
}
