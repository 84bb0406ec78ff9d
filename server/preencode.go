package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cursus-go/cursus/envelope"
)

// The SDK encodes a tool's result several times over: the text block's
// MarshalJSON escapes the envelope into a string, the result's MarshalJSON
// compacts that block and the structured content again, NewResponse
// compacts the whole result once more, and so does the encoding of the
// JSON-RPC message. For a 2 KB envelope those passes (and the garbage they
// make) are most of what a call costs beyond a ping.
//
// Over stdio a call's result is instead encoded once, from the bytes the
// registry encoded: the handler hands the SDK a result that holds only a
// ticket (resultHold.hold), and the connection (holdConn) writes the
// response with the encoded result in the ticket's place. The bytes on
// the wire are the ones the SDK would have written for the same result
// (TestHeldResultIsTheSDKEncoding checks this against the SDK's own
// encoding).

// resultHold keeps the encoded results of one stdio connection until the
// connection writes their responses.
type resultHold struct {
	mark []byte // `"` + tickets' prefix: how a ticket starts in the SDK's encoding of a result

	mu   sync.Mutex
	next uint64
	held map[uint64][]byte // ticket number -> the encoded result
}

// ticketPrefix starts every ticket; a random nonce per connection follows,
// so no text a client sends, or a tool echoes, is taken for one.
const ticketPrefix = "cursus-held-result:"

func newResultHold() *resultHold {
	var nonce [12]byte
	_, _ = rand.Read(nonce[:]) // crypto/rand.Read does not fail
	return &resultHold{mark: []byte(`"` + ticketPrefix + hex.EncodeToString(nonce[:]) + ":"), held: map[uint64][]byte{}}
}

// hold encodes res (wire is its JSON, as the registry encoded it) as the
// MCP result toResult describes, keeps it, and returns the result the SDK
// is given in its place: one text block holding the ticket.
func (h *resultHold) hold(res *envelope.ToolResult, wire []byte) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: h.keep(encodeResult(wire, !res.OK))}}}
}

// keep keeps an encoded result (compact JSON, the bytes the SDK's
// encoding of the result would be) and returns its ticket, a string to
// put in the result the SDK is given in its place.
func (h *resultHold) keep(enc []byte) string {
	h.mu.Lock()
	h.next++
	id := h.next
	h.held[id] = enc
	h.mu.Unlock()
	return string(h.mark[1:]) + strconv.FormatUint(id, 10)
}

// ticket keeps an encoded result (keep) and returns the response result
// to hand the connection in its place: the ticket as a JSON string, which
// take finds as it finds one in the SDK's encoding of a held result.
func (h *resultHold) ticket(enc []byte) json.RawMessage {
	t := h.keep(enc)
	return json.RawMessage(`"` + t + `"`)
}

// take returns the encoded result a response's result holds the ticket
// of, and forgets it; ok is false when the result holds no ticket of h.
func (h *resultHold) take(result []byte) (enc []byte, ok bool) {
	i := bytes.Index(result, h.mark)
	if i < 0 {
		return nil, false
	}
	digits := result[i+len(h.mark):]
	end := bytes.IndexByte(digits, '"')
	if end < 0 {
		return nil, false
	}
	id, err := strconv.ParseUint(string(digits[:end]), 10, 64)
	if err != nil {
		return nil, false
	}
	h.mu.Lock()
	enc, ok = h.held[id]
	delete(h.held, id)
	h.mu.Unlock()
	return enc, ok
}

// drop forgets every result still held (the connection closed before
// their responses were written).
func (h *resultHold) drop() {
	h.mu.Lock()
	clear(h.held)
	h.mu.Unlock()
}

// encodeResult is the JSON the SDK makes of toResult(res, wire) for an
// envelope wire (compact, as the registry encodes it): the text block
// holds wire as a JSON string and structuredContent is wire itself, with
// HTML characters escaped as encoding/json escapes them in both.
func encodeResult(wire []byte, isError bool) []byte {
	text, _ := json.Marshal(string(wire)) // a string always encodes
	var b bytes.Buffer
	b.Grow(len(`{"content":[{"type":"text","text":}],"structuredContent":,"isError":true}`) + len(text) + len(wire) + 64)
	b.WriteString(`{"content":[{"type":"text","text":`)
	b.Write(text)
	b.WriteString(`}],"structuredContent":`)
	json.HTMLEscape(&b, wire)
	if isError {
		b.WriteString(`,"isError":true`)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// responseFrame is the line of a JSON-RPC response with the given result
// (compact JSON), as the SDK's message encoding writes it: the SDK
// encodes the head (its version tag and the id's encoding are its own)
// and the result follows it unchanged.
func responseFrame(id jsonrpc.ID, result []byte) ([]byte, error) {
	head, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: json.RawMessage("0")})
	if err != nil {
		return nil, err
	}
	const tail = `"result":0}`
	if !bytes.HasSuffix(head, []byte(tail)) {
		// Not the shape this was written for: let the SDK encode it all.
		full, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: result})
		return append(full, '\n'), err
	}
	frame := make([]byte, 0, len(head)+len(result)+2)
	frame = append(frame, head[:len(head)-2]...)
	frame = append(frame, result...)
	return append(frame, '}', '\n'), nil
}

// holdTransport wraps the stdio transport: its connection writes the
// responses of held results itself (holdConn).
type holdTransport struct {
	mcp.Transport
	hold *resultHold
	out  io.Writer // the writer the wrapped transport writes whole frames to
}

// Connect implements mcp.Transport.
func (t *holdTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &holdConn{Connection: c, hold: t.hold, out: t.out}, nil
}

// holdConn writes a response whose result holds a ticket of its
// resultHold as one frame with the held result in its place; every other
// message goes through the wrapped connection. out serialises whole
// frames (lockedWriter), so its frames and the wrapped connection's never
// interleave.
type holdConn struct {
	mcp.Connection
	hold *resultHold
	out  io.Writer
}

// Write implements mcp.Connection.
func (c *holdConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.Error == nil {
		if enc, ok := c.hold.take(resp.Result); ok {
			frame, err := responseFrame(resp.ID, enc)
			if err != nil {
				return err
			}
			_, err = c.out.Write(frame)
			return err
		}
	}
	return c.Connection.Write(ctx, msg)
}

// Close implements mcp.Connection.
func (c *holdConn) Close() error {
	c.hold.drop()
	return c.Connection.Close()
}
