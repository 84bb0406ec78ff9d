package codetest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler/scripttest"
)

// writeTasks writes rows with numeric x1..x3, categorical c1 and three 0/1 task labels:
// chargeback (x1 and c1 drive it), ato (x2 drives it) and abuse, the main task, positive when
// either is; every 17th row misses its ato label.
func writeTasks(t *testing.T, path string, n int, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 11))
	effect := map[string]float64{"a": 1.2, "b": -1.2, "c": 0.3, "d": -0.3}
	cats := []string{"a", "b", "c", "d"}
	var rows [][]string
	for i := 0; i < n; i++ {
		x1, x2, x3 := r.NormFloat64(), r.NormFloat64(), r.NormFloat64()
		c := cats[r.IntN(4)]
		cb, ato := 0, 0
		if 1.5*x1+effect[c]+0.3*r.NormFloat64() > 1.0 {
			cb = 1
		}
		if 2*x2+0.3*r.NormFloat64() > 1.5 {
			ato = 1
		}
		atoS := strconv.Itoa(ato)
		if i%17 == 0 {
			atoS = ""
		}
		rows = append(rows, []string{fmt.Sprintf("r%d", i), strconv.FormatFloat(x1, 'f', 5, 64), strconv.FormatFloat(x2, 'f', 5, 64),
			strconv.FormatFloat(x3, 'f', 5, 64), c, strconv.Itoa(max(cb, ato)), strconv.Itoa(cb), atoS})
	}
	writeRows(t, path, []string{"id", "x1", "x2", "x3", "c1", "is_abuse", "is_chargeback", "is_ato"}, rows)
}

