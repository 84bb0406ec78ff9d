package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

// CatalogNamespace returns the catalog namespace: its description and tools, built anew
// on each call (DefaultNamespaces lists it).
func CatalogNamespace() registry.Namespace {
	return namespace("catalog", "Step catalog: list, search and inspect the step types the engine knows (names, verbs, ports, config fields, builders), including steps from workspace directories.",
		registry.New("catalog.list_steps", registry.Spec{
			Description: "Lists the step types (embedded plus workspace_dirs), sorted by name.",
			When:        "first look at which steps exist, before planning a DAG",
			Examples: []string{
				`catalog.list_steps {}  # every step type`,
				`catalog.list_steps {"job_type": "calibration"}  # steps that declare a calibration job type`,
				`catalog.list_steps {"sagemaker_step_type": "Training"}  # training steps only`,
				`catalog.list_steps {"workspace_dirs": ["my_steps"], "workspace_id": "my_steps"}  # only the steps of a workspace directory`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhasePlanner},
		}, catalogListSteps),
		registry.New("catalog.search", registry.Spec{
			Core:        true,
			Description: "Fuzzy search over step names, aliases and keywords (abbreviations such as xgb, substrings, near spellings): scored matches with reasons, best first.",
			When:        "you know part of a step's name or what it does",
			Examples: []string{
				`catalog.search {"query": "xgb train"}  # XGBoostTraining first`,
				`catalog.search {"query": "preprocess"}  # TabularPreprocessing and friends`,
				`catalog.search {"query": "eval", "job_type": "calibration"}  # only steps that declare a calibration job type`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhasePlanner},
		}, catalogSearch),
		registry.New("catalog.step_info", registry.Spec{
			Description: "One step type's names and metadata: SageMaker step type, config class, builder, framework, job types, aliases, components and source.",
			When:        "you need a step's config class, builder, verb or framework",
			Examples: []string{
				`catalog.step_info {"step_name": "XGBoostTraining"}`,
				`catalog.step_info {"step_name": "TabularPreprocessing", "job_type": "training"}`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhasePlanner},
		}, catalogStepInfo),
		registry.New("catalog.step_spec", registry.Spec{
			Description: "A step's ports as the dependency resolver sees them: dependencies (type, required, compatible sources, keywords) and outputs (type, property path, aliases).",
			When:        "before wiring a step into a DAG",
			Examples: []string{
				`catalog.step_spec {"step_name": "XGBoostTraining"}  # ports of the training step`,
				`catalog.step_spec {"step_name": "RiskTableMapping", "job_type": "validation"}  # variant: model_artifacts_input required`,
			},
			Tags: []string{registry.PhasePlanner},
		}, catalogStepSpec),
		registry.New("catalog.config_fields", registry.Spec{
			Description: "A step's config fields, essential first: type, default, tier, allowed values, bounds, description. Paged (limit 50).",
			When:        "writing or checking a step's config",
			Examples: []string{
				`catalog.config_fields {"step_name": "XGBoostTraining"}  # every field`,
				`catalog.config_fields {"step_name": "TabularPreprocessing", "tier": "essential"}  # only what the user must supply`,
				`catalog.config_fields {"step_name": "XGBoostTuning", "offset": 50}  # the fields after the first page`,
				`catalog.config_fields {"step_name": "XGBoostTraining", "fields": ["objective", "eta"], "detail": "full"}  # two fields, with their source`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhasePlanner, registry.PhaseProgrammer},
		}, catalogConfigFields),
		registry.New("catalog.resolve_step", registry.Spec{
			Description: "Resolves a loosely written step name (alias, node name with a job-type suffix, file-style name) to its canonical step type and class names, with the rule that matched.",
			When:        "you need the canonical step type of a node, file or legacy name",
			Examples: []string{
				`catalog.resolve_step {"step_name": "model_evaluation_xgb"}  # -> XGBoostModelEval (file_name)`,
				`catalog.resolve_step {"step_name": "TabularPreprocessing_training"}  # -> TabularPreprocessing + job type`,
			},
			Tags: []string{registry.PhaseProgrammer},
		}, catalogResolveStep),
		registry.New("catalog.list_builders", registry.Spec{
			Description: "The builder name of every step type (<Step>StepBuilder unless its interface says otherwise).",
			When:        "you need builder names, e.g. for a compile report",
			Examples: []string{
				`catalog.list_builders {}  # every builder`,
				`catalog.list_builders {"sagemaker_step_type": "Processing"}  # Processing builders only`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhaseProgrammer},
		}, catalogListBuilders),
	)
}

