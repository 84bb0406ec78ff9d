package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lineTransport is ServeStdio's transport: newline-delimited JSON-RPC
// over the frame filter (frameFilter) and a writer of whole lines.
//
// It takes the place of the SDK's mcp.IOTransport, whose connection
// decodes every line three times more than the SDK's session then does
// (once as a batch, once as a message, once more for the method name),
// each time through a streaming decoder that allocates a 32 KB buffer,
// and hands each message from a reading goroutine to the session's
// through a channel. Those passes were three fifths of a ping's garbage
// and of a cheap call's; the collector running after them was a quarter
// of a call's CPU. Here the filter has already checked each line, a plain
// request (nearly every line a client sends) is decoded once with
// encoding/json (decodePlain, which reads it as the SDK's decoder does:
// TestPlainRequest, FuzzFrameFilter), and the read happens on the
// goroutine that asked for it.
type lineTransport struct {
	in  *frameFilter
	out io.Writer // writes whole lines, serialised (lockedWriter)
}

// Connect implements mcp.Transport.
func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	return &lineConn{in: t.in, out: t.out, closed: make(chan struct{})}, nil
}

// lineConn is the connection of a lineTransport.
type lineConn struct {
	in  *frameFilter
	out io.Writer

	closed    chan struct{}
	closeOnce sync.Once
}

// Read implements mcp.Connection. It waits in the frame filter's read of
// the input; Close closes the input, which ends that read (an io.Pipe or
// a non-blocking pipe at once, a stdin of the process within the bounded
// wait of its waitingReader; ServeStdio does not wait for it).
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	default:
	}
	msg, err := c.in.next()
	if err != nil {
		select {
		case <-c.closed:
			return nil, io.EOF
		default:
		}
		return nil, err
	}
	return msg, nil
}

// Write implements mcp.Connection: one message, one line.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	_, err = c.out.Write(append(data, '\n'))
	return err
}

// Close implements mcp.Connection: it closes the input.
func (c *lineConn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.closed)
		err = c.in.Close()
	})
	return err
}

// SessionID implements mcp.Connection: a stdio session has no id.
func (c *lineConn) SessionID() string { return "" }

// decodePlain decodes a frame plainRequest accepted into the request the
// SDK's decoder (jsonrpc.DecodeMessage) makes of it. plainRequest has
// checked what makes the two decoders agree: the keys are exactly
// jsonrpc, id, method and params, unescaped and distinct, jsonrpc is
// "2.0", the method an unescaped string, the id absent, an unescaped
// string or a finite number (a float64 in both, then truncated to an
// integer by jsonrpc.MakeID), and params any value, kept as its bytes.
func decodePlain(frame []byte) (jsonrpc.Message, error) {
	var w struct {
		ID     any             `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(frame, &w); err != nil {
		return nil, fmt.Errorf("decoding a request: %w", err)
	}
	id, err := jsonrpc.MakeID(w.ID)
	if err != nil {
		return nil, err
	}
	return &jsonrpc.Request{ID: id, Method: w.Method, Params: w.Params}, nil
}
