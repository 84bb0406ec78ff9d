package compiler_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/compiler/internal/sdkshape"
)

// The embedded property table is what the aws-sdk-go-v2 output types give today: after an SDK
// bump, go generate ./engine/compiler rewrites it and this test passes again.
func TestSDKPropertiesCurrent(t *testing.T) {
	want, err := sdkshape.Generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("sdk_properties.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("sdk_properties.json is not what the SDK's output types give; run go generate ./engine/compiler")
	}
	for _, k := range compiler.DefinitionKinds() {
		if !bytes.Contains(got, []byte(`"`+k.Type+`": {`)) {
			t.Errorf("the table has no entry for %s", k.Type)
		}
	}
	for _, p := range []string{`"ModelArtifacts.S3ModelArtifacts"`, `"ProcessingOutputConfig.Outputs[].S3Output.S3Uri"`,
		`"TrainingJobSummaries[].TrainingJobName"`, `"TransformOutput.S3OutputPath"`, `"ModelPackageArn"`, `"ModelName"`} {
		if !bytes.Contains(got, []byte(p)) {
			t.Errorf("the table lacks %s", p)
		}
	}
}

// Every example, and a 1,000-node synthetic pipeline, compiles to a definition whose references
// all resolve.
func TestExamplesHaveNoReferenceProblems(t *testing.T) {
	for _, dir := range exampleDirs(t) {
		res := compileExample(t, dir)
		probs, err := compiler.CheckReferences(res.Definition)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range probs {
			t.Errorf("%s: %s", filepath.Base(dir), p)
		}
	}
	d, set := synthetic(t, 1000)
	res, err := compiler.Compile(context.Background(), compiler.Input{DAG: d, Configs: set, BaseDir: filepath.Join(examplesDir, "simple-training")})
	if err != nil {
		t.Fatal(err)
	}
	if probs, err := compiler.CheckReferences(res.Definition); err != nil || len(probs) != 0 {
		t.Errorf("synthetic 1,000 nodes: %v %v", err, probs)
	}
}

func get(p string) map[string]any { return map[string]any{"Get": p} }

// refDefinition is a small definition with every kind of reference, each valid: a processing step
// with two outputs and a property file, a training step reading them, a tuning step, a model, a
// condition reading the property file, and a register step in its if-branch.
func refDefinition() *compiler.Definition {
	return &compiler.Definition{
		Version: compiler.DefinitionVersion,
		Parameters: []compiler.Parameter{
			{Name: "InputData", Type: "String", DefaultValue: "s3://b/raw/"},
			{Name: "ModelPrefix", Type: "String", DefaultValue: "s3://b/models/"},
			{Name: "Threshold", Type: "Float", DefaultValue: 6.0},
		},
		Steps: []compiler.Step{
			{Name: "Prep", Type: "Processing", Arguments: map[string]any{
				"ProcessingInputs": []any{map[string]any{"InputName": "raw", "S3Input": map[string]any{"S3Uri": get("Parameters.InputData")}}},
				"ProcessingOutputConfig": map[string]any{"Outputs": []any{
					map[string]any{"OutputName": "train", "S3Output": map[string]any{"S3Uri": map[string]any{"Std:Join": map[string]any{"On": "/", "Values": []any{"s3:/", "b", get("Execution.PipelineExecutionId"), "train"}}}}},
					map[string]any{"OutputName": "evaluation", "S3Output": map[string]any{"S3Uri": "s3://b/eval"}},
				}},
			}},
			{Name: "Train", Type: "Training", Arguments: map[string]any{
				"InputDataConfig": []any{map[string]any{"ChannelName": "train", "DataSource": map[string]any{"S3DataSource": map[string]any{
					"S3Uri": get("Steps.Prep.ProcessingOutputConfig.Outputs['train'].S3Output.S3Uri")}}}},
				"HyperParameters": map[string]any{"sagemaker_submit_directory": `"s3://b/code/sourcedir.tar.gz"`},
			}},
			{Name: "Tune", Type: "Tuning", Arguments: map[string]any{
				"TrainingJobDefinition": map[string]any{"OutputDataConfig": map[string]any{"S3OutputPath": get("Steps.Train.OutputDataConfig.S3OutputPath")}},
			}},
			{Name: "Model", Type: "Model", Arguments: map[string]any{
				"PrimaryContainer": map[string]any{"ModelDataUrl": get("Steps.Train.ModelArtifacts.S3ModelArtifacts"),
					"Environment": map[string]any{"SAGEMAKER_SUBMIT_DIRECTORY": "s3://b/code/sourcedir.tar.gz", "BEST": get("Steps.Tune.TrainingJobSummaries[0].TrainingJobName")}},
			}},
			{Name: "Gate", Type: "Condition", Arguments: map[string]any{
				"Conditions": []any{map[string]any{"Type": "GreaterThanOrEqualTo",
					"LeftValue":  map[string]any{"Std:JsonGet": map[string]any{"PropertyFile": get("Steps.Prep.PropertyFiles.EvaluationReport"), "Path": "metrics.auc.value"}},
					"RightValue": get("Parameters.Threshold")}},
				"IfSteps": []any{map[string]any{"Name": "Register", "Type": "RegisterModel", "Arguments": map[string]any{
					"InferenceSpecification": map[string]any{"Containers": []any{map[string]any{"ModelDataUrl": get("Steps.Train.ModelArtifacts.S3ModelArtifacts")}}},
					"ModelName":              get("Steps.Model.ModelName"),
				}}},
				"ElseSteps": []any{},
			}},
		},
	}
}

