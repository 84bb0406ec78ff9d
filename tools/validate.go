package tools

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/deps"
	"github.com/cursus-go/cursus/engine/localrun"
	"github.com/cursus-go/cursus/engine/validation"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/internal/strlist"
	"github.com/cursus-go/cursus/registry"
)

// ValidateNamespace returns the validate namespace: its description and tools, built anew
// on each call (DefaultNamespaces lists it).
func ValidateNamespace() registry.Namespace {
	return mergeNamespaces(namespace("validate", validateNamespaceDescription,
		registry.New("validate.step_interface", registry.Spec{
			Description: "Validates step files (*.step.yaml), one or all: schema and invariant problems by file and field, registry parity, the job-type view. Blocking errors fail with validation_failed.",
			When:        "you wrote or changed a step file",
			Examples: []string{
				`validate.step_interface {"step_name": "TabularPreprocessing"}  # one embedded step`,
				`validate.step_interface {"all": true}  # every step file`,
				`validate.step_interface {"step_name": "DemoFeatureEngineering", "workspace_dirs": ["projects/demo_xgboost/steps"], "job_type": "training"}  # a project's custom step`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhaseValidator},
		}, validateStepInterface),
		registry.New("validate.alignment", registry.Spec{
			Description: "Alignment report over all or the given steps: script <-> contract, contract <-> ports, ports <-> resolvable dependencies, builder <-> config fields; pass rates per step, level and SageMaker step type.",
			When:        "after authoring steps or scripts",
			Examples: []string{
				`validate.alignment {}  # every catalog step`,
				`validate.alignment {"target_scripts": ["tabular_preprocessing", "XGBoostTraining"]}  # a subset, with detailed results`,
				`validate.alignment {"workspace_dirs": ["projects/demo_xgboost/steps"], "script_dirs": ["projects/demo_xgboost/scripts"]}  # a project's steps and scripts`,
			},
			Tags: []string{registry.PhaseValidator},
		}, validateAlignment),
		registry.New("validate.step", registry.Spec{
			Description: "Every alignment level of one step, with each level's status and issues (severity, category, message, recommendation) and the overall status.",
			When:        "validate.alignment flagged a step",
			Examples: []string{
				`validate.step {"step_name": "XGBoostTraining"}`,
				`validate.step {"step_name": "DemoFeatureEngineering", "workspace_dirs": ["projects/demo_xgboost/steps"]}  # scripts found next to the workspace`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhaseValidator},
		}, validateStep),
		registry.New("validate.builder", registry.Spec{
			Description: "Builds one step's definition fragment from a default config, checks it against the step's ports, environment and job arguments, and scores it 0-100 with a rating.",
			When:        "you authored or changed a step",
			Examples: []string{
				`validate.builder {"step_name": "TabularPreprocessing"}`,
				`validate.builder {"step_name": "XGBoostTraining", "enable_scoring": false}  # tests only`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhaseValidator},
		}, validateBuilder),
		registry.New("validate.info", registry.Spec{
			Description: "What the validation tools check: alignment levels, severities, resolver threshold, builder score weights, script testing.",
			When:        "to learn what validation checks here",
			Examples:    []string{`validate.info {}`},
			Tags:        []string{registry.PhaseValidator},
		}, validateInfo),
		registry.New("validate.run_scripts", registry.Spec{
			Description: "Runs a DAG's step scripts locally in topological order, in a fresh run directory under test_workspace_dir, with the runner of execution.run_local: each node's container root is mounted at /opt/ml in a bubblewrap sandbox (no network), each node's inputs are copied from the outputs bound to them by dependency resolution (input_data feeds the rest), environment variables and job arguments come from the config, a training script runs as the SageMaker training toolkit starts it. Reports per script success, output files, error message and time, and the sandbox used; a failed node skips its dependants. Unlike execution.run_local it needs no compilable DAG.",
			When:        "the scripts exist and you want to see the pipeline's data flow run end to end on small data before compiling",
			Examples: []string{
				`validate.run_scripts {"dag": {"nodes": ["DummyDataLoading_training", "TabularPreprocessing_training"], "edges": [["DummyDataLoading_training", "TabularPreprocessing_training"]]}, "config_file": "pipeline_config/config.json", "input_data": {"DummyDataLoading_training": {"INPUT_DATA": "data/sample.csv"}}}`,
				`validate.run_scripts {"dag_file": "pipeline_config/dag.json", "config_file": "pipeline_config/config.json", "use_dependency_resolution": false, "test_workspace_dir": "tmp/script_runs"}`,
			},
			Tags:     []string{registry.PhaseValidator},
			ExecCode: true,
			Writes:   true,
			Network:  true,
		}, validateRunScripts),
	), validateDepsNamespace())
}

