package config

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
)

var cradleValues = map[string]any{"data_sources_spec": map[string]any{}, "transform_spec": map[string]any{},
	"output_spec": map[string]any{}, "cradle_job_spec": map[string]any{}}

// resolutionSet holds the configs of the resolver examples:
// two loaders, two preprocessors, training, calibration and packaging, but
// no model-evaluation config.
func resolutionSet(t *testing.T) *Set {
	t.Helper()
	s := testSchema(t)
	set, err := NewSet(
		mustConfig(t, s, "CradleDataLoading", merged(cradleValues, map[string]any{"job_type": "training"})),
		mustConfig(t, s, "CradleDataLoading", merged(cradleValues, map[string]any{"job_type": "calibration"})),
		mustConfig(t, s, "TabularPreprocessing", map[string]any{"job_type": "training"}),
		mustConfig(t, s, "TabularPreprocessing", map[string]any{"job_type": "calibration"}),
		mustConfig(t, s, "XGBoostTraining", map[string]any{"training_entry_point": "train.py"}),
		mustConfig(t, s, "ModelCalibration", map[string]any{"label_field": "y"}),
		mustConfig(t, s, "Package", nil),
	)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func TestResolveNodeTable(t *testing.T) {
	set := resolutionSet(t)
	for _, tc := range []struct {
		name       string
		node       string
		opts       ResolveOptions
		key        string
		method     string
		rule       string
		confidence float64
		low        bool
		err        any // *NoConfigError or *AmbiguousNodeError
		candidates []string
	}{
		{name: "exact key", node: "TabularPreprocessing_training", key: "TabularPreprocessing_training", method: MethodDirect, rule: RuleExactKey, confidence: 1},
		{name: "case-insensitive", node: "tabularpreprocessing_training", key: "TabularPreprocessing_training", method: MethodDirect, rule: RuleCaseInsensitive, confidence: 1},
		{name: "metadata with job type", node: "prep_calibration", opts: ResolveOptions{ConfigTypes: map[string]string{"prep_calibration": "TabularPreprocessingConfig"}},
			key: "TabularPreprocessing_calibration", method: MethodDirect, rule: RuleMetadata, confidence: 1},
		{name: "metadata without job type", node: "Prep", opts: ResolveOptions{ConfigTypes: map[string]string{"Prep": "TabularPreprocessingConfig"}},
			key: "TabularPreprocessing_calibration", method: MethodDirect, rule: RuleMetadata, confidence: 1},
		{name: "unique base step name", node: "ModelCalibration", key: "ModelCalibration_calibration", method: MethodDirect, rule: RuleBaseStepName, confidence: 1},
		{name: "job type keywords", node: "preprocess_calibration", key: "TabularPreprocessing_calibration", method: MethodJobType, rule: RuleScored,
			confidence: 0.7 + 0.3*0.5714285714285714},
		{name: "name pattern, low confidence", node: "train_xgb", key: "XGBoostTraining", method: MethodPattern, rule: RuleScored, confidence: 0.6, low: true},
		{name: "pattern with job-type boost (a known misresolution, kept so scores stay comparable)", node: "XGBoostModelEval_calibration",
			key: "ModelCalibration_calibration", method: MethodPattern, rule: RuleScored, confidence: 0.8},
		{name: "semantic tie is ambiguous", node: "CradleDataLoading_munged", err: new(*AmbiguousNodeError),
			candidates: []string{"CradleDataLoading_calibration", "CradleDataLoading_training"}},
		{name: "bare step name with two configs is ambiguous", node: "CradleDataLoading", err: new(*AmbiguousNodeError),
			candidates: []string{"CradleDataLoading_calibration", "CradleDataLoading_training"}},
		{name: "semantic tie, first wins with FirstOnTie", node: "CradleDataLoading_munged", opts: ResolveOptions{FirstOnTie: true},
			key: "CradleDataLoading_calibration", method: MethodSemantic, rule: RuleScored, confidence: 0.7},
		{name: "legacy packaging pattern matches nothing", node: "packaging", err: new(*NoConfigError)},
		{name: "unrelated name", node: "totally_unrelated", err: new(*NoConfigError)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := set.ResolveNode(catalog.NodeName(tc.node), tc.opts)
			if tc.err != nil {
				if !errors.As(err, tc.err) {
					t.Fatalf("want %T, got %v", tc.err, err)
				}
				if amb, ok := err.(*AmbiguousNodeError); ok {
					var keys []string
					for _, c := range amb.Candidates {
						keys = append(keys, string(c.Key))
					}
					if !reflect.DeepEqual(keys, tc.candidates) {
						t.Errorf("candidates %v, want %v", keys, tc.candidates)
					}
				}
				if nc, ok := err.(*NoConfigError); ok && len(nc.Available) != set.Len() {
					t.Errorf("available keys %v", nc.Available)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(r.Config.Key) != tc.key || r.Method != tc.method || r.Rule != tc.rule ||
				math.Abs(r.Confidence-tc.confidence) > 1e-12 || r.LowConfidence != tc.low {
				t.Errorf("got %s %s/%s %.4f low=%v; want %s %s/%s %.4f low=%v", r.Config.Key, r.Method, r.Rule, r.Confidence, r.LowConfidence,
					tc.key, tc.method, tc.rule, tc.confidence, tc.low)
			}
		})
	}
}

func TestSemanticMatchWithOneLoader(t *testing.T) {
	s := testSchema(t)
	set, _ := NewSet(mustConfig(t, s, "CradleDataLoading", merged(cradleValues, map[string]any{"job_type": "training"})))
	r, err := set.ResolveNode("CradleDataLoading_munged", ResolveOptions{})
	if err != nil || r.Config.Key != "CradleDataLoading_training" || r.Method != MethodSemantic || r.Confidence != 0.7 {
		t.Errorf("got %+v, %v", r, err)
	}
}

func TestResolveCollectsEveryFailure(t *testing.T) {
	set := resolutionSet(t)
	_, err := set.Resolve(nodes("packaging", "CradleDataLoading", "TabularPreprocessing_training", "nothing_here"), ResolveOptions{})
	var re *ResolutionError
	if !errors.As(err, &re) {
		t.Fatalf("want *ResolutionError, got %v", err)
	}
	if re.Total != 4 || !reflect.DeepEqual(re.Nodes(), nodes("packaging", "CradleDataLoading", "nothing_here")) {
		t.Errorf("failures %v of %d", re.Nodes(), re.Total)
	}
	if re.Failures[1].Reason != "ambiguous" || len(re.Failures[1].Candidates) != 2 || re.Failures[0].Reason != "no_match" {
		t.Errorf("reasons %+v", re.Failures)
	}
	if len(re.Available) != set.Len() {
		t.Errorf("available %v", re.Available)
	}
}

func TestDuplicateStepNames(t *testing.T) {
	s := testSchema(t)
	a, err := s.NewConfig("TabularPreprocessing", "A_training", merged(baseValues(), map[string]any{"job_type": "training"}))
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.NewConfig("TabularPreprocessing", "B_training", merged(baseValues(), map[string]any{"job_type": "training"}))
	if err != nil {
		t.Fatal(err)
	}
	x := mustConfig(t, s, "XGBoostTraining", map[string]any{"training_entry_point": "t.py"})
	set, _ := NewSet(a, b, x)
	_, err = set.Resolve(nodes("A_training", "B_training", "XGBoostTraining"), ResolveOptions{})
	var de *DuplicateStepNameError
	if !errors.As(err, &de) {
		t.Fatalf("want *DuplicateStepNameError, got %v", err)
	}
	want := []StepNameCollision{{StepName: "TabularPreprocessing-Training", Nodes: nodes("A_training", "B_training"),
		Keys: []catalog.ConfigKey{"A_training", "B_training"}}}
	if !reflect.DeepEqual(de.Collisions, want) {
		t.Errorf("collisions %+v", de.Collisions)
	}
	if de.Error() != "duplicate step-name collision(s): nodes [A_training B_training] -> step name 'TabularPreprocessing-Training'" {
		t.Errorf("message %q", de.Error())
	}
	// Two nodes resolving to the same config collide too.
	_, err = set.Resolve(nodes("XGBoostTraining", "xgboosttraining"), ResolveOptions{})
	if !errors.As(err, &de) || de.Collisions[0].StepName != "XGBoostTraining" {
		t.Errorf("same config twice: %v", err)
	}
}
