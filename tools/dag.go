package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/engine/deps"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/internal/strlist"
	"github.com/cursus-go/cursus/internal/suggest"
	"github.com/cursus-go/cursus/registry"
)

// DAGNamespace returns the dag namespace: its description and tools, built anew
// on each call (DefaultNamespaces lists it).
func DAGNamespace() registry.Namespace {
	const twoStep = `"dag": {"nodes": ["TabularPreprocessing_training", "XGBoostTraining"], "edges": [["TabularPreprocessing_training", "XGBoostTraining"]]}`
	const threeStep = `"dag": {"nodes": ["CradleDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining"], "edges": [["CradleDataLoading_training", "TabularPreprocessing_training"], ["TabularPreprocessing_training", "XGBoostTraining"]]}`
	return namespace("dag", "Construct, check, order, draw and (de)serialize pipeline DAGs (nodes are DAG node names such as TabularPreprocessing_training).",
		registry.New("dag.construct", registry.Spec{
			Description: "Builds a DAG from nodes and [src, dst] edges and returns it in the serialized form the other DAG tools accept. A cycle is a warning.",
			When:        "you have step names and edges",
			Examples: []string{
				`dag.construct {` + twoStep + `}`,
				`dag.construct {"dag": {"nodes": ["a", "b"], "edges": [["a", "b"]]}, "metadata": {"pipeline": "demo"}}`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhasePlanner},
		}, dagConstruct),
		registry.New("dag.validate_integrity", registry.Spec{
			Description: "Checks a DAG: cycles with their paths, dangling or undeclared edge endpoints, isolated nodes, unknown step types. Returns is_valid and the issues.",
			When:        "after writing or editing a DAG",
			Examples: []string{
				`dag.validate_integrity {` + twoStep + `}  # is_valid true`,
				`dag.validate_integrity {"dag": {"nodes": ["TabularPreprocessing_training", "XGBoostTraining"], "edges": [["TabularPreprocessing_training", "XGBoostTrainng"]]}}  # typo: undeclared_edge_nodes`,
			},
			Tags: []string{registry.PhaseValidator},
		}, dagValidateIntegrity),
		registry.New("dag.resolve_plan", registry.Spec{
			Description: "The execution plan of a DAG: topological order, each step's parents, which parent output feeds which input, and the nodes each quality gate guards. A cycle is invalid_input.",
			When:        "you need the run order and what feeds what",
			Examples: []string{
				`dag.resolve_plan {"dag_file": "examples/xgboost-end-to-end/dag.json"}  # order + data flow`,
				`dag.resolve_plan {` + twoStep + `}  # inline`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhasePlanner},
		}, dagResolvePlan),
		registry.New("dag.dependencies", registry.Spec{
			Description: "Lists the immediate parents (dependencies: must run before) and children (dependents: run after) of one node of a DAG.",
			When:        "you need one node's neighbours",
			Examples: []string{
				`dag.dependencies {"node": "XGBoostTraining", ` + twoStep + `}  # dependencies = [TabularPreprocessing_training]`,
			},
			Tags: []string{registry.PhasePlanner},
		}, dagDependencies),
		registry.New("dag.serialize", registry.Spec{
			Description: "Serializes a DAG to JSON in the DAG file format (version 1.0.0, as cursus (Python) reads it). With output_file it checks the DAG (it must sort, have a node and no dangling edge) and writes the file atomically, confined to the project root; without it returns the JSON text.",
			When:        "you want to save a DAG to a file for later tools (dag_file arguments) or get its JSON text",
			Examples: []string{
				`dag.serialize {` + twoStep + `}  # JSON returned inline`,
				`dag.serialize {` + twoStep + `, "output_file": "dags/xgb.json", "metadata": {"author": "me"}}  # writes the file`,
			},
			Tags:   []string{registry.PhasePlanner},
			Writes: true,
		}, dagSerialize),
		registry.New("dag.deserialize", registry.Spec{
			Description: "Loads a DAG file (dag.serialize, cursus (Python) or pipeline-catalog format): nodes, edges, statistics, metadata and creation time.",
			When:        "you have a DAG file",
			Examples:    []string{`dag.deserialize {"dag_file": "examples/simple-training/dag.json"}`},
			Tags:        []string{registry.PhasePlanner},
		}, dagDeserialize),
		registry.New("dag.render", registry.Spec{
			Description: "Draws a DAG as a Mermaid flowchart, edges labelled with the ports they bind; unbound required inputs, unknown steps and undeclared endpoints are marked, quality gates drawn as decisions.",
			When:        "you or a person want to see a DAG and what each edge carries",
			Examples: []string{
				`dag.render {"dag_file": "examples/xgboost-end-to-end/dag.json", "direction": "LR"}  # left to right`,
				`dag.render {` + twoStep + `}  # Mermaid text with port labels`,
				`dag.render {"dag": {"nodes": ["a", "b"], "edges": [["a", "b"]]}, "show_ports": false}  # topology only`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhasePlanner},
		}, dagRender),
	)
}

