package tools

import (
	"context"
	"slices"
	"strings"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/suggest"
	"github.com/cursus-go/cursus/registry"
)

// coreDescription describes the core toolset in tools.toolsets and
// tools.help.
const coreDescription = "The front door: help, a tool's schema, step search, the recommender, a config's template and save, validate, the definition and a local run."

type toolsetsArgs struct {
	Enable []string `json:"enable,omitempty" jsonschema_description:"Toolsets to list too: namespace names (data.toolsets), or \"all\". Without it the toolsets are only described."`
}

// ToolsetsData is the data of tools.toolsets: every toolset of the
// session, what it lists, and what the call enabled.
type ToolsetsData struct {
	// Toolsets are the core toolset, then one per namespace with a tool the
	// session can call, by name.
	Toolsets []ToolsetInfo `json:"toolsets"`
	// Enabled are the toolsets this call listed that were not listed before.
	Enabled []string `json:"enabled,omitempty"`
	// ListedTools counts the tools the session lists (its tools/list).
	ListedTools int `json:"listed_tools"`
	// CallableTools counts the tools the session answers, listed or not.
	CallableTools int `json:"callable_tools"`
}

// ToolsetInfo is one toolset of tools.toolsets.
type ToolsetInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Tools counts the toolset's tools the session can call.
	Tools int `json:"tools"`
	// Listed is true when every one of them is in the session's list.
	Listed bool `json:"listed"`
}

func toolsetsTool() *registry.ToolDef {
	return registry.New("tools.toolsets", registry.Spec{
		Core: true,
		Description: "The toolsets: core (listed first) and one per namespace, with their tool counts and whether this session lists them; " +
			"enable lists a toolset's tools too (the server sends notifications/tools/list_changed). A tool of a toolset not listed is callable by name all the same.",
		When: "a tool you need is not in your tool list",
		Examples: []string{
			`tools.toolsets {}  # what is listed, what can be`,
			`tools.toolsets {"enable": ["compile", "execution"]}`,
		},
		Tags: []string{registry.PhasePlanner},
	}, toolsToolsets)
}

// sessionView is what a call sees of its session's tool list: the
// session's ToolList, or, without one (the CLI, the Go API), every tool
// the policy allows, listed.
type sessionView struct {
	list   registry.ToolList
	policy *registry.Policy
}

func viewOf(ctx context.Context) sessionView {
	return sessionView{list: registry.ToolListFrom(ctx), policy: registry.PolicyFrom(ctx)}
}

func (v sessionView) allowed(t *registry.ToolDef) bool {
	if v.policy == nil {
		return true
	}
	ok, _ := v.policy.Allows(t)
	return ok
}

// callable reports whether the session answers a call of t (generated
// <ns>.help tools aside: tools.help {"namespace": ...} answers the same).
func (v sessionView) callable(t *registry.ToolDef) bool {
	if t.NamespaceHelp() || !v.allowed(t) {
		return false
	}
	return v.list == nil || v.list.Callable(t)
}

func (v sessionView) listed(t *registry.ToolDef) bool {
	if !v.allowed(t) {
		return false
	}
	return v.list == nil || v.list.Listed(t)
}

// toolsets describes the session's toolsets: core first, then each
// namespace with a callable tool.
func (v sessionView) toolsets(r *registry.Registry) (sets []ToolsetInfo, listed, callable int) {
	core := ToolsetInfo{Name: registry.CoreToolset, Description: coreDescription, Listed: true}
	byNS := map[string]*ToolsetInfo{}
	var order []string
	for _, t := range r.List("") {
		if !v.callable(t) {
			continue
		}
		callable++
		isListed := v.listed(t)
		if isListed {
			listed++
		}
		if t.Core {
			core.Tools++
			core.Listed = core.Listed && isListed
		}
		ns := t.Namespace()
		s := byNS[ns]
		if s == nil {
			d, _ := r.NamespaceDescription(ns)
			s = &ToolsetInfo{Name: ns, Description: d, Listed: true}
			byNS[ns] = s
			order = append(order, ns)
		}
		s.Tools++
		s.Listed = s.Listed && isListed
	}
	if core.Tools > 0 {
		sets = append(sets, core)
	}
	for _, ns := range order {
		sets = append(sets, *byNS[ns])
	}
	return sets, listed, callable
}

func toolsToolsets(ctx context.Context, a toolsetsArgs) (*envelope.Result[ToolsetsData], error) {
	r := registry.FromContext(ctx)
	v := viewOf(ctx)
	names, err := toolsetNames(r, a.Enable)
	if err != nil {
		return nil, err
	}
	before, _, _ := v.toolsets(r)
	var warnings []string
	if len(names) > 0 {
		if v.list == nil {
			warnings = append(warnings, "no session tool list here (the CLI or the Go API): every tool is listed and callable already")
		} else if terr := v.list.EnableToolsets(names); terr != nil {
			return nil, terr
		}
	}
	sets, listed, callable := v.toolsets(r)
	data := ToolsetsData{Toolsets: sets, ListedTools: listed, CallableTools: callable}
	was := map[string]bool{}
	for _, s := range before {
		was[s.Name] = s.Listed
	}
	for _, s := range sets {
		if s.Listed && !was[s.Name] {
			data.Enabled = append(data.Enabled, s.Name)
		}
	}
	for _, n := range names {
		if n != registry.AllToolsets && n != registry.CoreToolset && !slices.ContainsFunc(sets, func(s ToolsetInfo) bool { return s.Name == n }) {
			warnings = append(warnings, "toolset "+n+" has no tool this session can call (a closed gate or the server's tool selection leaves them out)")
		}
	}
	res := envelope.Success(data).WithWarnings(warnings...)
	if len(data.Enabled) > 0 {
		res = res.WithNextSteps(envelope.NextStep{Tool: "tools.help", When: "to see the tools just listed", Why: "one namespace in detail: when to call each tool, with examples",
			ArgsHint: map[string]any{"namespace": data.Enabled[0]}})
	} else if listed < callable {
		res = res.WithNextSteps(envelope.NextStep{Tool: "tools.toolsets", When: "a tool you need is in a toolset not listed", Why: "lists its tools (they are callable by name already)",
			ArgsHint: map[string]any{"enable": []string{"<a toolset of data.toolsets>"}}})
	}
	return res, nil
}

// toolsetNames checks the names of an enable argument: namespaces,
// "core" or "all", trimmed, without repeats; an unknown one is refused
// with the closest names.
func toolsetNames(r *registry.Registry, in []string) ([]string, error) {
	known := append([]string{registry.CoreToolset, registry.AllToolsets}, r.NamespaceNames()...)
	var out []string
	for _, n := range in {
		n = strings.TrimSpace(n)
		if n == "" || slices.Contains(out, n) {
			continue
		}
		if !slices.Contains(known, n) {
			msg := "enable: unknown toolset '" + n + "'"
			close := suggest.Closest(n, known, 3)
			if len(close) > 0 {
				msg += "; did you mean " + strings.Join(close, ", ") + "?"
			}
			return nil, envelope.InvalidInput("%s", msg).WithDetails("field", "enable", "available_toolsets", known).
				WithRemedy("name toolsets from meta.details.available_toolsets (a namespace, core or all)", "tools.toolsets")
		}
		out = append(out, n)
	}
	return out, nil
}
