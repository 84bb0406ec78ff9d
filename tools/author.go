package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/engine/author"
	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/validation"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
)

// AuthorNamespace returns the author namespace: its description and tools, built anew
// on each call (DefaultNamespaces lists it).
func AuthorNamespace() registry.Namespace {
	return mergeNamespaces(namespace("author", "Step-authoring guardrails: rules, the checklist for a new step type, config constraints, and the preflight gates a new step must pass before it compiles.",
		registry.New("author.rules", registry.Spec{
			Description: "The authoring rules of one topic, read from the live catalog, compiler and resolver.",
			When:        "before writing or changing a step file",
			Examples: []string{
				`author.rules {"topic": "naming"}`,
				`author.rules {"topic": "closure"}  # what makes a step resolvable and buildable`,
			},
			Tags: []string{registry.PhaseValidator},
		}, authorRules),
		registry.New("author.checklist", registry.Spec{
			Description: "The ordered procedure to add a step type for a SageMaker step type (author.scaffold_step writes the step file and script); each step names the tool to call and its arguments.",
			When:        "you need a new step type",
			Examples: []string{
				`author.checklist {"sagemaker_step_type": "Processing"}`,
				`author.checklist {"sagemaker_step_type": "Processing", "step_assembly": "step_args"}`,
				`author.checklist {"sagemaker_step_type": "Training"}`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhasePlanner},
		}, authorChecklist),
		registry.New("author.config_constraints", registry.Spec{
			Description: "A step's config fields with type, tier, default and legal values (allowed values, bounds, pattern); derived and required fields are listed apart.",
			When:        "before writing a step's config values",
			Examples:    []string{`author.config_constraints {"step_name": "TabularPreprocessing"}`},
			Tags:        []string{registry.PhaseValidator},
		}, authorConfigConstraints),
		registry.New("author.preflight_config", registry.Spec{
			Description: "Checks config values against a step's config class (unknown, derived or mistyped fields, bad values, missing essentials); fails with config_invalid naming each field.",
			When:        "before config.merge_save writes a step's config values",
			Examples: []string{
				`author.preflight_config {"step_name": "TabularPreprocessing", "values": {"job_type": "training", "label_name": "is_fraud", "output_format": "CSV"}, "partial": true}`,
				`author.preflight_config {"step_name": "XGBoostTraining", "values": {"training_instance_type": "ml.m5.4xlarge"}}  # also reports missing essentials`,
			},
			Tags: []string{registry.PhaseValidator},
		}, authorPreflightConfig),
		registry.New("author.check_script", registry.Spec{
			Description: "Checks a step's script against its contract both ways (python3 ast): container paths, environment variables, argparse flags, input and output keys. Fails with script_check_failed.",
			When:        "you wrote or changed a step's script or its contract",
			Examples: []string{
				`author.check_script {"step_name": "DemoFeatureEngineering", "workspace_dirs": ["projects/demo_xgboost/steps"]}`,
				`author.check_script {"step_name": "TabularPreprocessing", "script_path": "scripts/tabular_preprocessing.py"}`,
			},
			Tags: []string{registry.PhaseValidator},
		}, authorCheckScript),
		registry.New("author.preflight_step", registry.Spec{
			Description: "Offline proof that a step (or all) can be built: step file valid, names round-trip, builder builds a default config, every required input has a provider. Fails with not_constructible naming the gate.",
			When:        "before a new or changed step goes in a DAG",
			Examples: []string{
				`author.preflight_step {"step_name": "TabularPreprocessing"}`,
				`author.preflight_step {"step_name": "DemoFeatureEngineering", "workspace_dirs": ["projects/demo_xgboost/steps"]}`,
				`author.preflight_step {"all": true}`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhaseValidator},
		}, authorPreflightStep),
	), authorScaffoldNamespace())
}

// --- author.rules ---

type rulesArgs struct {
	Topic string `json:"topic" jsonschema:"required,enum=naming,enum=packaging,enum=sdk_carveout,enum=reuse_class,enum=closure"`
}

func authorRules(ctx context.Context, a rulesArgs) (*envelope.Result[AuthorRulesData], error) {
	cat, err := loadCatalog(ctx, nil)
	if err != nil {
		return nil, err
	}
	rules, err := author.Rules(cat, a.Topic)
	if err != nil {
		return nil, toolError(err)
	}
	return envelope.Success(AuthorRulesData{Topic: a.Topic, Rules: rules}), nil
}

