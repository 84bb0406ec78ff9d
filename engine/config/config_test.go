package config

import (
	"errors"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cursus-go/cursus/engine/catalog"
)

func TestNewSchemaReportsEveryProblem(t *testing.T) {
	bad := step("Broken", false,
		catalog.ConfigField{Name: "a", Type: "complex", Tier: catalog.TierSystem},
		catalog.ConfigField{Name: "b", Type: catalog.FieldInt, Tier: "optional"},
		catalog.ConfigField{Name: "c", Type: catalog.FieldInt, Tier: catalog.TierSystem, Default: "ten"},
		catalog.ConfigField{Name: "d", Type: catalog.FieldString, Tier: catalog.TierSystem, Pattern: "("},
	)
	dup := step("Other", false)
	dup.ConfigClass = "BrokenConfig"
	_, err := NewSchema([]*catalog.Step{bad, dup}, testBase(), testProcessing())
	var se *SchemaError
	if !errors.As(err, &se) {
		t.Fatalf("want *SchemaError, got %v", err)
	}
	want := []string{`BrokenConfig.a: unknown type "complex"`, `BrokenConfig.b: unknown tier "optional"`,
		`BrokenConfig.c: default ten: expected an integer`, `BrokenConfig.d: bad pattern`, "config class BrokenConfig declared by both"}
	for _, w := range want {
		found := false
		for _, p := range se.Problems {
			if strings.Contains(p, w) {
				found = true
			}
		}
		if !found {
			t.Errorf("missing problem %q in %v", w, se.Problems)
		}
	}
}

func TestSchemaLookupsAndNodeNames(t *testing.T) {
	s := testSchema(t)
	if c, ok := s.LookupClass("xgboost_training"); !ok || c.Name != "XGBoostTrainingConfig" {
		t.Errorf("LookupClass(xgboost_training) = %v, %v", c, ok)
	}
	if c, ok := s.LookupClass("TabularPreprocessingConfig"); !ok || !c.Processing || c.StepType != "TabularPreprocessing" {
		t.Errorf("LookupClass(TabularPreprocessingConfig) = %+v", c)
	}
	if _, ok := s.LookupClass("NoSuchConfig"); ok {
		t.Error("LookupClass(NoSuchConfig) found something")
	}
	for _, tc := range []struct {
		node, step, suffix string
		ok                 bool
	}{
		{"TabularPreprocessing_training", "TabularPreprocessing", "training", true},
		{"CradleDataLoading_munged", "CradleDataLoading", "munged", true},
		{"XGBoostModel", "XGBoostModel", "", true},
		{"XGBoostModelEval_calibration", "XGBoostModelEval", "calibration", true},
		{"xgboost_training", "XGBoostTraining", "", true},
		{"packaging", "", "", false},
	} {
		st, suf, ok := s.ResolveNode(catalog.NodeName(tc.node))
		if string(st) != tc.step || suf != tc.suffix || ok != tc.ok {
			t.Errorf("ResolveNode(%s) = %s, %q, %v; want %s, %q, %v", tc.node, st, suf, ok, tc.step, tc.suffix, tc.ok)
		}
	}
	base, ok := s.Class(BaseClass)
	if !ok || !base.Abstract || base.HasField("processing_instance_count") {
		t.Errorf("BasePipelineConfig class wrong: %+v", base)
	}
	proc, ok := s.Class(ProcessingBaseClass)
	if !ok || !proc.HasField("processing_instance_count") || proc.StepType != ProcessingStepType {
		t.Errorf("ProcessingStepConfigBase class wrong: %+v", proc)
	}
}