// checkRefs runs CheckReferencesJSON on def with the property file the condition reads declared
// on Prep (Step has no PropertyFiles field yet, so it is added to the JSON).
func checkRefs(t *testing.T, def *compiler.Definition) []compiler.ReferenceProblem {
	t.Helper()
	b, err := def.Marshal(false)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	doc["Steps"].([]any)[0].(map[string]any)["PropertyFiles"] = []any{
		map[string]any{"PropertyFileName": "EvaluationReport", "OutputName": "evaluation", "FilePath": "evaluation.json"}}
	if b, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	probs, err := compiler.CheckReferencesJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	return probs
}

func TestCheckReferencesValid(t *testing.T) {
	if probs := checkRefs(t, refDefinition()); len(probs) != 0 {
		t.Fatalf("a definition whose references all resolve has problems: %v", probs)
	}
	// Without the property file, the condition's Std:JsonGet names one that is not declared.
	probs, err := compiler.CheckReferences(refDefinition())
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 1 || probs[0].Step != "Gate" || probs[0].Field != "Arguments.Conditions[0].LeftValue.Std:JsonGet.PropertyFile" ||
		!strings.Contains(probs[0].Reason, "step Prep declares no property file EvaluationReport (it declares none)") {
		t.Fatalf("problems %v, want only the undeclared property file", probs)
	}
	if _, err := compiler.CheckReferencesJSON([]byte("[1]")); err == nil {
		t.Error("a JSON array was checked as a definition")
	}
}

