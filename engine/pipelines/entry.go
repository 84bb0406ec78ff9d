package pipelines

import (
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/dag"
)

// Frameworks are the values of Entry.Framework.
var Frameworks = []string{"generic", "lightgbm", "pytorch", "xgboost"}

// Complexities are the values of Entry.Complexity, simplest first.
var Complexities = []string{"simple", "standard", "comprehensive"}

// CostTiers are the values of Cost.InstanceCostTier.
var CostTiers = []string{"low", "medium", "high"}

// Data sources: where a DAG's data-loading steps read from
// (InputRequirements.DataSource). Cradle is a managed data service whose
// loading step needs data-service request specs; S3, Athena and Redshift
// are read directly; a pretrained_model DAG loads no data.
const (
	SourceS3         = "s3"
	SourceAthena     = "athena"
	SourceRedshift   = "redshift"
	SourceCradle     = "cradle"
	SourcePretrained = "pretrained_model"
)

// DataSources is the closed vocabulary of InputRequirements.DataSource.
var DataSources = []string{SourceAthena, SourceCradle, SourcePretrained, SourceRedshift, SourceS3}

// LoadingSteps maps each data-loading step type to the source it reads.
var LoadingSteps = map[string]string{
	"DummyDataLoading":    SourceS3,
	"AthenaDataLoading":   SourceAthena,
	"RedshiftDataLoading": SourceRedshift,
	"CradleDataLoading":   SourceCradle,
}

// Features is the closed vocabulary of Entry.Features.
var Features = []string{
	"active_learning", "batch_inference", "calibration", "currency_conversion", "data_loading", "documentation", "evaluation",
	"feature_selection", "imputation", "inference", "label_ruleset", "llm_batch_processing", "llm_processing", "lookup_table",
	"metrics", "model_creation", "packaging", "payload", "percentile_calibration", "preprocessing",
	"prompt_template", "quality_gate", "registration", "risk_table_mapping", "semi_supervised", "stratified_sampling",
	"temporal_features", "temporal_split", "tokenizer", "training", "tuning",
}

// Entry is one shared DAG with its catalog facts.
type Entry struct {
	ID                string            `yaml:"id" json:"dag_id"`
	Title             string            `yaml:"title" json:"title"`
	Framework         string            `yaml:"framework" json:"framework"`
	Complexity        string            `yaml:"complexity" json:"complexity"`
	TaskType          string            `yaml:"task_type" json:"task_type"`
	Features          []string          `yaml:"features" json:"features"`
	Description       string            `yaml:"description" json:"description"`
	Nodes             []string          `yaml:"nodes" json:"nodes"`
	Edges             [][]string        `yaml:"edges" json:"edges"`
	InputRequirements InputRequirements `yaml:"input_requirements" json:"input_requirements"`
	Constraints       Constraints       `yaml:"constraints" json:"constraints"`
	Cost              Cost              `yaml:"cost" json:"cost"`
	AgentContext      AgentContext      `yaml:"agent_context" json:"agent_context"`

	// File is the embedded file the entry was read from.
	File string `yaml:"-" json:"-"`

	types map[string]bool // the step types of the nodes, built once by Parse
}

// InputRequirements says what data a DAG expects.
type InputRequirements struct {
	DataTypes   []string `yaml:"data_types" json:"data_types"`
	TextSupport bool     `yaml:"text_support" json:"text_support"`
	MultiTask   bool     `yaml:"multi_task" json:"multi_task"`
	OutputType  string   `yaml:"output_type" json:"output_type"`
	DataSource  string   `yaml:"data_source" json:"data_source"`
	RequiresLLM bool     `yaml:"requires_llm" json:"requires_llm"`
}

// Constraints are the compute needs of a DAG.
type Constraints struct {
	RequiresGPU      bool   `yaml:"requires_gpu" json:"requires_gpu"`
	MinInstance      string `yaml:"min_instance" json:"min_instance"`
	SupportsMultiGPU bool   `yaml:"supports_multi_gpu" json:"supports_multi_gpu"`
}

// Cost is a rough cost estimate of one run.
type Cost struct {
	EstimatedHours   float64 `yaml:"estimated_hours" json:"estimated_hours"`
	CostDriver       string  `yaml:"cost_driver" json:"cost_driver"`
	InstanceCostTier string  `yaml:"instance_cost_tier" json:"instance_cost_tier"`
	Scalability      string  `yaml:"scalability" json:"scalability"`
}

// AgentContext is the advice an agent gives a user about a DAG.
type AgentContext struct {
	WhenToUse       string              `yaml:"when_to_use" json:"when_to_use"`
	WhenNotToUse    string              `yaml:"when_not_to_use" json:"when_not_to_use"`
	Differentiators []string            `yaml:"differentiators" json:"differentiators"`
	Prerequisites   []Prerequisite      `yaml:"prerequisites" json:"prerequisites"`
	ConfigGuidance  ConfigGuidance      `yaml:"config_guidance" json:"config_guidance"`
	DecisionTree    map[string]Decision `yaml:"decision_tree" json:"decision_tree"`
}

// Prerequisite is something to check before running a DAG, and how.
type Prerequisite struct {
	Check string `yaml:"check" json:"check"`
	How   string `yaml:"how" json:"how"`
}

// ConfigGuidance is advice for configuring a DAG.
type ConfigGuidance struct {
	UserMustProvide []string `yaml:"user_must_provide" json:"user_must_provide"`
	SafeDefaults    []string `yaml:"safe_defaults" json:"safe_defaults"`
	CommonPitfalls  []string `yaml:"common_pitfalls" json:"common_pitfalls"`
}

// Decision is one question of a decision tree: what to do on yes and on no.
type Decision struct {
	Yes string `yaml:"yes" json:"yes"`
	No  string `yaml:"no" json:"no"`
}

// stepTypes are the step types of the nodes (the part of each name before
// the first underscore).
func (e *Entry) stepTypes() map[string]bool {
	if e.types != nil {
		return e.types
	}
	m := map[string]bool{}
	for _, n := range e.Nodes {
		t, _, _ := strings.Cut(n, "_")
		m[t] = true
	}
	return m
}

// NodeCount is the number of nodes.
func (e *Entry) NodeCount() int { return len(e.Nodes) }

// EdgeCount is the number of edges.
func (e *Entry) EdgeCount() int { return len(e.Edges) }

// HasFeature reports whether the DAG lists a feature.
func (e *Entry) HasFeature(f string) bool {
	for _, x := range e.Features {
		if x == f {
			return true
		}
	}
	return false
}

// DAG returns a new PipelineDAG of the entry (nodes and edges in file
// order); the caller may modify it.
func (e *Entry) DAG() *dag.PipelineDAG {
	nodes := make([]catalog.NodeName, len(e.Nodes))
	for i, n := range e.Nodes {
		nodes[i] = catalog.NodeName(n)
	}
	edges := make([]dag.Edge, len(e.Edges))
	for i, p := range e.Edges {
		edges[i] = dag.Edge{From: catalog.NodeName(p[0]), To: catalog.NodeName(p[1])}
	}
	return dag.New(nodes, edges)
}
