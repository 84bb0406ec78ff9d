package compiler_test

// End-to-end cases 1-8 of the compiler (training wiring, preprocessing
// inputs, names, step order and bindings of the 10-node end-to-end DAG, a
// DAG without a model producer, a config-sourced root input, model and
// batch transform), each checked step by step. Where the
// definition differs from what cursus (Python) builds on purpose, the test
// says why.

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/dag"
)

// baseValues is the cases' common config.
func baseValues() map[string]any {
	return map[string]any{
		"author": "alice", "service_name": "Demo", "model_class": "xgboost", "region": "NA",
		"pipeline_version": "1.0.0", "bucket": "example-bucket", "project_root_folder": "demo",
		"role": "arn:aws:iam::123456789012:role/SageMakerRole",
	}
}

// stepConfigs are the per-node values of every config the cases use.
var stepConfigs = map[string]struct {
	class string
	vals  map[string]any
}{
	"CradleDataLoading_training": {"CradleDataLoadingConfig", map[string]any{"job_type": "training",
		"data_sources_spec": map[string]any{"start_date": "2025-01-01T00:00:00", "end_date": "2025-02-01T00:00:00", "data_sources": []any{map[string]any{"data_source_name": "RAW", "data_source_type": "MDS"}}},
		"transform_spec":    map[string]any{"transform_sql": "SELECT * FROM RAW"},
		"output_spec":       map[string]any{"output_format": "PARQUET", "output_schema": []any{"id", "y"}}}},
	"CradleDataLoading_calibration": {"CradleDataLoadingConfig", map[string]any{"job_type": "calibration",
		"data_sources_spec": map[string]any{"start_date": "2025-02-01T00:00:00", "end_date": "2025-03-01T00:00:00", "data_sources": []any{map[string]any{"data_source_name": "RAW", "data_source_type": "MDS"}}},
		"transform_spec":    map[string]any{"transform_sql": "SELECT * FROM RAW"},
		"output_spec":       map[string]any{"output_format": "PARQUET", "output_schema": []any{"id", "y"}}}},
	"DummyDataGeneration_training":     {"DummyDataGenerationConfig", map[string]any{"job_type": "training"}},
	"DummyDataLoading_training":        {"DummyDataLoadingConfig", map[string]any{"job_type": "training", "data_source": "s3://example-bucket/raw/train/"}},
	"DummyDataLoading_calibration":     {"DummyDataLoadingConfig", map[string]any{"job_type": "calibration", "data_source": "s3://example-bucket/raw/calibration/"}},
	"TabularPreprocessing_training":    {"TabularPreprocessingConfig", map[string]any{"job_type": "training", "label_name": "y"}},
	"TabularPreprocessing_calibration": {"TabularPreprocessingConfig", map[string]any{"job_type": "calibration", "label_name": "y"}},
	"XGBoostTraining":                  {"XGBoostTrainingConfig", xgbHyperparameters(map[string]any{"num_round": 100, "max_depth": 6})},
	"XGBoostModelEval_calibration":     {"XGBoostModelEvalConfig", map[string]any{"job_type": "calibration", "id_name": "id", "label_name": "y"}},
	"ModelCalibration_calibration":     {"ModelCalibrationConfig", map[string]any{"job_type": "calibration", "label_field": "y"}},
	"Package":                          {"PackageConfig", map[string]any{}},
	"Payload":                          {"PayloadConfig", map[string]any{"expected_tps": 2, "max_latency_in_millisecond": 800}},
	"Registration": {"RegistrationConfig", map[string]any{"model_owner": "team", "model_domain": "abuse", "model_objective": "risk",
		"framework": "xgboost", "framework_version": "1.7-1"}},
	"XGBoostModel":                        {"XGBoostModelConfig", map[string]any{"framework_version": "1.5-1"}},
	"BatchTransform_calibration":          {"BatchTransformStepConfig", map[string]any{"job_type": "calibration"}},
	"XGBoostModelInference_calibration":   {"XGBoostModelInferenceConfig", map[string]any{"job_type": "calibration", "id_name": "id"}},
	"ModelMetricsComputation_calibration": {"ModelMetricsComputationConfig", map[string]any{"job_type": "calibration", "id_name": "id", "label_name": "y"}},
}