// --- shared helpers ---

// vldCatalogScripts loads the catalog with workspace_dirs, then resolves
// script_dirs; both must be existing directories (existingDirs). It is how
// the validate.* and author.* tools that look for step scripts start.
func vldCatalogScripts(ctx context.Context, workspaceDirs, scriptDirs []string) (*catalog.Catalog, []string, error) {
	resolved, err := existingDirs(ctx, "workspace_dirs", workspaceDirs)
	if err != nil {
		return nil, nil, err
	}
	cat, err := loadCatalog(ctx, resolved)
	if err != nil {
		return nil, nil, err
	}
	sdirs, err := existingDirs(ctx, "script_dirs", scriptDirs)
	if err != nil {
		return nil, nil, err
	}
	return cat, sdirs, nil
}

// vldTarget is the one step a validate.* or author.* tool checks, with the
// catalog it was found in and the resolved script directories.
type vldTarget struct {
	cat        *catalog.Catalog
	scriptDirs []string
	step       *catalog.Step
	jobType    string // the job type the step's name carries
}

// vldLoadStep loads the catalog and script directories
// (vldCatalogScripts) and finds step_name in that catalog (vldStep).
func vldLoadStep(ctx context.Context, workspaceDirs, scriptDirs []string, stepName string) (*vldTarget, error) {
	cat, sdirs, err := vldCatalogScripts(ctx, workspaceDirs, scriptDirs)
	if err != nil {
		return nil, err
	}
	st, jt, err := vldStep(cat, stepName)
	if err != nil {
		return nil, err
	}
	return &vldTarget{cat: cat, scriptDirs: sdirs, step: st, jobType: jt}, nil
}

// vldStep finds a step by canonical, file-style or node name.
func vldStep(cat *catalog.Catalog, name string) (*catalog.Step, string, error) {
	return lookupStep(name, func(n string) (*catalog.Step, string, error) { return validation.LookupStep(cat, n) })
}

// --- validate.step_interface ---

type stepInterfaceArgs struct {
	StepName      string   `json:"step_name,omitempty" jsonschema_description:"Step to validate (node and file-style names resolve). Omit with all: true."`
	All           bool     `json:"all,omitempty" jsonschema_description:"Validate every step file (embedded and workspace)."`
	JobType       string   `json:"job_type,omitempty" jsonschema_description:"Also validate this job type's view (variant applied)."`
	WorkspaceDirs []string `json:"workspace_dirs,omitempty" jsonschema_description:"Directories of extra *.step.yaml files (relative paths are taken from the project root); a workspace step adds a step type or replaces an embedded one."`
}

