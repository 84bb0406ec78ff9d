package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/lazyre"
)

// The three phases a tool can be tagged with.
const (
	PhasePlanner    = "planner"
	PhaseValidator  = "validator"
	PhaseProgrammer = "programmer"
)

// Phases lists the phases in display order.
var Phases = []string{PhasePlanner, PhaseValidator, PhaseProgrammer}

// PhaseDescriptions says what each phase is for.
var PhaseDescriptions = map[string]string{
	PhasePlanner:    "Discover steps and DAGs, design the pipeline graph, and read what configs it needs.",
	PhaseValidator:  "Check a DAG, its configs, its wiring and its step definitions before compiling.",
	PhaseProgrammer: "Build artifacts: compile definitions, generate execution documents, author steps.",
}

// Spec is the declarative part of a tool: everything but its name, argument
// type and handler.
type Spec struct {
	// Description says what the tool does, in one or two sentences.
	Description string
	// When is a one-line cue: call this tool when ...
	When string
	// Examples are copy-paste invocations: `<dotted.name> {json args}  # note`.
	Examples []string
	// ListFirstExample keeps a host's tool list to the first example
	// (ListedExamples): the others show nothing that one, the schema and
	// the shared argument descriptions do not say. tools.describe_tool
	// still answers every example.
	ListFirstExample bool
	// Tags are phase labels (PhasePlanner, PhaseValidator, PhaseProgrammer).
	Tags []string
	// Destructive marks a tool that mutates external state (e.g. upserts a pipeline).
	Destructive bool
	// Writes marks a tool that writes local files.
	Writes bool
	// WriteArg names the argument (e.g. output_file) with which a tool that
	// is otherwise read-only writes a file instead of answering its
	// artifact. The tool stays read-only and listed where writes are
	// closed, and its handler refuses a call that gives the argument there
	// (AllowWrite); a server that opens writes lists it as not read-only.
	WriteArg string
	// ExecCode marks a tool that executes code (scripts, interpreters).
	ExecCode bool
	// WritesWhenOpen marks a tool that writes local files when the write
	// gate is open and answers the same without writing while it is closed
	// (workflow.complete_stage records a completion). Like a WriteArg tool
	// it is not gated and stays read-only where writes are closed; a server
	// that opens writes lists it as not read-only.
	WritesWhenOpen bool
	// CallsTools marks a tool that calls other tools (each under its own
	// gate and, in a guided session, the active stage): whatever they do,
	// it may do, so it is neither read-only nor closed to the world. A
	// guided session lists it only in a stage that names it.
	CallsTools bool
	// Network marks a tool that reaches the network or AWS.
	Network bool
	// Core puts the tool in the core toolset (CoreToolset): the front door
	// an MCP server lists before any other toolset is enabled, and the tools
	// an export with deferred loading keeps loaded. Every namespace is a
	// toolset of its own; see ToolList.
	Core bool
	// Title is an optional human title; the dotted name is used when empty.
	Title string
	// NarrowBy names the arguments that make the answer smaller (paging, a
	// filter, a compact format); an answer over the size cap answers
	// too_large with a remedy naming them. Empty: the tool's arguments among
	// format, namespace, max_results, limit, offset, cursor, include_schema
	// and detail (NarrowingArgs).
	NarrowBy []string
	// DeprecatedBy, when set, marks the tool deprecated in favour of the
	// named tool: it is hidden from lists, still callable, and answers with a
	// warning and a remedy naming the replacement.
	DeprecatedBy string
}