// dagArgs is how every dag.* tool takes its DAG, as the other tools do:
// inline (dag) or as a file (dag_file). The top-level nodes and edges the
// dag.* tools used to take are deprecated names of dag's nodes and edges.
type dagArgs struct {
	DAG     dagObject `json:"dag,omitempty" jsonschema_description:"The DAG inline: {\"nodes\": [...], \"edges\": [[src, dst], ...]} (or the serialized form {\"dag\": {...}}). Node order decides ties in the execution order; edge endpoints are not added to nodes, so a misspelled endpoint shows up as undeclared. Give this or dag_file, not both."`
	DAGFile string    `json:"dag_file,omitempty" jsonschema_description:"Path to a DAG JSON file (dag.serialize / pipeline-catalog format; relative paths are taken from the project root when one is set). Give this or dag, not both."`
	dagIDArg
	Nodes []string   `json:"nodes,omitempty" deprecated:"dag.nodes"`
	Edges [][]string `json:"edges,omitempty" deprecated:"dag.edges"`
}

// load resolves the DAG argument (loadDAGArg).
func (a dagArgs) load(ctx context.Context) (*dag.PipelineDAG, error) {
	return loadDAGArg(ctx, a.DAG, a.DAGFile, a.DagID)
}

// hint is the DAG argument of a next step: the file when one was given,
// else the DAG inline.
func (a dagArgs) hint(d *dag.PipelineDAG) map[string]any {
	if strings.TrimSpace(a.DagID) != "" {
		return map[string]any{"dag_id": a.DagID}
	}
	if strings.TrimSpace(a.DAGFile) != "" {
		return map[string]any{"dag_file": a.DAGFile}
	}
	return map[string]any{"dag": map[string]any{"nodes": d.Nodes(), "edges": d.EdgePairs()}}
}

// dagCheckArgs are the arguments of the dag.* tools that check nodes
// against the step catalog: the DAG, and the workspace directories of a
// project's own step files.
type dagCheckArgs struct {
	dagArgs
	catalogWorkspace
}

type dagConstructArgs struct {
	dagArgs
	Metadata map[string]any `json:"metadata,omitempty" jsonschema_description:"Free-form metadata embedded in the serialized DAG."`
}

type dagDependenciesArgs struct {
	Node string `json:"node" jsonschema:"required" jsonschema_description:"A node of the DAG."`
	dagArgs
	Step string `json:"step,omitempty" deprecated:"node"`
}

type dagSerializeArgs struct {
	dagArgs
	Metadata   map[string]any `json:"metadata,omitempty" jsonschema_description:"Free-form metadata embedded in the file."`
	OutputFile string         `json:"output_file,omitempty" jsonschema_description:"File to write (relative paths are taken from the project root). Omit to get the JSON inline."`
	Pretty     bool           `json:"pretty,omitempty" jsonschema:"default=true" jsonschema_description:"Indent the JSON by two spaces."`
	Path       string         `json:"path,omitempty" deprecated:"output_file"`
}

type dagDeserializeArgs struct {
	DAGFile string `json:"dag_file" jsonschema:"required" jsonschema_description:"Path of the DAG JSON file (relative to the project root when one is set)."`
	Path    string `json:"path,omitempty" deprecated:"dag_file"`
}

type dagRenderArgs struct {
	dagArgs
	catalogWorkspace
	Direction string `json:"direction,omitempty" jsonschema:"enum=TD,enum=LR,enum=BT,enum=RL,default=TD" jsonschema_description:"TD top-down, LR left-right, BT bottom-up, RL right-left."`
	ShowPorts bool   `json:"show_ports,omitempty" jsonschema:"default=true" jsonschema_description:"Label edges with the ports they bind (needs nodes the step catalog knows)."`
}