// xgbHyperparameters returns the XGBoost training script's essential
// hyperparameters for the cases' data (label y, numeric f1 and f2, no
// categorical column, binary), plus extra.
func xgbHyperparameters(extra map[string]any) map[string]any {
	out := map[string]any{"label_name": "y", "tab_field_list": []any{"f1", "f2"}, "cat_field_list": []any{}, "objective": "binary:logistic"}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// configSet builds the configs of the given keys over the base values;
// extra overrides base fields in every config.
func configSet(t testing.TB, keys []string, extra map[string]any) *config.Set {
	t.Helper()
	per := make(map[string]map[string]any, len(keys))
	for _, k := range keys {
		per[k] = extra
	}
	return configSetPer(t, keys, per)
}

// configSetPer builds the configs of the given keys: the base values, then
// each node's test config (stepConfigs), then per[key] on top.
func configSetPer(t testing.TB, keys []string, per map[string]map[string]any) *config.Set {
	t.Helper()
	schema, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	var cs []*config.Config
	for _, k := range keys {
		sc, ok := stepConfigs[k]
		if !ok {
			t.Fatalf("no test config for %s", k)
		}
		vals := baseValues()
		for f, v := range sc.vals {
			vals[f] = v
		}
		for f, v := range per[k] {
			vals[f] = v
		}
		c, err := schema.NewConfig(sc.class, catalog.ConfigKey(k), vals)
		if err != nil {
			t.Fatalf("config %s: %v", k, err)
		}
		cs = append(cs, c)
	}
	set, err := config.NewSet(cs...)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func newDAG[S ~string](nodes []S, edges [][2]S) *dag.PipelineDAG {
	ns := make([]catalog.NodeName, len(nodes))
	for i, n := range nodes {
		ns[i] = catalog.NodeName(n)
	}
	es := make([]dag.Edge, len(edges))
	for i, e := range edges {
		es[i] = dag.Edge{From: catalog.NodeName(e[0]), To: catalog.NodeName(e[1])}
	}
	return dag.New(ns, es)
}

// compileCase compiles nodes/edges with a config per node; scripts are
// absent (BaseDir is an empty temp dir), which only yields warnings.
func compileCase(t *testing.T, nodes []string, edges [][2]string, mod func(*compiler.Input)) (*compiler.Result, error) {
	t.Helper()
	in := compiler.Input{DAG: newDAG(nodes, edges), Configs: configSet(t, nodes, nil), BaseDir: t.TempDir()}
	if mod != nil {
		mod(&in)
	}
	return compiler.Compile(context.Background(), in)
}

func mustCompileCase(t *testing.T, nodes []string, edges [][2]string, mod func(*compiler.Input)) (*compiler.Result, map[string]map[string]any) {
	t.Helper()
	res, err := compileCase(t, nodes, edges, mod)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	b, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	checkDefinition(t, t.Name(), b)
	return res, stepsByName(t, b)
}

// stepsByName decodes a definition's steps, by step name.
func stepsByName(t *testing.T, def []byte) map[string]map[string]any {
	t.Helper()
	var d struct{ Steps []map[string]any }
	if err := json.Unmarshal(def, &d); err != nil {
		t.Fatal(err)
	}
	steps := map[string]map[string]any{}
	for _, s := range d.Steps {
		steps[s["Name"].(string)] = s
	}
	return steps
}

// at walks a decoded JSON value: string keys index objects, ints index
// arrays, and "Name=value" picks the array element whose Name field is
// value (InputName, OutputName and ChannelName too).
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			if name, val, ok := strings.Cut(k, "="); ok {
				arr, _ := v.([]any)
				var found any
				for _, e := range arr {
					if m, ok := e.(map[string]any); ok && m[name] == val {
						found = e
					}
				}
				if found == nil {
					t.Fatalf("no element with %s in %v", k, path)
				}
				v = found
				continue
			}
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%v: %q: not an object", path, k)
			}
			v = m[k]
		case int:
			arr, ok := v.([]any)
			if !ok || k >= len(arr) {
				t.Fatalf("%v: [%d]: not an array element", path, k)
			}
			v = arr[k]
		}
	}
	return v
}