// ToolDef is one registered tool. Build it with New; treat it as read-only.
type ToolDef struct {
	Spec
	// Name is the canonical dotted name ("compile.dag").
	Name string

	argType reflect.Type // the argument struct
	outType reflect.Type // the data type; anyType while the tool's data is untyped
	// argFields reads the argument struct's tags once, when first needed.
	argFields func() argInfo
	wire      string
	// invoke decodes the validated arguments (over the defaults) into the
	// argument struct and runs the handler.
	invoke func(ctx context.Context, raw, defaults []byte) (*envelope.ToolResult, error)

	// markdown renders the data as the markdown view (WithMarkdown).
	markdown func(data any) (string, error)
	// outputFrom names the tool whose answers this one returns (a
	// namespace's help answers what tools.help answers); Build resolves it.
	outputFrom string
	outputOf   *ToolDef

	in  lazySchema // the input schema
	out lazySchema // the output schema (the envelope, data typed)
	// listedOut is the output schema a tool list carries (ListedOutputSchema).
	listedOut lazySchema
	data      lazySchema // the data schema (DataSchema), for DataSchemaJSON
	args      lazyArgs   // the input schema compiled for validation
}

// lazySchema is one tool's schema, computed once, on first use, as JSON
// (compact, HTML characters not escaped, as the envelope and MCP's wire
// encoding write them); its map is that JSON decoded, on first use of the
// map (numbers float64).
type lazySchema struct {
	once sync.Once
	b    json.RawMessage
	err  error

	mOnce sync.Once
	m     map[string]any
	mErr  error
}

// json returns the schema's JSON, computed with make.
func (l *lazySchema) json(name string, make func() (map[string]any, error)) json.RawMessage {
	l.once.Do(func() {
		m, err := make()
		if err != nil {
			l.err = err
			return
		}
		l.b, l.err = marshalWire(m)
	})
	if l.err != nil {
		panic(fmt.Sprintf("registry: tool %q: %v", name, l.err))
	}
	return l.b
}

// schema returns the schema's JSON decoded (json).
func (l *lazySchema) schema(name string, make func() (map[string]any, error)) map[string]any {
	b := l.json(name, make)
	l.mOnce.Do(func() { l.mErr = json.Unmarshal(b, &l.m) })
	if l.mErr != nil {
		panic(fmt.Sprintf("registry: tool %q: %v", name, l.mErr))
	}
	return l.m
}

// argInfo is what the registry reads of an argument struct's fields.
type argInfo struct {
	aliases   []Alias // deprecated argument names (`deprecated` tags)
	ownFormat bool    // the struct has its own format field
}

// newArgInfo returns the function that reads typ's argInfo on its first
// call.
func newArgInfo(typ reflect.Type) func() argInfo {
	return sync.OnceValue(func() argInfo {
		return argInfo{aliases: collectAliases(typ), ownFormat: hasArg(typ, "format")}
	})
}

// aliases are the tool's deprecated argument names.
func (t *ToolDef) aliases() []Alias { return t.argFields().aliases }

// lazyArgs is the compiled argument schema, built on the first call.
type lazyArgs struct {
	once sync.Once
	s    *argSchema
	err  error
}

func (t *ToolDef) compiled() (*argSchema, error) {
	t.args.once.Do(func() { t.args.s, t.args.err = compileSchema(t.Schema()) })
	return t.args.s, t.args.err
}

// Namespace is the text before the first dot of the name.
func (t *ToolDef) Namespace() string {
	if i := strings.IndexByte(t.Name, '.'); i >= 0 {
		return t.Name[:i]
	}
	return t.Name
}

// WireName is the name with every "." replaced by "__" (host APIs reject dots).
func (t *ToolDef) WireName() string { return t.wire }

// Schema returns the tool's JSON Schema for its arguments: root type object,
// no $ref or $schema, additionalProperties false, as decoded JSON (numbers
// are float64). Do not modify it. The schema is reflected on first use,
// so a process that only lists names (cursus mcp list-tools) never pays for reflection; the
// registry tests reflect every tool's schema, so a bad argument struct
// cannot ship.
func (t *ToolDef) Schema() map[string]any { return t.in.schema(t.Name, t.reflectInput) }

// SchemaJSON is Schema as JSON, marshalled once. Do not modify it.
func (t *ToolDef) SchemaJSON() json.RawMessage { return t.in.json(t.Name, t.reflectInput) }

