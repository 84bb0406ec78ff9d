package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/pipelines"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

// PipelineCatalogNamespace returns the pipeline_catalog namespace: its description and tools, built anew
// on each call (DefaultNamespaces lists it).
func PipelineCatalogNamespace() registry.Namespace {
	return namespace("pipeline_catalog", "Shared pipeline catalog: ready-made DAGs of our step types (XGBoost, LightGBM, PyTorch; training to end-to-end with registration), with recommendation and configuration advice.",
		registry.New("pipeline_catalog.list", registry.Spec{
			Description: "Lists the shared DAGs by id with framework, complexity, task type, features and node count.",
			When:        "before designing a pipeline yourself",
			Examples: []string{
				`pipeline_catalog.list {}`,
				`pipeline_catalog.list {"framework": "xgboost", "feature": "registration"}  # XGBoost DAGs that register a model`,
				`pipeline_catalog.list {"framework": "lightgbm", "detail": "full"}  # with descriptions and features`,
			},
			Tags: []string{registry.PhasePlanner},
		}, pipelineCatalogList),
		registry.New("pipeline_catalog.recommend", registry.Spec{
			Core:        true,
			Description: "Ranks the shared DAGs by framework (a hard filter), where the data lives, facts about data and resources, and a free-text need; each with a score and reasons, and what none can serve as unmatched.",
			When:        "you know roughly what the pipeline must do",
			Examples: []string{
				`pipeline_catalog.recommend {"framework": "xgboost", "data_source": "s3", "need": "calibration and registration"}`,
				`pipeline_catalog.recommend {"data_type": "tabular", "has_labels": true, "need": "batch scoring", "max_results": 3}`,
			},
			Tags: []string{registry.PhasePlanner},
		}, pipelineCatalogRecommend),
		registry.New("pipeline_catalog.auto_select", registry.Spec{
			Description: "Picks the best shared DAG for a framework, features, task type and complexity, or none below min_score.",
			When:        "you want one DAG chosen from structured requirements",
			Examples: []string{
				`pipeline_catalog.auto_select {"framework": "xgboost", "features": ["training", "calibration"]}  # xgboost_complete_e2e`,
				`pipeline_catalog.auto_select {"framework": "pytorch", "features": ["batch_inference"], "min_score": 0.8}`,
			},
			Tags: []string{registry.PhasePlanner},
		}, pipelineCatalogAutoSelect),
		registry.New("pipeline_catalog.get_dag", registry.Spec{
			Description: "The full entry of one shared DAG: description, framework, features, nodes and edges, requirements, constraints, cost and advice.",
			When:        "you want all the facts of one DAG",
			Examples:    []string{`pipeline_catalog.get_dag {"dag_id": "xgboost_complete_e2e"}`},
			Tags:        []string{registry.PhasePlanner},
		}, pipelineCatalogGetDAG),
		registry.New("pipeline_catalog.load_dag", registry.Spec{
			Description: "The nodes and edges of one shared DAG, in the shape the dag.*, config.* and compile.* tools take as their dag argument.",
			When:        "you picked a DAG to configure or compile",
			Examples:    []string{`pipeline_catalog.load_dag {"dag_id": "lightgbm_complete_e2e"}`},
			Tags:        []string{registry.PhasePlanner},
		}, pipelineCatalogLoadDAG),
		registry.New("pipeline_catalog.config_guidance", registry.Spec{
			Description: "How to configure one shared DAG: the fields the user must fill, each node's config class, prerequisites, safe defaults, pitfalls and a decision tree.",
			When:        "you chose a DAG and will collect its config values",
			Examples:    []string{`pipeline_catalog.config_guidance {"dag_id": "xgboost_complete_e2e"}  # detail: true adds every field of every node`},
			Tags:        []string{registry.PhasePlanner},
		}, pipelineCatalogConfigGuidance),
	)
}

type pcListArgs struct {
	Framework  string `json:"framework,omitempty" jsonschema:"enum=xgboost,enum=lightgbm,enum=pytorch,enum=generic" jsonschema_description:"Only DAGs of this framework."`
	Complexity string `json:"complexity,omitempty" jsonschema:"enum=simple,enum=standard,enum=comprehensive" jsonschema_description:"Only DAGs of this complexity."`
	Feature    string `json:"feature,omitempty" jsonschema_description:"Only DAGs with this feature (training, evaluation, calibration, packaging, registration, batch_inference, tuning, ...)."`
	Detail     string `json:"detail,omitempty" jsonschema:"enum=brief,enum=full,default=brief" jsonschema_description:"brief: id, title, framework, complexity, task type and size of each DAG; full: also its description and features."`
}

