package tools_test

import (
	"context"
	"fmt"
	"github.com/cursus-go/cursus/internal/testfs"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/cursus-go/cursus/engine/localrun"
	"github.com/cursus-go/cursus/internal/testenv"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/tools"
)

// The xgboost-end-to-end example ships no scripts: every step runs the
// catalog's code, so the definition is deployable. These tests hold that
// code to the steps' contracts (validate.alignment), run it end to end on
// this machine (validate.run_scripts) and upsert the pipeline against a
// stand-in AWS endpoint, checking every artifact of the upload manifest is
// uploaded.

const xgbExample = "../examples/xgboost-end-to-end"

// xgbScriptSteps are the example's step types that run a script of ours.
var xgbScriptSteps = []any{"CradleDataLoading", "TabularPreprocessing", "XGBoostTraining", "XGBoostTuning",
	"XGBoostModelEval", "ModelCalibration", "Package", "Payload"}

func TestXGBoostExampleScriptsMatchTheirContracts(t *testing.T) {
	if testenv.Python() == "" {
		testenv.Missing(t, "python3 is needed to check the scripts: set CURSUS_PYTHON or install /usr/bin/python3")
	}
	env := tools.CallTool(t, context.Background(), "validate.alignment", map[string]any{
		"target_scripts": xgbScriptSteps})
	d := tools.WantOK(t, env)
	steps := d["detailed_results"].([]any)
	if len(steps) != len(xgbScriptSteps) {
		t.Fatalf("checked %d steps: %v", len(steps), d["target_scripts"])
	}
	for _, s := range steps {
		name := s.(map[string]any)["step_name"]
		for level, l := range s.(map[string]any)["validation_results"].(map[string]any) {
			l := l.(map[string]any)
			if l["status"] != "PASSED" {
				t.Errorf("%s %s: %v", name, level, l["status"])
			}
			issues, _ := l["issues"].([]any)
			for _, i := range issues {
				if sev := i.(map[string]any)["severity"]; sev != "INFO" {
					t.Errorf("%s %s: %s %s", name, level, sev, i.(map[string]any)["message"])
				}
			}
		}
		// Every step's script is the catalog's.
		script := fmt.Sprint(s.(map[string]any)["validation_results"].(map[string]any)["level_1"].(map[string]any)["script"])
		if !strings.HasPrefix(script, "embedded:scripts/") {
			t.Errorf("%s checked %v", name, script)
		}
	}
}

func TestXGBoostExampleRunsLocally(t *testing.T) {
	if testing.Short() {
		t.Skip("runs nine Python scripts")
	}
	testenv.Need(t, localrun.Ready("pandas", "sklearn", "xgboost"))
	root := t.TempDir()
	testfs.CopyTree(t, xgbExample, root)
	// No input_data: the compiler mounts Cradle's specs as
	// <field>/<field>.json and Package's inference scripts from config, and
	// run_scripts does the same locally.
	dagArg := exampleDAG(t)["dag"].(map[string]any)
	ctx := registry.WithPolicy(context.Background(), registry.Policy{AllowDestructive: true, AllowScriptExec: true, ProjectRoot: root})
	env := tools.CallTool(t, ctx, "validate.run_scripts", map[string]any{
		"dag": dagArg, "config_file": "config.json",
		"test_workspace_dir": "runs"})
	d := tools.WantOK(t, env)
	results := d["script_results"].(map[string]any)
	for node, r := range results {
		r := r.(map[string]any)
		if node == "Registration" {
			continue // RegisterModel runs no script
		}
		if r["status"] != "success" {
			t.Errorf("%s: %v %v\n%v", node, r["status"], r["error_message"], r["stderr_tail"])
		}
	}
	files := func(node string) string { return fmt.Sprint(results[node].(map[string]any)["output_files"]) }
	for node, want := range map[string]string{
		"CradleDataLoading_training":    "DATA/part-00000.csv",
		"TabularPreprocessing_training": "processed_data/train/train_processed_data.csv",
		"XGBoostTraining":               "model_output/risk_table_map.json",
		"XGBoostModelEval_calibration":  "eval_output/eval_predictions.csv",
		"ModelCalibration_calibration":  "calibration_output/calibration_model.json",
		"Package":                       "packaged_model/model.tar.gz",
		"Payload":                       "payload_sample/payload.tar.gz",
	} {
		if !strings.Contains(files(node), want) {
			t.Errorf("%s outputs %s, want %s", node, files(node), want)
		}
	}
	if tail := fmt.Sprint(results["Package"].(map[string]any)["stdout_tail"]); !strings.Contains(tail, "code/inference.py") || !strings.Contains(tail, "calibration/calibration_model.json") {
		t.Errorf("Package did not bundle the inference code and calibrator: %v", results["Package"].(map[string]any)["stdout_tail"])
	}
}

// TestXGBoostExampleUpsertUploadsEverything: compile.dag with upsert
// uploads every artifact of the manifest (scripts, the training source
// tarball, the inference scripts and the generated Cradle spec files) and
// creates the pipeline, against a stand-in AWS endpoint.
func TestXGBoostExampleUpsertUploadsEverything(t *testing.T) {
	var mu sync.Mutex
	var puts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		switch target := r.Header.Get("X-Amz-Target"); {
		case target == "SageMaker.DescribePipeline":
			w.Header().Set("Content-Type", "application/x-amz-json-1.1")
			w.WriteHeader(400)
			fmt.Fprint(w, `{"__type":"ResourceNotFound","message":"Pipeline does not exist"}`)
		case strings.HasPrefix(target, "SageMaker."):
			w.Header().Set("Content-Type", "application/x-amz-json-1.1")
			fmt.Fprint(w, `{"PipelineArn":"arn:aws:sagemaker:us-east-1:123456789012:pipeline/x"}`)
		case r.Method == http.MethodHead:
			w.WriteHeader(404)
		default:
			if r.Method == http.MethodPut {
				mu.Lock()
				puts = append(puts, r.URL.Path)
				mu.Unlock()
			}
			w.Header().Set("ETag", `"x"`)
		}
	}))
	defer srv.Close()
	compileAWSEnv(t, srv.URL)
	args := compileExampleArgs("xgboost-end-to-end")
	args["upsert"] = true
	env := tools.CallTool(t, context.Background(), "compile.dag", args)
	d := tools.WantOK(t, env)
	if d["upserted"] != true {
		t.Fatalf("not upserted: %v", d)
	}
	if w := fmt.Sprint(env["warnings"]); strings.Contains(w, "missing") || strings.Contains(w, "does not exist") {
		t.Errorf("warnings about missing files: %s", w)
	}
	sort.Strings(puts)
	all := strings.Join(puts, "\n")
	for _, want := range []string{"/data_sources_spec.json", "/transform_spec.json", "/output_spec.json", "/cradle_job_spec.json",
		"/cradle_data_loading.py", "/sourcedir.tar.gz", "/runproc.py", "/package.py", "/payload.py", "/inference.py", "/field_defaults.json"} {
		if !strings.Contains(all, want) {
			t.Errorf("nothing uploaded to *%s; uploads:\n%s", want, all)
		}
	}
	if strings.Contains(all, "/missing/") {
		t.Errorf("a missing artifact was uploaded:\n%s", all)
	}
}