func TestDefaultsAndDerivedValues(t *testing.T) {
	s := testSchema(t)
	c := mustConfig(t, s, "TabularPreprocessing", map[string]any{"job_type": "training", "label_name": "y"})
	if c.Key != "TabularPreprocessing_training" {
		t.Errorf("key %s", c.Key)
	}
	checks := map[string]any{
		"train_ratio": 0.7, "output_format": "CSV", "processing_instance_count": int64(1), "enable_caching": false,
		"max_runtime_seconds": int64(172800), "model_class": "xgboost", "image_uri": nil,
		"processing_entry_point": "tabular_preprocessing.py",
		// derived
		"aws_region": "us-east-1", "pipeline_name": "alice-Demo-xgboost-NA",
		"pipeline_description": "Demo xgboost Model NA",
		"pipeline_s3_loc":      "s3://example-bucket/MODS/alice-Demo-xgboost-NA_1.0.0",
		"effective_source_dir": "dockers", "effective_instance_type": "ml.m5.2xlarge",
		"script_path": "dockers/tabular_preprocessing.py",
	}
	for name, want := range checks {
		got, ok := c.Get(name)
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v (present %v), want %#v", name, got, ok, want)
		}
	}
	if c.StepName() != "TabularPreprocessing-Training" {
		t.Errorf("StepName %s", c.StepName())
	}

	// Region codes map to AWS regions; the large-instance flag switches the effective type.
	eu := mustConfig(t, s, "XGBoostModelEval", map[string]any{"region": "EU", "id_name": "id", "label_name": "y"})
	if eu.String("aws_region") != "eu-west-1" || eu.String("effective_instance_type") != "ml.m5.4xlarge" {
		t.Errorf("EU eval: aws_region %s, effective_instance_type %s", eu.String("aws_region"), eu.String("effective_instance_type"))
	}
	if eu.Key != "XGBoostModelEval_calibration" || eu.StepName() != "XGBoostModelEval-Calibration" {
		t.Errorf("eval key %s step %s", eu.Key, eu.StepName())
	}
	fe := mustConfig(t, s, "XGBoostTraining", map[string]any{"region": "FE", "training_entry_point": "train.py"})
	if fe.String("aws_region") != "us-west-2" || fe.Key != "XGBoostTraining" || fe.String("framework_version") != "1.7-1" {
		t.Errorf("FE training: %s %s %s", fe.String("aws_region"), fe.Key, fe.String("framework_version"))
	}
	if got := fe.String("hyperparameter_file"); got != "s3://example-bucket/MODS/alice-Demo-xgboost-FE_1.0.0/hyperparameters/FE_hyperparameters.json" {
		t.Errorf("hyperparameter_file %s", got)
	}
	// A dynamic default ({today}) fills current_date when not given.
	v := baseValues()
	delete(v, "current_date")
	c2, err := s.NewConfig("Package", "", v)
	if err != nil {
		t.Fatal(err)
	}
	if got := c2.String("current_date"); got != time.Now().Format("2006-01-02") {
		t.Errorf("current_date %q", got)
	}
	// Dynamic defaults may read derived values; a given value wins.
	reg := mustConfig(t, s, "Registration", map[string]any{"model_owner": "o", "model_domain": "d", "model_objective": "m",
		"framework": "xgboost", "inference_entry_point": "inference.py", "model_package_group_name": "my-group"})
	if reg.String("model_package_description") != "Demo xgboost Model NA" || reg.String("model_package_group_name") != "my-group" {
		t.Errorf("registration dynamic defaults: %q, %q", reg.String("model_package_description"), reg.String("model_package_group_name"))
	}
	// A derived field without a value to derive from is absent, not "".
	v = baseValues()
	delete(v, "source_dir")
	c3, err := s.NewConfig("Package", "", v)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c3.Get("script_path"); ok {
		t.Errorf("script_path derived without a source dir: %v", c3.Derived["script_path"])
	}
}

