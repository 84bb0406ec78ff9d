package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
)

const exampleDAG = `{"nodes": ["CradleDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining"], "edges": [["CradleDataLoading_training", "TabularPreprocessing_training"], ["TabularPreprocessing_training", "XGBoostTraining"]]}`

// ConfigNamespace returns the config namespace: its description and tools, built anew
// on each call (DefaultNamespaces lists it).
func ConfigNamespace() registry.Namespace {
	return namespace("config", "Pipeline configs: what a DAG needs configured, config class fields, a fillable template, and reading and writing config.json.",
		registry.New("config.requirements", registry.Spec{
			Description: "What a DAG needs configured: the base fields, each node's config class, each class's fields once (compact: the required; optional_defaults the rest), nodes without a class.",
			When:        "you need the config values a DAG asks for",
			Examples: []string{
				`config.requirements {"dag_file": "examples/simple-training/dag.json"}`,
				`config.requirements {"dag": ` + exampleDAG + `}  # three-step training DAG`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhasePlanner},
		}, configRequirements),
		registry.New("config.field_info", registry.Spec{
			Description: "The fields of one step type (step_name) or config class (type, required, default, tier, allowed values, bounds) and its derived fields. Paged (limit 50).",
			When:        "you need one step's config fields and legal values",
			Examples: []string{
				`config.field_info {"step_name": "XGBoostTraining"}`,
				`config.field_info {"step_name": "TabularPreprocessing_training", "categorized": true}  # a node name works too`,
				`config.field_info {"config_class": "XGBoostTrainingConfig"}`,
				`config.field_info {"config_class": "BasePipelineConfig"}  # the base fields every step has`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhasePlanner},
		}, configFieldInfo),
		registry.New("config.load", registry.Spec{
			Description: "Summarizes a saved config.json: shared fields, each config key with its class and fields, and whether every value is valid.",
			When:        "you have a config.json and want to know what it configures",
			Examples: []string{
				`config.load {"config_file": "examples/xgboost-end-to-end/config.json"}`,
				`config.load {"config_file": "projects/demo_xgboost/pipeline_config/config.json", "workspace_dirs": ["projects/demo_xgboost/steps"]}  # a project with its own steps`,
			},
			Tags: []string{registry.PhasePlanner},
		}, configLoad),
		registry.New("config.merge_save", registry.Spec{
			Core:        true,
			Description: "Builds and writes config.json for a DAG from base values (shared by every step) and per-node values: types them, fills defaults and derived fields (pipeline name, S3 locations, AWS region), validates every field, checks each node resolves to its own config, and writes it atomically (shared, specific and metadata sections, the format cursus (Python) reads). Invalid values are refused in one invalid_input listing every bad field by path with its allowed values. A string field may hold \"{{Parameters.<name>}}\" (declared in a pipeline_parameters list) instead of a value; workspace_dirs adds the config classes of a project's own step files.",
			When:        "you have collected the config values (see config.template) and want a config.json to compile with",
			Examples: []string{
				`config.merge_save {"dag": {"nodes": ["DummyDataLoading_training", "XGBoostTraining"], "edges": [["DummyDataLoading_training", "XGBoostTraining"]]}, "base": {"author": "alice", "bucket": "example-bucket", "role": "arn:aws:iam::123456789012:role/SageMakerRole", "region": "NA", "service_name": "Demo", "pipeline_version": "1.0.0", "project_root_folder": "demo"}, "steps": {"DummyDataLoading_training": {"data_source": "s3://example-bucket/raw/train/"}, "XGBoostTraining": {"label_name": "is_fraud", "tab_field_list": ["amount", "age"], "cat_field_list": ["country"], "objective": "binary:logistic"}}, "output_file": "pipeline_config/config.json"}`,
			},
			Tags:   []string{registry.PhaseProgrammer},
			Writes: true,
		}, configMergeSave),
		registry.New("config.template", registry.Spec{
			Core:        true,
			Description: "A DAG's config skeleton: every field with its default (merge_save_args), each blank by path (essential_fields), each node's config class; its next step is the merge_save call to fill. detail full adds config.json.",
			When:        "before writing a DAG's config values",
			Examples: []string{
				`config.template {"dag_file": "examples/simple-training/dag.json"}`,
				`config.template {"dag": {"nodes": ["DummyDataLoading_training", "DemoFeatureEngineering_training"], "edges": [["DummyDataLoading_training", "DemoFeatureEngineering_training"]]}, "workspace_dirs": ["projects/demo_xgboost/steps"]}  # a custom step declared in the project's steps/ workspace`,
				`config.template {"dag": ` + exampleDAG + `}`,
				`config.template {"dag_id": "xgboost_simple", "detail": "full"}  # also the config.json document`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhasePlanner},
		}, configTemplate),
	)
}

