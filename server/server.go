package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/exporters"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
)

// Name is the server name reported in serverInfo.
const Name = "cursus"

// Options configures New.
type Options struct {
	// Policy holds the safety gates and the project root writes are
	// confined to. The zero Policy is the safest: every gated tool is
	// hidden and refused.
	Policy registry.Policy
	// Namespaces, when not empty, lists only the tools of these namespaces
	// (plus the tools named in Tools).
	Namespaces []string
	// Tools, when not empty, lists these tools (dotted or wire names); with
	// Namespaces empty, only these.
	Tools []string
	// ExcludeTools never lists these tools (dotted or wire names).
	ExcludeTools []string
	// Toolsets are the toolsets every session lists at first:
	// registry.CoreToolset (the tools marked Spec.Core), namespace names,
	// or registry.AllToolsets. Empty is the core toolset, or every toolset
	// when Namespaces or Tools name something (a selection lists what it
	// names) or the registry marks no core tool. A tool of a toolset not
	// listed is callable by name all the same, and tools.toolsets
	// {"enable": [...]} lists its toolset for the rest of the session
	// (notifications/tools/list_changed). Not with Guided or Stage: a guided
	// session lists its stage's tools.
	Toolsets []string
	// Logger receives the server's logs (and the SDK's); nil discards them.
	Logger *slog.Logger
	// Version is serverInfo.version, the version of Cursus (the CLI passes
	// cursus.Version); "0" when empty.
	Version string

	// Guided lists, per MCP session, only the tools of the session's active
	// guided stage (package stages): sessions start in "orchestrator", move
	// with workflow.start_stage and workflow.complete_stage, and get
	// notifications/tools/list_changed when their stage changes. A call
	// outside the stage answers tool_not_in_stage.
	Guided bool
	// Stage pins every session to one stage (implies Guided): for hosts that
	// ignore list changes. Its list never changes.
	Stage string

	// MaxSessionCalls bounds the tool calls, resource reads and prompts one
	// MCP session runs at once (DefaultMaxSessionCalls when 0); a call past
	// it answers too_many_calls at once.
	MaxSessionCalls int

	// HTTP configures the Streamable HTTP transport (ServeHTTP,
	// NewHTTPHandler): authentication and the session bound.
	HTTP HTTPOptions
}

// SelectionError reports names in the selection options that name no
// namespace or no tool. New returns it before building anything.
type SelectionError struct {
	// UnknownNamespaces are entries of Options.Namespaces that name no namespace.
	UnknownNamespaces []string
	// UnknownTools are entries of Options.Tools that name no tool.
	UnknownTools []string
	// UnknownExcluded are entries of Options.ExcludeTools that name no tool.
	UnknownExcluded []string
	// UnknownToolsets are entries of Options.Toolsets that name no toolset.
	UnknownToolsets []string
}

// Error lists every unknown name.
func (e *SelectionError) Error() string {
	var parts []string
	if len(e.UnknownNamespaces) > 0 {
		parts = append(parts, "unknown namespace(s): "+strings.Join(e.UnknownNamespaces, ", "))
	}
	if len(e.UnknownTools) > 0 {
		parts = append(parts, "unknown tool(s): "+strings.Join(e.UnknownTools, ", "))
	}
	if len(e.UnknownExcluded) > 0 {
		parts = append(parts, "unknown tool(s) to exclude: "+strings.Join(e.UnknownExcluded, ", "))
	}
	if len(e.UnknownToolsets) > 0 {
		parts = append(parts, "unknown toolset(s): "+strings.Join(e.UnknownToolsets, ", ")+" (toolsets: core, all, or a namespace)")
	}
	return strings.Join(parts, "; ")
}

// selection is the resolved form of the selection options and of the
// toolsets listed at first.
type selection struct {
	namespaces map[string]bool
	tools      map[string]bool // dotted names
	exclude    map[string]bool // dotted names
	// toolsets are the namespaces Options.Toolsets names; allToolsets and
	// coreToolset whether it names all or core (or leaves them to the
	// default).
	toolsets    map[string]bool
	allToolsets bool
	coreToolset bool
}

// explicit reports whether the selection names namespaces or tools to list.
func (s *selection) explicit() bool { return len(s.namespaces) > 0 || len(s.tools) > 0 }

