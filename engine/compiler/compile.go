package compiler

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/engine/deps"
	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/sagemaker"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/internal/strlist"
)

// Input is what a compile needs: a DAG and its configs, plus optional
// overrides. Exactly one of ConfigFile and Configs is used (Configs wins).
type Input struct {
	DAG        *dag.PipelineDAG
	ConfigFile string      // a config.json (shared, specific and metadata sections; see package config)
	Configs    *config.Set // configs already loaded or built in memory

	// FS reads the config file and the local code the configs name (nil:
	// the trusted file-access layer); a confined FS keeps a compile from
	// reading, hashing or uploading files outside its roots.
	FS *safefs.FS

	Catalog *catalog.Catalog // nil: catalog.Default()
	Schema  *config.Schema   // nil: the schema of Catalog

	PipelineName string // overrides the generated name; must be valid
	Role         string // overrides the config's role
	// Region, when set, overrides the configs' region: every image is
	// resolved in it and Result.Region is it. An AWS region name or an
	// alias (NA, EU, FE); anything else fails the compile with a
	// *RegionError.
	Region string
	// BaseDir is where relative source directories and scripts are
	// resolved; default: the config file's directory (its parent when that
	// directory is named pipeline_config or pipeline_configs), else the
	// working directory.
	BaseDir string
	Images  ImageResolver // nil: sagemaker.ImageURI
	// FirstOnTie resolves a node with tied config candidates to the first
	// one instead of failing as ambiguous.
	FirstOnTie bool
}

// Result is a compiled pipeline.
type Result struct {
	PipelineName string
	Role         string // the execution role: the override, else the first config's role
	Description  string // the first config's pipeline_description
	Definition   *Definition
	Manifest     Manifest // local code the definition refers to, to upload first
	Report       *Report
	Warnings     []string
	S3Location   string // pipeline_s3_loc, else s3://<bucket>/MODS/<pipeline_name>; code goes under <S3Location>/code
	// Region is the AWS region the pipeline belongs in (its images were
	// resolved there): Input.Region, else the first config's aws_region or
	// region; "" when the config names none.
	Region string
	// Blockers are the reasons the pipeline would not run as it is
	// (CheckReadiness); it is deployable when there are none.
	Blockers []Blocker
	// Confirm lists the example values the configs hold (CheckConfirm):
	// a deploy refuses them until each is replaced or confirmed; a local
	// run does not need them to be real.
	Confirm []Blocker
	// Parallelism is the pipeline's ParallelismConfiguration (config
	// field max_parallel_execution_steps), nil when no config sets it: a
	// setting CreatePipeline and UpdatePipeline take beside the definition.
	Parallelism *ParallelismConfiguration

	encoded     []byte      // the compile's one encoding of the definition (its checks read it)
	encodedFrom *Definition // the definition it encodes
}

// JSON returns the definition as compact JSON, the PipelineDefinition
// string CreatePipeline takes: the encoding the compile made once (its
// checks read it), unless Definition was replaced since. A caller that
// edits the definition in place encodes it with Definition.Marshal.
func (r *Result) JSON() ([]byte, error) {
	if r.encoded != nil && r.encodedFrom == r.Definition {
		return r.encoded, nil
	}
	return r.Definition.Marshal(false)
}

// Marshal encodes the definition: compact, or indented with two spaces
// and a trailing newline. HTML characters are not escaped.
func (d *Definition) Marshal(indent bool) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(d); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if !indent {
		b = bytes.TrimRight(b, "\n")
	}
	return b, nil
}

// Report says how each DAG node was compiled.
type Report struct {
	PipelineName  string       `json:"pipeline_name"`
	ConfigFile    string       `json:"config_file,omitempty"`
	DAGNodes      int          `json:"dag_nodes"`
	DAGEdges      int          `json:"dag_edges"`
	Nodes         []NodeReport `json:"nodes"` // in step (topological) order
	AvgConfidence float64      `json:"avg_confidence"`
	// Branches are the gates of the DAG, each with the steps of its
	// branches, in topological order of the gates.
	Branches []BranchReport `json:"branches,omitempty"`
}