// dagCatalog returns the embedded step catalog, or nil and a warning when
// it cannot be loaded (tools then skip catalog-driven checks).
func dagCatalog() (*catalog.Catalog, string) {
	c, err := catalog.Default()
	if err != nil {
		return nil, fmt.Sprintf("step catalog unavailable (%v): catalog checks skipped", err)
	}
	return c, ""
}

// dagCatalogFor is the catalog the dag.* checks use: dagCatalog's, or with
// workspace directories the catalog they extend (a bad directory is an
// error, as for the catalog.* tools).
func dagCatalogFor(ctx context.Context, dirs []string) (*catalog.Catalog, string, error) {
	if len(dirs) == 0 {
		c, w := dagCatalog()
		return c, w, nil
	}
	c, err := loadCatalog(ctx, dirs)
	return c, "", err
}

func dagAppendIf(w []string, s string) []string {
	if s != "" {
		return append(w, s)
	}
	return w
}

// DagConstructData is the data of dag.construct: the DAG in the serialized
// DAG format.
type DagConstructData = dag.File

func dagConstruct(ctx context.Context, a dagConstructArgs) (*envelope.Result[DagConstructData], error) {
	d, err := a.load(ctx)
	if err != nil {
		return nil, err
	}
	f := dag.NewFile(d, a.Metadata, time.Now())
	w := dagWarnings(d)
	if cs, _ := d.Cycles(1); len(cs) > 0 {
		w = append(w, fmt.Sprintf("DAG contains a cycle (%s) — it is not a valid pipeline topology", strlist.Join(cs[0], " -> ")))
	} else if f.Statistics.HasCycles {
		w = append(w, "DAG does not sort: a node waits on an edge from an undeclared node — it is not a valid pipeline topology")
	}
	return envelope.Success(*f).WithWarnings(w...).
		WithMeta("node_count", d.NodeCount()).WithMeta("edge_count", d.EdgeCount()).
		WithNextSteps(envelope.NextStep{Tool: "dag.validate_integrity", When: "before using the DAG", Why: "checks cycles, typos in edges and unknown step types",
			ArgsHint: a.hint(d)}), nil
}

// DagValidateIntegrityData is the data of dag.validate_integrity: whether
// the DAG is valid, its issues by category and, for nodes whose step type
// the catalog does not know, the closest step types.
type DagValidateIntegrityData struct {
	IsValid         bool       `json:"is_valid"`
	Issues          dag.Issues `json:"issues"`
	IssueCategories []string   `json:"issue_categories"`
	NodeCount       int        `json:"node_count"`
	EdgeCount       int        `json:"edge_count"`
	// MissingStepSuggestions (with unknown step types) maps each of the
	// first unknown nodes to the closest step types.
	MissingStepSuggestions map[catalog.NodeName][]string `json:"missing_step_suggestions,omitempty"`
}

func dagValidateIntegrity(ctx context.Context, a dagCheckArgs) (*envelope.Result[DagValidateIntegrityData], error) {
	d, err := a.load(ctx)
	if err != nil {
		return nil, err
	}
	cat, warn, err := dagCatalogFor(ctx, a.WorkspaceDirs)
	if err != nil {
		return nil, err
	}
	return dagIntegrityResult(d, cat, warn, withWorkspace(a.hint(d), a.WorkspaceDirs)), nil
}

