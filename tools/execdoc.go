package tools

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/execdoc"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
	"github.com/invopop/jsonschema"
)

// ExecdocNamespace returns the execdoc namespace: its description and tools, built anew
// on each call (DefaultNamespaces lists it).
func ExecdocNamespace() registry.Namespace {
	return namespace("execdoc", "Execution documents: the PIPELINE_STEP_CONFIGS document a pipeline run starts with, keyed by SageMaker step name; template, fill, validate and merge.",
		registry.New("execdoc.template", registry.Spec{
			Description: "Builds an empty execution document from step names or a DAG (keyed by its SageMaker step names).",
			When:        "you need an execution document to fill by hand",
			Examples: []string{
				`execdoc.template {"step_names": ["CradleDataLoading-Training", "Registration-NA"]}`,
				`execdoc.template {"dag": {"nodes": ["TabularPreprocessing_training", "XGBoostTraining"], "edges": [["TabularPreprocessing_training", "XGBoostTraining"]]}}  # from a DAG`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhaseProgrammer},
		}, execdocTemplate),
		registry.New("execdoc.generate", registry.Spec{
			Description: "Fills an execution document from a DAG and config.json: the steps that take runtime configuration (data loading, registration).",
			When:        "you need the execution document to start a run",
			Examples: []string{
				`execdoc.generate {"dag_file": "examples/xgboost-end-to-end/dag.json", "config_file": "examples/xgboost-end-to-end/config.json"}  # template built from the DAG`,
				`execdoc.generate {"dag": {"nodes": ["CradleDataLoading_training"], "edges": []}, "config_file": "pipeline_config/config.json", "execution_document": {"PIPELINE_STEP_CONFIGS": {"CradleDataLoading-Training": {"STEP_TYPE": ["WORKFLOW_INPUT", "CradleDataLoadingStep"], "STEP_CONFIG": {}}}}}  # fill a given document`,
			},
			Tags:    []string{registry.PhaseProgrammer},
			Network: true,
		}, execdocGenerate),
		registry.New("execdoc.validate", registry.Spec{
			Description: "Checks an execution document's structure and, with a DAG (and config), missing or extra steps; each problem has a severity and path. data.valid is false when any is an error.",
			When:        "before a run with an execution document",
			Examples: []string{
				`execdoc.validate {"execution_document": {"PIPELINE_STEP_CONFIGS": {"XGBoostTraining": {"STEP_TYPE": "TRAINING_STEP", "STEP_CONFIG": {}}}}}`,
				`execdoc.validate {"execution_document": {"PIPELINE_STEP_CONFIGS": {}}, "dag_file": "examples/xgboost-end-to-end/dag.json", "config_file": "examples/xgboost-end-to-end/config.json"}  # against a DAG`,
			},
			Tags: []string{registry.PhaseValidator},
		}, execdocValidate),
		registry.New("execdoc.merge", registry.Spec{
			Description: "Merges two execution documents, additional_doc winning (STEP_CONFIG merged key by key, new steps added), and returns the result.",
			When:        "combining a document with overrides",
			Examples: []string{
				`execdoc.merge {"base_doc": {"PIPELINE_STEP_CONFIGS": {"A": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {"x": 1}}}}, "additional_doc": {"PIPELINE_STEP_CONFIGS": {"A": {"STEP_CONFIG": {"y": 2}}, "B": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {}}}}}`,
			},
			Tags: []string{registry.PhaseProgrammer},
		}, execdocMerge),
	)
}

type execdocTemplateArgs struct {
	StepNames []string  `json:"step_names,omitempty" jsonschema_description:"SageMaker step names, one entry each (give this or a DAG)."`
	DAG       dagObject `json:"dag,omitempty" jsonschema_description:"The DAG inline: {\"nodes\": [...], \"edges\": [[src, dst], ...]} (or the serialized form {\"dag\": {...}}). Node order decides ties in the execution order; edge endpoints are not added to nodes, so a misspelled endpoint shows up as undeclared. Give this or dag_file, not both."`
	DAGFile   string    `json:"dag_file,omitempty" jsonschema_description:"Path to a DAG JSON file (dag.serialize / pipeline-catalog format; relative paths are taken from the project root when one is set). Give this or dag, not both."`
	dagIDArg
	catalogWorkspace
}