// --- catalog.list_steps ---

type listStepsArgs struct {
	WorkspaceID       string `json:"workspace_id,omitempty" jsonschema_description:"Only this workspace's steps: core (embedded) or a workspace directory's base name."`
	JobType           string `json:"job_type,omitempty" jsonschema_description:"Only steps that declare this job type."`
	SageMakerStepType string `json:"sagemaker_step_type,omitempty" jsonschema:"enum=Processing,enum=Training,enum=CreateModel,enum=Transform,enum=RegisterModel,enum=Tuning" jsonschema_description:"Only steps of this SageMaker step type."`
	catalogWorkspace
}

func catalogListSteps(ctx context.Context, a listStepsArgs) (*envelope.Result[CatalogListStepsData], error) {
	cat, err := loadCatalog(ctx, a.WorkspaceDirs)
	if err != nil {
		return nil, err
	}
	jt := strings.ToLower(strings.TrimSpace(a.JobType))
	ws := strings.TrimSpace(a.WorkspaceID)
	steps := []string{}
	for _, s := range cat.Steps() {
		if ws != "" && s.WorkspaceID != ws {
			continue
		}
		if jt != "" && !slices.Contains(s.JobTypes, jt) {
			continue
		}
		if a.SageMakerStepType != "" && string(s.Verb) != a.SageMakerStepType {
			continue
		}
		steps = append(steps, string(s.Type))
	}
	res := envelope.Success(CatalogListStepsData{Steps: steps, Count: len(steps)}).
		WithMeta("workspace_id", nullIfEmpty(ws)).
		WithMeta("job_type", nullIfEmpty(jt))
	if a.SageMakerStepType != "" {
		res.SetMeta("sagemaker_step_type", a.SageMakerStepType)
	}
	if len(steps) == 0 {
		res.WithWarnings("no step type matches the filters")
	}
	return res.WithNextSteps(
		envelope.NextStep{Tool: "catalog.step_info", When: "a listed step looks right", Why: "see its verb, config class and framework", ArgsHint: map[string]any{"step_name": "<one of steps>"}},
		envelope.NextStep{Tool: "steps.io", When: "you are about to wire a step", Why: "see its ports, container paths and training channels", ArgsHint: map[string]any{"step_name": "<one of steps>"}},
	), nil
}

// --- catalog.search ---

type catSearchArgs struct {
	Query   string `json:"query" jsonschema:"required,maxLength=1000" jsonschema_description:"Part of a step name or words describing it, e.g. 'xgb train', 'preprocess', 'risk table'."`
	JobType string `json:"job_type,omitempty" jsonschema_description:"Only steps that declare this job type."`
	catalogWorkspace
}

func catalogSearch(ctx context.Context, a catSearchArgs) (*envelope.Result[CatalogSearchData], error) {
	if strings.TrimSpace(a.Query) == "" {
		return nil, envelope.InvalidInput("query must be a non-empty string").WithDetails("query", a.Query)
	}
	cat, err := loadCatalog(ctx, a.WorkspaceDirs)
	if err != nil {
		return nil, err
	}
	found := cat.SearchJobType(a.Query, a.JobType)
	matches := make([]CatalogSearchMatch, len(found))
	for i, m := range found {
		matches[i] = CatalogSearchMatch{
			StepName:            string(m.Type),
			WorkspaceID:         m.Step.WorkspaceID,
			Score:               m.Score,
			MatchReason:         m.Reason,
			ComponentsAvailable: m.Step.Components(),
			SageMakerStepType:   string(m.Step.Verb),
			Description:         m.Step.Description,
		}
	}
	res := envelope.Success(CatalogSearchData{Matches: matches, Count: len(matches)}).WithMeta("query", a.Query)
	if a.JobType != "" {
		res.SetMeta("job_type", a.JobType)
	}
	if len(matches) == 0 {
		return res.WithWarnings("no step matches the query").WithNextSteps(
			envelope.NextStep{Tool: "catalog.list_steps", When: "the search found nothing", Why: "see every step type", ArgsHint: map[string]any{}},
		), nil
	}
	return res.WithNextSteps(
		envelope.NextStep{Tool: "catalog.step_info", When: "the first match is the step you meant", Why: "see its verb, config class and framework", ArgsHint: map[string]any{"step_name": matches[0].StepName}},
	), nil
}

