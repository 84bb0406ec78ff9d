package config

import (
	"reflect"
	"slices"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
)

// The template of a DAG follows its framework: a PyTorch DAG's base
// model_class is pytorch (not the base set's xgboost), an XGBoost DAG's
// framework_version and py_version are the XGBoost image's, so a
// Registration that takes the base version gets one its framework has. A
// config set built without model_class gives every config the DAG's.
func TestTemplateFollowsTheFramework(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	nodes := func(ns ...string) []catalog.NodeName {
		out := make([]catalog.NodeName, len(ns))
		for i, n := range ns {
			out[i] = catalog.NodeName(n)
		}
		return out
	}
	pt := s.Template(nodes("TabularPreprocessing_training", "PyTorchTraining", "Package", "Registration"))
	if pt.Base["model_class"] != "pytorch" || pt.Base["framework_version"] != "2.1.0" {
		t.Errorf("PyTorch template base: model_class %v framework_version %v", pt.Base["model_class"], pt.Base["framework_version"])
	}
	xg := s.Template(nodes("TabularPreprocessing_training", "XGBoostTraining", "Package", "Registration"))
	if xg.Base["model_class"] != "xgboost" || xg.Base["framework_version"] != "1.7-1" || xg.Base["py_version"] != "py3" {
		t.Errorf("XGBoost template base: %v %v %v", xg.Base["model_class"], xg.Base["framework_version"], xg.Base["py_version"])
	}
	// Registration, a step of no framework, takes the DAG's framework and
	// its version instead of asking for them; a LightGBM model (registered
	// under another framework's image) is left for the user to choose.
	for _, c := range []struct {
		tpl                *Template
		framework, version any
	}{{xg, "xgboost", "1.7-1"}, {pt, "pytorch", "2.1.0"}} {
		reg := c.tpl.Steps["Registration"]
		if reg["framework"] != c.framework || reg["framework_version"] != c.version {
			t.Errorf("Registration of a %s DAG: framework %v framework_version %v", c.framework, reg["framework"], reg["framework_version"])
		}
		if slices.Contains(c.tpl.EssentialFields, "Registration.framework") || slices.Contains(c.tpl.EssentialFields, "Registration.framework_version") {
			t.Errorf("%s DAG: essential_fields still ask for Registration's framework: %v", c.framework, c.tpl.EssentialFields)
		}
	}
	for _, r := range s.Requirements(nodes("XGBoostTraining", "Package", "Registration")).Steps["Registration"] {
		if (r.Name == "framework" || r.Name == "framework_version") && (r.Required || r.Default == nil) {
			t.Errorf("config.requirements of an XGBoost DAG still asks for Registration.%s: %+v", r.Name, r)
		}
	}
	lgb := s.Template(nodes("TabularPreprocessing_training", "LightGBMTraining", "Package", "Registration"))
	if reg := lgb.Steps["Registration"]; reg["framework"] != nil || reg["framework_version"] != nil ||
		!slices.Contains(lgb.EssentialFields, "Registration.framework") || !slices.Contains(lgb.EssentialFields, "Registration.framework_version") {
		t.Errorf("LightGBM DAG: Registration %v, essential %v", reg, lgb.EssentialFields)
	}
	// Two steps that redeclare a default differently: the base set's stays.
	mixed := s.Template(nodes("XGBoostModel", "PyTorchModel"))
	if mixed.Base["model_class"] != "pytorch" || mixed.Base["framework_version"] != "2.1.0" {
		t.Errorf("mixed template base: %v %v", mixed.Base["model_class"], mixed.Base["framework_version"])
	}
	// A DAG of two frameworks (PyTorch scores stacked under XGBoost): no
	// step's image version becomes the base value, so each training job
	// gets a version its own image has.
	stack := nodes("PyTorchTraining", "PyTorchModelInference_training", "XGBoostTraining", "Package", "Registration")
	st := s.Template(stack)
	if st.Base["framework_version"] != "2.1.0" || st.Steps["XGBoostTraining"]["framework_version"] != "1.7-1" {
		t.Errorf("stacked template: base framework_version %v, XGBoostTraining's %v", st.Base["framework_version"], st.Steps["XGBoostTraining"]["framework_version"])
	}
	if !slices.Contains(st.EssentialFields, "Registration.framework_version") {
		t.Errorf("stacked DAG: Registration's framework_version must be asked for: %v", st.EssentialFields)
	}
	stBase := map[string]any{"author": "alice", "bucket": "example-bucket", "role": "arn:aws:iam::123456789012:role/R", "region": "NA",
		"service_name": "Demo", "pipeline_version": "1.0.0", "project_root_folder": "demo"}
	for k, v := range st.Base {
		if _, set := stBase[k]; !set && v != nil {
			stBase[k] = v
		}
	}
	stSet, err := s.Build(BuildInput{Nodes: stack, Base: stBase, Steps: map[catalog.NodeName]map[string]any{
		"PyTorchTraining":                {"label_name": "label", "tab_field_list": []any{"amount"}},
		"PyTorchModelInference_training": {"id_name": "id"},
		"XGBoostTraining": {"framework_version": st.Steps["XGBoostTraining"]["framework_version"], "label_name": "label",
			"tab_field_list": []any{"amount", "pytorch_score"}, "cat_field_list": []any{}, "objective": "binary:logistic"},
		"Registration": {"model_owner": "team", "model_domain": "demo", "model_objective": "risk", "framework": "xgboost",
			"framework_version": "1.7-1"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range stSet.Configs() {
		want := map[catalog.ConfigKey]string{"PyTorchTraining": "2.1.0", "XGBoostTraining": "1.7-1"}[c.Key]
		if want != "" && c.String("framework_version") != want {
			t.Errorf("stacked DAG: %s framework_version %q, want %q", c.Key, c.String("framework_version"), want)
		}
	}

	set, err := s.Build(BuildInput{Nodes: nodes("DummyDataLoading_training", "PyTorchModel"), Base: map[string]any{
		"author": "alice", "bucket": "example-bucket", "role": "arn:aws:iam::123456789012:role/R", "region": "NA",
		"service_name": "Demo", "pipeline_version": "1.0.0", "project_root_folder": "demo"},
		Steps: map[catalog.NodeName]map[string]any{"DummyDataLoading_training": {"data_source": "s3://example-bucket/raw/"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range set.Configs() {
		if c.String("model_class") != "pytorch" || c.String("pipeline_name") != "alice-Demo-pytorch-NA" {
			t.Errorf("%s: model_class %q pipeline_name %q", c.Key, c.String("model_class"), c.String("pipeline_name"))
		}
	}
}

// pipeline_parameters in configuration.shared reaches every config; any
// other shared key no class declares is listed in IgnoredShared.
func TestSharedPipelineKeysAndIgnoredKeys(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	params := []any{map[string]any{"name": "P", "type": "String", "default_value": "x"}}
	doc := []byte(`{"configuration": {"shared": {"author": "alice", "bucket": "example-bucket", "role": "arn:aws:iam::123456789012:role/R",
	  "region": "NA", "service_name": "Demo", "pipeline_version": "1.0.0", "project_root_folder": "demo",
	  "pipeline_parameters": [{"name": "P", "type": "String", "default_value": "x"}], "servce_name": "oops"},
	 "specific": {"DummyDataLoading_training": {"__model_type__": "DummyDataLoadingConfig", "job_type": "training", "data_source": "s3://example-bucket/raw/"},
	  "XGBoostTraining": {"__model_type__": "XGBoostTrainingConfig", "label_name": "y", "tab_field_list": ["a"], "cat_field_list": [], "objective": "binary:logistic"}}}}`)
	set, err := Unmarshal(s, doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range set.Configs() {
		if v, _ := c.Get("pipeline_parameters"); !reflect.DeepEqual(normalize(v), normalize(params)) {
			t.Errorf("%s: pipeline_parameters %#v", c.Key, v)
		}
	}
	if !reflect.DeepEqual(set.IgnoredShared, []string{"servce_name"}) {
		t.Errorf("IgnoredShared %v", set.IgnoredShared)
	}
	c, _ := set.Config("XGBoostTraining")
	if got := c.Class.ClosestField("lable_name"); got != "label_name" {
		t.Errorf("ClosestField(lable_name) = %q", got)
	}
	if got := c.Class.ClosestField("completely_different"); got != "" {
		t.Errorf("ClosestField of an unrelated name = %q", got)
	}
}

func TestPlaceholders(t *testing.T) {
	for v, want := range map[string]bool{
		"replace-me": true, "s3://replace-me-bucket/x/": true, "REPLACE_ME": true, "ReplaceMe": true, "TODO": true, " tbd ": true,
		"TODO: the bucket": true, "FixMe": true, "<bucket>": true, "arn:aws:iam::<account>:role/<name>": true,
		"arn:aws:iam::000000000000:role/REPLACE-sagemaker-role": true, "REPLACE_WITH_ROLE": true,
		"label": false, "example-bucket": false, "SELECT a FROM t WHERE a<b AND c>d": false, "todo_list": false, "": false,
		"SELECT REPLACE(name, '-', '_') FROM t": false, "replacement_cost": false,
	} {
		if got := IsPlaceholder(v); got != want {
			t.Errorf("IsPlaceholder(%q) = %v", v, got)
		}
	}
	if !IsPlaceholder([]any{"a", "replace-me"}) || IsPlaceholder(3) || IsPlaceholder(map[string]any{"k": "replace-me"}) {
		t.Error("lists hold placeholders; numbers and objects are not placeholders themselves")
	}
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.NewConfig("TabularPreprocessingConfig", "TabularPreprocessing_training", map[string]any{
		"author": "", "bucket": "example-bucket", "role": "arn:aws:iam::123456789012:role/R", "region": "NA",
		"service_name": "Demo", "pipeline_version": "1.0.0", "project_root_folder": "demo", "job_type": "training",
		"label_name": "TODO", "env": map[string]any{"K": []any{"x", "<slot>"}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range c.PlaceholderFields() {
		got = append(got, p.Path)
	}
	if want := []string{"author", "env.K[1]", "label_name"}; !reflect.DeepEqual(got, want) {
		t.Errorf("PlaceholderFields %v, want %v", got, want)
	}
}