// NodeReport is how one node was compiled: which config it took, which
// step type and builder, and where each input comes from.
type NodeReport struct {
	Node        catalog.NodeName            `json:"node"`
	ConfigKey   catalog.ConfigKey           `json:"config_key"`
	ConfigClass string                      `json:"config_class"`
	StepType    catalog.StepType            `json:"step_type"`
	JobType     string                      `json:"job_type,omitempty"`
	StepName    catalog.SageMakerStepName   `json:"sagemaker_step_name"`
	Verb        catalog.Verb                `json:"sagemaker_step_type"`
	Builder     string                      `json:"builder"`
	Confidence  float64                     `json:"confidence"`
	Method      string                      `json:"method"`
	Inputs      []*Binding                  `json:"inputs"`
	Unbound     []Unbound                   `json:"unbound,omitempty"`
	DependsOn   []catalog.SageMakerStepName `json:"depends_on"`
	// Branch is the gate whose branch holds the node (its innermost one):
	// the node's step runs only when that gate passes. "" at the top.
	Branch catalog.NodeName `json:"branch,omitempty"`
	// AddedSteps are the steps the compiler added for the node, before
	// its own step: the repack job of a model whose container reads its
	// code from the model archive.
	AddedSteps []catalog.SageMakerStepName `json:"added_steps,omitempty"`
}

// Unbound is an input of a step that nothing feeds.
type Unbound struct {
	Input    string `json:"input"`
	Required bool   `json:"required"`
	Reason   string `json:"reason"`
}

// plan is the resolved, not yet built, pipeline.
type plan struct {
	in       Input
	dag      *dag.PipelineDAG
	order    []catalog.NodeName
	set      *config.Set
	cat      *catalog.Catalog
	nodes    map[catalog.NodeName]*nodePlan
	unbound  map[catalog.NodeName][]deps.Unbound
	first    *config.Config
	warnings []string
}

// Compile compiles a DAG and its configs into a SageMaker pipeline
// definition. Errors are typed: *FileError (config file missing or
// unreadable), *config.ValidationError or *config.UnknownClassError (bad
// config), ErrEmptyDAG, *CycleError, *InvalidDAGError, *MissingConfigError,
// *config.DuplicateStepNameError, *UnknownStepError, *UnboundInputsError,
// *StepBuildError and *InvalidPipelineNameError.
func Compile(ctx context.Context, in Input) (*Result, error) {
	pl, err := prepare(ctx, in)
	if err != nil {
		return nil, err
	}
	return pl.build(ctx, nil)
}

// prepare loads the configs, orders the DAG, resolves node configs and
// steps, and resolves dependencies.
func prepare(ctx context.Context, in Input) (*plan, error) {
	set, err := loadConfigs(in)
	if err != nil {
		return nil, err
	}
	d, err := in.nonEmptyDAG()
	if err != nil {
		return nil, err
	}
	order, err := topoOrder(d)
	if err != nil {
		return nil, err
	}
	cat, err := in.stepCatalog()
	if err != nil {
		return nil, err
	}
	nodes := d.Nodes()
	res, err := set.Resolve(nodes, config.ResolveOptions{FirstOnTie: in.FirstOnTie})
	if err != nil {
		var re *config.ResolutionError
		if errors.As(err, &re) {
			return nil, &MissingConfigError{Err: err, Nodes: re.Nodes(), Available: re.Available}
		}
		return nil, err
	}
	pl := &plan{in: in, dag: d, order: order, set: set, cat: cat, nodes: make(map[catalog.NodeName]*nodePlan, len(nodes))}
	for _, r := range res {
		np, err := newNodePlan(cat, r)
		if err != nil {
			return nil, err
		}
		pl.nodes[np.Node] = np
	}
	if cs := set.Configs(); len(cs) > 0 {
		pl.first = cs[0]
	}
	if err := pl.checkStepNames(); err != nil {
		return nil, err
	}
	if _, err := pl.branches(); err != nil {
		return nil, err
	}
	if err := pl.resolveDeps(ctx); err != nil {
		return nil, err
	}
	return pl, nil
}