// configWorkspace is the workspace_dirs argument of the config.* tools: a
// project's own step files, whose steps get config classes too.
type configWorkspace struct {
	WorkspaceDirs []string `json:"workspace_dirs,omitempty" jsonschema_description:"Directories of extra *.step.yaml files (relative paths are taken from the project root); their steps get config classes too, so a project's own steps are configured like catalog steps."`
}

// configDAG is the DAG argument of the config.* tools, as every tool takes
// it: inline or as a file.
type configDAG struct {
	DAG     dagObject `json:"dag,omitempty" jsonschema_description:"The DAG inline: {\"nodes\": [...], \"edges\": [[src, dst], ...]} (or the serialized form {\"dag\": {...}}). Node order decides ties in the execution order; edge endpoints are not added to nodes, so a misspelled endpoint shows up as undeclared. Give this or dag_file, not both."`
	DAGFile string    `json:"dag_file,omitempty" jsonschema_description:"Path to a DAG JSON file (dag.serialize / pipeline-catalog format; relative paths are taken from the project root when one is set). Give this or dag, not both."`
	dagIDArg
}

// hint is the DAG argument of a next step: the one the call gave.
func (c configDAG) hint(h map[string]any) map[string]any {
	return dagHint(h, c.DAG, c.DAGFile, c.DagID)
}

type configDAGArgs struct {
	configDAG
	configWorkspace
}

type templateArgs struct {
	configDAGArgs
	Detail string `json:"detail,omitempty" jsonschema:"enum=compact,enum=full,default=compact" jsonschema_description:"full adds config, the config.json document."`
}

type requirementsArgs struct {
	configDAGArgs
	Detail string `json:"detail,omitempty" jsonschema:"enum=compact,enum=full,default=compact" jsonschema_description:"full: optional fields in full too."`
}

type fieldInfoArgs struct {
	ConfigClass string `json:"config_class,omitempty" jsonschema_description:"Config class (XGBoostTrainingConfig), or BasePipelineConfig for the base fields. Give this or step_name."`
	StepName    string `json:"step_name,omitempty" jsonschema_description:"Step type, e.g. XGBoostTraining; a node name such as TabularPreprocessing_training or an alias also works."`
	Categorized bool   `json:"categorized,omitempty" jsonschema:"default=false" jsonschema_description:"Also name the required and optional fields, and the fields of each tier."`
	page
	configWorkspace
}

type loadArgs struct {
	ConfigFile string `json:"config_file" jsonschema:"required" jsonschema_description:"Path to the pipeline's config.json (shared, specific and metadata sections; relative paths are taken from the project root when one is set). Relative script and source directories resolve against its directory."`
	Path       string `json:"path,omitempty" deprecated:"config_file"`
	configWorkspace
}

// jsonObject is a free-form JSON object argument decoded with numbers kept
// exact, so 4 stays an integer and 4.0 a float in the written config.json
// (the registry's default decoding would turn both into float64).
type jsonObject map[string]any

// UnmarshalJSON decodes the object with json.Number numbers.
func (o *jsonObject) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return err
	}
	*o = m
	return nil
}

type mergeSaveArgs struct {
	configDAG

	Base       jsonObject            `json:"base" jsonschema:"required" jsonschema_description:"Values applied to every config whose class declares them: author, bucket, role, region, service_name, pipeline_version, project_root_folder, and any base or processing field (see config.requirements)."`
	Steps      map[string]jsonObject `json:"steps,omitempty" jsonschema_description:"Per-node values keyed by DAG node name; they win over base. A node <StepType>_<job_type> gets job_type from its name unless given."`
	OutputFile string                `json:"output_file" jsonschema:"required,minLength=1" jsonschema_description:"Where to write config.json (confined to the project root when one is set); an existing file is replaced."`
	configWorkspace
}

