package server

import (
	"context"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cursus-go/cursus/envelope"
)

// DefaultMaxSessionCalls bounds the requests that do work (tools/call,
// resources/read, prompts/get) one MCP session runs at once, when
// Options.MaxSessionCalls is 0. Each may hold a large answer or a run in
// memory: eight config.template calls at once took 720 MiB.
const DefaultMaxSessionCalls = 4

// sessionCalls counts the working requests of each MCP session and
// refuses those past the bound. One counter serves every server of a
// core, keyed by the SDK's session.
type sessionCalls struct {
	max     int
	mu      sync.Mutex
	running map[mcp.Session]int
}

func newSessionCalls(max int) *sessionCalls {
	if max <= 0 {
		max = DefaultMaxSessionCalls
	}
	return &sessionCalls{max: max, running: map[mcp.Session]int{}}
}

// working reports whether a request of this method counts against the
// bound.
func working(method string) bool {
	return method == "tools/call" || method == "resources/read" || method == "prompts/get"
}

// middleware is the receiving middleware: a working request past the
// session's bound is answered at once, a tools/call with a too_many_calls
// envelope (the remedy says to wait for an answer), another request with
// a JSON-RPC error; nothing of it runs.
func (l *sessionCalls) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if !working(method) || req == nil {
			return next(ctx, method, req)
		}
		key := req.GetSession()
		if !l.enter(key) {
			msg := fmt.Sprintf("this session already runs %d calls, the most one session may run at once; wait for one of them to answer, then call again", l.max)
			if method == "tools/call" {
				res := envelope.Fail(msg, envelope.CodeTooManyCalls).WithRemedy("wait for an answer of the calls this session runs, then call again (or open another session)")
				if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
					res.SetMeta("tool", r.Params.Name)
				}
				wire, _ := res.MarshalJSON()
				return toResult(res, wire), nil
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg}
		}
		defer l.leave(key)
		return next(ctx, method, req)
	}
}

func (l *sessionCalls) enter(key mcp.Session) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running[key] >= l.max {
		return false
	}
	l.running[key]++
	return true
}

func (l *sessionCalls) leave(key mcp.Session) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running[key]--; l.running[key] <= 0 {
		delete(l.running, key)
	}
}