// selected reports whether the selection options keep the tool (the policy
// is checked separately).
func (s *selection) selected(t *registry.ToolDef) bool {
	if s.exclude[t.Name] {
		return false
	}
	if len(s.namespaces) == 0 && len(s.tools) == 0 {
		return true
	}
	return s.namespaces[t.Namespace()] || s.tools[t.Name]
}

func resolveSelection(reg *registry.Registry, opts Options) (*selection, error) {
	sel := &selection{namespaces: map[string]bool{}, tools: map[string]bool{}, exclude: map[string]bool{}, toolsets: map[string]bool{}}
	var serr SelectionError
	for _, ns := range cleanNames(opts.Namespaces) {
		if _, ok := reg.NamespaceDescription(ns); !ok {
			serr.UnknownNamespaces = append(serr.UnknownNamespaces, ns)
			continue
		}
		sel.namespaces[ns] = true
	}
	for _, n := range cleanNames(opts.Tools) {
		t, ok := reg.Get(n)
		if !ok {
			serr.UnknownTools = append(serr.UnknownTools, n)
			continue
		}
		sel.tools[t.Name] = true
	}
	for _, n := range cleanNames(opts.ExcludeTools) {
		t, ok := reg.Get(n)
		if !ok {
			serr.UnknownExcluded = append(serr.UnknownExcluded, n)
			continue
		}
		sel.exclude[t.Name] = true
	}
	toolsets := cleanNames(opts.Toolsets)
	for _, n := range toolsets {
		switch n {
		case registry.AllToolsets:
			sel.allToolsets = true
		case registry.CoreToolset:
			sel.coreToolset = true
		default:
			if _, ok := reg.NamespaceDescription(n); !ok {
				serr.UnknownToolsets = append(serr.UnknownToolsets, n)
				continue
			}
			sel.toolsets[n] = true
		}
	}
	if len(serr.UnknownNamespaces)+len(serr.UnknownTools)+len(serr.UnknownExcluded)+len(serr.UnknownToolsets) > 0 {
		return nil, &serr
	}
	if len(toolsets) == 0 {
		// The default: the core toolset, or all of an explicit selection
		// (core() falls back to all when the registry marks no core tool).
		sel.allToolsets = sel.explicit()
		sel.coreToolset = !sel.allToolsets
	}
	return sel, nil
}

