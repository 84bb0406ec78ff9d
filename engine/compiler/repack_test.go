package compiler_test

import (
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
)

// An XGBoost model is served from its training archive with its code in S3 (the XGBoost
// container reads SAGEMAKER_SUBMIT_DIRECTORY); under network isolation it cannot fetch that code,
// so the compiler repacks it as the SDK's XGBoostModel does: a training job of the catalog's
// repack_model.py in the scikit-learn image of the pipeline's region, whose archive the model
// serves from /opt/ml/model/code.
func TestRepackUnderIsolation(t *testing.T) {
	nodes := []string{"DummyDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining", "XGBoostModel"}
	edges := [][2]string{{"DummyDataLoading_training", "TabularPreprocessing_training"}, {"TabularPreprocessing_training", "XGBoostTraining"}, {"XGBoostTraining", "XGBoostModel"}}

	_, steps := mustCompileCase(t, nodes, edges, nil)
	if _, repacked := steps["XGBoostModel-RepackModel"]; repacked {
		t.Fatal("a model that may fetch its code is repacked")
	}
	env := at(t, steps["XGBoostModel"], "Arguments", "PrimaryContainer", "Environment").(map[string]any)
	if sub, _ := env["SAGEMAKER_SUBMIT_DIRECTORY"].(string); !strings.HasPrefix(sub, "s3://") {
		t.Errorf("SAGEMAKER_SUBMIT_DIRECTORY %v, want the code's S3 URI", sub)
	}

	res, steps := mustCompileCase(t, nodes, edges, func(in *compiler.Input) {
		in.Configs = configSetPer(t, nodes, map[string]map[string]any{
			"DummyDataLoading_training": {"region": "EU"}, "TabularPreprocessing_training": {"region": "EU"}, "XGBoostTraining": {"region": "EU"},
			"XGBoostModel": {"region": "EU", "enable_network_isolation": true}})
	})
	rp, ok := steps["XGBoostModel-RepackModel"]
	if !ok {
		t.Fatalf("no repack step among %v", mapKeysAny(steps))
	}
	eq(t, "repack type", rp["Type"], "Training")
	eq(t, "repack depends on", rp["DependsOn"], []string{"XGBoostTraining"})
	eq(t, "repack image", at(t, rp, "Arguments", "AlgorithmSpecification", "TrainingImage"), "141502667606.dkr.ecr.eu-west-1.amazonaws.com/sagemaker-scikit-learn:1.2-1-cpu-py3")
	eq(t, "repack program", at(t, rp, "Arguments", "HyperParameters", "sagemaker_program"), `"repack_model.py"`)
	eq(t, "repack checks", at(t, rp, "Arguments", "HyperParameters", "inference_program"), `"inference.py"`)
	if _, isolated := at(t, rp, "Arguments").(map[string]any)["EnableNetworkIsolation"]; isolated {
		t.Error("the repack job itself is isolated: it could not fetch its own code")
	}
	chans := at(t, rp, "Arguments", "InputDataConfig").([]any)
	eq(t, "channels", []any{at(t, chans[0], "ChannelName"), at(t, chans[1], "ChannelName")}, []string{"model", "inference_code"})
	eq(t, "model channel", at(t, chans[0], "DataSource", "S3DataSource", "S3Uri"), map[string]any{"Get": "Steps.XGBoostTraining.ModelArtifacts.S3ModelArtifacts"})
	code, _ := at(t, chans[1], "DataSource", "S3DataSource", "S3Uri").(string)
	if !strings.HasSuffix(code, "/sourcedir.tar.gz") {
		t.Errorf("inference code channel %q", code)
	}

	model := steps["XGBoostModel"]
	eq(t, "EnableNetworkIsolation", at(t, model, "Arguments", "EnableNetworkIsolation"), true)
	eq(t, "ModelDataUrl", at(t, model, "Arguments", "PrimaryContainer", "ModelDataUrl"), map[string]any{"Get": "Steps.XGBoostModel-RepackModel.ModelArtifacts.S3ModelArtifacts"})
	env = at(t, model, "Arguments", "PrimaryContainer", "Environment").(map[string]any)
	eq(t, "SAGEMAKER_SUBMIT_DIRECTORY", env["SAGEMAKER_SUBMIT_DIRECTORY"], "/opt/ml/model/code")
	eq(t, "SAGEMAKER_PROGRAM", env["SAGEMAKER_PROGRAM"], "inference.py")

	// The repack step comes right before the model, the report says whose it is, and the upload
	// manifest ships the repack script and the inference code.
	var order []catalog.SageMakerStepName
	for _, s := range res.Definition.Steps {
		order = append(order, s.Name)
	}
	eq(t, "step order", order, []string{"DummyDataLoading-Training", "TabularPreprocessing-Training", "XGBoostTraining", "XGBoostModel-RepackModel", "XGBoostModel"})
	eq(t, "added steps", reportNode(t, res, "XGBoostModel").AddedSteps, []string{"XGBoostModel-RepackModel"})
	var shipped bool
	for _, a := range res.Manifest {
		if len(a.Steps) > 0 && a.Steps[0] == "XGBoostModel-RepackModel" {
			shipped = a.Embedded && a.Kind == compiler.KindSourceTarball && len(a.Files) == 1 && a.Files[0] == "repack_model.py"
		}
	}
	if !shipped {
		t.Errorf("the manifest does not ship repack_model.py: %+v", res.Manifest)
	}
}