func (t *ToolDef) reflectInput() (map[string]any, error) {
	s, err := reflectSchema(t.argType)
	if err != nil {
		return nil, err
	}
	markDeprecated(s, t.aliases())
	if t.markdown != nil && !t.argFields().ownFormat {
		props, _ := s["properties"].(map[string]any)
		props["format"] = maps.Clone(formatProperty)
	}
	return s, nil
}

// OutputSchema returns the JSON Schema of the tool's answer: the whole
// envelope as the MCP server sends it in structuredContent (root type
// object; see OutputSchemaFor), its data typed by the tool's data type
// (DataSchema). Do not modify it. It is reflected on first use.
func (t *ToolDef) OutputSchema() map[string]any { return t.out.schema(t.Name, t.reflectOutput) }

// OutputSchemaJSON is OutputSchema as JSON, marshalled once. Do not modify it.
func (t *ToolDef) OutputSchemaJSON() json.RawMessage { return t.out.json(t.Name, t.reflectOutput) }

// DataSchema returns the schema of the data of a success: reflected from
// the handler's data type ({} while the tool is untyped), or that or a
// string when the tool has a markdown view. Do not modify it.
func (t *ToolDef) DataSchema() map[string]any { return t.data.schema(t.Name, t.dataSchema) }

func (t *ToolDef) dataSchema() (map[string]any, error) {
	props, _ := t.OutputSchema()["properties"].(map[string]any)
	d, _ := props["data"].(map[string]any)
	return d, nil
}

// DataSchemaJSON is DataSchema as JSON, marshalled once: a front end that
// answers the schema (tools.describe_tool) sends these bytes instead of
// encoding the map on every call. Do not modify it.
func (t *ToolDef) DataSchemaJSON() json.RawMessage {
	return t.data.json(t.Name, t.dataSchema)
}

