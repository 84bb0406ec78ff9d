package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/pipelines"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

// PipelineCatalogNamespace returns the pipeline_catalog namespace: its description and tools, built anew
// on each call (DefaultNamespaces lists it).
func PipelineCatalogNamespace() registry.Namespace {
	return namespace("pipeline_catalog", "Shared pipeline catalog: ready-made DAGs of our step types (XGBoost, LightGBM, PyTorch; training to end-to-end with registration), with recommendation and configuration advice.",
		registry.New("pipeline_catalog.list", registry.Spec{
			Description: "Lists the shared DAGs, sorted by id, each with framework, complexity, task type, features, description and node count; optional filters by framework, complexity and feature.",
			When:        "you want to see which ready-made pipelines exist before designing one",
			Examples: []string{
				`pipeline_catalog.list {}`,
				`pipeline_catalog.list {"framework": "xgboost", "feature": "registration"}  # XGBoost DAGs that register a model`,
			},
			Tags: []string{registry.PhasePlanner},
		}, pipelineCatalogList),
		registry.New("pipeline_catalog.recommend", registry.Spec{
			Description: "Ranks the shared DAGs for a need: a framework (a hard filter), where the data lives (data_source, or an s3:// URI in the need: a DAG that loads through the managed data service is left out unless asked for), facts about the data and resources (data type, labels, LLM, multi-task, incremental, GPU) that raise or lower each DAG's score, and a free-text need (\"calibration and registration\") matched against each DAG's features, node names and descriptions. Ties go to the closer fit. Each recommendation carries its score and the reasons for it; what no DAG can serve is listed as unmatched.",
			When:        "you know roughly what the pipeline must do and want the best starting DAG",
			Examples: []string{
				`pipeline_catalog.recommend {"framework": "xgboost", "data_source": "s3", "need": "calibration and registration"}`,
				`pipeline_catalog.recommend {"data_type": "tabular", "has_labels": true, "need": "batch scoring", "max_results": 3}`,
			},
			Tags: []string{registry.PhasePlanner},
		}, pipelineCatalogRecommend),
		registry.New("pipeline_catalog.auto_select", registry.Spec{
			Description: "Picks the single best shared DAG for a framework, a list of features, a task type and a complexity (score = 0.5 feature share + 0.25 framework + 0.15 task type + 0.1 complexity), or none when the best score is below min_score.",
			When:        "you want one DAG chosen automatically from structured requirements",
			Examples: []string{
				`pipeline_catalog.auto_select {"framework": "xgboost", "features": ["training", "calibration"]}  # xgboost_complete_e2e`,
				`pipeline_catalog.auto_select {"framework": "pytorch", "features": ["batch_inference"], "min_score": 0.8}`,
			},
			Tags: []string{registry.PhasePlanner},
		}, pipelineCatalogAutoSelect),
		registry.New("pipeline_catalog.get_dag", registry.Spec{
			Description: "The full entry of one shared DAG: title, description, framework, complexity, task type, features, nodes and edges, input requirements, constraints, cost and advice (when to use, differentiators, prerequisites, config guidance, decision tree).",
			When:        "you are considering a DAG and want all its facts",
			Examples:    []string{`pipeline_catalog.get_dag {"dag_id": "xgboost_complete_e2e"}`},
			Tags:        []string{registry.PhasePlanner},
		}, pipelineCatalogGetDAG),
		registry.New("pipeline_catalog.load_dag", registry.Spec{
			Description: "The nodes and edges of one shared DAG, in the shape the dag.*, config.* and compile.* tools take as their dag argument.",
			When:        "you picked a DAG and want to configure, validate or compile it",
			Examples:    []string{`pipeline_catalog.load_dag {"dag_id": "lightgbm_complete_e2e"}`},
			Tags:        []string{registry.PhasePlanner},
		}, pipelineCatalogLoadDAG),
		registry.New("pipeline_catalog.config_guidance", registry.Spec{
			Description: "How to configure one shared DAG: the config fields each node needs (computed with config.requirements: required fields per node and the base fields), prerequisites, what the user must provide, safe defaults, common pitfalls and a decision tree.",
			When:        "you chose a DAG and need to know which config values to collect",
			Examples:    []string{`pipeline_catalog.config_guidance {"dag_id": "xgboost_complete_e2e"}`},
			Tags:        []string{registry.PhasePlanner},
		}, pipelineCatalogConfigGuidance),
	)
}

