package compiler

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/internal/lazyre"
)

// LowConfidence is the resolution confidence below which preview and
// validation recommend renaming a node.
const LowConfidence = 0.8

// ValidationResult is the outcome of Validate (is_valid, missing_configs,
// unresolvable_builders, config_errors, dependency_issues, warnings) plus
// the DAG's own problems. dependency_issues is filled: every required
// input of every step must be bound.
//
// Deployable is the readiness gate: true when the pipeline is valid and
// nothing would stop it on SageMaker. Blockers lists every problem, the
// errors behind is_valid included, each with its node, field, a fix and
// a tool (see Blocker).
type ValidationResult struct {
	IsValid    bool      `json:"is_valid"`
	Deployable bool      `json:"deployable"`
	Blockers   []Blocker `json:"blockers"`
	// Confirm lists example values (CheckConfirm): they block a deploy,
	// not a local run, and not Deployable.
	Confirm              []Blocker           `json:"confirm"`
	MissingConfigs       []catalog.NodeName  `json:"missing_configs"`
	UnresolvableBuilders []string            `json:"unresolvable_builders"`
	ConfigErrors         map[string][]string `json:"config_errors"`
	DependencyIssues     []string            `json:"dependency_issues"`
	DAGIssues            []string            `json:"dag_issues"`
	Warnings             []string            `json:"warnings"`
	Summary              string              `json:"summary"`
}

// addConfigError files msg under where: a config key, a node or "pipeline".
func (v *ValidationResult) addConfigError(where, msg string) {
	v.ConfigErrors[where] = append(v.ConfigErrors[where], msg)
}

// addNodeError files msg under a node.
func (v *ValidationResult) addNodeError(n catalog.NodeName, msg string) {
	v.addConfigError(string(n), msg)
}

