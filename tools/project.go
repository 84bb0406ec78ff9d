package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/project"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

// ProjectNamespace returns the project namespace: its description and tools, built anew
// on each call (DefaultNamespaces lists it).
func ProjectNamespace() registry.Namespace {
	return namespace("project", "Project scaffolding: write a new pipeline project (custom step, scripts, DAG, config, ledger) and plan its bring-up from an empty folder to a compiled pipeline.",
		registry.New("project.init", registry.Spec{
			Description: "Scaffolds a new pipeline project into <target_dir>/<name>_<framework>/: a custom step file in steps/ (a workspace dir), script skeletons in scripts/ that match their contracts, pipeline_config/dag.json (the framework's default DAG), pipeline_config/config.json (from config.template plus placeholder-but-valid essential values), sample data, README.md and an ACTION_ITEMS.md ledger. The target must lie under the project root; everything is written to a temporary directory and renamed into place.",
			When:        "starting a new pipeline project from an empty folder",
			Examples: []string{
				`project.init {"name": "demo", "framework": "xgboost"}  # projects/demo_xgboost`,
				`project.init {"name": "fraud", "framework": "pytorch", "target_dir": "work", "overwrite": true}`,
			},
			Tags:        []string{registry.PhasePlanner},
			Destructive: true,
			Writes:      true,
		}, projectInit),
		registry.New("project.bring_up", registry.Spec{
			Description: "How to take an empty folder to a compiled pipeline: the `cursus workflow run new-project` command, the workflow.run call, and the tool plan behind it with each call's gate. Writes nothing.",
			When:        "planning a new project end to end",
			Examples: []string{
				`project.bring_up {"name": "demo", "framework": "xgboost"}`,
				`project.bring_up {"name": "demo", "framework": "lightgbm", "region": "EU", "dag_source": "manual"}`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhasePlanner},
		}, projectBringUp),
	)
}

type projectInitArgs struct {
	Name      string `json:"name" jsonschema:"required" jsonschema_description:"Project name: a bare name (letters, digits, _ and -, starting with a letter); the directory is <name>_<framework>."`
	Framework string `json:"framework" jsonschema:"required,enum=xgboost,enum=pytorch,enum=lightgbm" jsonschema_description:"Model framework of the project."`
	TargetDir string `json:"target_dir,omitempty" jsonschema:"default=projects" jsonschema_description:"Directory the project directory is created in, under the project root; no '..' components."`
	Overwrite bool   `json:"overwrite,omitempty" jsonschema:"default=false" jsonschema_description:"Replace an existing project directory."`
}

// projTarget applies the confinement rules: a bare name, no ".." in
// target_dir, the resolved target under the project root.
func projTarget(ctx context.Context, name, framework, targetDir string) (string, error) {
	name = strings.TrimSpace(name)
	if err := project.CheckName(name); err != nil {
		return "", envelope.InvalidInput("%v", err).WithDetails("got", name).
			WithRemedy("give a bare project name such as demo or fraud_v2")
	}
	td := strings.TrimSpace(targetDir)
	if td == "" {
		td = "projects"
	}
	for _, part := range strings.FieldsFunc(td, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return "", envelope.InvalidInput("target_dir must not contain '..' components").WithDetails("got", targetDir).
				WithRemedy("give a directory under the project root")
		}
	}
	return registry.ResolveWritePath(ctx, "target_dir", filepath.Join(td, project.DirName(name, strings.ToLower(strings.TrimSpace(framework)))))
}

// ProjectInitData is the data of project.init: what was written where
// (project.Result) and whether the project is ready for its first checks.
type ProjectInitData struct {
	project.Result
	Ready bool `json:"ready"`
}

func projectInit(ctx context.Context, a projectInitArgs) (*envelope.Result[ProjectInitData], error) {
	target, err := projTarget(ctx, a.Name, a.Framework, a.TargetDir)
	if err != nil {
		return nil, err
	}
	// The config template is the engine's (config.Schema.Template over the
	// embedded catalog), the one config.template answers.
	res, err := project.Init(ctx, project.InitOptions{Name: strings.TrimSpace(a.Name), Framework: a.Framework, Parent: filepath.Dir(target),
		Overwrite: a.Overwrite})
	if err != nil {
		if errkind.Of(err) == errkind.Unknown {
			return nil, envelope.Errorf(envelope.CodeInternalError, "project.init failed, nothing was written: %v", err).WithDetails("target_path", target)
		}
		return nil, toolError(err)
	}
	ws := []string{res.WorkspaceDir}
	out := envelope.Success(ProjectInitData{Result: *res, Ready: true}).WithMeta("file_count", len(res.FilesWritten)).
		WithWarnings(fmt.Sprintf("config.json holds %d placeholder value(s) marked replace-me; %s lists them", len(res.Placeholders), project.LedgerFile)).
		WithNextSteps(
			envelope.NextStep{Tool: "validate.step_interface", When: "now", Why: "the custom step file validates", ArgsHint: map[string]any{"step_name": res.CustomSteps[0], "workspace_dirs": ws}},
			envelope.NextStep{Tool: "author.preflight_step", When: "after editing the custom step", Why: "proves the step is constructible", ArgsHint: map[string]any{"step_name": res.CustomSteps[0], "workspace_dirs": ws}},
			envelope.NextStep{Tool: "validate.alignment", When: "after editing scripts", Why: "scripts match their contracts", ArgsHint: map[string]any{"workspace_dirs": ws, "script_dirs": []string{res.ScriptsDir}}},
			envelope.NextStep{Tool: "compile.validate", When: "before compiling", Why: "the DAG and config compile", ArgsHint: map[string]any{"dag_file": res.DAGFile, "config_file": res.ConfigFile, "workspace_dirs": ws}},
			envelope.NextStep{Tool: "validate.run_scripts", When: "to run the scripts on the sample data", Why: "the data flows end to end",
				ArgsHint: map[string]any{"dag_file": res.DAGFile, "config_file": res.ConfigFile, "workspace_dirs": ws, "input_data": res.InputData}},
		)
	return out, nil
}