type pcListArgs struct {
	Framework  string `json:"framework,omitempty" jsonschema:"enum=xgboost,enum=lightgbm,enum=pytorch,enum=generic" jsonschema_description:"Only DAGs of this framework."`
	Complexity string `json:"complexity,omitempty" jsonschema:"enum=simple,enum=standard,enum=comprehensive" jsonschema_description:"Only DAGs of this complexity."`
	Feature    string `json:"feature,omitempty" jsonschema_description:"Only DAGs with this feature (training, evaluation, calibration, packaging, registration, batch_inference, tuning, ...)."`
}

type pcRecommendArgs struct {
	DataType     string `json:"data_type,omitempty" jsonschema:"enum=text,enum=tabular,enum=mixed" jsonschema_description:"Kind of input data; text drops DAGs without text support."`
	HasLabels    bool   `json:"has_labels,omitempty" jsonschema:"default=true" jsonschema_description:"Whether the data has labels (supervised DAGs score lower without)."`
	NeedsLLM     bool   `json:"needs_llm,omitempty" jsonschema:"default=false" jsonschema_description:"Whether an LLM step is wanted."`
	MultiTask    bool   `json:"multi_task,omitempty" jsonschema:"default=false" jsonschema_description:"Whether one model must learn several tasks."`
	Incremental  bool   `json:"incremental,omitempty" jsonschema:"default=false" jsonschema_description:"Whether the model is trained incrementally on new data."`
	Framework    string `json:"framework,omitempty" jsonschema:"enum=pytorch,enum=xgboost,enum=lightgbm,enum=lightgbmmt,enum=generic,enum=any" jsonschema_description:"Required framework (a hard filter); any or omitted: all."`
	GPUAvailable bool   `json:"gpu_available,omitempty" jsonschema:"default=true" jsonschema_description:"Whether GPU instances may be used; false drops DAGs that need one."`
	Need         string `json:"need,omitempty" jsonschema_description:"What the pipeline must do, in words (e.g. calibration and registration); matched against features, node names and descriptions."`
	MaxResults   int    `json:"max_results,omitempty" jsonschema:"default=5,minimum=1,maximum=50" jsonschema_description:"Number of recommendations."`
	DataSource   string `json:"data_source,omitempty" jsonschema:"enum=s3,enum=athena,enum=redshift,enum=cradle" jsonschema_description:"Where the data lives: s3 (DAGs that load from S3 first, then Athena or Redshift ones), athena, redshift, or cradle (the managed data service, whose DAGs are left out otherwise). Omitted: inferred from an s3:// URI or a source named in need."`
}

type pcAutoSelectArgs struct {
	Framework  string   `json:"framework,omitempty" jsonschema:"enum=pytorch,enum=xgboost,enum=lightgbm,enum=lightgbmmt,enum=generic,enum=any" jsonschema_description:"Wanted framework."`
	Features   []string `json:"features,omitempty" jsonschema_description:"Wanted features (see pipeline_catalog.list), e.g. [\"training\", \"calibration\"]."`
	TaskType   string   `json:"task_type,omitempty" jsonschema_description:"Wanted task type, e.g. end_to_end, training_evaluation, batch_inference, tuning."`
	Complexity string   `json:"complexity,omitempty" jsonschema:"enum=simple,enum=standard,enum=advanced,enum=comprehensive" jsonschema_description:"Wanted complexity; neighbours get partial credit."`
	MinScore   float64  `json:"min_score,omitempty" jsonschema:"default=0.6,minimum=0,maximum=1" jsonschema_description:"Lowest score accepted."`
}

type pcDAGIDArgs struct {
	DagID string `json:"dag_id" jsonschema:"required,minLength=1" jsonschema_description:"Id of a shared DAG (see pipeline_catalog.list)."`
}

func pipelineCatalog() (*pipelines.Catalog, error) {
	c, err := pipelines.Default()
	if err != nil {
		return nil, envelope.Errorf(envelope.CodeInternalError, "cannot load the pipeline catalog: %v", err).WithDetails("exception", err.Error())
	}
	return c, nil
}