// configSchema returns the config schema of the embedded step catalog.
func configSchema() (*config.Schema, error) {
	s, err := config.Default()
	if err != nil {
		return nil, envelope.Errorf(envelope.CodeInternalError, "cannot load the step catalog's config classes: %v", err).
			WithDetails("exception", err.Error())
	}
	return s, nil
}

// configSchemaFor returns configSchema, or with workspace directories the
// schema of the catalog they extend (directories resolved and problems
// reported like the catalog.* tools do).
func configSchemaFor(ctx context.Context, workspaceDirs []string) (*config.Schema, error) {
	if len(workspaceDirs) == 0 {
		return configSchema()
	}
	cat, err := loadCatalog(ctx, workspaceDirs)
	if err != nil {
		return nil, err
	}
	s, err := config.FromCatalog(cat)
	if err != nil {
		return nil, envelope.InvalidInput("the workspace steps do not make valid config classes: %v", err).
			WithDetails("workspace_dirs", workspaceDirs).
			WithRemedy("fix the workspace step files (validate.step_interface checks one), or drop the directory from workspace_dirs", "validate.step_interface", "catalog.list_steps")
	}
	return s, nil
}

func dagNodes(ctx context.Context, dagArg map[string]any, dagFile, dagID string) ([]catalog.NodeName, []string, error) {
	d, err := loadDAGArg(ctx, dagArg, dagFile, dagID)
	if err != nil {
		return nil, nil, err
	}
	return d.Nodes(), dagWarnings(d), nil
}

// load reads the DAG's nodes (with dagNodes' warnings), then the config
// schema of the workspace's catalog (configSchemaFor).
func (a configDAGArgs) load(ctx context.Context) ([]catalog.NodeName, []string, *config.Schema, error) {
	nodes, warns, err := dagNodes(ctx, a.DAG, a.DAGFile, a.DagID)
	if err != nil {
		return nil, nil, nil, err
	}
	s, err := configSchemaFor(ctx, a.WorkspaceDirs)
	if err != nil {
		return nil, nil, nil, err
	}
	return nodes, warns, s, nil
}

func pendingWarnings(pending []catalog.NodeName) []string {
	if len(pending) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d node(s) have no config class: %v; name nodes <StepType>[_<job_type>] with a step type from catalog.list_steps, or pass workspace_dirs naming the directory of the project's own step files", len(pending), pending)}
}

func configRequirements(ctx context.Context, a requirementsArgs) (*envelope.Result[ConfigRequirementsData], error) {
	nodes, warns, s, err := a.load(ctx)
	if err != nil {
		return nil, err
	}
	r := s.Requirements(nodes)
	data := fullRequirements(r)
	if a.Detail != "full" {
		data = compactRequirements(r)
	}
	res := envelope.Success(data).
		WithMeta("node_count", len(nodes)).
		WithMeta("mapped_count", len(r.ConfigClassMap)).
		WithWarnings(append(warns, pendingWarnings(r.Pending)...)...).
		WithNextSteps(
			// One hint carries the DAG: detail full (every field of every
			// node) is the same call with "detail": "full", as the schema says.
			envelope.NextStep{Tool: "config.template", When: "to get every field in place with its default", Why: "fill blanks instead of typing field names; its next step is the config.merge_save call to make (this call with detail full lists every optional field with its type and description)", ArgsHint: withWorkspace(a.hint(map[string]any{}), a.WorkspaceDirs)},
		)
	return res, nil
}

// fullRequirements is config.requirements' full answer: every field of
// each config class, once per class.
func fullRequirements(r *config.Requirements) ConfigRequirementsData {
	c := ConfigRequirementsData{Detail: "full", Base: r.Base, BaseProcessing: r.BaseProcessing, NeedsProcessing: r.NeedsProcessing,
		ConfigClassMap: r.ConfigClassMap, Classes: map[string][]config.Requirement{}, Pending: r.Pending, JobTypes: r.JobTypes}
	for n, reqs := range r.Steps {
		c.Classes[r.ConfigClassMap[n]] = reqs // the nodes of one class share its requirements (config.Schema.Requirements)
	}
	return c
}

