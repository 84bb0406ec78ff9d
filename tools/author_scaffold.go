package tools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/cursus-go/cursus/engine/author"
	"github.com/cursus-go/cursus/internal/lazyre"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/project"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
)

// authorScaffoldNamespace is the part of the author namespace in this file (no description: the
// namespace's constructor has it).
func authorScaffoldNamespace() registry.Namespace {
	// The author namespace's description is tools/author.go's.
	return namespace("author", "",
		registry.New("author.scaffold_step", registry.Spec{
			Description: "Writes a new Processing step type: <workspace_dir>/<Step>.step.yaml with the given ports and a script skeleton in the sibling scripts/ that reads and writes exactly those paths, so validate.step_interface and author.check_script pass; the logic is left to write.",
			When:        "adding a step type between two DAG nodes once its ports are decided (the author-step workflow calls it)",
			Examples: []string{
				`author.scaffold_step {"step_name": "OutlierClipping", "workspace_dir": "steps", "job_type": "training", "inputs": [{"name": "input_data", "compatible_sources": ["TabularPreprocessing"]}], "outputs": [{"name": "processed_data"}]}`,
				`author.scaffold_step {"step_name": "DemoDedup", "workspace_dir": "projects/demo_xgboost/steps", "inputs": [{"name": "input_data"}], "outputs": [{"name": "processed_data"}], "if_exists": "keep"}`,
			},
			Tags:   []string{registry.PhaseProgrammer},
			Writes: true,
		}, authorScaffoldStep),
	)
}

// scaffoldPortArg is author.ScaffoldPort with the argument descriptions of
// the schema: the same fields, so a port converts to one (and a field added
// to either fails to compile until both have it).
type scaffoldPortArg struct {
	Name              string   `json:"name" jsonschema:"required" jsonschema_description:"Logical port name, e.g. input_data."`
	Type              string   `json:"type,omitempty" jsonschema_description:"Dependency type (inputs) or output type; default processing_output."`
	Path              string   `json:"path,omitempty" jsonschema_description:"Container path; default /opt/ml/processing/input/<name> or /opt/ml/processing/output/<name>."`
	Required          *bool    `json:"required,omitempty" jsonschema_description:"Inputs: whether the input is required (default true)."`
	CompatibleSources []string `json:"compatible_sources,omitempty" jsonschema_description:"Inputs: step types that may feed it."`
	Keywords          []string `json:"keywords,omitempty" jsonschema_description:"Semantic keywords the dependency resolver matches."`
	Aliases           []string `json:"aliases,omitempty" jsonschema_description:"Outputs: other names consumers may know the output by."`
	Description       string   `json:"description,omitempty" jsonschema_description:"What flows through the port."`
}

type scaffoldStepArgs struct {
	StepName     string            `json:"step_name" jsonschema:"required" jsonschema_description:"New step type, PascalCase (e.g. OutlierClipping)."`
	WorkspaceDir string            `json:"workspace_dir" jsonschema:"required" jsonschema_description:"Folder of the step file (a catalog workspace), relative to the project root."`
	ScriptDir    string            `json:"script_dir,omitempty" jsonschema_description:"Folder of the script; default the workspace's sibling scripts/ (where the validate and author tools look)."`
	Description  string            `json:"description,omitempty" jsonschema_description:"What the step does."`
	JobType      string            `json:"job_type,omitempty" jsonschema_description:"Job type the step is declared for (the node becomes <Step>_<job_type>)."`
	Keywords     []string          `json:"keywords,omitempty" jsonschema_description:"Catalog search words."`
	Inputs       []scaffoldPortArg `json:"inputs" jsonschema:"required,minItems=1" jsonschema_description:"Input ports."`
	Outputs      []scaffoldPortArg `json:"outputs" jsonschema:"required,minItems=1" jsonschema_description:"Output ports."`
	IfExists     string            `json:"if_exists,omitempty" jsonschema:"enum=fail,enum=keep,enum=overwrite,default=fail" jsonschema_description:"When a file exists: fail (already_exists), keep it (report it kept) or overwrite it."`
}

var stepNameRE = lazyre.New(catalog.StepNamePattern)

