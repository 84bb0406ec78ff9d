package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/engine/compiler/compilertest"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/awstest"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/tools"
)

const compileExampleRoot = "../examples"

func compileExampleArgs(name string) map[string]any {
	return map[string]any{
		"dag_file":    filepath.Join(compileExampleRoot, name, "dag.json"),
		"config_file": filepath.Join(compileExampleRoot, name, "config.json"),
	}
}

func compileExampleNames(t *testing.T) []string {
	dirs, _ := filepath.Glob(filepath.Join(compileExampleRoot, "*", "dag.json"))
	var out []string
	for _, d := range dirs {
		out = append(out, filepath.Base(filepath.Dir(d)))
	}
	if len(out) < 3 {
		t.Fatalf("want at least 3 example pipelines, found %v", out)
	}
	return out
}

// compile.definition returns the definition as a JSON object (valid under
// both schemas and the SDK check) and the upload manifest, for every example.
func TestCompileDefinitionTool(t *testing.T) {
	for _, ex := range compileExampleNames(t) {
		t.Run(ex, func(t *testing.T) {
			data := tools.WantOK(t, tools.CallTool(t, context.Background(), "compile.definition", compileExampleArgs(ex)))
			def, ok := data["definition"].(map[string]any)
			if !ok || def["Version"] != "2020-12-01" {
				t.Fatalf("definition %T", data["definition"])
			}
			b, _ := json.Marshal(def)
			compilertest.CheckSchemas(t, b)
			for _, err := range compilertest.CheckSDK(b) {
				t.Error(err)
			}
			steps := def["Steps"].([]any)
			if int(data["step_count"].(float64)) != len(steps) || len(steps) == 0 {
				t.Errorf("step_count %v, %d steps", data["step_count"], len(steps))
			}
			m, ok := data["upload_manifest"].([]any)
			if !ok || len(m) == 0 {
				t.Fatalf("upload_manifest %v", data["upload_manifest"])
			}
			for _, it := range m {
				a := it.(map[string]any)
				if tools.Blank(a["local_path"]) || !strings.HasPrefix(a["s3_uri"].(string), "s3://") {
					t.Errorf("manifest item %v", a)
				}
			}
		})
	}
	// a deployable definition's first next step runs it locally, generated
	// data standing in for the S3 data its config names
	env := tools.CallTool(t, context.Background(), "compile.definition", compileExampleArgs("simple-training"))
	next := env["next_steps"].([]any)[0].(map[string]any)
	hint, _ := next["args_hint"].(map[string]any)
	if gen, _ := hint["generate_data"].([]any); next["tool"] != "execution.run_local" || len(gen) != 1 || gen[0] != "s3://example-bucket/raw/train/" ||
		hint["work_dir"] == nil || hint["dag_file"] != compileExampleArgs("simple-training")["dag_file"] {
		t.Errorf("next step %v", next)
	}
	// the definition keeps the SDK's key order
	res := cursus.Registry().Call(context.Background(), "compile.definition", compileExampleArgs("simple-training"))
	b, _ := json.Marshal(res)
	if i, j := strings.Index(string(b), `"Version"`), strings.Index(string(b), `"Steps"`); i < 0 || j < i {
		t.Error("definition keys are not in SDK order")
	}
}

func TestCompileNameTool(t *testing.T) {
	data := tools.WantOK(t, tools.CallTool(t, context.Background(), "compile.name", map[string]any{"base": "alice-AtoZ-xgboost-NA", "version": "1.3.1"}))
	if data["generated"] != "alice-AtoZ-xgboost-NA-1-3-1-pipeline" || data["generated_is_valid"] != true {
		t.Errorf("generated %v", data)
	}
	data = tools.WantOK(t, tools.CallTool(t, context.Background(), "compile.name", map[string]any{"sanitize": "my_pipe.v2__x-"}))
	if data["sanitized"] != "my-pipe-v2-x" || data["sanitized_is_valid"] != true || data["generated"] != nil {
		t.Errorf("sanitized %v", data)
	}
	data = tools.WantOK(t, tools.CallTool(t, context.Background(), "compile.name", map[string]any{"base": "demo"}))
	if data["generated"] != "demo-1-0-pipeline" {
		t.Errorf("default version: %v", data)
	}
	tools.WantFail(t, tools.CallTool(t, context.Background(), "compile.name", map[string]any{}), envelope.CodeInvalidInput)
}

