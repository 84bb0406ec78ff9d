package compiler_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
)

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// codeBase is the code prefix of the test configs (baseValues).
const codeBase = "s3://example-bucket/MODS/alice-Demo-xgboost-NA_1.0.0/code/"

// TestEmbeddedScriptUploaded: a step whose script the project lacks gets
// the catalog's, uploaded under its content hash with its bytes; a project
// file of the same name wins; an identical copy shares the URI.
func TestEmbeddedScriptUploaded(t *testing.T) {
	embedded, err := fs.ReadFile(catalog.Code(), "dummy_data_generation.py")
	if err != nil {
		t.Fatal(err)
	}
	nodes := []string{"DummyDataGeneration_training"}
	base := t.TempDir()
	res, steps := mustCompileCase(t, nodes, nil, func(in *compiler.Input) { in.BaseDir = base })
	if len(res.Manifest) != 1 {
		t.Fatalf("manifest %+v", res.Manifest)
	}
	a := res.Manifest[0]
	wantURI := codeBase + sha(embedded)[:16] + "/dummy_data_generation.py"
	if !a.Embedded || a.Missing || a.Kind != compiler.KindFile || a.S3URI != wantURI || a.SHA256 != sha(embedded) ||
		a.Size != int64(len(embedded)) || a.LocalPath != "embedded:scripts/dummy_data_generation.py" {
		t.Fatalf("artifact %+v, want uri %s", a, wantURI)
	}
	code := at(t, steps["DummyDataGeneration-Training"], "Arguments", "ProcessingInputs", 0, "S3Input", "S3Uri")
	eq(t, "code input", code, wantURI)
	eq(t, "entry point", at(t, steps["DummyDataGeneration-Training"], "Arguments", "AppSpecification", "ContainerEntrypoint", 1),
		"/opt/ml/processing/input/code/dummy_data_generation.py")
	if b, err := a.ReadFile(nil, ""); err != nil || string(b) != string(embedded) {
		t.Fatalf("ReadFile: %v", err)
	}
	items, err := res.Manifest.Materialize(nil, t.TempDir())
	if err != nil || len(items) != 1 || items[0].S3URI != wantURI || items[0].SHA256 != sha(embedded) {
		t.Fatalf("materialized %+v %v", items, err)
	}
	if b, err := os.ReadFile(items[0].LocalPath); err != nil || string(b) != string(embedded) {
		t.Fatalf("materialized bytes differ: %v", err)
	}

	// An identical project copy: the project's file, the same URI.
	if err := os.WriteFile(filepath.Join(base, "dummy_data_generation.py"), embedded, 0o644); err != nil {
		t.Fatal(err)
	}
	res, _ = mustCompileCase(t, nodes, nil, func(in *compiler.Input) { in.BaseDir = base })
	if a := res.Manifest[0]; a.Embedded || a.LocalPath != filepath.Join(base, "dummy_data_generation.py") || a.S3URI != wantURI {
		t.Fatalf("identical project copy: %+v", a)
	}
	// A different project file wins.
	own := []byte("print('my own generator')\n")
	if err := os.WriteFile(filepath.Join(base, "dummy_data_generation.py"), own, 0o644); err != nil {
		t.Fatal(err)
	}
	res, _ = mustCompileCase(t, nodes, nil, func(in *compiler.Input) { in.BaseDir = base })
	if a := res.Manifest[0]; a.Embedded || a.S3URI != codeBase+sha(own)[:16]+"/dummy_data_generation.py" {
		t.Fatalf("project file: %+v", a)
	}
	// A script neither the project nor the catalog has stays missing.
	res, _ = mustCompileCase(t, nodes, nil, func(in *compiler.Input) {
		in.BaseDir = t.TempDir()
		in.Configs = configSetPer(t, nodes, map[string]map[string]any{nodes[0]: {"processing_entry_point": "nowhere.py"}})
	})
	if a := res.Manifest[0]; !a.Missing || a.Embedded || !strings.Contains(a.S3URI, "/code/missing/") {
		t.Fatalf("missing script: %+v", a)
	}
}

