package compiler_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/compiler/compilertest"
)

func declaredParams() []any {
	p := func(name, typ string, def any) map[string]any {
		return map[string]any{"name": name, "type": typ, "default_value": def}
	}
	return []any{
		p("Count", "Integer", 2), p("Volume", "Integer", 100), p("Runtime", "Integer", 3600),
		p("Label", "String", "y"), p("TrainRatio", "Float", 0.8), p("Eta", "Float", 0.1),
		p("Objective", "String", "binary:logistic"), p("Verbose", "String", "--verbose"),
		p("ContentType", "String", "text/csv"), p("Approval", "String", "PendingManualApproval"),
		p("Group", "String", "demo-models"), p("Image", "String", "123456789012.dkr.ecr.us-east-1.amazonaws.com/custom:1"),
		p("Workers", "Integer", 4),
	}
}

// paramValues sets, on every kind of step, values the definition takes as
// expressions to "{{Parameters.X}}".
func paramValues() map[string]map[string]any {
	return map[string]map[string]any{
		"TabularPreprocessing_training": {
			"processing_instance_count":   "{{Parameters.Count}}",
			"processing_volume_size":      "{{Parameters.Volume}}",
			"max_runtime_seconds":         "{{Parameters.Runtime}}",
			"label_name":                  "{{Parameters.Label}}",
			"train_ratio":                 "{{Parameters.TrainRatio}}",
			"max_workers":                 "{{Parameters.Workers}}",
			"processing_script_arguments": []any{"--mode", "{{Parameters.Verbose}}"},
			"env":                         map[string]any{"EXTRA_OBJECTIVE": "{{Parameters.Objective}}", "LIST": []any{"a", "{{Parameters.Label}}"}},
			"subnets":                     []any{"{{Parameters.VPC_SUBNET}}"},
			"security_group_ids":          []any{"{{Parameters.SECURITY_GROUP_ID}}"},
			"image_uri":                   "{{Parameters.Image}}",
		},
		"XGBoostTraining": {
			"pipeline_parameters":     declaredParams(),
			"training_instance_count": "{{Parameters.Count}}",
			"num_round":               100, "eta": "{{Parameters.Eta}}", "objective": "{{Parameters.Objective}}",
		},
		"BatchTransform_calibration": {
			"content_type":             "{{Parameters.ContentType}}",
			"accept":                   "{{Parameters.ContentType}}",
			"transform_instance_count": "{{Parameters.Count}}",
		},
		"Registration": {
			"model_approval_status":                "{{Parameters.Approval}}",
			"model_package_group_name":             "{{Parameters.Group}}",
			"source_model_inference_content_types": []any{"{{Parameters.ContentType}}", "application/json"},
		},
	}
}

