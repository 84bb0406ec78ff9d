package config

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cursus-go/cursus/engine/catalog"
)

func TestBuildFillsJobTypesAndKeys(t *testing.T) {
	s := testSchema(t)
	in := e2eInput()
	in.Now = func() time.Time { return time.Date(2026, 2, 3, 4, 5, 6, 7000, time.Local) }
	set, err := s.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []catalog.ConfigKey{"CradleDataLoading_calibration", "CradleDataLoading_training", "ModelCalibration_calibration",
		"Package", "Payload", "Registration", "TabularPreprocessing_calibration", "TabularPreprocessing_training",
		"XGBoostModelEval_calibration", "XGBoostTraining"}
	if !reflect.DeepEqual(set.Keys(), want) {
		t.Errorf("keys %v", set.Keys())
	}
	if set.CreatedAt != "2026-02-03T04:05:06.000007" {
		t.Errorf("created_at %q", set.CreatedAt)
	}
	res, err := set.Resolve(in.Nodes, ResolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if string(r.Config.Key) != string(r.Node) || r.Rule != RuleExactKey {
			t.Errorf("%s -> %s (%s)", r.Node, r.Config.Key, r.Rule)
		}
	}
	if len(set.Warnings) != 0 {
		t.Errorf("warnings %v", set.Warnings)
	}
}

func TestBuildReportsAllProblemsByPath(t *testing.T) {
	s := testSchema(t)
	in := e2eInput()
	delete(in.Base, "author")             // missing everywhere -> base.author once
	in.Base["region"] = "APAC"            // bad base value -> base.region once
	in.Base["processing_volume_size"] = 5 // bad base value used by processing steps only -> base.processing_volume_size
	in.Base["not_a_field"] = 1            // no class declares it -> refused
	in.Base["enable_cachng"] = true       // a typo -> refused with the field it means
	in.Steps["Payload"]["custom_note"] = "x"
	in.Steps["Payload"]["label_field"] = "y" // a field of another node's class
	in.Steps["XGBoostTraining"]["training_instance_type"] = "ml.t2.micro"
	in.Steps["Payload"]["expected_tps"] = "fast"
	delete(in.Steps["TabularPreprocessing_training"], "label_name") // system field, fine
	delete(in.Steps["ModelCalibration_calibration"], "label_field")
	in.Steps["Typo_node"] = map[string]any{"x": 1}
	_, err := s.Build(in)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want *ValidationError, got %v", err)
	}
	got := ve.Paths()
	want := []string{"Typo_node", "base.author", "base.region", "base.processing_volume_size",
		"XGBoostTraining.training_instance_type", "ModelCalibration_calibration.label_field", "Payload.expected_tps",
		"base.not_a_field", "base.enable_cachng", "Payload.custom_note", "Payload.label_field"}
	for _, p := range want {
		if !slices.Contains(got, p) {
			t.Errorf("no problem at %s (got %v)", p, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d problems %v, want %d", len(got), got, len(want))
	}
	for _, e := range ve.Errors {
		if e.Path == "XGBoostTraining.training_instance_type" && (e.Kind != KindAllowed || len(e.Allowed) != 5) {
			t.Errorf("instance type problem %+v", e)
		}
		if e.Path == "base.region" && !reflect.DeepEqual(e.Allowed, []any{"NA", "EU", "FE"}) {
			t.Errorf("region problem %+v", e)
		}
		switch e.Path {
		case "base.not_a_field", "Payload.custom_note":
			if e.Kind != KindUnknownField || strings.Contains(e.Message, "did you mean") {
				t.Errorf("unknown field %+v", e)
			}
		case "base.enable_cachng":
			if e.Kind != KindUnknownField || !strings.Contains(e.Message, "did you mean enable_caching?") {
				t.Errorf("typo %+v", e)
			}
		case "Payload.label_field":
			if e.Kind != KindUnknownField || !strings.Contains(e.Message, "it is a field of ModelCalibration_calibration") {
				t.Errorf("field of another node %+v", e)
			}
		}
	}
}

func TestBuildNodeLevelProblems(t *testing.T) {
	s := testSchema(t)
	// A node that names no step type, and two nodes that get the same key.
	_, err := s.Build(BuildInput{
		Nodes: nodes("packaging", "TabularPreprocessing_training", "TabularPreprocessing_x"),
		Base:  baseValues(),
		Steps: map[catalog.NodeName]map[string]any{"TabularPreprocessing_x": {"job_type": "training"}},
	})
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("got %v", err)
	}
	kinds := map[string]string{}
	for _, e := range ve.Errors {
		kinds[e.Path] = e.Kind
	}
	if kinds["packaging"] != KindUnknownStep || kinds["TabularPreprocessing_x"] != KindDuplicateKey {
		t.Errorf("problems %v", ve.Errors)
	}

	// A node whose config key differs from its name but still resolves to it is fine...
	set, err := s.Build(BuildInput{Nodes: nodes("XGBoostTraining_training"), Base: baseValues(),
		Steps: map[catalog.NodeName]map[string]any{"XGBoostTraining_training": {"training_entry_point": "t.py"}}})
	if err != nil {
		t.Fatalf("XGBoostTraining_training: %v", err)
	}
	if set.Keys()[0] != "XGBoostTraining" {
		t.Errorf("key %v (training is not an allowed job_type of XGBoostTraining, so it is not taken from the name)", set.Keys())
	}
	// ...but one that would not resolve to its own config is refused.
	_, err = s.Build(BuildInput{Nodes: nodes("CradleDataLoading_training", "CradleDataLoading_munged"), Base: baseValues(),
		Steps: map[catalog.NodeName]map[string]any{
			"CradleDataLoading_training": cradleValues,
			"CradleDataLoading_munged":   merged(cradleValues, map[string]any{"job_type": "calibration"}),
		}})
	if !errors.As(err, &ve) || len(ve.Errors) != 1 || ve.Errors[0].Kind != KindResolution || ve.Errors[0].Path != "CradleDataLoading_munged" {
		t.Errorf("got %v", err)
	}
}

