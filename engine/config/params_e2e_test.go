package config_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/dag"
)

// paramBase and paramSteps configure DummyDataLoading -> TabularPreprocessing
// -> XGBoostTraining with three values taken from pipeline parameters: the
// data location, the processing and the training instance type.
func paramBase() map[string]any {
	return map[string]any{
		"author": "alice", "service_name": "Demo", "region": "NA", "pipeline_version": "1.0.0",
		"bucket": "example-bucket", "project_root_folder": "demo", "role": "arn:aws:iam::123456789012:role/SageMakerRole",
	}
}

func paramSteps(trainingInstance string) map[catalog.NodeName]map[string]any {
	return map[catalog.NodeName]map[string]any{
		"DummyDataLoading_training":     {"data_source": "{{Parameters.InputData}}"},
		"TabularPreprocessing_training": {"label_name": "y", "processing_instance_type_small": "{{ Parameters.ProcessingInstance }}"},
		"XGBoostTraining": {
			"training_instance_type": trainingInstance,
			"label_name":             "y", "tab_field_list": []any{"f1"}, "cat_field_list": []any{}, "objective": "binary:logistic", "num_round": 10,
			"pipeline_parameters": []any{
				map[string]any{"name": "InputData", "type": "String", "default_value": "s3://example-bucket/raw/"},
				map[string]any{"name": "ProcessingInstance", "type": "String", "default_value": "ml.m5.xlarge"},
				map[string]any{"name": "TrainingInstance", "type": "String", "default_value": "ml.m5.2xlarge"},
			},
		},
	}
}

var paramNodes = []catalog.NodeName{"DummyDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining"}

func paramDAG() *dag.PipelineDAG {
	return dag.New([]catalog.NodeName{"DummyDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining"},
		[]dag.Edge{{From: "DummyDataLoading_training", To: "TabularPreprocessing_training"}, {From: "TabularPreprocessing_training", To: "XGBoostTraining"}})
}

func walk(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %q: not an object: %v", k, v)
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("at [%d]: not an array of that length: %v", k, v)
			}
			v = a[k]
		}
	}
	return v
}

// TestParameterRefsEndToEnd: config values written "{{Parameters.X}}" pass
// the field patterns, survive config.json, and compile into references to
// the declared parameters; an undeclared one is the compiler's error, and a
// field that names things refuses a reference.
func TestParameterRefsEndToEnd(t *testing.T) {
	schema, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	set, err := schema.Build(config.BuildInput{Nodes: paramNodes, Base: paramBase(), Steps: paramSteps("{{Parameters.TrainingInstance}}")})
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	path := filepath.Join(t.TempDir(), "config.json")
	if err := config.Save(nil, set, path); err != nil {
		t.Fatal(err)
	}
	res, err := compiler.Compile(context.Background(), compiler.Input{DAG: paramDAG(), ConfigFile: path})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	b, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var def map[string]any
	if err := json.Unmarshal(b, &def); err != nil {
		t.Fatal(err)
	}
	declared := map[string]any{}
	for _, p := range walk(t, def, "Parameters").([]any) {
		declared[p.(map[string]any)["Name"].(string)] = p.(map[string]any)["DefaultValue"]
	}
	if declared["TrainingInstance"] != "ml.m5.2xlarge" || declared["InputData"] != "s3://example-bucket/raw/" {
		t.Errorf("parameters %v", declared)
	}
	steps := map[string]any{}
	for _, s := range walk(t, def, "Steps").([]any) {
		steps[s.(map[string]any)["Name"].(string)] = s
	}
	ref := func(name string) any { return map[string]any{"Get": "Parameters." + name} }
	if got := walk(t, steps["XGBoostTraining"], "Arguments", "ResourceConfig", "InstanceType"); !reflect.DeepEqual(got, ref("TrainingInstance")) {
		t.Errorf("training instance type %v", got)
	}
	if got := walk(t, steps["TabularPreprocessing-Training"], "Arguments", "ProcessingResources", "ClusterConfig", "InstanceType"); !reflect.DeepEqual(got, ref("ProcessingInstance")) {
		t.Errorf("processing instance type %v", got)
	}
	if got := walk(t, steps["DummyDataLoading-Training"], "Arguments", "ProcessingInputs", 0, "S3Input", "S3Uri"); !reflect.DeepEqual(got, ref("InputData")) {
		t.Errorf("data source %v", got)
	}

	// Not declared: the config accepts it, the compiler names the field.
	set, err = schema.Build(config.BuildInput{Nodes: paramNodes, Base: paramBase(), Steps: paramSteps("{{Parameters.Nope}}")})
	if err != nil {
		t.Fatalf("build with an undeclared parameter: %v", err)
	}
	_, err = compiler.Compile(context.Background(), compiler.Input{DAG: paramDAG(), Configs: set})
	var se *compiler.StepBuildError
	if !errors.As(err, &se) || se.Field != "training_instance_type" {
		t.Errorf("undeclared parameter: %v", err)
	}

	// A plain value still obeys the pattern; a name-bearing field refuses a reference.
	_, err = schema.Build(config.BuildInput{Nodes: paramNodes, Base: paramBase(), Steps: paramSteps("large")})
	var ve *config.ValidationError
	if !errors.As(err, &ve) || len(ve.Errors) != 1 || ve.Errors[0].Kind != config.KindPattern {
		t.Errorf("pattern: %v", err)
	}
	base := paramBase()
	base["region"] = "{{Parameters.Region}}"
	_, err = schema.Build(config.BuildInput{Nodes: paramNodes, Base: base, Steps: paramSteps("ml.m5.xlarge")})
	if !errors.As(err, &ve) || ve.Errors[0].Kind != config.KindParameter || ve.Errors[0].Field != "region" {
		t.Fatalf("region reference: %v", err)
	}
	steps2 := paramSteps("ml.m5.xlarge")
	steps2["TabularPreprocessing_training"]["job_type"] = "{{Parameters.Split}}"
	_, err = schema.Build(config.BuildInput{Nodes: paramNodes, Base: paramBase(), Steps: steps2})
	if !errors.As(err, &ve) || ve.Errors[0].Kind != config.KindParameter || ve.Errors[0].Field != "job_type" {
		t.Errorf("job_type reference: %v", err)
	}
	tp, _ := schema.LookupClass("TabularPreprocessing")
	if tp.ParameterRefBlocked("label_name") != "" || tp.ParameterRefBlocked("job_type") == "" {
		t.Errorf("ParameterRefBlocked label_name %q job_type %q", tp.ParameterRefBlocked("label_name"), tp.ParameterRefBlocked("job_type"))
	}
}