// Validate checks, without failing on the first problem, that every node
// resolves to a config, a step type and a builder, that configs agree with
// node names, that every step can be built and that every required input
// of every step is bound. Only problems that prevent any check (the config
// file cannot be read, the DAG is empty) are returned as errors.
func Validate(ctx context.Context, in Input) (*ValidationResult, error) {
	set, err := loadConfigs(in)
	var badFields *config.ValidationError
	if err != nil && !(errors.As(err, &badFields) && set != nil) {
		return nil, err
	}
	d, err := in.nonEmptyDAG()
	if err != nil {
		return nil, err
	}
	cat, err := in.stepCatalog()
	if err != nil {
		return nil, err
	}
	v := &ValidationResult{MissingConfigs: []catalog.NodeName{}, UnresolvableBuilders: []string{}, ConfigErrors: map[string][]string{},
		DependencyIssues: []string{}, DAGIssues: []string{}, Warnings: []string{}}

	if badFields != nil {
		for _, fe := range badFields.Errors {
			key, _, _ := strings.Cut(fe.Path, ".")
			v.addConfigError(key, fe.String())
		}
		v.Blockers = append(v.Blockers, ErrorBlockers(badFields)...)
	}
	order, orderErr := topoOrder(d)
	if orderErr != nil {
		v.DAGIssues = append(v.DAGIssues, orderErr.Error())
		v.Blockers = append(v.Blockers, ErrorBlockers(orderErr)...)
	}
	pl := &plan{in: in, dag: d, order: order, set: set, cat: cat, nodes: map[catalog.NodeName]*nodePlan{}}
	var resolved []config.Resolution
	for _, n := range d.Nodes() {
		r, err := set.ResolveNode(n, config.ResolveOptions{FirstOnTie: in.FirstOnTie})
		if err != nil {
			v.MissingConfigs = append(v.MissingConfigs, n)
			var amb *config.AmbiguousNodeError
			if errors.As(err, &amb) {
				v.addNodeError(n, err.Error())
			}
			v.Blockers = append(v.Blockers, Blocker{Kind: BlockerMissingConfig, Node: n, Tool: "compile.preview",
				Problem: fmt.Sprintf("node %s resolves to no config: %v", n, err),
				Fix:     fmt.Sprintf("add a config with key %s (config.template writes one), or rename the node to a config key", n)})
			continue
		}
		resolved = append(resolved, r)
		if r.Confidence < LowConfidence {
			v.Warnings = append(v.Warnings, fmt.Sprintf("node %s resolved to config %s with low confidence %.2f (%s); consider renaming the node to the config key", n, r.Config.Key, r.Confidence, r.Method))
		}
		if t, _, ok := cat.ResolveNode(n); ok && t != r.Config.StepType() && r.Rule != config.RuleMetadata {
			msg := fmt.Sprintf("config-node mismatch: node %s names step type %s but resolved to config %s (%s, step type %s)", n, t, r.Config.Key, r.Config.Class.Name, r.Config.StepType())
			v.addNodeError(n, msg)
			v.Blockers = append(v.Blockers, Blocker{Kind: BlockerMissingConfig, Node: n, Tool: "compile.preview", Problem: msg,
				Fix: fmt.Sprintf("add a %s config with key %s, or map the node in metadata.config_types", t, n)})
		}
		np, err := newNodePlan(cat, r)
		if err != nil {
			v.UnresolvableBuilders = append(v.UnresolvableBuilders, fmt.Sprintf("%s (%s): %v", n, r.Config.StepType(), err))
			v.Blockers = append(v.Blockers, ErrorBlockers(err)...)
			continue
		}
		pl.nodes[n] = np
	}
	if cs := set.Configs(); len(cs) > 0 {
		pl.first = cs[0]
	}
	if err := checkDuplicates(resolved); err != nil {
		v.addConfigError("duplicate_step_names", err.Error())
		v.Blockers = append(v.Blockers, Blocker{Kind: BlockerBuildError, Field: "job_type", Tool: "compile.preview", Problem: err.Error(),
			Fix: "give the colliding configs different job types"})
	}
	complete := orderErr == nil && len(v.MissingConfigs) == 0 && len(v.UnresolvableBuilders) == 0
	if complete {
		if err := pl.checkStepNames(); err != nil {
			v.addConfigError("step_names", err.Error())
			v.Blockers = append(v.Blockers, ErrorBlockers(err)...)
			complete = false
		}
	}
	if complete {
		if _, err := pl.branches(); err != nil { // a node in two gates' branches
			v.DAGIssues = append(v.DAGIssues, err.Error())
			v.Blockers = append(v.Blockers, ErrorBlockers(err)...)
			complete = false
		}
	}
	var res *Result
	if complete {
		if err := pl.resolveDeps(ctx); err != nil {
			return nil, err
		}
		var nodeErrs map[catalog.NodeName]error
		res, nodeErrs, err = pl.assemble(ctx, nil)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			v.addConfigError("pipeline", err.Error())
			v.Blockers = append(v.Blockers, ErrorBlockers(err)...)
		} else {
			for _, n := range pl.order {
				e, ok := nodeErrs[n]
				if !ok {
					continue
				}
				var ub *UnboundInputError
				if errors.As(e, &ub) {
					v.DependencyIssues = append(v.DependencyIssues, e.Error())
				} else {
					v.addNodeError(n, e.Error())
				}
				v.Blockers = append(v.Blockers, ErrorBlockers(e)...)
			}
			v.Warnings = append(v.Warnings, res.Warnings...)
		}
	} else {
		v.Warnings = append(v.Warnings, "steps were not built and dependencies not checked: fix the DAG and config problems first")
	}
	if res != nil {
		v.Blockers = append(v.Blockers, res.Blockers...)
		v.Confirm = res.Confirm
	} else if set != nil {
		v.Blockers = append(v.Blockers, CheckReadiness(pl.readinessInput(nil))...)
		v.Confirm = CheckConfirm(pl.readinessInput(nil))
	}
	if v.Confirm == nil {
		v.Confirm = []Blocker{}
	}
	if v.Blockers == nil {
		v.Blockers = []Blocker{}
	}
	v.IsValid = len(v.MissingConfigs) == 0 && len(v.UnresolvableBuilders) == 0 && len(v.ConfigErrors) == 0 &&
		len(v.DependencyIssues) == 0 && len(v.DAGIssues) == 0
	v.Deployable = v.IsValid && len(v.Blockers) == 0
	switch {
	case v.Deployable:
		v.Summary = fmt.Sprintf("Validation passed: %d nodes resolve to configs and builders, every required input is bound, nothing blocks deployment", d.NodeCount())
	case v.IsValid:
		v.Summary = "Valid but not deployable: " + BlockerSummary(v.Blockers)
	default:
		var parts []string
		add := func(n int, what string) {
			if n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, what))
			}
		}
		add(len(v.DAGIssues), "DAG issues")
		add(len(v.MissingConfigs), "missing configs")
		add(len(v.UnresolvableBuilders), "unresolvable builders")
		add(len(v.ConfigErrors), "config errors")
		add(len(v.DependencyIssues), "dependency issues")
		v.Summary = "Validation failed: " + strings.Join(parts, ", ")
		if len(v.Blockers) > 0 {
			v.Summary += ": " + BlockerSummary(v.Blockers)
		}
	}
	return v, nil
}