// cleanNames trims the names, splits comma-separated entries and drops
// empty ones.
func cleanNames(in []string) []string {
	var out []string
	for _, s := range in {
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// core is what every server of one New (or HTTP handler) is made from,
// computed once: the tools the policy and the selection allow, each with
// its MCP descriptor (schemas marshalled once), the shared argument
// descriptions, the resources and prompts. The static server and the
// guided ones are the same server: a static one has no scope (it lists
// every allowed tool, and its list never changes), a guided one is scoped
// by the cursus.Session of its MCP session (the active stage's tools).
type core struct {
	reg     *registry.Registry
	fs      *safefs.FS // every call's file-access layer, opened once
	opts    Options
	sel     *selection
	log     *slog.Logger
	version string
	guided  bool
	// dynamic: sessions list some allowed tools only once tools.toolsets
	// enables their toolset; each session then has a server of its own.
	dynamic bool
	tools   map[string]*registry.ToolDef // wire name -> tool, for every name of order
	dotted  map[string]string            // wire name -> dotted name, for every tool the policy and selection allow
	order   []string                     // the wire names of dotted, sorted
	gated   []string                     // dotted names hidden by a closed gate, sorted
	inst    string                       // the instructions every server of the core gives
	content *content                     // resources and prompts
	defs    map[string]*mcp.Tool         // wire name -> descriptor, for every name of order
	calls   *sessionCalls                // the working requests of each session
}

// New builds a server exposing reg's tools under opts. It returns a
// *SelectionError when a selection option names an unknown namespace or
// tool. Without Guided or Stage the server is static: its tool list never
// changes.
func New(reg *registry.Registry, opts Options) (*mcp.Server, error) {
	m, _, err := build(reg, opts)
	return m, err
}

// build is New; it also returns the core the server was made from, so an
// HTTP handler makes its sessions' servers from the same state instead of
// checking and describing every tool again.
func build(reg *registry.Registry, opts Options) (*mcp.Server, *core, error) {
	if reg == nil {
		return nil, nil, fmt.Errorf("server: nil registry")
	}
	sel, err := resolveSelection(reg, opts)
	if err != nil {
		return nil, nil, err
	}
	log := logger(opts)
	version := opts.Version
	if version == "" {
		version = "0"
	}
	c := &core{reg: reg, opts: opts, sel: sel, log: log, version: version, guided: opts.Guided || opts.Stage != "",
		dotted: map[string]string{}, tools: map[string]*registry.ToolDef{}, calls: newSessionCalls(opts.MaxSessionCalls)}
	if c.guided && len(cleanNames(opts.Toolsets)) > 0 {
		return nil, nil, fmt.Errorf("server: toolsets do not apply to a guided server: each session lists its stage's tools")
	}
	// A tool a stage records writes a report file when the write gate is
	// open: in guided mode it is not read-only, whatever it does itself.
	recorded := map[string]bool{}
	if c.guided {
		// Check the stage (and the stages' tools) once, before any session.
		if _, err := cursus.NewSession(cursus.SessionOptions{Stage: opts.Stage, Policy: &opts.Policy, Registry: reg}); err != nil {
			return nil, nil, fmt.Errorf("server: %w", err)
		}
		if opts.Policy.AllowDestructive {
			for _, name := range cursus.RecordedTools() {
				recorded[name] = true
			}
		}
	}
	if c.fs, err = registry.OpenFS(registry.WithPolicy(context.Background(), opts.Policy)); err != nil {
		return nil, nil, fmt.Errorf("server: %w", err)
	}
	allowed, gated := allowedTools(reg, sel, opts.Policy, log)
	c.gated = gated
	listing, err := registry.NewListing(allowed)
	if err != nil {
		return nil, nil, fmt.Errorf("server: %w", err)
	}
	hasCore := false
	for _, t := range allowed {
		c.dotted[t.WireName()] = t.Name
		c.tools[t.WireName()] = t
		c.order = append(c.order, t.WireName())
		hasCore = hasCore || t.Core
	}
	sort.Strings(c.order)
	if !hasCore && sel.coreToolset && len(sel.toolsets) == 0 && !sel.explicit() {
		// A registry (or a selection) without a front door lists everything.
		sel.allToolsets = true
	}
	first := map[string]bool{}
	for _, t := range allowed {
		if sel.firstListed(t) {
			first[t.Name] = true
		}
	}
	c.dynamic = !c.guided && len(first) < len(allowed)
	c.describe(allowed, listing, recorded)
	sort.Strings(c.gated)
	c.inst = instructions(opts.Policy, len(c.gated) > 0, listing.SharedText())
	if c.guided {
		c.inst += " " + guidedInstructions(opts.Stage)
	} else if c.dynamic {
		c.inst += " " + toolsetInstructions(reg, allowed, first)
	}
	if c.content, err = newContent(c); err != nil {
		return nil, nil, err
	}
	mode := "static"
	if c.guided {
		mode = stageNote(opts)
	} else if c.dynamic {
		mode = "toolsets"
	}
	log.Info("mcp server built", "mode", mode, "tools", len(c.order), "listed_at_first", len(first), "hidden_by_gates", len(c.gated),
		"resource_templates", len(c.content.templates),
		"allow_destructive", opts.Policy.AllowDestructive, "allow_script_exec", opts.Policy.AllowScriptExec,
		"project_root", opts.Policy.ProjectRoot)
	if len(c.gated) > 0 {
		log.Debug("tools hidden by closed gates", "tools", strings.Join(c.gated, ","))
	}
	if len(c.order) == 0 {
		log.Warn("no tool is listed: the selection and the policy leave nothing")
	}
	m, _ := c.server()
	return m, c, nil
}

// describe makes the MCP descriptor of every allowed tool (mcpTool), once:
// every server of the core registers these.
func (c *core) describe(allowed []*registry.ToolDef, listing *registry.Listing, recorded map[string]bool) {
	c.defs = make(map[string]*mcp.Tool, len(allowed))
	for _, t := range allowed {
		desc := mcpTool(t, listing)
		// A tool that writes on request (Spec.WriteArg) or records its
		// result (Spec.WritesWhenOpen) can write once writes are open, so it
		// is not read-only there.
		if (recorded[t.Name] || (t.WritesOnceOpen() && c.opts.Policy.AllowDestructive)) && desc.Annotations.ReadOnlyHint {
			a := *desc.Annotations
			a.ReadOnlyHint, a.IdempotentHint = false, false
			desc.Annotations = &a
		}
		c.defs[t.WireName()] = desc
	}
}

// allowedTools are the tools a server answers (before toolsets or a
// guided stage decide which it lists), sorted by name, and the dotted
// names of those a closed gate hides.
func allowedTools(reg *registry.Registry, sel *selection, p registry.Policy, log *slog.Logger) (allowed []*registry.ToolDef, gated []string) {
	for _, t := range reg.List("") {
		if !sel.selected(t) {
			continue
		}
		if t.NamespaceHelp() && !sel.tools[t.Name] {
			// tools.help {"namespace": ...} answers the same; the tool stays
			// callable by name.
			continue
		}
		if ok, env := p.Allows(t); !ok {
			gated = append(gated, t.Name)
			if sel.tools[t.Name] {
				log.Warn("tool named in the selection stays hidden: its safety gate is closed", "tool", t.Name, "env_var", env)
			}
			continue
		}
		allowed = append(allowed, t)
	}
	return allowed, gated
}

// firstListed reports whether a session lists t before it enables any
// toolset: every toolset, the core one, a namespace Options.Toolsets or
// Options.Namespaces names, or a tool Options.Tools names.
func (s *selection) firstListed(t *registry.ToolDef) bool {
	return s.allToolsets || (s.coreToolset && t.Core) || s.toolsets[t.Namespace()] || s.namespaces[t.Namespace()] || s.tools[t.Name]
}

// mcpTool is the MCP descriptor of a tool: wire name, rendered
// description, the listed input schema (without repetition; the registry
// validates against the full one), the listed output schema and
// annotations. Title is set only when the tool has one (hosts show the
// name otherwise).
func mcpTool(t *registry.ToolDef, l *registry.Listing) *mcp.Tool {
	return &mcp.Tool{
		Name:         t.WireName(),
		Title:        t.Title,
		Description:  t.RenderDescription(),
		InputSchema:  l.InputSchema(t),
		OutputSchema: t.ListedOutputSchema(),
		Annotations:  annotations(t),
	}
}

// session is one server of the core: the server of every session in
// static mode (scope nil), of one MCP session in guided mode.
type session struct {
	c     *core
	m     *mcp.Server
	scope *cursus.Session // nil: no scope, every allowed tool

	mu     sync.Mutex
	listed map[string]bool // wire names registered with m
	// enabled are the toolsets (namespaces) tools.toolsets enabled, all
	// whether it enabled every one: in a dynamic core only.
	enabled map[string]bool
	all     bool
}

// server returns a new server: static, or guided with a session of its
// own.
func (c *core) server() (*mcp.Server, *session) {
	var scope *cursus.Session
	if c.guided {
		var err error
		if scope, err = cursus.NewSession(cursus.SessionOptions{Stage: c.opts.Stage, Policy: &c.opts.Policy, Registry: c.reg}); err != nil {
			// build checked the same options.
			panic(fmt.Sprintf("server: guided session: %v", err))
		}
	}
	m := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "Cursus", Version: c.version}, &mcp.ServerOptions{
		Instructions: c.inst,
		Logger:       slog.New(sdkLog{c.log.Handler()}),
		// A static list never changes; a guided one changes with the stage,
		// unless the stage is pinned.
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{ListChanged: c.dynamic || (scope != nil && !scope.Pinned())},
			Resources: &mcp.ResourceCapabilities{},
			Prompts:   &mcp.PromptCapabilities{},
		},
	})
	s := &session{c: c, m: m, scope: scope, listed: map[string]bool{}, enabled: map[string]bool{}}
	s.sync()
	if scope != nil {
		scope.OnStageChange(func(from, to string) {
			s.sync()
			c.log.Debug("guided session changed stage", "from", from, "to", to, "tools", s.count())
		})
	}
	m.AddReceivingMiddleware(c.calls.middleware, s.fallback)
	c.content.register(m, s)
	return m, s
}