// marshalWire is json.Marshal without HTML escaping.
func marshalWire(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func (t *ToolDef) reflectOutput() (map[string]any, error) {
	src := t
	if t.outputOf != nil {
		src = t.outputOf
	}
	data, err := reflectData(src.outType)
	if err != nil {
		return nil, err
	}
	if (t.markdown != nil || src.markdown != nil) && len(data) > 0 {
		data = map[string]any{"anyOf": []any{data, map[string]any{"type": "string"}}}
	}
	return OutputSchemaFor(data), nil
}

// OutputType is the Go type of the data of a success (what As of the
// result returns), or nil while the tool's data is untyped.
func (t *ToolDef) OutputType() reflect.Type {
	if t.outputOf != nil {
		return t.outputOf.OutputType()
	}
	if t.outType == anyType {
		return nil
	}
	return t.outType
}

// Typed reports whether the tool's data has a Go type (and so a schema).
func (t *ToolDef) Typed() bool { return t.OutputType() != nil }

// Gated reports whether any gate applies to the tool, and which variable opens it.
func (t *ToolDef) Gated() (bool, string) {
	switch {
	case t.ExecCode:
		return true, EnvAllowScriptExec
	case t.Destructive || t.Writes:
		return true, EnvEnableDestructive
	}
	return false, ""
}

// ReadOnly reports whether the tool neither mutates state, writes files,
// executes code nor calls tools that may (where writes are closed: a
// WriteArg or WritesWhenOpen tool writes only once they are open).
func (t *ToolDef) ReadOnly() bool {
	return !t.Destructive && !t.Writes && !t.ExecCode && !t.CallsTools
}

// WritesOnceOpen reports whether the tool, read-only where writes are
// closed, writes once they are open (WriteArg, WritesWhenOpen).
func (t *ToolDef) WritesOnceOpen() bool { return t.WriteArg != "" || t.WritesWhenOpen }

// Deprecated reports whether the tool is deprecated.
func (t *ToolDef) Deprecated() bool { return t.DeprecatedBy != "" }

// RenderDescription folds When and Examples into one description, as
// exported to hosts: the description; a blank line and "When: <when>"; a
// blank line, "Examples:" and one "- <arguments>  # note" line per example
// that shows something new (ListedExamples), without the tool's own name. A
// tool without when and examples renders exactly its description.
func (t *ToolDef) RenderDescription() string {
	parts := []string{t.Description}
	if t.DeprecatedBy != "" {
		parts[0] = "DEPRECATED: use " + t.DeprecatedBy + " instead. " + t.Description
	}
	if t.When != "" {
		parts = append(parts, "When: "+t.When)
	}
	if ex := t.ListedExamples(); len(ex) > 0 {
		lines := make([]string, 0, len(ex)+1)
		lines = append(lines, "Examples:")
		for _, e := range ex {
			lines = append(lines, "- "+e)
		}
		parts = append(parts, strings.Join(lines, "\n"))
	}
	return strings.Join(parts, "\n\n")
}

// MaxListedExamples is how many examples a host's tool list shows per
// tool at most (ListedExamples).
const MaxListedExamples = 2

// ListedExamples are the examples a host's tool list shows, without the
// tool's name ("{...}  # note"): the first, then (unless ListFirstExample)
// each one that uses an argument no earlier shown example uses,
// MaxListedExamples at most; the others show nothing new or are left to
// tools.describe_tool, which answers every example.
func (t *ToolDef) ListedExamples() []string {
	var out []string
	seen := map[string]bool{}
	limit := MaxListedExamples
	if t.ListFirstExample {
		limit = 1
	}
	for i, e := range t.Examples {
		if len(out) == limit {
			break
		}
		_, rest := splitExample(e)
		fresh := i == 0
		if limit > 1 {
			// Which arguments an example uses matters only when another
			// may be listed after it (decoding every example was most of
			// what rendering the descriptions cost at start-up).
			keys, ok := exampleKeys(rest)
			fresh = fresh || !ok
			for _, k := range keys {
				if !seen[k] {
					fresh = true
					seen[k] = true
				}
			}
		}
		if !fresh {
			continue
		}
		if rest == "" {
			rest = "{}"
		}
		out = append(out, rest)
	}
	return out
}

// WireName turns a dotted name into its wire form.
func WireName(dotted string) string { return strings.ReplaceAll(dotted, ".", "__") }

// DottedName turns a wire name into its dotted form.
func DottedName(wire string) string { return strings.ReplaceAll(wire, "__", ".") }

// Namespace groups tools under a one-line description.
type Namespace struct {
	Name        string
	Description string
	Tools       []*ToolDef
}

// Registry is a built, read-only set of tools. It is safe for concurrent use.
type Registry struct {
	byName     map[string]*ToolDef
	sorted     []*ToolDef // every tool, sorted by name, deprecated included
	listed     []*ToolDef // sorted, deprecated excluded
	names      []string   // dotted names of listed, sorted
	namespaces map[string]string
	nsNames    []string
}

// NoAutoHelp lists namespaces that get no generated <ns>.help tool.
var NoAutoHelp = map[string]bool{"tools": true}

var nameRE = lazyre.New(`^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$`)

// Build assembles a registry from namespaces. It reflects and checks every
// tool's schema, generates <ns>.help for every namespace but those in
// NoAutoHelp, and fails on a duplicate name, a malformed name, a tool whose
// namespace disagrees with its group, or an example that does not name its
// tool.
func Build(nss []Namespace) (*Registry, error) {
	r := &Registry{byName: map[string]*ToolDef{}, namespaces: map[string]string{}}
	var errs []string
	add := func(t *ToolDef) {
		if !nameRE().MatchString(t.Name) || strings.Contains(t.Name, "__") {
			errs = append(errs, fmt.Sprintf("tool %q: name must be <namespace>.<name> in lower snake case", t.Name))
			return
		}
		if len(WireName(t.Name)) > 64 {
			errs = append(errs, fmt.Sprintf("tool %q: wire name longer than 64 characters", t.Name))
		}
		if _, dup := r.byName[t.Name]; dup {
			errs = append(errs, fmt.Sprintf("tool %q registered twice", t.Name))
			return
		}
		if t.argType == nil {
			errs = append(errs, fmt.Sprintf("tool %q: not built with registry.New", t.Name))
			return
		}
		r.byName[t.Name] = t
	}
	for _, ns := range nss {
		if ns.Name == "" {
			errs = append(errs, "a namespace has no name")
			continue
		}
		if ns.Name == CoreToolset || ns.Name == AllToolsets {
			errs = append(errs, fmt.Sprintf("namespace %q: the name is reserved for a toolset", ns.Name))
			continue
		}
		if d, ok := r.namespaces[ns.Name]; ok && d != "" && ns.Description != "" && d != ns.Description {
			errs = append(errs, fmt.Sprintf("namespace %q described twice", ns.Name))
		}
		if r.namespaces[ns.Name] == "" {
			r.namespaces[ns.Name] = ns.Description
		}
		for _, t := range ns.Tools {
			if t.Namespace() != ns.Name {
				errs = append(errs, fmt.Sprintf("tool %q registered under namespace %q", t.Name, ns.Name))
				continue
			}
			add(t)
		}
	}
	for ns := range r.namespaces {
		r.nsNames = append(r.nsNames, ns)
	}
	sort.Strings(r.nsNames)
	for _, ns := range r.nsNames {
		if NoAutoHelp[ns] {
			continue
		}
		if _, exists := r.byName[ns+".help"]; exists {
			continue
		}
		add(newNamespaceHelp(ns, r.namespaces[ns]))
	}
	for _, t := range r.byName {
		r.sorted = append(r.sorted, t)
		if t.outputFrom != "" {
			t.outputOf = r.byName[t.outputFrom]
		}
	}
	sort.Slice(r.sorted, func(i, j int) bool { return r.sorted[i].Name < r.sorted[j].Name })
	for _, t := range r.sorted {
		errs = append(errs, checkAliases(t)...)
		if t.DeprecatedBy != "" {
			if _, ok := r.byName[t.DeprecatedBy]; !ok {
				errs = append(errs, fmt.Sprintf("tool %q: deprecated by unknown tool %q", t.Name, t.DeprecatedBy))
			}
			continue
		}
		r.listed = append(r.listed, t)
		r.names = append(r.names, t.Name)
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return nil, fmt.Errorf("registry: %s", strings.Join(errs, "; "))
	}
	return r, nil
}

// Get finds a tool by dotted or wire name.
func (r *Registry) Get(name string) (*ToolDef, bool) {
	if t, ok := r.byName[name]; ok {
		return t, true
	}
	if strings.Contains(name, "__") {
		t, ok := r.byName[DottedName(name)]
		return t, ok
	}
	return nil, false
}

// List returns the listed (non-deprecated) tools sorted by name, optionally
// only those of one namespace. Do not modify the slice.
func (r *Registry) List(namespace string) []*ToolDef {
	if namespace == "" {
		return r.listed
	}
	var out []*ToolDef
	for _, t := range r.listed {
		if t.Namespace() == namespace {
			out = append(out, t)
		}
	}
	return out
}

// All returns every tool, deprecated ones included, sorted by name.
func (r *Registry) All() []*ToolDef { return r.sorted }

// Names returns the dotted names of the listed tools, sorted. Do not modify it.
func (r *Registry) Names() []string { return r.names }

// Namespaces returns namespace -> one-line description.
func (r *Registry) Namespaces() map[string]string {
	out := make(map[string]string, len(r.namespaces))
	for k, v := range r.namespaces {
		out[k] = v
	}
	return out
}

// NamespaceNames returns the namespace names, sorted.
func (r *Registry) NamespaceNames() []string { return append([]string(nil), r.nsNames...) }

// NamespaceDescription returns one namespace's description.
func (r *Registry) NamespaceDescription(ns string) (string, bool) {
	d, ok := r.namespaces[ns]
	return d, ok
}

// Len is the number of listed tools.
func (r *Registry) Len() int { return len(r.listed) }