func validateStepInterface(ctx context.Context, a stepInterfaceArgs) (*envelope.Result[ValidateStepInterfaceData], error) {
	name := strings.TrimSpace(a.StepName)
	if name == "" && !a.All {
		return nil, envelope.InvalidInput("give step_name (a non-empty string) or all: true").
			WithDetails("step_name", a.StepName, "all", a.All).
			WithRemedy("name one step, or pass all: true", "catalog.list_steps")
	}
	dirs, err := existingDirs(ctx, "workspace_dirs", a.WorkspaceDirs)
	if err != nil {
		return nil, err
	}
	rep, err := validation.CheckInterfaces(validation.InterfaceOptions{StepName: name, All: a.All, JobType: a.JobType, WorkspaceDirs: dirs, FS: safefs.From(ctx)})
	if err != nil {
		return nil, envelope.InvalidInput("cannot validate step interfaces: %v", err).WithDetails("workspace_dirs", a.WorkspaceDirs)
	}
	if rep.Blocking() {
		var bad []string
		for _, r := range rep.Results {
			if !r.OK {
				bad = append(bad, r.Step)
			}
		}
		return nil, envelope.Errorf(envelope.CodeValidationFailed, "step interface validation failed: %d error(s) in %s", rep.Errors, strings.Join(bad, ", ")).
			WithDetails("validated", rep.Validated, "errors", rep.Errors, "warnings", rep.Warnings, "results", rep.Results).
			WithRemedy("fix each error in meta.details.results (file and field are named); check the step's routing and config fields, and how its ports score against providers",
				"strategies.for_step_type", "catalog.config_fields", "validate.deps_explain", "catalog.search")
	}
	res := envelope.Success(*rep).WithNextSteps(envelope.NextStep{Tool: "validate.alignment", When: "the step files are valid",
		Why: "checks scripts, ports, dependencies and builder fields of the steps", ArgsHint: vldHint(name, a.WorkspaceDirs)})
	if rep.Warnings > 0 {
		res.WithWarnings(fmt.Sprintf("%d non-blocking warning(s) in %d result(s); see results[].warnings", rep.Warnings, rep.Validated))
	}
	return res, nil
}

func vldHint(step string, ws []string) map[string]any {
	h := map[string]any{}
	if step != "" {
		h["target_scripts"] = []string{step}
	}
	if len(ws) > 0 {
		h["workspace_dirs"] = ws
	}
	return h
}

// --- validate.alignment ---

type alignmentArgs struct {
	TargetScripts []string `json:"target_scripts,omitempty" jsonschema_description:"Steps to check, by step name, script name or entry point; omitted: every step."`
	WorkspaceDirs []string `json:"workspace_dirs,omitempty" jsonschema_description:"Directories of extra *.step.yaml files; scripts are searched in each, its scripts/ and its sibling scripts/."`
	ScriptDirs    []string `json:"script_dirs,omitempty" jsonschema_description:"Directories searched first for step scripts (by entry point file name)."`
}

func validateAlignment(ctx context.Context, a alignmentArgs) (*envelope.Result[ValidateAlignmentData], error) {
	cat, sdirs, err := vldCatalogScripts(ctx, a.WorkspaceDirs, a.ScriptDirs)
	if err != nil {
		return nil, err
	}
	var targets []catalog.StepType
	for i, t := range a.TargetScripts {
		name := strings.TrimSpace(t)
		if name == "" {
			return nil, envelope.InvalidInput("target_scripts[%d] must be a non-empty string", i).WithDetails("index", i)
		}
		st, _, err := vldStep(cat, strings.TrimSuffix(name, ".py"))
		if err != nil {
			return nil, err
		}
		targets = append(targets, st.Type)
	}
	rep, err := validation.Align(ctx, validation.AlignOptions{Catalog: cat, Steps: targets, ScriptDirs: sdirs})
	if err != nil {
		return nil, err
	}
	data := ValidateAlignmentData{
		TotalSteps: rep.TotalSteps, PassedSteps: rep.PassedSteps, FailedSteps: rep.FailedSteps,
		ExcludedSteps: rep.ExcludedSteps, PassRate: rep.PassRate, StepTypeBreakdown: rep.StepTypeBreakdown,
		LevelSummary: rep.LevelSummary, CriticalIssues: nonNilList(rep.CriticalIssues), CriticalIssueCount: len(rep.CriticalIssues),
		ScriptsChecked: rep.ScriptsChecked, ScriptDirs: nonNilList(rep.ScriptDirs), Python: rep.Python,
	}
	if len(targets) == 0 {
		data.Scope = "all_steps"
		data.StepResults = map[string]ValidateStepSummary{}
		for _, s := range rep.Steps {
			lv := map[string]string{}
			for k, l := range s.Levels {
				lv[k] = l.Status
			}
			data.StepResults[s.StepName] = ValidateStepSummary{OverallStatus: s.OverallStatus, SageMakerStepType: s.SageMakerStepType, Levels: lv}
		}
	} else {
		data.Scope = "target_scripts"
		data.TargetScripts = a.TargetScripts
		data.DetailedResults = rep.Steps
	}
	res := envelope.Success(data)
	if len(targets) > 0 {
		res.WithMeta("tool_scope", "subset")
	}
	if !rep.Python.Available {
		res.WithWarnings("script <-> contract level skipped: " + rep.Python.Reason)
	}
	var failed []string
	for _, s := range rep.Steps {
		if !s.Passed() {
			failed = append(failed, s.StepName)
		}
	}
	res.WithVerdict(len(failed) == 0)
	if len(failed) > 0 {
		res.WithWarnings(fmt.Sprintf("%d step(s) fail alignment: %s", len(failed), strings.Join(failed, ", ")))
		res.WithNextSteps(envelope.NextStep{Tool: "validate.step", When: "to see every finding of a failing step", Why: "lists each level's issues with recommendations",
			ArgsHint: map[string]any{"step_name": failed[0], "workspace_dirs": nonNilList(a.WorkspaceDirs)}})
	} else {
		res.WithNextSteps(envelope.NextStep{Tool: "compile.validate", When: "the steps align", Why: "checks a DAG and its config resolve and build",
			ArgsHint: map[string]any{"dag_file": "<dag.json>", "config_file": "<config.json>"}})
	}
	return res, nil
}

