package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/engine/deps"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

// validateNamespaceDescription is shared by every file that adds validate.*
// tools (the first non-empty description wins).
const validateNamespaceDescription = "Checks before compiling: dependency wiring between steps, step definitions, alignment and scripts."

// validateDepsNamespace is the part of the validate namespace in this file (no description: the
// namespace's constructor has it).
func validateDepsNamespace() registry.Namespace {
	return namespace("validate", validateNamespaceDescription,
		registry.New("validate.deps_resolve", registry.Spec{
			Description: "Resolves step dependencies with the compiler's resolver and reports, per step, which inputs bind to which upstream outputs (with scores), which stay unbound and why, and the overall resolution rate. Give a DAG (dag or dag_file) to resolve along its edges as compile does, or step_names to let every listed step feed every other one; omit both to use every catalog step.",
			When:        "you want to know whether a set of steps or a DAG wires up before compiling, or why an input stays unbound",
			Examples: []string{
				`validate.deps_resolve {"step_names": ["CradleDataLoading", "TabularPreprocessing", "XGBoostTraining"]}  # every listed step may feed every other`,
				`validate.deps_resolve {"dag": {"nodes": ["CradleDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining"], "edges": [["CradleDataLoading_training", "TabularPreprocessing_training"], ["TabularPreprocessing_training", "XGBoostTraining"]]}}  # along the DAG's edges`,
				`validate.deps_resolve {"dag_file": "projects/demo_xgboost/pipeline_config/dag.json", "workspace_dirs": ["projects/demo_xgboost/steps"]}  # with a project's own step files`,
			},
			Tags: []string{registry.PhaseValidator},
		}, validateDepsResolve),
		registry.New("validate.deps_explain", registry.Spec{
			Description: "Explains the semantic similarity of two names the way the dependency resolver scores them: the overall score and its string, token, synonym and substring parts. With consumer_step and provider_step, name1 is the consumer's input and name2 the provider's output, and the full six-component compatibility score of that pair is added; workspace_dirs adds a project's own step files, so its steps can be scored too.",
			When:        "a dependency match looks wrong or is missing and you want to see why two port names score as they do",
			Examples: []string{
				`validate.deps_explain {"name1": "input_path", "name2": "processed_data"}  # 0.2`,
				`validate.deps_explain {"name1": "input_path", "name2": "processed_data", "consumer_step": "XGBoostTraining", "provider_step": "TabularPreprocessing_training"}  # compatibility 0.8125 with components`,
			},
			Tags: []string{registry.PhaseValidator},
		}, validateDepsExplain),
	)
}

type depsResolveArgs struct {
	StepNames []string `json:"step_names,omitempty" jsonschema_description:"Step types (or node names such as TabularPreprocessing_training) that may feed each other. Omit, with no DAG, to use every catalog step."`
	catalogWorkspace
	DAG     dagObject `json:"dag,omitempty" jsonschema_description:"Pipeline DAG, inline: {\"nodes\": [...], \"edges\": [[src, dst], ...]} or the serialized form {\"dag\": {...}}. Resolves along its edges."`
	DAGFile string    `json:"dag_file,omitempty" jsonschema_description:"Path to a DAG JSON file; resolves along its edges."`
}

type depsExplainArgs struct {
	Name1        string `json:"name1" jsonschema:"required" jsonschema_description:"First name (the consumer's input when consumer_step is given)."`
	Name2        string `json:"name2" jsonschema:"required" jsonschema_description:"Second name (the provider's output, or one of its aliases, when provider_step is given)."`
	ConsumerStep string `json:"consumer_step,omitempty" jsonschema_description:"Step type or node name (XGBoostTraining, TabularPreprocessing_calibration) whose input is name1. Give with provider_step."`
	ProviderStep string `json:"provider_step,omitempty" jsonschema_description:"Step type or node name whose output is name2. Give with consumer_step."`
	catalogWorkspace
}

// depsStepReport is one step of validate.deps_resolve's report.
type depsStepReport struct {
	StepType             catalog.StepType  `json:"step_type"`
	JobType              string            `json:"job_type,omitempty"`
	TotalDependencies    int               `json:"total_dependencies"`
	RequiredDependencies int               `json:"required_dependencies"`
	OptionalDependencies int               `json:"optional_dependencies"`
	Outputs              int               `json:"outputs"`
	ResolvedDependencies map[string]string `json:"resolved_dependencies"` // input -> "Provider.output"
	UnresolvedDeps       []string          `json:"unresolved_dependencies"`
	Bindings             []deps.Binding    `json:"bindings"`
	Unbound              []deps.Unbound    `json:"unbound"`
	Providers            []string          `json:"providers"`
	Error                string            `json:"error,omitempty"`
}