type pcRecommendArgs struct {
	DataType     string `json:"data_type,omitempty" jsonschema:"enum=text,enum=tabular,enum=mixed" jsonschema_description:"text drops DAGs without text support."`
	HasLabels    bool   `json:"has_labels,omitempty" jsonschema:"default=true" jsonschema_description:"The data has labels (supervised DAGs score lower without)."`
	NeedsLLM     bool   `json:"needs_llm,omitempty" jsonschema:"default=false" jsonschema_description:"An LLM step is wanted."`
	MultiTask    bool   `json:"multi_task,omitempty" jsonschema:"default=false" jsonschema_description:"One model learns several tasks."`
	Incremental  bool   `json:"incremental,omitempty" jsonschema:"default=false" jsonschema_description:"The model is trained incrementally on new data."`
	Framework    string `json:"framework,omitempty" jsonschema:"enum=pytorch,enum=xgboost,enum=lightgbm,enum=lightgbmmt,enum=generic,enum=any" jsonschema_description:"Required framework (a hard filter); any or omitted: all."`
	GPUAvailable bool   `json:"gpu_available,omitempty" jsonschema:"default=true" jsonschema_description:"GPU instances may be used; false drops DAGs that need one."`
	Need         string `json:"need,omitempty" jsonschema:"maxLength=2000" jsonschema_description:"What the pipeline must do, in words (e.g. calibration and registration)."`
	MaxResults   int    `json:"max_results,omitempty" jsonschema:"default=5,minimum=1,maximum=50" jsonschema_description:"Number of recommendations."`
	DataSource   string `json:"data_source,omitempty" jsonschema:"enum=s3,enum=athena,enum=redshift,enum=cradle" jsonschema_description:"Where the data lives (cradle: the managed data service, left out otherwise). Omitted: inferred from need."`
}

type pcAutoSelectArgs struct {
	Framework  string   `json:"framework,omitempty" jsonschema:"enum=pytorch,enum=xgboost,enum=lightgbm,enum=lightgbmmt,enum=generic,enum=any"`
	Features   []string `json:"features,omitempty" jsonschema_description:"Wanted features (see pipeline_catalog.list)."`
	TaskType   string   `json:"task_type,omitempty" jsonschema_description:"Wanted task type, e.g. end_to_end, training_evaluation, batch_inference, tuning."`
	Complexity string   `json:"complexity,omitempty" jsonschema:"enum=simple,enum=standard,enum=advanced,enum=comprehensive" jsonschema_description:"Wanted complexity; neighbours get partial credit."`
	MinScore   float64  `json:"min_score,omitempty" jsonschema:"default=0.6,minimum=0,maximum=1" jsonschema_description:"Lowest score accepted."`
}

type pcDAGIDArgs struct {
	DagID string `json:"dag_id" jsonschema:"required,minLength=1" jsonschema_description:"Id of a shared DAG (see pipeline_catalog.list)."`
}

type pcGuidanceArgs struct {
	pcDAGIDArgs
	Detail bool `json:"detail,omitempty" jsonschema_description:"Add config_requirements: every field of every node, as config.requirements answers (tens of KB)."`
}

func pipelineCatalog() (*pipelines.Catalog, error) {
	c, err := pipelines.Default()
	if err != nil {
		return nil, envelope.Errorf(envelope.CodeInternalError, "cannot load the pipeline catalog: %v", err).WithDetails("exception", err.Error())
	}
	return c, nil
}

// pcEntry finds a DAG; an unknown id is not_found with the closest ids
// (pipelines.NotFoundError, through the kind table).
func pcEntry(id string) (*pipelines.Entry, error) {
	if strings.TrimSpace(id) == "" {
		return nil, envelope.InvalidInput("dag_id must be a non-empty DAG id").WithRemedy("pick an id from pipeline_catalog.list", "pipeline_catalog.list")
	}
	c, err := pipelineCatalog()
	if err != nil {
		return nil, err
	}
	e, err := c.Get(id)
	return e, toolError(err)
}

// PipelineCatalogListData is the data of pipeline_catalog.list.
type PipelineCatalogListData struct {
	Dags  []PipelineCatalogSummary `json:"dags"`
	Count int                      `json:"count"`
}