// --- validate.step ---

type validateStepArgs struct {
	StepName      string   `json:"step_name" jsonschema:"required" jsonschema_description:"Step type, e.g. XGBoostTraining; a node name such as TabularPreprocessing_training or an alias also works."`
	WorkspaceDirs []string `json:"workspace_dirs,omitempty" jsonschema_description:"Directories of extra *.step.yaml files; scripts are searched in each, its scripts/ and its sibling scripts/."`
	ScriptDirs    []string `json:"script_dirs,omitempty" jsonschema_description:"Directories searched first for the step's script."`
}

func validateStep(ctx context.Context, a validateStepArgs) (*envelope.Result[ValidateStepData], error) {
	tg, err := vldLoadStep(ctx, a.WorkspaceDirs, a.ScriptDirs, a.StepName)
	if err != nil {
		return nil, err
	}
	rep, err := validation.Align(ctx, validation.AlignOptions{Catalog: tg.cat, Steps: []catalog.StepType{tg.step.Type}, ScriptDirs: tg.scriptDirs})
	if err != nil {
		return nil, err
	}
	s := rep.Steps[0]
	res := envelope.Success(*s).WithMeta("step_name", s.StepName)
	if !s.Passed() {
		n := len(validation.Blocking(s.Issues()))
		res.WithWarnings(fmt.Sprintf("%s fails alignment with %d blocking issue(s)", s.StepName, n))
		res.WithNextSteps(envelope.NextStep{Tool: "author.check_script", When: "level 1 failed", Why: "shows the script/contract mismatches in both directions",
			ArgsHint: map[string]any{"step_name": s.StepName}})
	} else {
		res.WithNextSteps(envelope.NextStep{Tool: "validate.builder", When: "the step aligns", Why: "builds and scores the step's definition fragment",
			ArgsHint: map[string]any{"step_name": s.StepName}})
	}
	return res, nil
}

// --- validate.builder ---

type builderArgs struct {
	StepName      string   `json:"step_name" jsonschema:"required" jsonschema_description:"Step type, e.g. XGBoostTraining; a node name such as TabularPreprocessing_training or an alias also works."`
	EnableScoring *bool    `json:"enable_scoring,omitempty" jsonschema:"default=true" jsonschema_description:"Score the components into a 0-100 score with a rating."`
	JobType       string   `json:"job_type,omitempty" jsonschema_description:"Job type of the default config (default: the step's first declared job type)."`
	WorkspaceDirs []string `json:"workspace_dirs,omitempty" jsonschema_description:"Directories of extra *.step.yaml files (relative paths are taken from the project root); a workspace step adds a step type or replaces an embedded one."`
}

