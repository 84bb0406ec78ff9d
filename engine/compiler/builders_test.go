package compiler_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/internal/testfs"
)

func init() {
	stepConfigs["XGBoostTuning"] = struct {
		class string
		vals  map[string]any
	}{"XGBoostTuningConfig", xgbHyperparameters(map[string]any{
		"search_space": map[string]any{
			"continuous":  []any{map[string]any{"name": "eta", "min": 0.01, "max": 0.3}},
			"integer":     []any{map[string]any{"name": "max_depth", "min": 3, "max": 10, "scaling": "Linear"}},
			"categorical": []any{map[string]any{"name": "booster", "values": []any{"gbtree", "dart"}}},
		},
		"num_round": 100, "eta": 0.1,
		"max_jobs": 10, "max_parallel_jobs": 2,
	})}
}

// tuningNodes and tuningEdges tune a model on the preprocessed data and
// make a model of the best training job.
var tuningNodes = []string{"DummyDataLoading_training", "TabularPreprocessing_training", "XGBoostTuning", "XGBoostModel"}
var tuningEdges = [][2]string{{"DummyDataLoading_training", "TabularPreprocessing_training"}, {"TabularPreprocessing_training", "XGBoostTuning"}, {"XGBoostTuning", "XGBoostModel"}}

// Tuning: a CreateHyperParameterTuningJob step whose best model feeds a
// model step through Join(output path, best job, output/model.tar.gz).
func TestTuning(t *testing.T) {
	_, steps := mustCompileCase(t, tuningNodes, tuningEdges, nil)
	tu := steps["XGBoostTuning"]
	if tu["Type"] != "Tuning" {
		t.Fatalf("type %v", tu["Type"])
	}
	cfg := at(t, tu, "Arguments", "HyperParameterTuningJobConfig")
	eq(t, "strategy", at(t, cfg, "Strategy"), "Bayesian")
	eq(t, "objective", at(t, cfg, "HyperParameterTuningJobObjective"), map[string]string{"Type": "Maximize", "MetricName": "validation:auc"})
	eq(t, "limits", at(t, cfg, "ResourceLimits"), map[string]int{"MaxNumberOfTrainingJobs": 10, "MaxParallelTrainingJobs": 2})
	eq(t, "ranges", at(t, cfg, "ParameterRanges"), compiler.ParameterRanges{
		ContinuousParameterRanges:  []compiler.ContinuousRange{{Name: "eta", MinValue: "0.01", MaxValue: "0.3", ScalingType: "Auto"}},
		IntegerParameterRanges:     []compiler.IntegerRange{{Name: "max_depth", MinValue: "3", MaxValue: "10", ScalingType: "Linear"}},
		CategoricalParameterRanges: []compiler.CategoricalRange{{Name: "booster", Values: []string{"gbtree", "dart"}}},
	})
	def := at(t, tu, "Arguments", "TrainingJobDefinition")
	eq(t, "metric definitions", at(t, def, "AlgorithmSpecification", "MetricDefinitions"), []compiler.MetricDefinition{{Name: "validation:auc", Regex: `validation auc: ([0-9\.]+)`}})
	static := at(t, def, "StaticHyperParameters").(map[string]any)
	if _, tuned := static["eta"]; tuned {
		t.Error("a tuned hyperparameter must not also be static")
	}
	if static["num_round"] != "100" {
		t.Errorf("static num_round = %v", static["num_round"])
	}
	for _, k := range []string{"max_depth", "booster"} {
		if _, tuned := static[k]; tuned {
			t.Errorf("tuned %s is static", k)
		}
	}
	if static["label_name"] != `"y"` || static["objective"] != `"binary:logistic"` || static["subsample"] != "1" {
		t.Errorf("static typed hyperparameters: %v", static)
	}
	eq(t, "channels", len(at(t, def, "InputDataConfig").([]any)), 3)
	eq(t, "best model", at(t, steps["XGBoostModel"], "Arguments", "PrimaryContainer", "ModelDataUrl"),
		compiler.JoinOn("/", compiler.JoinOn("/", prefix, "xgboost_tuning"), compiler.Get{Get: "Steps.XGBoostTuning.BestTrainingJob.TrainingJobName"}, "output", "model.tar.gz"))
}

