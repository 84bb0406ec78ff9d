package execdoc

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/engine/errkind"
)

// Keys of an execution document.
const (
	KeyStepConfigs      = "PIPELINE_STEP_CONFIGS"
	KeyAdditionalParams = "PIPELINE_ADDITIONAL_PARAMS"
	KeyStepType         = "STEP_TYPE"
	KeyStepConfig       = "STEP_CONFIG"
)

// DefaultStepType is the STEP_TYPE label of a step whose verb is unknown
// (and of every step of a Template built from bare names).
const DefaultStepType = "PROCESSING_STEP"

// VerbLabel is the STEP_TYPE label of a verb (the catalog's VerbInfo.Label:
// "PROCESSING_STEP", "TRAINING_STEP", ...); DefaultStepType for an unknown
// verb.
func VerbLabel(v catalog.Verb) string {
	if vi, ok := catalog.VerbInfoOf(v); ok && vi.Label != "" {
		return vi.Label
	}
	return DefaultStepType
}

// StepTypeFor is the STEP_TYPE of a catalog step in a document built here:
// [verb label, "<StepType>Step"], e.g. ["TRAINING_STEP", "XGBoostTrainingStep"].
func StepTypeFor(s *catalog.Step) []any {
	return []any{VerbLabel(s.Verb), string(s.Type) + "Step"}
}

// InputError reports an argument that cannot make a document.
type InputError struct {
	Field  string
	Reason string
}

// Error implements error.
func (e *InputError) Error() string { return e.Field + ": " + e.Reason }

// Kind implements errkind.Kinded: InvalidInput.
func (e *InputError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: the field.
func (e *InputError) Details() map[string]any { return map[string]any{"field": e.Field} }

// Template returns an empty document with one entry per step name, each
// {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {}}. Names are trimmed;
// a blank name is an *InputError; repeated names give one entry.
func Template(stepNames []string) (map[string]any, error) {
	steps := make(map[string]any, len(stepNames))
	for i, n := range stepNames {
		n = strings.TrimSpace(n)
		if n == "" {
			return nil, &InputError{Field: fmt.Sprintf("step_names[%d]", i), Reason: "blank step name"}
		}
		steps[n] = map[string]any{KeyStepType: []any{DefaultStepType}, KeyStepConfig: map[string]any{}}
	}
	return map[string]any{KeyStepConfigs: steps}, nil
}

// TemplateStep says which DAG node an entry of a DAG template stands for.
type TemplateStep struct {
	Node     catalog.NodeName `json:"node"`
	StepName string           `json:"step_name"`           // the document key (SageMaker step name, else the node name)
	StepType catalog.StepType `json:"step_type,omitempty"` // catalog step type; "" when the node names none
	JobType  string           `json:"job_type,omitempty"`
	Verb     catalog.Verb     `json:"sagemaker_step_type,omitempty"`
}

// TemplateResult is a template built from a DAG.
type TemplateResult struct {
	Document map[string]any
	Steps    []TemplateStep // in DAG node order, one per entry
	Warnings []string
}

// TemplateFromDAG returns an empty document for a DAG: one entry per node,
// keyed by the SageMaker step name the node's name gives
// (TabularPreprocessing_training -> TabularPreprocessing-Training) with
// STEP_TYPE [verb label, "<StepType>Step"]. A node that names no step type
// of the catalog keeps its node name and ["PROCESSING_STEP"], with a
// warning. Steps whose compiled name carries a config value (Registration-NA)
// get the name without it; Generate, which has the configs, names them fully.
func TemplateFromDAG(d *dag.PipelineDAG, cat *catalog.Catalog) (*TemplateResult, error) {
	if d == nil || d.NodeCount() == 0 {
		return nil, &InputError{Field: "dag", Reason: "the DAG has no nodes"}
	}
	res := &TemplateResult{Document: map[string]any{}}
	steps := map[string]any{}
	for _, n := range d.Nodes() {
		ts := TemplateStep{Node: n, StepName: string(n)}
		stepType := []any{DefaultStepType}
		if t, jt, ok := cat.ResolveNode(n); ok {
			if st, ok := cat.Step(t); ok {
				ts.StepName = string(catalog.SageMakerName(t, jt))
				ts.StepType, ts.JobType, ts.Verb = t, jt, st.Verb
				stepType = StepTypeFor(st)
				if st.Patterns.NameSuffixField != "" {
					res.Warnings = append(res.Warnings, fmt.Sprintf("node %s: its SageMaker step name also carries config field %s (e.g. %s-NA); generate the document with a config to get the full name", n, st.Patterns.NameSuffixField, ts.StepName))
				}
			}
		} else {
			res.Warnings = append(res.Warnings, fmt.Sprintf("node %s names no step type of the catalog; its entry is keyed by the node name", n))
		}
		if _, dup := steps[ts.StepName]; dup {
			res.Warnings = append(res.Warnings, fmt.Sprintf("node %s gives step name %s, which another node already gives; one entry kept", n, ts.StepName))
			continue
		}
		steps[ts.StepName] = map[string]any{KeyStepType: stepType, KeyStepConfig: map[string]any{}}
		res.Steps = append(res.Steps, ts)
	}
	res.Document[KeyStepConfigs] = steps
	return res, nil
}

// StepNames returns the step names of a document, sorted (nil when it has
// no PIPELINE_STEP_CONFIGS object).
func StepNames(doc map[string]any) []string {
	steps, ok := doc[KeyStepConfigs].(map[string]any)
	if !ok {
		return nil
	}
	names := make([]string, 0, len(steps))
	for k := range steps {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Clone returns a deep copy of a JSON-like value (objects, arrays, string
// lists and scalars).
func Clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Clone(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Clone(e)
		}
		return out
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	case []map[string]any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Clone(e)
		}
		return out
	}
	return v
}