// Each broken reference is one problem naming the step, the field and why.
func TestCheckReferencesFindsEach(t *testing.T) {
	type mut func(d *compiler.Definition)
	arg := func(d *compiler.Definition, step int) map[string]any { return d.Steps[step].Arguments.(map[string]any) }
	trainInput := func(d *compiler.Definition, v any) {
		arg(d, 1)["InputDataConfig"].([]any)[0].(map[string]any)["DataSource"].(map[string]any)["S3DataSource"].(map[string]any)["S3Uri"] = v
	}
	modelData := func(d *compiler.Definition, v any) {
		arg(d, 3)["PrimaryContainer"].(map[string]any)["ModelDataUrl"] = v
	}
	cases := []struct {
		name        string
		mutate      mut
		step, field string
		reason      string
	}{
		{"no such step", func(d *compiler.Definition) {
			trainInput(d, get("Steps.Prepare.ProcessingOutputConfig.Outputs['train'].S3Output.S3Uri"))
		},
			"Train", "Arguments.InputDataConfig[0].DataSource.S3DataSource.S3Uri", "names no step Prepare"},
		{"later step", func(d *compiler.Definition) { trainInput(d, get("Steps.Model.ModelName")) },
			"Train", "Arguments.InputDataConfig[0].DataSource.S3DataSource.S3Uri", "names step Model, which does not come before it"},
		{"own step", func(d *compiler.Definition) { trainInput(d, get("Steps.Train.ModelArtifacts.S3ModelArtifacts")) },
			"Train", "Arguments.InputDataConfig[0].DataSource.S3DataSource.S3Uri", "refers to its own step"},
		{"no such property", func(d *compiler.Definition) { modelData(d, get("Steps.Train.ModelArtifacts.S3ModelArtifact")) },
			"Model", "Arguments.PrimaryContainer.ModelDataUrl", "ModelArtifacts.S3ModelArtifact is not a property of a Training step (its properties are the fields of DescribeTrainingJobOutput); ModelArtifacts has S3ModelArtifacts"},
		{"properties. segment", func(d *compiler.Definition) {
			modelData(d, get("Steps.Train.properties.ModelArtifacts.S3ModelArtifacts"))
		},
			"Model", "Arguments.PrimaryContainer.ModelDataUrl", "properties.ModelArtifacts.S3ModelArtifacts is not a property of a Training step"},
		{"undeclared output", func(d *compiler.Definition) {
			trainInput(d, get("Steps.Prep.ProcessingOutputConfig.Outputs['validation'].S3Output.S3Uri"))
		},
			"Train", "Arguments.InputDataConfig[0].DataSource.S3DataSource.S3Uri", `step Prep declares no output "validation" (its outputs are train, evaluation)`},
		{"output index past the end", func(d *compiler.Definition) {
			trainInput(d, get("Steps.Prep.ProcessingOutputConfig.Outputs[2].S3Output.S3Uri"))
		},
			"Train", "Arguments.InputDataConfig[0].DataSource.S3DataSource.S3Uri", "step Prep has 2 outputs; index 2 is past them"},
		{"malformed path", func(d *compiler.Definition) {
			trainInput(d, get("Steps.Prep.ProcessingOutputConfig.Outputs['train'.S3Output.S3Uri"))
		},
			"Train", "Arguments.InputDataConfig[0].DataSource.S3DataSource.S3Uri", "malformed property path"},
		{"undeclared parameter", func(d *compiler.Definition) {
			arg(d, 0)["ProcessingInputs"].([]any)[0].(map[string]any)["S3Input"].(map[string]any)["S3Uri"] = get("Parameters.InputDataset")
		}, "Prep", "Arguments.ProcessingInputs[0].S3Input.S3Uri", "parameter InputDataset is not declared (the definition declares InputData, ModelPrefix, Threshold)"},
		{"unknown execution variable", func(d *compiler.Definition) {
			arg(d, 0)["ProcessingOutputConfig"].(map[string]any)["Outputs"].([]any)[0].(map[string]any)["S3Output"].(map[string]any)["S3Uri"] = get("Execution.ExecutionId")
		}, "Prep", "Arguments.ProcessingOutputConfig.Outputs[0].S3Output.S3Uri", "ExecutionId is not an execution variable"},
		{"undeclared property file", func(d *compiler.Definition) {
			cond := arg(d, 4)["Conditions"].([]any)[0].(map[string]any)
			cond["LeftValue"] = map[string]any{"Std:JsonGet": map[string]any{"PropertyFile": get("Steps.Prep.PropertyFiles.Metrics"), "Path": "auc"}}
		}, "Gate", "Arguments.Conditions[0].LeftValue.Std:JsonGet.PropertyFile", "step Prep declares no property file Metrics (it declares EvaluationReport)"},
		{"JsonGet on a property", func(d *compiler.Definition) {
			cond := arg(d, 4)["Conditions"].([]any)[0].(map[string]any)
			cond["LeftValue"] = map[string]any{"Std:JsonGet": map[string]any{"PropertyFile": get("Steps.Train.ModelArtifacts.S3ModelArtifacts"), "Path": "auc"}}
		}, "Gate", "Arguments.Conditions[0].LeftValue.Std:JsonGet.PropertyFile", "Std:JsonGet's PropertyFile is Steps.<step>.PropertyFiles.<name>"},
		{"property file through Get", func(d *compiler.Definition) { modelData(d, get("Steps.Prep.PropertyFiles.EvaluationReport")) },
			"Model", "Arguments.PrimaryContainer.ModelDataUrl", "a property file is read with Std:JsonGet"},
		{"not a Get", func(d *compiler.Definition) { modelData(d, get("Train.ModelArtifacts.S3ModelArtifacts")) },
			"Model", "Arguments.PrimaryContainer.ModelDataUrl", "a Get names Parameters.<name>, Execution.<variable> or Steps.<step>.<property>"},
		{"prefix literal for a model", func(d *compiler.Definition) { modelData(d, "s3://b/models/") },
			"Model", "Arguments.PrimaryContainer.ModelDataUrl", "needs one S3 object (a .tar.gz), not a prefix: s3://b/models/ ends in /"},
		{"output location for a model", func(d *compiler.Definition) { modelData(d, get("Steps.Train.OutputDataConfig.S3OutputPath")) },
			"Model", "Arguments.PrimaryContainer.ModelDataUrl", "OutputDataConfig.S3OutputPath is where Training step Train writes its output, a prefix"},
		{"processing output for a model", func(d *compiler.Definition) {
			modelData(d, get("Steps.Prep.ProcessingOutputConfig.Outputs['train'].S3Output.S3Uri"))
		},
			"Model", "Arguments.PrimaryContainer.ModelDataUrl", "is where Processing step Prep writes its output, a prefix"},
		{"parameter defaulting to a prefix", func(d *compiler.Definition) { modelData(d, get("Parameters.ModelPrefix")) },
			"Model", "Arguments.PrimaryContainer.ModelDataUrl", "parameter ModelPrefix defaults to the prefix s3://b/models/"},
		{"join ending in a prefix", func(d *compiler.Definition) {
			modelData(d, map[string]any{"Std:Join": map[string]any{"On": "/", "Values": []any{"s3:/", "b", get("Execution.PipelineExecutionId"), "model/"}}})
		}, "Model", "Arguments.PrimaryContainer.ModelDataUrl", `the Std:Join ends in "model/"`},
		{"quoted code prefix", func(d *compiler.Definition) {
			arg(d, 1)["HyperParameters"].(map[string]any)["sagemaker_submit_directory"] = `"s3://b/code/"`
		},
			"Train", "Arguments.HyperParameters.sagemaker_submit_directory", "s3://b/code/ ends in /"},
		{"payload prefix", func(d *compiler.Definition) {
			reg := arg(d, 4)["IfSteps"].([]any)[0].(map[string]any)["Arguments"].(map[string]any)
			reg["SamplePayloadUrl"] = get("Steps.Prep.ProcessingOutputConfig.Outputs['evaluation'].S3Output.S3Uri")
		}, "Register", "Arguments.SamplePayloadUrl", "is where Processing step Prep writes its output, a prefix"},
		{"branch step with a bad path", func(d *compiler.Definition) {
			reg := arg(d, 4)["IfSteps"].([]any)[0].(map[string]any)["Arguments"].(map[string]any)
			reg["ModelName"] = get("Steps.Model.ModelNam")
		}, "Register", "Arguments.ModelName", "ModelNam is not a property of a Model step"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := refDefinition()
			c.mutate(d)
			probs := checkRefs(t, d)
			if len(probs) != 1 {
				t.Fatalf("%d problems, want 1: %v", len(probs), probs)
			}
			if p := probs[0]; p.Step != c.step || p.Field != c.field || !strings.Contains(p.Reason, c.reason) {
				t.Errorf("problem %s %s: %s\nwant at %s %s saying %q", p.Step, p.Field, p.Reason, c.step, c.field, c.reason)
			}
		})
	}
}

