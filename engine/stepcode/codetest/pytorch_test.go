package codetest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler/scripttest"
)

var torchModules = []string{"torch", "numpy", "pandas", "sklearn"}

func torchHyperparameters(extra map[string]any) map[string]any {
	hp := map[string]any{
		"label_name": "label", "id_name": "id",
		"tab_field_list": []string{"x1", "x2", "x3"}, "cat_field_list": []string{"c1"},
		"max_epochs": 12, "hidden_dims": []int{16}, "lr": 0.02, "batch_size": 32,
	}
	for k, v := range extra {
		hp[k] = v
	}
	return hp
}

// torchModelInput packs a trained model as a processing job's model input (model.tar.gz).
func torchModelInput(t *testing.T, d trainingDirs, p processingDirs) {
	scripttest.PackTarGz(t, d.model, p.path("input/model/model.tar.gz"))
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	must(t, err)
	mkdir(t, filepath.Dir(dst))
	must(t, os.WriteFile(dst, b, 0o644))
}

// probs reads the prob_class_* columns of a predictions file, by id.
func probs(t *testing.T, path, idField string) map[string][]float64 {
	t.Helper()
	header, rows := readCSV(t, path)
	id := column(t, header, idField)
	var cols []int
	for i, h := range header {
		if strings.HasPrefix(h, "prob_class_") {
			cols = append(cols, i)
		}
	}
	out := map[string][]float64{}
	for _, r := range rows {
		var p []float64
		for _, c := range cols {
			v, err := strconv.ParseFloat(r[c], 64)
			if err != nil {
				t.Fatalf("%s: %s = %q", path, header[c], r[c])
			}
			p = append(p, v)
		}
		out[r[id]] = p
	}
	return out
}