func authorScaffoldStep(ctx context.Context, a scaffoldStepArgs) (*envelope.Result[AuthorScaffoldStepData], error) {
	step := strings.TrimSpace(a.StepName)
	if !stepNameRE().MatchString(step) {
		return nil, envelope.InvalidInput("step_name %q is not PascalCase (%s)", a.StepName, catalog.StepNamePattern).
			WithRemedy("see author.rules {\"topic\": \"naming\"}", "author.rules")
	}
	ws := strings.TrimSpace(a.WorkspaceDir)
	if ws == "" {
		return nil, envelope.InvalidInput("workspace_dir must be a non-empty path")
	}
	scriptDir := strings.TrimSpace(a.ScriptDir)
	if scriptDir == "" {
		scriptDir = filepath.Join(filepath.Dir(filepath.Clean(ws)), project.ScriptsDir)
	}
	spec := author.ScaffoldSpec{Step: step, Description: a.Description, JobType: a.JobType, Keywords: a.Keywords,
		Header: "Step type scaffolded by cursus author.scaffold_step.\nEdit it together with its script; gate both with validate.step_interface,\nauthor.check_script and author.preflight_step (workspace_dirs: this folder)."}
	for _, p := range a.Inputs {
		spec.Inputs = append(spec.Inputs, author.ScaffoldPort(p))
	}
	for _, p := range a.Outputs {
		spec.Outputs = append(spec.Outputs, author.ScaffoldPort(p))
	}
	yml, err := author.RenderStepFile(spec)
	if err != nil {
		return nil, envelope.InvalidInput("%v", err)
	}
	file := step + catalog.StepFileSuffix
	st, err := catalog.ParseStepFile(file, yml)
	if err != nil {
		return nil, envelope.InvalidInput("the step file would not load: %v", err).WithDetails("problems", problemList(err), "step_file", string(yml)).
			WithRemedy("fix the ports named in meta.details.problems (types, container paths, names)", "author.rules", "steps.io")
	}
	script, err := project.ScriptSkeleton(st)
	if err != nil {
		return nil, envelope.Errorf(envelope.CodeInternalError, "script skeleton: %v", err)
	}
	stepPath, err := registry.ResolveWritePath(ctx, "workspace_dir", filepath.Join(ws, file))
	if err != nil {
		return nil, err
	}
	scriptPath, err := registry.ResolveWritePath(ctx, "script_dir", filepath.Join(scriptDir, st.Contract.EntryPoint))
	if err != nil {
		return nil, err
	}
	mode := a.IfExists
	if mode == "" {
		mode = "fail"
	}
	plan := []struct {
		path string
		data []byte
	}{{stepPath, yml}, {scriptPath, script}}
	status := map[string]string{}
	for _, f := range plan {
		b, err := safefs.From(ctx).ReadFile(f.path, safefs.KindScript)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			status[f.path] = "written"
		case err != nil:
			return nil, registry.FileError("path", f.path, err)
		case bytes.Equal(b, f.data):
			status[f.path] = "unchanged"
		case mode == "fail":
			return nil, envelope.Errorf(envelope.CodeAlreadyExists, "%s exists", f.path).WithDetails("path", f.path).
				WithRemedy("pass if_exists keep (leave it as it is) or overwrite, or choose another step_name", "author.scaffold_step")
		case mode == "keep":
			status[f.path] = "kept"
		default:
			status[f.path] = "overwritten"
		}
	}
	for _, f := range plan {
		if s := status[f.path]; s == "written" || s == "overwritten" {
			if err := safefs.From(ctx).WriteFile(f.path, f.data, 0o644); err != nil {
				return nil, registry.FileError("path", f.path, err)
			}
		}
	}
	var warns []string
	if base, err := catalog.Default(); err == nil {
		if _, ok := base.Step(catalog.StepType(step)); ok {
			warns = append(warns, fmt.Sprintf("%s is also an embedded catalog step: the workspace file replaces it for callers that pass this workspace", step))
		}
	}
	sum := func(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }
	wsAbs := filepath.Dir(stepPath)
	data := AuthorScaffoldStepData{
		StepName: step, StepFile: stepPath, Script: scriptPath, EntryPoint: st.Contract.EntryPoint,
		StepFileStatus: status[stepPath], ScriptStatus: status[scriptPath],
		StepFileSHA256: sum(yml), ScriptSHA256: sum(script), WorkspaceDir: wsAbs,
	}
	hint := map[string]any{"step_name": step, "workspace_dirs": []string{wsAbs}}
	return envelope.Success(data).WithWarnings(warns...).WithNextSteps(
		envelope.NextStep{Tool: "validate.step_interface", When: "now", Why: "the step file passes the interface gate", ArgsHint: hint},
		envelope.NextStep{Tool: "author.check_script", When: "after writing the script's logic", Why: "the script still matches its contract", ArgsHint: hint},
		envelope.NextStep{Tool: "author.preflight_step", When: "before using it in a DAG", Why: "proves the step is constructible", ArgsHint: hint},
	), nil
}

func problemList(err error) []string {
	var out []string
	for _, p := range catalog.Problems(err) {
		out = append(out, p.Error())
	}
	if len(out) == 0 {
		out = []string{err.Error()}
	}
	return out
}

// AuthorScaffoldStepData is the data of author.scaffold_step: the step file
// and script paths, what happened to each (written, unchanged, kept or
// overwritten) and their SHA-256 digests.
type AuthorScaffoldStepData struct {
	StepName       string `json:"step_name"`
	StepFile       string `json:"step_file"`
	Script         string `json:"script"`
	EntryPoint     string `json:"entry_point"`
	StepFileStatus string `json:"step_file_status"`
	ScriptStatus   string `json:"script_status"`
	StepFileSHA256 string `json:"step_file_sha256"`
	ScriptSHA256   string `json:"script_sha256"`
	WorkspaceDir   string `json:"workspace_dir"`
}
