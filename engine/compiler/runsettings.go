package compiler

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
)

// This file compiles the run settings a config gives besides the job
// itself: a step's retry policies (retry_policies), the tags of the job it
// starts (tags) and the pipeline's parallelism
// (max_parallel_execution_steps).

// RetryPolicy is one entry of a step's RetryPolicies, as the SageMaker SDK
// writes it: the exception types it retries, the wait before the first
// retry, the wait's growth per retry, and a limit of attempts or of
// minutes (at most one of them).
type RetryPolicy struct {
	ExceptionType   []string `json:"ExceptionType"`
	IntervalSeconds int      `json:"IntervalSeconds"`
	BackoffRate     float64  `json:"BackoffRate"`
	MaxAttempts     *int     `json:"MaxAttempts,omitempty"`
	ExpireAfterMin  *int     `json:"ExpireAfterMin,omitempty"`
}

// Tag is one tag of a job (Arguments.Tags).
type Tag struct {
	Key   string `json:"Key"`
	Value string `json:"Value"`
}

// ParallelismConfiguration bounds how many steps of an execution run at
// once; it is a setting of the pipeline (CreatePipeline and UpdatePipeline
// take it), not of its definition.
type ParallelismConfiguration struct {
	MaxParallelExecutionSteps int `json:"MaxParallelExecutionSteps"`
}

// The exception types a retry policy may name: a step's own faults
// (every step that takes retry policies) and a SageMaker job's (steps that
// start a job: Processing, Training, Transform, Tuning).
var (
	stepExceptionTypes = []string{"Step.SERVICE_FAULT", "Step.THROTTLING"}
	jobExceptionTypes  = []string{"SageMaker.JOB_INTERNAL_ERROR", "SageMaker.CAPACITY_ERROR", "SageMaker.RESOURCE_LIMIT"}
)

// Limits of a retry policy, as the SageMaker SDK checks them.
const (
	maxRetryAttempts  = 20
	maxRetryExpireMin = 14400
	maxRetryInterval  = 43200
)

// runSettings says which run settings steps of a kind take.
type runSettings int

const (
	// settingsNone: the step starts nothing that retries or carries tags
	// (a Condition, a Fail step).
	settingsNone runSettings = iota
	// settingsTags: tags of the job the step starts, no retry policies
	// (the SDK's check steps take none).
	settingsTags
	// settingsStep: retry policies of the step's own faults, and tags.
	settingsStep
	// settingsJob: a step that starts a SageMaker job: its faults too.
	settingsJob
)

var retryKeys = []string{"ExceptionType", "IntervalSeconds", "BackoffRate", "MaxAttempts", "ExpireAfterMin"}

// retryPolicies reads retry_policies: a list of objects in the SDK's
// RetryPolicies shape. ExceptionType is a list (or one name); IntervalSeconds
// defaults to 1 and BackoffRate to 2.0 as in the SDK.
func (e *buildEnv) retryPolicies(p *nodePlan, s runSettings) ([]RetryPolicy, error) {
	raw, ok := p.Values.lookup("retry_policies")
	if !ok || raw == nil || s == settingsNone || s == settingsTags {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, &fieldError{"retry_policies", fmt.Sprintf("is a list of retry policies, not %s", jsonKind(raw))}
	}
	allowed := slices.Clone(stepExceptionTypes)
	if s == settingsJob {
		allowed = append(allowed, jobExceptionTypes...)
	}
	var out []RetryPolicy
	for i, item := range list {
		field := fmt.Sprintf("retry_policies[%d]", i)
		m, ok := item.(map[string]any)
		if !ok {
			return nil, &fieldError{field, fmt.Sprintf("is an object {ExceptionType, IntervalSeconds, BackoffRate, MaxAttempts or ExpireAfterMin}, not %s", jsonKind(item))}
		}
		for _, k := range mapkeys.Sorted(m) {
			if !slices.Contains(retryKeys, k) {
				return nil, &fieldError{field + "." + k, "is not a key of a retry policy (" + strings.Join(retryKeys, ", ") + ")"}
			}
		}
		rp := RetryPolicy{IntervalSeconds: 1, BackoffRate: 2.0}
		var types []any
		switch t := m["ExceptionType"].(type) {
		case string:
			types = []any{t}
		case []any:
			types = t
		}
		if len(types) == 0 {
			return nil, &fieldError{field + ".ExceptionType", "names at least one exception type: " + strings.Join(allowed, ", ")}
		}
		for j, t := range types {
			name, _ := t.(string)
			switch {
			case slices.Contains(allowed, name):
				if !slices.Contains(rp.ExceptionType, name) {
					rp.ExceptionType = append(rp.ExceptionType, name)
				}
			case slices.Contains(jobExceptionTypes, name):
				// A step that starts no job of its own (CreateModel,
				// RegisterModel) has no job faults to retry: a shared
				// policy still applies to its step faults.
				e.warnf("%s: %s.ExceptionType[%d] %s applies to steps that start a SageMaker job; left out of %s step %s", p.Node, field, j, name, p.Step.Verb, p.Name)
			default:
				return nil, &fieldError{fmt.Sprintf("%s.ExceptionType[%d]", field, j), fmt.Sprintf("%v is not an exception type a %s step retries (%s)", t, p.Step.Verb, strings.Join(allowed, ", "))}
			}
		}
		if len(rp.ExceptionType) == 0 {
			continue
		}
		var err error
		if rp.IntervalSeconds, err = retryInt(m, field, "IntervalSeconds", 1, 1, maxRetryInterval); err != nil {
			return nil, err
		}
		if v, ok := m["BackoffRate"]; ok {
			f, isNum := toFloat(v)
			if !isNum || f < 1 || math.IsInf(f, 0) {
				return nil, &fieldError{field + ".BackoffRate", fmt.Sprintf("is a number of at least 1 (the wait's growth per retry), not %v", v)}
			}
			rp.BackoffRate = f
		}
		_, hasMax := m["MaxAttempts"]
		_, hasExpire := m["ExpireAfterMin"]
		switch {
		case hasMax && hasExpire:
			return nil, &fieldError{field, "gives MaxAttempts or ExpireAfterMin, not both"}
		case hasMax:
			n, err := retryInt(m, field, "MaxAttempts", 0, 1, maxRetryAttempts)
			if err != nil {
				return nil, err
			}
			rp.MaxAttempts = &n
		case hasExpire:
			n, err := retryInt(m, field, "ExpireAfterMin", 0, 1, maxRetryExpireMin)
			if err != nil {
				return nil, err
			}
			rp.ExpireAfterMin = &n
		}
		out = append(out, rp)
	}
	return out, nil
}

