package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/suggest"
	"github.com/cursus-go/cursus/registry"
)

// ToolsNamespace returns the tools namespace: its description and tools, built anew
// on each call (DefaultNamespaces lists it).
func ToolsNamespace() registry.Namespace {
	return namespace("tools", "Self-documentation: what tools exist, what each does, when to call it and how.",
		registry.New("tools.help", registry.Spec{
			Core:        true,
			Description: "The front door: the phases and namespaces, one line and a tool count each.",
			When:        "at the start of a task, or unsure which tool to call",
			Examples: []string{
				`tools.help {}  # the namespace index`,
				`tools.help {"namespace": "compile"}  # one namespace in detail`,
				`tools.help {"phase": "validator"}  # the validator tools, one line each`,
				`tools.help {"format": "markdown"}  # a compact summary to read`,
			},
			Tags: []string{registry.PhasePlanner},
		}, toolsHelp),
		registry.New("tools.by_phase", registry.Spec{
			Description: "The tools of one phase (planner, validator, programmer): when to call each and its capability flags.",
			When:        "you want only the tools for the next kind of work",
			Examples:    []string{`tools.by_phase {"phase": "validator"}`, `tools.by_phase {"phase": "planner"}  # discovery and design tools`},
			Tags:        []string{registry.PhasePlanner},
		}, toolsByPhase),
		registry.New("tools.describe_tool", registry.Spec{
			Core:        true,
			Description: "The full descriptor of one tool, by dotted or wire name: description, when, examples, tags, capability flags and input schema; with include_data_schema, the full schema of its data too.",
			When:        "before calling a tool whose arguments you are not sure of",
			Examples:    []string{`tools.describe_tool {"name": "compile.dag"}`, `tools.describe_tool {"name": "catalog__search", "include_data_schema": true}  # a wire name; with the data's full schema`},
			Tags:        []string{registry.PhasePlanner},
		}, toolsDescribe),
		toolsetsTool(),
	)
}

type helpArgs struct {
	Namespace     string `json:"namespace,omitempty" jsonschema_description:"Only this namespace (see the namespaces list), in detail."`
	Phase         string `json:"phase,omitempty" jsonschema:"enum=planner,enum=validator,enum=programmer" jsonschema_description:"Only tools of this phase, one line each."`
	Detail        bool   `json:"detail,omitempty" jsonschema_description:"Every selected tool with description, when and examples (the default with namespace)."`
	IncludeSchema bool   `json:"include_schema,omitempty" jsonschema_description:"Include each tool's input schema (implies detail)."`
	Format        string `json:"format,omitempty" jsonschema:"enum=json,enum=markdown" jsonschema_description:"json (default) returns data; markdown returns a compact summary for a model to read."`
}

type byPhaseArgs struct {
	Phase  string `json:"phase" jsonschema:"required,enum=planner,enum=validator,enum=programmer"`
	Detail bool   `json:"detail,omitempty" jsonschema_description:"Add each tool's description and examples."`
}

type describeArgs struct {
	Name string `json:"name" jsonschema:"required" jsonschema_description:"Dotted (compile.dag) or wire (compile__dag) tool name."`
	// IncludeDataSchema adds the data's full schema. It is left out by
	// default: an MCP host already lists the tool's output schema, and it
	// was about a third of a typical answer.
	IncludeDataSchema bool `json:"include_data_schema,omitempty" jsonschema_description:"Add data_schema, the full schema of the tool's data (tools/list gives its outline)."`
}

const overview = "Cursus turns a pipeline graph (a DAG of step types) and a config.json into an Amazon SageMaker Pipelines definition. " +
	"Plan with catalog.*, pipeline_catalog.* and dag.*; configure with config.*; check with validate.*, dag.validate_integrity and compile.validate; " +
	"build with compile.definition (or compile.dag to deploy). Every tool returns one envelope: ok, data or error+code, warnings, next_steps, remedy, meta."

