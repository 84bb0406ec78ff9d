package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
	return strings.Join(parts, "; ")
}

// selection is the resolved form of the selection options.
type selection struct {
	namespaces map[string]bool
	tools      map[string]bool // dotted names
	exclude    map[string]bool // dotted names
}

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
	sel := &selection{namespaces: map[string]bool{}, tools: map[string]bool{}, exclude: map[string]bool{}}
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
	if len(serr.UnknownNamespaces)+len(serr.UnknownTools)+len(serr.UnknownExcluded) > 0 {
		return nil, &serr
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

// srv holds what the tool handlers and the fallback need.
type srv struct {
	reg    *registry.Registry
	policy registry.Policy
	fs     *safefs.FS // every call's file-access layer, opened once
	sel    *selection
	listed map[string]bool // wire names registered with the SDK
	log    *slog.Logger
}

// New builds a server exposing reg's tools under opts. It returns a
// *SelectionError when a selection option names an unknown namespace or
// tool. The server is static: its tool list never changes.
func New(reg *registry.Registry, opts Options) (*mcp.Server, error) {
	m, _, err := build(reg, opts)
	return m, err
}

// build is New; in guided mode it also returns the guided state the
// server was made from, so an HTTP handler makes its sessions' servers
// from the same state instead of checking and describing every tool again.
func build(reg *registry.Registry, opts Options) (*mcp.Server, *guided, error) {
	if reg == nil {
		return nil, nil, fmt.Errorf("server: nil registry")
	}
	sel, err := resolveSelection(reg, opts)
	if err != nil {
		return nil, nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	version := opts.Version
	if version == "" {
		version = "0"
	}
	if opts.Guided || opts.Stage != "" {
		g, err := newGuided(reg, opts, sel, log, version)
		if err != nil {
			return nil, nil, err
		}
		log.Info("mcp server built", "mode", stageNote(opts), "tools_allowed", len(g.defs),
			"allow_destructive", opts.Policy.AllowDestructive, "allow_script_exec", opts.Policy.AllowScriptExec,
			"project_root", opts.Policy.ProjectRoot)
		return g.server(), g, nil
	}
	fsys, err := registry.OpenFS(registry.WithPolicy(context.Background(), opts.Policy))
	if err != nil {
		return nil, nil, fmt.Errorf("server: %w", err)
	}
	s := &srv{reg: reg, policy: opts.Policy, fs: fsys, sel: sel, listed: map[string]bool{}, log: log}

	var tools []*registry.ToolDef
	var gated []string
	for _, t := range reg.List("") {
		if !sel.selected(t) {
			continue
		}
		if ok, env := opts.Policy.Allows(t); !ok {
			gated = append(gated, t.Name)
			if sel.tools[t.Name] {
				log.Warn("tool named in the selection stays hidden: its safety gate is closed", "tool", t.Name, "env_var", env)
			}
			continue
		}
		tools = append(tools, t)
	}

	m := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "Cursus", Version: version}, &mcp.ServerOptions{
		Instructions: instructions(opts.Policy, len(gated) > 0),
		Logger:       slog.New(sdkLog{log.Handler()}),
		// The tool set is fixed at build time: no list_changed notifications.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: false}},
	})
	for _, t := range tools {
		desc, err := mcpTool(t)
		if err != nil {
			return nil, nil, err
		}
		m.AddTool(desc, s.handler(t.Name))
		s.listed[t.WireName()] = true
	}
	m.AddReceivingMiddleware(s.fallback)
	sort.Strings(gated)
	log.Info("mcp server built", "tools", len(tools), "hidden_by_gates", len(gated),
		"allow_destructive", opts.Policy.AllowDestructive, "allow_script_exec", opts.Policy.AllowScriptExec,
		"project_root", opts.Policy.ProjectRoot)
	if len(gated) > 0 {
		log.Debug("tools hidden by closed gates", "tools", strings.Join(gated, ","))
	}
	if len(tools) == 0 {
		log.Warn("no tool is listed: the selection and the policy leave nothing")
	}
	return m, nil, nil
}

