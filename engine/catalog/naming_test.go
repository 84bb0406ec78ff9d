package catalog

import "testing"

func TestSageMakerName(t *testing.T) {
	tests := []struct {
		step    StepType
		jobType string
		want    SageMakerStepName
	}{
		{"TabularPreprocessing", "training", "TabularPreprocessing-Training"},
		{"TabularPreprocessing", "", "TabularPreprocessing"},
		{"CradleDataLoading", "training", "CradleDataLoading-Training"},
		{"XGBoostModelEval", "calibration", "XGBoostModelEval-Calibration"},
		{"XGBoostTraining", "pretrain", "XGBoostTraining-Pretrain"},
		{"BatchTransform", "CALIBRATION", "BatchTransform-Calibration"}, // capitalize lowers the rest
		{"ModelCalibration", "calibration", "ModelCalibration-Calibration"},
		{"XGBoostTraining", "  ", "XGBoostTraining"},
	}
	for _, tc := range tests {
		if got := SageMakerName(tc.step, tc.jobType); got != tc.want {
			t.Errorf("SageMakerName(%s, %q) = %s, want %s", tc.step, tc.jobType, got, tc.want)
		}
	}
}

func TestConfigKeyFor(t *testing.T) {
	if got := ConfigKeyFor("TabularPreprocessing", "training"); got != "TabularPreprocessing_training" {
		t.Errorf("got %s", got)
	}
	if got := ConfigKeyFor("XGBoostTraining", ""); got != "XGBoostTraining" {
		t.Errorf("got %s", got)
	}
}

func TestCanonicalToSnake(t *testing.T) {
	tests := map[StepType]string{
		"XGBoostTraining":         "xgboost_training",
		"PyTorchModelEval":        "pytorch_model_eval",
		"LightGBMMTTraining":      "lightgbmmt_training",
		"LightGBMModelEval":       "lightgbm_model_eval",
		"TSAModelEval":            "tsa_model_eval",
		"XgboostMtTraining":       "xgboost_mt_training",
		"TabularPreprocessing":    "tabular_preprocessing",
		"BatchTransform":          "batch_transform",
		"Package":                 "package",
		"ModelMetricsComputation": "model_metrics_computation",
	}
	for in, want := range tests {
		if got := CanonicalToSnake(in); got != want {
			t.Errorf("CanonicalToSnake(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestSnakeToCanonical(t *testing.T) {
	tests := map[string]StepType{
		"xgboost_training":      "XGBoostTraining",
		"pytorch_model_eval":    "PyTorchModelEval",
		"lightgbmmt_training":   "LightGBMMTTraining",
		"xgboost_mt_training":   "XgboostMtTraining",
		"tabular_preprocessing": "TabularPreprocessing",
		"batch-transform":       "BatchTransform",
	}
	for in, want := range tests {
		if got := SnakeToCanonical(in); got != want {
			t.Errorf("SnakeToCanonical(%s) = %s, want %s", in, got, want)
		}
	}
	// Round trip over the catalog (names without unprotected acronyms).
	c := mustDefault(t)
	for _, n := range c.Names() {
		if got := SnakeToCanonical(CanonicalToSnake(n)); got != n {
			t.Errorf("round trip %s -> %s -> %s", n, CanonicalToSnake(n), got)
		}
	}
}

func TestCanonicalKey(t *testing.T) {
	for _, in := range []string{"XGBoostTraining", "xgboost_training", "XGBoost-Training", "xgboost training"} {
		if got := CanonicalKey(in); got != "xgboosttraining" {
			t.Errorf("CanonicalKey(%q) = %q", in, got)
		}
	}
}

func TestResolveNode(t *testing.T) {
	c := mustDefault(t)
	tests := []struct {
		node    NodeName
		step    StepType
		jobType string
		ok      bool
	}{
		{"TabularPreprocessing_training", "TabularPreprocessing", "training", true},
		{"TabularPreprocessing_calibration", "TabularPreprocessing", "calibration", true},
		{"CradleDataLoading_munged", "CradleDataLoading", "munged", true},
		{"XGBoostModel", "XGBoostModel", "", true},
		{"XGBoostModelEval_calibration", "XGBoostModelEval", "calibration", true},
		{"xgboost_model_eval_calibration", "XGBoostModelEval", "calibration", true},
		{"PyTorchModelInference_embedding", "PyTorchModelInference", "embedding", true},
		{"StratifiedSampling_sampling_extra", "StratifiedSampling", "sampling_extra", true},
		{"TabularPreprocessing-Training", "TabularPreprocessing", "Training", true},
		{"MIMSPackaging", "Package", "", true},
		{"tabularpreprocessing_training", "TabularPreprocessing", "training", true},
		{"Unknown_training", "", "", false},
		{"", "", "", false},
	}
	for _, tc := range tests {
		step, jt, ok := c.ResolveNode(tc.node)
		if step != tc.step || jt != tc.jobType || ok != tc.ok {
			t.Errorf("ResolveNode(%q) = (%s, %q, %v), want (%s, %q, %v)", tc.node, step, jt, ok, tc.step, tc.jobType, tc.ok)
		}
	}
}

func TestResolveFileName(t *testing.T) {
	c := mustDefault(t)
	tests := []struct {
		in   string
		want StepType
		ok   bool
	}{
		{"model_evaluation_xgb", "XGBoostModelEval", true},
		{"xgboost_training", "XGBoostTraining", true},
		{"xgb_training", "XGBoostTraining", true},
		{"dummy_training", "DummyTraining", true},
		{"tabular_preprocessing_training", "TabularPreprocessing", true},
		{"tabular_preprocess", "TabularPreprocessing", true},
		{"mims_package", "Package", true},
		{"pytorch_model_inference.step.yaml", "PyTorchModelInference", true},
		{"batch_transform_calibration", "BatchTransform", true},
		{"processing", "", false},
		{"totally_unrelated_words", "", false},
		{"", "", false},
	}
	for _, tc := range tests {
		got, ok := c.ResolveFileName(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ResolveFileName(%q) = (%s, %v), want (%s, %v)", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