func validateBuilder(ctx context.Context, a builderArgs) (*envelope.Result[ValidateBuilderData], error) {
	tg, err := vldLoadStep(ctx, a.WorkspaceDirs, nil, a.StepName)
	if err != nil {
		return nil, err
	}
	jt := tg.jobType
	if strings.TrimSpace(a.JobType) != "" {
		jt = strings.TrimSpace(a.JobType)
	}
	scoring := a.EnableScoring == nil || *a.EnableScoring
	rep, err := validation.TestBuilder(ctx, tg.cat, tg.step, jt, scoring)
	if err != nil {
		return nil, err
	}
	res := envelope.Success(*rep).WithMeta("step_name", rep.StepName)
	if !rep.Build.Built {
		res.WithWarnings("the step was not built from a default config: " + rep.Build.Error)
	}
	if len(rep.Build.Warnings) > 0 {
		res.WithWarnings(rep.Build.Warnings...)
	}
	if rep.Score != nil {
		res.WithMeta("score", rep.Score.Overall)
	}
	return res, nil
}

// --- validate.info ---

type validateInfoArgs struct{}

func validateInfo(_ context.Context, _ validateInfoArgs) (*envelope.Result[ValidateInfoData], error) {
	var levels []ValidateLevel
	for _, l := range []int{1, 2, 3, 4} {
		levels = append(levels, ValidateLevel{Level: l, ValidationType: validation.LevelNames[l], Description: validation.LevelDescriptions[l]})
	}
	rulesets := map[string][]int{}
	for _, v := range catalog.Verbs {
		rulesets[string(v)] = nonNilList(validation.EnabledLevels(v))
	}
	builders := []string{}
	for _, b := range compiler.Builders() {
		builders = append(builders, b.Name)
	}
	py := validation.Python()
	kind, why := localrun.DetectSandbox()
	data := ValidateInfoData{
		Validation: ValidateInfoChecks{
			Levels:            levels,
			Rulesets:          rulesets,
			Statuses:          []string{validation.StatusPassed, validation.StatusFailed, validation.StatusSkipped, validation.StatusNoScript},
			Severities:        []string{string(validation.SeverityCritical), string(validation.SeverityError), string(validation.SeverityWarning), string(validation.SeverityInfo)},
			Blocking:          []string{string(validation.SeverityCritical), string(validation.SeverityError)},
			ResolverThreshold: deps.Threshold,
			Builders:          builders,
			BuilderScore: ValidateBuilderScoring{
				Weights: map[string]float64{validation.ComponentAlignment: 2, validation.ComponentIntegration: 1.5, validation.ComponentCreation: 1},
				Ratings: []ValidateRating{{Min: 90, Rating: "Excellent"}, {Min: 80, Rating: "Good"}, {Min: 70, Rating: "Satisfactory"}, {Min: 60, Rating: "Needs Work"}, {Min: 0, Rating: "Poor"}},
			},
			StepInterface: "the catalog loader's schema and invariants, plus registry parity and job type",
		},
		ScriptTesting: ValidateScriptTesting{
			Python:           py,
			Analysis:         "python3 -c <analyzer> parses scripts with the ast module (string constants folded through os.path.join, +, f-strings; os.environ / os.getenv reads; argparse flags); nothing is executed",
			Execution:        "the local runner of execution.run_local: each node's container root is mounted at /opt/ml in a bubblewrap sandbox (an unprivileged user without capabilities, no network, only what a job needs of the host, read-only); where bwrap cannot run nothing runs (sandbox_unavailable) unless the operator sets " + localrun.EnvSandbox + "=unsandboxed; a processing script runs with its job arguments and environment, a training script as the SageMaker training toolkit starts it; inputs are copied from bound upstream outputs",
			Sandbox:          ValidateSandbox{Kind: sandboxKind(kind), Reason: why},
			GateEnvVar:       registry.EnvAllowScriptExec,
			DefaultWorkspace: "test/integration/script_testing",
			PackageInstall:   "none: scripts run with what python3 has (nothing is pip-installed)",
		},
	}
	res := envelope.Success(data)
	if !py.Available {
		res.WithWarnings("python3 is not available: script analysis and execution are skipped (" + py.Reason + ")")
	}
	switch kind {
	case "":
		res.WithWarnings("no sandbox can run scripts here, so execution.run_local and validate.run_scripts refuse with sandbox_unavailable: " + why + "; " + localrun.SandboxRemedy)
	case localrun.PathRewrite:
		res.WithWarnings(localrun.UnsandboxedNote)
	}
	return res, nil
}

