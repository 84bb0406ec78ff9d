package server

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Over stdio, a plain tools/call (its params a tool name and, at most, an
// arguments object) of an initialized session is answered by the
// connection (directConn) instead of the SDK's session.
//
// For such a request the SDK's session does nothing a tool call needs: it
// checks the session is initialized, looks the tool up and calls its
// handler, whose result the connection already writes from the bytes the
// registry encoded (resultHold). But on the way it decodes the request's
// params twice (once for _meta, once for the name and arguments), each
// time through its JSON decoder's 32 KB buffer, allocated and zeroed for
// the purpose: two thirds of a cheap call's garbage, and with the
// collection that garbage causes about a third of its CPU.
//
// directConn makes the same checks (the session's InitializeParams, the
// tool listed by the session) and runs the call as the SDK would have
// (the session's handler path: session.run), with the same answer, byte
// for byte (TestDirectCallIsTheSDKAnswer). Everything else goes to the
// SDK: a request with _meta (a progress token, the per-request protocol),
// any other key in its params, a name written with escapes, arguments
// that are not an object, a tool the session does not list (the session's
// fallback answers those), an id already in flight. A call answered here
// is counted in flight like the SDK's (inFlight: cancelled when the
// server stops, awaited at the end of input) and is cancelled by a
// notifications/cancelled naming its id, which still goes on to the SDK.

// directTransport wraps ServeStdio's transport: its connection answers
// plain tool calls itself (directConn).
type directTransport struct {
	mcp.Transport
	d *direct
}

// Connect implements mcp.Transport.
func (t *directTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &directConn{Connection: c, d: t.d}, nil
}

// direct is the state of the plain tool calls of one stdio session.
type direct struct {
	s     *session
	calls *inFlight
	ss    atomic.Pointer[mcp.ServerSession] // set by the first request the SDK handles (bind); until then every call goes to the SDK

	base context.Context // the calls' context, cancelled when the connection closes
	stop context.CancelFunc

	mu      sync.Mutex
	running map[jsonrpc.ID]context.CancelFunc // the calls answered here and not yet written
}

func newDirect(s *session, calls *inFlight) *direct {
	base, stop := context.WithCancel(context.Background())
	return &direct{s: s, calls: calls, base: base, stop: stop, running: map[jsonrpc.ID]context.CancelFunc{}}
}

// bind is a receiving middleware: it hands d the session of the first
// request the SDK handles (the initialize, which no call can precede),
// before the SDK answers it. Set once Connect returned, as it was, the
// session could still be missing when a call came right after the
// initialize's answer (the SDK reads and answers while Connect is
// returning), and that call went to the SDK.
func (d *direct) bind(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if d.ss.Load() == nil {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
				d.ss.CompareAndSwap(nil, ss)
			}
		}
		return next(ctx, method, req)
	}
}

// directConn answers plain tool calls (see direct); every other message
// goes to the SDK, notifications/cancelled too once it has cancelled a
// call of this connection it names.
type directConn struct {
	mcp.Connection
	d *direct
}

// Read implements mcp.Connection.
func (c *directConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return nil, err
		}
		if req, ok := msg.(*jsonrpc.Request); ok {
			switch req.Method {
			case "tools/call":
				if c.d.answer(c.Connection, req) {
					continue
				}
			case "notifications/cancelled":
				c.d.cancelled(req.Params)
			}
		}
		return msg, nil
	}
}

// Close implements mcp.Connection: it cancels the calls still running.
func (c *directConn) Close() error {
	c.d.stop()
	return c.Connection.Close()
}

// answer runs req and writes its answer to out, and reports true, when
// req is a plain tool call of a listed tool in an initialized session;
// else it reports false and leaves req to the SDK.
func (d *direct) answer(out mcp.Connection, req *jsonrpc.Request) bool {
	ss := d.ss.Load()
	if ss == nil || !req.IsCall() || ss.InitializeParams() == nil {
		return false
	}
	name, args, ok := plainCall(req.Params)
	if !ok {
		return false
	}
	d.s.registered()
	if !d.s.isListed(name) {
		return false
	}
	d.mu.Lock()
	if _, dup := d.running[req.ID]; dup {
		d.mu.Unlock()
		return false
	}
	ctx, end := d.calls.begin(d.base)
	ctx, cancel := context.WithCancel(ctx)
	d.running[req.ID] = cancel
	d.mu.Unlock()
	d.s.c.started()
	directAnswers.Add(1)
	id := req.ID
	warm.start(func() {
		defer end()
		res, wire := d.s.run(ctx, name, args)
		cancel()
		d.mu.Lock()
		delete(d.running, id)
		d.mu.Unlock()
		// The result goes out as a held one does: the connection below
		// (holdConn) writes the encoded result in the ticket's place.
		result := d.s.c.hold.ticket(encodeResult(wire, !res.OK))
		if err := out.Write(d.base, &jsonrpc.Response{ID: id, Result: result}); err != nil {
			d.s.c.log.Debug("writing a tool call's answer", "tool", name, "error", err)
		}
	})
	return true
}

// directAnswers counts the calls answered by a directConn (for tests).
var directAnswers atomic.Uint64

// cancelled cancels the call of this connection that a
// notifications/cancelled names, if it is still running.
func (d *direct) cancelled(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return
	}
	d.mu.Lock()
	cancel := d.running[id]
	d.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// plainCall reads the params of a tool call directConn answers: a JSON
// object with the key name, a string written without escapes, and at most
// one other key, arguments, an object. ok is false for any other params
// (the SDK decodes those). params is valid JSON (the frame filter checked
// the frame it is part of).
func plainCall(params []byte) (name string, args json.RawMessage, ok bool) {
	var seenName, seenArgs bool
	object := eachMember(params, func(key, v []byte) bool {
		switch string(key) {
		case "name":
			if seenName || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 {
				return false
			}
			seenName, name = true, string(v[1:len(v)-1])
		case "arguments":
			if seenArgs || v[0] != '{' {
				return false
			}
			seenArgs, args = true, json.RawMessage(v)
		default:
			return false
		}
		return true
	})
	if !object || name == "" {
		return "", nil, false
	}
	return name, args, true
}