// compactRequirements keeps the required fields of r in its lists, each
// config class's once, and gives the optional ones by their defaults, once
// per class too.
func compactRequirements(r *config.Requirements) ConfigRequirementsData {
	opt := &ConfigOptionalDefaults{Base: map[string]any{}, BaseProcessing: map[string]any{}, Classes: map[string]map[string]any{}}
	split := func(reqs []config.Requirement, defaults map[string]any) []config.Requirement {
		out := []config.Requirement{}
		for _, q := range reqs {
			if q.Required {
				out = append(out, q)
			} else {
				defaults[q.Name] = q.Default
			}
		}
		return out
	}
	c := fullRequirements(r)
	c.Detail, c.OptionalDefaults = "compact", opt
	c.Base = split(r.Base, opt.Base)
	c.BaseProcessing = split(r.BaseProcessing, opt.BaseProcessing)
	for class, reqs := range c.Classes {
		opt.Classes[class] = map[string]any{}
		c.Classes[class] = split(reqs, opt.Classes[class])
	}
	return c
}

func configFieldInfo(ctx context.Context, a fieldInfoArgs) (*envelope.Result[ConfigFieldInfoData], error) {
	name, field := strings.TrimSpace(a.ConfigClass), "config_class"
	switch step := strings.TrimSpace(a.StepName); {
	case name != "" && step != "":
		return nil, envelope.InvalidInput("give config_class or step_name, not both").WithRemedy("pass step_name (a step type or node name) alone")
	case step != "":
		name, field = step, "step_name"
	case name == "":
		return nil, envelope.InvalidInput("step_name (a step type such as XGBoostTraining) or config_class is required").
			WithRemedy("pass step_name: a step type from catalog.list_steps", "catalog.list_steps")
	}
	s, err := configSchemaFor(ctx, a.WorkspaceDirs)
	if err != nil {
		return nil, err
	}
	c, ok := s.LookupClass(name)
	if !ok {
		if t, _, found := s.ResolveNode(catalog.NodeName(name)); found {
			c, ok = s.LookupClass(string(t))
		}
	}
	if !ok {
		return nil, envelope.NotFound("unknown %s %q", strings.ReplaceAll(field, "_", " "), name).
			WithDetails(field, name, "available", s.ClassNames()).
			WithRemedy("use a class name from meta.details.available, or a step type from catalog.list_steps", "catalog.list_steps", "catalog.search")
	}
	all := c.Requirements()
	derived := c.DerivedFields()
	from, to, next := a.page.window(len(all))
	reqs := all[from:to]
	data := ConfigFieldInfoData{ConfigClass: c.Name, StepType: string(c.StepType), Processing: c.Processing, Derived: nonNilList(derived),
		Count: len(reqs), Total: len(all), Offset: from, NextOffset: next}
	if from > 0 {
		data.Derived = []config.Requirement{} // given with the first page
	}
	data.Requirements = nonNilList(reqs)
	if a.Categorized {
		required, optional := []string{}, []string{}
		byTier := map[string][]string{string(catalog.TierEssential): {}, string(catalog.TierSystem): {}, string(catalog.TierDerived): {}}
		for _, r := range all {
			if r.Required {
				required = append(required, r.Name)
			} else {
				optional = append(optional, r.Name)
			}
			byTier[r.Tier] = append(byTier[r.Tier], r.Name)
		}
		for _, r := range derived {
			byTier[r.Tier] = append(byTier[r.Tier], r.Name)
		}
		data.Required, data.Optional, data.ByTier = required, optional, byTier
	}
	res := envelope.Success(data).WithMeta("field_count", len(all)+len(derived))
	if next != nil {
		args := map[string]any{field: name, "offset": *next}
		if a.Categorized {
			args["categorized"] = true
		}
		if a.Limit > 0 {
			args["limit"] = a.Limit
		}
		res.WithWarnings(fmt.Sprintf("input fields %d-%d of %d: the rest from offset %d", from+1, to, len(all), *next)).
			WithNextSteps(envelope.NextStep{Tool: "config.field_info", When: "you need the fields after this page", Why: "the list is paged", ArgsHint: withWorkspace(args, a.WorkspaceDirs)})
	}
	return res, nil
}