// pcEntry finds a DAG or returns not_found with the closest ids.
func pcEntry(id string) (*pipelines.Entry, error) {
	if strings.TrimSpace(id) == "" {
		return nil, envelope.InvalidInput("dag_id must be a non-empty DAG id").WithRemedy("pick an id from pipeline_catalog.list", "pipeline_catalog.list")
	}
	c, err := pipelineCatalog()
	if err != nil {
		return nil, err
	}
	e, err := c.Get(id)
	if err != nil {
		var sugg []string
		if nf := (*pipelines.NotFoundError)(nil); errors.As(err, &nf) {
			sugg = nf.Suggestions
		}
		return nil, envelope.NotFound("%s", err.Error()).
			WithDetails("dag_id", id, "suggestions", nonNilStrings(sugg), "available", c.IDs()).
			WithRemedy("use an id from pipeline_catalog.list (or ask pipeline_catalog.recommend)", "pipeline_catalog.list", "pipeline_catalog.recommend")
	}
	return e, nil
}

func pcSummary(e *pipelines.Entry) map[string]any {
	return map[string]any{"dag_id": e.ID, "framework": e.Framework, "description": e.Description, "task_type": e.TaskType,
		"complexity": e.Complexity, "features": e.Features, "node_count": e.NodeCount(), "title": e.Title}
}

func pipelineCatalogList(ctx context.Context, a pcListArgs) (*envelope.ToolResult, error) {
	c, err := pipelineCatalog()
	if err != nil {
		return nil, err
	}
	feature := strings.ToLower(strings.TrimSpace(a.Feature))
	if feature != "" && !slices.Contains(pipelines.Features, feature) {
		return nil, envelope.InvalidInput("unknown feature %q", a.Feature).WithDetails("known_features", pipelines.Features).
			WithRemedy("use one of meta.details.known_features", "pipeline_catalog.list")
	}
	dags := []map[string]any{}
	for _, e := range c.List(pipelines.Filter{Framework: a.Framework, Complexity: a.Complexity, Feature: feature}) {
		dags = append(dags, pcSummary(e))
	}
	res := envelope.OK(map[string]any{"dags": dags, "count": len(dags)}).WithMeta("count", len(dags))
	if len(dags) == 0 {
		res.WithWarnings("no shared DAG matches these filters; drop one")
	}
	return res.WithNextSteps(
		envelope.NextStep{Tool: "pipeline_catalog.get_dag", When: "a DAG looks right", Why: "see its nodes, cost and advice", ArgsHint: map[string]any{"dag_id": "<dag_id>"}},
		envelope.NextStep{Tool: "pipeline_catalog.recommend", When: "you are unsure which to pick", Why: "rank them for your need", ArgsHint: map[string]any{"need": "<what the pipeline must do>"}},
	), nil
}

func pipelineCatalogRecommend(ctx context.Context, a pcRecommendArgs) (*envelope.ToolResult, error) {
	c, err := pipelineCatalog()
	if err != nil {
		return nil, err
	}
	labels, gpu := a.HasLabels, a.GPUAvailable
	r := c.Recommend(pipelines.Request{DataType: a.DataType, HasLabels: &labels, NeedsLLM: a.NeedsLLM, MultiTask: a.MultiTask,
		Incremental: a.Incremental, Framework: a.Framework, GPUAvailable: &gpu, Need: a.Need, MaxResults: a.MaxResults, DataSource: a.DataSource})
	data := map[string]any{
		"status":          "success",
		"total_matches":   r.TotalMatches,
		"recommendations": r.Recommendations,
		"need_terms":      nonNilStrings(r.NeedTerms),
		"data_source":     nullIfEmpty(r.DataSource),
	}
	if r.DataSourceFrom != "" {
		data["data_source_from"] = r.DataSourceFrom
	}
	if len(r.Excluded) > 0 {
		data["excluded"] = r.Excluded
	}
	var warns []string
	if len(r.Unmatched) > 0 {
		data["unmatched"] = r.Unmatched
		for _, u := range r.Unmatched {
			warns = append(warns, fmt.Sprintf("the catalog cannot serve %s: %s", u.Requirement, u.Reason))
		}
	}
	warns = append(warns, r.Notes...)
	if len(r.Recommendations) == 0 {
		data["action"] = "No shared DAG fits these requirements; relax them or design a DAG with dag.construct."
		data["next_step"] = "pipeline_catalog.list"
		return envelope.OK(data).WithMeta("total_matches", 0).WithWarnings(append(warns, fmt.Sprintf("no DAG scored above %g", pipelines.MinRecommendScore))...).
			WithNextSteps(envelope.NextStep{Tool: "pipeline_catalog.list", When: "to see every DAG", Why: "nothing matched the filters"}), nil
	}
	top := r.Recommendations[0].DagID
	data["action"] = fmt.Sprintf("Review the top recommendation %s with pipeline_catalog.get_dag, then collect its configuration with pipeline_catalog.config_guidance.", top)
	data["next_step"] = "pipeline_catalog.config_guidance"
	return envelope.OK(data).WithMeta("total_matches", r.TotalMatches).WithMeta("top", top).WithWarnings(warns...).
		WithNextSteps(
			envelope.NextStep{Tool: "pipeline_catalog.config_guidance", When: "you chose a DAG", Why: "learn which config values to collect", ArgsHint: map[string]any{"dag_id": top}},
			envelope.NextStep{Tool: "pipeline_catalog.get_dag", When: "to compare the candidates", Why: "see nodes, cost and advice of a DAG", ArgsHint: map[string]any{"dag_id": top}},
		), nil
}