// ToolInfo is how help and describe present one tool.
type ToolInfo struct {
	Name      string `json:"name"`
	WireName  string `json:"wire_name"`
	Namespace string `json:"namespace"`
	// Description and Examples are left out of a brief entry (tools.by_phase
	// and tools.help by phase without detail): when says what the tool is for.
	Description  string   `json:"description,omitempty"`
	Tags         []string `json:"tags"`
	Destructive  bool     `json:"destructive"`
	Writes       bool     `json:"writes"`
	ExecCode     bool     `json:"exec_code"`
	Network      bool     `json:"network"`
	When         string   `json:"when,omitempty"`
	Examples     []string `json:"examples,omitempty"`
	DeprecatedBy string   `json:"deprecated_by,omitempty"`
	// Schema and DataSchema are the registry's JSON of the tool's input
	// schema and data schema, encoded once (ToolDef.SchemaJSON,
	// DataSchemaJSON): an answer carries those bytes.
	Schema json.RawMessage `json:"schema,omitempty" jsonschema:"type=object"`
	// DataSchema is the schema of the data of a success (the tool's
	// output schema without the envelope around it); describe_tool gives
	// it when asked (include_data_schema).
	DataSchema json.RawMessage `json:"data_schema,omitempty" jsonschema:"type=object"`
}

// WriteJSON implements envelope.JSONWriter: it writes the JSON
// json.Marshal makes of i (HTML characters not escaped), with the
// schemas, JSON the registry encoded compact once, written as they are
// instead of checked and compacted again (that pass was most of what a
// tools.describe_tool call cost).
func (i ToolInfo) WriteJSON(b *bytes.Buffer) error {
	type plain ToolInfo // the fields, without this method
	p := plain(i)
	p.Schema, p.DataSchema = nil, nil
	n := len(i.Name) + len(i.Description) + len(i.When) + len(i.DeprecatedBy) + len(i.Schema) + len(i.DataSchema) + 256
	for _, e := range i.Examples {
		n += len(e) + 8
	}
	b.Grow(n) // once: the answer is mostly these bytes
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return err
	}
	b.Truncate(b.Len() - len("}\n")) // reopen the object: Encode ends it with a brace and a newline
	for _, f := range []struct {
		key string
		raw json.RawMessage
	}{{"schema", i.Schema}, {"data_schema", i.DataSchema}} {
		if len(f.raw) > 0 {
			b.WriteString(`,"` + f.key + `":`)
			b.Write(f.raw)
		}
	}
	b.WriteByte('}')
	return nil
}

// summaries caches each tool's ToolInfo (*registry.ToolDef -> *ToolInfo):
// a ToolDef is immutable, so its summary is computed once and shared, read-only.
var summaries sync.Map

// cachedSummary returns the shared summary of t, with its schema when withSchema.
func cachedSummary(t *registry.ToolDef, withSchema bool) *ToolInfo {
	v, ok := summaries.Load(t)
	if !ok {
		info := ToolSummary(t, false)
		v, _ = summaries.LoadOrStore(t, &info)
	}
	info := v.(*ToolInfo)
	if !withSchema {
		return info
	}
	c := *info
	c.Schema = t.SchemaJSON()
	return &c
}

// briefs caches each tool's brief ToolInfo: its summary without the
// description and examples.
var briefs sync.Map

// cachedBrief returns the shared brief summary of t.
func cachedBrief(t *registry.ToolDef) *ToolInfo {
	if v, ok := briefs.Load(t); ok {
		return v.(*ToolInfo)
	}
	c := *cachedSummary(t, false)
	c.Description, c.Examples = "", nil
	v, _ := briefs.LoadOrStore(t, &c)
	return v.(*ToolInfo)
}