// loadConfigs returns the input's config set, loading the file if needed.
func loadConfigs(in Input) (*config.Set, error) {
	if in.Configs != nil {
		return in.Configs, nil
	}
	if in.ConfigFile == "" {
		return nil, ErrNoConfig
	}
	st, err := in.FS.Stat(in.ConfigFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &FileError{Path: in.ConfigFile, What: "config file", Missing: true, Err: err}
		}
		return nil, &FileError{Path: in.ConfigFile, What: "config file", Err: err}
	}
	if st.IsDir() {
		return nil, &FileError{Path: in.ConfigFile, What: "config file", Err: errors.New("is a directory")}
	}
	schema := in.Schema
	if schema == nil {
		if in.Catalog != nil {
			schema, err = config.FromCatalog(in.Catalog)
		} else {
			schema, err = config.Default()
		}
		if err != nil {
			return nil, err
		}
	}
	set, err := config.Load(in.FS, schema, in.ConfigFile)
	if ve := (*config.ValidationError)(nil); errors.As(err, &ve) && set != nil {
		return set, err // Validate reports the fields and goes on
	}
	if err != nil {
		var fe *config.FormatError
		if errors.As(err, &fe) {
			return nil, &FileError{Path: in.ConfigFile, What: "config file", Err: err}
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, &FileError{Path: in.ConfigFile, What: "config file", Err: err}
		}
		return nil, err
	}
	return set, nil
}

// nonEmptyDAG returns the input's DAG, or ErrEmptyDAG when it has no nodes.
func (in Input) nonEmptyDAG() (*dag.PipelineDAG, error) {
	if in.DAG == nil || in.DAG.NodeCount() == 0 {
		return nil, ErrEmptyDAG
	}
	return in.DAG, nil
}

// stepCatalog returns the input's step catalog, else the default one.
func (in Input) stepCatalog() (*catalog.Catalog, error) {
	if in.Catalog != nil {
		return in.Catalog, nil
	}
	cat, err := catalog.Default()
	if err != nil {
		return nil, fmt.Errorf("load the step catalog: %w", err)
	}
	return cat, nil
}

// InvalidDAGError is returned when a DAG cannot be compiled for a reason
// other than a cycle: an edge from a node that is not declared, or a node
// in two gates' branches (Err is then the *dag.BranchConflictError).
type InvalidDAGError struct {
	Reason string
	Nodes  []catalog.NodeName
	Err    error // the cause, if any
}

// Unwrap returns the cause.
func (e *InvalidDAGError) Unwrap() error { return e.Err }

// Error implements the error interface.
func (e *InvalidDAGError) Error() string {
	return fmt.Sprintf("invalid DAG: %s: %s", e.Reason, strlist.Join(e.Nodes, ", "))
}

