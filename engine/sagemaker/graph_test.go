package sagemaker

import (
	"errors"
	"slices"
	"testing"
)

// A gated definition: Eval reads Train's model through a property reference, the Condition reads
// Eval's property file, the branch steps run under the Condition.
const gatedDefinition = `{"Version": "2020-12-01", "Steps": [
 {"Name": "Prep", "Type": "Processing", "Arguments": {}},
 {"Name": "Train", "Type": "Training", "Arguments": {"InputDataConfig": [{"DataSource": {"S3DataSource": {"S3Uri": {"Get": "Steps.Prep.ProcessingOutputConfig.Outputs['train'].S3Output.S3Uri"}}}}]}},
 {"Name": "Eval", "Type": "Processing", "Arguments": {"ProcessingInputs": [{"S3Input": {"S3Uri": {"Get": "Steps.Train.ModelArtifacts.S3ModelArtifacts"}}}]}, "PropertyFiles": [{"PropertyFileName": "Metrics", "OutputName": "metrics", "FilePath": "metrics.json"}]},
 {"Name": "Gate", "Type": "Condition", "Arguments": {
   "Conditions": [{"Type": "GreaterThanOrEqualTo", "LeftValue": {"Std:JsonGet": {"PropertyFile": {"Get": "Steps.Eval.PropertyFiles.Metrics"}, "Path": "auc"}}, "RightValue": 0.7}],
   "IfSteps": [{"Name": "Register", "Type": "RegisterModel", "Arguments": {"ModelDataUrl": {"Get": "Steps.Train.ModelArtifacts.S3ModelArtifacts"}}}],
   "ElseSteps": [{"Name": "Stop", "Type": "Fail", "Arguments": {"ErrorMessage": "low"}}]}}
]}`

func TestStepGraph(t *testing.T) {
	g, err := StepGraph(gatedDefinition)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.Steps, []string{"Prep", "Train", "Eval", "Gate", "Register", "Stop"}) || g.Types["Register"] != "RegisterModel" {
		t.Fatalf("steps %v types %v", g.Steps, g.Types)
	}
	for step, want := range map[string][]string{"Prep": nil, "Train": {"Prep"}, "Eval": {"Train"}, "Gate": {"Eval"}, "Register": {"Gate", "Train"}, "Stop": {"Gate"}} {
		if !slices.Equal(g.Deps[step], want) {
			t.Errorf("deps of %s = %v, want %v", step, g.Deps[step], want)
		}
	}
	if a := g.Ancestors("Register"); !slices.Equal(a, []string{"Prep", "Train", "Eval", "Gate"}) {
		t.Errorf("ancestors %v", a)
	}
	if d := g.Descendants("Train"); !slices.Equal(d, []string{"Eval", "Gate", "Register", "Stop"}) {
		t.Errorf("descendants %v", d)
	}
	needs, err := g.CheckSelection([]string{"Train", "Eval"})
	if err != nil || !slices.Equal(needs, []string{"Prep"}) {
		t.Errorf("Train+Eval: needs %v, %v", needs, err)
	}
	_, err = g.CheckSelection([]string{"Prep", "Gate"})
	var se *SelectionError
	if !errors.As(err, &se) || !slices.Equal(se.Between, []string{"Train", "Eval"}) {
		t.Errorf("Prep+Gate: %v, want Train and Eval missing between", err)
	}
	if _, err := StepGraph(`{"Steps": [{"Name": "A", "Type": "Processing", "DependsOn": ["B"]}]}`); err == nil {
		t.Error("a dependency on no step was accepted")
	}
	if _, err := StepGraph(`{"Steps": [{"Name": "A"}, {"Name": "A"}]}`); err == nil {
		t.Error("two steps of one name were accepted")
	}
}