// PipelineCatalogSummary is one shared DAG in a list: what it is for and
// its size.
type PipelineCatalogSummary struct {
	DagID       string   `json:"dag_id"`
	Framework   string   `json:"framework"`
	Description string   `json:"description,omitempty"` // detail full
	TaskType    string   `json:"task_type"`
	Complexity  string   `json:"complexity"`
	Features    []string `json:"features,omitempty"` // detail full
	NodeCount   int      `json:"node_count"`
	Title       string   `json:"title"`
}

func pcSummary(e *pipelines.Entry) PipelineCatalogSummary {
	return PipelineCatalogSummary{DagID: e.ID, Framework: e.Framework, Description: e.Description, TaskType: e.TaskType,
		Complexity: e.Complexity, Features: nonNilList(e.Features), NodeCount: e.NodeCount(), Title: e.Title}
}

func pipelineCatalogList(ctx context.Context, a pcListArgs) (*envelope.Result[PipelineCatalogListData], error) {
	c, err := pipelineCatalog()
	if err != nil {
		return nil, err
	}
	feature := strings.ToLower(strings.TrimSpace(a.Feature))
	if feature != "" && !slices.Contains(pipelines.Features, feature) {
		return nil, envelope.InvalidInput("unknown feature %q", a.Feature).WithDetails("known_features", pipelines.Features).
			WithRemedy("use one of meta.details.known_features", "pipeline_catalog.list")
	}
	dags := []PipelineCatalogSummary{}
	for _, e := range c.List(pipelines.Filter{Framework: a.Framework, Complexity: a.Complexity, Feature: feature}) {
		s := pcSummary(e)
		if a.Detail != "full" { // the catalog's every DAG in one answer of bounded size
			s.Description, s.Features = "", nil
		}
		dags = append(dags, s)
	}
	res := envelope.Success(PipelineCatalogListData{Dags: dags, Count: len(dags)}).WithMeta("count", len(dags))
	if len(dags) == 0 {
		res.WithWarnings("no shared DAG matches these filters; drop one")
	}
	return res.WithNextSteps(
		envelope.NextStep{Tool: "pipeline_catalog.get_dag", When: "a DAG looks right", Why: "see its nodes, cost and advice", ArgsHint: map[string]any{"dag_id": "<dag_id>"}},
		envelope.NextStep{Tool: "pipeline_catalog.recommend", When: "you are unsure which to pick", Why: "rank them for your need", ArgsHint: map[string]any{"need": "<what the pipeline must do>"}},
	), nil
}

// PipelineCatalogRecommendData is the data of pipeline_catalog.recommend:
// per concept of the request whether the top DAG serves it (served,
// unserved: with the nearest DAG that does and the change), the top DAG
// with the mechanical changes made (adapted_dag), the ranked DAGs, how the
// request was read and what to do next.
type PipelineCatalogRecommendData struct {
	Served   []pipelines.ServedConcept   `json:"served"`
	Unserved []pipelines.UnservedConcept `json:"unserved"`
	// AdaptedDAG is the top DAG with the changes of unserved marked applied
	// made: pass its nodes and edges as the dag argument.
	AdaptedDAG      *pipelines.AdaptedDAG      `json:"adapted_dag,omitempty"`
	Status          string                     `json:"status"`
	TotalMatches    int                        `json:"total_matches"`
	Recommendations []pipelines.Recommendation `json:"recommendations"`
	// Concepts is the request as read.
	Concepts []pipelines.Concept `json:"concepts"`
	// NotNeeds are the words of the need read as no need.
	NotNeeds []string `json:"not_needs,omitempty"`
	// DataSource is where the data lives (given or inferred), null when unknown;
	// DataSourceFrom says how it was known (argument or need).
	DataSource     *string `json:"data_source"`
	DataSourceFrom string  `json:"data_source_from,omitempty"`
	// Framework is the framework filter, given or named in the need.
	Framework     string `json:"framework,omitempty"`
	FrameworkFrom string `json:"framework_from,omitempty"`
	// Excluded counts the DAGs dropped, by reason.
	Excluded map[string]int `json:"excluded,omitempty"`
	Action   string         `json:"action"`
	NextStep string         `json:"next_step"`
}

