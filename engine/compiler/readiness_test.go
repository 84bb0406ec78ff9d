package compiler_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
)

// Every example compiles deployable: no blocker, no missing-code URI, no
// placeholder anywhere in the definition, and Validate agrees.
func TestExamplesDeployable(t *testing.T) {
	for _, dir := range exampleDirs(t) {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			checkDeployable(t, compileExample(t, dir))
			v, err := compiler.Validate(context.Background(), compiler.Input{DAG: compileDAGFile(t, name), ConfigFile: filepath.Join(dir, "config.json")})
			if err != nil {
				t.Fatal(err)
			}
			if !v.Deployable || !v.IsValid || len(v.Blockers) != 0 {
				t.Errorf("validate: deployable %v, valid %v, %s", v.Deployable, v.IsValid, v.Summary)
			}
		})
	}
}

// checkDeployable holds a compile to the readiness gate: no blocker (each
// one listed by node), no missing-code URI or placeholder in the
// definition, a default for every parameter.
func checkDeployable(t *testing.T, res *compiler.Result) {
	t.Helper()
	for _, b := range res.Blockers {
		t.Errorf("%s %s: %s", b.Kind, b.Node, b.Problem)
	}
	def, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(def), "/code/missing/") {
		t.Error("the definition names missing code")
	}
	if ph := definitionPlaceholders(t, def); len(ph) > 0 {
		t.Errorf("placeholders in the definition: %v", ph)
	}
	for _, p := range res.Definition.Parameters {
		if p.DefaultValue == nil {
			t.Errorf("parameter %s has no default", p.Name)
		}
	}
}