func TestPyTorchBinaryTrainEvaluateInferServe(t *testing.T) {
	sb := needSandbox(t, slices.Concat(torchModules, []string{"matplotlib"})...) // it checks the plots
	ds := dataset{classes: 2}
	d, out := train(t, sb, "pytorch_training.py", ds, torchHyperparameters(nil), nil)
	for _, f := range []string{"model.pt", "model_config.json", "hyperparameters.json"} {
		if _, err := os.Stat(filepath.Join(d.model, f)); err != nil {
			t.Fatalf("training wrote no %s: %v\n%s", f, err, out)
		}
	}
	cfg := readJSON(t, filepath.Join(d.model, "model_config.json"))
	if fmt.Sprint(cfg["classes"]) != "[0 1]" || fmt.Sprint(cfg["embedding_fields"]) != "[c1]" {
		t.Errorf("model_config classes %v embedding_fields %v", cfg["classes"], cfg["embedding_fields"])
	}
	hp := readJSON(t, filepath.Join(d.model, "hyperparameters.json"))
	if hp["label_name"] != "label" || fmt.Sprint(hp["full_field_list"]) != "[id x1 x2 x3 c1 label]" {
		t.Errorf("saved hyperparameters: %v", hp)
	}
	valM := readJSON(t, filepath.Join(d.output, "data", "val", "metrics.json"))
	testM := readJSON(t, filepath.Join(d.output, "data", "test", "metrics.json"))
	if auc := metric(t, valM, "auc"); auc < 0.85 {
		t.Errorf("val auc %.3f < 0.85 on separable data\n%s", auc, out)
	}

	// Evaluate the packed model on the test split: the same scores as training's own test pass.
	p := newProcessingDirs(t)
	torchModelInput(t, d, p)
	copyFile(t, filepath.Join(d.input, "data", "test", "test.csv"), p.path("input/eval_data/part/test.csv"))
	env := map[string]string{"ID_FIELD": "id", "LABEL_FIELD": "label", "EVAL_METRIC_CHOICES": "auc,average_precision,f1_score,accuracy,log_loss"}
	sb.mustRun(t, job{script: "pytorch_model_eval.py", codeDir: "/opt/ml/processing/input/code", binds: p.binds(), env: env, args: []string{"--job_type", "testing"}})
	m := readJSON(t, p.path("output/metrics/metrics.json"))
	for _, k := range []string{"auc", "average_precision", "f1_score", "accuracy", "log_loss"} {
		if !near(metric(t, m, k), metric(t, testM, k), 1e-6) {
			t.Errorf("eval %s %v, training's test %s %v", k, m[k], k, testM[k])
		}
	}
	if metric(t, m, "rows") != 150 {
		t.Errorf("rows %v, want 150", m["rows"])
	}
	for _, png := range []string{"roc_curve.png", "pr_curve.png"} {
		if _, err := os.Stat(p.path("output/metrics/" + png)); err != nil {
			t.Errorf("no %s: %v", png, err)
		}
	}
	evalProbs := probs(t, p.path("output/eval/eval_predictions.csv"), "id")
	if len(evalProbs) != 150 || len(evalProbs["test-0"]) != 2 || !near(evalProbs["test-0"][0]+evalProbs["test-0"][1], 1, 1e-5) {
		t.Fatalf("eval_predictions: %d rows, test-0 %v", len(evalProbs), evalProbs["test-0"])
	}

	// Batch inference with embeddings: input columns kept, the same probabilities.
	q := newProcessingDirs(t)
	torchModelInput(t, d, q)
	copyFile(t, filepath.Join(d.input, "data", "test", "test.csv"), q.path("input/eval_data/test.csv"))
	sb.mustRun(t, job{script: "pytorch_model_inference.py", codeDir: "/opt/ml/processing/input/code", binds: q.binds(),
		env: map[string]string{"ID_FIELD": "id", "LABEL_FIELD": "label", "EMBEDDING_MODE": "true"}, args: []string{"--job_type", "testing"}})
	header, _ := readCSV(t, q.path("output/eval/predictions.csv"))
	if got := strings.Join(header, ","); !strings.HasPrefix(got, "id,x1,x2,x3,c1,label,prob_class_0,prob_class_1,emb_0,") || !strings.HasSuffix(got, ",emb_15") {
		t.Errorf("inference columns %s", got)
	}
	for id, pr := range probs(t, q.path("output/eval/predictions.csv"), "id") {
		if !near(pr[1], evalProbs[id][1], 1e-5) {
			t.Fatalf("row %s: inference %v, eval %v", id, pr, evalProbs[id])
		}
	}

	// Serving: the handlers on the unpacked archive answer the test rows as the eval step scored them.
	got := serve(t, sb, "pytorch", filepath.Join(p.path("input/model/model.tar.gz")), filepath.Join(d.input, "data", "test", "test.csv"))
	checkServed(t, got, evalProbs, 1e-5)
}

func TestPyTorchMulticlassStringLabels(t *testing.T) {
	sb := needSandbox(t, torchModules...)
	ds := dataset{classes: 3, labels: []string{"low", "mid", "high"}}
	hp := torchHyperparameters(map[string]any{"num_class": 3, "multiclass_categories": []string{"low", "mid", "high"}, "class_weights": []float64{1, 1, 1.5}})
	d, out := train(t, sb, "pytorch_training.py", ds, hp, nil)
	valM := readJSON(t, filepath.Join(d.output, "data", "val", "metrics.json"))
	if auc := metric(t, valM, "auc"); auc < 0.85 {
		t.Errorf("val macro auc %.3f < 0.85\n%s", auc, out)
	}
	p := newProcessingDirs(t)
	torchModelInput(t, d, p)
	copyFile(t, filepath.Join(d.input, "data", "val", "val.csv"), p.path("input/eval_data/val.csv"))
	sb.mustRun(t, job{script: "pytorch_model_eval.py", codeDir: "/opt/ml/processing/input/code", binds: p.binds(),
		env: map[string]string{"ID_FIELD": "id", "LABEL_FIELD": "label"}, args: []string{"--job_type", "validation"}})
	m := readJSON(t, p.path("output/metrics/metrics.json"))
	for _, k := range []string{"auc", "auc_class_0", "auc_class_1", "auc_class_2", "average_precision", "f1_score", "f1_score_micro"} {
		metric(t, m, k)
	}
	if !near(metric(t, m, "auc"), metric(t, valM, "auc"), 1e-6) {
		t.Errorf("eval auc %v, training's val auc %v", m["auc"], valM["auc"])
	}
	header, rows := readCSV(t, p.path("output/eval/eval_predictions.csv"))
	if strings.Join(header, ",") != "id,label,prob_class_0,prob_class_1,prob_class_2" {
		t.Errorf("eval_predictions header %v", header)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r[1]] = true
	}
	if len(seen) != 3 || !seen["0"] || !seen["2"] {
		t.Errorf("labels in eval_predictions are not class indices: %v", seen)
	}
	evalProbs := probs(t, p.path("output/eval/eval_predictions.csv"), "id")
	got := serve(t, sb, "pytorch", p.path("input/model/model.tar.gz"), filepath.Join(d.input, "data", "val", "val.csv"))
	checkServed(t, got, evalProbs, 1e-5)
	if got.JSON[0].PredictedLabel == "" || !strings.Contains("low mid high", got.JSON[0].PredictedLabel) {
		t.Errorf("predicted_label %q is not a label value", got.JSON[0].PredictedLabel)
	}
}