type execdocGenerateArgs struct {
	ConfigFile string    `json:"config_file" jsonschema:"required,minLength=1" jsonschema_description:"Path of the pipeline's config.json (relative to project_root or to anchor_file's directory)."`
	DAGFile    string    `json:"dag_file,omitempty" jsonschema_description:"Path of the DAG file (give this or dag)."`
	DAG        dagObject `json:"dag,omitempty" jsonschema_description:"Inline DAG {\"nodes\", \"edges\"} (give this or dag_file)."`
	dagIDArg
	ExecutionDocument map[string]any `json:"execution_document,omitempty" jsonschema_description:"Document to fill (keyed by SageMaker step names); omitted: built from the DAG."`
	Role              string         `json:"role,omitempty" jsonschema_description:"IAM role ARN recorded in the registration settings instead of the config's role."`
	ProjectRoot       string         `json:"project_root,omitempty" jsonschema_description:"Directory that relative config_file and dag_file resolve against."`
	AnchorFile        string         `json:"anchor_file,omitempty" jsonschema_description:"A project file; its directory is the root when project_root is not given."`
	catalogWorkspace
	ConfigPath string `json:"config_path,omitempty" deprecated:"config_file"`
}

type execdocValidateArgs struct {
	ExecutionDocument any       `json:"execution_document" jsonschema:"required" jsonschema_description:"The document to check (any JSON value; a non-object is reported as an issue)."`
	DAG               dagObject `json:"dag,omitempty" jsonschema_description:"Inline DAG the document is for: enables unknown-step and missing-step checks."`
	DAGFile           string    `json:"dag_file,omitempty" jsonschema_description:"Path to a DAG JSON file (dag.serialize / pipeline-catalog format; relative paths are taken from the project root when one is set). Give this or dag, not both."`
	dagIDArg
	ConfigFile string `json:"config_file,omitempty" jsonschema_description:"config.json of the DAG: step names are then exactly the compiled ones (e.g. Registration-NA)."`
	catalogWorkspace
	ConfigPath string `json:"config_path,omitempty" deprecated:"config_file"`
}

type execdocMergeArgs struct {
	BaseDoc       map[string]any `json:"base_doc" jsonschema:"required" jsonschema_description:"The document to start from."`
	AdditionalDoc map[string]any `json:"additional_doc" jsonschema:"required" jsonschema_description:"The document whose steps and settings win."`
}

// ExecdocDocument is an execution document, the data of execdoc.template,
// execdoc.generate and execdoc.merge: PIPELINE_STEP_CONFIGS keyed by
// SageMaker step name, each entry {"STEP_TYPE": [...], "STEP_CONFIG": {...}},
// and optionally PIPELINE_ADDITIONAL_PARAMS. It is free JSON (the caller's
// own keys pass through), so it stays a map.
type ExecdocDocument map[string]any

// JSONSchema is the schema of an execution document: an object with a
// PIPELINE_STEP_CONFIGS object of step entries.
func (ExecdocDocument) JSONSchema() *jsonschema.Schema {
	steps := &jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Type: "object"}}
	props := jsonschema.NewProperties()
	props.Set(execdoc.KeyStepConfigs, steps)
	props.Set(execdoc.KeyAdditionalParams, &jsonschema.Schema{Type: "object"})
	return &jsonschema.Schema{Type: "object", Properties: props, Required: []string{execdoc.KeyStepConfigs}}
}

// ExecdocValidateData is the data of execdoc.validate.
type ExecdocValidateData = execdoc.Report

func execdocTemplate(ctx context.Context, a execdocTemplateArgs) (*envelope.Result[ExecdocDocument], error) {
	hasDAG := dagGiven(a.DAG, a.DAGFile, a.DagID)
	switch {
	case a.StepNames != nil && hasDAG:
		return nil, envelope.InvalidInput("give step_names or a DAG (dag / dag_file), not both")
	case a.StepNames == nil && !hasDAG:
		return nil, envelope.InvalidInput("give step_names (a list of SageMaker step names) or a DAG (dag / dag_file)").
			WithRemedy("pass step_names, or the DAG the document is for", "pipeline_catalog.load_dag", "dag.construct")
	}
	if !hasDAG {
		doc, err := execdoc.Template(a.StepNames)
		if err != nil {
			return nil, execdocError(err)
		}
		return envelope.Success(ExecdocDocument(doc)).WithMeta("step_count", len(execdoc.StepNames(doc))).WithNextSteps(execdocNextAfterTemplate()...), nil
	}
	d, err := loadDAGArg(ctx, a.DAG, a.DAGFile, a.DagID)
	if err != nil {
		return nil, err
	}
	cat, err := loadCatalog(ctx, a.WorkspaceDirs)
	if err != nil {
		return nil, err
	}
	res, err := execdoc.TemplateFromDAG(d, cat)
	if err != nil {
		return nil, execdocError(err)
	}
	return envelope.Success(ExecdocDocument(res.Document)).
		WithMeta("step_count", len(res.Steps)).WithMeta("node_count", d.NodeCount()).WithMeta("steps", res.Steps).
		WithWarnings(append(dagWarnings(d), res.Warnings...)...).
		WithNextSteps(execdocNextAfterTemplate()...), nil
}