func TestRequirements(t *testing.T) {
	s := testSchema(t)
	r := s.Requirements(nodes("CradleDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining", "Package", "mystery"))
	if len(r.Base) != 19 || len(r.BaseProcessing) != 10 {
		t.Errorf("base %d, processing %d requirements (want 20 and 10)", len(r.Base), len(r.BaseProcessing))
	}
	if !r.NeedsProcessing {
		t.Error("needs_processing_config false")
	}
	if r.ConfigClassMap["XGBoostTraining"] != "XGBoostTrainingConfig" || len(r.ConfigClassMap) != 4 {
		t.Errorf("class map %v", r.ConfigClassMap)
	}
	if !reflect.DeepEqual(r.Pending, nodes("mystery")) {
		t.Errorf("pending %v", r.Pending)
	}
	tab := r.Steps["TabularPreprocessing_training"]
	if tab[0].Name != "job_type" || !tab[0].Required || tab[0].Tier != "essential" {
		t.Errorf("tabular requirements start %+v", tab[0])
	}
	var names []string
	for _, q := range tab {
		names = append(names, q.Name)
	}
	if slices.Contains(names, "author") || slices.Contains(names, "processing_instance_count") || !slices.Contains(names, "processing_entry_point") {
		t.Errorf("tabular own requirements %v", names)
	}
	xgb := r.Steps["XGBoostTraining"]
	if xgb[0].Name != "training_entry_point" || !xgb[0].Required {
		t.Errorf("xgboost requirements start %+v", xgb[0])
	}
	for _, q := range xgb {
		if q.Name == "training_instance_type" && len(q.AllowedValues) != 5 {
			t.Errorf("allowed values %v", q.AllowedValues)
		}
		if q.Name == "framework_version" && q.Default != "1.7-1" {
			t.Errorf("overridden default %v", q.Default)
		}
	}
	if r.JobTypes["TabularPreprocessing_training"] != "training" {
		t.Errorf("job types %v", r.JobTypes)
	}
}

func TestTemplateIsCompleteAndFillable(t *testing.T) {
	s := testSchema(t)
	in := e2eInput()
	tpl := s.Template(in.Nodes)
	if len(tpl.Pending) != 0 || len(tpl.Warnings) != 0 {
		t.Errorf("pending %v warnings %v", tpl.Pending, tpl.Warnings)
	}
	for _, p := range []string{"base.author", "base.region", "TabularPreprocessing_training.label_name", "XGBoostTraining.training_entry_point",
		"Payload.expected_tps", "CradleDataLoading_training.data_sources_spec"} {
		if p == "TabularPreprocessing_training.label_name" { // a system field: not essential
			if slices.Contains(tpl.EssentialFields, p) {
				t.Errorf("%s listed as essential", p)
			}
			continue
		}
		if !slices.Contains(tpl.EssentialFields, p) {
			t.Errorf("essential_fields lacks %s: %v", p, tpl.EssentialFields)
		}
	}
	if slices.Contains(tpl.EssentialFields, "TabularPreprocessing_training.job_type") {
		t.Error("job_type taken from the node name still listed as blank")
	}
	if tpl.Base["author"] != nil || tpl.Base["model_class"] != "xgboost" || tpl.Base["processing_instance_count"] != int64(1) {
		t.Errorf("base skeleton %v", tpl.Base)
	}
	if tpl.Steps["TabularPreprocessing_training"]["job_type"] != "training" || tpl.Steps["TabularPreprocessing_training"]["train_ratio"] != 0.7 {
		t.Errorf("step skeleton %v", tpl.Steps["TabularPreprocessing_training"])
	}
	sh := tpl.File.Configuration.Shared
	if v, ok := sh["author"]; !ok || v != nil {
		t.Errorf("skeleton shared author %v %v", v, ok)
	}
	if tpl.ConfigKeys["ModelCalibration_calibration"] != "ModelCalibration_calibration" || len(tpl.File.Configuration.Specific) != 10 {
		t.Errorf("keys %v", tpl.ConfigKeys)
	}
	// Filling exactly the blanks gives a config that builds.
	fill := map[string]any{}
	for _, p := range tpl.EssentialFields {
		fill[p] = nil
	}
	base := map[string]any{}
	for k, v := range tpl.Base {
		base[k] = v
	}
	for k, v := range baseValues() {
		base[k] = v
	}
	steps := map[catalog.NodeName]map[string]any{}
	for n, vals := range tpl.Steps {
		m := map[string]any{}
		for k, v := range vals {
			m[k] = v
		}
		for k, v := range in.Steps[n] {
			m[k] = v
		}
		steps[n] = m
	}
	if _, err := s.Build(BuildInput{Nodes: in.Nodes, Base: base, Steps: steps}); err != nil {
		t.Errorf("filled template does not build: %v", err)
	}
	// The skeleton file, blanks left, loads with exactly the blanks reported.
	b, err := encodeFile(tpl.File)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Unmarshal(s, b)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("skeleton: %v", err)
	}
	for _, e := range ve.Errors {
		if e.Kind != KindMissing {
			t.Errorf("skeleton problem that is not a blank: %v", e)
		}
	}
}