// Kind implements errkind.Kinded: InvalidInput.
func (e *InvalidDAGError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: the nodes at fault.
func (e *InvalidDAGError) Details() map[string]any { return map[string]any{"nodes": nonNil(e.Nodes)} }

// topoOrder returns the DAG's topological order or a *CycleError /
// *InvalidDAGError.
func topoOrder(d *dag.PipelineDAG) ([]catalog.NodeName, error) {
	order, err := d.TopologicalSort()
	if err == nil {
		return order, nil
	}
	if cycles, _ := d.Cycles(1); len(cycles) > 0 {
		return nil, &CycleError{Nodes: cycles[0]}
	}
	if und := d.UndeclaredEndpoints(); len(und) > 0 {
		return nil, &InvalidDAGError{Reason: "edges name nodes that are not declared", Nodes: und}
	}
	var se *dag.SortError
	if errors.As(err, &se) {
		return nil, &CycleError{Nodes: se.Unplaced, Err: err}
	}
	return nil, &CycleError{Err: err}
}

// newNodePlan turns a node's resolution into the builder's input.
func newNodePlan(cat *catalog.Catalog, r config.Resolution) (*nodePlan, error) {
	c := r.Config
	st, ok := cat.Step(c.StepType())
	if !ok {
		return nil, &UnknownStepError{Node: r.Node, StepType: c.StepType(), Reason: "not in the step catalog"}
	}
	if !HasBuilder(st.Verb) {
		return nil, &UnknownStepError{Node: r.Node, StepType: st.Type, Reason: fmt.Sprintf("no builder for SageMaker step type %q", st.Verb)}
	}
	jt := c.JobType()
	view := st.ForJobType(jt)
	suffix := ""
	if f := view.Patterns.NameSuffixField; f != "" {
		suffix = c.String(f)
	}
	vals := NewValues(c.Values, c.Derived)
	return &nodePlan{
		Node:       r.Node,
		ConfigKey:  c.Key,
		Step:       view,
		JobType:    jt,
		Name:       view.SageMakerName(jt, suffix),
		Values:     vals,
		Bound:      map[string]*Binding{},
		Confidence: r.Confidence,
		Method:     r.Method,
		Builder:    builderName(st.Verb),
	}, nil
}

// checkStepNames checks that step names are legal and unique.
func (pl *plan) checkStepNames() error {
	seen := map[catalog.SageMakerStepName]catalog.NodeName{}
	for _, n := range pl.order {
		np := pl.nodes[n]
		if !IsValidStepName(np.Name) {
			return &StepBuildError{Node: n, StepName: np.Name, Err: fmt.Errorf("step name %q is not a legal SageMaker step name (1-64 letters, digits, - and _)", np.Name)}
		}
		if other, dup := seen[np.Name]; dup {
			return &config.DuplicateStepNameError{Collisions: []config.StepNameCollision{{
				StepName: np.Name, Nodes: []catalog.NodeName{other, n},
				Keys: []catalog.ConfigKey{pl.nodes[other].ConfigKey, np.ConfigKey},
			}}}
		}
		seen[np.Name] = n
	}
	return nil
}

// resolveDeps binds each node's inputs to upstream outputs.
func (pl *plan) resolveDeps(ctx context.Context) error {
	res, err := deps.Resolve(ctx, pl.dag, func(node catalog.NodeName) (*catalog.Step, error) {
		if np, ok := pl.nodes[node]; ok {
			return np.Step, nil
		}
		return nil, fmt.Errorf("node %s has no config", node)
	})
	var ue *deps.UnresolvedError
	if err != nil && !errors.As(err, &ue) {
		return err
	}
	pl.unbound = map[catalog.NodeName][]deps.Unbound{}
	for _, c := range res.Consumers {
		np := pl.nodes[c.Node]
		for _, p := range c.Parents {
			np.Parents = append(np.Parents, pl.nodes[p].Name)
		}
		for _, b := range c.Bindings {
			prov := pl.nodes[b.Provider]
			np.Bound[b.Input] = pl.bindingFor(b.Input, prov, b.Output, b.PropertyPath, b.Score)
		}
		pl.unbound[c.Node] = c.Unbound
	}
	return nil
}

// bindingFor is the binding of an input to a provider's output: a Get of
// the output's property, or, for an output with uri_join (a tuning step's
// best model), Join("/", provider output path, Get, parts...).
func (pl *plan) bindingFor(input string, prov *nodePlan, output, propertyPath string, score float64) *Binding {
	var val any = StepProperty(prov.Name, propertyPath)
	if out, ok := prov.Step.Output(output); ok && len(out.URIJoin) > 0 {
		vals := []any{JoinOn("/", pl.prefix(), catalog.CanonicalToSnake(prov.Step.Type)), val}
		for _, s := range out.URIJoin {
			vals = append(vals, s)
		}
		val = JoinOn("/", vals...)
	}
	return &Binding{
		Input: input, Source: SourceDependency, Provider: prov.Node, ProviderStep: prov.Name,
		Output: output, Score: score, Reference: ExprString(val), Value: val,
	}
}

func (pl *plan) prefix() any { return Param(ParamExecutionS3Prefix) }

// baseDir is where relative code paths are resolved.
func (pl *plan) baseDir() string {
	if pl.in.BaseDir != "" {
		return pl.in.BaseDir
	}
	if pl.in.ConfigFile != "" {
		dir := filepath.Dir(pl.in.ConfigFile)
		switch filepath.Base(dir) {
		case "pipeline_config", "pipeline_configs":
			dir = filepath.Dir(dir)
		}
		return dir
	}
	return "."
}

// firstString reads a value of the first config (the one the pipeline
// name comes from).
func (pl *plan) firstString(field string) string {
	if pl.first == nil {
		return ""
	}
	return pl.first.String(field)
}

// region is the pipeline's AWS region: the compile's override (checked),
// else the first config's aws_region or region, else "" (a node that needs
// one then fails naming its region field).
func (pl *plan) region() (string, error) {
	if r := strings.TrimSpace(pl.in.Region); r != "" {
		if aws, ok := catalog.AWSRegion(r); ok {
			return aws, nil
		}
		return "", &RegionError{Region: r}
	}
	if pl.first == nil {
		return "", nil
	}
	r, err := NewValues(pl.first.Values, pl.first.Derived).awsRegion()
	if err != nil {
		return "", nil // the nodes report it, with their field
	}
	return r, nil
}

// overrideRegion is the region every node's images resolve in: the
// resolved override when the compile was given one, else "" (each node's
// own config decides).
func overrideRegion(given, resolved string) string {
	if strings.TrimSpace(given) == "" {
		return ""
	}
	return resolved
}

// pipelineName is the override, else the generated name of the first
// config's pipeline_name and pipeline_version.
func (pl *plan) pipelineName(override string) (string, error) {
	if override != "" {
		if err := ValidatePipelineName(override); err != nil {
			return "", err
		}
		return override, nil
	}
	base := pl.firstString("pipeline_name")
	if base == "" {
		return "", &InvalidPipelineNameError{Name: "", Reason: "the config has no pipeline_name (it derives from author, service_name, model_class and region); pass a pipeline name"}
	}
	name := GeneratePipelineName(base, pl.firstString("pipeline_version"))
	if err := ValidatePipelineName(name); err != nil {
		return "", err
	}
	return name, nil
}

// codeBase is the S3 prefix code is uploaded under.
func (pl *plan) codeBase() (string, error) {
	loc := pl.firstString("pipeline_s3_loc")
	if loc == "" {
		b := pl.firstString("bucket")
		if b == "" {
			return "", &StepBuildError{Node: pl.order[0], StepName: pl.nodes[pl.order[0]].Name, Field: "bucket",
				Err: errors.New("no S3 location for code: set bucket (pipeline_s3_loc derives from it)")}
		}
		loc = "s3://" + b + "/MODS/" + pl.firstString("pipeline_name")
	}
	if !strings.HasPrefix(loc, "s3://") {
		return "", &StepBuildError{Node: pl.order[0], StepName: pl.nodes[pl.order[0]].Name, Field: "pipeline_s3_loc",
			Err: fmt.Errorf("pipeline_s3_loc %q is not an s3:// URI", loc)}
	}
	return strings.TrimSuffix(loc, "/") + "/code", nil
}

// build builds every step in topological order and fails on the first
// problem (unbound required inputs are collected and reported together).
func (pl *plan) build(ctx context.Context, only map[catalog.NodeName]bool) (*Result, error) {
	res, nodeErrs, err := pl.assemble(ctx, only)
	if err != nil {
		return nil, err
	}
	var unbound []*UnboundInputError
	var firstErr error
	for _, n := range pl.order {
		e, ok := nodeErrs[n]
		if !ok {
			continue
		}
		var ub *UnboundInputError
		if errors.As(e, &ub) {
			unbound = append(unbound, ub)
		} else if firstErr == nil {
			firstErr = e
		}
	}
	if len(unbound) > 0 {
		return nil, &UnboundInputsError{Inputs: unbound}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return res, nil
}

// assemble builds every step it can, in topological order. A step that
// fails is left out of the definition and its error is returned by node;
// err is a failure of the whole compile (name, code location, context).
func (pl *plan) assemble(ctx context.Context, only map[catalog.NodeName]bool) (res *Result, nodeErrs map[catalog.NodeName]error, err error) {
	name, err := pl.pipelineName(pl.in.PipelineName)
	if err != nil {
		return nil, nil, err
	}
	if pl.in.PipelineName == "" {
		pl.warnings = append(pl.warnings, fmt.Sprintf("pipeline name %s is the default, made from author, service_name, model_class, region and pipeline_version, not from the DAG: "+
			"every other DAG compiled with these values gets the same name, and deploying one replaces the other in SageMaker; pass pipeline_name to give this DAG a name of its own", name))
	}
	base, err := pl.codeBase()
	if err != nil {
		return nil, nil, err
	}
	region, err := pl.region()
	if err != nil {
		return nil, nil, err
	}
	images := pl.in.Images
	if images == nil {
		images = sagemaker.ImageURI
	}
	params, err := pl.parameters(strings.TrimSuffix(base, "/code"))
	if err != nil {
		return nil, nil, err
	}
	branches, err := pl.branches()
	if err != nil {
		return nil, nil, err
	}
	env := &buildEnv{
		prefix:        pl.prefix(),
		roleOverride:  pl.in.Role,
		region:        overrideRegion(pl.in.Region, region),
		baseDir:       pl.baseDir(),
		images:        images,
		artifacts:     newArtifactSet(pl.in.FS),
		fs:            pl.in.FS,
		params:        make(map[string]Parameter, len(params)),
		nodes:         pl.nodes,
		propertyFiles: map[catalog.SageMakerStepName][]PropertyFile{},
		failSteps:     map[catalog.SageMakerStepName]catalog.NodeName{},
		added:         map[catalog.SageMakerStepName][]Step{},
	}
	for _, p := range params {
		env.params[p.Name] = p // a config may refer to a default parameter too (VPC_SUBNET, ...)
	}
	env.artifacts.codeBase = base
	def := &Definition{
		Version:                  DefinitionVersion,
		Metadata:                 map[string]string{},
		Parameters:               params,
		PipelineExperimentConfig: DefaultExperimentConfig(),
		Steps:                    make([]Step, 0, len(pl.order)),
	}
	report := &Report{PipelineName: name, ConfigFile: pl.in.ConfigFile, DAGNodes: pl.dag.NodeCount(), DAGEdges: pl.dag.EdgeCount()}
	nodeErrs = map[catalog.NodeName]error{}
	var conf float64
	for i, n := range pl.order {
		if i%128 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		if only != nil && !only[n] {
			continue
		}
		np := pl.nodes[n]
		st, err := env.build(np)
		if err != nil {
			var ub *UnboundInputError
			if errors.As(err, &ub) {
				pl.explainUnbound(ub)
			}
			nodeErrs[n] = err
			continue
		}
		nr := pl.nodeReport(np, st)
		for _, a := range env.added[np.Name] {
			def.Steps = append(def.Steps, a)
			nr.AddedSteps = append(nr.AddedSteps, a.Name)
		}
		def.Steps = append(def.Steps, st)
		report.Nodes = append(report.Nodes, nr)
		conf += np.Confidence
	}
	if len(report.Nodes) > 0 {
		report.AvgConfidence = conf / float64(len(report.Nodes))
	}
	pl.nestBranches(env, def, branches, report)
	// The definition is encoded once, here: its steps, which say which
	// parameters it keeps, then the rest. The checks below read that
	// encoding, and Result.JSON returns it.
	var enc *encodedDefinition
	if steps, err := encodeSteps(def.Steps); err != nil {
		def.Parameters = env.usedParameters(def, nil)
		enc = &encodedDefinition{err: err}
	} else {
		def.Parameters = env.usedParameters(def, steps)
		enc = encodeWithSteps(def, steps)
	}
	parallel, err := pl.parallelism()
	var sb *StepBuildError
	if errors.As(err, &sb) && nodeErrs[sb.Node] == nil {
		nodeErrs[sb.Node] = err
	}
	role := pl.in.Role
	if role == "" {
		role = pl.firstString("role")
	}
	res = &Result{
		PipelineName: name,
		Role:         role,
		Description:  pl.firstString("pipeline_description"),
		Definition:   def,
		Manifest:     env.artifacts.manifest(),
		S3Location:   strings.TrimSuffix(base, "/code"),
		Report:       report,
		Warnings:     append(pl.warnings, env.warnings...),
		Parallelism:  parallel,
		Region:       region,
	}
	res.Warnings = append(res.Warnings, sharedDataWarnings(report, res.Manifest)...)
	res.Warnings = append(res.Warnings, cacheKeyWarnings(def, report, enc)...)
	res.Warnings = append(res.Warnings, weakBindingWarnings(report)...)
	res.Warnings = append(res.Warnings, rolePermissionWarnings(pl)...)
	rin := pl.readinessInput(res)
	rin.enc = enc
	res.Blockers = CheckReadiness(rin)
	res.Confirm = CheckConfirm(rin)
	if enc.err == nil {
		res.encoded, res.encodedFrom = enc.json, def
	}
	return res, nodeErrs, nil
}

// readinessInput is what CheckReadiness needs of the plan: the configs
// the DAG's nodes use, their steps and the result.
func (pl *plan) readinessInput(res *Result) ReadinessInput {
	in := ReadinessInput{Configs: pl.set, Nodes: map[catalog.ConfigKey]catalog.NodeName{}, Steps: map[catalog.ConfigKey]*catalog.Step{}, Result: res, FS: pl.in.FS, DAG: pl.dag}
	for _, n := range pl.dag.Nodes() {
		if np, ok := pl.nodes[n]; ok {
			if _, dup := in.Nodes[np.ConfigKey]; !dup {
				in.Nodes[np.ConfigKey] = n
			}
			in.Steps[np.ConfigKey] = np.Step
		}
	}
	return in
}

// explainUnbound adds the resolver's best rejected candidate to an
// unbound-input error.
func (pl *plan) explainUnbound(ub *UnboundInputError) {
	for _, u := range pl.unbound[ub.Node] {
		if u.Input != ub.Input {
			continue
		}
		ub.Detail = u.Why()
		if u.Best != nil {
			ub.Candidate = string(u.Best.Provider) + "." + u.Best.Output
			ub.Score = u.Best.Score
		}
	}
}

func (pl *plan) nodeReport(np *nodePlan, st Step) NodeReport {
	r := NodeReport{
		Node: np.Node, ConfigKey: np.ConfigKey, StepType: np.Step.Type, JobType: np.JobType,
		StepName: np.Name, Verb: np.Step.Verb, Builder: np.Builder,
		Confidence: np.Confidence, Method: np.Method, Inputs: []*Binding{}, DependsOn: st.DependsOn,
	}
	if c, ok := pl.set.Config(np.ConfigKey); ok {
		r.ConfigClass = c.Class.Name
	}
	if r.DependsOn == nil {
		r.DependsOn = []catalog.SageMakerStepName{}
	}
	for _, port := range np.Step.Inputs {
		if b, ok := np.Bound[port.LogicalName]; ok {
			r.Inputs = append(r.Inputs, b)
			continue
		}
		reason := "no upstream step provides it"
		for _, u := range pl.unbound[np.Node] {
			if u.Input == port.LogicalName {
				reason = u.Why()
			}
		}
		r.Unbound = append(r.Unbound, Unbound{Input: port.LogicalName, Required: port.Required, Reason: reason})
	}
	return r
}

// sharedDataWarnings warn of one data set read for two job types (a
// training and a calibration loader given the same S3 URI): the other
// split then holds rows the model was trained on, so its metrics and its
// calibration look better than they are. What the compiler uploads (code,
// a spec file written from the config) is not data and is left out.
func sharedDataWarnings(r *Report, uploaded Manifest) []string {
	up := map[string]bool{}
	for _, a := range uploaded {
		up[a.S3URI] = true
	}
	readers := map[string][]NodeReport{}
	var uris []string
	for _, n := range r.Nodes {
		for _, b := range n.Inputs {
			if b == nil || b.Source != SourceConfig || !strings.HasPrefix(b.Reference, "s3://") || up[b.Reference] {
				continue
			}
			if readers[b.Reference] == nil {
				uris = append(uris, b.Reference)
			}
			readers[b.Reference] = append(readers[b.Reference], n)
		}
	}
	var out []string
	for _, uri := range uris {
		ns := readers[uri]
		jobTypes := map[string]bool{}
		var names []string
		for _, n := range ns {
			jobTypes[n.JobType] = true
			names = append(names, fmt.Sprintf("%s (%s)", n.Node, firstNonEmpty(n.JobType, "no job type")))
		}
		if len(jobTypes) > 1 && jobTypes["training"] {
			out = append(out, fmt.Sprintf("%s read the same data, %s: the rows the model trains on are also the rows it is evaluated or calibrated on, so those results look better than they are; give the other splits held-out data", strings.Join(names, " and "), uri))
		}
	}
	return out
}

// rolePermissionWarnings name, per step whose contract lists them, the
// permissions the job role needs beyond SageMaker's own (a Bedrock step's
// bedrock:InvokeModel, a batch job's iam:PassRole): the compile cannot see
// the role's policies, so it says what to check before the first run.
func rolePermissionWarnings(pl *plan) []string {
	var out []string
	for _, n := range pl.order {
		p := pl.nodes[n]
		if p == nil || len(p.Step.Contract.Permissions) == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("step %s: the job role (config field role) needs %s", p.Name, strings.Join(p.Step.Contract.Permissions, "; ")))
	}
	return out
}
