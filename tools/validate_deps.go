package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/deps"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/strlist"
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
			Description: "Resolves step dependencies as the compiler does: per step, which inputs bind to which outputs (with scores), which stay unbound and why; along a DAG, among step_names, or over every step.",
			When:        "to check steps or a DAG wire up, or why an input is unbound",
			Examples: []string{
				`validate.deps_resolve {"step_names": ["CradleDataLoading", "TabularPreprocessing", "XGBoostTraining"]}  # every listed step may feed every other`,
				`validate.deps_resolve {"dag": {"nodes": ["TabularPreprocessing_training", "XGBoostTraining"], "edges": [["TabularPreprocessing_training", "XGBoostTraining"]]}}  # along the DAG's edges`,
				`validate.deps_resolve {"dag_file": "projects/demo_xgboost/pipeline_config/dag.json", "workspace_dirs": ["projects/demo_xgboost/steps"]}  # with a project's own step files`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhaseValidator},
		}, validateDepsResolve),
		registry.New("validate.deps_explain", registry.Spec{
			Description: "Scores two names as the dependency resolver does (string, token, synonym, substring parts); with consumer_step and provider_step, the full compatibility score of that input and output.",
			When:        "a dependency match looks wrong or is missing",
			Examples: []string{
				`validate.deps_explain {"name1": "input_path", "name2": "processed_data"}  # 0.2`,
				`validate.deps_explain {"name1": "input_path", "name2": "processed_data", "consumer_step": "XGBoostTraining", "provider_step": "TabularPreprocessing_training"}  # compatibility 0.8125 with components`,
			},
			Tags: []string{registry.PhaseValidator},
		}, validateDepsExplain),
	)
}

type depsResolveArgs struct {
	StepNames []string `json:"step_names,omitempty" jsonschema_description:"Step types or node names that may feed each other; omitted with no DAG: every catalog step."`
	catalogWorkspace
	DAG     dagObject `json:"dag,omitempty" jsonschema_description:"The DAG inline: {\"nodes\": [...], \"edges\": [[src, dst], ...]} (or the serialized form {\"dag\": {...}}). Node order decides ties in the execution order; edge endpoints are not added to nodes, so a misspelled endpoint shows up as undeclared. Give this or dag_file, not both."`
	DAGFile string    `json:"dag_file,omitempty" jsonschema_description:"Path to a DAG JSON file (dag.serialize / pipeline-catalog format; relative paths are taken from the project root when one is set). Give this or dag, not both."`
	dagIDArg
}

type depsExplainArgs struct {
	Name1        string `json:"name1" jsonschema:"required" jsonschema_description:"First name (the consumer's input when consumer_step is given)."`
	Name2        string `json:"name2" jsonschema:"required" jsonschema_description:"Second name (the provider's output when provider_step is given)."`
	ConsumerStep string `json:"consumer_step,omitempty" jsonschema_description:"Step type or node name whose input is name1. Give with provider_step."`
	ProviderStep string `json:"provider_step,omitempty" jsonschema_description:"Step type or node name whose output is name2. Give with consumer_step."`
	catalogWorkspace
}