func pipelineCatalogAutoSelect(ctx context.Context, a pcAutoSelectArgs) (*envelope.ToolResult, error) {
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
		return envelope.OK(map[string]any{"dag_id": nil, "score": nil, "matched": false}).
			WithWarnings("No DAG met the minimum score threshold.").
			WithNextSteps(envelope.NextStep{Tool: "pipeline_catalog.recommend", When: "no DAG was selected", Why: "see ranked candidates with reasons"}), nil
	}
	return envelope.OK(map[string]any{"dag_id": m.DagID, "score": m.Score, "matched": true, "reasoning": m.Reasoning}).
		WithMeta("dag_id", m.DagID).
		WithNextSteps(envelope.NextStep{Tool: "pipeline_catalog.load_dag", When: "to use the selected DAG", Why: "get its nodes and edges", ArgsHint: map[string]any{"dag_id": m.DagID}}), nil
}

func pcDAGArg(e *pipelines.Entry) map[string]any {
	return map[string]any{"nodes": e.Nodes, "edges": e.Edges}
}

func pipelineCatalogGetDAG(ctx context.Context, a pcDAGIDArgs) (*envelope.ToolResult, error) {
	e, err := pcEntry(a.DagID)
	if err != nil {
		return nil, err
	}
	data := map[string]any{
		"status": "success", "action": "Load it with pipeline_catalog.load_dag and collect its configuration with pipeline_catalog.config_guidance.",
		"dag_id": e.ID, "title": e.Title, "description": e.Description, "framework": e.Framework, "complexity": e.Complexity,
		"task_type": e.TaskType, "features": e.Features, "nodes": e.Nodes, "edges": e.Edges,
		"node_count": e.NodeCount(), "edge_count": e.EdgeCount(),
		"input_requirements": e.InputRequirements, "constraints": e.Constraints, "cost": e.Cost, "agent_context": e.AgentContext,
	}
	return envelope.OK(data).WithMeta("dag_id", e.ID).WithNextSteps(
		envelope.NextStep{Tool: "pipeline_catalog.config_guidance", When: "you want to use this DAG", Why: "learn which config values to collect", ArgsHint: map[string]any{"dag_id": e.ID}},
		envelope.NextStep{Tool: "pipeline_catalog.load_dag", When: "you want its DAG argument", Why: "nodes and edges ready for config.* and compile.*", ArgsHint: map[string]any{"dag_id": e.ID}},
	), nil
}