// A search space names hyperparameter fields; any other name is refused,
// naming the range.
func TestTuningSearchSpaceNamesHyperparameters(t *testing.T) {
	_, err := compileCase(t, tuningNodes, tuningEdges, func(in *compiler.Input) {
		in.Configs = configSetPer(t, tuningNodes, map[string]map[string]any{"XGBoostTuning": {
			"search_space": map[string]any{"continuous": map[string]any{"learning_rate": []any{0.01, 0.3}}}}})
	})
	var se *compiler.StepBuildError
	if !errors.As(err, &se) || se.Field != "search_space.continuous.learning_rate" || !strings.Contains(err.Error(), "not a hyperparameter of XGBoostTuning") ||
		!strings.Contains(err.Error(), "eta") {
		t.Fatalf("want a StepBuildError on search_space.continuous.learning_rate, got %v", err)
	}
}

// The training job gets every typed hyperparameter field with a value
// (config or default) under its name, JSON-encoded, beside the compiler's
// own keys; a field without a value is left out.
func TestTypedHyperparameters(t *testing.T) {
	_, steps := mustCompileCase(t, threeNodes, threeEdges, func(in *compiler.Input) {
		in.Configs = configSetPer(t, threeNodes, map[string]map[string]any{"XGBoostTraining": {"multiclass_categories": []any{"no", "yes"}, "seed": 7}})
	})
	hp := at(t, steps["XGBoostTraining"], "Arguments", "HyperParameters").(map[string]any)
	for k, want := range map[string]string{
		"label_name": `"y"`, "tab_field_list": `["f1","f2"]`, "cat_field_list": "[]", "objective": `"binary:logistic"`,
		"num_round": "100", "eta": "0.3", "booster": `"gbtree"`, "multiclass_categories": `["no","yes"]`, "seed": "7",
		"sagemaker_program": `"xgboost_training.py"`,
	} {
		if hp[k] != want {
			t.Errorf("HyperParameters[%s] = %v, want %s", k, hp[k], want)
		}
	}
	for _, k := range []string{"hyperparameters", "num_class", "base_score", "early_stopping_rounds", "training_instance_type"} {
		if _, ok := hp[k]; ok {
			t.Errorf("HyperParameters has %s", k)
		}
	}
}

func TestBuildersTable(t *testing.T) {
	bs := compiler.Builders()
	if len(bs) != len(catalog.Verbs) {
		t.Fatalf("%d builders for %d verbs", len(bs), len(catalog.Verbs))
	}
	for i, v := range catalog.Verbs {
		if bs[i].Verb != v || !compiler.HasBuilder(v) || bs[i].Name == "" || bs[i].DefinitionType == "" || len(bs[i].Knobs) == 0 {
			t.Errorf("builder %d: %+v", i, bs[i])
		}
	}
	bs[0].Knobs[0].Name = "changed"
	if compiler.Builders()[0].Knobs[0].Name == "changed" {
		t.Error("Builders returns shared slices")
	}
	if compiler.HasBuilder("AutoML") {
		t.Error("an AutoML builder, although no verb is AutoML")
	}
}