// --- catalog.step_info ---

type catStepArgs struct {
	StepName string `json:"step_name" jsonschema:"required" jsonschema_description:"Step type, e.g. XGBoostTraining; a node name such as TabularPreprocessing_training or an alias also works."`
	JobType  string `json:"job_type,omitempty" jsonschema_description:"Job type (training, validation, testing, calibration, ...); selects the step's variant when it has one."`
	catalogWorkspace
}

func catalogStepInfo(ctx context.Context, a catStepArgs) (*envelope.Result[CatalogStepInfoData], error) {
	s, jt, err := loadStep(ctx, a.WorkspaceDirs, a.StepName, a.JobType)
	if err != nil {
		return nil, err
	}
	jobTypes := append([]string{}, s.JobTypes...)
	data := CatalogStepInfoData{
		StepName:    string(s.Type),
		WorkspaceID: s.WorkspaceID,
		RegistryData: CatalogRegistryData{
			ConfigClass:       s.ConfigClass,
			BuilderStepName:   s.BuilderName,
			SpecType:          string(s.Type),
			SageMakerStepType: string(s.Verb),
			Description:       s.Description,
			JobTypes:          jobTypes,
		},
		ConfigClass:         s.ConfigClass,
		BuilderStepName:     s.BuilderName,
		SageMakerStepType:   string(s.Verb),
		Description:         s.Description,
		ComponentsAvailable: s.Components(),
		FileComponents:      CatalogFileComponents{Interface: s.Source, Script: optString(s.Contract.EntryPoint)},
		Framework:           optString(s.Framework),
		NodeType:            string(s.Kind),
		JobTypes:            jobTypes,
		JobType:             optString(jt),
		HasVariant:          s.IsVariant(),
		Aliases:             append([]string{}, s.Aliases...),
		FieldSets:           nonNilList(s.FieldSets),
		SageMakerStepName:   string(catalog.SageMakerName(s.Type, jt)),
		ConfigKey:           string(catalog.ConfigKeyFor(s.Type, jt)),
		Overrides:           s.Overrides,
	}
	res := envelope.Success(data).WithMeta("step_name", a.StepName)
	if s.Framework == "" {
		res.WithWarnings("the step's interface names no framework")
	}
	if jt != "" && len(s.Variants) > 0 && !s.IsVariant() {
		res.WithWarnings("the step has no variant for job type " + jt + "; its base definition applies")
	}
	return res.WithNextSteps(
		envelope.NextStep{Tool: "steps.io", When: "you will wire this step", Why: "see its ports, container paths and channels", ArgsHint: map[string]any{"step_name": string(s.Type)}},
		envelope.NextStep{Tool: "catalog.config_fields", When: "you will write its config", Why: "see the fields, tiers and defaults", ArgsHint: map[string]any{"step_name": string(s.Type)}},
	), nil
}

// --- catalog.step_spec ---

func catalogStepSpec(ctx context.Context, a catStepArgs) (*envelope.Result[CatalogStepSpecData], error) {
	s, jt, err := loadStep(ctx, a.WorkspaceDirs, a.StepName, a.JobType)
	if err != nil {
		return nil, err
	}
	deps := make([]CatalogDependency, len(s.Inputs))
	for i, in := range s.Inputs {
		deps[i] = CatalogDependency{
			LogicalName:       in.LogicalName,
			DependencyType:    string(in.Type),
			Required:          in.Required,
			CompatibleSources: nonNilList(in.CompatibleSources),
			SemanticKeywords:  nonNilList(in.SemanticKeywords),
			DataType:          in.DataType,
			Description:       in.Description,
			Aliases:           in.Aliases,
			ConfigSource:      in.ConfigSource,
		}
	}
	outs := make([]CatalogOutput, len(s.Outputs))
	for i, o := range s.Outputs {
		outs[i] = CatalogOutput{
			LogicalName:      o.LogicalName,
			OutputType:       string(o.Type),
			PropertyPath:     o.PropertyPath,
			Aliases:          nonNilList(o.Aliases),
			SemanticKeywords: nonNilList(o.SemanticKeywords),
			DataType:         o.DataType,
			Description:      o.Description,
		}
	}
	data := CatalogStepSpecData{
		StepType:        string(s.Type),
		NodeType:        string(s.Kind),
		JobType:         optString(jt),
		Dependencies:    deps,
		Outputs:         outs,
		DependencyCount: len(deps),
		OutputCount:     len(outs),
	}
	return envelope.Success(data).WithMeta("step_name", a.StepName).WithNextSteps(
		envelope.NextStep{Tool: "steps.io", When: "you need container paths or training channels", Why: "the spec lists ports; steps.io adds where each lands in the container", ArgsHint: map[string]any{"step_name": string(s.Type)}},
		envelope.NextStep{Tool: "validate.deps_resolve", When: "you want to see what would feed these ports in a DAG", Why: "runs the dependency resolver", ArgsHint: map[string]any{"step_names": []string{"<upstream step>", string(s.Type)}}},
	), nil
}