// forRequest is the getServer of the Streamable HTTP handler. A static
// core serves every session with the one server; a guided or dynamic one
// gives a request without a session id (a new session) a server of its
// own. The
// SDK routes requests of an existing session to the server that session
// was created with, and asks getServer only for the protocol versions it
// supports, which every server shares.
func (c *core) forRequest(first *mcp.Server) func(*http.Request) *mcp.Server {
	return func(r *http.Request) *mcp.Server {
		if !(c.guided || c.dynamic) || r.Header.Get("Mcp-Session-Id") != "" {
			return first
		}
		m, _ := c.server()
		return m
	}
}

// guidedInstructions is what guided mode adds to the instructions: a
// session pinned to stage (not empty) stays in it, any other starts in the
// orchestrator stage.
func guidedInstructions(stage string) string {
	if stage != "" {
		return fmt.Sprintf("Guided mode, pinned to stage %q: only that stage's tools (and the tools__* and workflow__* tools) are listed and callable. Call workflow__status {\"run_id\": ...} to see a run's state.", stage)
	}
	return "Guided mode: the tools listed are those of the session's active stage. Start in the orchestrator stage: workflow__new_run creates a run, " +
		"workflow__start_stage {\"run_id\": ...} picks the stage the run needs, switches the tool list to it (notifications/tools/list_changed) and returns its prompt, checklist, model tier and tools; " +
		"workflow__complete_stage {\"run_id\": ...} checks the stage's artifacts and returns to the orchestrator. A tool outside the active stage answers tool_not_in_stage naming the stages that offer it."
}