func checkDuplicates(rs []config.Resolution) error {
	byName := map[catalog.SageMakerStepName][]catalog.NodeName{}
	var order []catalog.SageMakerStepName
	for _, r := range rs {
		n := r.Config.StepName()
		if _, ok := byName[n]; !ok {
			order = append(order, n)
		}
		byName[n] = append(byName[n], r.Node)
	}
	var parts []string
	for _, n := range order {
		if len(byName[n]) > 1 {
			parts = append(parts, fmt.Sprintf("nodes %v -> step name %s", byName[n], n))
		}
	}
	if len(parts) > 0 {
		return errors.New("duplicate step-name collision(s): " + strings.Join(parts, "; "))
	}
	return nil
}

// Preview is how each node would be compiled, without building anything.
type Preview struct {
	NodeConfigMap        map[catalog.NodeName]string                    `json:"node_config_map"`       // node -> config class, or "UNRESOLVED"
	NodeConfigKeys       map[catalog.NodeName]catalog.ConfigKey         `json:"node_config_keys"`      // node -> config key
	ConfigBuilderMap     map[string]string                              `json:"config_builder_map"`    // config class -> builder
	NodeStepNames        map[catalog.NodeName]catalog.SageMakerStepName `json:"node_step_names"`       // node -> SageMaker step name
	ResolutionConfidence map[catalog.NodeName]float64                   `json:"resolution_confidence"` // node -> confidence
	ResolutionMethods    map[catalog.NodeName]string                    `json:"resolution_methods"`    // node -> method
	AmbiguousResolutions []AmbiguousResolution                          `json:"ambiguous_resolutions"`
	Recommendations      []string                                       `json:"recommendations"`
	Unresolved           map[catalog.NodeName]string                    `json:"unresolved,omitempty"` // node -> why
	Candidates           map[catalog.NodeName][]Candidate               `json:"candidates,omitempty"` // node -> scored candidates (scored resolutions)
}

// AmbiguousResolution is a node whose best config candidates tie.
type AmbiguousResolution struct {
	Node       catalog.NodeName `json:"node"`
	Candidates []Candidate      `json:"candidates"`
}

// Candidate is one config a node could resolve to.
type Candidate struct {
	ConfigKey   catalog.ConfigKey `json:"config_key"`
	ConfigClass string            `json:"config_class"`
	Confidence  float64           `json:"confidence"`
	Method      string            `json:"method"`
}

func candidates(cs []config.Candidate) []Candidate {
	out := make([]Candidate, len(cs))
	for i, c := range cs {
		out[i] = Candidate{ConfigKey: c.Key, ConfigClass: c.Class, Confidence: c.Confidence, Method: c.Method}
	}
	return out
}

// PreviewResolution resolves every node to a config and a builder and
// reports confidence and recommendations. The config -> builder map names
// each config class's builder.
func PreviewResolution(ctx context.Context, in Input) (*Preview, error) {
	set, err := loadConfigs(in)
	if err != nil {
		return nil, err
	}
	d, err := in.nonEmptyDAG()
	if err != nil {
		return nil, err
	}
	cat, err := in.stepCatalog()
	if err != nil {
		return nil, err
	}
	p := &Preview{NodeConfigMap: map[catalog.NodeName]string{}, NodeConfigKeys: map[catalog.NodeName]catalog.ConfigKey{}, ConfigBuilderMap: map[string]string{},
		NodeStepNames: map[catalog.NodeName]catalog.SageMakerStepName{}, ResolutionConfidence: map[catalog.NodeName]float64{}, ResolutionMethods: map[catalog.NodeName]string{},
		AmbiguousResolutions: []AmbiguousResolution{}, Recommendations: []string{}, Unresolved: map[catalog.NodeName]string{}, Candidates: map[catalog.NodeName][]Candidate{}}
	for i, n := range d.Nodes() {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r, err := set.ResolveNode(n, config.ResolveOptions{FirstOnTie: in.FirstOnTie})
		if err != nil {
			p.NodeConfigMap[n] = "UNRESOLVED"
			p.Unresolved[n] = err.Error()
			var amb *config.AmbiguousNodeError
			if errors.As(err, &amb) {
				p.AmbiguousResolutions = append(p.AmbiguousResolutions, AmbiguousResolution{Node: n, Candidates: candidates(amb.Candidates)})
				p.Recommendations = append(p.Recommendations, fmt.Sprintf("Node %s matches several configs equally well; add a config key %s or map it in metadata.config_types", n, n))
			} else {
				p.Recommendations = append(p.Recommendations, fmt.Sprintf("Node %s has no config; add a config with key %s", n, n))
			}
			continue
		}
		cls := r.Config.Class.Name
		p.NodeConfigMap[n] = cls
		p.NodeConfigKeys[n] = r.Config.Key
		p.ResolutionConfidence[n] = r.Confidence
		p.ResolutionMethods[n] = r.Method
		if len(r.Candidates) > 0 {
			p.Candidates[n] = candidates(r.Candidates)
		}
		if np, err := newNodePlan(cat, r); err == nil {
			p.ConfigBuilderMap[cls] = np.Step.BuilderName
			if p.ConfigBuilderMap[cls] == "" {
				p.ConfigBuilderMap[cls] = np.Builder
			}
			p.NodeStepNames[n] = np.Name
		} else {
			p.ConfigBuilderMap[cls] = "UNKNOWN"
			p.Recommendations = append(p.Recommendations, fmt.Sprintf("Node %s: %v", n, err))
		}
		if r.Confidence < LowConfidence {
			p.Recommendations = append(p.Recommendations, fmt.Sprintf("Consider renaming node %s to %s: it resolved with low confidence %.2f (%s)", n, r.Config.Key, r.Confidence, r.Method))
		}
	}
	sort.SliceStable(p.AmbiguousResolutions, func(i, j int) bool { return p.AmbiguousResolutions[i].Node < p.AmbiguousResolutions[j].Node })
	return p, nil
}