// --- validate.run_scripts ---

type runScriptsArgs struct {
	dagArgs
	ConfigFile              string                       `json:"config_file" jsonschema:"required" jsonschema_description:"config.json with a config for every node (relative paths from the project root)."`
	ConfigPath              string                       `json:"config_path,omitempty" deprecated:"config_file"`
	TestWorkspaceDir        string                       `json:"test_workspace_dir,omitempty" jsonschema:"default=test/integration/script_testing" jsonschema_description:"Directory a fresh run-* directory is created in (confined to the project root)."`
	UseDependencyResolution *bool                        `json:"use_dependency_resolution,omitempty" jsonschema:"default=true" jsonschema_description:"Bind inputs to upstream outputs with the dependency resolver; false binds by equal logical names or aliases."`
	WorkspaceDirs           []string                     `json:"workspace_dirs,omitempty" jsonschema_description:"Directories of extra *.step.yaml files (custom steps of the DAG)."`
	ScriptDirs              []string                     `json:"script_dirs,omitempty" jsonschema_description:"Directories searched for entry points before the config's source directory."`
	InputData               map[string]map[string]string `json:"input_data,omitempty" jsonschema_description:"Local data for inputs nothing upstream feeds: {node: {logical_input: file or directory}}. Config-sourced inputs (Cradle's specs, Package's inference scripts) are mounted from the config as the compiler mounts them and need no entry."`
	TimeoutSeconds          int                          `json:"timeout_seconds,omitempty" jsonschema:"minimum=1,maximum=3600,default=300" jsonschema_description:"Time limit per script."`
}