// --- catalog.config_fields ---

type configFieldsArgs struct {
	StepName string   `json:"step_name" jsonschema:"required" jsonschema_description:"Step type, e.g. XGBoostTraining; a node name such as TabularPreprocessing_training or an alias also works."`
	Tier     string   `json:"tier,omitempty" jsonschema:"enum=essential,enum=system,enum=derived" jsonschema_description:"Only fields of this tier."`
	Fields   []string `json:"fields,omitempty" jsonschema:"maxItems=500" jsonschema_description:"Only these fields."`
	Detail   string   `json:"detail,omitempty" jsonschema:"enum=compact,enum=full,default=compact" jsonschema_description:"full adds sources."`
	page
	catalogWorkspace
}

// page is the offset and limit of a paged list.
type page struct {
	Offset int `json:"offset,omitempty" jsonschema:"minimum=0" jsonschema_description:"The previous page's next_offset."`
	Limit  int `json:"limit,omitempty" jsonschema:"minimum=1,maximum=500,default=50" jsonschema_description:"Items per page."`
}

// defaultPageLimit is the items of a page when limit is not given: a
// page of config fields stays well within the 16 KB an answer may take.
const defaultPageLimit = 50

// window returns the bounds of the page in a list of n items and the
// offset of the next page (nil on the last).
func (p page) window(n int) (from, to int, next *int) {
	limit := p.Limit
	if limit <= 0 {
		limit = defaultPageLimit
	}
	from = min(max(p.Offset, 0), n)
	to = min(from+limit, n)
	if to < n {
		next = &to
	}
	return from, to, next
}

// tierOrder is the order of a paged field list: what the user supplies
// first, what is derived last.
var tierOrder = map[catalog.FieldTier]int{catalog.TierEssential: 0, catalog.TierSystem: 1, catalog.TierDerived: 2}

