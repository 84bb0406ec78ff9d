package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

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

// frameFilter reads the lines of stdin for the stdio connection
// (lineConn). The SDK ends a session at the first message it cannot
// decode; the filter hands on only frames the SDK's own decoder reads
// (jsonrpc.DecodeMessage: the same depth limit, the same rules for ids
// and methods), decoded by it unless they are plain requests
// (plainRequest), and answers every other line itself, then goes on
// reading: a line that is not JSON, or is longer than max, with a parse
// error (-32700); a JSON value that is not a single JSON-RPC message (a
// batch, the empty batch "[]", a message nested deeper than the SDK
// decodes) with an invalid request error (-32600). The answer carries the
// frame's id when one can be read from it. Blank lines are skipped.
//
// Batches are refused whole: MCP removed JSON-RPC batching in 2025-06-18,
// and the SDK ends a session of a newer protocol that sends one.
type frameFilter struct {
	src  io.ReadCloser
	r    *bufio.Reader
	out  io.Writer
	max  int
	err  error // the read error to report once the frames before it are handed out
	line []byte
	head []byte // the start of a line that turned out too long
}

// idProbeBytes is how much of a too-long line is kept to find its id.
const idProbeBytes = 64 << 10

func newFrameFilter(src io.ReadCloser, out io.Writer, max int) *frameFilter {
	return &frameFilter{src: src, r: bufio.NewReaderSize(src, 64<<10), out: out, max: max}
}

// next returns the message of the next line the SDK's decoder reads,
// decoded as it decodes it; every other line is answered on the way.
func (f *frameFilter) next() (jsonrpc.Message, error) {
	for f.err == nil {
		line, tooLong, err := f.readLine()
		if err != nil {
			f.err = err
		}
		if tooLong {
			f.reject(-32700, fmt.Sprintf("Parse error: message longer than %d bytes", f.max), probeID(f.head))
			continue
		}
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			if msg := f.check(trimmed); msg != nil {
				return msg, nil
			}
		}
	}
	return nil, f.err
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

// check returns the message of a frame as the SDK's decoder reads it, or
// nil after answering a frame that decoder would not read: a plain
// request (plainRequest) is decoded with encoding/json (decodePlain), any
// other frame by the SDK's decoder itself. json.Valid is not redundant
// with DecodeMessage: the decoder reads the first value and ignores what
// follows it, while the SDK's connection ends the session on trailing
// data.
func (f *frameFilter) check(frame []byte) jsonrpc.Message {
	if !json.Valid(frame) {
		f.reject(-32700, "Parse error: the line is not valid JSON", probeID(frame))
		return nil
	}
	switch frame[0] {
	case '[':
		f.reject(-32600, "Invalid Request: JSON-RPC batches are not supported (MCP removed batching in protocol 2025-06-18): send one message per line", nil)
		return nil
	case '{':
	default:
		f.reject(-32600, "Invalid Request: a message must be a JSON object", nil)
		return nil
	}
	if plainRequest(frame) {
		// decodePlain fails only should it ever part from plainRequest
		// (TestPlainRequest, FuzzFrameFilter): the SDK's decoder then has
		// the last word.
		if msg, err := decodePlain(frame); err == nil {
			return msg
		}
	}
	msg, err := jsonrpc.DecodeMessage(frame)
	if err != nil {
		f.reject(-32600, "Invalid Request: "+decodeReason(err), probeID(frame))
		return nil
	}
	return msg
}

// plainDepth is how deep a frame plainRequest passes may nest, well within
// the SDK decoder's limit.
const plainDepth = 64

// plainRequest reports whether a valid JSON frame is a request the SDK's
// decoder certainly reads, and reads as decodePlain does: valid UTF-8,
// nested at most plainDepth deep, an object whose keys are distinct and
// each one of jsonrpc, id, method and params, written without escapes,
// with jsonrpc "2.0", method a string and id absent, a string or a finite
// number (the first three without escapes). Any other frame goes through
// the SDK's decoder (jsonrpc.DecodeMessage), which costs two decodes, each
// with a 32 KB buffer: nearly every frame a client sends is plain. It
// scans the bytes (json.Valid has checked the syntax) without allocating.
func plainRequest(frame []byte) bool {
	if !utf8.Valid(frame) {
		return false
	}
	var seen [4]bool // jsonrpc, id, method, params
	object := eachMember(frame, func(key, value []byte) bool {
		k := plainKey(string(key))
		if k < 0 || seen[k] || bytes.IndexByte(key, '\\') >= 0 {
			return false
		}
		seen[k] = true
		return plainValue(k, value)
	})
	return object && seen[0] && seen[2]
}

// eachMember calls fn with the raw key (without its quotes) and the raw
// value of each member of the JSON object b, in order, and reports whether
// b is an object and fn accepted every member. b is valid JSON; a value
// nested deeper than plainDepth counts as not accepted.
func eachMember(b []byte, fn func(key, value []byte) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	for i = skipSpace(b, i+1); i < len(b) && b[i] != '}'; {
		if b[i] != '"' {
			return false
		}
		end := valueEnd(b, i, 1)
		if end < 0 {
			return false
		}
		key := b[i+1 : end-1]
		if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
			return false
		}
		start := skipSpace(b, i+1)
		if end = valueEnd(b, start, 1); end < 0 || !fn(key, b[start:end]) {
			return false
		}
		if i = skipSpace(b, end); i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return true
}

// plainValue checks the value of the key plainKey numbered k.
func plainValue(k int, v []byte) bool {
	switch k {
	case 0: // jsonrpc
		return string(v) == `"2.0"`
	case 1: // id
		if v[0] == '"' {
			return bytes.IndexByte(v, '\\') < 0
		}
		if v[0] != '-' && (v[0] < '0' || v[0] > '9') {
			return false
		}
		f, err := strconv.ParseFloat(string(v), 64)
		return err == nil && !math.IsInf(f, 0)
	case 2: // method
		return v[0] == '"' && bytes.IndexByte(v, '\\') < 0
	}
	return true // params: any value
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns the index just past the JSON value starting at i of
// valid JSON b, the value sitting at nesting depth; -1 when it nests
// deeper than plainDepth.
func valueEnd(b []byte, i, depth int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return -1
	case '{', '[':
		base := depth
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end := valueEnd(b, j, depth)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				if depth++; depth > plainDepth {
					return -1
				}
			case '}', ']':
				if depth--; depth == base {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j
}

// plainKey is the index of a key plainRequest accepts, -1 for any other.
func plainKey(key string) int {
	switch key {
	case "jsonrpc":
		return 0
	case "id":
		return 1
	case "method":
		return 2
	case "params":
		return 3
	}
	return -1
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