// A step's PropertyFiles are checked: each names an output the Processing step declares, a file
// path inside it and a name of its own; a step of another type declares none.
func TestCheckReferencesPropertyFiles(t *testing.T) {
	pf := func(name, out, file string) map[string]any {
		return map[string]any{"PropertyFileName": name, "OutputName": out, "FilePath": file}
	}
	good := pf("EvaluationReport", "evaluation", "evaluation.json")
	cases := []struct {
		name        string
		step        int // the step declaring files
		files       []any
		field, want string
	}{
		{"absolute path", 0, []any{pf("EvaluationReport", "evaluation", "/evaluation.json")}, "PropertyFiles[0].FilePath", "needs a file path relative to its output"},
		{"path out of the output", 0, []any{pf("EvaluationReport", "evaluation", "a/../../evaluation.json")}, "PropertyFiles[0].FilePath", "needs a file path relative to its output"},
		{"no path", 0, []any{pf("EvaluationReport", "evaluation", "")}, "PropertyFiles[0].FilePath", "needs a file path relative to its output"},
		{"undeclared output", 0, []any{pf("EvaluationReport", "metrics", "evaluation.json")}, "PropertyFiles[0].OutputName", `names output "metrics", which the step does not declare (its outputs are train, evaluation)`},
		{"declared twice", 0, []any{good, pf("EvaluationReport", "train", "t.json")}, "PropertyFiles[1].PropertyFileName", "property file EvaluationReport is declared twice"},
		{"no name", 0, []any{good, pf("", "train", "t.json")}, "PropertyFiles[1].PropertyFileName", "a property file needs a name"},
		{"not a Processing step", 1, []any{good}, "PropertyFiles", "a Training step declares no property files"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := refDefinition().Marshal(false)
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			steps := doc["Steps"].([]any)
			steps[0].(map[string]any)["PropertyFiles"] = []any{good}
			steps[c.step].(map[string]any)["PropertyFiles"] = c.files
			if b, err = json.Marshal(doc); err != nil {
				t.Fatal(err)
			}
			probs, err := compiler.CheckReferencesJSON(b)
			if err != nil {
				t.Fatal(err)
			}
			var found bool
			for _, p := range probs {
				found = found || p.Field == c.field && strings.Contains(p.Reason, c.want)
			}
			if !found {
				t.Errorf("problems %v, want at %s: %q", probs, c.field, c.want)
			}
		})
	}
}

