package config

import (
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
)

// Hand-built declarations of a base, a processing base and a few step
// classes, so the
// engine is tested independently of the embedded step files.

func fnum(f float64) *float64 { return &f }

func ess(name string, t catalog.FieldType) catalog.ConfigField {
	return catalog.ConfigField{Name: name, Type: t, Tier: catalog.TierEssential, Description: name}
}

func sys(name string, t catalog.FieldType, def any) catalog.ConfigField {
	return catalog.ConfigField{Name: name, Type: t, Tier: catalog.TierSystem, Default: def, Description: name}
}

func der(name, tmpl string) catalog.ConfigField {
	return catalog.ConfigField{Name: name, Type: catalog.FieldString, Tier: catalog.TierDerived, Derivation: tmpl, Description: name}
}

func testBase() []catalog.ConfigField {
	region := ess("region", catalog.FieldString)
	region.Allowed = []any{"NA", "EU", "FE"}
	maxRT := sys("max_runtime_seconds", catalog.FieldInt, 172800)
	maxRT.Min, maxRT.Max = fnum(60), fnum(432000)
	cur := catalog.ConfigField{Name: "current_date", Type: catalog.FieldString, Tier: catalog.TierSystem, Derivation: "{today}", Description: "today"}
	return []catalog.ConfigField{
		ess("author", catalog.FieldString), ess("bucket", catalog.FieldString), ess("role", catalog.FieldString), region,
		ess("service_name", catalog.FieldString), ess("pipeline_version", catalog.FieldString), ess("project_root_folder", catalog.FieldString),
		sys("model_class", catalog.FieldString, "xgboost"), cur,
		sys("framework_version", catalog.FieldString, "2.1.0"), sys("py_version", catalog.FieldString, "py310"),
		sys("image_uri", catalog.FieldString, nil), sys("subnets", catalog.FieldList, nil), sys("security_group_ids", catalog.FieldList, nil),
		sys("enable_network_isolation", catalog.FieldBool, nil), sys("source_dir", catalog.FieldString, nil),
		sys("enable_caching", catalog.FieldBool, false), sys("use_secure_pypi", catalog.FieldBool, false), maxRT,
		der("aws_region", "{region|aws_region}"),
		der("pipeline_name", "{author}-{service_name}-{model_class}-{region}"),
		der("pipeline_description", "{service_name} {model_class} Model {region}"),
		der("pipeline_s3_loc", "s3://{bucket}/MODS/{pipeline_name}_{pipeline_version}"),
		der("effective_source_dir", "{source_dir}"),
	}
}

func testProcessing() []catalog.ConfigField {
	count := sys("processing_instance_count", catalog.FieldInt, 1)
	count.Min, count.Max = fnum(1), fnum(10)
	vol := sys("processing_volume_size", catalog.FieldInt, 500)
	vol.Min, vol.Max = fnum(10), fnum(1000)
	return []catalog.ConfigField{
		count, vol,
		sys("processing_instance_type_large", catalog.FieldString, "ml.m5.4xlarge"),
		sys("processing_instance_type_small", catalog.FieldString, "ml.m5.2xlarge"),
		sys("use_large_processing_instance", catalog.FieldBool, false),
		sys("skip_volume_kms", catalog.FieldBool, nil),
		sys("processing_source_dir", catalog.FieldString, nil),
		sys("processing_entry_point", catalog.FieldString, nil),
		sys("processing_script_arguments", catalog.FieldList, nil),
		sys("processing_framework_version", catalog.FieldString, "1.2-1"),
		der("effective_instance_type", ""), // built-in template
		der("effective_source_dir", "{processing_source_dir|or:source_dir}"),
		der("script_path", "{effective_source_dir}/{processing_entry_point}"),
	}
}

func step(t catalog.StepType, processing bool, own ...catalog.ConfigField) *catalog.Step {
	st := &catalog.Step{Type: t, ConfigClass: string(t) + "Config"}
	fields := testBase()
	st.FieldSets = []string{"base"}
	if processing {
		fields = append(fields, testProcessing()...)
		st.FieldSets = append(st.FieldSets, "processing")
	}
	st.Fields = append(fields, own...)
	return st
}

