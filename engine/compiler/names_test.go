package compiler

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
)

func TestGeneratePipelineName(t *testing.T) {
	for _, c := range []struct{ base, version, want string }{
		{"alice-AtoZ-xgboost-NA", "1.3.1", "alice-AtoZ-xgboost-NA-1-3-1-pipeline"}, // the case-3 pipeline
		{"alice-Demo-xgboost-NA", "1.0.0", "alice-Demo-xgboost-NA-1-0-0-pipeline"},
		{"my_pipe", "v2", "my-pipe-v2-pipeline"},
	} {
		if got := GeneratePipelineName(c.base, c.version); got != c.want {
			t.Errorf("GeneratePipelineName(%q, %q) = %q, want %q", c.base, c.version, got, c.want)
		}
	}
}

func TestSanitizePipelineName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"my_pipe.v2__x-", "my-pipe-v2-x"}, // separators and repeats collapse
		{"", ""},
		{"!!!", "pipeline"},
		{"-abc", "p-abc"},
		{"_abc", "p-abc"},
		{"a--b", "a-b"},
		{"a b\tc/d", "abcd"},
		{"ünï", "n"},
		{strings.Repeat("a", 300), strings.Repeat("a", 255)},
		{strings.Repeat("a", 254) + "-b", strings.Repeat("a", 254)},
	} {
		got := SanitizePipelineName(c.in)
		if got != c.want {
			t.Errorf("SanitizePipelineName(%q) = %q, want %q", c.in, got, c.want)
		}
		if c.in != "" && !IsValidPipelineName(got) {
			t.Errorf("SanitizePipelineName(%q) = %q is not valid", c.in, got)
		}
	}
}

func TestValidatePipelineName(t *testing.T) {
	for _, ok := range []string{"a", "A1", "a-b", "a--b", "alice-AtoZ-xgboost-NA-1-3-1-pipeline", strings.Repeat("x", 255)} {
		if err := ValidatePipelineName(ok); err != nil {
			t.Errorf("ValidatePipelineName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-a", "a-", "a_b", "a.b", "a b", strings.Repeat("x", 256)} {
		err := ValidatePipelineName(bad)
		var ie *InvalidPipelineNameError
		if !errors.As(err, &ie) {
			t.Errorf("ValidatePipelineName(%q) = %v, want *InvalidPipelineNameError", bad, err)
		}
	}
	err := ValidatePipelineName("my_pipe")
	if err == nil || !strings.Contains(err.Error(), `"my-pipe"`) {
		t.Errorf("error should suggest the sanitized name: %v", err)
	}
}

func TestIsolatedPipelineName(t *testing.T) {
	if got := IsolatedPipelineName("TabularPreprocessing_training"); got != "TabularPreprocessing-training-isolated" {
		t.Errorf("got %q", got)
	}
}

func TestStepNames(t *testing.T) {
	for _, ok := range []catalog.SageMakerStepName{"TabularPreprocessing-Training", "Registration-NA", "a_b", catalog.SageMakerStepName(strings.Repeat("x", 64))} {
		if !IsValidStepName(ok) {
			t.Errorf("%q should be valid", ok)
		}
	}
	for _, bad := range []catalog.SageMakerStepName{"", "a b", "a.b", catalog.SageMakerStepName(strings.Repeat("x", 65))} {
		if IsValidStepName(bad) {
			t.Errorf("%q should be invalid", bad)
		}
	}
}

func TestExpressions(t *testing.T) {
	v := JoinOn("/", Param(ParamExecutionS3Prefix), StepProperty("TabularPreprocessing-Training",
		"properties.ProcessingOutputConfig.Outputs['processed_data'].S3Output.S3Uri"), "train/")
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"Std:Join":{"On":"/","Values":[{"Get":"Parameters.EXECUTION_S3_PREFIX"},{"Get":"Steps.TabularPreprocessing-Training.ProcessingOutputConfig.Outputs['processed_data'].S3Output.S3Uri"},"train/"]}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	if got := ExprString(v); got != "join(/, Parameters.EXECUTION_S3_PREFIX, Steps.TabularPreprocessing-Training.ProcessingOutputConfig.Outputs['processed_data'].S3Output.S3Uri, train/)" {
		t.Errorf("ExprString = %s", got)
	}
	if !IsExpression(v) || IsExpression("s3://x") {
		t.Error("IsExpression")
	}
	b, _ = json.Marshal(DefaultExperimentConfig())
	if string(b) != `{"ExperimentName":{"Get":"Execution.PipelineName"},"TrialName":{"Get":"Execution.PipelineExecutionId"}}` {
		t.Errorf("experiment config %s", b)
	}
}

func TestValues(t *testing.T) {
	v := NewValues(map[string]any{"s": "x", "n": int64(3), "f": 0.7, "b": true, "l": []any{"a", int64(1)}, "m": map[string]any{"k": "v", "eta": 0.3}, "z": nil, "bad": []any{map[string]any{}}},
		map[string]any{"s": "derived", "d": "only derived", "z": "derived z"})
	if s, _ := v.str("s", ""); s != "x" {
		t.Errorf("primary wins: %q", s)
	}
	if s, _ := v.str("d", ""); s != "only derived" {
		t.Errorf("fallback: %q", s)
	}
	if s, _ := v.str("n", ""); s != "3" {
		t.Errorf("str(n) = %q", s)
	}
	if s, _ := v.str("z", "def"); s != "derived z" {
		t.Errorf("a null primary value falls back, got %q", s)
	}
	if s, _ := v.str("nope", "def"); s != "def" {
		t.Errorf("an unset field gives the default, got %q", s)
	}
	if _, err := v.str("m", ""); err == nil {
		t.Error("an object is not a string")
	}
	if n, err := v.integer("n", 0); err != nil || n != 3 {
		t.Errorf("integer(n) = %d, %v", n, err)
	}
	if _, err := v.integer("f", 0); err == nil {
		t.Error("0.7 is not an integer")
	}
	if b, err := v.boolean("b", false); err != nil || !b {
		t.Error("boolean(b)")
	}
	env, p := &buildEnv{}, &nodePlan{Values: v}
	if l, err := env.strListExpr(p, "l"); err != nil || !reflect.DeepEqual(l, []any{"a", "1"}) {
		t.Errorf("strListExpr(l) = %v, %v", l, err)
	}
	if l, err := env.strListExpr(p, "s"); err != nil || !reflect.DeepEqual(l, []any{"x"}) {
		t.Errorf("a single string is a one-item list, got %v, %v", l, err)
	}
	if _, err := env.strListExpr(p, "bad"); err == nil {
		t.Error("a list of objects is not a list of strings")
	}
	if x, ok := v.lookup("m.eta"); !ok || x != 0.3 {
		t.Errorf("dotted lookup = %v %v", x, ok)
	}
	for in, want := range map[any]string{true: "true", int64(5): "5", 0.7: "0.7", 2.0: "2"} {
		if got := FormatValue(in); got != want {
			t.Errorf("FormatValue(%v) = %q, want %q", in, got, want)
		}
	}
	if got := FormatValue([]any{"a", "b"}); got != "a,b" {
		t.Errorf("list: %q", got)
	}
	for in, want := range map[any]string{"x": `"x"`, int64(5): "5", 0.3: "0.3", 6.0: "6", true: "true"} {
		if got := jsonEncodeValue(in); got != want {
			t.Errorf("jsonEncodeValue(%v) = %q, want %q", in, got, want)
		}
	}
}