func validateRunScripts(ctx context.Context, a runScriptsArgs) (*envelope.Result[ValidateRunScriptsData], error) {
	d, err := a.load(ctx)
	if err != nil {
		return nil, err
	}
	if u := d.UndeclaredEndpoints(); len(u) > 0 {
		return nil, envelope.InvalidInput("edge endpoint(s) not declared in nodes: %s", strlist.Join(u, ", ")).WithDetails("undeclared", u).
			WithRemedy("declare every edge endpoint in nodes", "dag.validate_integrity")
	}
	if _, err := d.TopologicalSort(); err != nil {
		return nil, envelope.InvalidInput("the DAG cannot be ordered: %v", err).WithRemedy("remove an edge of the cycle", "dag.validate_integrity")
	}
	if err := requireConfigPath("config_file", a.ConfigFile); err != nil {
		return nil, err
	}
	cfgPath, err := checkedConfigPath(ctx, "config_file", a.ConfigFile)
	if err != nil {
		return nil, err
	}
	py := validation.Python()
	if !py.Available {
		return nil, envelope.Errorf(envelope.CodeToolError, "cannot run scripts: %s", py.Reason).WithDetails("python", py).
			WithRemedy("install python3 or set "+validation.EnvPython+" to an interpreter; validate.info shows what was found", "validate.info")
	}
	cat, sdirs, err := vldCatalogScripts(ctx, a.WorkspaceDirs, a.ScriptDirs)
	if err != nil {
		return nil, err
	}
	wsArg := a.TestWorkspaceDir
	if strings.TrimSpace(wsArg) == "" {
		wsArg = "test/integration/script_testing"
	}
	ws, err := registry.ResolveWritePath(ctx, "test_workspace_dir", wsArg)
	if err != nil {
		return nil, err
	}
	input := map[catalog.NodeName]map[string]string{}
	for node, m := range a.InputData {
		n := catalog.NodeName(node)
		if !d.HasNode(n) {
			return nil, envelope.InvalidInput("input_data names node %q, which is not a node of the DAG", node).WithDetails("node", node, "nodes", d.Nodes())
		}
		input[n] = map[string]string{}
		for in, p := range m {
			if strings.TrimSpace(p) == "" {
				return nil, envelope.InvalidInput("input_data %s.%s: the path is blank", node, in).WithDetails("node", node, "input", in)
			}
			lp, err := safefs.From(ctx).Abs(p)
			if err != nil {
				return nil, registry.FileError("input_data."+node+"."+in, p, err)
			}
			if !safefs.From(ctx).Exists(lp) {
				return nil, envelope.NotFound("input_data %s.%s: %s does not exist", node, in, p).WithDetails("node", node, "input", in, "path", p)
			}
			input[n][in] = lp
		}
	}
	useDeps := a.UseDependencyResolution == nil || *a.UseDependencyResolution
	timeout := time.Duration(a.TimeoutSeconds) * time.Second
	rep, err := validation.RunScripts(ctx, validation.RunOptions{Catalog: cat, DAG: d, ConfigPath: cfgPath, Workspace: ws,
		UseDependencyResolution: useDeps, ScriptDirs: sdirs, InputData: input, Timeout: timeout})
	if err != nil {
		return nil, toolError(err)
	}
	res := envelope.Success(*rep).WithMeta("run_dir", rep.RunDir).WithMeta("sandbox", rep.Sandbox)
	if rep.Sandbox != string(localrun.Bubblewrap) {
		res.WithWarnings(rep.SandboxNote)
	}
	res.WithWarnings(rep.Warnings...)
	var bad []string
	for _, n := range rep.ExecutionOrder {
		r := rep.ScriptResults[n]
		if r.Status == validation.RunFailed || (r.Status == validation.RunSkipped && validation.HasScript(mustStep(cat, r.StepType))) {
			bad = append(bad, fmt.Sprintf("%s: %s", n, r.ErrorMessage))
		}
		for _, w := range r.Warnings {
			res.WithWarnings(fmt.Sprintf("%s: %s", n, w))
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		res.WithWarnings(fmt.Sprintf("%d of %d script(s) did not succeed: %s", len(bad), rep.TotalScripts, strings.Join(bad, "; ")))
		res.WithNextSteps(envelope.NextStep{Tool: "author.check_script", When: "a script failed", Why: "checks the script against its contract"})
	} else {
		res.WithNextSteps(envelope.NextStep{Tool: "compile.validate", When: "every script ran", Why: "checks the DAG and config compile"})
	}
	return res, nil
}

func mustStep(cat *catalog.Catalog, t catalog.StepType) *catalog.Step {
	if s, ok := cat.Step(t); ok {
		return s
	}
	return &catalog.Step{}
}

// --- data (field order is the wire order) ---

// ValidateStepInterfaceData is the data of validate.step_interface: the
// steps validated, the error and warning counts and each step's result.
type ValidateStepInterfaceData = validation.InterfaceReport

// ValidateStepData is the data of validate.step: every alignment level of
// one step and its overall status.
type ValidateStepData = validation.StepAlignment

// ValidateBuilderData is the data of validate.builder: the dry build of the
// step from a default config, the tests by component and the score.
type ValidateBuilderData = validation.BuilderReport

// ValidateRunScriptsData is the data of validate.run_scripts: each
// script's outcome, the hand-overs of data between steps and the run's
// summary.
type ValidateRunScriptsData = validation.RunReport

// ValidateAlignmentData is the data of validate.alignment: pass counts and
// rates, by SageMaker step type and by level, the blocking issues, and per
// step its statuses (scope all_steps: step_results) or its full report
// (scope target_scripts: detailed_results).
type ValidateAlignmentData struct {
	TotalSteps         int                                  `json:"total_steps"`
	PassedSteps        int                                  `json:"passed_steps"`
	FailedSteps        int                                  `json:"failed_steps"`
	ExcludedSteps      int                                  `json:"excluded_steps"`
	PassRate           float64                              `json:"pass_rate"`
	StepTypeBreakdown  map[string]*validation.TypeBreakdown `json:"step_type_breakdown"`
	LevelSummary       map[string]*validation.LevelSummary  `json:"level_summary"`
	CriticalIssues     []validation.CriticalIssue           `json:"critical_issues"`
	CriticalIssueCount int                                  `json:"critical_issue_count"`
	ScriptsChecked     int                                  `json:"scripts_checked"`
	ScriptDirs         []string                             `json:"script_dirs"`
	Python             validation.PythonInfo                `json:"python"`
	// Scope is all_steps or target_scripts.
	Scope           string                         `json:"scope"`
	StepResults     map[string]ValidateStepSummary `json:"step_results,omitempty"`
	TargetScripts   []string                       `json:"target_scripts,omitempty"`
	DetailedResults []*validation.StepAlignment    `json:"detailed_results,omitempty"`
}

// ValidateStepSummary is one step of validate.alignment over every step:
// its overall status and each level's.
type ValidateStepSummary struct {
	OverallStatus     string            `json:"overall_status"`
	SageMakerStepType string            `json:"sagemaker_step_type"`
	Levels            map[string]string `json:"levels"`
}

// ValidateInfoData is the data of validate.info: what the validation tools
// check and how scripts are analysed and run here.
type ValidateInfoData struct {
	Validation    ValidateInfoChecks    `json:"validation"`
	ScriptTesting ValidateScriptTesting `json:"script_testing"`
}

// ValidateInfoChecks are the checks: the alignment levels and which verbs
// run them (rulesets), statuses, severities and the blocking ones, the
// resolver threshold, the builders and how builder tests are scored.
type ValidateInfoChecks struct {
	Levels            []ValidateLevel        `json:"levels"`
	Rulesets          map[string][]int       `json:"rulesets"`
	Statuses          []string               `json:"statuses"`
	Severities        []string               `json:"severities"`
	Blocking          []string               `json:"blocking"`
	ResolverThreshold float64                `json:"resolver_threshold"`
	Builders          []string               `json:"builders"`
	BuilderScore      ValidateBuilderScoring `json:"builder_score"`
	StepInterface     string                 `json:"step_interface"`
}

// ValidateLevel is one alignment level.
type ValidateLevel struct {
	Level          int    `json:"level"`
	ValidationType string `json:"validation_type"`
	Description    string `json:"description"`
}

// ValidateBuilderScoring is how validate.builder scores: the weight of each
// component and the rating from each minimum score.
type ValidateBuilderScoring struct {
	Weights map[string]float64 `json:"weights"`
	Ratings []ValidateRating   `json:"ratings"`
}

// ValidateRating is the rating of a score of at least Min.
type ValidateRating struct {
	Min    int    `json:"min"`
	Rating string `json:"rating"`
}

// ValidateScriptTesting is how scripts are analysed and run: the
// interpreter found, the sandbox, the variable that opens the gate.
type ValidateScriptTesting struct {
	Python           validation.PythonInfo `json:"python"`
	Analysis         string                `json:"analysis"`
	Execution        string                `json:"execution"`
	Sandbox          ValidateSandbox       `json:"sandbox"`
	GateEnvVar       string                `json:"gate_env_var"`
	DefaultWorkspace string                `json:"default_workspace"`
	PackageInstall   string                `json:"package_install"`
}

// ValidateSandbox is the local runner's sandbox here (bubblewrap;
// path-rewrite when the operator chose unsandboxed runs; none when no
// sandbox works and scripts do not run), and why it is not bubblewrap
// when it is not.
type ValidateSandbox struct {
	Kind   string `json:"kind"`
	Reason string `json:"reason,omitempty"`
}

// sandboxKind names a detected sandbox, "none" for none.
func sandboxKind(k localrun.Sandbox) string {
	if k == "" {
		return "none"
	}
	return string(k)
}