// TestParameterReferencesEverywhere: a "{{Parameters.X}}" value becomes
// {"Get": "Parameters.X"} in every place of the definition that takes an
// expression (an Integer/Float parameter in a text place is converted with
// a one-value Std:Join, as the SDK's to_string() does), and the definition
// passes the strict schema and the SDK request-type check.
func TestParameterReferencesEverywhere(t *testing.T) {
	_, steps := mustCompileCase(t, registerNodes, registerEdges, func(in *compiler.Input) {
		in.Configs = configSetPer(t, registerNodes, paramValues())
	})
	get := compiler.Param
	text := func(name string) compiler.Join { return compiler.JoinOn("", get(name)) }

	tp := at(t, steps["TabularPreprocessing-Training"], "Arguments")
	eq(t, "instance count", at(t, tp, "ProcessingResources", "ClusterConfig", "InstanceCount"), get("Count"))
	eq(t, "volume", at(t, tp, "ProcessingResources", "ClusterConfig", "VolumeSizeInGB"), get("Volume"))
	eq(t, "runtime", at(t, tp, "StoppingCondition", "MaxRuntimeInSeconds"), get("Runtime"))
	eq(t, "image", at(t, tp, "AppSpecification", "ImageUri"), get("Image"))
	eq(t, "LABEL_FIELD", at(t, tp, "Environment", "LABEL_FIELD"), get("Label"))
	eq(t, "TRAIN_RATIO", at(t, tp, "Environment", "TRAIN_RATIO"), text("TrainRatio"))
	eq(t, "MAX_WORKERS", at(t, tp, "Environment", "MAX_WORKERS"), text("Workers"))
	eq(t, "env map", at(t, tp, "Environment", "EXTRA_OBJECTIVE"), get("Objective"))
	eq(t, "env list", at(t, tp, "Environment", "LIST"), compiler.JoinOn(",", "a", get("Label")))
	eq(t, "arguments", at(t, tp, "AppSpecification", "ContainerArguments"), []any{"--job_type", "training", "--mode", get("Verbose")})
	eq(t, "vpc", at(t, tp, "NetworkConfig", "VpcConfig"), map[string]any{
		"SecurityGroupIds": []any{get(compiler.ParamSecurityGroupID)}, "Subnets": []any{get(compiler.ParamVPCSubnet)}})

	tr := at(t, steps["XGBoostTraining"], "Arguments")
	eq(t, "training count", at(t, tr, "ResourceConfig", "InstanceCount"), get("Count"))
	eq(t, "eta", at(t, tr, "HyperParameters", "eta"), text("Eta"))
	eq(t, "objective", at(t, tr, "HyperParameters", "objective"), get("Objective"))
	eq(t, "num_round", at(t, tr, "HyperParameters", "num_round"), "100")

	bt := at(t, steps["BatchTransform-Calibration"], "Arguments")
	eq(t, "content type", at(t, bt, "TransformInput", "ContentType"), get("ContentType"))
	eq(t, "accept", at(t, bt, "TransformOutput", "Accept"), get("ContentType"))
	eq(t, "transform count", at(t, bt, "TransformResources", "InstanceCount"), get("Count"))

	rg := at(t, steps["Registration-NA"], "Arguments")
	eq(t, "approval", at(t, rg, "ModelApprovalStatus"), get("Approval"))
	eq(t, "group", at(t, rg, "ModelPackageGroupName"), get("Group"))
	eq(t, "content types", at(t, rg, "InferenceSpecification", "SupportedContentTypes"), []any{get("ContentType"), "application/json"})
}