func pipelineCatalogRecommend(ctx context.Context, a pcRecommendArgs) (*envelope.Result[PipelineCatalogRecommendData], error) {
	c, err := pipelineCatalog()
	if err != nil {
		return nil, err
	}
	labels, gpu := a.HasLabels, a.GPUAvailable
	r := c.Recommend(pipelines.Request{DataType: a.DataType, HasLabels: &labels, NeedsLLM: a.NeedsLLM, MultiTask: a.MultiTask,
		Incremental: a.Incremental, Framework: a.Framework, GPUAvailable: &gpu, Need: a.Need, MaxResults: a.MaxResults, DataSource: a.DataSource})
	recs := r.Recommendations
	if recs == nil {
		recs = []pipelines.Recommendation{}
	}
	data := PipelineCatalogRecommendData{
		Served:          nonNilList(r.Served),
		Unserved:        nonNilList(r.Unserved),
		AdaptedDAG:      r.Adapted,
		Status:          "success",
		TotalMatches:    r.TotalMatches,
		Recommendations: recs,
		Concepts:        nonNilList(r.Concepts),
		NotNeeds:        r.NotNeeds,
		DataSource:      optString(r.DataSource),
		DataSourceFrom:  r.DataSourceFrom,
		Framework:       r.Framework,
		FrameworkFrom:   r.FrameworkFrom,
		Excluded:        r.Excluded,
	}
	var warns []string
	for _, u := range r.Unserved {
		if u.Applied {
			continue // said in unserved and made in adapted_dag
		}
		warns = append(warns, fmt.Sprintf("not served: %s (%q): %s; %s", u.ID, u.Phrase, u.Reason, u.Change))
	}
	warns = append(warns, r.Notes...)
	if len(recs) == 0 {
		data.Action = "No shared DAG fits these requirements; relax them or design a DAG with dag.construct."
		data.NextStep = "pipeline_catalog.list"
		return envelope.Success(data).WithMeta("total_matches", 0).WithWarnings(append(warns, fmt.Sprintf("no DAG scored above %g", pipelines.MinRecommendScore))...).
			WithNextSteps(envelope.NextStep{Tool: "pipeline_catalog.list", When: "to see every DAG", Why: "nothing matched the filters", ArgsHint: map[string]any{}}), nil
	}
	top := recs[0].DagID
	res := envelope.Success(data).WithMeta("total_matches", r.TotalMatches).WithMeta("top", top)
	if r.Adapted != nil {
		data.Action = fmt.Sprintf("Use adapted_dag (%s with %d change(s) made) as the dag argument: config.template on it, then config.merge_save. Its changes are listed in unserved.", top, len(r.Adapted.Changes))
		data.NextStep = "config.template"
		res.Data = data
		return res.WithWarnings(warns...).WithNextSteps(
			envelope.NextStep{Tool: "config.template", When: "you accept the adapted DAG", Why: "every field in place with its default; fill the essential ones",
				ArgsHint: map[string]any{"dag": map[string]any{"nodes": r.Adapted.Nodes, "edges": r.Adapted.Edges}}},
			envelope.NextStep{Tool: "pipeline_catalog.config_guidance", When: "to read the catalog's advice on " + top, Why: "the fields to collect, pitfalls, second data sets", ArgsHint: map[string]any{"dag_id": top}},
		), nil
	}
	data.Action = fmt.Sprintf("Review the top recommendation %s with pipeline_catalog.get_dag, then collect its configuration with pipeline_catalog.config_guidance.", top)
	data.NextStep = "pipeline_catalog.config_guidance"
	res.Data = data
	return res.WithWarnings(warns...).
		WithNextSteps(
			envelope.NextStep{Tool: "pipeline_catalog.config_guidance", When: "you chose a DAG", Why: "learn which config values to collect", ArgsHint: map[string]any{"dag_id": top}},
			envelope.NextStep{Tool: "config.template", When: "to start its config", Why: "every field in place with its default", ArgsHint: map[string]any{"dag_id": top}},
		), nil
}

// PipelineCatalogAutoSelectData is the data of pipeline_catalog.auto_select:
// the chosen DAG and its score, both null when none met min_score.
type PipelineCatalogAutoSelectData struct {
	DagID     *string  `json:"dag_id"`
	Score     *float64 `json:"score"`
	Matched   bool     `json:"matched"`
	Reasoning string   `json:"reasoning,omitempty"`
}