// --- author.checklist ---

type checklistArgs struct {
	SageMakerStepType string `json:"sagemaker_step_type" jsonschema:"required" jsonschema_description:"SageMaker step type of the new step: Processing, Training, CreateModel, Transform, RegisterModel or Tuning."`
	StepAssembly      string `json:"step_assembly,omitempty" jsonschema_description:"Processing only: code (default) or step_args."`
}

// legacyStepTypes maps cursus (Python)'s SageMaker step types that are not
// verbs here to the verb the engine models them with ("" = none).
var legacyStepTypes = map[string]string{
	"CradleDataLoading": "Processing", "RedshiftDataLoading": "Processing", "MimsModelRegistrationProcessing": "RegisterModel",
	"Base": "", "Lambda": "", "Utility": "",
}

func authorChecklist(ctx context.Context, a checklistArgs) (*envelope.Result[AuthorChecklistData], error) {
	verb := strings.TrimSpace(a.SageMakerStepType)
	cat, err := loadCatalog(ctx, nil)
	if err != nil {
		return nil, err
	}
	var warn string
	if mapped, legacy := legacyStepTypes[verb]; legacy {
		if mapped == "" {
			return envelope.Success(AuthorChecklistData{SageMakerStepType: verb, Steps: []author.ChecklistStep{}}).
				WithWarnings(fmt.Sprintf("%s has no builder: the compiler cannot build such a step; choose one of %s", verb, strings.Join(asStrings(catalog.Verbs), ", "))), nil
		}
		warn = fmt.Sprintf("%s is not a SageMaker step type of this engine: such steps are %s steps here; the checklist is %s's", verb, mapped, mapped)
		verb = mapped
	}
	cl, err := author.NewChecklist(cat, verb, strings.TrimSpace(a.StepAssembly))
	if err != nil {
		return nil, toolError(err)
	}
	res := envelope.Success(AuthorChecklistData{SageMakerStepType: cl.SageMakerStepType, StepAssembly: cl.StepAssembly, Routable: cl.Routable,
		BoundHandler: cl.BoundHandler, ExemplarStep: optString(cl.ExemplarStep), Steps: nonNilList(cl.Steps)})
	if warn != "" {
		res.WithWarnings(warn)
	}
	if cl.Routable {
		res.WithNextSteps(envelope.NextStep{Tool: "strategies.for_step_type", When: "first step of the checklist", Why: "confirms the builder and its knobs",
			ArgsHint: map[string]any{"sagemaker_step_type": cl.SageMakerStepType}})
	}
	return res, nil
}

// --- author.config_constraints ---

type constraintsArgs struct {
	StepName      string   `json:"step_name" jsonschema:"required" jsonschema_description:"Step type, e.g. XGBoostTraining; a node name such as TabularPreprocessing_training or an alias also works."`
	WorkspaceDirs []string `json:"workspace_dirs,omitempty" jsonschema_description:"Directories of extra *.step.yaml files (relative paths are taken from the project root); a workspace step adds a step type or replaces an embedded one."`
}

func authorConfigConstraints(ctx context.Context, a constraintsArgs) (*envelope.Result[AuthorConfigConstraintsData], error) {
	st, schema, err := authorStepSchema(ctx, a.WorkspaceDirs, a.StepName)
	if err != nil {
		return nil, err
	}
	c, err := author.ConfigConstraints(schema, st)
	if err != nil {
		return nil, toolError(err)
	}
	return envelope.Success(*c).WithMeta("step_name", c.StepName).
		WithNextSteps(envelope.NextStep{Tool: "author.preflight_config", When: "you have values for the step", Why: "checks them against these constraints",
			ArgsHint: map[string]any{"step_name": c.StepName, "values": map[string]any{}}}), nil
}

// authorStepSchema finds step_name in the catalog of workspace_dirs
// (vldLoadStep) and returns it with that catalog's config schema, which the
// author.* config tools check values against.
func authorStepSchema(ctx context.Context, workspaceDirs []string, stepName string) (*catalog.Step, *config.Schema, error) {
	tg, err := vldLoadStep(ctx, workspaceDirs, nil, stepName)
	if err != nil {
		return nil, nil, err
	}
	schema, err := config.FromCatalog(tg.cat)
	if err != nil {
		return nil, nil, err
	}
	return tg.step, schema, nil
}