func TestPyTorchStreamingWorkersAndPrecomputedRiskTables(t *testing.T) {
	sb := needSandbox(t, torchModules...)
	// c1 already risk-mapped upstream: numeric values, and the table in model_artifacts_input.
	table := map[string]float64{"a": 0.8, "b": 0.2, "c": 0.55, "d": 0.45}
	d := newTrainingDirs(t)
	ds := dataset{classes: 2}
	ds.writeChannels(t, filepath.Join(d.input, "data"))
	for _, split := range []string{"train", "val", "test"} {
		path := filepath.Join(d.input, "data", split, split+".csv")
		header, rows := readCSV(t, path)
		c := column(t, header, "c1")
		var b strings.Builder
		b.WriteString(strings.Join(header, ",") + "\n")
		for _, r := range rows {
			r[c] = strconv.FormatFloat(table[r[c]], 'f', -1, 64)
			b.WriteString(strings.Join(r, ",") + "\n")
		}
		must(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}
	writeJSON(t, filepath.Join(d.input, "data", "model_artifacts_input", "risk_table_map.json"),
		map[string]any{"c1": map[string]any{"bins": table, "default_bin": 0.5}})
	hp := torchHyperparameters(map[string]any{"max_epochs": 3})
	d.writeHyperparameters(t, hp)
	env := trainingEnv()
	for k, v := range map[string]string{"ENABLE_TRUE_STREAMING": "true", "NUM_WORKERS_PER_RANK": "2", "USE_PERSISTENT_WORKERS": "true", "USE_PRECOMPUTED_RISK_TABLES": "true", "REGION": "EU"} {
		env[k] = v
	}
	out := sb.mustRun(t, job{script: "pytorch_training.py", codeDir: "/opt/ml/code", binds: d.binds(), env: env})
	if !strings.Contains(out, "streaming the training files") {
		t.Errorf("no streaming:\n%s", out)
	}
	cfg := readJSON(t, filepath.Join(d.model, "model_config.json"))
	if fmt.Sprint(cfg["numeric_fields"]) != "[x1 x2 x3 c1]" || fmt.Sprint(cfg["embedding_fields"]) != "[]" || cfg["region"] != "EU" {
		t.Errorf("model_config: numeric %v embedding %v region %v", cfg["numeric_fields"], cfg["embedding_fields"], cfg["region"])
	}
	if rt, _ := cfg["risk_tables"].(map[string]any); rt["c1"] == nil {
		t.Errorf("risk table not kept for serving: %v", cfg["risk_tables"])
	}
	// A raw category and its risk value score alike.
	dir := t.TempDir()
	scripttest.PackTarGz(t, d.model, filepath.Join(dir, "model.tar.gz"))
	rows := "x1,x2,x3,c1\n0.3,0.1,0.0,a\n0.3,0.1,0.0,0.8\n"
	must(t, os.WriteFile(filepath.Join(dir, "rows.csv"), []byte(rows), 0o644))
	got := serve(t, sb, "pytorch", filepath.Join(dir, "model.tar.gz"), filepath.Join(dir, "rows.csv"))
	if len(got.CSV) != 2 || got.CSV[0] != got.CSV[1] {
		t.Errorf("category a and its risk value 0.8 score differently: %v", got.CSV)
	}
}

func TestPyTorchTrainingRefusesBadHyperparameters(t *testing.T) {
	sb := needSandbox(t, torchModules...)
	cases := []struct {
		name string
		ds   dataset
		hp   map[string]any
		want string
	}{
		{"no label", dataset{classes: 2}, map[string]any{"tab_field_list": []string{"x1"}}, "label_name"},
		{"num_class disagrees", dataset{classes: 3}, torchHyperparameters(map[string]any{"num_class": 2}), "num_class=2 but there are 3 classes"},
		{"label outside the categories", dataset{classes: 3}, torchHyperparameters(map[string]any{"multiclass_categories": []int{0, 1}}), "not among the classes"},
		{"missing column", dataset{classes: 2}, torchHyperparameters(map[string]any{"tab_field_list": []string{"x1", "nope"}}), "nope"},
		{"unknown text encoder", dataset{classes: 2}, torchHyperparameters(map[string]any{"text_name": "x9", "text_model": "gru"}), "text_model='gru'"},
		{"text field also numeric", dataset{classes: 2}, torchHyperparameters(map[string]any{"text_name": "x1"}), "text_name='x1' is also in tab_field_list"},
		{"missing text column", dataset{classes: 2}, torchHyperparameters(map[string]any{"text_name": "body"}), "body"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := newTrainingDirs(t)
			c.ds.writeChannels(t, filepath.Join(d.input, "data"))
			d.writeHyperparameters(t, c.hp)
			out, err := sb.run(t, job{script: "pytorch_training.py", codeDir: "/opt/ml/code", binds: d.binds(), env: trainingEnv()})
			if err == nil {
				t.Fatalf("training succeeded:\n%s", out)
			}
			if !strings.Contains(out, c.want) {
				t.Errorf("output does not name %q:\n%s", c.want, out)
			}
			failure, _ := os.ReadFile(filepath.Join(d.output, "failure"))
			if !strings.Contains(string(failure), c.want) {
				t.Errorf("/opt/ml/output/failure %q does not name %q", failure, c.want)
			}
		})
	}
}