// dagIntegrityResult checks d against cat (nil: no catalog checks, warn
// says why); hint is the DAG argument its next steps pass on.
func dagIntegrityResult(d *dag.PipelineDAG, cat *catalog.Catalog, warn string, hint map[string]any) *envelope.Result[DagValidateIntegrityData] {
	var opts dag.ValidateOptions
	if cat != nil {
		opts.StepKnown = func(n catalog.NodeName) bool { _, _, ok := cat.ResolveNode(n); return ok }
	}
	issues := d.Validate(opts)
	data := DagValidateIntegrityData{IsValid: issues.Valid(), Issues: issues, IssueCategories: nonNilList(issues.Categories()),
		NodeCount: d.NodeCount(), EdgeCount: d.EdgeCount()}
	if cat != nil && len(issues[dag.CategoryMissing]) > 0 {
		// Closest is a fuzzy search over the catalog: suggest for the first
		// few unknown nodes only, so a huge DAG of unknown names stays fast.
		const maxSuggested = 20
		sugg := map[catalog.NodeName][]string{}
		tried := 0
		for _, n := range d.Nodes() {
			if tried == maxSuggested {
				break
			}
			if !opts.StepKnown(n) {
				tried++
				if c := cat.Closest(string(n), 3); len(c) > 0 {
					sugg[n] = asStrings(c)
				}
			}
		}
		data.MissingStepSuggestions = sugg
	}
	res := envelope.Success(data).WithWarnings(dagAppendIf(dagDuplicateWarnings(d), warn)...).WithVerdict(issues.Valid())
	if issues.Valid() {
		return res.WithNextSteps(
			envelope.NextStep{Tool: "validate.deps_resolve", When: "next", Why: "checks that every required input finds an upstream output along the edges",
				ArgsHint: hint},
			envelope.NextStep{Tool: "dag.render", When: "to look at the wiring", Why: "draws the DAG with the ports each edge binds", ArgsHint: hint})
	}
	res = res.WithNextSteps(envelope.NextStep{Tool: "dag.render", When: "to see the problem", Why: "draws the DAG, undeclared endpoints and unknown steps marked", ArgsHint: hint})
	if _, ok := issues[dag.CategoryMissing]; ok {
		res = res.WithNextSteps(envelope.NextStep{Tool: "catalog.search", When: "a node's step type is unknown", Why: "finds the step type you meant"})
	}
	return res
}

// DagResolvePlanData is the data of dag.resolve_plan: the execution order,
// each step's parents, where each input comes from and the quality gates
// with the nodes they guard.
type DagResolvePlanData struct {
	ExecutionOrder []catalog.NodeName `json:"execution_order"`
	// StepConfigs holds an empty object per step (the plan carries no
	// configuration; the key is kept so plans keep one shape).
	StepConfigs  map[catalog.NodeName]map[string]any     `json:"step_configs"`
	Dependencies map[catalog.NodeName][]catalog.NodeName `json:"dependencies"`
	// DataFlowMap maps each step's inputs to "<provider>:<output>"
	// (input_<i> -> "<parent>:output" for a step the catalog does not know).
	DataFlowMap map[catalog.NodeName]map[string]string `json:"data_flow_map"`
	Branches    []DagBranch                            `json:"branches,omitempty"`
}

func dagResolvePlan(ctx context.Context, a dagCheckArgs) (*envelope.Result[DagResolvePlanData], error) {
	d, err := a.load(ctx)
	if err != nil {
		return nil, err
	}
	order, err := d.TopologicalSort()
	if err != nil {
		var se *dag.SortError
		details := map[string]any{}
		if errors.As(err, &se) {
			details["unplaced_nodes"] = se.Unplaced
		}
		cycles, _ := d.Cycles(10)
		if len(cycles) > 0 {
			details["cycles"] = cycles
		}
		if u := d.UndeclaredEndpoints(); len(u) > 0 {
			details["undeclared_edge_nodes"] = u
		}
		msg := "Pipeline contains cycles"
		if len(cycles) == 0 {
			msg = "Pipeline cannot be ordered: some nodes wait on edges from undeclared nodes"
		}
		return nil, envelope.InvalidInput("%s (%v)", msg, err).WithDetailsMap(details).
			WithRemedy("break the cycle or declare the missing nodes; dag.validate_integrity lists every problem", "dag.validate_integrity", "dag.render")
	}
	warnings := dagWarnings(d)
	data := DagResolvePlanData{ExecutionOrder: nonNilList(order), StepConfigs: make(map[catalog.NodeName]map[string]any, len(order)),
		Dependencies: make(map[catalog.NodeName][]catalog.NodeName, len(order))}
	for _, n := range order {
		data.StepConfigs[n] = map[string]any{}
		data.Dependencies[n] = append([]catalog.NodeName{}, d.Parents(n)...)
	}
	cat, warn, err := dagCatalogFor(ctx, a.WorkspaceDirs)
	if err != nil {
		return nil, err
	}
	warnings = dagAppendIf(warnings, warn)
	var resolved *deps.Partial
	if cat != nil {
		if resolved, err = deps.ResolveKnown(ctx, d, deps.CatalogLookup(cat)); err != nil {
			return nil, err
		}
		if len(resolved.Unknown) > 0 {
			warnings = append(warnings, fmt.Sprintf("no catalog step for %s: their data flow is listed per parent only", strlist.Join(resolved.Unknown, ", ")))
		}
	}
	flow, notes := deps.DataFlow(d, order, resolved)
	data.DataFlowMap = flow
	warnings = append(warnings, notes...)
	if cat != nil {
		branches, warn := dagBranches(d, cat)
		warnings = dagAppendIf(warnings, warn)
		data.Branches = branches
	}
	return envelope.Success(data).WithWarnings(warnings...).WithMeta("step_count", len(order)), nil
}