func catalogConfigFields(ctx context.Context, a configFieldsArgs) (*envelope.Result[CatalogConfigFieldsData], error) {
	s, _, err := loadStep(ctx, a.WorkspaceDirs, a.StepName, "")
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, n := range a.Fields {
		want[n] = true
	}
	for _, n := range a.Fields {
		if _, ok := s.Field(n); !ok {
			names := []string{}
			for _, f := range s.Fields {
				names = append(names, f.Name)
			}
			return nil, envelope.InvalidInput("fields: %s has no field %q", s.ConfigClass, n).WithDetails("field", "fields", "available", names).
				WithRemedy("name fields from meta.details.available, or leave fields out for every field", "catalog.config_fields")
		}
	}
	all := []CatalogConfigField{}
	tiers := map[string]int{}
	for _, f := range s.Fields {
		tiers[string(f.Tier)]++
		if (a.Tier != "" && string(f.Tier) != a.Tier) || (len(want) > 0 && !want[f.Name]) {
			continue
		}
		cf := CatalogConfigField{
			Name:        f.Name,
			Type:        string(f.Type),
			Required:    f.Required(),
			Default:     f.Default,
			Tier:        string(f.Tier),
			Description: f.Description,
			Allowed:     f.Allowed,
			Min:         f.Min,
			Max:         f.Max,
			Pattern:     f.Pattern,
			Derivation:  f.Derivation,
			Hyper:       f.Hyperparameter,
		}
		if a.Detail == "full" {
			cf.Source = f.Source
		}
		all = append(all, cf)
	}
	order := map[string]catalog.FieldTier{}
	for _, f := range s.Fields {
		order[f.Name] = f.Tier
	}
	slices.SortStableFunc(all, func(x, y CatalogConfigField) int {
		return tierOrder[order[x.Name]] - tierOrder[order[y.Name]]
	})
	from, to, next := a.page.window(len(all))
	fields := all[from:to]
	data := CatalogConfigFieldsData{
		StepName:    string(s.Type),
		ConfigClass: s.ConfigClass,
		FieldSets:   nonNilList(s.FieldSets),
		Fields:      fields,
		Count:       len(fields),
		Total:       len(all),
		Offset:      from,
		NextOffset:  next,
		TierCounts:  tiers,
	}
	res := envelope.Success(data).WithMeta("step_name", a.StepName)
	if next != nil {
		args := map[string]any{"step_name": string(s.Type), "offset": *next}
		if a.Tier != "" {
			args["tier"] = a.Tier
		}
		if a.Detail != "" {
			args["detail"] = a.Detail
		}
		if a.Limit > 0 {
			args["limit"] = a.Limit
		}
		res.WithWarnings(fmt.Sprintf("fields %d-%d of %d: the rest from offset %d", from+1, to, len(all), *next)).
			WithNextSteps(envelope.NextStep{Tool: "catalog.config_fields", When: "you need the fields after this page", Why: "the list is paged", ArgsHint: withWorkspace(args, a.WorkspaceDirs)})
	}
	return res.WithNextSteps(
		envelope.NextStep{Tool: "config.requirements", When: "you are filling a config for a whole DAG", Why: "lists what every node of the DAG needs", ArgsHint: map[string]any{"dag": map[string]any{"nodes": []string{string(s.Type)}, "edges": [][]string{}}}},
	), nil
}

// --- catalog.resolve_step ---

type resolveStepArgs struct {
	StepName string `json:"step_name" jsonschema:"required" jsonschema_description:"A canonical name, alias, DAG node name (TabularPreprocessing_training) or file-style name (model_evaluation_xgb)."`
	catalogWorkspace
}

func catalogResolveStep(ctx context.Context, a resolveStepArgs) (*envelope.Result[CatalogResolveStepData], error) {
	if err := requireStepName(a.StepName); err != nil {
		return nil, err
	}
	name := strings.TrimSpace(a.StepName)
	cat, err := loadCatalog(ctx, a.WorkspaceDirs)
	if err != nil {
		return nil, err
	}
	var (
		s       *catalog.Step
		source  string
		jobType string
	)
	if x, ok := cat.Step(catalog.StepType(name)); ok {
		s, source = x, "canonical"
	} else if t, jt, ok := cat.ResolveNode(catalog.NodeName(name)); ok {
		s, jobType = catStep(cat, t), jt
		source = "node_name"
		if jt == "" {
			source = "alias"
			if catalog.CanonicalKey(name) == catalog.CanonicalKey(string(t)) {
				source = "canonical_key"
			}
		}
	} else if t, ok := cat.ResolveFileName(name); ok {
		s, source = catStep(cat, t), "file_name"
	}
	if s == nil {
		e := stepNotFound(name, cat.Closest(name, 5))
		e.WithDetails("available", asStrings(cat.Names()))
		return nil, e
	}
	data := CatalogResolveStepData{
		Input:             a.StepName,
		CanonicalName:     string(s.Type),
		ConfigClass:       s.ConfigClass,
		BuilderClass:      s.BuilderName,
		SpecType:          string(s.Type),
		SageMakerStepType: string(s.Verb),
		Source:            source,
		JobType:           optString(jobType),
		SnakeName:         catalog.CanonicalToSnake(s.Type),
	}
	return envelope.Success(data).WithMeta("step_name", a.StepName).WithNextSteps(
		envelope.NextStep{Tool: "catalog.step_info", When: "you want the step's metadata", Why: "verb, framework, components", ArgsHint: map[string]any{"step_name": string(s.Type)}},
	), nil
}

func catStep(cat *catalog.Catalog, t catalog.StepType) *catalog.Step {
	s, _ := cat.Step(t)
	return s
}

// --- catalog.list_builders ---