func pipelineCatalogAutoSelect(ctx context.Context, a pcAutoSelectArgs) (*envelope.Result[PipelineCatalogAutoSelectData], error) {
	c, err := pipelineCatalog()
	if err != nil {
		return nil, err
	}
	for i, f := range a.Features {
		if strings.TrimSpace(f) == "" {
			return nil, envelope.InvalidInput("features[%d] is blank", i)
		}
	}
	m, ok := c.AutoSelect(pipelines.Query{Framework: a.Framework, Features: a.Features, TaskType: a.TaskType, Complexity: a.Complexity}, a.MinScore)
	if !ok {
		return envelope.Success(PipelineCatalogAutoSelectData{}).
			WithWarnings("No DAG met the minimum score threshold.").
			WithNextSteps(envelope.NextStep{Tool: "pipeline_catalog.recommend", When: "no DAG was selected", Why: "see ranked candidates with reasons"}), nil
	}
	return envelope.Success(PipelineCatalogAutoSelectData{DagID: &m.DagID, Score: &m.Score, Matched: true, Reasoning: m.Reasoning}).
		WithMeta("dag_id", m.DagID).
		WithNextSteps(envelope.NextStep{Tool: "pipeline_catalog.load_dag", When: "to use the selected DAG", Why: "get its nodes and edges", ArgsHint: map[string]any{"dag_id": m.DagID}}), nil
}

func pcDAGArg(e *pipelines.Entry) map[string]any {
	return map[string]any{"nodes": e.Nodes, "edges": e.Edges}
}

// PipelineCatalogGetDAGData is the data of pipeline_catalog.get_dag: every
// fact of one shared DAG.
type PipelineCatalogGetDAGData struct {
	Status            string                      `json:"status"`
	Action            string                      `json:"action"`
	DagID             string                      `json:"dag_id"`
	Title             string                      `json:"title"`
	Description       string                      `json:"description"`
	Framework         string                      `json:"framework"`
	Complexity        string                      `json:"complexity"`
	TaskType          string                      `json:"task_type"`
	Features          []string                    `json:"features"`
	Nodes             []string                    `json:"nodes"`
	Edges             [][]string                  `json:"edges"`
	NodeCount         int                         `json:"node_count"`
	EdgeCount         int                         `json:"edge_count"`
	InputRequirements pipelines.InputRequirements `json:"input_requirements"`
	Constraints       pipelines.Constraints       `json:"constraints"`
	Cost              pipelines.Cost              `json:"cost"`
	AgentContext      pipelines.AgentContext      `json:"agent_context"`
}

func pipelineCatalogGetDAG(ctx context.Context, a pcDAGIDArgs) (*envelope.Result[PipelineCatalogGetDAGData], error) {
	e, err := pcEntry(a.DagID)
	if err != nil {
		return nil, err
	}
	data := PipelineCatalogGetDAGData{
		Status: "success", Action: "Load it with pipeline_catalog.load_dag and collect its configuration with pipeline_catalog.config_guidance.",
		DagID: e.ID, Title: e.Title, Description: e.Description, Framework: e.Framework, Complexity: e.Complexity,
		TaskType: e.TaskType, Features: nonNilList(e.Features), Nodes: nonNilList(e.Nodes), Edges: nonNilList(e.Edges),
		NodeCount: e.NodeCount(), EdgeCount: e.EdgeCount(),
		InputRequirements: e.InputRequirements, Constraints: e.Constraints, Cost: e.Cost, AgentContext: e.AgentContext,
	}
	return envelope.Success(data).WithMeta("dag_id", e.ID).WithNextSteps(
		envelope.NextStep{Tool: "pipeline_catalog.config_guidance", When: "you want to use this DAG", Why: "learn which config values to collect", ArgsHint: map[string]any{"dag_id": e.ID}},
		envelope.NextStep{Tool: "pipeline_catalog.load_dag", When: "you want its DAG argument", Why: "nodes and edges ready for config.* and compile.*", ArgsHint: map[string]any{"dag_id": e.ID}},
	), nil
}

// PipelineCatalogLoadDAGData is the data of pipeline_catalog.load_dag: the
// nodes and edges, in the shape of the dag argument of dag.*, config.* and
// compile.*.
type PipelineCatalogLoadDAGData struct {
	DagID     string     `json:"dag_id"`
	Nodes     []string   `json:"nodes"`
	Edges     [][]string `json:"edges"`
	NodeCount int        `json:"node_count"`
	EdgeCount int        `json:"edge_count"`
}