// ToolSummary describes one tool, with its input schema when withSchema.
func ToolSummary(t *registry.ToolDef, withSchema bool) ToolInfo {
	s := ToolInfo{
		Name: t.Name, WireName: t.WireName(), Namespace: t.Namespace(), Description: t.Description,
		Tags: nonNilList(t.Tags), Destructive: t.Destructive, Writes: t.Writes, ExecCode: t.ExecCode,
		Network: t.Network, When: t.When, Examples: t.Examples, DeprecatedBy: t.DeprecatedBy,
	}
	if withSchema {
		s.Schema = t.SchemaJSON()
	}
	return s
}

func hasTag(t *registry.ToolDef, tag string) bool { return slices.Contains(t.Tags, tag) }

// ToolsHelpData is the data of tools.help (and of every <namespace>.help):
// the overview, the phases with their tool counts and the namespaces, each
// with its tool names (the index) or its tools (in detail).
type ToolsHelpData struct {
	Overview string `json:"overview"`
	// TotalTools counts the tools this caller's tool list holds: an MCP
	// session's tools/list (the gates' closed tools, toolsets not enabled
	// and, in a guided session, other stages' left out).
	TotalTools int `json:"total_tools"`
	// CallableTools counts the tools this caller can call by name, listed
	// or not, when that is more than TotalTools: the tools of toolsets the
	// session has not enabled (tools.toolsets enables them).
	CallableTools int                  `json:"callable_tools,omitempty"`
	Shown         int                  `json:"shown"`
	Phases        map[string]HelpPhase `json:"phases"`
	Namespaces    []HelpNamespace      `json:"namespaces"`
	// FilteredNamespace and FilteredPhase echo the filters.
	FilteredNamespace string `json:"filtered_namespace,omitempty"`
	FilteredPhase     string `json:"filtered_phase,omitempty"`
	// Stage is the active stage of a guided session, which shows only its tools.
	Stage string `json:"stage,omitempty"`
	// Unlisted names the shown tools the caller's list does not hold (a
	// namespace whose toolset is not enabled): callable by name, and listed
	// once tools.toolsets enables their toolset.
	Unlisted []string `json:"unlisted,omitempty"`
	// OtherToolsets are the toolsets with callable tools the caller's list
	// does not hold, in the index: tools.toolsets {"enable": [...]} lists them.
	OtherToolsets []HelpToolset `json:"other_toolsets,omitempty"`
}

// HelpToolset is a toolset tools.help names but the caller's list does not
// hold: its name (a namespace), description and callable tools.
type HelpToolset struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Tools       int    `json:"tools"`
}

// HelpPhase is one phase of tools.help: what it is for and how many of the
// shown tools it tags.
type HelpPhase struct {
	Description string `json:"description"`
	Count       int    `json:"count"`
}

// ToolsByPhaseData is the data of tools.by_phase.
type ToolsByPhaseData struct {
	Phase string      `json:"phase"`
	Count int         `json:"count"`
	Tools []*ToolInfo `json:"tools"`
}

// HelpNamespace is one namespace of tools.help: in the index its tool
// names, in detail its tools.
type HelpNamespace struct {
	Namespace   string      `json:"namespace"`
	Description string      `json:"description"`
	Count       int         `json:"count"`
	Names       []string    `json:"names,omitempty"`
	Tools       []*ToolInfo `json:"tools,omitempty"`
}

// visibleScope is a scope that says cheaply which tools it shows and the
// stage it is in (a guided session of package workflow: the active
// stage's tools).
type visibleScope interface {
	Visible(t *registry.ToolDef) bool
	Stage() string
}

// startTool is where the index sends a new user with a problem to solve:
// the first call of the path from a problem to a pipeline that runs.
const startTool = "pipeline_catalog.recommend"