func TestPyTorchEvalComparisonMode(t *testing.T) {
	sb := needSandbox(t, torchModules...)
	ds := dataset{classes: 2, extra: func(r *rand.Rand, label int) (string, string) {
		return "old_score", strconv.FormatFloat(0.3+0.3*float64(label)+0.2*r.Float64(), 'f', 4, 64)
	}}
	d, _ := train(t, sb, "pytorch_training.py", dataset{classes: 2}, torchHyperparameters(map[string]any{"max_epochs": 4}), nil)
	p := newProcessingDirs(t)
	torchModelInput(t, d, p)
	ds.write(t, p.path("input/eval_data/calibration.csv"), "calibration", 9)
	env := map[string]string{"ID_FIELD": "id", "LABEL_FIELD": "label", "COMPARISON_MODE": "true", "PREVIOUS_SCORE_FIELD": "old_score",
		"COMPARISON_METRICS": "basic", "STATISTICAL_TESTS": "true", "COMPARISON_PLOTS": "true", "DEVICE": "cpu", "BATCH_SIZE": "16", "NUM_WORKERS": "0"}
	sb.mustRun(t, job{script: "pytorch_model_eval.py", codeDir: "/opt/ml/processing/input/code", binds: p.binds(), env: env, args: []string{"--job_type", "calibration"}})
	m := readJSON(t, p.path("output/metrics/metrics.json"))
	for _, k := range []string{"previous_auc", "delta_auc", "previous_average_precision", "mcnemar_p_value", "paired_t_p_value", "wilcoxon_p_value"} {
		metric(t, m, k)
	}
	if _, ok := m["previous_f1_score"]; ok {
		t.Errorf("COMPARISON_METRICS=basic compared f1_score too: %v", m)
	}
	if !near(metric(t, m, "delta_auc"), metric(t, m, "auc")-metric(t, m, "previous_auc"), 1e-12) {
		t.Errorf("delta_auc %v", m["delta_auc"])
	}
	header, _ := readCSV(t, p.path("output/eval/eval_predictions.csv"))
	if header[len(header)-1] != "old_score" {
		t.Errorf("eval_predictions lacks the previous score: %v", header)
	}
}