// jsonOf decodes the JSON encoding of a Go value, for comparing with
// decoded definitions.
func jsonOf(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func eq(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(jsonOf(t, got), jsonOf(t, want)) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("%s:\n got  %s\n want %s", what, g, w)
	}
}

func procOut(step, output string) compiler.Get {
	return compiler.StepProperty(catalog.SageMakerStepName(step), catalog.ProcessingPropertyPath(output))
}

var prefix = compiler.Param(compiler.ParamExecutionS3Prefix)

// execID is the execution id outputs are written under.
var execID = compiler.ExecutionVar("PipelineExecutionId")

func reportNode(t *testing.T, res *compiler.Result, node catalog.NodeName) compiler.NodeReport {
	t.Helper()
	for _, n := range res.Report.Nodes {
		if n.Node == node {
			return n
		}
	}
	t.Fatalf("no report for node %s", node)
	return compiler.NodeReport{}
}

func binding(t *testing.T, res *compiler.Result, node catalog.NodeName, input string) *compiler.Binding {
	t.Helper()
	for _, b := range reportNode(t, res, node).Inputs {
		if b.Input == input {
			return b
		}
	}
	return nil
}

var threeNodes = []string{"CradleDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining"}
var threeEdges = [][2]string{{"CradleDataLoading_training", "TabularPreprocessing_training"}, {"TabularPreprocessing_training", "XGBoostTraining"}}

// Case 1: 3-node training wiring.
func TestCase1TrainingWiring(t *testing.T) {
	res, steps := mustCompileCase(t, threeNodes, threeEdges, nil)
	b := binding(t, res, "XGBoostTraining", "input_path")
	if b == nil || b.Provider != "TabularPreprocessing_training" || b.Output != "processed_data" || b.Score <= 0.5 {
		t.Fatalf("input_path binding = %+v, want TabularPreprocessing_training.processed_data", b)
	}
	tr := steps["XGBoostTraining"]
	channels := at(t, tr, "Arguments", "InputDataConfig").([]any)
	var names []string
	for _, c := range channels {
		names = append(names, c.(map[string]any)["ChannelName"].(string))
	}
	// No 4th channel model_artifacts_input bound to the same output: there
	// is no second resolver pass (unlike cursus (Python)), so an output
	// already taken by input_path is not re-bound to an optional input.
	eq(t, "channels", names, []string{"train", "val", "test"})
	for _, ch := range []string{"train", "val", "test"} {
		eq(t, "channel "+ch, at(t, tr, "Arguments", "InputDataConfig", "ChannelName="+ch, "DataSource", "S3DataSource", "S3Uri"),
			compiler.JoinOn("/", procOut("TabularPreprocessing-Training", "processed_data"), ch+"/"))
	}
	eq(t, "S3OutputPath", at(t, tr, "Arguments", "OutputDataConfig", "S3OutputPath"), compiler.JoinOn("/", prefix, "xgboost_training"))
	eq(t, "DependsOn", tr["DependsOn"], []string{"TabularPreprocessing-Training"})
	if tr["CacheConfig"] != nil {
		t.Error("caching is off: no CacheConfig (CacheConfig appears only where caching is enabled, never as Enabled false)")
	}
}

