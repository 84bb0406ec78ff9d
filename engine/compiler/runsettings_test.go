package compiler_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/compiler/compilertest"
)

// runSettingsConfig writes the gated example's config with shared and
// per-node fields added (nil deletes one) and returns its path.
func runSettingsConfig(t *testing.T, shared map[string]any, specific map[string]map[string]any) string {
	t.Helper()
	return editConfig(t, gatedConfigFile, "", func(cfg map[string]any) {
		c := cfg["configuration"].(map[string]any)
		setFields(c["shared"].(map[string]any), shared)
		for node, kv := range specific {
			setFields(c["specific"].(map[string]any)[node].(map[string]any), kv)
		}
	})
}

// Retry policies, job tags and the pipeline's parallelism come from
// config: shared, they reach every step that takes them (a gate's
// Condition and Fail steps take none); a step's own value wins; job
// exception types are left out, with a warning, of steps that start no
// job. The definition passes the strict schema and the SDK's request
// types, and the result carries the ParallelismConfiguration.
func TestRunSettings(t *testing.T) {
	retry := []any{
		map[string]any{"ExceptionType": []any{"Step.SERVICE_FAULT", "SageMaker.CAPACITY_ERROR"}, "IntervalSeconds": 5, "BackoffRate": 1.5, "MaxAttempts": 3},
		map[string]any{"ExceptionType": "Step.THROTTLING", "ExpireAfterMin": 60},
	}
	cfg := runSettingsConfig(t, map[string]any{"retry_policies": retry, "tags": map[string]any{"team": "fraud", "cost-center": "42"}, "max_parallel_execution_steps": 4},
		map[string]map[string]any{"XGBoostTraining": {"tags": map[string]any{"team": "training"}}})
	res, err := compileGated(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := res.JSON()
	// The strict schema: the relaxed one types ExceptionType as one
	// string, where the SDK writes a list (which the strict one takes).
	compilertest.CheckSchemas(t, b, compilertest.Strict)
	for _, err := range compilertest.CheckSDK(b) {
		t.Error(err)
	}
	if len(res.Blockers) != 0 {
		t.Errorf("blockers: %+v", res.Blockers)
	}
	if res.Parallelism == nil || res.Parallelism.MaxParallelExecutionSteps != 4 {
		t.Errorf("parallelism %+v", res.Parallelism)
	}
	byName := map[catalog.SageMakerStepName]map[string]any{}
	for _, st := range res.Definition.AllSteps() {
		var m map[string]any
		if err := json.Unmarshal(mustJSON(t, st), &m); err != nil {
			t.Fatal(err)
		}
		byName[st.Name] = m
	}
	jobRetry := `[{"BackoffRate":1.5,"ExceptionType":["Step.SERVICE_FAULT","SageMaker.CAPACITY_ERROR"],"IntervalSeconds":5,"MaxAttempts":3},{"BackoffRate":2,"ExceptionType":["Step.THROTTLING"],"ExpireAfterMin":60,"IntervalSeconds":1}]`
	stepRetry := `[{"BackoffRate":1.5,"ExceptionType":["Step.SERVICE_FAULT"],"IntervalSeconds":5,"MaxAttempts":3},{"BackoffRate":2,"ExceptionType":["Step.THROTTLING"],"ExpireAfterMin":60,"IntervalSeconds":1}]`
	shared := `[{"Key":"cost-center","Value":"42"},{"Key":"team","Value":"fraud"}]`
	for name, want := range map[catalog.SageMakerStepName][2]string{
		"XGBoostModelEval-Calibration": {jobRetry, shared},
		"XGBoostTraining":              {jobRetry, `[{"Key":"team","Value":"training"}]`},
		"BatchTransform-Calibration":   {jobRetry, shared},
		"XGBoostModel":                 {stepRetry, shared},
		"Registration-NA":              {stepRetry, shared},
	} {
		s := byName[name]
		if s == nil {
			t.Errorf("no step %s", name)
			continue
		}
		if got := string(mustJSON(t, s["RetryPolicies"])); got != want[0] {
			t.Errorf("%s RetryPolicies %s\nwant %s", name, got, want[0])
		}
		if got := string(mustJSON(t, s["Arguments"].(map[string]any)["Tags"])); got != want[1] {
			t.Errorf("%s Tags %s, want %s", name, got, want[1])
		}
	}
	for _, name := range []catalog.SageMakerStepName{"ModelQualityGate", "ModelQualityGate-Fail"} {
		if s := byName[name]; s == nil || s["RetryPolicies"] != nil || s["Arguments"].(map[string]any)["Tags"] != nil {
			t.Errorf("%s takes no run settings: %v", name, s)
		}
	}
	warned := false
	for _, w := range res.Warnings {
		warned = warned || strings.Contains(w, "SageMaker.CAPACITY_ERROR applies to steps that start a SageMaker job; left out of CreateModel step XGBoostModel")
	}
	if !warned {
		t.Errorf("no warning for the job fault left out of the model step: %v", res.Warnings)
	}
}

// Bad run settings are errors naming the field.
func TestRunSettingsErrors(t *testing.T) {
	for _, tc := range []struct {
		shared   map[string]any
		specific map[string]map[string]any
		field    string
		msg      string
	}{
		{map[string]any{"retry_policies": []any{map[string]any{"ExceptionType": []any{"Step.OOPS"}}}}, nil, "retry_policies[0].ExceptionType[0]", "Step.OOPS is not an exception type"},
		{map[string]any{"retry_policies": []any{map[string]any{"IntervalSeconds": 1}}}, nil, "retry_policies[0].ExceptionType", "at least one exception type"},
		{map[string]any{"retry_policies": []any{map[string]any{"ExceptionType": "Step.THROTTLING", "MaxAttempts": 2, "ExpireAfterMin": 3}}}, nil, "retry_policies[0]", "not both"},
		{map[string]any{"retry_policies": []any{map[string]any{"ExceptionType": "Step.THROTTLING", "MaxAttempts": 21}}}, nil, "retry_policies[0].MaxAttempts", "from 1 to 20"},
		{map[string]any{"retry_policies": []any{map[string]any{"ExceptionType": "Step.THROTTLING", "Interval": 2}}}, nil, "retry_policies[0].Interval", "not a key of a retry policy"},
		{map[string]any{"retry_policies": []any{map[string]any{"ExceptionType": "Step.THROTTLING", "BackoffRate": 0.5}}}, nil, "retry_policies[0].BackoffRate", "at least 1"},
		{map[string]any{"tags": map[string]any{"aws:owner": "x"}}, nil, "tags.aws:owner", "does not start with aws:"},
		{map[string]any{"tags": map[string]any{"n": 3}}, nil, "tags.n", "a tag value is text"},
		{map[string]any{"max_parallel_execution_steps": 4}, map[string]map[string]any{"XGBoostTraining": {"max_parallel_execution_steps": 2}}, "max_parallel_execution_steps", "one setting of the pipeline"},
	} {
		_, err := compileGated(t, runSettingsConfig(t, tc.shared, tc.specific))
		var sb *compiler.StepBuildError
		var multi interface{ Unwrap() []error }
		if errors.As(err, &multi) {
			for _, e := range multi.Unwrap() {
				if errors.As(e, &sb) && sb.Field == tc.field {
					break
				}
			}
		} else {
			errors.As(err, &sb)
		}
		if sb == nil || sb.Field != tc.field || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%v: %v (field %v), want %s: %s", tc.shared, err, fieldOf(sb), tc.field, tc.msg)
		}
	}
}
