package catalog

import "testing"

func TestSearchRanking(t *testing.T) {
	c := mustDefault(t)
	tests := []struct {
		query  string
		first  StepType
		reason string // "" = any
	}{
		{"xgb train", "XGBoostTraining", ReasonToken},
		{"XGBoostTraining", "XGBoostTraining", ReasonExact},
		{"xgboost_training", "XGBoostTraining", ReasonExact},
		{"xgbost traning", "XGBoostTraining", ""}, // two typos
		{"preprocess", "TabularPreprocessing", ""},
		{"tabular", "TabularPreprocessing", ""},
		{"lgbm eval", "LightGBMModelEval", ReasonToken},
		{"pytorch model", "PyTorchModel", ReasonExact},
		{"torch train", "PyTorchTraining", ""},
		{"batch", "BatchTransform", ""},
		{"xgboost eval", "XGBoostModelEval", ReasonToken},
		{"model eval xgb", "XGBoostModelEval", ReasonToken},
		{"registr", "Registration", ""},
		{"MIMSPackaging", "Package", ReasonAlias},
		{"risk table", "RiskTableMapping", ""},
		{"impute", "MissingValueImputation", ""},
		{"percentile", "PercentileModelCalibration", ""},
		{"redshift", "RedshiftDataLoading", ""},
		{"athena sql", "AthenaDataLoading", ""},
		{"hyperparameter tuning", "XGBoostTuning", ""},
		{"xgb hpo", "XGBoostTuning", ""},
		{"payload", "Payload", ""},
		{"synthetic data", "DummyDataGeneration", ""},
		{"currency", "CurrencyConversion", ""},
		{"xgboost model", "XGBoostModel", ReasonExact},
	}
	for _, tc := range tests {
		m := c.Search(tc.query)
		if len(m) == 0 {
			t.Errorf("Search(%q): no matches", tc.query)
			continue
		}
		if m[0].Type != tc.first {
			top := []StepType{}
			for i := 0; i < len(m) && i < 4; i++ {
				top = append(top, m[i].Type)
			}
			t.Errorf("Search(%q) first = %s (%v), want %s", tc.query, m[0].Type, top, tc.first)
		}
		if tc.reason != "" && m[0].Reason != tc.reason {
			t.Errorf("Search(%q) reason = %s, want %s", tc.query, m[0].Reason, tc.reason)
		}
		for i := 1; i < len(m); i++ {
			if m[i].Score > m[i-1].Score {
				t.Errorf("Search(%q) not sorted at %d", tc.query, i)
			}
		}
	}
	if m := c.Search("XGBoostTraining"); m[0].Score != 1 {
		t.Errorf("exact match score %v", m[0].Score)
	}
	// xgboost matches every XGBoost step.
	got := map[StepType]bool{}
	for _, m := range c.Search("xgboost") {
		got[m.Type] = true
	}
	for _, n := range []StepType{"XGBoostTraining", "XGBoostModel", "XGBoostModelEval", "XGBoostModelInference", "XGBoostTuning"} {
		if !got[n] {
			t.Errorf("Search(xgboost) misses %s", n)
		}
	}
	for _, q := range []string{"", "   ", "zzzzqqq", "!!"} {
		if m := c.Search(q); len(m) != 0 {
			t.Errorf("Search(%q) = %v, want none", q, m)
		}
	}
}

func TestSearchJobType(t *testing.T) {
	c := mustDefault(t)
	for _, m := range c.SearchJobType("model", "calibration") {
		if !contains(m.Step.JobTypes, "calibration") {
			t.Errorf("%s does not declare calibration", m.Type)
		}
	}
	if len(c.SearchJobType("preprocessing", "calibration")) == 0 {
		t.Error("TabularPreprocessing declares calibration")
	}
	if len(c.SearchJobType("registration", "calibration")) != 0 {
		t.Error("Registration declares no job types")
	}
}

func TestClosest(t *testing.T) {
	c := mustDefault(t)
	tests := map[string]StepType{
		"XGBoostTrainig":      "XGBoostTraining",
		"TabularPreprocesing": "TabularPreprocessing",
		"BatchTransfrom":      "BatchTransform",
		"pytorch_trainer":     "PyTorchTraining",
		"Registrations":       "Registration",
	}
	for in, want := range tests {
		got := c.Closest(in, 3)
		if len(got) == 0 || got[0] != want {
			t.Errorf("Closest(%q) = %v, want %s first", in, got, want)
		}
		if len(got) > 3 {
			t.Errorf("Closest(%q) returned %d > 3", in, len(got))
		}
	}
	if got := c.Closest("qqqqqqqqqqqqqq", 3); len(got) != 0 {
		t.Errorf("Closest(nonsense) = %v", got)
	}
	if got := c.Closest("XGBoostTraining", 0); got != nil {
		t.Errorf("n=0 gives %v", got)
	}
}