// Case 2: TabularPreprocessing inputs from one loader, and from two.
func TestCase2TabularInputs(t *testing.T) {
	res, steps := mustCompileCase(t, threeNodes, threeEdges, nil)
	tp := steps["TabularPreprocessing-Training"]
	for in, out := range map[string]string{"DATA": "DATA", "SIGNATURE": "SIGNATURE"} {
		b := binding(t, res, "TabularPreprocessing_training", in)
		if b == nil || b.Provider != "CradleDataLoading_training" || b.Output != out {
			t.Errorf("%s bound to %+v, want CradleDataLoading_training.%s", in, b, out)
		}
		eq(t, in+" S3Uri", at(t, tp, "Arguments", "ProcessingInputs", "InputName="+in, "S3Input", "S3Uri"), procOut("CradleDataLoading-Training", out))
	}
	// the optional DATA_SECONDARY is not fed the loader's METADATA (a weak
	// match: cursus (Python) binds it at 0.765, and the job appended the
	// metadata file to the data)
	if b := binding(t, res, "TabularPreprocessing_training", "DATA_SECONDARY"); b != nil {
		t.Errorf("DATA_SECONDARY bound to %+v", b)
	}
	for _, in := range at(t, tp, "Arguments", "ProcessingInputs").([]any) {
		if in.(map[string]any)["InputName"] == "DATA_SECONDARY" {
			t.Error("a DATA_SECONDARY processing input without a second data set")
		}
	}
	for in, path := range map[string]string{"DATA": "/opt/ml/processing/input/data", "SIGNATURE": "/opt/ml/processing/input/signature"} {
		eq(t, in+" LocalPath", at(t, tp, "Arguments", "ProcessingInputs", "InputName="+in, "S3Input", "LocalPath"), path)
	}
	eq(t, "job arguments", at(t, tp, "Arguments", "AppSpecification", "ContainerArguments"), []string{"--job_type", "training"})
	eq(t, "output", at(t, tp, "Arguments", "ProcessingOutputConfig", "Outputs", "OutputName=processed_data", "S3Output", "S3Uri"),
		compiler.JoinOn("/", prefix, execID, "tabularpreprocessing", "training", "processed_data"))

	// two loaders feeding one preprocessing node
	nodes := []string{"CradleDataLoading_training", "CradleDataLoading_calibration", "TabularPreprocessing_training"}
	res2, _ := mustCompileCase(t, nodes, [][2]string{{"CradleDataLoading_training", "TabularPreprocessing_training"}, {"CradleDataLoading_calibration", "TabularPreprocessing_training"}}, nil)
	if b := binding(t, res2, "TabularPreprocessing_training", "DATA"); b == nil || b.Provider != "CradleDataLoading_training" || b.Output != "DATA" {
		t.Errorf("DATA = %+v, want CradleDataLoading_training.DATA", b)
	}
	if b := binding(t, res2, "TabularPreprocessing_training", "DATA_SECONDARY"); b == nil || b.Provider != "CradleDataLoading_calibration" || b.Output != "DATA" {
		t.Errorf("DATA_SECONDARY = %+v, want CradleDataLoading_calibration.DATA", b)
	}
}

// transformNodes and transformEdges train a model and batch-transform the
// calibration data with it (case 8).
var transformNodes = []string{"DummyDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining", "XGBoostModel",
	"DummyDataLoading_calibration", "TabularPreprocessing_calibration", "BatchTransform_calibration"}
var transformEdges = [][2]string{{"DummyDataLoading_training", "TabularPreprocessing_training"}, {"TabularPreprocessing_training", "XGBoostTraining"},
	{"XGBoostTraining", "XGBoostModel"}, {"DummyDataLoading_calibration", "TabularPreprocessing_calibration"},
	{"XGBoostModel", "BatchTransform_calibration"}, {"TabularPreprocessing_calibration", "BatchTransform_calibration"}}

// registerNodes and registerEdges add to them packaging, a payload and the
// model's registration (case 3): one step of every verb but tuning.
var registerNodes = append(slices.Clip(transformNodes), "Package", "Payload", "Registration")
var registerEdges = append(slices.Clip(transformEdges),
	[2]string{"XGBoostTraining", "Package"}, [2]string{"XGBoostTraining", "Payload"}, [2]string{"Package", "Registration"}, [2]string{"Payload", "Registration"})

// Case 3: pipeline and step names.
func TestCase3Names(t *testing.T) {
	res, steps := mustCompileCase(t, registerNodes, registerEdges, nil)
	if res.PipelineName != "alice-Demo-xgboost-NA-1-0-0-pipeline" {
		t.Errorf("pipeline name %q", res.PipelineName)
	}
	for _, n := range []string{"DummyDataLoading-Training", "TabularPreprocessing-Training", "XGBoostTraining", "XGBoostModel", "BatchTransform-Calibration", "Registration-NA"} {
		if steps[n] == nil {
			t.Errorf("no step named %s", n)
		}
	}
	res, _ = mustCompileCase(t, registerNodes, registerEdges, func(in *compiler.Input) { in.PipelineName = "my-explicit-name" })
	if res.PipelineName != "my-explicit-name" {
		t.Errorf("explicit name: %q", res.PipelineName)
	}
}