// sync registers exactly the session's current tools with its server:
// the active stage's with a scope, else those of the toolsets listed at
// first and of those the session enabled. The SDK's AddTool and
// RemoveTools send notifications/tools/list_changed. It holds the
// session's lock throughout, so concurrent changes apply in order and the
// final list matches the final stage and toolsets.
func (s *session) sync() {
	s.mu.Lock()
	defer s.mu.Unlock()
	want := map[string]bool{}
	if s.scope == nil {
		for _, w := range s.c.order {
			if t := s.c.tools[w]; s.all || s.c.sel.firstListed(t) || s.enabled[t.Namespace()] {
				want[w] = true
			}
		}
	} else {
		for _, t := range s.scope.Tools() {
			if _, ok := s.c.dotted[t.WireName()]; ok {
				want[t.WireName()] = true
			}
		}
	}
	var remove []string
	for w := range s.listed {
		if !want[w] {
			remove = append(remove, w)
		}
	}
	sort.Strings(remove)
	if len(remove) > 0 {
		s.m.RemoveTools(remove...)
		for _, w := range remove {
			delete(s.listed, w)
		}
	}
	for _, w := range s.c.order {
		if want[w] && !s.listed[w] {
			s.m.AddTool(s.c.defs[w], s.handler(s.c.dotted[w]))
			s.listed[w] = true
		}
	}
}

func (s *session) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.listed)
}

func (s *session) isListed(wire string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listed[wire]
}

// Listed implements registry.ToolList: the session's tools/list holds t.
func (s *session) Listed(t *registry.ToolDef) bool { return s.isListed(t.WireName()) }

// Callable implements registry.ToolList: a guided session answers its
// stage's tools; any other the tools the selection and the gates allow,
// listed or not.
func (s *session) Callable(t *registry.ToolDef) bool {
	if s.scope != nil {
		return s.Listed(t)
	}
	ok, _ := s.c.opts.Policy.Allows(t)
	return ok && s.c.sel.selected(t)
}

// EnableToolsets implements registry.ToolList: it lists the named
// toolsets' tools too (sync sends the list change). A guided session's
// stage decides its list.
func (s *session) EnableToolsets(names []string) *envelope.ToolError {
	if s.scope != nil {
		return envelope.Errorf(envelope.CodeUnsupported, "this guided session lists the tools of its stage (%s), not toolsets", s.scope.Stage()).
			WithDetails("active_stage", s.scope.Stage()).
			WithRemedy("move to the stage that offers the tool: workflow.status says where the run is, workflow.start_stage picks the next stage", "workflow.status", "workflow.start_stage")
	}
	if !s.c.dynamic {
		return nil // every tool the server answers is listed already
	}
	s.mu.Lock()
	for _, n := range names {
		switch n {
		case registry.AllToolsets:
			s.all = true
		case registry.CoreToolset:
		default:
			s.enabled[n] = true
		}
	}
	s.mu.Unlock()
	s.sync()
	s.c.log.Debug("session enabled toolsets", "toolsets", strings.Join(names, ","), "tools", s.count())
	return nil
}

// handler returns the SDK handler of one listed tool.
func (s *session) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args json.RawMessage
		if req != nil && req.Params != nil {
			args = req.Params.Arguments
		}
		return s.call(withProgress(ctx, req), name, args), nil
	}
}