// --- author.preflight_config ---

type preflightConfigArgs struct {
	StepName      string         `json:"step_name" jsonschema:"required" jsonschema_description:"Step type, e.g. XGBoostTraining; a node name such as TabularPreprocessing_training or an alias also works."`
	Values        map[string]any `json:"values" jsonschema:"required" jsonschema_description:"Field values: {field: value}."`
	Partial       bool           `json:"partial,omitempty" jsonschema_description:"Check only the given values (do not report missing essential fields)."`
	WorkspaceDirs []string       `json:"workspace_dirs,omitempty" jsonschema_description:"Directories of extra *.step.yaml files (relative paths are taken from the project root); a workspace step adds a step type or replaces an embedded one."`
}

func authorPreflightConfig(ctx context.Context, a preflightConfigArgs) (*envelope.Result[AuthorPreflightConfigData], error) {
	if a.Values == nil {
		return nil, envelope.InvalidInput("values must be a JSON object of field values")
	}
	st, schema, err := authorStepSchema(ctx, a.WorkspaceDirs, a.StepName)
	if err != nil {
		return nil, err
	}
	class, probs, err := author.PreflightConfig(schema, st, a.Values, a.Partial)
	if err != nil {
		return nil, toolError(err)
	}
	if len(probs) > 0 {
		fields := make([]string, len(probs))
		for i, p := range probs {
			fields[i] = p.Field
		}
		return nil, envelope.Errorf(envelope.CodeConfigInvalid, "%d invalid config value(s) for %s: %s", len(probs), class, strings.Join(fields, ", ")).
			WithDetails("step_name", string(st.Type), "config_class", class, "valid", false, "errors", probs).
			WithRemedy("fix each field in meta.details.errors (allowed values are listed); author.config_constraints shows every field", "author.config_constraints")
	}
	return envelope.Success(AuthorPreflightConfigData{StepName: string(st.Type), ConfigClass: class, Valid: true, Partial: a.Partial}).
		WithNextSteps(envelope.NextStep{Tool: "author.preflight_step", When: "the values are valid", Why: "checks the step itself can be built",
			ArgsHint: map[string]any{"step_name": string(st.Type)}}), nil
}

// --- author.check_script ---

type checkScriptArgs struct {
	StepName      string   `json:"step_name" jsonschema:"required" jsonschema_description:"Step type, e.g. XGBoostTraining; a node name such as TabularPreprocessing_training or an alias also works."`
	ScriptPath    string   `json:"script_path,omitempty" jsonschema_description:"Default: the step's entry point, searched in script_dirs and by workspace_dirs."`
	WorkspaceDirs []string `json:"workspace_dirs,omitempty" jsonschema_description:"Directories of extra *.step.yaml files; scripts are searched in each, its scripts/ and its sibling scripts/."`
	ScriptDirs    []string `json:"script_dirs,omitempty" jsonschema_description:"Directories searched first for the script."`
}

func authorCheckScript(ctx context.Context, a checkScriptArgs) (*envelope.Result[AuthorCheckScriptData], error) {
	tg, err := vldLoadStep(ctx, a.WorkspaceDirs, a.ScriptDirs, a.StepName)
	if err != nil {
		return nil, err
	}
	st := tg.step
	script := ""
	if strings.TrimSpace(a.ScriptPath) != "" {
		if script, err = checkedFile(ctx, "script_path", a.ScriptPath, safefs.KindScript,
			"check the path, or omit script_path to search the script directories", "steps.io"); err != nil {
			return nil, err
		}
	}
	res, err := validation.CheckScript(ctx, st, script, validation.ScriptDirs(tg.cat, tg.scriptDirs...))
	if err != nil {
		return nil, toolError(err)
	}
	if !res.Passed {
		n := len(validation.Blocking(res.Issues))
		return nil, envelope.Errorf(envelope.CodeScriptCheckFailed, "%s's script %s disagrees with its contract: %d blocking issue(s)", res.StepName, res.Script, n).
			WithDetailsMap(map[string]any{"step_name": res.StepName, "status": res.Status, "sagemaker_step_type": res.SageMakerStepType,
				"script": res.Script, "passed": false, "issues": res.Issues}).
			WithRemedy("make the script read exactly the declared paths, env vars and arguments, or change the contract (steps.io shows it)", "steps.io", "author.config_constraints")
	}
	out := envelope.Success(*res)
	if res.Status == validation.ScriptSkipped {
		out.WithWarnings("skipped: " + res.Reason)
	}
	return out, nil
}

