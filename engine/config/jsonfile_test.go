package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
)

// e2eInput is the XGBoost end-to-end DAG with realistic values.
func e2eInput() BuildInput {
	return BuildInput{
		Nodes: nodes("CradleDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining",
			"ModelCalibration_calibration", "Package", "Registration", "Payload", "CradleDataLoading_calibration",
			"TabularPreprocessing_calibration", "XGBoostModelEval_calibration"),
		Base: merged(baseValues(), map[string]any{"processing_source_dir": "dockers/scripts", "subnets": []any{"subnet-a", "subnet-b"}}),
		Steps: map[catalog.NodeName]map[string]any{
			"CradleDataLoading_training": {"data_sources_spec": map[string]any{"data_sources": []any{map[string]any{"data_source_name": "RAW_MDS_NA"}}},
				"transform_spec": map[string]any{"transform_sql": "SELECT 1", "split_days": 7}, "output_spec": map[string]any{"output_format": "PARQUET"},
				"cradle_job_spec": map[string]any{"cluster_type": "STANDARD", "retry": 4, "weight": 1.0}},
			"CradleDataLoading_calibration": {"data_sources_spec": map[string]any{"data_sources": []any{}},
				"transform_spec": map[string]any{"transform_sql": "SELECT 2"}, "output_spec": map[string]any{"output_format": "PARQUET"},
				"cradle_job_spec": map[string]any{"cluster_type": "STANDARD"}},
			"TabularPreprocessing_training":    {"label_name": "is_abuse", "train_ratio": 0.8},
			"TabularPreprocessing_calibration": {"label_name": "is_abuse", "train_ratio": 1},
			"XGBoostTraining": {"training_entry_point": "xgboost_training.py", "training_instance_type": "ml.m5.12xlarge",
				"hyperparameters": map[string]any{"num_round": 300, "eta": 0.1, "max_depth": 6.0}},
			"ModelCalibration_calibration": {"label_field": "is_abuse"},
			"XGBoostModelEval_calibration": {"id_name": "objectId", "label_name": "is_abuse"},
			"Package":                      {},
			"Payload":                      {"expected_tps": 2, "max_latency_in_millisecond": 800},
			"Registration": {"model_owner": "team-a", "model_domain": "abuse", "model_objective": "detect",
				"framework": "xgboost", "inference_entry_point": "inference.py"},
		},
	}
}

func TestRoundTripIsLossless(t *testing.T) {
	s := testSchema(t)
	set, err := s.Build(e2eInput())
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if set.Len() != 10 {
		t.Fatalf("%d configs", set.Len())
	}
	b, err := Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(s, b)
	if err != nil {
		t.Fatalf("Unmarshal: %v\n%s", err, b)
	}
	if !reflect.DeepEqual(set.Keys(), back.Keys()) {
		t.Fatalf("keys %v vs %v", set.Keys(), back.Keys())
	}
	for _, c := range set.Configs() {
		d, _ := back.Config(c.Key)
		if d.Class != c.Class {
			t.Errorf("%s: class %s vs %s", c.Key, d.Class.Name, c.Class.Name)
		}
		if !reflect.DeepEqual(c.Values, d.Values) {
			for k, v := range c.Values {
				if !reflect.DeepEqual(v, d.Values[k]) {
					t.Errorf("%s.%s: %#v -> %#v", c.Key, k, v, d.Values[k])
				}
			}
			for k := range d.Values {
				if _, ok := c.Values[k]; !ok {
					t.Errorf("%s.%s appeared after the round trip", c.Key, k)
				}
			}
		}
		if !reflect.DeepEqual(c.Derived, d.Derived) {
			t.Errorf("%s derived %v vs %v", c.Key, c.Derived, d.Derived)
		}
	}
	if back.CreatedAt != set.CreatedAt {
		t.Errorf("created_at %q vs %q", back.CreatedAt, set.CreatedAt)
	}
	b2, err := Marshal(back)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, b2) {
		t.Errorf("second write differs from the first")
	}
	// Floats stay floats, ints stay ints, nested containers keep their types.
	tab, _ := back.Config("TabularPreprocessing_calibration")
	if v, _ := tab.Get("train_ratio"); v != 1.0 {
		t.Errorf("train_ratio %#v", v)
	}
	xgb, _ := back.Config("XGBoostTraining")
	hp, _ := xgb.Get("hyperparameters")
	if want := map[string]any{"num_round": int64(300), "eta": 0.1, "max_depth": 6.0}; !reflect.DeepEqual(hp, want) {
		t.Errorf("hyperparameters %#v", hp)
	}
	if !strings.Contains(string(b), `"max_depth": 6.0`) {
		t.Errorf("integral float not written as 6.0")
	}
	// a key no class declares, in a file written elsewhere, loads as an
	// extra field and is written back
	withExtra := strings.Replace(string(b), `"expected_tps": 2,`, `"custom_note": "kept",
        "expected_tps": 2,`, 1)
	back, err = Unmarshal(s, []byte(withExtra))
	if err != nil {
		t.Fatalf("Unmarshal with an extra key: %v", err)
	}
	pay, _ := back.Config("Payload")
	if v, _ := pay.Get("custom_note"); v != "kept" {
		t.Errorf("extra field lost on load: %#v", v)
	}
	if again, err := Marshal(back); err != nil || !strings.Contains(string(again), `"custom_note": "kept"`) {
		t.Errorf("extra field lost on save: %v", err)
	}
}