// mcpTool is the MCP descriptor of a tool, the same in static and guided
// mode: wire name, title, rendered description, input schema and
// annotations.
func mcpTool(t *registry.ToolDef) (*mcp.Tool, error) {
	schema, err := json.Marshal(t.Schema())
	if err != nil {
		return nil, fmt.Errorf("server: tool %s: schema: %w", t.Name, err)
	}
	return &mcp.Tool{
		Name:        t.WireName(),
		Title:       exporters.MCPTitle(t),
		Description: t.RenderDescription(),
		InputSchema: json.RawMessage(schema),
		Annotations: annotations(t),
	}, nil
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
// agree.
func annotations(t *registry.ToolDef) *mcp.ToolAnnotations {
	a := exporters.Annotations(t)
	return &mcp.ToolAnnotations{
		Title:           exporters.MCPTitle(t),
		ReadOnlyHint:    a.ReadOnlyHint,
		DestructiveHint: new(a.DestructiveHint),
		IdempotentHint:  a.IdempotentHint,
		OpenWorldHint:   new(a.OpenWorldHint),
	}
}

func instructions(p registry.Policy, hidden bool) string {
	var b strings.Builder
	b.WriteString("Cursus compiles ML pipeline DAGs into Amazon SageMaker Pipelines definitions. ")
	b.WriteString("Tool names are <namespace>__<name>; start with tools__help for an overview, or <namespace>__help for one namespace. ")
	b.WriteString("Every tool answers one JSON envelope: ok, then data (and next_steps) on success, or error, code and remedy on failure; follow remedy.suggested_tools to recover.")
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

// handler returns the SDK handler of one listed tool.
func (s *srv) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args json.RawMessage
		if req != nil && req.Params != nil {
			args = req.Params.Arguments
		}
		return s.call(withProgress(ctx, req), name, args), nil
	}
}

// call runs a tool through the registry under the policy and shapes the result.
func (s *srv) call(ctx context.Context, name string, args json.RawMessage) *mcp.CallToolResult {
	res := s.reg.Call(safefs.WithFS(registry.WithPolicy(ctx, s.policy), s.fs), name, args)
	if !res.OK {
		s.log.Debug("tool call failed", "tool", name, "code", res.Code, "error", res.Error)
	}
	return toResult(res)
}

// fallback is a receiving middleware: a tools/call for a name the SDK does
// not know (gated, deselected, deprecated, dotted or unknown) is answered
// here with an envelope instead of the SDK's JSON-RPC error.
func (s *srv) fallback(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		r, ok := req.(*mcp.CallToolRequest)
		if !ok || r.Params == nil || s.listed[r.Params.Name] {
			return next(ctx, method, req)
		}
		name := r.Params.Name
		if t, found := s.reg.Get(name); found {
			if allowed, _ := s.policy.Allows(t); allowed && !s.sel.selected(t) {
				s.log.Debug("call of a tool left out by the selection", "tool", t.Name)
				return toResult(deselected(t)), nil
			}
		}
		return s.call(withProgress(ctx, r), name, r.Params.Arguments), nil
	}
}

// deselected is the failure of a tool the selection options leave out.
func deselected(t *registry.ToolDef) *envelope.ToolResult {
	return envelope.FromError(envelope.Errorf(envelope.CodeToolDisabled,
		"tool '%s' is not enabled on this server: the server was started with a tool selection (--namespaces, --tools, --exclude-tools) that leaves it out", t.Name).
		WithDetails("reason", "not_selected").
		WithRemedy("use one of the listed tools, or ask the user to restart the server with this tool selected", "tools.help")).
		WithMeta("tool", t.Name)
}

// toResult turns an envelope into a tool result: the envelope JSON as one
// text block and as structuredContent, isError when ok is false.
func toResult(res *envelope.ToolResult) *mcp.CallToolResult {
	b, err := json.Marshal(res)
	if err != nil {
		fail := envelope.Fail("the tool's result is not JSON-serializable: "+err.Error(), envelope.CodeInternalError)
		if tool, ok := res.Meta["tool"]; ok {
			fail.SetMeta("tool", tool)
		}
		res = fail
		b, _ = json.Marshal(res)
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
		StructuredContent: json.RawMessage(b),
		IsError:           !res.OK,
	}
}