// The readiness gate carries CheckReferences' problems: a registration compiled alone with a folder
// as its model data is not deployable (prefix_for_object at its ModelDataUrl); the archive itself is.
// A PyTorch model given a folder is repacked: the folder is the repack job's channel, and the model
// serves the repacked archive.
func TestReadinessPrefixForObject(t *testing.T) {
	compileStep := func(example, target string, inputs map[string]string) *compiler.Result {
		t.Helper()
		res, err := compiler.CompileSingleNode(context.Background(), compiler.SingleNodeInput{
			Input:        compiler.Input{ConfigFile: filepath.Join(examplesDir, example, "config.json")},
			Target:       target,
			ManualInputs: inputs, ValidateInputs: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	register := func(uri string) *compiler.Result {
		return compileStep("xgboost-end-to-end", "Registration", map[string]string{"PackagedModel": uri, "GeneratedPayloadSamples": "s3://example-bucket/payload/payload.tar.gz"})
	}
	res := register("s3://example-bucket/models/")
	var found bool
	for _, b := range res.Blockers {
		if b.Kind == compiler.BlockerPrefixForObject {
			found = true
			if b.Node != "Registration" || !strings.HasSuffix(b.Path, "].Arguments.InferenceSpecification.Containers[0].ModelDataUrl") ||
				!strings.Contains(b.Problem, "s3://example-bucket/models/ ends in /") || !strings.Contains(b.Fix, "model.tar.gz") || b.Tool == "" {
				t.Errorf("blocker %+v", b)
			}
		}
	}
	if !found || res.Deployable() {
		t.Fatalf("a folder as ModelDataUrl: deployable %v, blockers %s", res.Deployable(), compiler.BlockerSummary(res.Blockers))
	}
	for _, b := range register("s3://example-bucket/models/model.tar.gz").Blockers {
		if b.Kind == compiler.BlockerPrefixForObject || b.Kind == compiler.BlockerBadReference {
			t.Errorf("the archive itself: %s", b)
		}
	}
	for _, b := range compileStep("pytorch-batch-transform", "PyTorchModel", map[string]string{"model_data": "s3://example-bucket/models/"}).Blockers {
		if b.Kind == compiler.BlockerPrefixForObject || b.Kind == compiler.BlockerBadReference {
			t.Errorf("a PyTorch model's folder, repacked: %s", b)
		}
	}
}