// DagBranch is one gate of a DAG as dag.resolve_plan and dag.render show
// it: the nodes that run when it passes; when it fails its Fail step ends
// the run.
type DagBranch struct {
	Gate       catalog.NodeName   `json:"gate"`
	ParentGate catalog.NodeName   `json:"parent_gate,omitempty"`
	IfNodes    []catalog.NodeName `json:"if_nodes"`
	Else       string             `json:"else"`
}

// dagBranches returns the DAG's gates (deps.Branches) and a warning when
// they cannot nest.
func dagBranches(d *dag.PipelineDAG, cat *catalog.Catalog) ([]DagBranch, string) {
	bs, err := deps.Branches(d, deps.CatalogLookup(cat))
	if err != nil {
		return nil, err.Error()
	}
	out := make([]DagBranch, len(bs))
	for i, b := range bs {
		out[i] = DagBranch{Gate: b.Gate, ParentGate: b.Parent, IfNodes: nonNilList(b.Nodes), Else: "fail: the gate's Fail step ends the run with its message"}
	}
	return out, ""
}

// DagDependenciesData is the data of dag.dependencies: one node's parents
// (dependencies) and children (dependents).
type DagDependenciesData struct {
	Node         catalog.NodeName   `json:"node"`
	Dependencies []catalog.NodeName `json:"dependencies"`
	Dependents   []catalog.NodeName `json:"dependents"`
}

func dagDependencies(ctx context.Context, a dagDependenciesArgs) (*envelope.Result[DagDependenciesData], error) {
	if strings.TrimSpace(a.Node) == "" {
		return nil, envelope.InvalidInput("'node' must be a non-empty string")
	}
	d, err := a.load(ctx)
	if err != nil {
		return nil, err
	}
	node := catalog.NodeName(a.Node)
	if !d.HasNode(node) {
		msg := fmt.Sprintf("node '%s' is not a node of the DAG", a.Node)
		if close := suggest.Closest(a.Node, d.Nodes(), 3); len(close) > 0 {
			msg += "; did you mean " + strlist.Join(close, ", ") + "?"
		}
		return nil, envelope.NotFound("%s", msg).
			WithDetails("available_nodes", d.Nodes()).
			WithRemedy("use one of the DAG's nodes (details.available_nodes)")
	}
	parents, children := nonNilList(d.Parents(node)), nonNilList(d.Children(node))
	return envelope.Success(DagDependenciesData{Node: node, Dependencies: parents, Dependents: children}).WithWarnings(dagWarnings(d)...), nil
}

// DagSerializeData is the data of dag.serialize: the JSON text, or the
// path of the file written (with output_file), and the DAG's size.
type DagSerializeData struct {
	JSON      string `json:"json,omitempty"`
	Path      string `json:"path,omitempty"`
	NodeCount int    `json:"node_count"`
	EdgeCount int    `json:"edge_count"`
}

func dagSerialize(ctx context.Context, a dagSerializeArgs) (*envelope.Result[DagSerializeData], error) {
	d, err := a.load(ctx)
	if err != nil {
		return nil, err
	}
	data := DagSerializeData{NodeCount: d.NodeCount(), EdgeCount: d.EdgeCount()}
	if a.OutputFile == "" {
		b, err := dag.NewFile(d, a.Metadata, time.Now()).Encode(a.Pretty)
		if err != nil {
			return nil, err
		}
		data.JSON = string(b)
		return envelope.Success(data).WithWarnings(dagWarnings(d)...), nil
	}
	path, err := registry.ResolveWritePath(ctx, "output_file", a.OutputFile)
	if err != nil {
		return nil, err
	}
	if err := dag.WriteFile(safefs.From(ctx), path, d, a.Metadata, a.Pretty); err != nil {
		var we *dag.WriteCheckError
		if errors.As(err, &we) {
			return nil, envelope.InvalidInput("cannot serialize DAG: %s", we.Reason).WithDetails("output_file", a.OutputFile).
				WithRemedy("fix the DAG first; dag.validate_integrity lists its problems", "dag.validate_integrity")
		}
		return nil, registry.FileError("output_file", a.OutputFile, err)
	}
	data.Path = path
	return envelope.Success(data).WithWarnings(dagWarnings(d)...).
		WithNextSteps(envelope.NextStep{Tool: "compile.validate", When: "the DAG is ready for configs", Why: "pass the file as dag_file", ArgsHint: map[string]any{"dag_file": path}}), nil
}