// A training job under network isolation gets its code through the channel "code" and reads it
// from /opt/ml/input/data/code/sourcedir.tar.gz, as the SDK's estimators do; without isolation
// the toolkit downloads it from S3.
func TestCodeChannelUnderIsolation(t *testing.T) {
	nodes := []string{"DummyDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining"}
	edges := [][2]string{{"DummyDataLoading_training", "TabularPreprocessing_training"}, {"TabularPreprocessing_training", "XGBoostTraining"}}
	channels := func(tr map[string]any) []string {
		var out []string
		for _, c := range at(t, tr, "Arguments", "InputDataConfig").([]any) {
			out = append(out, c.(map[string]any)["ChannelName"].(string))
		}
		return out
	}
	_, steps := mustCompileCase(t, nodes, edges, nil)
	open := steps["XGBoostTraining"]
	eq(t, "channels", channels(open), []string{"train", "val", "test"})
	submit, _ := at(t, open, "Arguments", "HyperParameters", "sagemaker_submit_directory").(string)
	if !strings.HasPrefix(submit, `"s3://`) || !strings.HasSuffix(submit, `/sourcedir.tar.gz"`) {
		t.Fatalf("sagemaker_submit_directory %s", submit)
	}

	_, steps = mustCompileCase(t, nodes, edges, func(in *compiler.Input) {
		in.Configs = configSetPer(t, nodes, map[string]map[string]any{"XGBoostTraining": {"enable_network_isolation": true}})
	})
	iso := steps["XGBoostTraining"]
	eq(t, "EnableNetworkIsolation", at(t, iso, "Arguments", "EnableNetworkIsolation"), true)
	eq(t, "channels", channels(iso), []string{"train", "val", "test", "code"})
	eq(t, "code channel", at(t, iso, "Arguments", "InputDataConfig", "ChannelName=code", "DataSource", "S3DataSource", "S3Uri"), strings.Trim(submit, `"`))
	eq(t, "sagemaker_submit_directory", at(t, iso, "Arguments", "HyperParameters", "sagemaker_submit_directory"), `"/opt/ml/input/data/code/sourcedir.tar.gz"`)
}

// A PyTorch model inside a gate's branch takes its repack step into the branch, before it.
func TestRepackInBranch(t *testing.T) {
	path := editConfig(t, gatedConfigFile, "", func(cfg map[string]any) {
		spec := cfg["configuration"].(map[string]any)["specific"].(map[string]any)
		spec["XGBoostModel"].(map[string]any)["enable_network_isolation"] = true
	})
	res, err := compileGated(t, path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := res.JSON()
	checkDefinition(t, t.Name(), b)
	cond := findStep(t, defSteps(t, res), "Condition")
	ifs := stepNames(at(t, cond, "Arguments", "IfSteps").([]any))
	eq(t, "IfSteps", ifs[:2], []string{"XGBoostModel-RepackModel", "XGBoostModel"})
	for _, s := range defSteps(t, res) {
		if s["Name"] == "XGBoostModel-RepackModel" {
			t.Error("the repack step is also at the top level")
		}
	}
	for _, br := range res.Report.Branches {
		if br.Gate == "ModelQualityGate" && (len(br.IfSteps) < 2 || br.IfSteps[0] != "XGBoostModel-RepackModel") {
			t.Errorf("report branch %v", br.IfSteps)
		}
	}
}

func mapKeysAny[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