func TestValidationListsEveryProblem(t *testing.T) {
	s := testSchema(t)
	values := baseValues()
	delete(values, "author")  // missing essential (base)
	values["region"] = "APAC" // not allowed
	values["max_runtime_seconds"] = 10
	values["training_instance_type"] = "ml.t2.micro" // not allowed
	values["training_instance_count"] = "two"        // wrong type
	values["subnets"] = "subnet-1"                   // wrong type: not an array
	// training_entry_point missing
	_, err := s.NewConfig("XGBoostTraining", "XGBoostTraining_training", values)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want *ValidationError, got %v", err)
	}
	got := map[string]FieldError{}
	for _, e := range ve.Errors {
		got[e.Path] = e
	}
	want := map[string]string{
		"XGBoostTraining_training.author":                  KindMissing,
		"XGBoostTraining_training.region":                  KindAllowed,
		"XGBoostTraining_training.max_runtime_seconds":     KindRange,
		"XGBoostTraining_training.training_instance_type":  KindAllowed,
		"XGBoostTraining_training.training_instance_count": KindType,
		"XGBoostTraining_training.subnets":                 KindType,
		"XGBoostTraining_training.training_entry_point":    KindMissing,
	}
	if len(ve.Errors) != len(want) {
		t.Errorf("got %d errors, want %d: %v", len(ve.Errors), len(want), ve)
	}
	for path, kind := range want {
		e, ok := got[path]
		if !ok {
			t.Errorf("no error for %s", path)
			continue
		}
		if e.Kind != kind {
			t.Errorf("%s: kind %s, want %s (%s)", path, e.Kind, kind, e.Message)
		}
	}
	if a := got["XGBoostTraining_training.training_instance_type"].Allowed; len(a) != 5 || a[0] != "ml.m5.4xlarge" {
		t.Errorf("allowed values not reported: %v", a)
	}
	if a := got["XGBoostTraining_training.region"].Allowed; !reflect.DeepEqual(a, []any{"NA", "EU", "FE"}) {
		t.Errorf("region allowed %v", a)
	}
	if !strings.Contains(ve.Error(), "7 invalid config value(s)") {
		t.Errorf("message: %s", ve.Error())
	}

	// Pattern and integral floats.
	v := baseValues()
	v["job_type"] = "Training Data"
	v["batch_size"] = 5.0
	_, err = s.NewConfig("TabularPreprocessing", "", v)
	if !errors.As(err, &ve) || len(ve.Errors) != 1 || ve.Errors[0].Kind != KindPattern || ve.Errors[0].Path != "TabularPreprocessing_Training Data.job_type" {
		t.Errorf("pattern: %v", err)
	}
	if _, err := s.NewConfig("NoSuchConfig", "", v); !errors.As(err, new(*UnknownClassError)) {
		t.Errorf("unknown class: %v", err)
	}
}

func TestCoerce(t *testing.T) {
	for _, tc := range []struct {
		typ  catalog.FieldType
		in   any
		want any
		bad  bool
	}{
		{catalog.FieldInt, 3, int64(3), false},
		{catalog.FieldInt, 3.0, int64(3), false},
		{catalog.FieldInt, 3.5, nil, true},
		{catalog.FieldInt, "3", nil, true},
		{catalog.FieldFloat, 3, 3.0, false},
		{catalog.FieldBool, "true", nil, true},
		{catalog.FieldList, []any{"a", "b"}, []any{"a", "b"}, false},
		{catalog.FieldList, []string{"a", "b"}, []any{"a", "b"}, false},
		{catalog.FieldList, []any{0, 1}, []any{int64(0), int64(1)}, false},
		{catalog.FieldList, map[string]any{"__type_info__": "list", "value": []any{"a"}}, []any{"a"}, false},
		{catalog.FieldList, "a", nil, true},
		{catalog.FieldMap, []any{}, nil, true},
		{catalog.FieldAny, []any{1, 2.5}, []any{int64(1), 2.5}, false},
		{catalog.FieldString, nil, nil, false},
	} {
		got, msg := coerce(tc.typ, tc.in)
		if (msg != "") != tc.bad || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("coerce(%s, %#v) = %#v, %q", tc.typ, tc.in, got, msg)
		}
	}
}

func TestTypeConfidence(t *testing.T) {
	// The fallback figures are Python's difflib.SequenceMatcher(None, a, b).ratio()
	// (deps.SequenceRatio; its own cases are in engine/deps).
	for _, tc := range []struct {
		node, base string
		want       float64
	}{
		{"xgboost_training", "xgboost", 0.8},            // base inside the node name
		{"model_calibration", "calibration_extra", 0.8}, // one part of the base inside
		{"preprocess_calibration", "tabularpreprocessing", 0.5714285714285714},
		{"xgboostmodeleval_calibration", "modelcalibration", 0.7272727272727273},
		{"train_xgb", "xgboosttraining", 0.5},
	} {
		if got := typeConfidence(tc.node, tc.base); got != tc.want {
			t.Errorf("typeConfidence(%q, %q) = %v, want %v", tc.node, tc.base, got, tc.want)
		}
	}
}