func TestMarshalLayout(t *testing.T) {
	s := testSchema(t)
	set, err := s.Build(e2eInput())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Marshal(set)
	var doc struct {
		Configuration struct {
			Shared   map[string]any            `json:"shared"`
			Specific map[string]map[string]any `json:"specific"`
		} `json:"configuration"`
		Metadata struct {
			ConfigTypes  map[string]string   `json:"config_types"`
			CreatedAt    string              `json:"created_at"`
			FieldSources map[string][]string `json:"field_sources"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	sh := doc.Configuration.Shared
	for _, k := range []string{"author", "bucket", "region", "role", "service_name", "pipeline_version", "project_root_folder",
		"current_date", "enable_caching", "max_runtime_seconds", "model_class", "source_dir", "subnets"} {
		if _, ok := sh[k]; !ok {
			t.Errorf("shared lacks %s", k)
		}
	}
	for _, k := range []string{"framework_version", "py_version", "use_secure_pypi", "pipeline_name", "job_type", "image_uri", "processing_source_dir"} {
		if _, ok := sh[k]; ok {
			t.Errorf("shared has %s", k)
		}
	}
	tab := doc.Configuration.Specific["TabularPreprocessing_training"]
	if tab["__model_type__"] != "TabularPreprocessingConfig" || tab["job_type"] != "training" ||
		tab["pipeline_name"] != "alice-Demo-xgboost-NA" || tab["script_path"] != "dockers/scripts/tabular_preprocessing.py" ||
		tab["effective_instance_type"] != "ml.m5.2xlarge" {
		t.Errorf("specific TabularPreprocessing_training: %v", tab)
	}
	if _, ok := tab["author"]; ok {
		t.Error("shared field repeated in specific")
	}
	if _, ok := tab["image_uri"]; ok {
		t.Error("null system field serialized")
	}
	if doc.Configuration.Specific["XGBoostTraining"]["framework_version"] != "1.7-1" {
		t.Error("overridden default not in specific")
	}
	if len(doc.Metadata.ConfigTypes) != 10 || doc.Metadata.ConfigTypes["Registration"] != "RegistrationConfig" {
		t.Errorf("config_types %v", doc.Metadata.ConfigTypes)
	}
	if len(doc.Metadata.FieldSources["author"]) != 10 || len(doc.Metadata.FieldSources["__model_type__"]) != 10 ||
		!reflect.DeepEqual(doc.Metadata.FieldSources["training_entry_point"], []string{"XGBoostTraining"}) {
		t.Errorf("field_sources %v", doc.Metadata.FieldSources)
	}
	if doc.Metadata.CreatedAt == "" {
		t.Error("no created_at")
	}
	// Sorted keys and two-space indent, as json.dump(sort_keys=True, indent=2).
	if !bytes.HasPrefix(b, []byte("{\n  \"configuration\": {\n    \"shared\": {\n      \"author\": \"alice\",")) {
		t.Errorf("layout:\n%.200s", b)
	}
}

func TestOriginalFileLoadsAndResolves(t *testing.T) {
	s := testSchema(t)
	set, err := Load(nil, s, filepath.Join("testdata", "original_config.json"))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(set.Warnings) != 0 {
		t.Errorf("warnings: %v", set.Warnings)
	}
	wantKeys := []catalog.ConfigKey{"Base", "CradleDataLoading_calibration", "CradleDataLoading_training", "Processing",
		"TabularPreprocessing_calibration", "TabularPreprocessing_training", "XGBoostTraining"}
	if !reflect.DeepEqual(set.Keys(), wantKeys) {
		t.Errorf("keys %v", set.Keys())
	}
	if set.CreatedAt != "2026-01-01T12:00:00.123456" {
		t.Errorf("created_at %q", set.CreatedAt)
	}
	base, _ := set.Config("Base")
	if base.Class.Name != BaseClass || base.String("pipeline_name") != "alice-Demo-xgboost-NA" {
		t.Errorf("Base config: %s %s", base.Class.Name, base.String("pipeline_name"))
	}
	cradle, _ := set.Config("CradleDataLoading_training")
	ds, _ := cradle.Get("data_sources_spec")
	list, ok := ds.(map[string]any)["data_sources"].([]any)
	if !ok || len(list) != 1 {
		t.Errorf("__type_info__ list not unwrapped: %#v", ds)
	}
	js, _ := cradle.Get("cradle_job_spec")
	if js.(map[string]any)["job_retry_count"] != int64(4) {
		t.Errorf("nested int: %#v", js)
	}
	xgb, _ := set.Config("XGBoostTraining")
	if v, _ := xgb.Get("skip_hyperparameters_s3_uri"); v != true {
		t.Errorf("extra field: %#v", v)
	}
	if !reflect.DeepEqual(xgb.Extras(), []string{"skip_hyperparameters_s3_uri"}) {
		t.Errorf("extras %v", xgb.Extras())
	}
	if xgb.String("hyperparameter_file") != "s3://example-bucket/MODS/alice-Demo-xgboost-NA_1.0.0/hyperparameters/NA_hyperparameters.json" {
		t.Errorf("hyperparameter_file %s", xgb.String("hyperparameter_file"))
	}
	tab, _ := set.Config("TabularPreprocessing_training")
	if tab.String("script_path") != "dockers/scripts/tabular_preprocessing.py" || tab.String("role") == "" {
		t.Errorf("tabular: %s role %q", tab.String("script_path"), tab.String("role"))
	}

	dagNodes := nodes("CradleDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining",
		"CradleDataLoading_calibration", "TabularPreprocessing_calibration")
	res, err := set.Resolve(dagNodes, ResolveOptions{})
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	for i, r := range res {
		if string(r.Config.Key) != string(dagNodes[i]) || r.Method != MethodDirect || r.Rule != RuleExactKey {
			t.Errorf("%s -> %s (%s/%s)", r.Node, r.Config.Key, r.Method, r.Rule)
		}
	}

	// Written again, it loads to the same values.
	b, err := Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Unmarshal(s, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range set.Configs() {
		d, _ := again.Config(c.Key)
		if !reflect.DeepEqual(c.Values, d.Values) || !reflect.DeepEqual(c.Derived, d.Derived) {
			t.Errorf("%s changed after re-writing", c.Key)
		}
	}
}

func TestUnmarshalVariantsAndErrors(t *testing.T) {
	s := testSchema(t)
	// The direct structure (no "configuration" wrapper) and no config_types: __model_type__ names the class.
	direct := `{"shared": {"author": "a", "bucket": "b", "role": "r", "region": "EU", "service_name": "S",
	  "pipeline_version": "2", "project_root_folder": "p", "current_date": "2026-01-01"},
	 "specific": {"Package": {"__model_type__": "PackageConfig", "pipeline_name": "stale-name"}}}`
	set, err := Unmarshal(s, []byte(direct))
	if err != nil {
		t.Fatalf("direct form: %v", err)
	}
	pkg, ok := set.Config("Package")
	if !ok || pkg.String("aws_region") != "eu-west-1" || pkg.String("pipeline_name") != "a-S-xgboost-EU" {
		t.Errorf("direct form config: %+v", pkg)
	}
	if len(set.Warnings) != 1 || !strings.Contains(set.Warnings[0], "Package.pipeline_name") {
		t.Errorf("stale derived value not warned: %v", set.Warnings)
	}

	// bad JSON is reported with its position
	if _, err := ParseFile([]byte("{\"configuration\": {\n  \"shared\": {\"a\": 1,}}}")); err == nil || !strings.Contains(err.Error(), "not valid JSON: line 2, column 21 (byte 40)") {
		t.Errorf("bad JSON: %v", err)
	}
	if _, err := ParseFile([]byte(`{"configuration": {}} x`)); err == nil || !strings.Contains(err.Error(), "line 1, column 23 (byte 22): data after the JSON document") {
		t.Errorf("trailing data: %v", err)
	}
	for name, tc := range map[string]struct {
		doc  string
		want any
	}{
		"not json":          {`{"configuration": `, new(*FormatError)},
		"array":             {`[]`, new(*FormatError)},
		"specific not obj":  {`{"configuration": {"shared": {}, "specific": []}}`, new(*FormatError)},
		"no types":          {`{"configuration": {"shared": {}, "specific": {"X": {}}}}`, new(*FormatError)},
		"empty":             {`{"configuration": {"shared": {}, "specific": {}}, "metadata": {"config_types": {}}}`, new(*FormatError)},
		"config_types type": {`{"configuration": {"specific": {}}, "metadata": {"config_types": {"A": 1}}}`, new(*FormatError)},
		"unknown classes": {`{"configuration": {"shared": {}, "specific": {}},
			"metadata": {"config_types": {"A": "NoSuchConfig", "B": "OtherMissingConfig", "Package": "PackageConfig"}}}`, new(*UnknownClassError)},
		"invalid values": {`{"configuration": {"shared": {"region": "XX"}, "specific": {"Package": {"processing_instance_count": "1"}}},
			"metadata": {"config_types": {"Package": "PackageConfig"}}}`, new(*ValidationError)},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := Unmarshal(s, []byte(tc.doc))
			if err == nil || !errors.As(err, tc.want) {
				t.Fatalf("error %T %v", err, err)
			}
			switch e := err.(type) {
			case *UnknownClassError:
				if len(e.Classes) != 2 || e.Classes["A"] != "NoSuchConfig" || len(e.Available) == 0 {
					t.Errorf("unknown classes %v", e.Classes)
				}
			case *ValidationError:
				if got == nil {
					t.Error("set not returned with validation errors")
				}
				paths := strings.Join(e.Paths(), " ")
				for _, p := range []string{"Package.region", "Package.processing_instance_count", "Package.author"} {
					if !strings.Contains(paths, p) {
						t.Errorf("no error at %s: %v", p, e)
					}
				}
			}
		})
	}
}

func TestSaveIsAtomicAndLoadReportsMissingFile(t *testing.T) {
	s := testSchema(t)
	set, err := s.Build(e2eInput())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "config.json")
	if err := Save(nil, set, path); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 || entries[0].Name() != "config.json" {
		t.Errorf("directory holds %v", entries)
	}
	if _, err := Load(nil, s, path); err != nil {
		t.Errorf("Load after Save: %v", err)
	}
	_, err = Load(nil, s, filepath.Join(dir, "missing.json"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte("{"), 0o644)
	_, err = Load(nil, s, filepath.Join(dir, "bad.json"))
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Path == "" {
		t.Errorf("bad file: %v", err)
	}
}