func toolsHelp(ctx context.Context, a helpArgs) (*envelope.Result[ToolsHelpData], error) {
	r := registry.FromContext(ctx)
	ns := strings.TrimSpace(a.Namespace)
	if ns != "" {
		if _, ok := r.NamespaceDescription(ns); !ok {
			close := suggest.Closest(ns, r.NamespaceNames(), 3)
			msg := "unknown namespace: '" + ns + "'"
			if len(close) > 0 {
				msg += "; did you mean " + strings.Join(close, ", ") + "?"
			}
			return nil, envelope.NotFound("%s", msg).
				WithDetails("available_namespaces", r.NamespaceNames()).
				WithRemedy("call tools.help without a namespace to see them all, or pick one of meta.details.available_namespaces", "tools.help")
		}
	}
	// A namespace is shown in detail; a phase (which spans namespaces) one
	// line per tool unless detail is asked for.
	detail := a.Detail || a.IncludeSchema || ns != ""
	brief := !detail && a.Phase != ""
	all := r.List(ns)
	selected := make([]*registry.ToolDef, 0, len(all))
	sess, _ := registry.ScopeFrom(ctx).(visibleScope)
	view := viewOf(ctx)
	// listed is what this caller's tool list holds: an MCP session's
	// tools/list (ToolList: the toolsets it enabled, or a guided stage's
	// tools), else every tool the gates let through (a guided Go session:
	// its stage's).
	listed := func(t *registry.ToolDef) bool {
		if view.list != nil {
			return view.listed(t)
		}
		return view.allowed(t) && (sess == nil || sess.Visible(t))
	}
	total, callable := 0, 0
	other := map[string]int{}
	for _, t := range r.List("") {
		switch {
		case listed(t):
			total++
			callable++
		case view.list != nil && view.callable(t):
			callable++
			other[t.Namespace()]++
		}
	}
	var unlisted []string
	for _, t := range all {
		if a.Phase != "" && !hasTag(t, a.Phase) {
			continue
		}
		if !listed(t) {
			// One namespace shows its tools a toolset not enabled holds:
			// the caller may enable it, or call them by name.
			if ns == "" || view.list == nil || !view.callable(t) {
				continue
			}
			unlisted = append(unlisted, t.Name)
		}
		selected = append(selected, t)
	}
	// One pass: the selection is sorted by dotted name, so each namespace's
	// tools are contiguous and every group is a sub-slice of one allocation.
	var infos []*ToolInfo
	var names []string
	if detail || brief {
		infos = make([]*ToolInfo, len(selected))
	} else {
		names = make([]string, len(selected))
	}
	var counts [3]int
	nsOut := []HelpNamespace{}
	start := 0
	for i, t := range selected {
		if detail {
			infos[i] = cachedSummary(t, a.IncludeSchema)
		} else if brief {
			infos[i] = cachedBrief(t)
		} else {
			names[i] = t.Name
		}
		for j, p := range registry.Phases {
			if hasTag(t, p) {
				counts[j]++
			}
		}
		if i == len(selected)-1 || selected[i+1].Namespace() != t.Namespace() {
			n := t.Namespace()
			d, _ := r.NamespaceDescription(n)
			g := HelpNamespace{Namespace: n, Description: d, Count: i + 1 - start}
			if detail || brief {
				g.Tools = infos[start : i+1 : i+1]
			} else {
				g.Names = names[start : i+1 : i+1]
			}
			nsOut = append(nsOut, g)
			start = i + 1
		}
	}
	phases := make(map[string]HelpPhase, 3)
	for j, p := range registry.Phases {
		phases[p] = HelpPhase{Description: registry.PhaseDescriptions[p], Count: counts[j]}
	}
	data := ToolsHelpData{Overview: overview, TotalTools: total, Shown: len(selected), Phases: phases,
		Namespaces: nsOut, FilteredNamespace: ns, FilteredPhase: a.Phase, Unlisted: unlisted}
	if callable > total {
		data.CallableTools = callable
	}
	if ns == "" && a.Phase == "" {
		for _, n := range r.NamespaceNames() {
			if other[n] > 0 {
				d, _ := r.NamespaceDescription(n)
				data.OtherToolsets = append(data.OtherToolsets, HelpToolset{Name: n, Description: d, Tools: other[n]})
			}
		}
	}
	if sess != nil {
		data.Stage = sess.Stage()
	}
	describe := envelope.NextStep{Tool: "tools.describe_tool", When: "you picked a tool and need its exact arguments", Why: "returns the full descriptor with the input schema", ArgsHint: map[string]any{"name": "<dotted tool name, e.g. compile.dag>"}}
	byPhase := envelope.NextStep{Tool: "tools.by_phase", When: "you know the kind of work (planner, validator, programmer)", Why: "narrows the list to that phase", ArgsHint: map[string]any{"phase": "planner"}}
	var res *envelope.Result[ToolsHelpData]
	if detail {
		res = envelope.Success(data).WithNextSteps(describe, byPhase,
			envelope.NextStep{Tool: "tools.help", When: "you want the other namespaces", Why: "the index of every namespace and its tool names", ArgsHint: map[string]any{}})
	} else {
		var steps []envelope.NextStep
		if t, ok := r.Get(startTool); ok && (sess == nil || sess.Visible(t)) {
			steps = append(steps, envelope.NextStep{Tool: startTool,
				When:     "you have a modelling problem (a framework, where the data is, what the pipeline must do) and no DAG yet",
				Why:      "ranks the catalog's ready-made DAGs for it; from there next_steps lead to a config, a deployable definition and a local run",
				ArgsHint: map[string]any{"framework": "<xgboost | pytorch | lightgbm | any>", "need": "<the problem in the user's words, with the data's s3:// URI>"}})
		}
		if len(data.OtherToolsets) > 0 {
			steps = append(steps, envelope.NextStep{Tool: "tools.toolsets", When: "a tool you need is in a toolset of data.other_toolsets",
				Why:      "lists that toolset's tools (notifications/tools/list_changed); they are callable by name already",
				ArgsHint: map[string]any{"enable": []string{"<a toolset of data.other_toolsets>"}}})
		}
		steps = append(steps,
			envelope.NextStep{Tool: "tools.help", When: "you picked a namespace to work in", Why: "lists its tools with when to call them and examples", ArgsHint: map[string]any{"namespace": "<a namespace of data.namespaces>"}},
			describe, byPhase)
		// Three entries at most: the recommender and the toolset switch,
		// when this caller sees them, take the place of describe_tool and
		// by_phase (the index already counts the phases, and tools.help
		// takes a phase too).
		steps = steps[:3]
		res = envelope.Success(data).WithNextSteps(steps...)
	}
	// With format "markdown" the registry replaces data by its view
	// (tools/format.go, package markdown).
	return res, nil
}

func toolsByPhase(ctx context.Context, a byPhaseArgs) (*envelope.Result[ToolsByPhaseData], error) {
	r := registry.FromContext(ctx)
	out := []*ToolInfo{}
	for _, t := range r.List("") {
		if !hasTag(t, a.Phase) {
			continue
		}
		if a.Detail {
			out = append(out, cachedSummary(t, false))
		} else {
			out = append(out, cachedBrief(t))
		}
	}
	return envelope.Success(ToolsByPhaseData{Phase: a.Phase, Count: len(out), Tools: out}), nil
}

func toolsDescribe(ctx context.Context, a describeArgs) (*envelope.Result[ToolInfo], error) {
	r := registry.FromContext(ctx)
	name := strings.TrimSpace(a.Name)
	if name == "" {
		return nil, envelope.InvalidInput("name must be a non-empty tool name")
	}
	t, ok := r.Get(name)
	if !ok {
		return nil, r.UnknownTool(name)
	}
	info := ToolSummary(t, true)
	if a.IncludeDataSchema {
		info.DataSchema = t.DataSchemaJSON()
	}
	return envelope.Success(info), nil
}