func execdocNextAfterTemplate() []envelope.NextStep {
	return []envelope.NextStep{
		{Tool: "execdoc.generate", When: "you have the DAG's config.json", Why: "fill the data-loading and registration steps from the configs", ArgsHint: map[string]any{"dag_file": "<dag file>", "config_file": "<config.json>"}},
		{Tool: "execdoc.validate", When: "after filling the document by hand", Why: "list structural problems and missing configurations"},
	}
}

// projectPath resolves a relative path against the project root given to a
// tool (project_root, else the directory of anchor_file), else the
// registry's project root, else the working directory; a relative
// project_root or anchor_file is itself taken from the registry's project
// root (registry.ResolveReadPath).
// arg is the argument p came from, which an error names.
func projectPath(ctx context.Context, root, anchor, arg, p string) (string, error) {
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	rootArg := "project_root"
	if root = strings.TrimSpace(root); root == "" && strings.TrimSpace(anchor) != "" {
		root, rootArg = filepath.Dir(anchor), "anchor_file"
	}
	if root != "" {
		base, err := registry.ResolveReadPath(ctx, rootArg, root)
		if err != nil {
			return "", err
		}
		return filepath.Join(base, p), nil
	}
	return registry.ResolveReadPath(ctx, arg, p)
}

// loadConfigSet reads a config.json (path, resolved from the config_file
// the caller gave as given) into a config set of the workspace's config
// classes (configSchemaFor), through the call's file-access layer, mapping
// errors.
func loadConfigSet(ctx context.Context, given, path string, workspaceDirs []string) (*config.Set, error) {
	const arg = "config_file"
	if _, err := checkedConfigPath(ctx, arg, path); err != nil {
		var te *envelope.ToolError
		if errors.As(err, &te) {
			te.Details = map[string]any{arg: given}
		}
		return nil, err
	}
	schema, err := configSchemaFor(ctx, workspaceDirs)
	if err != nil {
		return nil, err
	}
	set, err := config.Load(safefs.From(ctx), schema, path)
	if err != nil {
		var fe *config.FormatError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, envelope.NotFound("config file not found: %s", given).WithDetails(arg, given)
		case errors.As(err, &fe):
			return nil, envelope.InvalidInput("cannot read %s as a config.json: %v", given, err).WithDetails(arg, given).
				WithRemedy("write the file with config.merge_save", "config.merge_save", "config.load")
		}
		if ferr := registry.FileError(arg, given, err); ferr != err {
			return nil, ferr
		}
		return nil, toolError(err)
	}
	return set, nil
}