// DagDeserializeData is the data of dag.deserialize: a DAG file's graph
// and its other fields as stored.
type DagDeserializeData struct {
	Nodes    []catalog.NodeName   `json:"nodes"`
	Edges    [][]catalog.NodeName `json:"edges"`
	Stats    map[string]any       `json:"stats"`
	Metadata map[string]any       `json:"metadata"`
	// CreatedAt is as written (usually an ISO-8601 string; null when absent).
	CreatedAt   any    `json:"created_at"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
}

func dagDeserialize(ctx context.Context, a dagDeserializeArgs) (*envelope.Result[DagDeserializeData], error) {
	if strings.TrimSpace(a.DAGFile) == "" {
		return nil, envelope.InvalidInput("'dag_file' must be a non-empty string")
	}
	d, info, err := dag.ReadFile(safefs.From(ctx), a.DAGFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, envelope.NotFound("File not found: %s", a.DAGFile).WithDetails("dag_file", a.DAGFile).
				WithRemedy("check the path (relative paths are taken from the project root); dag.serialize writes DAG files", "dag.serialize")
		}
		if ferr := registry.FileError("dag_file", a.DAGFile, err); ferr != err {
			return nil, ferr
		}
		return nil, envelope.InvalidInput("invalid DAG file: %v", err).WithDetails("dag_file", a.DAGFile)
	}
	data := DagDeserializeData{Nodes: nonNilList(d.Nodes()), Edges: nonNilList(d.EdgePairs()), Stats: info.Statistics,
		Metadata: info.Metadata, CreatedAt: info.CreatedAt, Version: info.Version, Description: info.Description}
	return envelope.Success(data).WithWarnings(dagWarnings(d)...).
		WithMeta("node_count", d.NodeCount()).WithMeta("edge_count", d.EdgeCount()), nil
}

// DagRenderData is the data of dag.render: the Mermaid text and what it
// shows (edges with the ports they bind, unknown steps, unbound required
// inputs, undeclared endpoints, gates).
type DagRenderData struct {
	Format          string             `json:"format"`
	Mermaid         string             `json:"mermaid"`
	NodeCount       int                `json:"node_count"`
	EdgeCount       int                `json:"edge_count"`
	Edges           []deps.DrawnEdge   `json:"edges"`
	UnknownSteps    []catalog.NodeName `json:"unknown_steps"`
	Unresolved      []string           `json:"unresolved_inputs"`
	UndeclaredNodes []catalog.NodeName `json:"undeclared_nodes"`
	PortsShown      bool               `json:"ports_shown"`
	Branches        []DagBranch        `json:"branches,omitempty"`
}

func dagRender(ctx context.Context, a dagRenderArgs) (*envelope.Result[DagRenderData], error) {
	d, err := a.load(ctx)
	if err != nil {
		return nil, err
	}
	warnings := dagWarnings(d)
	var resolved *deps.Partial
	var branches []DagBranch
	var gates []catalog.NodeName
	if a.ShowPorts {
		cat, warn, err := dagCatalogFor(ctx, a.WorkspaceDirs)
		if err != nil {
			return nil, err
		}
		warnings = dagAppendIf(warnings, warn)
		if cat != nil {
			if resolved, err = deps.ResolveKnown(ctx, d, deps.CatalogLookup(cat)); err != nil {
				return nil, err
			}
			branches, warn = dagBranches(d, cat)
			warnings = dagAppendIf(warnings, warn)
			for _, b := range branches {
				gates = append(gates, b.Gate)
			}
		}
	}
	dr := deps.Mermaid(d, a.Direction, resolved, gates)
	var unknown []catalog.NodeName
	if resolved != nil {
		unknown = resolved.Unknown
	}
	data := DagRenderData{Format: "mermaid", Mermaid: dr.Mermaid, NodeCount: d.NodeCount(), EdgeCount: d.EdgeCount(), Edges: dr.Edges,
		UnknownSteps: nonNilList(unknown), Unresolved: dr.Unresolved, UndeclaredNodes: nonNilList(d.UndeclaredEndpoints()),
		PortsShown: resolved != nil, Branches: branches}
	return envelope.Success(data).WithWarnings(warnings...), nil
}
