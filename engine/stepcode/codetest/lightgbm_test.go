package codetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler/scripttest"
)

// needLightGBM returns a sandbox whose Python imports lightgbm, or skips the test, under CI
// too: Debian bookworm has no lightgbm package and CI reaches no other package index, so no CI
// machine can have it. (The scripts' behaviour without it is tested everywhere, below.)
func needLightGBM(t *testing.T) *scriptSandbox {
	t.Helper()
	sb := needSandbox(t, "numpy", "pandas", "sklearn")
	if out, err := exec.Command(sb.python, "-c", "import lightgbm").CombinedOutput(); err != nil {
		t.Skipf("%s cannot import lightgbm (no bookworm package; point PYTHONPATH at a lightgbm build to run this): %s", sb.python, lastLine(string(out)))
	}
	return sb
}

func lgbHyperparameters(extra map[string]any) map[string]any {
	hp := map[string]any{
		"label_name": "label", "id_name": "id", "objective": "binary",
		"tab_field_list": []string{"x1", "x2", "x3"}, "cat_field_list": []string{"c1"},
		"num_boost_round": 60, "num_leaves": 7, "learning_rate": 0.1, "min_data_in_leaf": 10, "min_data_per_group": 10,
		"early_stopping_rounds": 10,
	}
	for k, v := range extra {
		hp[k] = v
	}
	return hp
}

// lightgbmRoundTrip trains, evaluates the packed model on the test split (the same metrics as
// training's own test pass), runs batch inference (the same probabilities) and serves the test
// rows (the same again).
func lightgbmRoundTrip(t *testing.T, ds dataset, hp map[string]any, env map[string]string, minAUC float64) map[string]any {
	sb := needLightGBM(t)
	d, out := train(t, sb, "lightgbm_training.py", ds, hp, env)
	for _, f := range []string{"lightgbm_model.txt", "model_config.json", "feature_importance.json", "hyperparameters.json"} {
		if _, err := os.Stat(filepath.Join(d.model, f)); err != nil {
			t.Fatalf("training wrote no %s: %v\n%s", f, err, out)
		}
	}
	testM := readJSON(t, filepath.Join(d.output, "data", "test", "metrics.json"))
	if auc := metric(t, testM, "auc"); auc < minAUC {
		t.Errorf("test auc %.3f < %.2f\n%s", auc, minAUC, out)
	}
	p := newProcessingDirs(t)
	scripttest.PackTarGz(t, d.model, p.path("input/model/model.tar.gz"))
	copyFile(t, filepath.Join(d.input, "data", "test", "test.csv"), p.path("input/eval_data/test.csv"))
	sb.mustRun(t, job{script: "lightgbm_model_eval.py", codeDir: "/opt/ml/processing/input/code", binds: p.binds(),
		env: map[string]string{"ID_FIELD": "id", "LABEL_FIELD": "label", "EVAL_METRIC_CHOICES": "auc,average_precision,f1_score,accuracy,log_loss"}, args: []string{"--job_type", "testing"}})
	m := readJSON(t, p.path("output/metrics/metrics.json"))
	for _, k := range []string{"auc", "average_precision", "f1_score", "accuracy", "log_loss"} {
		if !near(metric(t, m, k), metric(t, testM, k), 1e-6) {
			t.Errorf("eval %s %v, training's test %s %v", k, m[k], k, testM[k])
		}
	}
	evalProbs := probs(t, p.path("output/eval/eval_predictions.csv"), "id")

	q := newProcessingDirs(t)
	copyFile(t, p.path("input/model/model.tar.gz"), q.path("input/model/model.tar.gz"))
	copyFile(t, filepath.Join(d.input, "data", "test", "test.csv"), q.path("input/eval_data/test.csv"))
	sb.mustRun(t, job{script: "lightgbm_model_inference.py", codeDir: "/opt/ml/processing/input/code", binds: q.binds(),
		env: map[string]string{"ID_FIELD": "id", "LABEL_FIELD": "label"}, args: []string{"--job_type", "testing"}})
	for id, pr := range probs(t, q.path("output/eval/predictions.csv"), "id") {
		for k := range pr {
			if !near(pr[k], evalProbs[id][k], 1e-9) {
				t.Fatalf("row %s: inference %v, eval %v", id, pr, evalProbs[id])
			}
		}
	}
	checkServed(t, serve(t, sb, "lightgbm", p.path("input/model/model.tar.gz"), filepath.Join(d.input, "data", "test", "test.csv")), evalProbs, 1e-9)
	return readJSON(t, filepath.Join(d.model, "model_config.json"))
}

func TestLightGBMBinaryNativeCategorical(t *testing.T) {
	cfg := lightgbmRoundTrip(t, dataset{classes: 2}, lgbHyperparameters(nil), nil, 0.85)
	if cfg["native_categorical"] != true || fmt.Sprint(cfg["categorical_mappings"]) != "map[c1:map[a:0 b:1 c:2 d:3]]" {
		t.Errorf("model_config: native %v mappings %v", cfg["native_categorical"], cfg["categorical_mappings"])
	}
}

func TestLightGBMMulticlassStringLabels(t *testing.T) {
	hp := lgbHyperparameters(map[string]any{"objective": "multiclass", "num_class": 3, "multiclass_categories": []string{"low", "mid", "high"}, "class_weights": []float64{1, 1, 1.5}})
	cfg := lightgbmRoundTrip(t, dataset{classes: 3, labels: []string{"low", "mid", "high"}}, hp, nil, 0.85)
	if fmt.Sprint(cfg["classes"]) != "[low mid high]" {
		t.Errorf("classes %v", cfg["classes"])
	}
	if p, _ := cfg["params"].(map[string]any); p["objective"] != "multiclass" || p["num_class"] != float64(3) {
		t.Errorf("params %v", cfg["params"])
	}
}

