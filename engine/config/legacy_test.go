package config

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
)

func legacyBase() map[string]any {
	return map[string]any{
		"author": "alice", "bucket": "example-bucket", "role": "arn:aws:iam::123456789012:role/SageMakerRole",
		"region": "NA", "service_name": "Demo", "pipeline_version": "1.0.0", "project_root_folder": "demo",
	}
}

// legacyFile is a config.json whose XGBoostTraining entry keeps its
// hyperparameters in the free-form object, as files written before the
// hyperparameters were typed do.
func legacyFile(t *testing.T, training map[string]any, shared map[string]any) []byte {
	t.Helper()
	sh := legacyBase()
	for k, v := range shared {
		sh[k] = v
	}
	entry := map[string]any{"__model_type__": "XGBoostTrainingConfig"}
	for k, v := range training {
		entry[k] = v
	}
	doc := map[string]any{
		"configuration": map[string]any{"shared": sh, "specific": map[string]any{
			"XGBoostTraining": entry,
			"TabularPreprocessing_training": map[string]any{"__model_type__": "TabularPreprocessingConfig", "job_type": "training",
				"label_name": "is_abuse"},
		}},
		"metadata": map[string]any{"config_types": map[string]any{"XGBoostTraining": "XGBoostTrainingConfig",
			"TabularPreprocessing_training": "TabularPreprocessingConfig"}},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLegacyHyperparametersLift: the keys of a legacy hyperparameters
// object become the typed fields, with a deprecation warning; saving the
// set writes them as top-level fields and no hyperparameters object.
func TestLegacyHyperparametersLift(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	hp := map[string]any{"__model_type__": "XGBoostModelHyperparameters", "label_name": "is_abuse",
		"tab_field_list": map[string]any{"__type_info__": "list", "value": []any{"amount"}}, "cat_field_list": []any{"marketplace_id"},
		"multiclass_categories": []any{0, 1}, "num_round": 300, "eta": 0.1}
	set, err := Unmarshal(s, legacyFile(t, map[string]any{"hyperparameters": hp}, map[string]any{"label_name": "shared-label"}))
	if err != nil {
		t.Fatalf("a legacy config does not load: %v", err)
	}
	cfg, _ := set.Config("XGBoostTraining")
	for field, want := range map[string]any{"label_name": "is_abuse", "tab_field_list": []any{"amount"}, "cat_field_list": []any{"marketplace_id"},
		"num_round": int64(300), "eta": 0.1, "objective": "binary:logistic", "max_depth": int64(6)} {
		if got := cfg.Values[field]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v, want %#v", field, got, want)
		}
	}
	if _, kept := cfg.Values[LegacyHyperparametersKey]; kept {
		t.Errorf("the lifted object is still a value: %v", cfg.Values[LegacyHyperparametersKey])
	}
	if u := cfg.UnknownKeys(); len(u) != 0 {
		t.Errorf("unknown keys %v", u)
	}
	if len(set.Warnings) != 1 || !strings.Contains(set.Warnings[0], "XGBoostTraining.hyperparameters: the free-form hyperparameters object is deprecated") ||
		!strings.Contains(set.Warnings[0], "objective (from multiclass_categories)") {
		t.Errorf("warnings %v", set.Warnings)
	}
	b, err := Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	f, err := ParseFile(b)
	if err != nil {
		t.Fatal(err)
	}
	saved := f.Configuration.Specific["XGBoostTraining"]
	if _, ok := saved[LegacyHyperparametersKey]; ok || f.Configuration.Shared["label_name"] != "is_abuse" || saved["objective"] != "binary:logistic" {
		t.Errorf("saved entry %v (shared %v)", saved, f.Configuration.Shared)
	}
	again, err := Unmarshal(s, b)
	if err != nil || len(again.Warnings) != 0 {
		t.Errorf("the saved file: %v, warnings %v", err, again.Warnings)
	}
}

// TestLegacyHyperparametersConflictsAndUnknownKeys: a legacy key that
// disagrees with the top-level field is a conflict naming both; a key
// naming no field is an unknown key hyperparameters.<key>, kept.
func TestLegacyHyperparametersConflictsAndUnknownKeys(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	hp := map[string]any{"label_name": "y", "lable_name": "y", "tab_field_list": []any{"a"}, "cat_field_list": []any{}, "objective": "binary:logistic"}
	set, err := Unmarshal(s, legacyFile(t, map[string]any{"hyperparameters": hp, "label_name": "z"}, nil))
	var ve *ValidationError
	if !asValidation(err, &ve) || len(ve.Errors) != 1 {
		t.Fatalf("want one conflict, got %v", err)
	}
	e := ve.Errors[0]
	if e.Kind != KindConflict || e.Path != "XGBoostTraining.hyperparameters.label_name" || !strings.Contains(e.Message, `hyperparameters.label_name = "y"`) ||
		!strings.Contains(e.Message, `top-level label_name = "z"`) {
		t.Errorf("conflict %+v", e)
	}
	cfg, _ := set.Config("XGBoostTraining")
	if got := cfg.UnknownKeys(); !slices.Equal(got, []string{"hyperparameters.lable_name"}) {
		t.Errorf("unknown keys %v", got)
	}
	if !strings.Contains(strings.Join(set.Warnings, "\n"), "hyperparameters.lable_name name(s) no field of XGBoostTrainingConfig") {
		t.Errorf("warnings %v", set.Warnings)
	}
	// The same value twice is no conflict.
	hp["label_name"] = "z"
	if _, err := Unmarshal(s, legacyFile(t, map[string]any{"hyperparameters": hp, "label_name": "z"}, nil)); err != nil {
		t.Errorf("equal values: %v", err)
	}
	// A legacy object that is not an object is a type problem.
	_, err = Unmarshal(s, legacyFile(t, map[string]any{"hyperparameters": "eta=0.1"}, nil))
	if !asValidation(err, &ve) || !slices.Contains(ve.Paths(), "XGBoostTraining.hyperparameters") {
		t.Errorf("a string legacy object: %v", err)
	}
}

// TestLegacyHyperparametersInBuild: merge_save's Build lifts a node's
// legacy object too, and the node's own object wins over a base value.
func TestLegacyHyperparametersInBuild(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	base := legacyBase()
	base["label_name"] = "base-label"
	set, err := s.Build(BuildInput{
		Nodes: []catalog.NodeName{"TabularPreprocessing_training", "XGBoostTraining"},
		Base:  base,
		Steps: map[catalog.NodeName]map[string]any{"XGBoostTraining": {"hyperparameters": map[string]any{
			"label_name": "own", "tab_field_list": []any{"a"}, "cat_field_list": []any{}, "objective": "multi:softprob", "num_class": 3}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := set.Config("XGBoostTraining")
	if cfg.Values["label_name"] != "own" || cfg.Values["num_class"] != int64(3) {
		t.Errorf("values %v / %v", cfg.Values["label_name"], cfg.Values["num_class"])
	}
	if tp, _ := set.Config("TabularPreprocessing_training"); tp.Values["label_name"] != "base-label" {
		t.Errorf("preprocessing label %v", tp.Values["label_name"])
	}
	w := strings.Join(set.Warnings, "\n")
	if !strings.Contains(w, "XGBoostTraining.hyperparameters: the free-form hyperparameters object is deprecated") || strings.Contains(w, "kept as an extra field") {
		t.Errorf("warnings %v", set.Warnings)
	}
}

// TestFreeFormHyperparametersStayAField: a step that still declares the
// free-form object (no typed hyperparameters yet) keeps it as its field.
func TestFreeFormHyperparametersStayAField(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range s.ClassNames() {
		c, _ := s.Class(name)
		if c.HasField(LegacyHyperparametersKey) && c.LiftsHyperparameters() {
			t.Errorf("%s both declares and lifts hyperparameters", name)
		}
	}
	xgb, _ := s.ClassForStep("XGBoostTraining")
	if !xgb.LiftsHyperparameters() || len(xgb.HyperparameterFields()) < 20 {
		t.Errorf("XGBoostTraining lifts %v, %d hyperparameter fields", xgb.LiftsHyperparameters(), len(xgb.HyperparameterFields()))
	}
}

func asValidation(err error, out **ValidationError) bool {
	ve, ok := err.(*ValidationError)
	if ok {
		*out = ve
	}
	return ok
}