func TestSetOrderAndDuplicateKeys(t *testing.T) {
	s := testSchema(t)
	a := mustConfig(t, s, "XGBoostTraining", map[string]any{"training_entry_point": "t.py"})
	b := mustConfig(t, s, "TabularPreprocessing", map[string]any{"job_type": "training"})
	set, err := NewSet(a, b)
	if err != nil {
		t.Fatal(err)
	}
	keys := set.Keys()
	if !sort.SliceIsSorted(keys, func(i, j int) bool { return keys[i] < keys[j] }) || len(keys) != 2 {
		t.Errorf("keys %v", keys)
	}
	_, err = NewSet(a, b, a)
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Errors[0].Kind != KindDuplicateKey {
		t.Errorf("duplicate keys: %v", err)
	}
}

// A class shares its step's fields when they hold each name once, and
// deduplicates into a new slice (a later declaration overriding the
// earlier in place) when they do not, leaving the step's slice as it was.
func TestClassFieldsSharedOrDeduplicated(t *testing.T) {
	steps := testSteps()
	byType := map[catalog.StepType]*catalog.Step{}
	before := map[catalog.StepType][]catalog.ConfigField{}
	for _, st := range steps {
		byType[st.Type] = st
		before[st.Type] = slices.Clone(st.Fields)
	}
	s, err := NewSchema(steps, testBase(), testProcessing())
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range steps {
		if !reflect.DeepEqual(st.Fields, before[st.Type]) {
			t.Errorf("%s: building the schema changed the step's fields", st.Type)
		}
	}
	c, _ := s.ClassForStep("PyTorchTraining") // every name once
	if &c.Fields[0] != &byType["PyTorchTraining"].Fields[0] {
		t.Error("PyTorchTraining's class copies fields its step holds once each")
	}
	c, _ = s.ClassForStep("DummyDataLoading") // processing_entry_point and job_type twice
	st := byType["DummyDataLoading"]
	if &c.Fields[0] == &st.Fields[0] || len(c.Fields) >= len(st.Fields) {
		t.Fatalf("DummyDataLoading's class was not deduplicated: %d fields of %d", len(c.Fields), len(st.Fields))
	}
	first := slices.IndexFunc(st.Fields, func(f catalog.ConfigField) bool { return f.Name == "processing_entry_point" })
	f, ok := c.Field("processing_entry_point")
	if !ok || f.Default != "dummy_data_loading.py" || c.Fields[first].Name != "processing_entry_point" {
		t.Errorf("the later processing_entry_point does not override the earlier in place: %+v at %d", f, first)
	}
	seen := map[string]bool{}
	for i, f := range c.Fields {
		if seen[f.Name] {
			t.Errorf("%s declared twice in the class", f.Name)
		}
		seen[f.Name] = true
		if g, _ := c.Field(f.Name); !reflect.DeepEqual(g, c.Fields[i]) {
			t.Errorf("index of %s points elsewhere", f.Name)
		}
	}
}

// The embedded base field set takes an AWS region name as the region, beside the codes NA, EU
// and FE; anything else is refused, naming the field.
func TestRegionNames(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	vals := func(region string) map[string]any {
		v := baseValues()
		v["region"], v["label_name"], v["tab_field_list"], v["cat_field_list"], v["objective"] = region, "y", []any{"a"}, []any{}, "binary:logistic"
		return v
	}
	for region, want := range map[string]string{"eu-central-1": "eu-central-1", "us-west-2": "us-west-2", "FE": "us-west-2", "ap-southeast-3": "ap-southeast-3"} {
		c, err := s.NewConfig("XGBoostTrainingConfig", "XGBoostTraining", vals(region))
		if err != nil {
			t.Fatalf("region %s: %v", region, err)
		}
		if c.String("aws_region") != want || c.String("pipeline_name") != "alice-Demo-xgboost-"+region {
			t.Errorf("region %s: aws_region %s, pipeline_name %s", region, c.String("aws_region"), c.String("pipeline_name"))
		}
	}
	for _, bad := range []string{"Frankfurt", "eu_central_1", "na", "us-east"} {
		if _, err := s.NewConfig("XGBoostTrainingConfig", "XGBoostTraining", vals(bad)); err == nil || !strings.Contains(err.Error(), "region") {
			t.Errorf("region %q: err %v, want a refusal naming region", bad, err)
		}
	}
}