// --- author.preflight_step ---

type preflightStepArgs struct {
	StepName      string   `json:"step_name,omitempty" jsonschema_description:"Step to check (omit with all: true)."`
	All           bool     `json:"all,omitempty" jsonschema_description:"Check every step."`
	JobType       string   `json:"job_type,omitempty" jsonschema_description:"Job type of the checks (variant and default config)."`
	WorkspaceDirs []string `json:"workspace_dirs,omitempty" jsonschema_description:"Directories of extra *.step.yaml files (relative paths are taken from the project root); a workspace step adds a step type or replaces an embedded one."`
}

func authorPreflightStep(ctx context.Context, a preflightStepArgs) (*envelope.Result[AuthorPreflightStepData], error) {
	if strings.TrimSpace(a.StepName) == "" && !a.All {
		return nil, envelope.InvalidInput("give step_name (a non-empty string) or all: true").WithDetails("step_name", a.StepName)
	}
	dirs, err := existingDirs(ctx, "workspace_dirs", a.WorkspaceDirs)
	if err != nil {
		return nil, err
	}
	pf, err := author.PreflightStep(ctx, author.PreflightOptions{StepName: a.StepName, All: a.All, JobType: a.JobType, WorkspaceDirs: dirs})
	if err != nil {
		return nil, toolError(err)
	}
	if !pf.Constructible {
		return nil, envelope.Errorf(envelope.CodeNotConstructible, "%s is not constructible: gate(s) %s failed", pf.Scope, strings.Join(pf.FailedGates, ", ")).
			WithDetailsMap(map[string]any{"step_name": pf.StepName, "scope": pf.Scope, "constructible": false, "failed_gates": pf.FailedGates, "gates": pf.Gates}).
			WithRemedy("fix the first failing gate: interface and parity errors name the file and field; routability names the config field the builder rejects; ports name the input without a provider",
				"validate.step_interface", "strategies.for_step_type", "author.rules", "validate.alignment")
	}
	return envelope.Success(*pf).WithNextSteps(envelope.NextStep{Tool: "compile.validate", When: "the step is constructible", Why: "use it in a DAG and check the pipeline compiles",
		ArgsHint: map[string]any{"dag_file": "<dag.json>", "config_file": "<config.json>"}}), nil
}

// --- data (field order is the wire order) ---

// AuthorRulesData is the data of author.rules: the rule set of one topic,
// read from the live catalog, compiler and resolver constants (its keys
// differ by topic).
type AuthorRulesData struct {
	Topic string         `json:"topic"`
	Rules map[string]any `json:"rules"`
}

// AuthorChecklistData is the data of author.checklist: whether the
// SageMaker step type routes to a builder (and which), the exemplar step
// to study (null when the catalog has none) and the ordered steps, each
// with the tool to call and its arguments.
type AuthorChecklistData struct {
	SageMakerStepType string                 `json:"sagemaker_step_type"`
	StepAssembly      string                 `json:"step_assembly,omitempty"`
	Routable          bool                   `json:"routable"`
	BoundHandler      *compiler.BuilderInfo  `json:"bound_handler"`
	ExemplarStep      *string                `json:"exemplar_step"`
	Steps             []author.ChecklistStep `json:"steps"`
}

// AuthorConfigConstraintsData is the data of author.config_constraints: a
// step's input and derived fields, the required ones without a default and
// the constrained ones.
type AuthorConfigConstraintsData = author.Constraints

// AuthorPreflightConfigData is the data of author.preflight_config when the
// values are valid (invalid ones fail with config_invalid).
type AuthorPreflightConfigData struct {
	StepName    string `json:"step_name"`
	ConfigClass string `json:"config_class"`
	Valid       bool   `json:"valid"`
	// Partial: only the given values were checked.
	Partial bool `json:"partial"`
}

// AuthorCheckScriptData is the data of author.check_script: the script
// checked (or why it was skipped) and its issues.
type AuthorCheckScriptData = validation.ScriptCheck

// AuthorPreflightStepData is the data of author.preflight_step: each gate
// and whether the step (or every step) is constructible.
type AuthorPreflightStepData = author.Preflight