var manualInputRE = lazyre.New(`^s3://[a-z0-9][a-z0-9\-.]{1,61}[a-z0-9]/.+$`)

// SingleNodeInput is a single-node compile: one config key built as a
// one-step pipeline whose inputs are given S3 URIs.
type SingleNodeInput struct {
	Input
	Target       string            // an exact config key (and a DAG node when a DAG is given)
	ManualInputs map[string]string // logical input -> s3:// URI
	// ValidateInputs checks each manual input against the S3 URI pattern.
	ValidateInputs bool
}

// CompileSingleNode builds the target's step alone: its inputs are the
// manual S3 URIs (and config-sourced inputs), it has no DependsOn, and its
// outputs go where they would in the whole pipeline. The pipeline is named
// "<target>-isolated" unless a name is given.
func CompileSingleNode(ctx context.Context, in SingleNodeInput) (*Result, error) {
	set, err := loadConfigs(in.Input)
	if err != nil {
		return nil, err
	}
	target := catalog.NodeName(in.Target)
	if in.DAG != nil && !in.DAG.HasNode(target) {
		return nil, &NodeNotFoundError{Node: in.Target, Available: in.DAG.Nodes()}
	}
	cfg, ok := set.Config(catalog.ConfigKey(in.Target))
	if !ok {
		keys := make([]catalog.NodeName, 0, set.Len())
		for _, k := range set.Keys() {
			keys = append(keys, catalog.NodeName(k))
		}
		return nil, &NodeNotFoundError{Node: in.Target, Available: keys}
	}
	cat, err := in.stepCatalog()
	if err != nil {
		return nil, err
	}
	np, err := newNodePlan(cat, config.Resolution{Node: target, Config: cfg, Confidence: 1, Method: config.MethodDirect, Rule: config.RuleExactKey})
	if err != nil {
		return nil, err
	}
	for _, k := range mapkeys.Sorted(in.ManualInputs) {
		uri := in.ManualInputs[k]
		if _, ok := np.Step.Input(k); !ok {
			names := make([]string, len(np.Step.Inputs))
			for i, p := range np.Step.Inputs {
				names[i] = p.LogicalName
			}
			return nil, &ManualInputError{Input: k, Value: uri, Reason: fmt.Sprintf("%s has no input %s (inputs: %s)", np.Step.Type, k, strings.Join(names, ", "))}
		}
		if in.ValidateInputs && !manualInputRE().MatchString(uri) {
			return nil, &ManualInputError{Input: k, Value: uri, Reason: "not an S3 URI of the form s3://<bucket>/<key>"}
		}
		np.Bound[k] = &Binding{Input: k, Source: SourceManual, Reference: uri, Value: uri}
	}
	one := dag.New([]catalog.NodeName{target}, nil)
	pl := &plan{in: in.Input, dag: one, order: []catalog.NodeName{target}, set: set, cat: cat, nodes: map[catalog.NodeName]*nodePlan{target: np}, first: cfg}
	if set.Len() > 0 {
		pl.first = set.Configs()[0]
	}
	if pl.in.PipelineName == "" {
		pl.in.PipelineName = IsolatedPipelineName(in.Target)
	}
	return pl.build(ctx, nil)
}