// TestParameterReferencesInTuning: the tuning job's strategy, objective
// type, early stopping and job limits take parameters, as the SDK's
// HyperparameterTuner writes them. The strict schema accepts that (its
// patch A5); the relaxed copy keeps the official schema's literal-only
// types there (see the schema README), so only the strict schema and the
// SDK check apply.
func TestParameterReferencesInTuning(t *testing.T) {
	nodes, edges := tuningNodes, tuningEdges
	p := func(name, typ string, def any) map[string]any {
		return map[string]any{"name": name, "type": typ, "default_value": def}
	}
	res, err := compileCase(t, nodes, edges, func(in *compiler.Input) {
		in.Configs = configSetPer(t, nodes, map[string]map[string]any{"XGBoostTuning": {
			"pipeline_parameters": []any{p("Strategy", "String", "Random"), p("Direction", "String", "Maximize"),
				p("Early", "String", "Auto"), p("Jobs", "Integer", 4), p("Parallel", "Integer", 2), p("Depth", "Integer", 6)},
			"tuning_strategy": "{{Parameters.Strategy}}", "objective_type": "{{Parameters.Direction}}",
			"early_stopping_type": "{{Parameters.Early}}", "max_jobs": "{{Parameters.Jobs}}", "max_parallel_jobs": "{{Parameters.Parallel}}",
			"num_round": 100, "eta": 0.1, "max_depth": "{{Parameters.Depth}}",
		}})
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	compilertest.CheckSchemas(t, b, compilertest.Strict)
	for _, err := range compilertest.CheckSDK(b) {
		t.Error(err)
	}
	steps := stepsByName(t, b)
	cfg := at(t, steps["XGBoostTuning"], "Arguments", "HyperParameterTuningJobConfig")
	eq(t, "strategy", at(t, cfg, "Strategy"), compiler.Param("Strategy"))
	eq(t, "objective type", at(t, cfg, "HyperParameterTuningJobObjective", "Type"), compiler.Param("Direction"))
	eq(t, "early stopping", at(t, cfg, "TrainingJobEarlyStoppingType"), compiler.Param("Early"))
	eq(t, "limits", at(t, cfg, "ResourceLimits"), map[string]any{"MaxNumberOfTrainingJobs": compiler.Param("Jobs"), "MaxParallelTrainingJobs": compiler.Param("Parallel")})
	// max_depth is tuned, so it is not a static hyperparameter
	static := at(t, steps["XGBoostTuning"], "Arguments", "TrainingJobDefinition", "StaticHyperParameters").(map[string]any)
	if _, ok := static["max_depth"]; ok {
		t.Errorf("tuned max_depth is static: %v", static)
	}
}

// TestParameterReferencesRefused: where the compiler needs a value while it
// builds the definition (code to upload, an image to choose, a file to
// write, caching, a check), or where a parameter has the wrong type, the
// compile fails with a StepBuildError naming the field.
func TestParameterReferencesRefused(t *testing.T) {
	base := func() map[string]map[string]any {
		return map[string]map[string]any{"XGBoostTraining": {"pipeline_parameters": declaredParams()}, "XGBoostTuning": {"pipeline_parameters": declaredParams()}}
	}
	for _, tc := range []struct {
		node, field string
		value       any
		extra       map[string]any
		wantField   string
		wantText    string
	}{
		{node: "TabularPreprocessing_training", field: "processing_entry_point", value: "{{Parameters.Label}}", wantField: "processing_entry_point"},
		{node: "TabularPreprocessing_training", field: "processing_framework_version", value: "{{Parameters.Label}}", wantField: "processing_framework_version"},
		{node: "TabularPreprocessing_training", field: "cache_expire_after", value: "{{Parameters.Label}}", extra: map[string]any{"enable_caching": true}, wantField: "cache_expire_after"},
		{node: "XGBoostTraining", field: "tab_field_list", value: []any{"f1", "{{Parameters.Label}}"}, wantField: "tab_field_list[1]"},
		{node: "XGBoostModel", field: "framework_version", value: "{{Parameters.Label}}", wantField: "framework_version"},
		{node: "TabularPreprocessing_training", field: "processing_instance_count", value: "{{Parameters.Label}}", wantField: "processing_instance_count", wantText: "needs an Integer parameter"},
		{node: "TabularPreprocessing_training", field: "processing_volume_size", value: "{{Parameters.Undeclared}}", wantField: "processing_volume_size", wantText: "no config declares"},
		{node: "TabularPreprocessing_training", field: "env", value: map[string]any{"SPEC": map[string]any{"a": "{{Parameters.Label}}"}}, wantField: "env.SPEC.a"},
		{node: "XGBoostTraining", field: "training_instance_type", value: "{{Parameters.Count}}", wantField: "training_instance_type", wantText: "String parameter"},
		{node: "XGBoostTuning", field: "metric_definitions", value: []any{map[string]any{"Name": "validation:auc", "Regex": "{{Parameters.Label}}"}}, wantField: "metric_definitions[0].Regex"},
		{node: "XGBoostTuning", field: "search_space", value: map[string]any{"continuous": []any{map[string]any{"name": "eta", "min": "{{Parameters.Eta}}", "max": 0.3}}}, wantField: "search_space.continuous[0].min"},
	} {
		t.Run(tc.wantField, func(t *testing.T) {
			per := base()
			if per[tc.node] == nil {
				per[tc.node] = map[string]any{}
			}
			per[tc.node][tc.field] = tc.value
			for k, v := range tc.extra {
				per[tc.node][k] = v
			}
			nodes, edges := registerNodes, registerEdges
			if tc.node == "XGBoostTuning" {
				nodes, edges = tuningNodes, tuningEdges
			}
			_, err := compileCase(t, nodes, edges, func(in *compiler.Input) { in.Configs = configSetPer(t, nodes, per) })
			var se *compiler.StepBuildError
			if !errors.As(err, &se) || se.Field != tc.wantField || !strings.Contains(err.Error(), tc.wantText) {
				t.Fatalf("want a StepBuildError on %s (%q), got %v", tc.wantField, tc.wantText, err)
			}
		})
	}

	// A config-file input is written when the pipeline is built: a
	// reference inside it is refused.
	nodes := []string{"CradleDataLoading_training"}
	spec := map[string]any{"start_date": "{{Parameters.Start}}", "end_date": "2025-02-01T00:00:00",
		"data_sources": []any{map[string]any{"data_source_name": "RAW", "data_source_type": "MDS"}}}
	_, err := compileCase(t, nodes, nil, func(in *compiler.Input) {
		in.Configs = configSetPer(t, nodes, map[string]map[string]any{"CradleDataLoading_training": {
			"data_sources_spec":   spec,
			"pipeline_parameters": []any{map[string]any{"name": "Start", "type": "String"}},
		}})
	})
	var se *compiler.StepBuildError
	if !errors.As(err, &se) || se.Field != "data_sources_spec.start_date" {
		t.Errorf("reference in a config-file input: %v", err)
	}
}