func TestSingleNode(t *testing.T) {
	ctx := context.Background()
	cfgFile := filepath.Join(examplesDir, "simple-training", "config.json")
	in := compiler.SingleNodeInput{Input: compiler.Input{ConfigFile: cfgFile}, Target: "TabularPreprocessing_training",
		ManualInputs: map[string]string{"DATA": "s3://example-bucket/raw/train/"}, ValidateInputs: true}
	res, err := compiler.CompileSingleNode(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if res.PipelineName != "TabularPreprocessing-training-isolated" || len(res.Definition.Steps) != 1 {
		t.Fatalf("name %s, %d steps", res.PipelineName, len(res.Definition.Steps))
	}
	st := res.Definition.Steps[0]
	args := st.Arguments.(*compiler.ProcessingArguments)
	if st.DependsOn != nil || args.ProcessingInputs[0].InputName != "DATA" || args.ProcessingInputs[0].S3Input.S3Uri != "s3://example-bucket/raw/train/" {
		t.Errorf("step %+v", st)
	}
	b, _ := res.JSON()
	checkDefinition(t, "single node", b)

	for _, c := range []struct {
		name   string
		mod    func(*compiler.SingleNodeInput)
		target any
	}{
		{"unknown target", func(s *compiler.SingleNodeInput) { s.Target = "Nope" }, new(*compiler.NodeNotFoundError)},
		{"bad URI", func(s *compiler.SingleNodeInput) { s.ManualInputs = map[string]string{"DATA": "/local/path"} }, new(*compiler.ManualInputError)},
		{"unknown input", func(s *compiler.SingleNodeInput) { s.ManualInputs = map[string]string{"DATAX": "s3://b/k"} }, new(*compiler.ManualInputError)},
		{"required input not given", func(s *compiler.SingleNodeInput) {
			s.ManualInputs = map[string]string{"SIGNATURE": "s3://example-bucket/sig/x"}
		}, new(*compiler.UnboundInputsError)},
		{"target not in the DAG", func(s *compiler.SingleNodeInput) { s.DAG = newDAG([]string{"XGBoostTraining"}, nil) }, new(*compiler.NodeNotFoundError)},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := in
			x.ManualInputs = map[string]string{"DATA": "s3://example-bucket/raw/train/"}
			c.mod(&x)
			_, err := compiler.CompileSingleNode(ctx, x)
			if err == nil || !errors.As(err, c.target) {
				t.Errorf("got %T %v", err, err)
			}
		})
	}
	// without validation a non-S3 value passes through
	x := in
	x.ManualInputs, x.ValidateInputs = map[string]string{"DATA": "https://example.com/data"}, false
	if _, err := compiler.CompileSingleNode(ctx, x); err != nil {
		t.Errorf("validate_inputs false: %v", err)
	}
}

func TestPreviewAndValidate(t *testing.T) {
	ctx := context.Background()
	cfgFile := filepath.Join(examplesDir, "simple-training", "config.json")
	d := newDAG([]string{"DummyDataLoading_training", "preprocess_training", "XGBoostTraining", "packaging"},
		[][2]string{{"DummyDataLoading_training", "preprocess_training"}, {"preprocess_training", "XGBoostTraining"}})
	p, err := compiler.PreviewResolution(ctx, compiler.Input{DAG: d, ConfigFile: cfgFile})
	if err != nil {
		t.Fatal(err)
	}
	if p.NodeConfigMap["packaging"] != "UNRESOLVED" || p.NodeConfigMap["XGBoostTraining"] != "XGBoostTrainingConfig" {
		t.Errorf("node_config_map %v", p.NodeConfigMap)
	}
	if p.ConfigBuilderMap["XGBoostTrainingConfig"] == "" || p.ConfigBuilderMap["XGBoostTrainingConfig"] == "UNKNOWN" {
		t.Errorf("config_builder_map %v (every config class names its builder, never UNKNOWN)", p.ConfigBuilderMap)
	}
	if p.NodeConfigMap["preprocess_training"] != "TabularPreprocessingConfig" || p.ResolutionConfidence["preprocess_training"] >= 1 {
		t.Errorf("preprocess_training resolves by score: %v %v", p.NodeConfigMap["preprocess_training"], p.ResolutionConfidence["preprocess_training"])
	}
	if p.NodeStepNames["XGBoostTraining"] != "XGBoostTraining" {
		t.Errorf("step names %v", p.NodeStepNames)
	}
	joined := strings.Join(p.Recommendations, "\n")
	if !strings.Contains(joined, "packaging") {
		t.Errorf("recommendations %v", p.Recommendations)
	}

	v, err := compiler.Validate(ctx, compiler.Input{DAG: d, ConfigFile: cfgFile})
	if err != nil {
		t.Fatal(err)
	}
	if v.IsValid || len(v.MissingConfigs) != 1 || v.MissingConfigs[0] != "packaging" || !strings.HasPrefix(v.Summary, "Validation failed") {
		t.Errorf("validate %+v", v)
	}
	ok, err := compiler.Validate(ctx, compiler.Input{DAG: newDAG(threeNodes[1:], threeEdges[1:]), ConfigFile: cfgFile})
	if err != nil {
		t.Fatal(err)
	}
	if ok.IsValid {
		t.Errorf("TabularPreprocessing without a loader: DATA is unbound, yet %+v", ok)
	}
	ex, err := compiler.Validate(ctx, compiler.Input{DAG: compileDAGFile(t, "simple-training"), ConfigFile: cfgFile})
	if err != nil || !ex.IsValid {
		t.Errorf("the example validates: %+v %v", ex, err)
	}
	cyc, err := compiler.Validate(ctx, compiler.Input{DAG: newDAG([]string{"XGBoostTraining", "DummyDataLoading_training"},
		[][2]string{{"XGBoostTraining", "DummyDataLoading_training"}, {"DummyDataLoading_training", "XGBoostTraining"}}), ConfigFile: cfgFile})
	if err != nil || cyc.IsValid || len(cyc.DAGIssues) != 1 {
		t.Errorf("cycle: %+v %v", cyc, err)
	}
}

