package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
)

// guided builds the servers of guided mode (Options.Guided or
// Options.Stage): one *mcp.Server per MCP session, each owning one
// cursus.Session, so the active stage is per session. The session's tools
// are the only ones registered with its server; a stage change replaces
// them, and the SDK sends that session (and only it)
// notifications/tools/list_changed. With Options.Stage the stage is pinned
// and the list never changes (listChanged false).
type guided struct {
	reg     *registry.Registry
	fs      *safefs.FS // every call's file-access layer, opened once
	opts    Options
	sel     *selection
	log     *slog.Logger
	version string
	defs    map[string]*mcp.Tool // wire name -> descriptor, for every tool the policy and selection allow
	gated   bool                 // some tool is hidden by a closed gate
}

func newGuided(reg *registry.Registry, opts Options, sel *selection, log *slog.Logger, version string) (*guided, error) {
	// Check the stage (and the stages' tools) once, before any session.
	if _, err := cursus.NewSession(cursus.SessionOptions{Stage: opts.Stage, Policy: &opts.Policy, Registry: reg}); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	// A tool a stage records writes a report file when the write gate is
	// open: it is not read-only on this server, whatever it does itself.
	recorded := map[string]bool{}
	if opts.Policy.AllowDestructive {
		for _, name := range cursus.RecordedTools() {
			recorded[name] = true
		}
	}
	fsys, err := registry.OpenFS(registry.WithPolicy(context.Background(), opts.Policy))
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	g := &guided{reg: reg, fs: fsys, opts: opts, sel: sel, log: log, version: version, defs: map[string]*mcp.Tool{}}
	for _, t := range reg.List("") {
		if !sel.selected(t) {
			continue
		}
		if ok, _ := opts.Policy.Allows(t); !ok {
			g.gated = true
			continue
		}
		desc, err := mcpTool(t)
		if err != nil {
			return nil, err
		}
		if recorded[t.Name] && desc.Annotations.ReadOnlyHint {
			a := *desc.Annotations
			a.ReadOnlyHint, a.IdempotentHint = false, false
			desc.Annotations = &a
		}
		g.defs[t.WireName()] = desc
	}
	return g, nil
}

// guidedSession is the state of one guided MCP session.
type guidedSession struct {
	g    *guided
	m    *mcp.Server
	sess *cursus.Session

	mu     sync.Mutex
	listed map[string]bool // wire names registered with m
}

// server returns a new server for one session.
func (g *guided) server() *mcp.Server {
	sess, err := cursus.NewSession(cursus.SessionOptions{Stage: g.opts.Stage, Policy: &g.opts.Policy, Registry: g.reg})
	if err != nil {
		// newGuided checked the same options.
		panic(fmt.Sprintf("server: guided session: %v", err))
	}
	m := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "Cursus", Version: g.version}, &mcp.ServerOptions{
		Instructions: instructions(g.opts.Policy, g.gated) + " " + guidedInstructions(sess),
		Logger:       slog.New(sdkLog{g.log.Handler()}),
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: !sess.Pinned()}},
	})
	gs := &guidedSession{g: g, m: m, sess: sess, listed: map[string]bool{}}
	gs.sync()
	sess.OnStageChange(func(from, to string) {
		gs.sync()
		g.log.Debug("guided session changed stage", "from", from, "to", to, "tools", gs.count())
	})
	m.AddReceivingMiddleware(gs.fallback)
	return m
}

// forRequest is the getServer of the Streamable HTTP handler: a request
// without a session id starts a session, which gets its own server; the
// SDK routes requests of an existing session to the server that session
// was created with, and asks getServer only for the protocol versions it
// supports, which every server shares.
func (g *guided) forRequest(probe *mcp.Server) func(*http.Request) *mcp.Server {
	return func(r *http.Request) *mcp.Server {
		if r.Header.Get("Mcp-Session-Id") != "" {
			return probe
		}
		return g.server()
	}
}

func guidedInstructions(sess *cursus.Session) string {
	if sess.Pinned() {
		return fmt.Sprintf("Guided mode, pinned to stage %q: only that stage's tools (and the tools__* and workflow__* tools) are listed and callable. Call workflow__status {\"run_id\": ...} to see a run's state.", sess.Stage())
	}
	return "Guided mode: the tools listed are those of the session's active stage. Start in the orchestrator stage: workflow__new_run creates a run, " +
		"workflow__start_stage {\"run_id\": ...} picks the stage the run needs, switches the tool list to it (notifications/tools/list_changed) and returns its prompt, checklist, model tier and tools; " +
		"workflow__complete_stage {\"run_id\": ...} checks the stage's artifacts and returns to the orchestrator. A tool outside the active stage answers tool_not_in_stage naming the stages that offer it."
}

// sync registers exactly the session's current tools with its server. It
// holds the session's lock throughout, so concurrent stage changes apply
// in order and the final list matches the final stage.
func (gs *guidedSession) sync() {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	want := map[string]string{} // wire -> dotted
	for _, t := range gs.sess.Tools() {
		if _, ok := gs.g.defs[t.WireName()]; ok {
			want[t.WireName()] = t.Name
		}
	}
	var remove []string
	for w := range gs.listed {
		if _, ok := want[w]; !ok {
			remove = append(remove, w)
		}
	}
	sort.Strings(remove)
	if len(remove) > 0 {
		gs.m.RemoveTools(remove...)
		for _, w := range remove {
			delete(gs.listed, w)
		}
	}
	add := make([]string, 0, len(want))
	for w := range want {
		if !gs.listed[w] {
			add = append(add, w)
		}
	}
	sort.Strings(add)
	for _, w := range add {
		gs.m.AddTool(gs.g.defs[w], gs.handler(want[w]))
		gs.listed[w] = true
	}
}

func (gs *guidedSession) count() int {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	return len(gs.listed)
}

func (gs *guidedSession) isListed(wire string) bool {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	return gs.listed[wire]
}

func (gs *guidedSession) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args json.RawMessage
		if req != nil && req.Params != nil {
			args = req.Params.Arguments
		}
		return gs.call(withProgress(ctx, req), name, args), nil
	}
}

func (gs *guidedSession) call(ctx context.Context, name string, args json.RawMessage) *mcp.CallToolResult {
	res := gs.sess.CallTool(safefs.WithFS(ctx, gs.g.fs), name, args)
	if !res.OK {
		gs.g.log.Debug("tool call failed", "tool", name, "code", res.Code, "stage", gs.sess.Stage(), "error", res.Error)
	}
	return toResult(res)
}

// fallback answers a tools/call for a name this session does not list with
// an envelope: tool_not_in_stage (with the stages that offer it),
// tool_disabled (gate closed or deselected), unknown_tool, or the result of
// a deprecated tool or a dotted name.
func (gs *guidedSession) fallback(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		r, ok := req.(*mcp.CallToolRequest)
		if !ok || r.Params == nil || gs.isListed(r.Params.Name) {
			return next(ctx, method, req)
		}
		if t, found := gs.g.reg.Get(r.Params.Name); found {
			if allowed, _ := gs.g.opts.Policy.Allows(t); allowed && !gs.g.sel.selected(t) {
				return toResult(deselected(t)), nil
			}
		}
		return gs.call(withProgress(ctx, r), r.Params.Name, r.Params.Arguments), nil
	}
}

// stageNote names the guided mode in logs.
func stageNote(opts Options) string {
	if opts.Stage != "" {
		return "guided, pinned to stage " + opts.Stage
	}
	return "guided"
}