func execdocGenerate(ctx context.Context, a execdocGenerateArgs) (*envelope.Result[ExecdocDocument], error) {
	if err := requireConfigPath("config_file", a.ConfigFile); err != nil {
		return nil, err
	}
	if a.Role != "" && !strings.HasPrefix(strings.TrimSpace(a.Role), "arn:") {
		return nil, envelope.InvalidInput("role must be an IAM role ARN (arn:aws:iam::<account>:role/<name>), got %q", a.Role)
	}
	cfgPath, err := projectPath(ctx, a.ProjectRoot, a.AnchorFile, "config_file", a.ConfigFile)
	if err != nil {
		return nil, err
	}
	set, err := loadConfigSet(ctx, a.ConfigFile, cfgPath, a.WorkspaceDirs)
	if err != nil {
		return nil, err
	}
	dagFile := a.DAGFile
	if strings.TrimSpace(dagFile) != "" {
		if dagFile, err = projectPath(ctx, a.ProjectRoot, a.AnchorFile, "dag_file", dagFile); err != nil {
			return nil, err
		}
	}
	d, err := loadDAGArg(ctx, a.DAG, dagFile, a.DagID)
	if err != nil {
		return nil, err
	}
	cat, err := loadCatalog(ctx, a.WorkspaceDirs)
	if err != nil {
		return nil, err
	}
	res, err := execdoc.Generate(ctx, execdoc.GenerateInput{DAG: d, Configs: set, Catalog: cat, Document: a.ExecutionDocument, Role: strings.TrimSpace(a.Role)})
	if err != nil {
		return nil, execdocError(err)
	}
	names := make([]string, 0, set.Len())
	for _, k := range set.Keys() {
		names = append(names, string(k))
	}
	warns := append(dagWarnings(d), res.Warnings...)
	warns = append(warns, set.Warnings...)
	return envelope.Success(ExecdocDocument(res.Document)).
		WithMeta("node_count", d.NodeCount()).
		WithMeta("config_count", set.Len()).
		WithMeta("config_names", names).
		WithMeta("step_count", len(res.Steps)).
		WithMeta("steps_with_config", res.StepsWithConfig()).
		WithMeta("auto_template", res.AutoTemplate).
		WithMeta("filled_steps", res.Steps).
		WithWarnings(warns...).
		WithNextSteps(envelope.NextStep{Tool: "execdoc.validate", When: "before starting the run", Why: "check the filled document against the DAG",
			ArgsHint: withWorkspace(map[string]any{"execution_document": "<data>", "config_file": a.ConfigFile}, a.WorkspaceDirs)},
			envelope.NextStep{Tool: "execdoc.merge", When: "you have overrides for some steps", Why: "combine them with the generated document",
				ArgsHint: map[string]any{"base_doc": "<data>", "additional_doc": map[string]any{execdoc.KeyStepConfigs: map[string]any{}}}}), nil
}

func execdocValidate(ctx context.Context, a execdocValidateArgs) (*envelope.Result[ExecdocValidateData], error) {
	cat, err := loadCatalog(ctx, a.WorkspaceDirs)
	if err != nil {
		return nil, err
	}
	opts := execdoc.Options{Catalog: cat}
	var warns []string
	hasDAG := dagGiven(a.DAG, a.DAGFile, a.DagID)
	if strings.TrimSpace(a.ConfigFile) != "" && !hasDAG {
		return nil, envelope.InvalidInput("config_file needs the DAG the document is for (dag or dag_file)")
	}
	if hasDAG {
		d, err := loadDAGArg(ctx, a.DAG, a.DAGFile, a.DagID)
		if err != nil {
			return nil, err
		}
		var set *config.Set
		if strings.TrimSpace(a.ConfigFile) != "" {
			cfgPath, err := registry.ResolveReadPath(ctx, "config_file", a.ConfigFile)
			if err != nil {
				return nil, err
			}
			if set, err = loadConfigSet(ctx, a.ConfigFile, cfgPath, a.WorkspaceDirs); err != nil {
				return nil, err
			}
		}
		doc, _ := a.ExecutionDocument.(map[string]any)
		exp, err := execdoc.ExpectedSteps(ctx, d, cat, set, doc)
		if err != nil {
			return nil, execdocError(err)
		}
		opts = execdoc.Options{Steps: exp.Steps, NeedConfig: exp.NeedConfig}
		warns = append(dagWarnings(d), exp.Warnings...)
	}
	r := execdoc.Validate(a.ExecutionDocument, opts)
	res := envelope.Success(*r).WithMeta("valid", r.Valid).WithMeta("issue_count", len(r.Issues)).WithWarnings(warns...).WithVerdict(r.Valid)
	if !r.Valid {
		res.WithNextSteps(envelope.NextStep{Tool: "execdoc.template", When: "the structure is wrong", Why: "start from a well-formed skeleton"},
			envelope.NextStep{Tool: "execdoc.generate", When: "configurations are missing", Why: "fill them from the DAG's config.json"})
	}
	return res, nil
}

func execdocMerge(ctx context.Context, a execdocMergeArgs) (*envelope.Result[ExecdocDocument], error) {
	doc, stats, err := execdoc.Merge(a.BaseDoc, a.AdditionalDoc)
	if err != nil {
		return nil, execdocError(err)
	}
	return envelope.Success(ExecdocDocument(doc)).
		WithMeta("step_count", len(execdoc.StepNames(doc))).
		WithMeta("added", stats.Added).
		WithMeta("updated", stats.Updated), nil
}

// execdocError maps an error of the execdoc engine by its kind (the kind
// table, tools/errors.go); an error without one comes from resolving the
// DAG's nodes to their configs, as a compile does (toolError).
func execdocError(err error) error {
	if errkind.Of(err) != errkind.Unknown {
		return toolError(err)
	}
	return toolError(err)
}
