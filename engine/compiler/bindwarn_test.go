package compiler

import (
	"strings"
	"testing"
)

// TestWeakBindingWarnings: a binding below deps.HighScore is a warning
// naming it and its score; trusted bindings and config-sourced inputs are
// not.
func TestWeakBindingWarnings(t *testing.T) {
	r := &Report{Nodes: []NodeReport{
		{Node: "Package", Inputs: []*Binding{
			{Input: "model_input", Source: SourceDependency, Provider: "XGBoostTraining", Output: "model_output", Score: 1},
			{Input: "calibration_model", Source: SourceDependency, Provider: "XGBoostTraining", Output: "evaluation_output", Score: 0.557},
			nil,
		}},
		{Node: "DummyDataLoading_training", Inputs: []*Binding{{Input: "INPUT_DATA", Source: SourceConfig, Reference: "s3://b/k/"}}},
	}}
	w := weakBindingWarnings(r)
	if len(w) != 1 || !strings.Contains(w[0], "Package.calibration_model <- XGBoostTraining.evaluation_output (score 0.557)") || strings.Contains(w[0], "model_input") {
		t.Fatalf("warnings %q", w)
	}
	r.Nodes[0].Inputs[1].Score = 0.81
	if w := weakBindingWarnings(r); len(w) != 0 {
		t.Errorf("a trusted binding warns: %q", w)
	}
}