func TestCompileValidatePreviewReport(t *testing.T) {
	env := tools.CallTool(t, context.Background(), "compile.validate", compileExampleArgs("xgboost-end-to-end"))
	data := tools.WantOK(t, env)
	if data["is_valid"] != true {
		t.Fatalf("validate: %v", data)
	}
	if ns, _ := env["next_steps"].([]any); len(ns) == 0 || ns[0].(map[string]any)["tool"] != "compile.definition" {
		t.Errorf("next_steps %v", env["next_steps"])
	}
	args := compileExampleArgs("simple-training")
	delete(args, "dag_file")
	args["dag"] = map[string]any{"nodes": []any{"TabularPreprocessing_training", "XGBoostTraining"}, "edges": []any{[]any{"TabularPreprocessing_training", "XGBoostTraining"}}}
	data = tools.WantOK(t, tools.CallTool(t, context.Background(), "compile.validate", args))
	if data["is_valid"] != false || len(data["dependency_issues"].([]any)) != 1 {
		t.Errorf("preprocessing without a loader should report DATA unbound: %v", data)
	}

	data = tools.WantOK(t, tools.CallTool(t, context.Background(), "compile.preview", compileExampleArgs("simple-training")))
	if m := data["config_builder_map"].(map[string]any); m["XGBoostTrainingConfig"] == "UNKNOWN" || m["XGBoostTrainingConfig"] == nil {
		t.Errorf("config_builder_map %v", m)
	}

	data = tools.WantOK(t, tools.CallTool(t, context.Background(), "compile.with_report", compileExampleArgs("pytorch-batch-transform")))
	if data["step_count"].(float64) != 7 || data["pipeline_name"] != "alice-Demo-pytorch-NA-1-0-0-pipeline" {
		t.Errorf("report %v", data)
	}
	det := data["resolution_details"].(map[string]any)["BatchTransform_calibration"].(map[string]any)
	if det["builder_type"] != "TransformStepBuilder" || det["config_type"] != "BatchTransformStepConfig" || det["confidence"].(float64) != 1 {
		t.Errorf("resolution detail %v", det)
	}
	var found bool
	for _, n := range data["nodes"].([]any) {
		nm := n.(map[string]any)
		if nm["node"] != "BatchTransform_calibration" {
			continue
		}
		for _, in := range nm["inputs"].([]any) {
			b := in.(map[string]any)
			if b["input"] == "model_name" && b["provider"] == "PyTorchModel" && b["output"] == "model_name" && b["score"].(float64) > 0.5 {
				found = true
			}
		}
	}
	if !found {
		t.Error("the report does not show BatchTransform.model_name <- PyTorchModel.model_name with its score")
	}

	data = tools.WantOK(t, tools.CallTool(t, context.Background(), "compile.single_node", map[string]any{
		"config_file": filepath.Join(compileExampleRoot, "simple-training", "config.json"), "target_node": "XGBoostTraining",
		"manual_inputs": map[string]any{"input_path": "s3://example-bucket/processed/"}}))
	if data["pipeline_name"] != "XGBoostTraining-isolated" || data["step_count"].(float64) != 1 {
		t.Errorf("single node %v", data)
	}
}