func configLoad(ctx context.Context, a loadArgs) (*envelope.Result[ConfigLoadData], error) {
	b, err := safefs.From(ctx).ReadFile(a.ConfigFile, safefs.KindConfig)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, envelope.NotFound("config file not found: %s", a.ConfigFile).WithDetails("config_file", a.ConfigFile).
				WithRemedy("check the path (relative paths are taken from the project root), or write one with config.merge_save", "config.merge_save", "config.template")
		}
		return nil, registry.FileError("config_file", a.ConfigFile, err)
	}
	f, err := config.ParseFile(b)
	if err != nil {
		return nil, toolError(fmt.Errorf("cannot load %s: %w", a.ConfigFile, err))
	}
	s, err := configSchemaFor(ctx, a.WorkspaceDirs)
	if err != nil {
		return nil, err
	}
	// Invalid values are the answer (valid false, errors), not a failure.
	set, err := s.FromFile(f)
	var ve *config.ValidationError
	if err != nil && !errors.As(err, &ve) {
		return nil, toolError(fmt.Errorf("cannot load %s: %w", a.ConfigFile, err))
	}
	sharedFields := sortedMapKeys(f.Configuration.Shared)
	steps := map[string]ConfigLoadStep{}
	for _, key := range sortedMapKeys(f.Metadata.ConfigTypes) {
		var fields []string
		for name := range f.Configuration.Specific[key] {
			if name != config.ModelTypeKey {
				fields = append(fields, name)
			}
		}
		sort.Strings(fields)
		fields = nonNilList(fields)
		steps[key] = ConfigLoadStep{ConfigClass: f.Metadata.ConfigTypes[key], FieldCount: len(fields), Fields: fields}
	}
	data := ConfigLoadData{
		Path:             a.ConfigFile,
		SharedFieldCount: len(sharedFields),
		SharedFields:     sharedFields,
		StepCount:        len(steps),
		Steps:            steps,
		CreatedAt:        f.Metadata.CreatedAt,
		Valid:            ve == nil,
	}
	var warnings []string
	if set != nil {
		warnings = append(warnings, set.Warnings...)
	}
	if ve != nil {
		data.Errors = ve.Errors
		warnings = append(warnings, fmt.Sprintf("%d invalid value(s); see data.errors", len(ve.Errors)))
	}
	res := envelope.Success(data).WithMeta("step_count", len(steps)).WithWarnings(warnings...)
	if ve == nil {
		res = res.WithNextSteps(envelope.NextStep{Tool: "compile.validate", When: "to check the DAG against this config", Why: "every node must resolve to a config and a builder",
			ArgsHint: withWorkspace(map[string]any{"config_file": a.ConfigFile, "dag_file": "<path of the DAG file>"}, a.WorkspaceDirs)})
	} else {
		res = res.WithNextSteps(envelope.NextStep{Tool: "config.merge_save", When: "to rewrite the file with corrected values", Why: "it validates every field before writing"})
	}
	return res, nil
}

// withWorkspace adds workspace_dirs to a next-step argument hint when the
// call had them, so the suggested call sees the same steps.
func withWorkspace(hint map[string]any, dirs []string) map[string]any {
	if len(dirs) > 0 {
		hint["workspace_dirs"] = dirs
	}
	return hint
}

func sortedMapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func configMergeSave(ctx context.Context, a mergeSaveArgs) (*envelope.Result[ConfigMergeSaveData], error) {
	nodes, warns, err := dagNodes(ctx, a.DAG, a.DAGFile, a.DagID)
	if err != nil {
		return nil, err
	}
	path, err := registry.ResolveWritePath(ctx, "output_file", a.OutputFile)
	if err != nil {
		return nil, err
	}
	s, err := configSchemaFor(ctx, a.WorkspaceDirs)
	if err != nil {
		return nil, err
	}
	steps := make(map[catalog.NodeName]map[string]any, len(a.Steps))
	for n, v := range a.Steps {
		steps[catalog.NodeName(n)] = v
	}
	set, err := s.Build(config.BuildInput{Nodes: nodes, Base: a.Base, Steps: steps})
	if err != nil {
		return nil, toolError(err)
	}
	// The rules between a config's fields (a gate's comparison and
	// threshold), which the compiler would refuse later.
	var cat *catalog.Catalog
	if len(a.WorkspaceDirs) > 0 {
		if cat, err = loadCatalog(ctx, a.WorkspaceDirs); err != nil {
			return nil, err
		}
	}
	rules, err := compiler.CheckConfigs(set, cat)
	if err != nil {
		return nil, toolError(err)
	}
	if len(rules) > 0 {
		return nil, toolError(&config.ValidationError{Errors: rules})
	}
	if err := ctx.Err(); err != nil {
		return nil, envelope.Errorf(envelope.CodeCancelled, "cancelled before writing %s: %v", a.OutputFile, err)
	}
	if err := config.Save(safefs.From(ctx), set, path); err != nil {
		return nil, registry.FileError("output_file", a.OutputFile, err)
	}
	keys := []string{}
	for _, k := range set.Keys() {
		keys = append(keys, string(k))
	}
	data := ConfigMergeSaveData{
		Path:         path,
		ConfigCount:  set.Len(),
		ConfigKeys:   keys,
		ConfigTypes:  set.ConfigTypes(),
		SharedFields: sortedMapKeys(set.Shared()),
		CreatedAt:    set.CreatedAt,
	}
	return envelope.Success(data).
		WithMeta("config_count", set.Len()).
		WithWarnings(append(warns, set.Warnings...)...).
		WithNextSteps(
			envelope.NextStep{Tool: "config.load", When: "to review what was written", Why: "summarizes shared and per-step fields", ArgsHint: withWorkspace(map[string]any{"config_file": path}, a.WorkspaceDirs)},
			envelope.NextStep{Tool: "compile.validate", When: "before compiling", Why: "checks every node resolves to a config and a builder", ArgsHint: withWorkspace(a.hint(map[string]any{"config_file": path}), a.WorkspaceDirs)},
		), nil
}

func configTemplate(ctx context.Context, a templateArgs) (*envelope.Result[ConfigTemplateData], error) {
	nodes, warns, s, err := a.load(ctx)
	if err != nil {
		return nil, err
	}
	t := s.Template(nodes)
	essential := nonNilList(t.EssentialFields)
	data := ConfigTemplateData{
		Detail:          "compact",
		MergeSaveArgs:   ConfigMergeSaveArgs{Base: t.Base, Steps: t.Steps},
		EssentialFields: essential,
		ConfigClassMap:  t.ConfigClassMap,
		ConfigKeys:      t.ConfigKeys,
		PendingSteps:    nonNilList(t.Pending),
	}
	if a.Detail == "full" {
		data.Detail, data.Config = "full", t.File.Document()
	}
	return envelope.Success(data).
		WithMeta("node_count", len(nodes)).
		WithMeta("essential_count", len(essential)).
		WithWarnings(append(warns, t.Warnings...)...).
		WithNextSteps(envelope.NextStep{Tool: "config.merge_save", When: "after filling every path in essential_fields",
			Why:      "validates the values and writes config.json, filling every default itself: replace the null at each essential path (base.<field>, <node>.<field>) with its value; to change a default, add the field from merge_save_args",
			ArgsHint: withWorkspace(a.hint(map[string]any{"base": t.MinimalBase, "steps": t.MinimalSteps, "output_file": "pipeline_config/config.json"}), a.WorkspaceDirs)}), nil
}

// --- data (field order is the wire order) ---

// ConfigRequirement is one input field of a config class: its name, type,
// description, whether it is required, its default, tier and constraints.
type ConfigRequirement = config.Requirement

// ConfigRequirementsData is the data of config.requirements: the base and
// processing-base fields, each node's config class, the fields of each
// class (once, however many nodes have it), the nodes without a config
// class (pending_steps) and the job types taken from node names. In
// compact detail the lists hold the required fields and OptionalDefaults
// gives the others by their defaults.
type ConfigRequirementsData struct {
	// Detail is the detail answered: compact or full.
	Detail          string               `json:"detail"`
	Base            []config.Requirement `json:"base_config_requirements"`
	BaseProcessing  []config.Requirement `json:"base_processing_config_requirements"`
	NeedsProcessing bool                 `json:"needs_processing_config"`
	// ConfigClassMap is each node's config class.
	ConfigClassMap map[catalog.NodeName]string `json:"config_class_map"`
	// Classes is each config class's own fields (compact: the required
	// ones), once however many nodes have the class.
	Classes map[string][]config.Requirement `json:"class_requirements"`
	Pending []catalog.NodeName              `json:"pending_steps"`
	// JobTypes is the job type each node's name gives, when any.
	JobTypes map[catalog.NodeName]string `json:"job_types"`
	// OptionalDefaults (compact detail) gives each optional field left
	// out of the lists by its default.
	OptionalDefaults *ConfigOptionalDefaults `json:"optional_defaults,omitempty"`
}