func validateDepsResolve(ctx context.Context, a depsResolveArgs) (*envelope.ToolResult, error) {
	useDAG := dagGiven(a.DAG, a.DAGFile)
	if useDAG && len(a.StepNames) > 0 {
		return nil, envelope.InvalidInput("give step_names or a DAG (dag / dag_file), not both")
	}
	cat, err := loadCatalog(ctx, a.WorkspaceDirs)
	if err != nil {
		return nil, err
	}
	var (
		requested []string
		names     []string // registered, in order
		steps     = map[string]*catalog.Step{}
		jobTypes  = map[string]string{}
		missing   []string
		warnings  []string
		d         *dag.PipelineDAG
		mode      = "steps"
	)
	if useDAG {
		mode = "dag"
		if d, err = loadDAGArg(ctx, a.DAG, a.DAGFile); err != nil {
			return nil, err
		}
		warnings = append(warnings, dagWarnings(d)...)
		requested = d.Nodes()
		for _, n := range requested {
			t, jt, ok := cat.ResolveNode(catalog.NodeName(n))
			s, found := cat.Step(t)
			if !ok || !found {
				missing = append(missing, n)
				continue
			}
			names = append(names, n)
			steps[n], jobTypes[n] = s.ForJobType(jt), jt
		}
	} else {
		requested = a.StepNames
		if len(requested) == 0 {
			for _, t := range cat.Names() {
				requested = append(requested, string(t))
			}
		}
		seen := map[string]bool{}
		for _, n := range requested {
			if seen[n] {
				warnings = append(warnings, fmt.Sprintf("step %q listed more than once; used once", n))
				continue
			}
			seen[n] = true
			s, jt, err := cat.Lookup(n)
			if err != nil || strings.TrimSpace(n) == "" {
				missing = append(missing, n)
				continue
			}
			names = append(names, n)
			steps[n], jobTypes[n] = s.ForJobType(jt), jt
		}
	}
	if len(names) == 0 {
		return nil, envelope.NotFound("could not find a catalog step for any requested step").
			WithDetails("missing_specs", nonNilStrings(missing)).
			WithRemedy("use step types from the catalog (catalog.list_steps) or node names like TabularPreprocessing_training", "catalog.list_steps", "catalog.search")
	}
	if len(missing) > 0 {
		warnings = append(warnings, fmt.Sprintf("no step found for %d requested step(s): %s", len(missing), strings.Join(missing, ", ")))
	}

	r := deps.NewResolver()
	details := make(map[string]*depsStepReport, len(names))
	var withErrors []string
	total, resolved := 0, 0
	for i, n := range names {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		var parents []deps.Node
		if d != nil {
			for _, p := range d.DeclaredParents(n) {
				if s, ok := steps[p]; ok {
					parents = append(parents, deps.Node{Name: p, Step: s})
				}
			}
		} else {
			for _, p := range names {
				if p != n {
					parents = append(parents, deps.Node{Name: p, Step: steps[p]})
				}
			}
		}
		s := steps[n]
		c := r.ResolveConsumer(deps.Node{Name: n, Step: s}, parents)
		// Config-file inputs (Cradle's specs, ...) are the step's own request,
		// not dependencies: the original passed them as env vars.
		stepDeps := s.Dependencies()
		rep := &depsStepReport{
			StepType: s.Type, JobType: jobTypes[n], TotalDependencies: len(stepDeps), Outputs: len(s.Outputs),
			ResolvedDependencies: map[string]string{}, UnresolvedDeps: []string{},
			Bindings: c.Bindings, Unbound: c.Unbound, Providers: c.Parents,
		}
		for _, in := range stepDeps {
			if in.Required {
				rep.RequiredDependencies++
			}
		}
		rep.OptionalDependencies = rep.TotalDependencies - rep.RequiredDependencies
		for _, b := range c.Bindings {
			rep.ResolvedDependencies[b.Input] = b.Provider + "." + b.Output
		}
		var msgs []string
		for _, u := range c.Unbound {
			if u.Missing() {
				rep.UnresolvedDeps = append(rep.UnresolvedDeps, u.Input)
				msgs = append(msgs, fmt.Sprintf("'%s' (%s)", u.Input, u.Why()))
			}
		}
		if len(msgs) > 0 {
			rep.Error = fmt.Sprintf("Step '%s' has unresolved required dependencies: %s", n, strings.Join(msgs, "; "))
			withErrors = append(withErrors, n)
		}
		total += rep.TotalDependencies
		resolved += len(c.Bindings)
		details[n] = rep
	}
	rate := 0.0
	if total > 0 {
		rate = float64(resolved) / float64(total)
	}
	report := map[string]any{
		"total_steps":             len(requested),
		"registered_steps":        len(names),
		"step_details":            details,
		"unresolved_dependencies": nonNilStrings(withErrors),
		"resolution_summary": map[string]any{
			"total_dependencies":    total,
			"resolved_dependencies": resolved,
			"resolution_rate":       rate,
			"steps_with_errors":     len(withErrors),
		},
		"resolution_threshold": deps.Threshold,
	}
	res := envelope.OK(map[string]any{
		"mode":             mode,
		"requested_steps":  nonNilStrings(requested),
		"registered_steps": names,
		"missing_specs":    nonNilStrings(missing),
		"report":           report,
	}).WithWarnings(warnings...)
	if len(withErrors) > 0 {
		first := details[withErrors[0]]
		hint := map[string]any{"name1": first.UnresolvedDeps[0]}
		for _, u := range first.Unbound {
			if u.Input == first.UnresolvedDeps[0] && u.Best != nil {
				hint["name2"] = u.Best.Output
				hint["consumer_step"] = withErrors[0]
				hint["provider_step"] = u.Best.Provider
			}
		}
		if _, ok := hint["name2"]; ok {
			res = res.WithNextSteps(envelope.NextStep{Tool: "validate.deps_explain", When: "to see why an input did not bind",
				Why: "shows each component of the best candidate's score", ArgsHint: hint})
		}
	}
	return res, nil
}