func TestXgboostMtTrainsOneModelForEveryTask(t *testing.T) {
	t.Parallel()
	sb := needSandbox(t, "numpy", "pandas", "sklearn", "xgboost")
	d := newTrainingDirs(t)
	for i, split := range []string{"train", "val", "test"} {
		writeTasks(t, filepath.Join(d.input, "data", split, split+".csv"), map[string]int{"train": 900, "val": 250, "test": 250}[split], uint64(i+1))
	}
	hp := map[string]any{"task_label_names": []string{"is_abuse", "is_chargeback", "is_ato"}, "tab_field_list": []string{"x1", "x2", "x3"},
		"cat_field_list": []string{"c1"}, "num_round": 80, "max_depth": 4, "eta": 0.2}
	d.writeHyperparameters(t, hp)
	out := sb.mustRun(t, job{script: "xgboost_mt_training.py", codeDir: "/opt/ml/code", binds: d.binds(), env: trainingEnv(), args: toolkitArgs(hp)})
	cfg := readJSON(t, filepath.Join(d.model, "model_config.json"))
	if cfg["framework"] != "xgboost_mt" || fmt.Sprint(cfg["tasks"]) != "[is_abuse is_chargeback is_ato]" {
		t.Fatalf("model_config %v\n%s", cfg, out)
	}
	testM := readJSON(t, filepath.Join(d.output, "data", "test", "metrics.json"))
	tasks := testM["tasks"].(map[string]any)
	for _, task := range []string{"is_abuse", "is_chargeback", "is_ato"} {
		m := tasks[task].(map[string]any)
		if auc := metric(t, m, "auc"); auc < 0.85 {
			t.Errorf("test auc of %s %.3f\n%s", task, auc, out)
		}
	}
	if tasks["is_ato"].(map[string]any)["rows"].(float64) >= 250 {
		t.Errorf("rows missing the ato label counted for it: %v", tasks["is_ato"])
	}
	if testM["main_task"] != "is_abuse" || metric(t, testM, "auc") != metric(t, tasks["is_abuse"].(map[string]any), "auc") {
		t.Errorf("the main task's metrics are not under the plain names: %v", testM)
	}

	// the eval step scores the packed model on the test split: the same metrics
	p := newProcessingDirs(t)
	scripttest.PackTarGz(t, d.model, p.path("input/model/model.tar.gz"))
	copyFile(t, filepath.Join(d.input, "data", "test", "test.csv"), p.path("input/eval_data/test.csv"))
	sb.mustRun(t, job{script: "xgboost_mt_model_eval.py", codeDir: "/opt/ml/processing/input/code", binds: p.binds(), env: map[string]string{"ID_FIELD": "id"}, args: []string{"--job_type", "testing"}})
	m := readJSON(t, p.path("output/metrics/metrics.json"))
	for _, task := range []string{"is_abuse", "is_chargeback", "is_ato"} {
		got, want := metric(t, m["tasks"].(map[string]any)[task].(map[string]any), "auc"), metric(t, tasks[task].(map[string]any), "auc")
		if !near(got, want, 1e-6) {
			t.Errorf("eval auc of %s %v, training's test %v", task, got, want)
		}
	}
	header, rows := readCSV(t, p.path("output/eval/eval_predictions.csv"))
	if len(rows) != 250 || column(t, header, "prob_is_ato") < 0 || column(t, header, "prob_class_1") < 0 {
		t.Errorf("eval_predictions: %v, %d rows", header, len(rows))
	}

	// the serving code answers each test row with the eval step's probabilities
	outDir, rowsDir := t.TempDir(), t.TempDir()
	copyFile(t, filepath.Join(d.input, "data", "test", "test.csv"), filepath.Join(rowsDir, "rows.csv"))
	sb.mustRun(t, job{script: "inference/multitask/inference.py", codeDir: "/opt/ml/model/code", extra: map[string]string{"serve.py": serveDriver}, entry: "serve.py",
		binds: map[string]string{"/opt/ml/model": d.model, "/opt/ml/output": outDir, "/opt/ml/input/data": rowsDir}, args: []string{"/opt/ml/input/data/rows.csv"}})
	served := readJSON(t, filepath.Join(outDir, "served.json"))
	lines, _ := served["csv"].([]any)
	if len(lines) != 251 || lines[0] != "prob_is_abuse,prob_is_chargeback,prob_is_ato" {
		t.Fatalf("served CSV: %d lines, header %v", len(lines), lines[0])
	}
	for i, row := range rows {
		for k, task := range []string{"is_abuse", "is_chargeback", "is_ato"} {
			got, _ := strconv.ParseFloat(strings.Split(lines[i+1].(string), ",")[k], 64)
			want, _ := strconv.ParseFloat(row[column(t, header, "prob_"+task)], 64)
			if !near(got, want, 1e-6) {
				t.Fatalf("row %d task %s: served %v, eval %v", i, task, got, want)
			}
		}
	}

	// a single task is refused, naming the field
	bad := newTrainingDirs(t)
	writeTasks(t, filepath.Join(bad.input, "data", "train", "train.csv"), 50, 1)
	writeTasks(t, filepath.Join(bad.input, "data", "val", "val.csv"), 20, 2)
	hp["task_label_names"] = []string{"is_abuse"}
	bad.writeHyperparameters(t, hp)
	if out, err := sb.run(t, job{script: "xgboost_mt_training.py", codeDir: "/opt/ml/code", binds: bad.binds(), env: trainingEnv()}); err == nil || !strings.Contains(out, "task_label_names") {
		t.Errorf("one task passed: %v\n%s", err, out)
	}
	if failure, _ := os.ReadFile(filepath.Join(bad.output, "failure")); !strings.Contains(string(failure), "task_label_names") {
		t.Errorf("FailureReason %q", failure)
	}
}