// ConfigOptionalDefaults are the optional fields of config.requirements'
// compact answer, field name to default: the base and processing-base
// fields, and each config class's own (a node's are its class's, see
// config_class_map).
type ConfigOptionalDefaults struct {
	Base           map[string]any            `json:"base"`
	BaseProcessing map[string]any            `json:"base_processing"`
	Classes        map[string]map[string]any `json:"classes"`
}

// ConfigFieldInfoData is the data of config.field_info: one config class's
// fields (a page of them), categorized on request (the names of the
// required and optional ones, and of each tier), and its derived fields
// with their templates.
type ConfigFieldInfoData struct {
	ConfigClass string `json:"config_class"`
	StepType    string `json:"step_type"`
	// Processing: the class extends the processing base.
	Processing bool `json:"processing"`
	// Requirements are the page's input fields.
	Requirements []ConfigRequirement `json:"requirements"`
	// Required and Optional name the input fields of every page by
	// whether they are required (categorized only).
	Required []string `json:"required,omitempty"`
	Optional []string `json:"optional,omitempty"`
	// Derived are the derived fields (with the first page).
	Derived []ConfigRequirement `json:"derived"`
	// Count is the input fields in this answer, Total the class's, Offset
	// the first's position; NextOffset, when more follow, the next page's.
	Count      int  `json:"count"`
	Total      int  `json:"total"`
	Offset     int  `json:"offset"`
	NextOffset *int `json:"next_offset,omitempty"`
	// ByTier names the fields of each tier, every page's (categorized only).
	ByTier map[string][]string `json:"by_tier,omitempty"`
}

// ConfigLoadStep is one config of a loaded config.json: its class and the
// fields it sets.
type ConfigLoadStep struct {
	ConfigClass string   `json:"config_class"`
	FieldCount  int      `json:"field_count"`
	Fields      []string `json:"fields"`
}

// ConfigLoadData is the data of config.load: the shared fields, each
// config key with its class and fields, and whether every value is valid
// (the problems in Errors when not).
type ConfigLoadData struct {
	Path             string                    `json:"path"`
	SharedFieldCount int                       `json:"shared_field_count"`
	SharedFields     []string                  `json:"shared_fields"`
	StepCount        int                       `json:"step_count"`
	Steps            map[string]ConfigLoadStep `json:"steps"`
	CreatedAt        string                    `json:"created_at"`
	Valid            bool                      `json:"valid"`
	Errors           []config.FieldError       `json:"errors,omitempty"`
}

// ConfigMergeSaveData is the data of config.merge_save: where the file was
// written and what it holds.
type ConfigMergeSaveData struct {
	Path         string            `json:"path"`
	ConfigCount  int               `json:"config_count"`
	ConfigKeys   []string          `json:"config_keys"`
	ConfigTypes  map[string]string `json:"config_types"`
	SharedFields []string          `json:"shared_fields"`
	CreatedAt    string            `json:"created_at"`
}

// ConfigMergeSaveArgs are config.template's values in the shape of
// config.merge_save's arguments.
type ConfigMergeSaveArgs struct {
	Base  map[string]any                      `json:"base"`
	Steps map[catalog.NodeName]map[string]any `json:"steps"`
}

// ConfigTemplateData is the data of config.template: every field with
// its default as merge_save arguments, every blank by path, each node's
// config class and key, and with detail full the config.json skeleton.
type ConfigTemplateData struct {
	// Detail is the detail answered: compact or full.
	Detail string `json:"detail"`
	// Config is the config.json document, essential fields null (detail
	// full only).
	Config          map[string]any                         `json:"config,omitempty"`
	MergeSaveArgs   ConfigMergeSaveArgs                    `json:"merge_save_args"`
	EssentialFields []string                               `json:"essential_fields"`
	ConfigClassMap  map[catalog.NodeName]string            `json:"config_class_map"`
	ConfigKeys      map[catalog.NodeName]catalog.ConfigKey `json:"config_keys"`
	PendingSteps    []catalog.NodeName                     `json:"pending_steps"`
}
