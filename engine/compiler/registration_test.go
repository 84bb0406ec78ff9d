package compiler_test

import (
	"path/filepath"
	"testing"
)

// A registration carries the model's evaluation report as ModelMetrics (the nearest ancestor's
// report: XGBoostModelEval's metrics.json) and the framework of its image, as the SDK's
// RegisterModel writes them; without an evaluation upstream there are no ModelMetrics.
func TestRegistrationMetricsAndFramework(t *testing.T) {
	res := compileExample(t, filepath.Join(examplesDir, "xgboost-end-to-end"))
	var reg map[string]any
	for _, s := range defSteps(t, res) {
		if s["Type"] == "RegisterModel" {
			reg = s
		}
	}
	if reg == nil {
		t.Fatal("no RegisterModel step")
	}
	eq(t, "ModelMetrics", at(t, reg, "Arguments", "ModelMetrics"), map[string]any{"ModelQuality": map[string]any{"Statistics": map[string]any{
		"ContentType": "application/json",
		"S3Uri": map[string]any{"Std:Join": map[string]any{"On": "/", "Values": []any{
			map[string]any{"Get": "Steps.XGBoostModelEval-Calibration.ProcessingOutputConfig.Outputs['metrics_output'].S3Output.S3Uri"}, "metrics.json"}}}}}})
	eq(t, "Framework", at(t, reg, "Arguments", "InferenceSpecification", "Containers", 0, "Framework"), "XGBOOST")
	eq(t, "FrameworkVersion", at(t, reg, "Arguments", "InferenceSpecification", "Containers", 0, "FrameworkVersion"), "1.7-1")

	nodes := []string{"DummyDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining", "Package", "Payload", "Registration"}
	edges := [][2]string{{"DummyDataLoading_training", "TabularPreprocessing_training"}, {"TabularPreprocessing_training", "XGBoostTraining"},
		{"XGBoostTraining", "Package"}, {"XGBoostTraining", "Payload"}, {"Package", "Registration"}, {"Payload", "Registration"}}
	_, steps := mustCompileCase(t, nodes, edges, nil)
	if m, has := at(t, steps["Registration-NA"], "Arguments").(map[string]any)["ModelMetrics"]; has {
		t.Errorf("ModelMetrics %v without an evaluation step", m)
	}
}