func validateDepsResolve(ctx context.Context, a depsResolveArgs) (*envelope.Result[ValidateDepsResolveData], error) {
	useDAG := dagGiven(a.DAG, a.DAGFile, a.DagID)
	if useDAG && len(a.StepNames) > 0 {
		return nil, envelope.InvalidInput("give step_names or a DAG (dag / dag_file), not both")
	}
	cat, err := loadCatalog(ctx, a.WorkspaceDirs)
	if err != nil {
		return nil, err
	}
	var (
		requested []catalog.NodeName
		members   deps.Members
		parentsOf func(catalog.NodeName) []catalog.NodeName
		warnings  []string
		mode      = "steps"
	)
	if useDAG {
		mode = "dag"
		d, err := loadDAGArg(ctx, a.DAG, a.DAGFile, a.DagID)
		if err != nil {
			return nil, err
		}
		warnings = append(warnings, dagWarnings(d)...)
		requested, members, parentsOf = d.Nodes(), deps.DAGMembers(cat, d), d.DeclaredParents
	} else {
		for _, n := range a.StepNames {
			requested = append(requested, catalog.NodeName(n))
		}
		if len(requested) == 0 {
			for _, t := range cat.Names() {
				requested = append(requested, catalog.NodeName(t))
			}
		}
		members = deps.StepMembers(cat, requested)
		parentsOf = deps.AllOthers(members.Found)
		for _, n := range members.Duplicates {
			warnings = append(warnings, fmt.Sprintf("step %q listed more than once; used once", n))
		}
	}
	missing := nonNilList(members.Missing)
	if len(members.Found) == 0 {
		return nil, envelope.NotFound("could not find a catalog step for any requested step").
			WithDetails("missing_specs", missing).
			WithRemedy("use step types from the catalog (catalog.list_steps) or node names like TabularPreprocessing_training", "catalog.list_steps", "catalog.search")
	}
	if len(missing) > 0 {
		warnings = append(warnings, fmt.Sprintf("no step found for %d requested step(s): %s", len(missing), strlist.Join(missing, ", ")))
	}
	rep, err := deps.NewResolver().ReportSet(ctx, members.Found, parentsOf)
	if err != nil {
		return nil, toolError(err)
	}
	names := make([]catalog.NodeName, len(members.Found))
	for i, m := range members.Found {
		names[i] = m.Name
	}
	for _, n := range requested {
		sr, ok := rep.Steps[n]
		if !ok {
			continue
		}
		for _, b := range sr.Bindings {
			if b.Score < deps.HighScore {
				warnings = append(warnings, fmt.Sprintf("%s.%s <- %s.%s binds at score %.3f, below the trusted %.1f: check it is the output meant (validate.deps_explain)", n, b.Input, b.Provider, b.Output, b.Score, deps.HighScore))
			}
		}
	}
	res := envelope.Success(ValidateDepsResolveData{
		Mode:            mode,
		RequestedSteps:  nonNilList(requested),
		RegisteredSteps: names,
		MissingSpecs:    missing,
		Report: DepsResolutionReport{
			TotalSteps:             len(requested),
			RegisteredSteps:        len(names),
			StepDetails:            rep.Steps,
			UnresolvedDependencies: nonNilList(rep.WithErrors),
			ResolutionSummary: DepsResolutionSummary{
				TotalDependencies:    rep.Total,
				ResolvedDependencies: rep.Resolved,
				ResolutionRate:       rep.Rate(),
				StepsWithErrors:      len(rep.WithErrors),
			},
			ResolutionThreshold: deps.Threshold,
		},
	}).WithWarnings(warnings...)
	if len(rep.WithErrors) > 0 {
		first := rep.Steps[rep.WithErrors[0]]
		hint := map[string]any{"name1": first.UnresolvedDeps[0]}
		for _, u := range first.Unbound {
			if u.Input == first.UnresolvedDeps[0] && u.Best != nil {
				hint["name2"] = u.Best.Output
				hint["consumer_step"] = rep.WithErrors[0]
				hint["provider_step"] = u.Best.Provider
			}
		}
		if _, ok := hint["name2"]; ok {
			res = res.WithNextSteps(envelope.NextStep{Tool: "validate.deps_explain", When: "to see why an input did not bind",
				Why: "shows each component of the best candidate's score", ArgsHint: withWorkspace(hint, a.WorkspaceDirs)})
		}
	}
	return res, nil
}