// callContext is the context a call of this session runs in: the policy
// and the file-access layer (a scope adds its own to its calls).
func (s *session) callContext(ctx context.Context) context.Context {
	return safefs.WithFS(registry.WithPolicy(ctx, s.c.opts.Policy), s.c.fs)
}

// call runs a tool through the registry, in the session's scope when it
// has one, and shapes the result from the bytes the registry encoded
// (toResult).
func (s *session) call(ctx context.Context, name string, args json.RawMessage) *mcp.CallToolResult {
	return toResult(s.run(ctx, name, args))
}

// run runs a tool through the registry, in the session's scope when it
// has one, and returns its envelope and the envelope's JSON.
func (s *session) run(ctx context.Context, name string, args json.RawMessage) (*envelope.ToolResult, []byte) {
	var (
		res  *envelope.ToolResult
		wire []byte
	)
	ctx = registry.WithToolList(ctx, s)
	if s.scope != nil {
		res, wire = s.scope.CallToolJSON(safefs.WithFS(ctx, s.c.fs), name, args)
	} else {
		res, wire = s.c.reg.CallJSON(s.callContext(ctx), name, args)
	}
	if !res.OK {
		s.c.log.Debug("tool call failed", "tool", name, "code", res.Code, "error", res.Error)
	}
	return res, wire
}

// fallback is a receiving middleware: a tools/call for a name the session
// does not list is answered with an envelope instead of the SDK's JSON-RPC
// error: tool_not_in_stage (with the stages that offer it), tool_disabled
// (gate closed or deselected), unknown_tool (with a did-you-mean), or the
// result of a deprecated tool or a dotted name.
func (s *session) fallback(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		r, ok := req.(*mcp.CallToolRequest)
		if !ok || r.Params == nil || s.isListed(r.Params.Name) {
			return next(ctx, method, req)
		}
		if t, found := s.c.reg.Get(r.Params.Name); found {
			if allowed, _ := s.c.opts.Policy.Allows(t); allowed && !s.c.sel.selected(t) {
				s.c.log.Debug("call of a tool left out by the selection", "tool", t.Name)
				return toResult(deselected(t)), nil
			}
		}
		return s.call(withProgress(ctx, r), r.Params.Name, r.Params.Arguments), nil
	}
}

// logger is opts.Logger, or a logger that discards when it is nil.
func logger(opts Options) *slog.Logger {
	if opts.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return opts.Logger
}

// stageNote names the guided mode in logs.
func stageNote(opts Options) string {
	if opts.Stage != "" {
		return "guided, pinned to stage " + opts.Stage
	}
	return "guided"
}

// sdkLog filters the SDK's log records: it lowers "server run cancelled"
// from error to info (a cancelled run is the normal way a server stops:
// SIGINT, SIGTERM) and drops session ids, which are bearer credentials of
// an HTTP session.
type sdkLog struct{ slog.Handler }

// Handle implements slog.Handler.
func (q sdkLog) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelError && r.Message == "server run cancelled" {
		if !q.Handler.Enabled(ctx, slog.LevelInfo) {
			return nil
		}
		r.Level = slog.LevelInfo
	}
	secret := false
	r.Attrs(func(a slog.Attr) bool {
		secret = secret || sessionAttr(a.Key)
		return !secret
	})
	if secret {
		clean := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
		r.Attrs(func(a slog.Attr) bool {
			if !sessionAttr(a.Key) {
				clean.AddAttrs(a)
			}
			return true
		})
		r = clean
	}
	return q.Handler.Handle(ctx, r)
}

func sessionAttr(key string) bool {
	k := strings.ToLower(strings.ReplaceAll(key, "_", ""))
	return k == "sessionid" || k == "session"
}

// WithAttrs implements slog.Handler.
func (q sdkLog) WithAttrs(as []slog.Attr) slog.Handler {
	kept := make([]slog.Attr, 0, len(as))
	for _, a := range as {
		if !sessionAttr(a.Key) {
			kept = append(kept, a)
		}
	}
	return sdkLog{q.Handler.WithAttrs(kept)}
}

// WithGroup implements slog.Handler.
func (q sdkLog) WithGroup(name string) slog.Handler {
	return sdkLog{q.Handler.WithGroup(name)}
}