type listBuildersArgs struct {
	SageMakerStepType string `json:"sagemaker_step_type,omitempty" jsonschema:"enum=Processing,enum=Training,enum=CreateModel,enum=Transform,enum=RegisterModel,enum=Tuning" jsonschema_description:"Only builders of steps with this SageMaker step type."`
	catalogWorkspace
}

func catalogListBuilders(ctx context.Context, a listBuildersArgs) (*envelope.Result[CatalogListBuildersData], error) {
	cat, err := loadCatalog(ctx, a.WorkspaceDirs)
	if err != nil {
		return nil, err
	}
	builders := []CatalogBuilder{}
	for _, s := range cat.Steps() { // sorted by step type
		if a.SageMakerStepType != "" && string(s.Verb) != a.SageMakerStepType {
			continue
		}
		builders = append(builders, CatalogBuilder{StepName: string(s.Type), BuilderClass: s.BuilderName, SageMakerStepType: string(s.Verb)})
	}
	return envelope.Success(CatalogListBuildersData{Builders: builders, Count: len(builders)}).
		WithMeta("sagemaker_step_type", nullIfEmpty(a.SageMakerStepType)), nil
}

// --- data (field order is the wire order) ---

// CatalogListStepsData is the data of catalog.list_steps: the step types
// that pass the filters, sorted.
type CatalogListStepsData struct {
	Steps []string `json:"steps"`
	Count int      `json:"count"`
}

// CatalogSearchMatch is one match of catalog.search.
type CatalogSearchMatch struct {
	StepName    string `json:"step_name"`
	WorkspaceID string `json:"workspace_id"`
	// Score is 1.0 for the exact name, less for a looser match.
	Score float64 `json:"score"`
	// MatchReason says which rule matched (name, alias, keyword, ...).
	MatchReason         string   `json:"match_reason"`
	ComponentsAvailable []string `json:"components_available"`
	SageMakerStepType   string   `json:"sagemaker_step_type"`
	Description         string   `json:"description"`
}

// CatalogSearchData is the data of catalog.search: the matches, best first.
type CatalogSearchData struct {
	Matches []CatalogSearchMatch `json:"matches"`
	Count   int                  `json:"count"`
}

// CatalogRegistryData is a step's registry entry, as catalog.step_info
// repeats it.
type CatalogRegistryData struct {
	ConfigClass       string   `json:"config_class"`
	BuilderStepName   string   `json:"builder_step_name"`
	SpecType          string   `json:"spec_type"`
	SageMakerStepType string   `json:"sagemaker_step_type"`
	Description       string   `json:"description"`
	JobTypes          []string `json:"job_types"`
}

// CatalogFileComponents names where a step comes from: its interface file
// and its script (null when the step runs none).
type CatalogFileComponents struct {
	Interface string  `json:"interface"`
	Script    *string `json:"script"`
}

// CatalogStepInfoData is the data of catalog.step_info: a step's naming and
// component metadata.
type CatalogStepInfoData struct {
	StepName            string                `json:"step_name"`
	WorkspaceID         string                `json:"workspace_id"`
	RegistryData        CatalogRegistryData   `json:"registry_data"`
	ConfigClass         string                `json:"config_class"`
	BuilderStepName     string                `json:"builder_step_name"`
	SageMakerStepType   string                `json:"sagemaker_step_type"`
	Description         string                `json:"description"`
	ComponentsAvailable []string              `json:"components_available"`
	FileComponents      CatalogFileComponents `json:"file_components"`
	Framework           *string               `json:"framework"`
	NodeType            string                `json:"node_type"`
	JobTypes            []string              `json:"job_types"`
	// JobType is the job type asked for (or the node name's suffix), null without one.
	JobType           *string  `json:"job_type"`
	HasVariant        bool     `json:"has_variant"`
	Aliases           []string `json:"aliases"`
	FieldSets         []string `json:"field_sets"`
	SageMakerStepName string   `json:"sagemaker_step_name"`
	ConfigKey         string   `json:"config_key"`
	// Overrides names the embedded step a workspace step replaces.
	Overrides string `json:"overrides,omitempty"`
}