func TestLightGBMRiskTablesAndSelectedFeatures(t *testing.T) {
	sb := needLightGBM(t)
	d := newTrainingDirs(t)
	dataset{classes: 2}.writeChannels(t, filepath.Join(d.input, "data"))
	writeJSON(t, filepath.Join(d.input, "data", "model_artifacts_input", "selected_features.json"), map[string]any{"selected_features": []string{"x1", "x2", "c1"}})
	hp := lgbHyperparameters(map[string]any{"smooth_factor": 0.01})
	d.writeHyperparameters(t, hp)
	env := trainingEnv()
	env["USE_NATIVE_CATEGORICAL"] = "false"
	env["USE_PRECOMPUTED_FEATURES"] = "true"
	out := sb.mustRun(t, job{script: "lightgbm_training.py", codeDir: "/opt/ml/code", binds: d.binds(), env: env})
	cfg := readJSON(t, filepath.Join(d.model, "model_config.json"))
	if fmt.Sprint(cfg["feature_columns"]) != "[x1 x2 c1]" || cfg["native_categorical"] != false {
		t.Errorf("feature_columns %v native %v\n%s", cfg["feature_columns"], cfg["native_categorical"], out)
	}
	rt, _ := cfg["risk_tables"].(map[string]any)
	c1, _ := rt["c1"].(map[string]any)
	bins, _ := c1["bins"].(map[string]any)
	if a, b := bins["a"].(float64), bins["b"].(float64); !(a > 0.6 && b < 0.4) {
		t.Errorf("risk table of c1 %v: category a raises the label, b lowers it", bins)
	}
	if auc := metric(t, readJSON(t, filepath.Join(d.output, "data", "val", "metrics.json")), "auc"); auc < 0.85 {
		t.Errorf("val auc %.3f", auc)
	}
}

func TestLightGBMTrainingRefusesBadHyperparameters(t *testing.T) {
	sb := needLightGBM(t)
	for name, c := range map[string]struct {
		hp   map[string]any
		want string
	}{
		"no features":                {map[string]any{"label_name": "label"}, "tab_field_list"},
		"objective":                  {lgbHyperparameters(map[string]any{"objective": "regression"}), "objective"},
		"class weights":              {lgbHyperparameters(map[string]any{"class_weights": []float64{1}}), "class_weights"},
		"selected, no file":          {lgbHyperparameters(nil), "selected_features.json"},
		"binary objective, 3 labels": {lgbHyperparameters(nil), "not among the classes"},
	} {
		t.Run(name, func(t *testing.T) {
			d := newTrainingDirs(t)
			ds := dataset{classes: 2}
			if strings.Contains(name, "3 labels") {
				ds.classes = 3
			}
			ds.writeChannels(t, filepath.Join(d.input, "data"))
			d.writeHyperparameters(t, c.hp)
			env := trainingEnv()
			if name == "selected, no file" {
				env["USE_PRECOMPUTED_FEATURES"] = "true"
			}
			out, err := sb.run(t, job{script: "lightgbm_training.py", codeDir: "/opt/ml/code", binds: d.binds(), env: env})
			if err == nil || !strings.Contains(out, c.want) {
				t.Fatalf("want a failure naming %q, got %v:\n%s", c.want, err, out)
			}
		})
	}
}

// TestLightGBMCodeWithoutLightGBM runs everywhere: in an image without lightgbm each LightGBM
// script stops at once with a message that says so (and the training job's FailureReason),
// instead of a traceback or a half-written output. A lightgbm package that cannot be imported
// stands in front of any real one in the script's own directory.
func TestLightGBMCodeWithoutLightGBM(t *testing.T) {
	sb := needSandbox(t, "numpy", "pandas")
	broken := map[string]string{"lightgbm.py": "raise ImportError('No module named lightgbm (test stand-in)')\n"}
	d := newTrainingDirs(t)
	dataset{classes: 2}.writeChannels(t, filepath.Join(d.input, "data"))
	d.writeHyperparameters(t, lgbHyperparameters(nil))
	out, err := sb.run(t, job{script: "lightgbm_training.py", codeDir: "/opt/ml/code", extra: broken, binds: d.binds(), env: trainingEnv()})
	if err == nil || !strings.Contains(out, "lightgbm is not installed in this image") || !strings.Contains(out, "image_uri") {
		t.Errorf("training: %v\n%s", err, out)
	}
	if failure, _ := os.ReadFile(filepath.Join(d.output, "failure")); !strings.Contains(string(failure), "lightgbm is not installed") {
		t.Errorf("FailureReason %q", failure)
	}
	if entries, _ := os.ReadDir(d.model); len(entries) != 0 {
		t.Errorf("the failed job wrote %d files to /opt/ml/model", len(entries))
	}
	for _, script := range []string{"lightgbm_model_eval.py", "lightgbm_model_inference.py"} {
		p := newProcessingDirs(t)
		mkdir(t, p.path("input/model"))
		out, err := sb.run(t, job{script: script, codeDir: "/opt/ml/processing/input/code", extra: broken, binds: p.binds(),
			env: map[string]string{"ID_FIELD": "id", "LABEL_FIELD": "label"}, args: []string{"--job_type", "testing"}})
		if err == nil || !strings.Contains(out, "lightgbm is not installed in this image") {
			t.Errorf("%s: %v\n%s", script, err, out)
		}
	}
}