// annotations converts the hints exporters.Annotations derives from the
// capability flags (readOnly = idempotent = ReadOnly(), destructive =
// Destructive, openWorld = Network || ExecCode) into the SDK's type, every
// hint set explicitly, so tools/list and `cursus mcp export --format mcp`
// agree. The title is the tool's (Tool.Title), not repeated here.
func annotations(t *registry.ToolDef) *mcp.ToolAnnotations {
	a := exporters.Annotations(t)
	return &mcp.ToolAnnotations{
		ReadOnlyHint:    a.ReadOnlyHint,
		DestructiveHint: new(a.DestructiveHint),
		IdempotentHint:  a.IdempotentHint,
		OpenWorldHint:   new(a.OpenWorldHint),
	}
}

func instructions(p registry.Policy, hidden bool, shared string) string {
	var b strings.Builder
	b.WriteString("Cursus compiles ML pipeline DAGs into Amazon SageMaker Pipelines definitions. ")
	b.WriteString("Tool names are <namespace>__<name>; start with tools__help for an overview, or tools__help {\"namespace\": ...} for one namespace. ")
	b.WriteString("Every tool answers one JSON envelope (structuredContent on success; the text block carries the same JSON): ok (a boolean), then data (and next_steps, warnings, meta) on success, or error, code and remedy on failure; follow remedy.suggested_tools to recover. ")
	b.WriteString("A tool's outputSchema outlines its data (ok, in every answer, is left out of it); tools__describe_tool gives the full schemas. An argument a tool's inputSchema does not list is refused.")
	if shared != "" {
		b.WriteString(" " + shared)
	}
	if hidden {
		var closed []string
		if !p.AllowDestructive {
			closed = append(closed, "tools that change external state or write files are disabled ("+registry.EnvEnableDestructive+")")
		}
		if !p.AllowScriptExec {
			closed = append(closed, "tools that execute code are disabled ("+registry.EnvAllowScriptExec+")")
		}
		if len(closed) > 0 {
			b.WriteString(" This server is restricted: " + strings.Join(closed, "; ") + "; only the user can enable them by restarting the server.")
		}
	}
	if p.ProjectRoot != "" && (p.AllowDestructive || p.AllowScriptExec) {
		b.WriteString(" File writes are confined to the project root.")
	}
	return b.String()
}

// toolsetInstructions is what a dynamic server adds to the instructions:
// what it lists at first, the other toolsets and the switch.
func toolsetInstructions(reg *registry.Registry, allowed []*registry.ToolDef, first map[string]bool) string {
	var listed []string
	others := map[string]bool{}
	for _, t := range allowed {
		if first[t.Name] {
			listed = append(listed, t.WireName())
		} else {
			others[t.Namespace()] = true
		}
	}
	var names []string
	for _, n := range reg.NamespaceNames() {
		if others[n] {
			names = append(names, n)
		}
	}
	return "Toolsets: this session lists " + strings.Join(listed, ", ") + " at first. " +
		"Every other tool is in the toolset of its namespace (" + strings.Join(names, ", ") + "): it is callable by name as it is, and listed once " +
		"tools__toolsets {\"enable\": [\"<namespace>\"]} enables its toolset (the server sends notifications/tools/list_changed). " +
		"tools__help counts the tools listed and names the other toolsets; tools__help {\"namespace\": ...} describes a toolset's tools."
}

// deselected is the failure of a tool the selection options leave out,
// and its JSON. It holds only strings, which always encode.
func deselected(t *registry.ToolDef) (*envelope.ToolResult, []byte) {
	res := envelope.FromError(envelope.Errorf(envelope.CodeToolDisabled,
		"tool '%s' is not enabled on this server: the server was started with a tool selection (--namespaces, --tools, --exclude-tools) that leaves it out", t.Name).
		WithDetails("reason", "not_selected").
		WithRemedy("use one of the listed tools, or ask the user to restart the server with this tool selected", "tools.help")).
		WithMeta("tool", t.Name)
	wire, _ := res.MarshalJSON()
	return res, wire
}

// toResult turns an envelope into a tool result, from wire, the
// envelope's JSON. The envelope goes once as structuredContent, which the
// tool's outputSchema describes (a failure too: the listed schema
// requires only ok), and, as the MCP spec advises for structured results
// and the SDK's typed tools do, the same bytes serialized in one text
// block for hosts that read only text. isError is true exactly when ok is
// false.
func toResult(res *envelope.ToolResult, wire []byte) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(wire)}},
		StructuredContent: json.RawMessage(wire),
		IsError:           !res.OK,
	}
}