var e2eNodes = []string{"CradleDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining", "ModelCalibration_calibration",
	"Package", "Registration", "Payload", "CradleDataLoading_calibration", "TabularPreprocessing_calibration", "XGBoostModelEval_calibration"}
var e2eEdges = [][2]string{
	{"CradleDataLoading_training", "TabularPreprocessing_training"}, {"TabularPreprocessing_training", "XGBoostTraining"},
	{"CradleDataLoading_calibration", "TabularPreprocessing_calibration"}, {"XGBoostTraining", "XGBoostModelEval_calibration"},
	{"TabularPreprocessing_calibration", "XGBoostModelEval_calibration"}, {"XGBoostModelEval_calibration", "ModelCalibration_calibration"},
	{"ModelCalibration_calibration", "Package"}, {"XGBoostTraining", "Package"}, {"XGBoostTraining", "Payload"},
	{"Package", "Registration"}, {"Payload", "Registration"},
}

// Case 4: step order of the 10-node xgboost_complete_e2e DAG, Package and
// Registration wiring.
func TestCase4StepOrder(t *testing.T) {
	res, steps := mustCompileCase(t, e2eNodes, e2eEdges, nil)
	var order []catalog.SageMakerStepName
	for _, s := range res.Definition.Steps {
		order = append(order, s.Name)
	}
	eq(t, "step order", order, []string{"CradleDataLoading-Training", "CradleDataLoading-Calibration", "TabularPreprocessing-Training",
		"TabularPreprocessing-Calibration", "XGBoostTraining", "XGBoostModelEval-Calibration", "Payload", "ModelCalibration-Calibration",
		"Package", "Registration-NA"})
	eq(t, "Package.DependsOn", steps["Package"]["DependsOn"], []string{"ModelCalibration-Calibration", "XGBoostTraining"})
	reg := steps["Registration-NA"]
	eq(t, "Registration.DependsOn", reg["DependsOn"], []string{"Package", "Payload"})
	if reg["Type"] != "RegisterModel" {
		t.Errorf("Registration type %v", reg["Type"])
	}
	if b := binding(t, res, "Registration", "PackagedModel"); b == nil || b.Provider != "Package" || b.Output != "packaged_model" {
		t.Errorf("PackagedModel = %+v", b)
	}
	if b := binding(t, res, "Registration", "GeneratedPayloadSamples"); b == nil || b.Provider != "Payload" || b.Output != "payload_sample" {
		t.Errorf("GeneratedPayloadSamples = %+v", b)
	}
	// Registration is a native RegisterModel step (not a processing job
	// that calls an SDK with the two inputs mounted), so the packaged model is the container's ModelDataUrl and the
	// payload the SamplePayloadUrl: each one archive (an object, as
	// CreateModelPackage requires) under its step's output location.
	eq(t, "ModelDataUrl", at(t, reg, "Arguments", "InferenceSpecification", "Containers", 0, "ModelDataUrl"),
		map[string]any{"Std:Join": map[string]any{"On": "/", "Values": []any{procOut("Package", "packaged_model"), "model.tar.gz"}}})
	eq(t, "SamplePayloadUrl", at(t, reg, "Arguments", "SamplePayloadUrl"),
		map[string]any{"Std:Join": map[string]any{"On": "/", "Values": []any{procOut("Payload", "payload_sample"), "payload.tar.gz"}}})
}