type bringUpArgs struct {
	Name      string `json:"name" jsonschema:"required" jsonschema_description:"Project name (as for project.init)."`
	Framework string `json:"framework" jsonschema:"required,enum=xgboost,enum=pytorch,enum=lightgbm"`
	TargetDir string `json:"target_dir,omitempty" jsonschema:"default=projects" jsonschema_description:"Directory the project is created in."`
	Region    string `json:"region,omitempty" jsonschema:"enum=NA,enum=EU,enum=FE,default=NA" jsonschema_description:"Region code of the pipeline."`
	DAGSource string `json:"dag_source,omitempty" jsonschema:"enum=catalog,enum=manual,default=catalog" jsonschema_description:"Where the DAG comes from: the shared pipeline catalog or by hand."`
}

// ProjectBringUpData is the data of project.bring_up: the new-project
// workflow's invocation (as a command and as a workflow.run call) and the
// tool plan behind it.
type ProjectBringUpData struct {
	// Workflow is the workflow's file-stem name in cursus (Python), which
	// `cursus workflow run` accepts too; WorkflowName is its name here.
	Workflow     string             `json:"workflow"`
	WorkflowName string             `json:"workflow_name"`
	Args         map[string]string  `json:"args"`
	Command      []string           `json:"command"`
	CommandLine  string             `json:"command_line"`
	Tool         string             `json:"tool"`
	ToolArgs     ProjectToolArgs    `json:"tool_args"`
	Phases       []string           `json:"phases"`
	ProjectDir   string             `json:"project_dir"`
	Plan         []project.PlanStep `json:"plan"`
	Note         string             `json:"note"`
}

// ProjectToolArgs are the arguments of the workflow.run call of a bring-up.
type ProjectToolArgs struct {
	Workflow string            `json:"workflow"`
	Args     map[string]string `json:"args"`
}

func projectBringUp(ctx context.Context, a bringUpArgs) (*envelope.Result[ProjectBringUpData], error) {
	name := strings.TrimSpace(a.Name)
	td := strings.TrimSpace(a.TargetDir)
	if td == "" {
		td = "projects"
	}
	plan, err := project.BringUpPlan(project.BringUpOptions{Name: name, Framework: a.Framework, TargetDir: td, Region: a.Region, DAGSource: a.DAGSource})
	if err != nil {
		return nil, envelope.InvalidInput("%v", err).WithDetails("got", map[string]any{"name": a.Name, "framework": a.Framework, "dag_source": a.DAGSource})
	}
	wfArgs := map[string]string{"name": name, "framework": a.Framework, "target_dir": td, "region": a.Region, "dag_source": a.DAGSource}
	argJSON, err := json.Marshal(wfArgs)
	if err != nil {
		return nil, err
	}
	phases, warn := newProjectPhases(ctx)
	data := ProjectBringUpData{
		Workflow:     "cursus-new-project",
		WorkflowName: "new-project",
		Args:         wfArgs,
		Command:      []string{"cursus", "workflow", "run", "new-project", "--args", string(argJSON)},
		CommandLine:  "cursus workflow run new-project --args " + shellQuote(string(argJSON)),
		Tool:         "workflow.run",
		ToolArgs:     ProjectToolArgs{Workflow: "new-project", Args: wfArgs},
		Phases:       phases,
		ProjectDir:   filepath.ToSlash(filepath.Join(td, project.DirName(name, a.Framework))),
		Plan:         nonNilList(plan),
		Note: "Run the command (or call workflow.run with tool_args) to do the whole bring-up with every gate enforced; it keeps its state in " +
			"runs/<run_id>/ and, when it stops, says what to do and how to resume. The plan lists the same tools for doing it by hand.",
	}
	return envelope.Success(data).WithWarnings(warn...).WithNextSteps(
		envelope.NextStep{Tool: "project.init", When: "to start by hand", Why: "first call of the plan",
			ArgsHint: map[string]any{"name": name, "framework": a.Framework, "target_dir": td}},
		envelope.NextStep{Tool: "workflow.run", When: "to run the whole bring-up at once", Why: "every phase gated, resumable",
			ArgsHint: map[string]any{"workflow": "new-project", "args": wfArgs}},
	), nil
}

// newProjectPhases names the phases of the new-project workflow, as
// workflow.describe answers them through the call's registry: the
// workflows sit above this layer, so their tool is the way to them. A
// registry without the workflow namespace gives no phases and a warning.
func newProjectPhases(ctx context.Context) ([]string, []string) {
	r := registry.FromContext(ctx)
	if r == nil {
		return []string{}, []string{"no registry in the call's context: the phases of the new-project workflow are not listed"}
	}
	if _, ok := r.Get("workflow.describe"); !ok {
		return []string{}, []string{"this registry has no workflow namespace: workflow.run is not available here and its phases are not listed"}
	}
	res := r.Call(registry.WithScope(ctx, nil), "workflow.describe", map[string]any{"workflow": "new-project"})
	d, err := envelope.Decode[struct {
		Phases []struct {
			Name string `json:"name"`
		} `json:"phases"`
	}](res)
	if err != nil {
		return []string{}, []string{"the phases of the new-project workflow could not be read: " + err.Error()}
	}
	phases := make([]string, len(d.Phases))
	for i, p := range d.Phases {
		phases[i] = p.Name
	}
	return phases, nil
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