func testSteps() []*catalog.Step {
	jobEss := ess("job_type", catalog.FieldString)
	jobEss.Pattern = `^[a-z0-9_]+$`
	ratio := sys("train_ratio", catalog.FieldFloat, 0.7)
	ratio.Min, ratio.Max = fnum(0), fnum(1)
	format := sys("output_format", catalog.FieldString, "CSV")
	format.Allowed = []any{"CSV", "TSV", "Parquet"}
	instType := sys("training_instance_type", catalog.FieldString, "ml.m5.4xlarge")
	instType.Allowed = []any{"ml.m5.4xlarge", "ml.m5.12xlarge", "ml.c5.4xlarge", "ml.g5.12xlarge", "ml.p3.2xlarge"}
	xgbJob := sys("job_type", catalog.FieldString, nil)
	xgbJob.Allowed = []any{nil, "pretrain", "finetune"}
	return []*catalog.Step{
		step("CradleDataLoading", false, jobEss, ess("data_sources_spec", catalog.FieldMap), ess("transform_spec", catalog.FieldMap),
			ess("output_spec", catalog.FieldMap), ess("cradle_job_spec", catalog.FieldMap), sys("s3_input_override", catalog.FieldString, nil)),
		step("DummyDataLoading", true, ess("data_source", catalog.FieldString), sys("job_type", catalog.FieldString, "training"),
			sys("processing_entry_point", catalog.FieldString, "dummy_data_loading.py")),
		step("TabularPreprocessing", true, jobEss, sys("label_name", catalog.FieldString, nil), ratio,
			sys("test_val_ratio", catalog.FieldFloat, 0.5), format, sys("max_workers", catalog.FieldInt, 0), sys("batch_size", catalog.FieldInt, 5),
			sys("processing_entry_point", catalog.FieldString, "tabular_preprocessing.py")),
		step("XGBoostTraining", false, ess("training_entry_point", catalog.FieldString), instType,
			sys("training_instance_count", catalog.FieldInt, 1), sys("training_volume_size", catalog.FieldInt, 30),
			sys("framework_version", catalog.FieldString, "1.7-1"), sys("py_version", catalog.FieldString, "py3"),
			sys("use_secure_pypi", catalog.FieldBool, true), xgbJob, sys("hyperparameters", catalog.FieldMap, nil),
			der("hyperparameter_file", "")),
		step("XGBoostModelEval", true, ess("id_name", catalog.FieldString), ess("label_name", catalog.FieldString),
			sys("job_type", catalog.FieldString, "calibration"), sys("xgboost_framework_version", catalog.FieldString, "1.5-1"),
			sys("use_large_processing_instance", catalog.FieldBool, true),
			sys("processing_entry_point", catalog.FieldString, "xgboost_model_eval.py")),
		step("ModelCalibration", true, ess("label_field", catalog.FieldString), sys("calibration_method", catalog.FieldString, "gam"),
			sys("job_type", catalog.FieldString, "calibration"), sys("processing_entry_point", catalog.FieldString, "model_calibration.py")),
		step("Package", true, sys("inference_scripts_dir", catalog.FieldString, "inference"),
			sys("processing_entry_point", catalog.FieldString, "package.py")),
		step("Payload", true, ess("expected_tps", catalog.FieldInt), ess("max_latency_in_millisecond", catalog.FieldInt),
			sys("processing_entry_point", catalog.FieldString, "payload.py")),
		step("Registration", false, ess("model_owner", catalog.FieldString), ess("model_domain", catalog.FieldString),
			catalog.ConfigField{Name: "model_package_description", Type: catalog.FieldString, Tier: catalog.TierSystem, Derivation: "{pipeline_description}"},
			catalog.ConfigField{Name: "model_package_group_name", Type: catalog.FieldString, Tier: catalog.TierSystem, Derivation: "{service_name}-{model_class}-{region}"},
			ess("model_objective", catalog.FieldString), ess("framework", catalog.FieldString), ess("inference_entry_point", catalog.FieldString),
			sys("inference_instance_type", catalog.FieldString, "ml.m5.large")),
		step("XGBoostModel", false, sys("instance_type", catalog.FieldString, "ml.m5.large"), sys("entry_point", catalog.FieldString, "inference.py")),
		step("BatchTransform", false, jobEss, sys("transform_instance_type", catalog.FieldString, "ml.m5.large")),
		step("PyTorchTraining", false, ess("training_entry_point", catalog.FieldString)),
	}
}

func testSchema(t testing.TB) *Schema {
	t.Helper()
	s, err := NewSchema(testSteps(), testBase(), testProcessing())
	if err != nil {
		t.Fatalf("NewSchema: %v", err)
	}
	return s
}

// baseValues are common end-to-end config values.
func baseValues() map[string]any {
	return map[string]any{
		"author": "alice", "bucket": "example-bucket", "role": "arn:aws:iam::123456789012:role/SageMakerRole",
		"region": "NA", "service_name": "Demo", "pipeline_version": "1.0.0", "project_root_folder": "demo",
		"current_date": "2026-01-01", "source_dir": "dockers",
	}
}

func merged(a, b map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func mustConfig(t testing.TB, s *Schema, class string, values map[string]any) *Config {
	t.Helper()
	c, err := s.NewConfig(class, "", merged(baseValues(), values))
	if err != nil {
		t.Fatalf("NewConfig(%s): %v", class, err)
	}
	return c
}

func nodes(names ...string) []catalog.NodeName {
	out := make([]catalog.NodeName, len(names))
	for i, n := range names {
		out[i] = catalog.NodeName(n)
	}
	return out
}
