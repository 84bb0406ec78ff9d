package catalog

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestValidationRejects mutates a valid step file and checks that each
// mistake is reported with the field path and a reason.
func TestValidationRejects(t *testing.T) {
	valid := validExtraStep("DedupRows")
	if _, err := ParseStepFile("DedupRows.step.yaml", []byte(valid)); err != nil {
		t.Fatalf("base file invalid: %v", err)
	}
	training := validTrainingStep("MyTraining")
	if _, err := ParseStepFile("MyTraining.step.yaml", []byte(training)); err != nil {
		t.Fatalf("training base invalid: %v", err)
	}
	tests := []struct {
		name, base, old, new string
		want                 []string
	}{
		{"training input outside data root", training, "path: /opt/ml/input/data,", "path: /data,",
			[]string{"inputs[0].path", "must start with /opt/ml/input/data for a Training step"}},
		{"training channels below root", training, "path: /opt/ml/input/data,", "path: /opt/ml/input/data/x,",
			[]string{"inputs[0].path", "must be /opt/ml/input/data for an input with channels"}},
		{"training output root", training, "path: /opt/ml/model,", "path: /opt/ml/processing/output,",
			[]string{"outputs[0].path", "/opt/ml/model"}},
		{"training property root", training, "properties.ModelArtifacts.S3ModelArtifacts", "properties.ProcessingJobName",
			[]string{"outputs[0].property_path", "not a property of a Training step"}},
		{"training job arguments", training, "  entry_point: train.py\n", "  entry_point: train.py\n  job_arguments: [{flag: --x, source: author}]\n",
			[]string{"contract.job_arguments", "passes no command-line arguments"}},
		{"hyperparameter on processing", valid, "{name: processing_entry_point, default: dedup.py}", "{name: processing_entry_point, default: dedup.py}\n  - {name: eta, type: float, default: 0.1, hyperparameter: true, description: d}",
			[]string{"fields[1].hyperparameter", "only Training and Tuning steps take hyperparameters"}},
		{"hyperparameter field set on processing", valid, "keywords: [dedup, duplicates]", "keywords: [dedup, duplicates]\nfield_sets: [processing, xgboost_hyperparameters]",
			[]string{"field_sets", "fieldset:xgboost_hyperparameters declares hyperparameter field label_name"}},
		{"derived hyperparameter", training, "{name: training_entry_point, tier: system, default: train.py}", "{name: training_entry_point, tier: system, default: train.py}\n  - {name: depth, tier: derived, derive: \"{author}\", hyperparameter: true, description: d}",
			[]string{"fields[1].hyperparameter", "a derived field is not a hyperparameter"}},
		{"reserved hyperparameter", training, "{name: training_entry_point, tier: system, default: train.py}", "{name: training_entry_point, tier: system, default: train.py}\n  - {name: sagemaker_program, hyperparameter: true, description: d}",
			[]string{"fields[1].hyperparameter", "set by the compiler"}},
		{"bad channel name", training, "channels: [train, val]", "channels: [train, 'bad channel']",
			[]string{"inputs[0].channels", "not a SageMaker channel name"}},
		{"processing property path", valid, "    aliases: [input_data]\n", "    aliases: [input_data]\n    property_path: properties.ProcessingOutputConfig.Outputs['other'].S3Output.S3Uri\n",
			[]string{"outputs[0].property_path", "Outputs['processed_data']"}},
		{"malformed property path", valid, "    aliases: [input_data]\n", "    aliases: [input_data]\n    property_path: ProcessingOutputConfig\n",
			[]string{"outputs[0].property_path", "is not a property path"}},
		{"processing code dir", valid, "path: /opt/ml/processing/input/data", "path: /opt/ml/processing/input/code/x",
			[]string{"inputs[0].path", "reserved for the step's script"}},
		{"processing output root", valid, "path: /opt/ml/processing/output/data", "path: /opt/ml/model",
			[]string{"outputs[0].path", "must start with /opt/ml/processing/output"}},
		{"channels on processing", valid, "    required: true\n", "    required: true\n    channels: [a]\n",
			[]string{"inputs[0].channels", "Training and Tuning inputs only"}},
		{"bad dependency type", valid, "type: processing_output\n    path: /opt/ml/processing/input/data", "type: data\n    path: /opt/ml/processing/input/data",
			[]string{"inputs[0].type", "not a dependency type"}},
		{"unknown compatible output type", valid, "    required: true\n", "    required: true\n    compatible_output_types: [model]\n",
			[]string{"inputs[0].compatible_output_types[0]", "not a dependency type"}},
		{"own type as compatible output type", valid, "    required: true\n", "    required: true\n    compatible_output_types: [model_artifacts, processing_output]\n",
			[]string{"inputs[0].compatible_output_types[1]", "the input's own type"}},
		{"bad verb", valid, "verb: Processing", "verb: Lambada", []string{"verb", "not a verb"}},
		{"bad kind", valid, "kind: internal", "kind: singular", []string{"kind", "not a node kind"}},
		{"source with upstream input", valid, "kind: internal", "kind: source", []string{"inputs[0]", "source step takes no inputs"}},
		{"sink with outputs", valid, "kind: internal", "kind: sink", []string{"outputs", "sink step has no outputs"}},
		{"missing entry point", valid, "  entry_point: dedup.py\n", "", []string{"contract.entry_point", "required for a Processing step"}},
		{"entry point disagrees", valid, "default: dedup.py", "default: other.py", []string{"contract.entry_point", "must agree"}},
		{"required env without field", valid, "{name: KEY_COLUMNS, required: true}", "{name: OTHER_THING, required: true}",
			[]string{"contract.env[0].field", "has no config field", "other_thing"}},
		{"env field unknown", valid, "{name: KEY_COLUMNS, required: true}", "{name: KEY_COLUMNS, required: true, field: nope}",
			[]string{"contract.env[0].field", "unknown config field \"nope\""}},
		{"env default disagrees", valid, "{name: KEY_COLUMNS, required: true}", "{name: KEY_COLUMNS, required: true}\n    - {name: PROCESSING_VOLUME_SIZE, default: \"7\"}",
			[]string{"contract.env[1].default", "disagrees with the default 30"}},
		{"bad env name", valid, "{name: KEY_COLUMNS, required: true}", "{name: KEY_COLUMNS, required: true}\n    - {name: lower_case}",
			[]string{"contract.env[1].name", "not an environment variable name"}},
		{"job argument flag", valid, "  entry_point: dedup.py\n", "  entry_point: dedup.py\n  job_arguments: [{flag: job_type, source: key_columns}]\n",
			[]string{"contract.job_arguments[0].flag", "--name"}},
		{"essential with default", valid, "tier: essential, description", "tier: essential, default: [a], description",
			[]string{"fields[1].default", "essential field has no default"}},
		{"default not allowed", valid, "{name: processing_entry_point, default: dedup.py}", "{name: processing_entry_point, default: dedup.py}\n  - {name: mode, type: string, default: c, allowed: [a, b], description: m}",
			[]string{"fields[1].default", "not one of the allowed values"}},
		{"default below min", valid, "{name: processing_entry_point, default: dedup.py}", "{name: processing_entry_point, default: dedup.py}\n  - {name: processing_instance_count, default: 0}",
			[]string{"fields[1].default", "below the minimum 1"}},
		{"default wrong type", valid, "{name: processing_entry_point, default: dedup.py}", "{name: processing_entry_point, default: dedup.py}\n  - {name: n, type: int, default: abc, description: n}",
			[]string{"fields[1].default", "not an integer"}},
		{"default pattern", valid, "{name: processing_entry_point, default: dedup.py}", "{name: processing_entry_point, default: dedup.py}\n  - {name: processing_instance_type_small, default: m5.large}",
			[]string{"fields[1].default", "does not match the pattern"}},
		{"derived without template", valid, "{name: processing_entry_point, default: dedup.py}", "{name: processing_entry_point, default: dedup.py}\n  - {name: d, tier: derived, description: d}",
			[]string{"fields[1].derive", "needs a derive template"}},
		{"derive unknown field", valid, "{name: processing_entry_point, default: dedup.py}", "{name: processing_entry_point, default: dedup.py}\n  - {name: d, tier: derived, derive: \"{nope}-x\", description: d}",
			[]string{"fields[1].derive", "unknown field \"nope\""}},
		{"derive cycle", valid, "{name: processing_entry_point, default: dedup.py}", "{name: processing_entry_point, default: dedup.py}\n  - {name: d1, tier: derived, derive: \"{d2}\", description: d}\n  - {name: d2, tier: derived, derive: \"{d1}\", description: d}",
			[]string{"derive", "cycle"}},
		{"field declared twice", valid, "{name: processing_entry_point, default: dedup.py}", "{name: processing_entry_point, default: dedup.py}\n  - {name: processing_entry_point, default: dedup.py}",
			[]string{"fields[1].name", "declared twice"}},
		{"compute kind for verb", valid, "kind: sklearn", "kind: estimator", []string{"compute.kind", "not a compute kind for a Processing step"}},
		{"sdk class missing", valid, "kind: sklearn", "kind: framework", []string{"compute.sdk_class", "is required"}},
		{"compute field unknown", valid, "kind: sklearn", "kind: sklearn\n  instance_type_field: nope", []string{"compute.instance_type_field", "unknown config field"}},
		{"source_dir needs step_args", valid, "  entry_point: dedup.py\n", "  entry_point: dedup.py\n  source_dir: true\n",
			[]string{"contract.source_dir", "step_args"}},
		{"unknown field set", valid, "keywords: [dedup, duplicates]", "keywords: [dedup, duplicates]\nfield_sets: [nope]",
			[]string{"field_sets[0]", "unknown field set"}},
		{"variant unknown port", valid, "fields:", "variants:\n  validation:\n    inputs:\n      nope: {required: true}\nfields:",
			[]string{"variants.validation.inputs.nope", "no input"}},
		{"variant bad job type", valid, "fields:", "variants:\n  Validation:\n    inputs:\n      input_data: {required: true}\nfields:",
			[]string{"variants.Validation", "not a job type"}},
		{"duplicate input", valid, "outputs:", "  - {name: input_data, type: processing_output, path: /opt/ml/processing/input/other, description: d}\noutputs:",
			[]string{"inputs[1].name", "declared twice"}},
		{"nested input paths", valid, "outputs:", "  - {name: other, type: processing_output, path: /opt/ml/processing/input/data/sub, description: d}\noutputs:",
			[]string{"inputs[1].path", "overlaps"}},
		{"alias shadows output", valid, "    aliases: [input_data]\n    description: Deduplicated rows.\n", "    aliases: [other]\n    description: Deduplicated rows.\n  - {name: other, type: processing_output, path: /opt/ml/processing/output/other, description: d}\n",
			[]string{"outputs[0].aliases[0]", "shadow"}},
		{"missing description", valid, "description: Drop duplicate rows from a processed data set.\n", "", []string{"description: is required"}},
		{"lowercase step name", strings.ReplaceAll(valid, "DedupRows", "dedupRows"), "", "", []string{"step", "PascalCase"}},
		{"transform input path", `step: MyTransform
verb: Transform
kind: internal
description: d
compute: {kind: transformer}
inputs:
  - {name: model_name, type: custom_property, path: /opt/ml/x, required: true, description: d}
outputs:
  - {name: out, type: custom_property, property_path: properties.TransformOutput.S3OutputPath, description: d}
fields:
  - {name: transform_instance_type, type: string, default: ml.m5.large, description: d}
  - {name: transform_instance_count, type: int, default: 1, description: d}
`, "", "", []string{"inputs[0].path", "must be empty: a Transform step has no container"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := tc.base
			if tc.old != "" {
				if !strings.Contains(body, tc.old) {
					t.Fatalf("test setup: %q not in base", tc.old)
				}
				body = strings.Replace(body, tc.old, tc.new, 1)
			}
			file := "DedupRows.step.yaml"
			if strings.HasPrefix(body, "step: MyTraining") {
				file = "MyTraining.step.yaml"
			} else if strings.HasPrefix(body, "step: MyTransform") {
				file = "MyTransform.step.yaml"
			} else if strings.HasPrefix(body, "step: dedupRows") {
				file = "dedupRows.step.yaml"
			}
			_, err := ParseStepFile(file, []byte(body))
			if err == nil {
				t.Fatal("want an error")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, file) && !strings.Contains(msg, "problems:\n"+file) {
				t.Errorf("error does not start with the file name: %q", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

func TestFieldSetFiles(t *testing.T) {
	set := func(files map[string]string) (map[string]*FieldSet, LoadErrors) {
		fsys := fstest.MapFS{}
		for n, b := range files {
			fsys["fs/"+n] = &fstest.MapFile{Data: []byte(b)}
		}
		return loadFieldSets(fsys, "fs")
	}
	ok := map[string]string{
		"a.yaml": "name: a\ndescription: d\nfields:\n  - {name: x, type: int, default: 1, description: d}\n",
		"b.yaml": "name: b\nextends: a\ndescription: d\nfields:\n  - {name: x, default: 2}\n  - {name: y, description: d}\n",
	}
	sets, errs := set(ok)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	b := sets["b"]
	if len(b.Fields) != 2 || b.Fields[0].Default != 2 || b.Fields[0].Type != FieldInt || b.Fields[1].Type != FieldString {
		t.Errorf("b fields %+v", b.Fields)
	}
	if sets["a"].Fields[0].Default != 1 {
		t.Error("extending changed the parent")
	}
	bad := []struct {
		files map[string]string
		want  string
	}{
		{map[string]string{"a.yaml": "name: b\ndescription: d\nfields: []\n"}, "must equal the file stem"},
		{map[string]string{"a.yaml": "name: a\nextends: zz\ndescription: d\nfields: []\n"}, "unknown field set \"zz\""},
		{map[string]string{"a.yaml": "name: a\nextends: b\ndescription: d\nfields: []\n", "b.yaml": "name: b\nextends: a\ndescription: d\nfields: []\n"}, "cycle"},
		{map[string]string{"a.yaml": "name: a\ndescription: d\nfield: []\n"}, "unknown key \"field\""},
		{map[string]string{"a.yaml": "name: a\ndescription: d\nfields:\n  - {name: x, type: int, default: x, description: d}\n"}, "a.yaml: fields[0].default"},
	}
	for _, tc := range bad {
		_, errs := set(tc.files)
		if len(errs) == 0 || !strings.Contains(errs.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.files, errs, tc.want)
		}
	}
}

func TestCheckValue(t *testing.T) {
	c := mustDefault(t)
	s := mustStep(t, c, "TabularPreprocessing")
	tests := []struct {
		field string
		v     any
		ok    bool
	}{
		{"region", "NA", true},
		{"region", "US", false},
		{"processing_instance_count", 3, true},
		{"processing_instance_count", float64(3), true}, // JSON numbers
		{"processing_instance_count", 3.5, false},
		{"processing_instance_count", 11, false},
		{"train_ratio", 0.8, true},
		{"train_ratio", "0.8", false},
		{"output_format", "Parquet", true},
		{"bucket", "Bad_Bucket", false},
		{"enable_caching", true, true},
	}
	for _, tc := range tests {
		f, _ := s.Field(tc.field)
		if msg := f.CheckValue(tc.v); (msg == "") != tc.ok {
			t.Errorf("%s=%v: %q", tc.field, tc.v, msg)
		}
	}
}