func validateDepsExplain(ctx context.Context, a depsExplainArgs) (*envelope.Result[ValidateDepsExplainData], error) {
	if strings.TrimSpace(a.Name1) == "" {
		return nil, envelope.InvalidInput("'name1' must be a non-empty string")
	}
	if strings.TrimSpace(a.Name2) == "" {
		return nil, envelope.InvalidInput("'name2' must be a non-empty string")
	}
	data := ValidateDepsExplainData{SimilarityExplanation: deps.ExplainSimilarity(a.Name1, a.Name2)}
	if a.ConsumerStep == "" && a.ProviderStep == "" {
		return envelope.Success(data).WithMeta("name1", a.Name1).WithMeta("name2", a.Name2), nil
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
	c.KeywordsMatched = nonNilList(c.KeywordsMatched)
	data.Compatibility = &DepsPairCompatibility{
		ConsumerStep:    consumer.Type,
		ConsumerJobType: cjt,
		Input:           in.LogicalName,
		ProviderStep:    provider.Type,
		ProviderJobType: pjt,
		Output:          out.LogicalName,
		Compatibility:   c,
		InputType:       in.Type,
		OutputType:      out.Type,
		InputRequired:   in.Required,
		StrongMatch:     deps.StrongMatch(in, out, provider),
	}
	return envelope.Success(data).WithMeta("name1", a.Name1).WithMeta("name2", a.Name2), nil
}

// depsLookupStep finds the step a field names (a not_found naming the
// field and the close matches when there is none).
func depsLookupStep(cat *catalog.Catalog, name, field string) (*catalog.Step, string, error) {
	s, jt, err := cat.Lookup(name)
	if err != nil {
		return nil, "", toolError(fmt.Errorf("%s: %w", field, err))
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
	return nonNilList(out)
}

// --- data (field order is the wire order) ---

// ValidateDepsResolveData is the data of validate.deps_resolve: how the
// set was given (mode dag or steps), the names asked for, those found in
// the catalog and those not (missing_specs), and the resolution report.
type ValidateDepsResolveData struct {
	Mode            string               `json:"mode"`
	RequestedSteps  []catalog.NodeName   `json:"requested_steps"`
	RegisteredSteps []catalog.NodeName   `json:"registered_steps"`
	MissingSpecs    []catalog.NodeName   `json:"missing_specs"`
	Report          DepsResolutionReport `json:"report"`
}

// DepsResolutionReport is the resolution of validate.deps_resolve's set:
// each step's bindings and unbound inputs, the steps with missing required
// inputs and the totals.
type DepsResolutionReport struct {
	TotalSteps      int                                   `json:"total_steps"`
	RegisteredSteps int                                   `json:"registered_steps"`
	StepDetails     map[catalog.NodeName]*deps.StepReport `json:"step_details"`
	// UnresolvedDependencies names the steps with missing required inputs.
	UnresolvedDependencies []catalog.NodeName    `json:"unresolved_dependencies"`
	ResolutionSummary      DepsResolutionSummary `json:"resolution_summary"`
	// ResolutionThreshold is the score a candidate must exceed to bind.
	ResolutionThreshold float64 `json:"resolution_threshold"`
}

// DepsResolutionSummary totals a resolution: dependencies, those bound,
// their share and the steps with missing required inputs.
type DepsResolutionSummary struct {
	TotalDependencies    int     `json:"total_dependencies"`
	ResolvedDependencies int     `json:"resolved_dependencies"`
	ResolutionRate       float64 `json:"resolution_rate"`
	StepsWithErrors      int     `json:"steps_with_errors"`
}

// ValidateDepsExplainData is the data of validate.deps_explain: the
// similarity of the two names and its parts, and with consumer_step and
// provider_step the compatibility of that input and output.
type ValidateDepsExplainData struct {
	deps.SimilarityExplanation
	Compatibility *DepsPairCompatibility `json:"compatibility,omitempty"`
}

// DepsPairCompatibility is the six-component compatibility score of one
// consumer input and one provider output, with the steps, job types and
// port types it was computed for.
type DepsPairCompatibility struct {
	ConsumerStep    catalog.StepType `json:"consumer_step"`
	ConsumerJobType string           `json:"consumer_job_type"`
	Input           string           `json:"input"`
	ProviderStep    catalog.StepType `json:"provider_step"`
	ProviderJobType string           `json:"provider_job_type"`
	Output          string           `json:"output"`
	deps.Compatibility
	InputType  catalog.DependencyType `json:"input_type"`
	OutputType catalog.DependencyType `json:"output_type"`
	// InputRequired says whether the input is required; an optional one
	// binds only on a strong match (StrongMatch: the input names the
	// output, declares its type, or its compatible_sources name the
	// provider and the names share a word).
	InputRequired bool `json:"input_required"`
	StrongMatch   bool `json:"strong_match"`
}