// CatalogDependency is one input port of a step, as the dependency
// resolver sees it.
type CatalogDependency struct {
	LogicalName       string   `json:"logical_name"`
	DependencyType    string   `json:"dependency_type"`
	Required          bool     `json:"required"`
	CompatibleSources []string `json:"compatible_sources"`
	SemanticKeywords  []string `json:"semantic_keywords"`
	DataType          string   `json:"data_type"`
	Description       string   `json:"description"`
	Aliases           []string `json:"aliases,omitempty"`
	// ConfigSource names the config field the input can come from instead of an edge.
	ConfigSource string `json:"config_source,omitempty"`
}

// CatalogOutput is one output port of a step.
type CatalogOutput struct {
	LogicalName      string   `json:"logical_name"`
	OutputType       string   `json:"output_type"`
	PropertyPath     string   `json:"property_path"`
	Aliases          []string `json:"aliases"`
	SemanticKeywords []string `json:"semantic_keywords"`
	DataType         string   `json:"data_type"`
	Description      string   `json:"description"`
}

// CatalogStepSpecData is the data of catalog.step_spec: a step's ports.
type CatalogStepSpecData struct {
	StepType        string              `json:"step_type"`
	NodeType        string              `json:"node_type"`
	JobType         *string             `json:"job_type"`
	Dependencies    []CatalogDependency `json:"dependencies"`
	Outputs         []CatalogOutput     `json:"outputs"`
	DependencyCount int                 `json:"dependency_count"`
	OutputCount     int                 `json:"output_count"`
}

// CatalogConfigField is one config field of a step's config class.
type CatalogConfigField struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Required bool   `json:"required"`
	// Default is the field's default value, of the field's type (null: none).
	Default any `json:"default"`
	// Tier is essential (the user supplies it), system (has a default) or derived (computed).
	Tier        string   `json:"tier"`
	Description string   `json:"description"`
	Allowed     []any    `json:"allowed_values,omitempty"`
	Min         *float64 `json:"min,omitempty"`
	Max         *float64 `json:"max,omitempty"`
	Pattern     string   `json:"pattern,omitempty"`
	Derivation  string   `json:"derivation,omitempty"`
	// Source is the field set (fieldset:<name>) or the step (step) that
	// declares the field (detail full).
	Source string `json:"source,omitempty"`
	// Hyper: the field is passed to the training job as a hyperparameter.
	Hyper bool `json:"hyperparameter,omitempty"`
}

// CatalogConfigFieldsData is the data of catalog.config_fields.
type CatalogConfigFieldsData struct {
	StepName    string   `json:"step_name"`
	ConfigClass string   `json:"config_class"`
	FieldSets   []string `json:"field_sets"`
	// Fields are the page's fields: essential first, then system, then
	// derived, each tier in declaration order.
	Fields []CatalogConfigField `json:"fields"`
	// Count is the fields in this answer; Total those that pass the
	// filters; Offset the first's position among them; NextOffset, when
	// more follow, the offset of the next page.
	Count      int  `json:"count"`
	Total      int  `json:"total"`
	Offset     int  `json:"offset"`
	NextOffset *int `json:"next_offset,omitempty"`
	// TierCounts counts every field of the class by tier (before the tier filter).
	TierCounts map[string]int `json:"tier_counts"`
}

// CatalogResolveStepData is the data of catalog.resolve_step: the
// canonical names of a loosely written step name and the rule that matched.
type CatalogResolveStepData struct {
	Input             string `json:"input"`
	CanonicalName     string `json:"canonical_name"`
	ConfigClass       string `json:"config_class"`
	BuilderClass      string `json:"builder_class"`
	SpecType          string `json:"spec_type"`
	SageMakerStepType string `json:"sagemaker_step_type"`
	// Source is the rule: canonical, canonical_key, alias, node_name or file_name.
	Source    string  `json:"source"`
	JobType   *string `json:"job_type"`
	SnakeName string  `json:"snake_name"`
}

// CatalogBuilder is one step type's builder.
type CatalogBuilder struct {
	StepName          string `json:"step_name"`
	BuilderClass      string `json:"builder_class"`
	SageMakerStepType string `json:"sagemaker_step_type"`
}

// CatalogListBuildersData is the data of catalog.list_builders.
type CatalogListBuildersData struct {
	Builders []CatalogBuilder `json:"builders"`
	Count    int              `json:"count"`
}

// --- helpers ---

// optString is s, or nil (JSON null) when s is empty: a nullable string
// field of a typed data struct.
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// nullIfEmpty is s, or nil (JSON null) when s is empty.
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