// Case 5: bindings of the end-to-end DAG.
func TestCase5E2EBindings(t *testing.T) {
	res, steps := mustCompileCase(t, e2eNodes, e2eEdges, nil)
	ev := steps["XGBoostModelEval-Calibration"]
	eq(t, "eval model_input", at(t, ev, "Arguments", "ProcessingInputs", "InputName=model_input", "S3Input", "S3Uri"),
		compiler.Get{Get: "Steps.XGBoostTraining.ModelArtifacts.S3ModelArtifacts"})
	eq(t, "eval processed_data", at(t, ev, "Arguments", "ProcessingInputs", "InputName=processed_data", "S3Input", "S3Uri"),
		procOut("TabularPreprocessing-Calibration", "processed_data"))
	for _, c := range []struct {
		node     catalog.NodeName
		input    string
		provider catalog.NodeName
		output   string
	}{
		{"ModelCalibration_calibration", "evaluation_data", "XGBoostModelEval_calibration", "eval_output"},
		{"Package", "model_input", "XGBoostTraining", "model_output"},
		{"Package", "calibration_model", "ModelCalibration_calibration", "calibration_output"},
	} {
		if b := binding(t, res, c.node, c.input); b == nil || b.Provider != c.provider || b.Output != c.output {
			t.Errorf("%s.%s = %+v, want %s.%s", c.node, c.input, b, c.provider, c.output)
		}
	}
	// Custom sample requests come from config (custom_payloads), never from
	// an upstream output: the training job's evaluation output is not taken
	// for them.
	if b := binding(t, res, "Payload", "custom_payload_input"); b != nil {
		t.Errorf("Payload.custom_payload_input = %+v, want unbound without custom_payloads", b)
	}
	// inference_scripts_input comes from config (a local directory, uploaded), not a dependency
	b := binding(t, res, "Package", "inference_scripts_input")
	if b == nil || b.Source != compiler.SourceConfig {
		t.Errorf("inference_scripts_input = %+v, want a config binding", b)
	}
	eq(t, "package output", at(t, steps["Package"], "Arguments", "ProcessingOutputConfig", "Outputs", "OutputName=packaged_model", "S3Output", "S3Uri"),
		compiler.JoinOn("/", prefix, execID, "package", "packaged_model"))
	eq(t, "payload output", at(t, steps["Payload"], "Arguments", "ProcessingOutputConfig", "Outputs", "OutputName=payload_sample", "S3Output", "S3Uri"),
		compiler.JoinOn("/", prefix, execID, "payload", "payload_sample"))
	// XGBoostModelEval outputs keep the job type in the path
	eq(t, "eval output", at(t, ev, "Arguments", "ProcessingOutputConfig", "Outputs", "OutputName=eval_output", "S3Output", "S3Uri"),
		compiler.JoinOn("/", prefix, execID, "xgboostmodeleval", "calibration", "eval_output"))
}

var missingProducerNodes = []string{"DummyDataLoading_calibration", "TabularPreprocessing_calibration", "XGBoostModelEval_calibration"}
var missingProducerEdges = [][2]string{{"DummyDataLoading_calibration", "TabularPreprocessing_calibration"}, {"TabularPreprocessing_calibration", "XGBoostModelEval_calibration"}}