// TestLightGBMMTCodeWithoutLightGBM runs everywhere: each multi-task LightGBM script stops at
// once, saying lightgbm is missing from the image (and the training job's FailureReason), as the
// single-task ones do. (Debian has no lightgbm; with PYTHONPATH at a lightgbm build the code runs
// for real through needLightGBM's tests.)
func TestLightGBMMTCodeWithoutLightGBM(t *testing.T) {
	t.Parallel()
	sb := needSandbox(t, "numpy", "pandas")
	broken := map[string]string{"lightgbm.py": "raise ImportError('No module named lightgbm (test stand-in)')\n"}
	d := newTrainingDirs(t)
	writeTasks(t, filepath.Join(d.input, "data", "train", "train.csv"), 50, 1)
	d.writeHyperparameters(t, map[string]any{"task_label_names": []string{"is_abuse", "is_ato"}, "tab_field_list": []string{"x1"}})
	out, err := sb.run(t, job{script: "lightgbmmt_training.py", codeDir: "/opt/ml/code", extra: broken, binds: d.binds(), env: trainingEnv()})
	if err == nil || !strings.Contains(out, "lightgbm is not installed in this image") {
		t.Errorf("training: %v\n%s", err, out)
	}
	if failure, _ := os.ReadFile(filepath.Join(d.output, "failure")); !strings.Contains(string(failure), "lightgbm is not installed") {
		t.Errorf("FailureReason %q", failure)
	}
	for _, script := range []string{"lightgbmmt_model_eval.py", "lightgbmmt_model_inference.py"} {
		p := newProcessingDirs(t)
		mkdir(t, p.path("input/model"))
		out, err := sb.run(t, job{script: script, codeDir: "/opt/ml/processing/input/code", extra: broken, binds: p.binds(),
			env: map[string]string{"ID_FIELD": "id"}, args: []string{"--job_type", "testing"}})
		if err == nil || !strings.Contains(out, "lightgbm is not installed in this image") {
			t.Errorf("%s: %v\n%s", script, err, out)
		}
	}
}

func TestLightGBMMTTrainEvalInfer(t *testing.T) {
	t.Parallel()
	sb := needLightGBM(t)
	d := newTrainingDirs(t)
	for i, split := range []string{"train", "val", "test"} {
		writeTasks(t, filepath.Join(d.input, "data", split, split+".csv"), map[string]int{"train": 900, "val": 250, "test": 250}[split], uint64(i+1))
	}
	hp := map[string]any{"task_label_names": []string{"is_abuse", "is_chargeback", "is_ato"}, "tab_field_list": []string{"x1", "x2", "x3"},
		"cat_field_list": []string{"c1"}, "num_boost_round": 80, "min_data_in_leaf": 10}
	d.writeHyperparameters(t, hp)
	out := sb.mustRun(t, job{script: "lightgbmmt_training.py", codeDir: "/opt/ml/code", binds: d.binds(), env: trainingEnv(), args: toolkitArgs(hp)})
	testM := readJSON(t, filepath.Join(d.output, "data", "test", "metrics.json"))
	for task, m := range testM["tasks"].(map[string]any) {
		if auc := metric(t, m.(map[string]any), "auc"); auc < 0.85 {
			t.Errorf("test auc of %s %.3f\n%s", task, auc, out)
		}
	}
	p := newProcessingDirs(t)
	scripttest.PackTarGz(t, d.model, p.path("input/model/model.tar.gz"))
	copyFile(t, filepath.Join(d.input, "data", "test", "test.csv"), p.path("input/eval_data/test.csv"))
	sb.mustRun(t, job{script: "lightgbmmt_model_eval.py", codeDir: "/opt/ml/processing/input/code", binds: p.binds(), env: map[string]string{"ID_FIELD": "id"}, args: []string{"--job_type", "testing"}})
	if !near(metric(t, readJSON(t, p.path("output/metrics/metrics.json")), "mean_auc"), metric(t, testM, "mean_auc"), 1e-6) {
		t.Errorf("eval and training's test pass disagree")
	}
	sb.mustRun(t, job{script: "lightgbmmt_model_inference.py", codeDir: "/opt/ml/processing/input/code", binds: p.binds(), env: map[string]string{"ID_FIELD": "id"}, args: []string{"--job_type", "testing"}})
	if header, _ := readCSV(t, p.path("output/eval/predictions.csv")); column(t, header, "prob_is_chargeback") < 0 {
		t.Errorf("predictions: %v", header)
	}
}