// badInputs are calls that must fail with a clear code; with upsert on,
// none may reach AWS.
func compileBadInputs(t *testing.T) []struct {
	name string
	args map[string]any
	code envelope.Code
	says string
} {
	tmp := t.TempDir()
	garbage := filepath.Join(tmp, "config.json")
	if err := os.WriteFile(garbage, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(compileExampleRoot, "simple-training", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	st := func(mod func(map[string]any)) map[string]any {
		a := compileExampleArgs("simple-training")
		mod(a)
		return a
	}
	// A copy of the example's config (beside a copy of its scripts) edited
	// by mod: valid, but not deployable.
	edited := func(name string, mod func(shared, specific map[string]any)) map[string]any {
		var doc map[string]any
		if err := json.Unmarshal(cfg, &doc); err != nil {
			t.Fatal(err)
		}
		conf := doc["configuration"].(map[string]any)
		mod(conf["shared"].(map[string]any), conf["specific"].(map[string]any))
		dir := filepath.Join(tmp, name)
		if err := os.CopyFS(dir, os.DirFS(filepath.Join(compileExampleRoot, "simple-training"))); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(doc)
		if err := os.WriteFile(filepath.Join(dir, "config.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		return map[string]any{"dag_file": filepath.Join(dir, "dag.json"), "config_file": filepath.Join(dir, "config.json")}
	}
	return []struct {
		name string
		args map[string]any
		code envelope.Code
		says string
	}{
		{"cycle", st(func(a map[string]any) {
			delete(a, "dag_file")
			a["dag"] = map[string]any{"nodes": []any{"TabularPreprocessing_training", "XGBoostTraining"},
				"edges": []any{[]any{"TabularPreprocessing_training", "XGBoostTraining"}, []any{"XGBoostTraining", "TabularPreprocessing_training"}}}
		}), envelope.CodeInvalidInput, "cycle"},
		{"missing config file", st(func(a map[string]any) { a["config_file"] = "/nonexistent.json" }), envelope.CodeNotFound, "/nonexistent.json"},
		{"unreadable config file", st(func(a map[string]any) { a["config_file"] = garbage }), envelope.CodeInvalidInput, "config.json"},
		{"missing DAG file", st(func(a map[string]any) { a["dag_file"] = "/nonexistent-dag.json" }), envelope.CodeNotFound, "nonexistent-dag.json"},
		{"both dag and dag_file", st(func(a map[string]any) { a["dag"] = map[string]any{"nodes": []any{"x"}} }), envelope.CodeInvalidInput, "not both"},
		{"node without config", st(func(a map[string]any) {
			delete(a, "dag_file")
			a["dag"] = map[string]any{"nodes": []any{"DummyDataLoading_training", "packaging"}}
		}), envelope.CodeInvalidInput, "packaging"},
		{"unbound required input", st(func(a map[string]any) {
			delete(a, "dag_file")
			a["dag"] = map[string]any{"nodes": []any{"XGBoostTraining"}}
		}), envelope.CodeInvalidInput, "input_path"},
		{"invalid pipeline name", st(func(a map[string]any) { a["pipeline_name"] = "bad_name!" }), envelope.CodeInvalidInput, "invalid pipeline name"},
		{"code missing", edited("nocode", func(_, specific map[string]any) {
			// a script neither the project nor the catalog has (a project
			// without scripts of its own runs the catalog's)
			specific["TabularPreprocessing_training"].(map[string]any)["processing_entry_point"] = "my_preprocessing.py"
		}), envelope.CodeNotDeployable, "my_preprocessing.py does not exist"},
		{"missing label", edited("nolabel", func(_, specific map[string]any) {
			delete(specific["XGBoostTraining"].(map[string]any), "label_name")
		}), envelope.CodeInvalidInput, "label_name"},
		{"placeholder value", edited("placeholder", func(shared, _ map[string]any) { shared["author"] = "replace-me" }),
			envelope.CodeNotDeployable, "author"},
		{"unknown config key", edited("typo", func(_, specific map[string]any) {
			specific["XGBoostTraining"].(map[string]any)["lable_name"] = "is_fraud"
		}), envelope.CodeNotDeployable, "label_name"},
	}
}

// countingAWS is an AWS stand-in that counts requests and answers each with
// an AWS error.
type countingAWS struct {
	srv   *httptest.Server
	calls atomic.Int64
}

func newCountingAWS(t *testing.T, status int, code, msg string) *countingAWS {
	c := &countingAWS{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.calls.Add(1)
		io.Copy(io.Discard, r.Body)
		if strings.HasPrefix(r.Header.Get("X-Amz-Target"), "SageMaker.") {
			w.Header().Set("Content-Type", "application/x-amz-json-1.1")
			w.Header().Set("X-Amzn-Errortype", code)
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"__type":%q,"message":%q}`, code, msg)
			return
		}
		// S3 (REST-XML)
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(status)
		if r.Method == http.MethodHead {
			return
		}
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message></Error>`, code, msg)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

// compileAWSEnv points the AWS chain at endpoint with test credentials and no retries.
func compileAWSEnv(t *testing.T, endpoint string) {
	t.Helper()
	awstest.SetEnv(t, endpoint)
	t.Setenv("AWS_MAX_ATTEMPTS", "1")
	t.Setenv("AWS_RETRY_MODE", "standard")
}

// Bad inputs fail with a clear code, and with upsert: true nothing is
// uploaded or created: the AWS stand-in sees no request.
func TestCompileBadInputs(t *testing.T) {
	aws := newCountingAWS(t, 500, "InternalFailure", "should not be called")
	compileAWSEnv(t, aws.srv.URL)
	for _, c := range compileBadInputs(t) {
		for _, tool := range []string{"compile.definition", "compile.dag"} {
			args := map[string]any{}
			for k, v := range c.args {
				args[k] = v
			}
			if tool == "compile.dag" {
				args["upsert"] = true
			} else if c.code == envelope.CodeNotDeployable {
				continue // compile.definition builds it and says it is not deployable (below)
			}
			t.Run(c.name+"/"+tool, func(t *testing.T) {
				env := tools.CallTool(t, context.Background(), tool, args)
				tools.WantFail(t, env, c.code)
				if !strings.Contains(fmt.Sprint(env["error"]), c.says) {
					t.Errorf("error %q should mention %q", env["error"], c.says)
				}
			})
		}
	}
	if n := aws.calls.Load(); n != 0 {
		t.Errorf("%d AWS requests were made for bad inputs; want none", n)
	}
	// a pipeline that is not deployable compiles in compile.definition and
	// compile.validate, which say why (a blocker naming the field) and
	// offer no deploying next step; the verdict makes the CLI exit 1
	for _, c := range compileBadInputs(t) {
		if c.code != envelope.CodeNotDeployable {
			continue
		}
		for _, tool := range []string{"compile.definition", "compile.validate"} {
			env := tools.CallTool(t, context.Background(), tool, c.args)
			d := tools.WantOK(t, env)
			if d["deployable"] != false || len(d["blockers"].([]any)) == 0 || !strings.Contains(fmt.Sprint(d["blockers"]), c.says) {
				t.Errorf("%s %s: deployable %v, blockers %v; want a blocker that says %q", c.name, tool, d["deployable"], d["blockers"], c.says)
			}
			if env["meta"].(map[string]any)["verdict"] != envelope.VerdictFail {
				t.Errorf("%s %s: verdict %v", c.name, tool, env["meta"])
			}
			for _, ns := range nextSteps(env) {
				if ns == "compile.dag" {
					t.Errorf("%s %s: next_steps offer compile.dag", c.name, tool)
				}
			}
		}
	}
}

// nextSteps are the tools an envelope's next_steps name.
func nextSteps(env map[string]any) []string {
	var out []string
	list, _ := env["next_steps"].([]any)
	for _, x := range list {
		out = append(out, fmt.Sprint(x.(map[string]any)["tool"]))
	}
	return out
}

// An AWS error comes back as upsert_failed with the AWS error code.
func TestCompileDAGUpsertError(t *testing.T) {
	aws := newCountingAWS(t, 403, "AccessDenied", "Access Denied")
	compileAWSEnv(t, aws.srv.URL)
	args := compileExampleArgs("simple-training")
	args["upsert"] = true
	env := tools.CallTool(t, context.Background(), "compile.dag", args)
	tools.WantFail(t, env, envelope.CodeUpsertFailed)
	det := env["meta"].(map[string]any)["details"].(map[string]any)
	if det["aws_error_code"] != "AccessDenied" || !strings.HasPrefix(det["operation"].(string), "s3:") {
		t.Errorf("details %v", det)
	}
	if aws.calls.Load() == 0 {
		t.Error("the stand-in saw no request")
	}

	// a SageMaker-side error: uploads succeed (moto-less stand-in answers
	// S3 with 200), CreatePipeline fails with ResourceLimitExceeded
	var sagemakerCalls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		target := r.Header.Get("X-Amz-Target")
		switch {
		case target == "SageMaker.DescribePipeline":
			sagemakerCalls.Add(1)
			w.Header().Set("Content-Type", "application/x-amz-json-1.1")
			w.WriteHeader(400)
			fmt.Fprint(w, `{"__type":"ResourceNotFound","message":"Pipeline does not exist"}`)
		case strings.HasPrefix(target, "SageMaker."):
			sagemakerCalls.Add(1)
			w.Header().Set("Content-Type", "application/x-amz-json-1.1")
			w.WriteHeader(400)
			fmt.Fprint(w, `{"__type":"ResourceLimitExceeded","message":"too many pipelines"}`)
		case r.Method == http.MethodHead:
			w.WriteHeader(404)
		default:
			w.Header().Set("ETag", `"x"`)
			w.WriteHeader(200)
		}
	}))
	defer srv.Close()
	compileAWSEnv(t, srv.URL)
	env = tools.CallTool(t, context.Background(), "compile.dag", args)
	tools.WantFail(t, env, envelope.CodeUpsertFailed)
	det = env["meta"].(map[string]any)["details"].(map[string]any)
	// every object of the upload manifest went up: a directory artifact (a
	// catalog script with its steplib modules) is one object per file
	objects := 0
	for _, a := range tools.WantOK(t, tools.CallTool(t, context.Background(), "compile.definition", compileExampleArgs("simple-training")))["upload_manifest"].([]any) {
		if a := a.(map[string]any); a["kind"] == "directory" {
			objects += len(a["files"].([]any))
		} else {
			objects++
		}
	}
	if det["aws_error_code"] != "ResourceLimitExceeded" || det["operation"] != "sagemaker:CreatePipeline" || objects < 3 || len(det["uploaded"].([]any)) != objects {
		t.Errorf("details %v, want %d objects uploaded", det, objects)
	}
}

func TestCompileDAGBuildOnly(t *testing.T) {
	env := tools.CallTool(t, context.Background(), "compile.dag", compileExampleArgs("xgboost-end-to-end"))
	data := tools.WantOK(t, env)
	if data["upserted"] != false || data["pipeline_name"] != "alice-AtoZ-xgboost-NA-1-3-1-pipeline" || data["step_count"].(float64) != 10 {
		t.Errorf("data %v", data)
	}
	w, _ := env["warnings"].([]any)
	if len(w) == 0 || !strings.Contains(fmt.Sprint(w), "build only") {
		t.Errorf("warnings %v", w)
	}
}

// A project's own step (a workspace directory) compiles when the compile
// tools get workspace_dirs, and is unknown without them.
func TestCompileWorkspaceDirs(t *testing.T) {
	ws := t.TempDir()
	step := `step: EchoStep
verb: Processing
kind: source
description: Writes what it is given, for the workspace test.
compute:
  kind: sklearn
contract:
  entry_point: echo.py
outputs:
  - name: echoed
    type: processing_output
    path: /opt/ml/processing/output/echoed
    description: The echo.
fields:
  - {name: processing_entry_point, default: echo.py}
`
	if err := os.WriteFile(filepath.Join(ws, "EchoStep.step.yaml"), []byte(step), 0o644); err != nil {
		t.Fatal(err)
	}
	proj := t.TempDir()
	if err := os.WriteFile(filepath.Join(proj, "echo.py"), []byte("print('echo')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{"configuration": map[string]any{"shared": map[string]any{}, "specific": map[string]any{"EchoStep": map[string]any{
		"__model_type__": "EchoStepConfig", "author": "alice", "bucket": "example-bucket", "role": "arn:aws:iam::123456789012:role/R",
		"region": "NA", "service_name": "Echo", "pipeline_version": "1.0.0", "project_root_folder": "echo"}}},
		"metadata": map[string]any{"config_types": map[string]any{"EchoStep": "EchoStepConfig"}}}
	b, _ := json.Marshal(cfg)
	cfgFile := filepath.Join(proj, "config.json")
	if err := os.WriteFile(cfgFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"dag": map[string]any{"nodes": []any{"EchoStep"}}, "config_file": cfgFile, "workspace_dirs": []any{ws}}
	data := tools.WantOK(t, tools.CallTool(t, context.Background(), "compile.validate", args))
	if data["is_valid"] != true {
		t.Fatalf("validate with the workspace: %v", data)
	}
	data = tools.WantOK(t, tools.CallTool(t, context.Background(), "compile.definition", args))
	if data["steps"].([]any)[0] != "EchoStep" {
		t.Errorf("steps %v", data["steps"])
	}
	delete(args, "workspace_dirs")
	tools.WantFail(t, tools.CallTool(t, context.Background(), "compile.definition", args), envelope.CodeInvalidInput)
}