// workspaceCatalog writes step files and scripts/ files into a workspace
// directory and loads it.
func workspaceCatalog(t *testing.T, steps map[string]string, scripts map[string]string) (*catalog.Catalog, *config.Schema) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range steps {
		if err := os.WriteFile(filepath.Join(dir, name+".step.yaml"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for rel, body := range scripts {
		p := filepath.Join(dir, catalog.CodeDir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cat, err := catalog.Load(nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := config.FromCatalog(cat)
	if err != nil {
		t.Fatal(err)
	}
	return cat, schema
}

func tarContents(t *testing.T, path string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, e := range tarEntries(t, path) {
		out[e[0]] = e[1]
	}
	return out
}

const trainerStep = `step: Trainer
verb: Training
kind: internal
description: Train on generated data with the embedded generator as its script (a stand-in).
compute: {kind: estimator, sdk_class: XGBoost}
contract: {entry_point: dummy_data_generation.py}
inputs:
  - {name: input_path, type: training_data, path: /opt/ml/input/data, required: true, channels: [train], compatible_sources: [DummyDataGeneration], description: Data.}
outputs:
  - {name: model_output, type: model_artifacts, path: /opt/ml/model, property_path: properties.ModelArtifacts.S3ModelArtifacts, description: Model.}
fields:
  - {name: training_entry_point, tier: system, default: dummy_data_generation.py}
  - {name: framework_version, default: "1.7-1"}
`

const servingStep = `step: Server
verb: CreateModel
kind: internal
description: Serve a LightGBM model.
framework: lightgbm
compute: {kind: model, sdk_class: PyTorchModel, framework: pytorch}
contract: {entry_point: inference.py}
inputs:
  - {name: model_data, type: model_artifacts, required: true, compatible_sources: [Trainer], description: Model.}
outputs:
  - {name: model_name, type: custom_property, property_path: properties.ModelName, description: Name.}
fields:
  - {name: framework_version, default: "2.1.0"}
`

const packerStep = `step: Packer
verb: Processing
kind: internal
description: Package the model with serving code.
compute: {kind: sklearn}
contract: {entry_point: packer.py}
inputs:
  - {name: model_input, type: model_artifacts, path: /opt/ml/processing/input/model, required: true, compatible_sources: [Trainer], description: Model.}
  - {name: code_input, type: custom_property, path: /opt/ml/processing/input/script, config_source: inference_scripts_dir, description: Serving code.}
outputs:
  - {name: packaged_model, type: model_artifacts, path: /opt/ml/processing/output, description: Archive.}
fields:
  - {name: processing_entry_point, default: packer.py}
  - {name: inference_scripts_dir, type: string, tier: system, default: inference, description: Serving code directory.}
`

// TestCatalogCodeKinds: the catalog's code reaches every kind of code
// input: a training sourcedir.tar.gz packed from the embedded script, a
// model's serving directory (inference/<framework>) as its submit
// directory, and a config-sourced directory resolved to
// inference/<model_class>.
func TestCatalogCodeKinds(t *testing.T) {
	cat, schema := workspaceCatalog(t, map[string]string{"Trainer": trainerStep, "Server": servingStep, "Packer": packerStep}, map[string]string{
		"packer.py":                       "print('pack')\n",
		"inference/lightgbm/inference.py": "def model_fn(d):\n    return d\n",
		"inference/lightgbm/helper.py":    "X = 1\n",
		"inference/xgboost/inference.py":  "def model_fn(d):\n    return 'xgb'\n",
	})
	var cs []*config.Config
	for _, k := range []struct{ class, key string }{{"DummyDataGenerationConfig", "DummyDataGeneration_training"}, {"TrainerConfig", "Trainer"}, {"ServerConfig", "Server"}, {"PackerConfig", "Packer"}} {
		vals := baseValues()
		if k.class == "DummyDataGenerationConfig" {
			vals["job_type"] = "training"
		}
		c, err := schema.NewConfig(k.class, catalog.ConfigKey(k.key), vals)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	set, err := config.NewSet(cs...)
	if err != nil {
		t.Fatal(err)
	}
	nodes := []string{"DummyDataGeneration_training", "Trainer", "Server", "Packer"}
	edges := [][2]string{{"DummyDataGeneration_training", "Trainer"}, {"Trainer", "Server"}, {"Trainer", "Packer"}}
	res, err := compiler.Compile(context.Background(), compiler.Input{DAG: newDAG(nodes, edges), Configs: set, Catalog: cat, Schema: schema, BaseDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	def, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(def), "/code/missing/") {
		t.Fatalf("missing code in %s", def)
	}
	steps := stepsByName(t, def)
	byStep := map[string]compiler.Artifact{}
	for _, a := range res.Manifest {
		byStep[string(a.Steps[0])+"|"+a.Kind] = a
	}
	items, err := res.Manifest.Materialize(nil, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	local := map[string]string{}
	for _, it := range items {
		local[it.S3URI] = it.LocalPath
	}

	tr := byStep["Trainer|"+compiler.KindSourceTarball]
	gen, _ := fs.ReadFile(catalog.Code(), "dummy_data_generation.py")
	if !tr.Embedded || tr.SHA256 != sha(gen) || !reflect.DeepEqual(tr.Files, []string{"dummy_data_generation.py"}) {
		t.Fatalf("training tarball %+v", tr)
	}
	hp := at(t, steps["Trainer"], "Arguments", "HyperParameters").(map[string]any)
	eq(t, "program", hp["sagemaker_program"], `"dummy_data_generation.py"`)
	eq(t, "submit dir", hp["sagemaker_submit_directory"], `"`+tr.S3URI+`"`)
	if got := tarContents(t, local[tr.S3URI]); !reflect.DeepEqual(got, map[string]string{"dummy_data_generation.py": string(gen)}) {
		t.Errorf("training tarball holds %v", mapKeys(got))
	}
	again, err := res.Manifest.Materialize(nil, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for i := range items {
		if again[i].SHA256 != items[i].SHA256 {
			t.Errorf("%s is not reproducible", items[i].S3URI)
		}
	}

	sv := byStep["Server|"+compiler.KindSourceTarball]
	if sv.Embedded || !reflect.DeepEqual(sv.Files, []string{"helper.py", "inference.py"}) {
		t.Fatalf("serving tarball %+v", sv)
	}
	// The PyTorch serving image reads code only from the model archive: the
	// serving tarball goes to the repack job, and the model serves its
	// archive from /opt/ml/model/code.
	env := at(t, steps["Server"], "Arguments", "PrimaryContainer", "Environment").(map[string]any)
	eq(t, "SAGEMAKER_PROGRAM", env["SAGEMAKER_PROGRAM"], "inference.py")
	eq(t, "SAGEMAKER_SUBMIT_DIRECTORY", env["SAGEMAKER_SUBMIT_DIRECTORY"], "/opt/ml/model/code")
	eq(t, "ModelDataUrl", at(t, steps["Server"], "Arguments", "PrimaryContainer", "ModelDataUrl"), map[string]any{"Get": "Steps.Server-RepackModel.ModelArtifacts.S3ModelArtifacts"})
	chans := at(t, steps["Server-RepackModel"], "Arguments", "InputDataConfig").([]any)
	eq(t, "repack code channel", at(t, chans[1], "DataSource", "S3DataSource", "S3Uri"), sv.S3URI)
	eq(t, "repack model channel", at(t, chans[0], "DataSource", "S3DataSource", "S3Uri"), map[string]any{"Get": "Steps.Trainer.ModelArtifacts.S3ModelArtifacts"})
	if got := tarContents(t, local[sv.S3URI]); got["inference.py"] != "def model_fn(d):\n    return d\n" || got["helper.py"] != "X = 1\n" {
		t.Errorf("serving tarball holds %v", got)
	}

	pk := byStep["Packer|"+compiler.KindDirectory]
	if !strings.HasSuffix(pk.LocalPath, filepath.FromSlash("scripts/inference/xgboost")) || !reflect.DeepEqual(pk.Files, []string{"inference.py"}) || !strings.HasSuffix(pk.S3URI, "/") {
		t.Fatalf("packer code %+v", pk)
	}
}

func mapKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestExamplesNoMissingCode: every example compiles with all its code found.
func TestExamplesNoMissingCode(t *testing.T) {
	for _, dir := range exampleDirs(t) {
		res := compileExample(t, dir)
		b, err := res.JSON()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "/code/missing/") || len(res.Manifest.MissingFiles()) > 0 {
			t.Errorf("%s: missing code %v", filepath.Base(dir), res.Manifest.MissingFiles())
		}
	}
}

// TestEmbeddedScriptWithHelpers: an embedded script that imports the
// shared helpers (catalog.Bundle) is packed with steplib/ into one
// sourcedir.tar.gz, the job's code input, which the catalog's launcher
// (the input entrypoint) unpacks and runs, as the SDK's FrameworkProcessor
// does: never a loose S3 prefix whose stray objects the job would see.
func TestEmbeddedScriptWithHelpers(t *testing.T) {
	nodes := []string{"DummyDataGeneration_training", "TabularPreprocessing_training"}
	res, steps := mustCompileCase(t, nodes, [][2]string{{nodes[0], nodes[1]}}, func(in *compiler.Input) { in.BaseDir = t.TempDir() })
	var a, launcher compiler.Artifact
	for _, x := range res.Manifest {
		if x.Steps[0] == "TabularPreprocessing-Training" && x.Kind == compiler.KindSourceTarball {
			a = x
		}
		if x.Steps[0] == "TabularPreprocessing-Training" && x.Kind == compiler.KindFile {
			launcher = x
		}
	}
	if !a.Embedded || !strings.HasSuffix(a.S3URI, "/sourcedir.tar.gz") || a.Files[len(a.Files)-1] != "tabular_preprocessing.py" ||
		!strings.HasPrefix(strings.Join(a.Files, ","), "steplib/__init__.py,") {
		t.Fatalf("code artifact %+v", a)
	}
	if !launcher.Embedded || !strings.HasSuffix(launcher.S3URI, "/runproc.py") {
		t.Fatalf("launcher artifact %+v", launcher)
	}
	st := steps["TabularPreprocessing-Training"]
	eq(t, "code input", at(t, st, "Arguments", "ProcessingInputs", "InputName=code", "S3Input", "S3Uri"), a.S3URI)
	eq(t, "launcher input", at(t, st, "Arguments", "ProcessingInputs", "InputName=entrypoint", "S3Input", "S3Uri"), launcher.S3URI)
	eq(t, "launcher path", at(t, st, "Arguments", "ProcessingInputs", "InputName=entrypoint", "S3Input", "LocalPath"), "/opt/ml/processing/input/entrypoint")
	eq(t, "entry point", at(t, st, "Arguments", "AppSpecification", "ContainerEntrypoint"),
		[]string{"python3", "/opt/ml/processing/input/entrypoint/runproc.py", "tabular_preprocessing.py"})
	items, err := res.Manifest.Materialize(nil, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	local := map[string]string{}
	for _, it := range items {
		local[it.S3URI] = it.LocalPath
	}
	got := tarContents(t, local[a.S3URI])
	if len(got) != len(a.Files) || got["tabular_preprocessing.py"] == "" || got["steplib/__init__.py"] == "" {
		t.Errorf("the archive holds %v, want %v", mapKeys(got), a.Files)
	}
}

// A directory a config input uploads (Package's serving code) is a folder
// of its own below its content's hash, so the prefix the job mounts never
// holds another artifact packed from the same files (a model's
// sourcedir.tar.gz of that serving code).
func TestDirectoryPrefixHoldsOnlyItsFiles(t *testing.T) {
	res := compileExample(t, filepath.Join(examplesDir, "xgboost-gated"))
	for _, d := range res.Manifest {
		if d.Kind != compiler.KindDirectory {
			continue
		}
		if !strings.HasSuffix(d.S3URI, "/") {
			t.Errorf("directory %s: URI %s is not a prefix", d.LocalPath, d.S3URI)
		}
		for _, o := range res.Manifest {
			if o.S3URI != d.S3URI && strings.HasPrefix(o.S3URI, d.S3URI) {
				t.Errorf("directory prefix %s holds another artifact, %s", d.S3URI, o.S3URI)
			}
		}
	}
}