// definitionPlaceholders lists the strings of a definition that are
// placeholders (config.IsPlaceholder).
func definitionPlaceholders(t *testing.T, def []byte) []string {
	t.Helper()
	var doc any
	if err := json.Unmarshal(def, &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if config.IsPlaceholder(x) {
				out = append(out, x)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(doc)
	return out
}

// editedExample copies the simple-training example (DAG, config, scripts)
// to a temp dir, lets mod edit the config's shared and specific sections,
// and returns the DAG and the config file.
func editedExample(t *testing.T, mod func(shared, specific map[string]any)) compiler.Input {
	t.Helper()
	path := filepath.Join(copyExample(t, "simple-training"), "config.json")
	editConfig(t, path, path, func(cfg map[string]any) {
		conf := cfg["configuration"].(map[string]any)
		if mod != nil {
			mod(conf["shared"].(map[string]any), conf["specific"].(map[string]any))
		}
	})
	return compiler.Input{DAG: compileDAGFile(t, "simple-training"), ConfigFile: path}
}

// node returns the specific section of one config.
func node(spec map[string]any, key string) map[string]any { return spec[key].(map[string]any) }

// findBlocker returns the first blocker of a kind whose field (or path)
// is field.
func findBlocker(bs []compiler.Blocker, kind, field string) (compiler.Blocker, bool) {
	for _, b := range bs {
		if b.Kind == kind && (b.Field == field || b.Path == field) {
			return b, true
		}
	}
	return compiler.Blocker{}, false
}

// A config that is valid but would not run is not deployable, with a
// blocker naming the field, in both Compile and Validate.
func TestReadinessBlockers(t *testing.T) {
	cases := []struct {
		name  string
		mod   func(shared, specific map[string]any)
		kind  string
		field string
		check func(t *testing.T, b compiler.Blocker)
	}{
		{"shared placeholder", func(sh, _ map[string]any) { sh["author"] = "replace-me" }, compiler.BlockerPlaceholder, "author",
			func(t *testing.T, b compiler.Blocker) {
				if b.Path != "shared.author" || b.Node != "" || b.Tool == "" || b.Fix == "" {
					t.Errorf("a value every config shares is one blocker at shared.<field>: %+v", b)
				}
			}},
		{"TODO in one config", func(_, sp map[string]any) { node(sp, "TabularPreprocessing_training")["label_name"] = "TODO" }, compiler.BlockerPlaceholder, "label_name",
			func(t *testing.T, b compiler.Blocker) {
				if b.Node != "TabularPreprocessing_training" || b.Path != "TabularPreprocessing_training.label_name" {
					t.Errorf("%+v", b)
				}
			}},
		{"documentation slot", func(_, sp map[string]any) {
			node(sp, "DummyDataLoading_training")["data_source"] = "s3://<bucket>/raw/"
		}, compiler.BlockerPlaceholder, "data_source", nil},
		{"nested placeholder", func(_, sp map[string]any) {
			node(sp, "XGBoostTraining")["tab_field_list"] = []any{"f1", "REPLACE_ME"}
		}, compiler.BlockerPlaceholder, "tab_field_list", func(t *testing.T, b compiler.Blocker) {
			if b.Path != "XGBoostTraining.tab_field_list[1]" {
				t.Errorf("path %q", b.Path)
			}
		}},
		{"blank essential", func(sh, _ map[string]any) { sh["project_root_folder"] = " " }, compiler.BlockerPlaceholder, "project_root_folder",
			func(t *testing.T, b compiler.Blocker) {
				if !strings.Contains(b.Problem, "blank") || b.Path != "shared.project_root_folder" {
					t.Errorf("%+v", b)
				}
			}},
		{"misspelt key", func(_, sp map[string]any) { node(sp, "XGBoostTraining")["lable_name"] = "label" }, compiler.BlockerUnknownKey, "lable_name",
			func(t *testing.T, b compiler.Blocker) {
				if !strings.HasSuffix(b.Suggestion, "label_name") || !strings.Contains(b.Problem, "did you mean") || b.Node != "XGBoostTraining" {
					t.Errorf("want label_name suggested: %+v", b)
				}
			}},
		{"misspelt shared key", func(sh, _ map[string]any) { sh["servce_name"] = "Demo" }, compiler.BlockerUnknownKey, "servce_name",
			func(t *testing.T, b compiler.Blocker) {
				if b.Suggestion != "service_name" || b.Path != "shared.servce_name" {
					t.Errorf("%+v", b)
				}
			}},
		{"parameter without default", func(sh, _ map[string]any) {
			sh["subnets"] = []any{"{{Parameters.VPC_SUBNET}}"}
			sh["security_group_ids"] = []any{"sg-0123"}
		}, compiler.BlockerUnsetParameter, "VPC_SUBNET", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := editedExample(t, c.mod)
			res, err := compiler.Compile(context.Background(), in)
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			b, ok := findBlocker(res.Blockers, c.kind, c.field)
			if res.Deployable() || !ok {
				t.Fatalf("want a %s blocker for %s, got %+v", c.kind, c.field, res.Blockers)
			}
			if b.Problem == "" || b.Fix == "" || b.Tool == "" {
				t.Errorf("a blocker says what is wrong, what to do and which tool helps: %+v", b)
			}
			if c.check != nil {
				c.check(t, b)
			}
			v, err := compiler.Validate(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := findBlocker(v.Blockers, c.kind, c.field); v.Deployable || !ok || !v.IsValid {
				t.Errorf("validate: deployable %v valid %v blockers %+v", v.Deployable, v.IsValid, v.Blockers)
			}
			if !strings.Contains(v.Summary, c.field) {
				t.Errorf("the summary names the field: %s", v.Summary)
			}
		})
	}
}

// Missing code (in the project and in the catalog) is a blocker per
// artefact; so is a config error, an unbound input and an image that does
// not exist, in Validate.
func TestReadinessErrorsAreBlockers(t *testing.T) {
	in := editedExample(t, func(_, sp map[string]any) {
		node(sp, "XGBoostTraining")["training_entry_point"] = "my_training.py"
		node(sp, "TabularPreprocessing_training")["processing_entry_point"] = "my_preprocessing.py"
	})
	if err := os.RemoveAll(filepath.Join(filepath.Dir(in.ConfigFile), "scripts")); err != nil {
		t.Fatal(err)
	}
	res, err := compiler.Compile(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []catalog.NodeName
	for _, b := range res.Blockers {
		if b.Kind == compiler.BlockerMissingCode {
			nodes = append(nodes, b.Node)
			if !strings.Contains(b.Problem, "/code/missing/") {
				t.Errorf("%+v", b)
			}
		}
	}
	// DummyDataLoading's script is the catalog's: not missing.
	if !slices.Equal(nodes, []catalog.NodeName{"TabularPreprocessing_training", "XGBoostTraining"}) {
		t.Errorf("want a missing_code blocker for each step whose code exists nowhere, got %v: %+v", nodes, res.Blockers)
	}

	// the XGBoost training script's label is an essential field
	v, err := compiler.Validate(context.Background(), editedExample(t, func(_, sp map[string]any) {
		delete(node(sp, "XGBoostTraining"), "label_name")
	}))
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := findBlocker(v.Blockers, compiler.BlockerMissingField, "label_name"); !ok || v.Deployable || b.Node != "XGBoostTraining" || !strings.Contains(v.Summary, "label_name") {
		t.Errorf("missing label: deployable %v, %s, %+v", v.Deployable, v.Summary, v.Blockers)
	}
	v, err = compiler.Validate(context.Background(), editedExample(t, func(_, sp map[string]any) {
		node(sp, "XGBoostTraining")["framework_version"] = "0.1-9"
		node(sp, "TabularPreprocessing_training")["train_ratio"] = 7
	}))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := findBlocker(v.Blockers, compiler.BlockerInvalidValue, "train_ratio"); !ok {
		t.Errorf("invalid value: %+v", v.Blockers)
	}
	v, err = compiler.Validate(context.Background(), editedExample(t, func(_, sp map[string]any) {
		node(sp, "XGBoostTraining")["framework_version"] = "0.1-9"
	}))
	if err != nil {
		t.Fatal(err)
	}
	b, ok := findBlocker(v.Blockers, compiler.BlockerNoImage, "framework_version")
	if !ok || b.Node != "XGBoostTraining" || !strings.Contains(b.Fix, "1.7-1") {
		t.Errorf("no image: %+v", v.Blockers)
	}

	in = editedExample(t, nil)
	in.DAG = newDAG([]string{"XGBoostTraining"}, nil)
	v, err = compiler.Validate(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := findBlocker(v.Blockers, compiler.BlockerUnboundInput, "input_path"); !ok || b.Node != "XGBoostTraining" || b.Tool != "validate.deps_resolve" {
		t.Errorf("unbound input: %+v", v.Blockers)
	}
}

// "{{Execution.<name>}}" compiles to the execution variable, alone or
// inside text; an unknown name, or one where the compiler needs the
// literal, is refused naming the field.
func TestExecutionVariables(t *testing.T) {
	res, err := compiler.Compile(context.Background(), editedExample(t, func(_, sp map[string]any) {
		x := node(sp, "XGBoostTraining")
		x["id_name"] = "{{Execution.PipelineExecutionId}}"
		x["env"] = map[string]any{"RUN": "runs/{{ Execution.PipelineName }}/{{Execution.StartDateTime}}"}
	}))
	if err != nil {
		t.Fatal(err)
	}
	def, _ := res.JSON()
	steps := stepsByName(t, def)
	args := steps["XGBoostTraining"]["Arguments"]
	eq(t, "hyperparameter", at(t, args, "HyperParameters", "id_name"), compiler.ExecutionVar("PipelineExecutionId"))
	eq(t, "env", at(t, args, "Environment", "RUN"), compiler.JoinOn("", "runs/", compiler.ExecutionVar("PipelineName"), "/", compiler.ExecutionVar("StartDateTime")))
	if strings.Contains(string(def), "{{") || !res.Deployable() {
		t.Errorf("no reference is left as text; blockers %+v", res.Blockers)
	}
	checkDefinition(t, "execution-variables", def)

	for _, c := range []struct {
		name, field string
		mod         func(x map[string]any)
	}{
		{"unknown variable", "env.RUN", func(x map[string]any) { x["env"] = map[string]any{"RUN": "{{Execution.RunId}}"} }},
		{"needs a literal", "training_entry_point", func(x map[string]any) { x["training_entry_point"] = "{{Execution.PipelineName}}.py" }},
		{"inside a list", "eval_metric[0]", func(x map[string]any) {
			x["eval_metric"] = []any{"auc-{{Execution.PipelineExecutionId}}"}
		}},
	} {
		_, err := compiler.Compile(context.Background(), editedExample(t, func(_, sp map[string]any) { c.mod(node(sp, "XGBoostTraining")) }))
		if err == nil || !strings.Contains(err.Error(), c.field) || !strings.Contains(err.Error(), "Execution") {
			t.Errorf("%s: want an error naming %s, got %v", c.name, c.field, err)
		}
	}
}

// pipeline_parameters in configuration.shared reaches every config; a KMS
// key in the config reaches the volumes and outputs through the KMS
// parameter, whose default it is; NVMe instance storage and skip_volume_kms
// leave the volume key out.
func TestSharedParametersAndKMS(t *testing.T) {
	res, err := compiler.Compile(context.Background(), editedExample(t, func(sh, sp map[string]any) {
		sh["pipeline_parameters"] = []any{map[string]any{"name": "TrainType", "type": "String", "default_value": "ml.m5.xlarge"}}
		sh["kms_key_id"] = "alias/pipeline-key"
		node(sp, "XGBoostTraining")["training_instance_type"] = "{{Parameters.TrainType}}"
		node(sp, "TabularPreprocessing_training")["processing_instance_type_small"] = "ml.r5d.2xlarge"
		node(sp, "DummyDataLoading_training")["skip_volume_kms"] = true
	}))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Deployable() {
		t.Errorf("blockers %+v", res.Blockers)
	}
	params := map[string]any{}
	for _, p := range res.Definition.Parameters {
		params[p.Name] = p.DefaultValue
	}
	if params["TrainType"] != "ml.m5.xlarge" || params[compiler.ParamKMSKey] != "alias/pipeline-key" || len(params) != 3 {
		t.Errorf("parameters %v", params)
	}
	def, _ := res.JSON()
	checkDefinition(t, "kms", def)
	steps := stepsByName(t, def)
	key := compiler.Param(compiler.ParamKMSKey)
	tr := steps["XGBoostTraining"]["Arguments"]
	eq(t, "training instance type", at(t, tr, "ResourceConfig", "InstanceType"), compiler.Param("TrainType"))
	eq(t, "training volume key", at(t, tr, "ResourceConfig", "VolumeKmsKeyId"), key)
	eq(t, "training output key", at(t, tr, "OutputDataConfig", "KmsKeyId"), key)
	tp := steps["TabularPreprocessing-Training"]["Arguments"]
	eq(t, "processing output key", at(t, tp, "ProcessingOutputConfig", "KmsKeyId"), key)
	if v := at(t, tp, "ProcessingResources", "ClusterConfig").(map[string]any)["VolumeKmsKeyId"]; v != nil {
		t.Errorf("ml.r5d has NVMe instance storage: no volume key, got %v", v)
	}
	dl := steps["DummyDataLoading-Training"]["Arguments"]
	if v := at(t, dl, "ProcessingResources", "ClusterConfig").(map[string]any)["VolumeKmsKeyId"]; v != nil {
		t.Errorf("skip_volume_kms: no volume key, got %v", v)
	}
	eq(t, "skip_volume_kms keeps the output key", at(t, dl, "ProcessingOutputConfig", "KmsKeyId"), key)

	_, err = compiler.Compile(context.Background(), editedExample(t, func(sh, sp map[string]any) {
		sh["kms_key_id"] = "alias/a"
		node(sp, "XGBoostTraining")["kms_key_id"] = "alias/b"
	}))
	var se *compiler.StepBuildError
	if !errors.As(err, &se) || se.Field != "kms_key_id" {
		t.Errorf("two keys: %v", err)
	}
}

// The default pipeline name is the same for every DAG compiled with the
// same base values: the compile says so; an explicit name does not warn.
func TestDefaultPipelineNameWarns(t *testing.T) {
	in := editedExample(t, nil)
	res, err := compiler.Compile(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "pipeline name "+res.PipelineName+" is the default") {
		t.Errorf("warnings %q", res.Warnings)
	}
	in.PipelineName = "simple-training-demo"
	if res, err = compiler.Compile(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(res.Warnings, "\n"), "is the default") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

func TestBlockerSummary(t *testing.T) {
	bs := []compiler.Blocker{
		{Kind: compiler.BlockerPlaceholder, Node: "A", Path: "A.x", Problem: "x is a placeholder", Fix: "set x"},
		{Kind: compiler.BlockerUnknownKey, Path: "shared.y", Problem: "y is unknown"},
		{Kind: compiler.BlockerUnsetParameter, Field: "P", Problem: "P has no default"},
		{Kind: compiler.BlockerMissingCode, Node: "B", Problem: "no script"},
	}
	got := compiler.BlockerSummary(bs)
	want := "4 blocker(s): A.x: x is a placeholder; shared.y: y is unknown; P: P has no default; and 1 more"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if s := bs[0].String(); s != "A.x: x is a placeholder (fix: set x)" {
		t.Errorf("String %q", s)
	}
	if compiler.BlockerSummary(nil) != "no blockers" {
		t.Error("empty")
	}
}

// A model created from the packaged archive (CreateModel fed by Package)
// gets the archive object as its ModelDataUrl and the framework model
// environment with the code inside the archive; one created straight from
// the training job's artefacts (already the model.tar.gz object) packs its
// inference code as the submit directory.
func TestModelFromAPackagedArchive(t *testing.T) {
	nodes := []string{"DummyDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining", "Package", "XGBoostModel"}
	edges := [][2]string{{"DummyDataLoading_training", "TabularPreprocessing_training"}, {"TabularPreprocessing_training", "XGBoostTraining"},
		{"XGBoostTraining", "Package"}, {"Package", "XGBoostModel"}}
	_, steps := mustCompileCase(t, nodes, edges, nil)
	pc := at(t, steps["XGBoostModel"], "Arguments", "PrimaryContainer")
	eq(t, "ModelDataUrl", at(t, pc, "ModelDataUrl"), compiler.JoinOn("/", procOut("Package", "packaged_model"), "model.tar.gz"))
	eq(t, "Environment", at(t, pc, "Environment"), map[string]any{"SAGEMAKER_PROGRAM": "inference.py", "SAGEMAKER_SUBMIT_DIRECTORY": "/opt/ml/model/code",
		"SAGEMAKER_CONTAINER_LOG_LEVEL": "20", "SAGEMAKER_REGION": "us-east-1"})

	_, steps = mustCompileCase(t, []string{"DummyDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining", "XGBoostModel"},
		[][2]string{{"DummyDataLoading_training", "TabularPreprocessing_training"}, {"TabularPreprocessing_training", "XGBoostTraining"}, {"XGBoostTraining", "XGBoostModel"}}, nil)
	pc = at(t, steps["XGBoostModel"], "Arguments", "PrimaryContainer")
	eq(t, "ModelDataUrl", at(t, pc, "ModelDataUrl"), compiler.Get{Get: "Steps.XGBoostTraining.ModelArtifacts.S3ModelArtifacts"})
	env := at(t, pc, "Environment").(map[string]any)
	if sub, _ := env["SAGEMAKER_SUBMIT_DIRECTORY"].(string); !strings.HasSuffix(sub, "/sourcedir.tar.gz") || env["SAGEMAKER_PROGRAM"] != "inference.py" {
		t.Errorf("environment %v", env)
	}
}

// A project script that is still the scaffolder's untouched skeleton
// blocks deployment (it would run and do none of the step's work); once its
// TODO hook is gone it does not.
func TestSkeletonCodeBlocks(t *testing.T) {
	in := editedExample(t, nil)
	script := filepath.Join(filepath.Dir(in.ConfigFile), "scripts", "tabular_preprocessing.py")
	if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
		t.Fatal(err)
	}
	skeleton := "\"\"\"TabularPreprocessing step script: " + catalog.SkeletonHeader + ".\"\"\"\n\n\ndef transform(df):\n    \"\"\"\n    " + catalog.SkeletonTODO + "with the real preprocessing.\n    \"\"\"\n    return df\n"
	if err := os.WriteFile(script, []byte(skeleton), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := compiler.Compile(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	b, ok := findBlocker(res.Blockers, compiler.BlockerSkeletonCode, "")
	if !ok || b.Node != "TabularPreprocessing_training" || b.Path != script || res.Deployable() {
		t.Fatalf("want a skeleton_code blocker for %s, got %+v", script, res.Blockers)
	}
	written := strings.Replace(skeleton, catalog.SkeletonTODO+"with the real preprocessing.", "Drops empty rows.", 1)
	if err := os.WriteFile(script, []byte(written), 0o644); err != nil {
		t.Fatal(err)
	}
	if res, err = compiler.Compile(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	if _, ok := findBlocker(res.Blockers, compiler.BlockerSkeletonCode, ""); ok {
		t.Errorf("a written script is no skeleton: %+v", res.Blockers)
	}
}