func pipelineCatalogLoadDAG(ctx context.Context, a pcDAGIDArgs) (*envelope.Result[PipelineCatalogLoadDAGData], error) {
	e, err := pcEntry(a.DagID)
	if err != nil {
		return nil, err
	}
	data := PipelineCatalogLoadDAGData{DagID: e.ID, Nodes: nonNilList(e.Nodes), Edges: nonNilList(e.Edges), NodeCount: e.NodeCount(), EdgeCount: e.EdgeCount()}
	return envelope.Success(data).WithMeta("dag_id", e.ID).WithNextSteps(
		envelope.NextStep{Tool: "config.template", When: "next: write its config", Why: "a config.json skeleton for these nodes", ArgsHint: map[string]any{"dag": pcDAGArg(e)}},
		envelope.NextStep{Tool: "dag.validate_integrity", When: "after changing nodes or edges", Why: "check the graph and its step types", ArgsHint: map[string]any{"dag": pcDAGArg(e)}},
		envelope.NextStep{Tool: "compile.validate", When: "once config.json exists", Why: "check every node compiles", ArgsHint: map[string]any{"dag": pcDAGArg(e), "config_file": "<config.json>"}},
	), nil
}

// PipelineCatalogConfigGuidanceData is the data of
// pipeline_catalog.config_guidance: the catalog's advice on configuring a
// DAG and the fields its nodes need.
type PipelineCatalogConfigGuidanceData struct {
	Status         string                        `json:"status"`
	DagID          string                        `json:"dag_id"`
	Action         string                        `json:"action"`
	Prerequisites  []pipelines.Prerequisite      `json:"prerequisites"`
	ConfigGuidance pipelines.ConfigGuidance      `json:"config_guidance"`
	CommonPitfalls []string                      `json:"common_pitfalls"`
	DecisionTree   map[string]pipelines.Decision `json:"decision_tree"`
	NextStep       string                        `json:"next_step"`
	// RequiredFields are the values the user must supply.
	RequiredFields config.RequiredFields `json:"required_fields"`
	// ConfigClassMap is each node's config class.
	ConfigClassMap map[catalog.NodeName]string `json:"config_class_map"`
	// ConfigRequirements is every field of every node (with detail).
	ConfigRequirements *config.Requirements `json:"config_requirements,omitempty"`
}

func pipelineCatalogConfigGuidance(ctx context.Context, a pcGuidanceArgs) (*envelope.Result[PipelineCatalogConfigGuidanceData], error) {
	e, err := pcEntry(a.DagID)
	if err != nil {
		return nil, err
	}
	s, err := configSchema()
	if err != nil {
		return nil, err
	}
	nodes := make([]catalog.NodeName, len(e.Nodes))
	for i, n := range e.Nodes {
		nodes[i] = catalog.NodeName(n)
	}
	reqs := s.Requirements(nodes)
	ac := e.AgentContext
	tree := ac.DecisionTree
	if tree == nil {
		tree = map[string]pipelines.Decision{}
	}
	data := PipelineCatalogConfigGuidanceData{
		Status: "success", DagID: e.ID,
		Action:         "Collect the required fields below (base fields once, then per node), write config.json with config.merge_save, then run compile.validate.",
		Prerequisites:  nonNilList(ac.Prerequisites),
		ConfigGuidance: ac.ConfigGuidance,
		CommonPitfalls: nonNilList(ac.ConfigGuidance.CommonPitfalls),
		DecisionTree:   tree,
		NextStep:       "config.template",
		RequiredFields: reqs.Required(),
		ConfigClassMap: reqs.ConfigClassMap,
	}
	if a.Detail {
		data.ConfigRequirements = reqs
	}
	var warns []string
	if len(reqs.Pending) > 0 {
		warns = append(warns, fmt.Sprintf("nodes without a config class: %v", reqs.Pending))
	}
	return envelope.Success(data).WithMeta("dag_id", e.ID).WithWarnings(warns...).WithNextSteps(
		envelope.NextStep{Tool: "config.template", When: "to start the config", Why: "every field in place with its default; fill the required ones", ArgsHint: map[string]any{"dag": pcDAGArg(e)}},
		envelope.NextStep{Tool: "config.merge_save", When: "once the values are collected", Why: "validate them and write config.json", ArgsHint: map[string]any{"dag": pcDAGArg(e), "base": map[string]any{}, "steps": map[string]any{}, "output_file": "pipeline_config/config.json"}},
	), nil
}