func compileDAGFile(t *testing.T, example string) *dag.PipelineDAG {
	t.Helper()
	d, _, err := dag.ReadFile(nil, filepath.Join(examplesDir, example, "dag.json"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// copyExample copies an example to a temp dir so its scripts can change.
func copyExample(t *testing.T, name string) string {
	t.Helper()
	dst := t.TempDir()
	testfs.CopyTree(t, filepath.Join(examplesDir, name), dst)
	return dst
}

// The upload manifest: content-addressed URIs, deterministic tarballs,
// hashes that match the bytes, and a refusal to upload missing code.
func TestManifest(t *testing.T) {
	dir := copyExample(t, "simple-training")
	// the project's own scripts, which win over the catalog's
	for _, f := range []string{"dummy_data_loading.py", "tabular_preprocessing.py", "xgboost_training.py"} {
		if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "scripts", f), []byte("print('"+f+"')\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := compileExample(t, dir)
	if len(res.Manifest) != 3 {
		t.Fatalf("manifest %+v", res.Manifest)
	}
	work := t.TempDir()
	items, err := res.Manifest.Materialize(nil, work)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 3 {
		t.Fatalf("items %+v", items)
	}
	for i, it := range items {
		if it.S3URI != res.Manifest[i].S3URI {
			t.Errorf("item %d uri %s != %s", i, it.S3URI, res.Manifest[i].S3URI)
		}
		b, err := os.ReadFile(it.LocalPath)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if hex.EncodeToString(sum[:]) != it.SHA256 || int64(len(b)) != it.Size {
			t.Errorf("item %d: hash/size do not match the file", i)
		}
		if res.Manifest[i].Kind == compiler.KindFile && it.SHA256 != res.Manifest[i].SHA256 {
			t.Errorf("file item %d: manifest hash %s, file %s", i, res.Manifest[i].SHA256, it.SHA256)
		}
	}
	// the tarball holds the source directory, sorted
	tb := items[2]
	if !strings.HasSuffix(tb.S3URI, "/sourcedir.tar.gz") {
		t.Fatalf("third item %s", tb.S3URI)
	}
	names := tarNames(t, tb.LocalPath)
	if !sort.StringsAreSorted(names) || strings.Join(names, ",") != "dummy_data_loading.py,tabular_preprocessing.py,xgboost_training.py" {
		t.Errorf("tarball entries %v", names)
	}
	again, err := res.Manifest.Materialize(nil, t.TempDir())
	if err != nil || again[2].SHA256 != tb.SHA256 {
		t.Errorf("tarballs are not reproducible: %v", err)
	}

	// changing a script changes its URI (and the tarball's), nothing else
	if err := os.WriteFile(filepath.Join(dir, "scripts", "tabular_preprocessing.py"), []byte("print('v2')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res2 := compileExample(t, dir)
	if res2.Manifest[0].S3URI != res.Manifest[0].S3URI || res2.Manifest[1].S3URI == res.Manifest[1].S3URI || res2.Manifest[2].S3URI == res.Manifest[2].S3URI {
		t.Errorf("content addressing: before %v after %v", res.Manifest, res2.Manifest)
	}

	// a script the project drops: the catalog's is used
	if err := os.Remove(filepath.Join(dir, "scripts", "dummy_data_loading.py")); err != nil {
		t.Fatal(err)
	}
	if res3 := compileExample(t, dir); !res3.Manifest[0].Embedded || len(res3.Manifest.MissingFiles()) != 0 {
		t.Errorf("dropped script: manifest %v", res3.Manifest[0].LocalPath)
	}
	// a script neither has: compile warns, upload refuses
	cfgPath := filepath.Join(dir, "config.json")
	cfg, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg = bytes.Replace(cfg, []byte(`"__model_type__": "DummyDataLoadingConfig",`), []byte(`"__model_type__": "DummyDataLoadingConfig", "processing_entry_point": "gone.py",`), 1)
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	res3 := compileExample(t, dir)
	if len(res3.Manifest.MissingFiles()) != 1 || len(res3.Warnings) == 0 {
		t.Errorf("missing file: manifest %v warnings %v", res3.Manifest, res3.Warnings)
	}
	var fe *compiler.FileError
	if _, err := res3.Manifest.Materialize(nil, t.TempDir()); !errors.As(err, &fe) || !fe.Missing {
		t.Errorf("Materialize with a missing file: %v", err)
	}
}

func tarNames(t *testing.T, path string) []string {
	t.Helper()
	var names []string
	for _, e := range tarEntries(t, path) {
		names = append(names, e[0])
	}
	return names
}

// tarEntries returns a gzip'ed tar's entries in order: {name, content}.
func tarEntries(t *testing.T, path string) [][2]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var out [][2]string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, [2]string{h.Name, string(b)})
	}
}

// A config-sourced input: a local directory is uploaded file by file under
// a prefix; an object value becomes a generated JSON file. The second uses
// a workspace step file, which also shows user steps compile.
func TestConfigSourcedInputs(t *testing.T) {
	dir := copyExample(t, "simple-training")
	data := filepath.Join(dir, "config-data") // not data/: the example ships its sample data there
	if err := os.MkdirAll(filepath.Join(data, "part"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a.csv", "part/b.csv", ".hidden"} {
		if err := os.WriteFile(filepath.Join(data, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set := configSet(t, []string{"DummyDataLoading_training"}, map[string]any{"data_source": "config-data", "source_dir": "scripts"})
	res, err := compiler.Compile(context.Background(), compiler.Input{DAG: newDAG([]string{"DummyDataLoading_training"}, nil), Configs: set, BaseDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var dirArt *compiler.Artifact
	for i := range res.Manifest {
		if res.Manifest[i].Kind == compiler.KindDirectory && !res.Manifest[i].Embedded { // not the catalog's script and steplib
			dirArt = &res.Manifest[i]
		}
	}
	if dirArt == nil || strings.Join(dirArt.Files, ",") != "a.csv,part/b.csv" || !strings.HasSuffix(dirArt.S3URI, "/") {
		t.Fatalf("directory artifact %+v", dirArt)
	}
	args := res.Definition.Steps[0].Arguments.(*compiler.ProcessingArguments)
	if args.ProcessingInputs[0].S3Input.S3Uri != dirArt.S3URI {
		t.Errorf("INPUT_DATA %v, want %s", args.ProcessingInputs[0].S3Input.S3Uri, dirArt.S3URI)
	}
	items, err := res.Manifest.Materialize(nil, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, it := range items {
		if strings.HasPrefix(it.S3URI, dirArt.S3URI) {
			uris = append(uris, strings.TrimPrefix(it.S3URI, dirArt.S3URI))
		}
	}
	if strings.Join(uris, ",") != "a.csv,part/b.csv" {
		t.Errorf("directory upload items %v", uris)
	}

	// generated JSON from an object value, through a workspace step
	ws := t.TempDir()
	step := `step: RequestRunner
verb: Processing
kind: source
description: Runs a request given as a JSON object in config.
compute:
  kind: sklearn
contract:
  entry_point: run_request.py
inputs:
  - name: request
    type: custom_property
    path: /opt/ml/processing/input/request
    required: true
    config_source: request
    compatible_sources: [UserProvided]
    description: The request, written to request.json.
outputs:
  - name: result
    type: processing_output
    path: /opt/ml/processing/output/result
    description: The result.
fields:
  - {name: processing_entry_point, default: run_request.py}
  - {name: request, type: map, tier: essential, description: "The request."}
`
	if err := os.WriteFile(filepath.Join(ws, "RequestRunner.step.yaml"), []byte(step), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Load(nil, ws)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := config.FromCatalog(cat)
	if err != nil {
		t.Fatal(err)
	}
	vals := baseValues()
	vals["request"] = map[string]any{"query": "SELECT 1", "long": strings.Repeat("x", 400)}
	c, err := schema.NewConfig("RequestRunnerConfig", "RequestRunner", vals)
	if err != nil {
		t.Fatal(err)
	}
	set2, err := config.NewSet(c)
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	if err := os.WriteFile(filepath.Join(base, "run_request.py"), []byte("print('run')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res2, err := compiler.Compile(context.Background(), compiler.Input{DAG: newDAG([]string{"RequestRunner"}, nil), Configs: set2, Catalog: cat, BaseDir: base})
	if err != nil {
		t.Fatal(err)
	}
	var gen *compiler.Artifact
	for i := range res2.Manifest {
		if res2.Manifest[i].Kind == compiler.KindGenerated {
			gen = &res2.Manifest[i]
		}
	}
	if gen == nil || !strings.HasSuffix(gen.S3URI, "/request.json") || gen.LocalPath != "config:RequestRunner.request" {
		t.Fatalf("generated artifact %+v", gen)
	}
	in := res2.Definition.Steps[0].Arguments.(*compiler.ProcessingArguments).ProcessingInputs[0]
	if in.InputName != "request" || in.S3Input.S3Uri != gen.S3URI || in.S3Input.LocalPath != "/opt/ml/processing/input/request" {
		t.Errorf("request input %+v", in)
	}
	items2, err := res2.Manifest.Materialize(nil, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items2 {
		if it.S3URI == gen.S3URI {
			b, _ := os.ReadFile(it.LocalPath)
			if !strings.Contains(string(b), `"query": "SELECT 1"`) || it.SHA256 != gen.SHA256 {
				t.Errorf("generated file %s", b)
			}
		}
	}
	b, _ := res2.JSON()
	checkDefinition(t, "workspace step", b)
}

// The base network fields reach every job that has a network: processing
// NetworkConfig, training and model VpcConfig + EnableNetworkIsolation.
func TestNetworkConfig(t *testing.T) {
	nodes := []string{"DummyDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining", "XGBoostModel"}
	edges := [][2]string{{"DummyDataLoading_training", "TabularPreprocessing_training"}, {"TabularPreprocessing_training", "XGBoostTraining"}, {"XGBoostTraining", "XGBoostModel"}}
	net := map[string]any{"subnets": []any{"subnet-1", "subnet-2"}, "security_group_ids": []any{"sg-1"}, "enable_network_isolation": true}
	_, steps := mustCompileCase(t, nodes, edges, func(in *compiler.Input) { in.Configs = configSet(t, nodes, net) })
	vpc := map[string]any{"SecurityGroupIds": []any{"sg-1"}, "Subnets": []any{"subnet-1", "subnet-2"}}
	eq(t, "processing", at(t, steps["TabularPreprocessing-Training"], "Arguments", "NetworkConfig"), map[string]any{"EnableNetworkIsolation": true, "VpcConfig": vpc})
	for _, s := range []string{"XGBoostTraining", "XGBoostModel"} {
		eq(t, s+" vpc", at(t, steps[s], "Arguments", "VpcConfig"), vpc)
		eq(t, s+" isolation", at(t, steps[s], "Arguments", "EnableNetworkIsolation"), true)
	}
	// no network fields: no network keys at all
	_, plain := mustCompileCase(t, nodes, edges, nil)
	if at(t, plain["TabularPreprocessing-Training"], "Arguments").(map[string]any)["NetworkConfig"] != nil ||
		at(t, plain["XGBoostTraining"], "Arguments").(map[string]any)["VpcConfig"] != nil {
		t.Error("network keys without network config")
	}
	_, err := compileCase(t, nodes, edges, func(in *compiler.Input) {
		in.Configs = configSet(t, nodes, map[string]any{"subnets": []any{"subnet-1"}})
	})
	var se *compiler.StepBuildError
	if !errors.As(err, &se) || se.Field != "security_group_ids" {
		t.Errorf("subnets without security groups: %v", err)
	}
}

// A config.json with bad values: Compile fails with the config layer's
// error; Validate lists the fields among its config errors and goes on.
func TestValidateBadConfigValues(t *testing.T) {
	dir := copyExample(t, "simple-training")
	path := filepath.Join(dir, "config.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(b), `"label_name": "label"`, `"label_name": "label", "train_ratio": 7`, 1)
	if bad == string(b) {
		t.Fatal("could not edit the config")
	}
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	d := compileDAGFile(t, "simple-training")
	_, err = compiler.Compile(context.Background(), compiler.Input{DAG: d, ConfigFile: path})
	var ve *config.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("compile: want *config.ValidationError, got %T %v", err, err)
	}
	v, err := compiler.Validate(context.Background(), compiler.Input{DAG: d, ConfigFile: path})
	if err != nil {
		t.Fatal(err)
	}
	msgs := strings.Join(v.ConfigErrors["TabularPreprocessing_training"], "\n")
	if v.IsValid || !strings.Contains(msgs, "train_ratio") {
		t.Errorf("validate: %+v", v)
	}
}

// Pipeline parameters a config declares are added to the definition, and
// a "{{Parameters.X}}" config value becomes a reference to X.
func TestDeclaredParameters(t *testing.T) {
	nodes := []string{"DummyDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining", "Package"}
	edges := [][2]string{{"DummyDataLoading_training", "TabularPreprocessing_training"}, {"TabularPreprocessing_training", "XGBoostTraining"}, {"XGBoostTraining", "Package"}}
	params := []any{
		map[string]any{"name": "InferenceScripts", "type": "String", "default_value": "s3://example-bucket/inference/"},
		map[string]any{"name": "Threshold", "type": "Float", "default_value": 0.5},
		map[string]any{"name": "Retries", "type": "Integer", "default_value": 3},
		map[string]any{"name": "DryRun", "type": "Boolean", "default_value": false},
	}
	withParams := func(extra map[string]any) func(*compiler.Input) {
		return func(in *compiler.Input) { in.Configs = configSet(t, nodes, extra) }
	}
	env := map[string]any{"THRESHOLD": "{{Parameters.Threshold}}", "RETRIES": "{{Parameters.Retries}}", "DRY_RUN": "{{Parameters.DryRun}}"}
	res, steps := mustCompileCase(t, nodes, edges, withParams(map[string]any{"pipeline_parameters": params, "inference_scripts_dir": "{{Parameters.InferenceScripts}}", "env": env}))
	var names []string
	for _, p := range res.Definition.Parameters {
		names = append(names, p.Name)
	}
	// Only what some step uses is declared: no KMS key, no VPC here.
	if strings.Join(names, ",") != "EXECUTION_S3_PREFIX,InferenceScripts,Threshold,Retries,DryRun" {
		t.Errorf("parameters %v", names)
	}
	b, _ := res.JSON()
	if !strings.Contains(string(b), `{"Name":"DryRun","Type":"Boolean","DefaultValue":false}`) || !strings.Contains(string(b), `{"Name":"Retries","Type":"Integer","DefaultValue":3}`) {
		t.Errorf("typed defaults: %s", b[:400])
	}
	eq(t, "scripts input", at(t, steps["Package"], "Arguments", "ProcessingInputs", "InputName=inference_scripts_input", "S3Input", "S3Uri"),
		compiler.Param("InferenceScripts"))

	r2, _ := mustCompileCase(t, nodes, edges, withParams(map[string]any{"pipeline_parameters": params, "inference_scripts_dir": "{{Parameters.InferenceScripts}}"}))
	names = names[:0]
	for _, p := range r2.Definition.Parameters {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "EXECUTION_S3_PREFIX,InferenceScripts" || !strings.Contains(strings.Join(r2.Warnings, "\n"), "Threshold is declared in pipeline_parameters but no step uses it") {
		t.Errorf("unused parameters are left out with a warning: %v %q", names, r2.Warnings)
	}
	vpc := map[string]any{"inference_scripts_dir": "inference", "subnets": []any{"{{Parameters.VPC_SUBNET}}"}, "security_group_ids": []any{"sg-1"}}
	r2, _ = mustCompileCase(t, nodes, edges, withParams(vpc))
	blocks := false
	for _, b := range r2.Blockers {
		blocks = blocks || (b.Kind == compiler.BlockerUnsetParameter && b.Field == "VPC_SUBNET")
	}
	if len(r2.Definition.Parameters) != 2 || r2.Definition.Parameters[1].Name != "VPC_SUBNET" || r2.Definition.Parameters[1].DefaultValue != nil || !blocks {
		t.Errorf("a referenced built-in parameter without a default is declared and blocks: %+v %+v", r2.Definition.Parameters, r2.Blockers)
	}
	vpc["pipeline_parameters"] = []any{map[string]any{"name": "VPC_SUBNET", "default_value": "subnet-1"}}
	r2, _ = mustCompileCase(t, nodes, edges, withParams(vpc))
	if len(r2.Definition.Parameters) != 2 || r2.Definition.Parameters[1].DefaultValue != "subnet-1" {
		t.Errorf("pipeline_parameters gives a built-in parameter its default: %+v", r2.Definition.Parameters)
	}
	for _, b := range r2.Blockers {
		if b.Kind == compiler.BlockerUnsetParameter {
			t.Errorf("blocker %+v", b)
		}
	}

	_, err := compileCase(t, nodes, edges, withParams(map[string]any{"inference_scripts_dir": "{{Parameters.Nope}}"}))
	var se *compiler.StepBuildError
	if !errors.As(err, &se) || se.Field != "inference_scripts_dir" || !strings.Contains(err.Error(), "Nope") {
		t.Errorf("undeclared parameter: %v", err)
	}
	for _, bad := range []map[string]any{
		{"name": "bad name!"}, {"name": "X", "type": "Int"}, {"name": "X", "type": "Integer", "default_value": 1.5},
		{"name": "EXECUTION_S3_PREFIX", "type": "Integer"}, {"name": "X", "extra": 1},
	} {
		_, err := compileCase(t, nodes, edges, withParams(map[string]any{"pipeline_parameters": []any{bad}}))
		var pe *compiler.ParameterError
		if !errors.As(err, &pe) {
			t.Errorf("%v: got %v", bad, err)
		}
	}
}
