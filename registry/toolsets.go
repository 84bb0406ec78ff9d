package registry

import (
	"context"

	"github.com/cursus-go/cursus/envelope"
)

// Toolsets. Every namespace is a toolset; the core toolset is the tools
// marked Spec.Core, across namespaces. An MCP server lists the core
// toolset first and the others when the session enables them
// (tools.toolsets); an export with deferred loading keeps the core loaded
// and defers the rest.
const (
	// CoreToolset names the core toolset: the tools marked Spec.Core.
	CoreToolset = "core"
	// AllToolsets names every toolset at once.
	AllToolsets = "all"
)

// Core returns the tools of the core toolset, sorted by name.
func (r *Registry) Core() []*ToolDef {
	var out []*ToolDef
	for _, t := range r.List("") {
		if t.Core {
			out = append(out, t)
		}
	}
	return out
}

// ToolList is the tool list of the session a call runs in: an MCP
// session's tools/list. The MCP server puts it in the context of every
// call of the session (WithToolList); tools.help counts what it lists and
// tools.toolsets reads and extends it. Without one (the CLI, the Go API)
// every tool the policy allows is listed and callable.
type ToolList interface {
	// Listed reports whether the session's list holds t.
	Listed(t *ToolDef) bool
	// Callable reports whether the session answers a call of t: a tool of
	// a toolset not enabled yet is callable by name, one the server's
	// selection, a closed gate or a guided stage leaves out is not.
	Callable(t *ToolDef) bool
	// EnableToolsets lists the tools of the named toolsets (namespaces,
	// CoreToolset or AllToolsets, already checked by the caller) too and
	// tells the client (notifications/tools/list_changed). It fails when
	// the session's list does not change by toolsets (a guided session,
	// whose stage decides it).
	EnableToolsets(names []string) *envelope.ToolError
}

const toolListKey ctxKey = scopeKey + 1

// WithToolList returns a context whose calls run in the session l lists
// the tools of.
func WithToolList(ctx context.Context, l ToolList) context.Context {
	return context.WithValue(ctx, toolListKey, l)
}

// ToolListFrom returns the context's session tool list, or nil. Nested
// calls (Call) keep it: tools.help pinned to a namespace counts the same
// list.
func ToolListFrom(ctx context.Context) ToolList {
	l, _ := ctx.Value(toolListKey).(ToolList)
	return l
}