// retryInt reads an integer key of a retry policy within [lo, hi].
func retryInt(m map[string]any, field, key string, def, lo, hi int) (int, error) {
	v, ok := m[key]
	if !ok {
		return def, nil
	}
	f, isNum := toFloat(v)
	if !isNum || f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		return 0, &fieldError{field + "." + key, fmt.Sprintf("is a whole number from %d to %d, not %v", lo, hi, v)}
	}
	return int(f), nil
}

// tags reads tags: an object of tag key -> value, in key order. SageMaker
// allows 50 tags of a resource, keys of 1 to 128 and values of at most 256
// characters; keys starting aws: are reserved.
func (e *buildEnv) tags(p *nodePlan, s runSettings) ([]Tag, error) {
	raw, ok := p.Values.lookup("tags")
	if !ok || raw == nil || s == settingsNone {
		return nil, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, &fieldError{"tags", fmt.Sprintf("is an object of tag key -> value, not %s", jsonKind(raw))}
	}
	if len(m) > 50 {
		return nil, &fieldError{"tags", fmt.Sprintf("has %d tags; a SageMaker job takes at most 50", len(m))}
	}
	var out []Tag
	for _, k := range mapkeys.Sorted(m) {
		v, isStr := m[k].(string)
		switch {
		case k == "" || len(k) > 128 || strings.HasPrefix(strings.ToLower(k), "aws:"):
			return nil, &fieldError{"tags." + k, "a tag key has 1 to 128 characters and does not start with aws:"}
		case !isStr || len(v) > 256:
			return nil, &fieldError{"tags." + k, fmt.Sprintf("a tag value is text of at most 256 characters, not %v", m[k])}
		}
		out = append(out, Tag{Key: k, Value: v})
	}
	return out, nil
}

// setTags puts tags on the Arguments of a step that takes them.
func setTags(args any, tags []Tag) {
	switch a := args.(type) {
	case *ProcessingArguments:
		a.Tags = tags
	case *TrainingArguments:
		a.Tags = tags
	case *ModelArguments:
		a.Tags = tags
	case *TransformArguments:
		a.Tags = tags
	case *RegisterModelArguments:
		a.Tags = tags
	case *TuningArguments:
		a.Tags = tags
	}
}

// parallelism reads max_parallel_execution_steps from the configs: every
// config that sets it must agree (it is one setting of the pipeline).
func (pl *plan) parallelism() (*ParallelismConfiguration, error) {
	var (
		out  *ParallelismConfiguration
		from catalog.NodeName
	)
	for _, n := range pl.order {
		p := pl.nodes[n]
		if p == nil {
			continue
		}
		if raw, ok := p.Values.lookup("max_parallel_execution_steps"); !ok || raw == nil {
			continue
		}
		n, err := p.Values.integer("max_parallel_execution_steps", 0)
		if err == nil && n < 1 {
			err = fmt.Errorf("max_parallel_execution_steps is a whole number of at least 1, not %d", n)
		}
		if err == nil && out != nil && out.MaxParallelExecutionSteps != n {
			err = fmt.Errorf("max_parallel_execution_steps is %d here but %d in %s: it is one setting of the pipeline (set it in the shared config)", n, out.MaxParallelExecutionSteps, from)
		}
		if err != nil {
			return nil, &StepBuildError{Node: p.Node, StepName: p.Name, Field: "max_parallel_execution_steps", Err: err}
		}
		out, from = &ParallelismConfiguration{MaxParallelExecutionSteps: n}, p.Node
	}
	return out, nil
}

// toFloat reads a decoded JSON number (float64, an integer, json.Number).
func toFloat(v any) (float64, bool) {
	switch t := v.(type) {
	case float64:
		return t, true
	case int:
		return float64(t), true
	case int64:
		return float64(t), true
	case json.Number:
		f, err := t.Float64()
		return f, err == nil
	}
	return 0, false
}