// compile.definition with output_file writes the definition (the bytes it
// would answer) atomically and answers without it; where writes are closed
// the argument is refused and nothing is written; a path out of the
// project root is refused naming it.
func TestCompileDefinitionOutputFile(t *testing.T) {
	root, ctx := exampleProject(t)
	args := compileExampleArgs("simple-training")
	for k, v := range args {
		args[k] = strings.TrimPrefix(v.(string), "../")
	}
	inline := cursus.Registry().Call(ctx, "compile.definition", args)
	if !inline.OK {
		t.Fatalf("inline: %s", inline.Error)
	}
	want := inline.Data.(tools.CompileDefinitionData).Definition

	args["output_file"] = "build/pipeline.definition.json"
	res := cursus.Registry().Call(ctx, "compile.definition", args)
	if !res.OK {
		t.Fatalf("output_file: %s %s", res.Code, res.Error)
	}
	data := res.Data.(tools.CompileDefinitionData)
	path := filepath.Join(root, "build", "pipeline.definition.json")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("the file holds %d bytes, not the %d-byte definition the answer would carry", len(got), len(want))
	}
	if data.Definition != nil || data.DefinitionFile != path || data.DefinitionBytes != len(want) || data.StepCount == 0 {
		t.Errorf("answer: definition %d bytes, definition_file %q, definition_bytes %d, step_count %d", len(data.Definition), data.DefinitionFile, data.DefinitionBytes, data.StepCount)
	}
	b, _ := json.Marshal(res)
	if strings.Contains(string(b), `"definition":`) {
		t.Errorf("the answer still carries the definition: %.200s", b)
	}

	p := *registry.PolicyFrom(ctx)
	p.AllowDestructive = false
	args["output_file"] = "build/closed.json"
	closed := cursus.Registry().Call(registry.WithPolicy(context.Background(), p), "compile.definition", args)
	if closed.Code != envelope.CodeToolDisabled || !strings.Contains(closed.Error, "output_file") {
		t.Errorf("writes closed: %s %s", closed.Code, closed.Error)
	}
	if _, err := os.Stat(filepath.Join(root, "build", "closed.json")); !os.IsNotExist(err) {
		t.Errorf("a refused output_file was written (%v)", err)
	}

	args["output_file"] = "../outside.json"
	if out := cursus.Registry().Call(ctx, "compile.definition", args); out.Code != envelope.CodeInvalidInput {
		t.Errorf("outside the root: %s %s", out.Code, out.Error)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(root), "outside.json")); !os.IsNotExist(err) {
		t.Errorf("a file outside the root was written (%v)", err)
	}
}