func validateDepsExplain(ctx context.Context, a depsExplainArgs) (*envelope.ToolResult, error) {
	if strings.TrimSpace(a.Name1) == "" {
		return nil, envelope.InvalidInput("'name1' must be a non-empty string")
	}
	if strings.TrimSpace(a.Name2) == "" {
		return nil, envelope.InvalidInput("'name2' must be a non-empty string")
	}
	e := deps.ExplainSimilarity(a.Name1, a.Name2)
	data := map[string]any{
		"overall_score":        e.OverallScore,
		"normalized_names":     e.NormalizedNames,
		"string_similarity":    e.StringSimilarity,
		"token_similarity":     e.TokenSimilarity,
		"semantic_similarity":  e.SemanticSimilarity,
		"substring_similarity": e.SubstringSimilarity,
	}
	res := envelope.OK(data).WithMeta("name1", a.Name1).WithMeta("name2", a.Name2)
	if a.ConsumerStep == "" && a.ProviderStep == "" {
		return res, nil
	}
	if a.ConsumerStep == "" || a.ProviderStep == "" {
		return nil, envelope.InvalidInput("give consumer_step and provider_step together (or neither)")
	}
	cat, err := loadCatalog(ctx, a.WorkspaceDirs)
	if err != nil {
		return nil, err
	}
	consumer, cjt, err := depsLookupStep(cat, a.ConsumerStep, "consumer_step")
	if err != nil {
		return nil, err
	}
	provider, pjt, err := depsLookupStep(cat, a.ProviderStep, "provider_step")
	if err != nil {
		return nil, err
	}
	in, ok := consumer.Input(a.Name1)
	if !ok {
		return nil, envelope.NotFound("%s has no input '%s'", consumer.Type, a.Name1).
			WithDetails("available_inputs", depsPortNames(consumer, true)).
			WithRemedy("name1 must be one of the consumer's inputs (details.available_inputs)", "steps.io")
	}
	out, ok := provider.OutputByAlias(a.Name2)
	if !ok {
		return nil, envelope.NotFound("%s has no output '%s'", provider.Type, a.Name2).
			WithDetails("available_outputs", depsPortNames(provider, false)).
			WithRemedy("name2 must be one of the provider's outputs or aliases (details.available_outputs)", "steps.io")
	}
	c := deps.Explain(in, out, provider)
	data["compatibility"] = map[string]any{
		"consumer_step":       consumer.Type,
		"consumer_job_type":   cjt,
		"input":               in.LogicalName,
		"provider_step":       provider.Type,
		"provider_job_type":   pjt,
		"output":              out.LogicalName,
		"score":               c.Score,
		"viable":              c.Viable,
		"threshold":           c.Threshold,
		"types_compatible":    c.TypesCompatible,
		"components":          c.Components,
		"name_similarity":     c.NameSimilarity,
		"matched_name":        c.MatchedName,
		"provider_in_sources": c.ProviderInSources,
		"keywords_matched":    c.KeywordsMatched,
		"input_type":          in.Type,
		"output_type":         out.Type,
	}
	return res, nil
}

func depsLookupStep(cat *catalog.Catalog, name, field string) (*catalog.Step, string, error) {
	s, jt, err := cat.Lookup(name)
	if err != nil {
		var nf *catalog.NotFoundError
		e := envelope.NotFound("%s: unknown step %q", field, name).WithDetails(field, name)
		if errors.As(err, &nf) {
			e = e.WithDetails("suggestions", asStrings(nf.Suggestions))
		}
		return nil, "", e.WithRemedy("use a step type from the catalog", "catalog.search", "catalog.list_steps")
	}
	return s.ForJobType(jt), jt, nil
}

func depsPortNames(s *catalog.Step, inputs bool) []string {
	var out []string
	if inputs {
		for _, p := range s.Inputs {
			out = append(out, p.LogicalName)
		}
	} else {
		for _, p := range s.Outputs {
			out = append(out, p.LogicalName)
		}
	}
	return nonNilStrings(out)
}