// Case 6: a DAG without a model producer. Validate reports the unbound
// required input, not only the build.
func TestCase6MissingProducer(t *testing.T) {
	_, err := compileCase(t, missingProducerNodes, missingProducerEdges, nil)
	var ue *compiler.UnboundInputsError
	if !errors.As(err, &ue) {
		t.Fatalf("want *UnboundInputsError, got %T %v", err, err)
	}
	if len(ue.Inputs) != 1 || ue.Inputs[0].Input != "model_input" || ue.Inputs[0].Node != "XGBoostModelEval_calibration" {
		t.Errorf("unbound = %+v", ue.Inputs)
	}
	if !strings.Contains(err.Error(), "model_input") || !strings.Contains(err.Error(), "XGBoostModelEval-Calibration") {
		t.Errorf("message should name the step and the input: %v", err)
	}
	v, err := compiler.Validate(context.Background(), compiler.Input{DAG: newDAG(missingProducerNodes, missingProducerEdges),
		Configs: configSet(t, missingProducerNodes, nil), BaseDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if v.IsValid || len(v.DependencyIssues) != 1 || !strings.Contains(v.DependencyIssues[0], "model_input") {
		t.Errorf("validate = %+v", v)
	}
	if len(v.MissingConfigs) != 0 || len(v.UnresolvableBuilders) != 0 || len(v.ConfigErrors) != 0 {
		t.Errorf("only the dependency issue should be reported: %+v", v)
	}
}

// Case 7: a config-sourced root input.
func TestCase7ConfigSourcedRoot(t *testing.T) {
	_, steps := mustCompileCase(t, []string{"DummyDataLoading_training"}, nil, nil)
	s := steps["DummyDataLoading-Training"]
	in := at(t, s, "Arguments", "ProcessingInputs", "InputName=INPUT_DATA", "S3Input")
	eq(t, "INPUT_DATA source", at(t, in, "S3Uri"), "s3://example-bucket/raw/train/")
	eq(t, "INPUT_DATA destination", at(t, in, "LocalPath"), "/opt/ml/processing/input/data")
	for _, o := range []string{"DATA", "METADATA", "SIGNATURE"} {
		eq(t, o, at(t, s, "Arguments", "ProcessingOutputConfig", "Outputs", "OutputName="+o, "S3Output", "S3Uri"),
			compiler.JoinOn("/", prefix, execID, "dummydataloading", "training", o))
	}
	if s["DependsOn"] != nil {
		t.Errorf("a root step has no DependsOn: %v", s["DependsOn"])
	}
	// The step file declares --job_type (its script reads it), so the job
	// gets it.
	eq(t, "job arguments", at(t, s, "Arguments", "AppSpecification", "ContainerArguments"), []string{"--job_type", "training"})
}

// Case 8: model + batch transform.
func TestCase8ModelTransform(t *testing.T) {
	res, steps := mustCompileCase(t, transformNodes, transformEdges, nil)
	if b := binding(t, res, "XGBoostModel", "model_data"); b == nil || b.Provider != "XGBoostTraining" || b.Output != "model_output" {
		t.Errorf("model_data = %+v", b)
	}
	m := steps["XGBoostModel"]
	if m["Type"] != "Model" || m["CacheConfig"] != nil {
		t.Errorf("model step: type %v, cache %v", m["Type"], m["CacheConfig"])
	}
	// xgboost 1.5-1 inference image, region locked to us-east-1
	eq(t, "image", at(t, m, "Arguments", "PrimaryContainer", "Image"), "683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.5-1")
	eq(t, "model data", at(t, m, "Arguments", "PrimaryContainer", "ModelDataUrl"), compiler.Get{Get: "Steps.XGBoostTraining.ModelArtifacts.S3ModelArtifacts"})
	bt := steps["BatchTransform-Calibration"]
	eq(t, "ModelName", at(t, bt, "Arguments", "ModelName"), compiler.Get{Get: "Steps.XGBoostModel.ModelName"})
	eq(t, "data", at(t, bt, "Arguments", "TransformInput", "DataSource", "S3DataSource", "S3Uri"), procOut("TabularPreprocessing-Calibration", "processed_data"))
	eq(t, "output", at(t, bt, "Arguments", "TransformOutput", "S3OutputPath"), compiler.JoinOn("/", prefix, execID, "batchtransform", "calibration", "transform_output"))
	eq(t, "content type", at(t, bt, "Arguments", "TransformInput", "ContentType"), "text/csv")
	eq(t, "split", at(t, bt, "Arguments", "TransformInput", "SplitType"), "Line")
	eq(t, "filters", at(t, bt, "Arguments", "DataProcessing"), map[string]string{"InputFilter": "$[1:]", "OutputFilter": "$[0,-1]", "JoinSource": "Input"})
	if bt["CacheConfig"] != nil {
		t.Error("no CacheConfig on a transform when caching is off")
	}
	eq(t, "DependsOn", bt["DependsOn"], []string{"XGBoostModel", "TabularPreprocessing-Calibration"})
}

// Caching on: CacheConfig on every cacheable step, never on Model and
// RegisterModel steps.
func TestCaching(t *testing.T) {
	in := compiler.Input{DAG: newDAG(transformNodes, transformEdges), Configs: configSet(t, transformNodes, map[string]any{"enable_caching": true}), BaseDir: t.TempDir()}
	res, err := compiler.Compile(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Definition.Steps {
		switch s.Type {
		case compiler.StepTypeModel, compiler.StepTypeRegisterModel:
			if s.CacheConfig != nil {
				t.Errorf("%s (%s) has a CacheConfig", s.Name, s.Type)
			}
		default:
			if s.CacheConfig == nil || !s.CacheConfig.Enabled || s.CacheConfig.ExpireAfter != "P30D" {
				t.Errorf("%s (%s): CacheConfig %+v", s.Name, s.Type, s.CacheConfig)
			}
		}
	}
}