func pipelineCatalogLoadDAG(ctx context.Context, a pcDAGIDArgs) (*envelope.ToolResult, error) {
	e, err := pcEntry(a.DagID)
	if err != nil {
		return nil, err
	}
	data := map[string]any{"dag_id": e.ID, "nodes": e.Nodes, "edges": e.Edges, "node_count": e.NodeCount(), "edge_count": e.EdgeCount()}
	return envelope.OK(data).WithMeta("dag_id", e.ID).WithNextSteps(
		envelope.NextStep{Tool: "config.template", When: "next: write its config", Why: "a config.json skeleton for these nodes", ArgsHint: map[string]any{"dag": pcDAGArg(e)}},
		envelope.NextStep{Tool: "dag.validate_integrity", When: "after changing nodes or edges", Why: "check the graph and its step types", ArgsHint: map[string]any{"dag": pcDAGArg(e)}},
		envelope.NextStep{Tool: "compile.validate", When: "once config.json exists", Why: "check every node compiles", ArgsHint: map[string]any{"dag": pcDAGArg(e), "config_file": "<config.json>"}},
	), nil
}

// requirementsView is the part of config.requirements' data read here.
type requirementsView struct {
	Base           []reqView            `json:"base_config_requirements"`
	BaseProcessing []reqView            `json:"base_processing_config_requirements"`
	ClassMap       map[string]string    `json:"config_class_map"`
	Steps          map[string][]reqView `json:"step_requirements"`
	Pending        []string             `json:"pending_steps"`
	JobTypes       map[string]string    `json:"job_types"` // job type taken from the node name
}

type reqView struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
	Default     any    `json:"default"`
}

func pipelineCatalogConfigGuidance(ctx context.Context, a pcDAGIDArgs) (*envelope.ToolResult, error) {
	e, err := pcEntry(a.DagID)
	if err != nil {
		return nil, err
	}
	ac := e.AgentContext
	data := map[string]any{
		"status": "success", "dag_id": e.ID,
		"action":          "Collect the required fields below (base fields once, then per node), write config.json with config.merge_save, then run compile.validate.",
		"prerequisites":   ac.Prerequisites,
		"config_guidance": ac.ConfigGuidance,
		"common_pitfalls": ac.ConfigGuidance.CommonPitfalls,
		"decision_tree":   ac.DecisionTree,
		"next_step":       "config.template",
	}
	var warns []string
	res := registry.Call(ctx, "config.requirements", map[string]any{"dag": pcDAGArg(e)})
	if res == nil || !res.OK {
		msg := "config.requirements is not available"
		if res != nil {
			msg = fmt.Sprintf("config.requirements failed (%s): %s", res.Code, res.Error)
		}
		warns = append(warns, msg+"; the field list below is the catalog's advice only")
	} else {
		var rv requirementsView
		b, err := json.Marshal(res.Data)
		if err == nil {
			err = json.Unmarshal(b, &rv)
		}
		if err != nil {
			warns = append(warns, "cannot read config.requirements' answer: "+err.Error())
		} else {
			required := map[string][]string{}
			var base []string
			for _, r := range append(rv.Base, rv.BaseProcessing...) {
				if r.Required && !slices.Contains(base, r.Name) {
					base = append(base, r.Name)
				}
			}
			total := len(base)
			nodes := make([]string, 0, len(rv.Steps))
			for n := range rv.Steps {
				nodes = append(nodes, n)
			}
			sort.Strings(nodes)
			for _, n := range nodes {
				var fs []string
				for _, r := range rv.Steps[n] {
					if r.Name == "job_type" && rv.JobTypes[n] != "" {
						continue // filled from the node name
					}
					if r.Required && !slices.Contains(base, r.Name) {
						fs = append(fs, r.Name)
					}
				}
				if len(fs) > 0 {
					required[n] = fs
					total += len(fs)
				}
			}
			data["required_fields"] = map[string]any{"base": nonNilStrings(base), "steps": required, "count": total}
			data["config_class_map"] = rv.ClassMap
			data["config_requirements"] = res.Data
			if len(rv.Pending) > 0 {
				warns = append(warns, fmt.Sprintf("nodes without a config class: %v", rv.Pending))
			}
		}
	}
	return envelope.OK(data).WithMeta("dag_id", e.ID).WithWarnings(warns...).WithNextSteps(
		envelope.NextStep{Tool: "config.template", When: "to start the config", Why: "every field in place with its default; fill the required ones", ArgsHint: map[string]any{"dag": pcDAGArg(e)}},
		envelope.NextStep{Tool: "config.merge_save", When: "once the values are collected", Why: "validate them and write config.json", ArgsHint: map[string]any{"dag": pcDAGArg(e), "base": map[string]any{}, "steps": map[string]any{}, "output_file": "pipeline_config/config.json"}},
	), nil
}
