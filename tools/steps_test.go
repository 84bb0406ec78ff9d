package tools

import (
	"context"
	"strings"
	"testing"
)

func TestStepsIOTrainingChannels(t *testing.T) {
	ctx := context.Background()
	env := callTool(t, ctx, "steps.io", map[string]any{"step_name": "XGBoostTraining"})
	d := wantOK(t, env)
	if d["step_type"] != "XGBoostTraining" || d["sagemaker_step_type"] != "Training" || d["job_type"] != nil {
		t.Errorf("header %v", d)
	}
	ins := d["inputs"].([]any)
	if len(ins) != int(d["dependency_count"].(float64)) {
		t.Error("dependency_count")
	}
	in0 := ins[0].(map[string]any)
	if in0["logical_name"] != "input_path" || in0["container_path"] != "/opt/ml/input/data" || strings.Join(strs(t, in0["channels"]), ",") != "train,val,test" {
		t.Errorf("input_path %v", in0)
	}
	for _, x := range ins {
		if _, ok := x.(map[string]any)["channels"]; !ok {
			t.Errorf("training input without channels: %v", x)
		}
	}
	outs := d["outputs"].([]any)
	mo := outs[0].(map[string]any)
	if mo["logical_name"] != "model_output" || mo["container_path"] != "/opt/ml/model" || mo["property_path"] != "properties.ModelArtifacts.S3ModelArtifacts" {
		t.Errorf("model_output %v", mo)
	}
	if env["meta"].(map[string]any)["step_name"] != "XGBoostTraining" {
		t.Error("meta.step_name")
	}
}

func TestStepsIOOtherVerbs(t *testing.T) {
	ctx := context.Background()
	tp := wantOK(t, callTool(t, ctx, "steps.io", map[string]any{"step_name": "TabularPreprocessing", "job_type": "training"}))
	if tp["sagemaker_step_name"] != "TabularPreprocessing-Training" || tp["job_type"] != "training" {
		t.Errorf("tabular %v", tp)
	}
	for _, x := range tp["inputs"].([]any) {
		if _, ok := x.(map[string]any)["channels"]; ok {
			t.Errorf("processing input with channels: %v", x)
		}
	}
	out := tp["outputs"].([]any)[0].(map[string]any)
	if out["property_path"] != "properties.ProcessingOutputConfig.Outputs['processed_data'].S3Output.S3Uri" || out["container_path"] != "/opt/ml/processing/output" {
		t.Errorf("processed_data %v", out)
	}
	bt := wantOK(t, callTool(t, ctx, "steps.io", map[string]any{"step_name": "BatchTransform"}))
	for _, x := range bt["inputs"].([]any) {
		if p, ok := x.(map[string]any)["container_path"]; !ok || p != nil {
			t.Errorf("BatchTransform input container_path should be null: %v", x)
		}
	}
	tun := wantOK(t, callTool(t, ctx, "steps.io", map[string]any{"step_name": "XGBoostTuning"}))
	if mo := tun["outputs"].([]any)[0].(map[string]any); strings.Join(strs(t, mo["uri_join"]), "/") != "output/model.tar.gz" {
		t.Errorf("tuning model output %v", mo)
	}
	required := func(jt string) any {
		for _, x := range wantOK(t, callTool(t, ctx, "steps.io", map[string]any{"step_name": "MissingValueImputation", "job_type": jt}))["inputs"].([]any) {
			if x.(map[string]any)["logical_name"] == "model_artifacts_input" {
				return x.(map[string]any)["required"]
			}
		}
		return nil
	}
	if required("training") != false || required("calibration") != true {
		t.Error("job_type does not flip required")
	}
	env := callTool(t, ctx, "steps.io", map[string]any{"step_name": "XGBoostTrainin"})
	wantFail(t, env, "not_found")
	if r, _ := env["remedy"].(map[string]any); r == nil || strings.Join(strs(t, r["suggested_tools"]), ",") != "catalog.search,catalog.list_steps" {
		t.Errorf("remedy %v", env["remedy"])
	}
}

func TestStepsPatterns(t *testing.T) {
	ctx := context.Background()
	d := wantOK(t, callTool(t, ctx, "steps.patterns", map[string]any{"step_name": "XGBoostTraining"}))
	p := d["patterns"].(map[string]any)
	cs := p["create_step"].(map[string]any)
	if cs["handler"] != "TrainingStepBuilder" || cs["sagemaker_step_type"] != "Training" {
		t.Errorf("create_step %v", cs)
	}
	c := p["compute"].(map[string]any)
	if c["kind"] != "estimator" || c["sdk_class"] != "XGBoost" || c["framework_version_field"] != "framework_version" || c["instance_type_field"] != "training_instance_type" {
		t.Errorf("compute %v", c)
	}
	for _, axis := range []string{"create_step", "compute", "env_vars", "job_arguments", "inputs", "outputs"} {
		if _, ok := p[axis].(map[string]any)["custom_override"]; !ok {
			t.Errorf("axis %s lacks custom_override", axis)
		}
	}
	if o := p["outputs"].(map[string]any); o["output_path_token"] != "xgboost_training" {
		t.Errorf("outputs %v", o)
	}
	dep := d["dependencies"].(map[string]any)
	if len(strs(t, dep["runtime"])) == 0 || dep["native"] != false {
		t.Errorf("dependencies %v", dep)
	}

	tp := wantOK(t, callTool(t, ctx, "steps.patterns", map[string]any{"step_name": "TabularPreprocessing", "job_type": "calibration"}))
	tpp := tp["patterns"].(map[string]any)
	if tpp["create_step"].(map[string]any)["step_assembly"] != "code" || tpp["compute"].(map[string]any)["sdk_class"] != "SKLearnProcessor" {
		t.Errorf("tabular create/compute %v", tpp)
	}
	env := tpp["env_vars"].(map[string]any)
	if src := env["sources"].(map[string]any); src["LABEL_FIELD"] != "label_name" || src["TRAIN_RATIO"] != "train_ratio" {
		t.Errorf("env sources %v", src)
	}
	if ja := tpp["job_arguments"].(map[string]any)["declared"].([]any); len(ja) != 1 || ja[0].(map[string]any)["flag"] != "--job_type" {
		t.Errorf("job arguments %v", ja)
	}
	if c := tpp["compute"].(map[string]any); c["instance_size_mode"] != "large_or_small" {
		t.Errorf("instance size mode %v", c)
	}
	reg := wantOK(t, callTool(t, ctx, "steps.patterns", map[string]any{"step_name": "Registration"}))
	if o := reg["patterns"].(map[string]any)["outputs"].(map[string]any); o["sink"] != true {
		t.Errorf("Registration outputs %v", o)
	}
	wantFail(t, callTool(t, ctx, "steps.patterns", map[string]any{"step_name": "Nope"}), "not_found")
}