// served is what the serving handlers answered for a file of rows.
type served struct {
	CSV  []string // text/csv response lines
	JSON []struct {
		Probabilities  []float64 `json:"probabilities"`
		PredictedLabel string    `json:"predicted_label"`
	}
	ids []string
}

// serveDriver calls the handlers as the SageMaker inference toolkit does: model_fn once, then
// input_fn / predict_fn / output_fn per request (the whole CSV file, header line included, as
// text/csv; the rows as JSON objects, values as strings, as application/json).
const serveDriver = `import csv, json, sys
import inference
model = inference.model_fn("/opt/ml/model")
body = open(sys.argv[1], "rb").read()
csv_out = inference.output_fn(inference.predict_fn(inference.input_fn(body, "text/csv"), model), "text/csv")
rows = list(csv.DictReader(open(sys.argv[1])))
json_out = inference.output_fn(inference.predict_fn(inference.input_fn(json.dumps(rows), "application/json"), model), "application/json")
json.dump({"csv": csv_out.splitlines(), "json": json.loads(json_out)["predictions"]}, open("/opt/ml/output/served.json", "w"))
`

func serve(t *testing.T, sb *scriptSandbox, framework, archive, rowsFile string) served {
	t.Helper()
	modelDir, outDir, dataDir := t.TempDir(), t.TempDir(), t.TempDir()
	for name, b := range scripttest.TarContents(t, archive) {
		p := filepath.Join(modelDir, filepath.FromSlash(name))
		mkdir(t, filepath.Dir(p))
		must(t, os.WriteFile(p, b, 0o644))
	}
	copyFile(t, rowsFile, filepath.Join(dataDir, "rows.csv"))
	sb.mustRun(t, job{script: "inference/" + framework + "/inference.py", codeDir: "/opt/ml/model/code", extra: map[string]string{"serve.py": serveDriver}, entry: "serve.py",
		binds: map[string]string{"/opt/ml/model": modelDir, "/opt/ml/output": outDir, "/opt/ml/input/data": dataDir}, args: []string{"/opt/ml/input/data/rows.csv"}})
	b, err := os.ReadFile(filepath.Join(outDir, "served.json"))
	must(t, err)
	var raw struct {
		CSV  []string        `json:"csv"`
		JSON json.RawMessage `json:"json"`
	}
	must(t, json.Unmarshal(b, &raw))
	// The file's header line is answered with a header line (a joining batch transform keeps
	// one output line per input line).
	if len(raw.CSV) == 0 || !strings.HasPrefix(raw.CSV[0], "prob_class_0,prob_class_1") {
		t.Fatalf("the CSV answer does not start with a header line: %q", raw.CSV)
	}
	s := served{CSV: raw.CSV[1:]}
	must(t, json.Unmarshal(raw.JSON, &s.JSON))
	header, rows := readCSV(t, rowsFile)
	if i := indexOf(header, "id"); i >= 0 {
		for _, r := range rows {
			s.ids = append(s.ids, r[i])
		}
	}
	return s
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// checkServed compares the served probabilities (CSV and JSON answers) with the eval step's.
func checkServed(t *testing.T, got served, want map[string][]float64, tol float64) {
	t.Helper()
	if len(got.CSV) != len(got.ids) || len(got.JSON) != len(got.ids) {
		t.Fatalf("served %d CSV and %d JSON answers for %d rows", len(got.CSV), len(got.JSON), len(got.ids))
	}
	for i, id := range got.ids {
		var line []float64
		for _, v := range strings.Split(got.CSV[i], ",") {
			f, err := strconv.ParseFloat(v, 64)
			must(t, err)
			line = append(line, f)
		}
		w := want[id]
		if len(line) != len(w) || len(got.JSON[i].Probabilities) != len(w) {
			t.Fatalf("row %s: served %v / %v, eval %v", id, line, got.JSON[i].Probabilities, w)
		}
		for k := range w {
			if !near(line[k], w[k], tol) || !near(got.JSON[i].Probabilities[k], w[k], tol) {
				t.Fatalf("row %s: served %v / %v, eval %v", id, line, got.JSON[i].Probabilities, w)
			}
		}
	}
}
