package xgboosttest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler/scripttest"
)

// modelInput lays out a trained model as a processing job receives it:
// model.tar.gz in a folder.
func modelInput(t *testing.T, tarball string) string {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(tarball)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "model.tar.gz"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func metricsOf(t *testing.T, p string) map[string]any {
	t.Helper()
	var m map[string]any
	readJSON(t, p, &m)
	return m
}

// checkSummary checks that metrics_summary.txt holds one "name: value"
// line per top-level scalar of metrics.json, and nothing else.
func checkSummary(t *testing.T, p string, m map[string]any) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	var want []string
	for k, v := range m {
		switch v.(type) {
		case map[string]any, []any:
		default:
			want = append(want, k)
		}
	}
	if len(lines) != len(want) || len(want) == 0 {
		t.Fatalf("%s: %d lines, want %d (%v):\n%s", p, len(lines), len(want), want, b)
	}
	for _, k := range want {
		if !strings.Contains("\n"+string(b), "\n"+k+": ") {
			t.Errorf("%s has no line for %s:\n%s", p, k, b)
		}
	}
}

// TestXGBoostPipelineScripts runs the scripts of an XGBoost pipeline on
// generated data, each on the previous one's output, for a binary and a
// three-class label: training, evaluation, batch inference, calibration
// (lookup and percentile), metrics, the wiki, packaging with the serving
// code and the calibrator, sample payloads, and finally the packaged
// model's serving code answering the generated payload.
func TestXGBoostPipelineScripts(t *testing.T) {
	py := scripttest.Python(t, "pandas", "sklearn", "xgboost", "scipy", "matplotlib")
	for _, classes := range []int{2, 3} {
		t.Run(fmt.Sprintf("%d_classes", classes), func(t *testing.T) {
			run := runFunc(func(node string, cfg map[string]any, inputs map[string]string) *scripttest.Result {
				t.Helper()
				return scripttest.RunProcessing(t, scripttest.Run{Node: node, Config: cfg, Inputs: inputs, Python: py})
			})
			tr, data := trained(t, classes)
			model := modelInput(t, tr.ModelTar)
			binary := classes == 2

			// Evaluation on the held-out split.
			ev := run("XGBoostModelEval_calibration", map[string]any{"id_name": "id", "label_name": "label",
				"eval_metric_choices": []any{"auc", "average_precision", "f1_score", "accuracy", "log_loss"}},
				map[string]string{"model_input": model, "processed_data": filepath.Join(data, "test")})
			preds := scripttest.ReadCSV(t, filepath.Join(ev.Outputs["eval_output"], "eval_predictions.csv"))
			if preds.Header[0] != "id" || preds.Header[1] != "label" || len(preds.Header) != 2+classes || len(preds.Rows) < 40 {
				t.Fatalf("eval predictions %v, %d rows", preds.Header, len(preds.Rows))
			}
			m := metricsOf(t, filepath.Join(ev.Outputs["metrics_output"], "metrics.json"))
			auc := "auc_roc"
			if !binary {
				auc = "auc_roc_macro"
			}
			if v, _ := m[auc].(float64); v < 0.7 || m["task"] != map[bool]string{true: "binary", false: "multiclass"}[binary] || m["log_loss"] == nil || m["accuracy"] == nil {
				t.Errorf("eval metrics %v", m)
			}
			scripttest.MustFile(t, filepath.Join(ev.Outputs["metrics_output"], "roc_curve.jpg"))
			checkSummary(t, filepath.Join(ev.Outputs["metrics_output"], "metrics_summary.txt"), m)

			// Batch inference (binary only: the scoring code is the evaluation's): CSV and JSON records.
			if binary {
				batchInference(t, run, model, data, len(preds.Rows))
			}

			// Calibration of the evaluation's scores.
			calCfg := map[string]any{"label_field": "label"}
			if !binary {
				calCfg["is_binary"], calCfg["num_classes"], calCfg["multiclass_categories"] = false, classes, []any{0, 1, 2}
			}
			cal := run("ModelCalibration_calibration", calCfg, map[string]string{"evaluation_data": ev.Outputs["eval_output"]})
			var calModel map[string]any
			readJSON(t, filepath.Join(cal.Outputs["calibration_output"], "calibration_model.json"), &calModel)
			if binary {
				if pts, _ := calModel["points"].([]any); len(pts) != 1000 || calModel["method"] != "gam" {
					t.Errorf("binary calibrator: method %v, %d points", calModel["method"], len(pts))
				}
			} else if cl, _ := calModel["classes"].(map[string]any); len(cl) != classes {
				t.Errorf("multiclass calibrator classes %v", calModel["classes"])
			}
			cm := metricsOf(t, filepath.Join(cal.Outputs["metrics_output"], "calibration_metrics.json"))
			if s, _ := cm["summary"].(map[string]any); s["expected_calibration_error"] == nil {
				t.Errorf("calibration metrics %v", cm)
			}
			scripttest.MustFile(t, filepath.Join(cal.Outputs["metrics_output"], "reliability_diagram.jpg"))
			calibrated := scripttest.ReadCSV(t, filepath.Join(cal.Outputs["calibrated_data"], "calibrated_data.csv"))
			if !strings.Contains(strings.Join(calibrated.Header, ","), "calibrated_prob_class_1") {
				t.Errorf("calibrated data header %v", calibrated.Header)
			}

			// Metrics, and the wiki built from them.
			mc := run("ModelMetricsComputation_calibration", map[string]any{"id_name": "id", "label_name": "label"},
				map[string]string{"eval_output": ev.Outputs["eval_output"]})
			mm := metricsOf(t, filepath.Join(mc.Outputs["metrics_output"], "metrics.json"))
			if v, _ := mm[auc].(float64); v < 0.7 {
				t.Errorf("metrics computation %v", mm)
			}
			if binary && mm["count_recall"] == nil {
				t.Errorf("no count recall: %v", mm)
			}
			checkSummary(t, filepath.Join(mc.Outputs["metrics_output"], "metrics_summary.txt"), mm)
			scripttest.MustFile(t, filepath.Join(mc.Outputs["plots_output"], "roc_curve.jpg"))
			scripttest.MustFile(t, filepath.Join(mc.Outputs["plots_output"], "score_distribution.jpg"))
			if binary {
				wikiFrom(t, run, mc, auc)
			}

			// A percentile map, fitted on the training job's output.tar.gz.
			if binary {
				pc := run("PercentileModelCalibration_calibration", nil, map[string]string{"evaluation_data": modelInputNamed(t, tr.OutputTar, "output.tar.gz")})
				var pm map[string]any
				readJSON(t, filepath.Join(pc.Outputs["calibration_output"], "percentile_score.json"), &pm)
				if mp, _ := pm["mapping"].([]any); len(mp) < 50 || pm["score_field"] != "prob_class_1" {
					t.Errorf("percentile map: %d points, %v", len(mp), pm["score_field"])
				}
				scripttest.MustFile(t, filepath.Join(pc.Outputs["calibrated_data"], "calibrated_data.csv"))
			}
			// Package: model + serving code + calibrator in one model.tar.gz.
			pkg := run("Package", nil, map[string]string{"model_input": model, "calibration_model": cal.Outputs["calibration_output"]})
			archive := filepath.Join(pkg.Outputs["packaged_model"], "model.tar.gz")
			files := strings.Join(scripttest.TarFiles(t, archive), ",")
			for _, f := range []string{"xgboost_model.json", "hyperparameters.json", "code/inference.py", "calibration/calibration_model.json"} {
				if !strings.Contains(files, f) {
					t.Errorf("packaged model.tar.gz lacks %s: %s", f, files)
				}
			}

			// Payload: sample requests from the model's field lists.
			pl := run("Payload", map[string]any{"expected_tps": 5, "max_latency_in_millisecond": 300,
				"source_model_inference_content_types": []any{"text/csv", "application/json"}}, map[string]string{"model_input": model})
			payloads := filepath.Join(pl.Outputs["payload_sample"], "payload.tar.gz")
			if got := strings.Join(scripttest.TarFiles(t, payloads), ","); got != "payload_application_json_0.json,payload_text_csv_0.csv" {
				t.Fatalf("payload.tar.gz holds %s", got)
			}
			samples := t.TempDir()
			scripttest.Untar(t, payloads, samples)

			// The packaged model's serving code answers the sample requests.
			served := t.TempDir()
			scripttest.Untar(t, archive, served)
			for _, req := range [][2]string{{"payload_text_csv_0.csv", "text/csv"}, {"payload_application_json_0.json", "application/json"}} {
				out := serve(t, py, served, filepath.Join(samples, req[0]), req[1], "application/json")
				want := `"calibrated-score"`
				if !strings.Contains(out, `"legacy-score"`) || !strings.Contains(out, want) {
					t.Errorf("%s answered %s", req[0], out)
				}
				if !binary && !strings.Contains(out, `"predicted-class"`) {
					t.Errorf("%s: multiclass answer %s", req[0], out)
				}
			}
			if csvOut := serve(t, py, served, filepath.Join(samples, "payload_text_csv_0.csv"), "text/csv", "text/csv"); strings.Count(csvOut, ",") != map[bool]int{true: 1, false: 2*classes - 1}[binary] {
				t.Errorf("CSV answer %q", csvOut)
			}
			// A batch transform's rows: the labelled data with its id column
			// filtered out ($[1:]), header line included. The header is
			// answered with a header line, so a transform that joins its
			// input (one response line a record) lines up.
			test := readDir(t, filepath.Join(data, "test"))
			var sb strings.Builder
			for _, r := range append([][]string{test.Header}, test.Rows...) {
				sb.WriteString(strings.Join(r[1:], ",") + "\n")
			}
			batch := filepath.Join(t.TempDir(), "batch.csv")
			scripttest.WriteFile(t, batch, sb.String())
			out := strings.Split(strings.TrimSpace(serve(t, py, served, batch, "text/csv", "text/csv")), "\n")
			if len(out) != len(test.Rows)+1 || !strings.HasPrefix(out[0], map[bool]string{true: "legacy_score", false: "prob_class_0"}[binary]) {
				t.Errorf("batch of %d labelled rows and a header answered %d lines, the first %q", len(test.Rows), len(out), out[0])
			}
		})
	}
}

// modelInputNamed copies a file into a fresh folder under name.
func modelInputNamed(t *testing.T, src, name string) string {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// serve loads an unpacked packaged model with its code/inference.py and
// answers one request as the SageMaker XGBoost container would: model_fn,
// input_fn, predict_fn, output_fn.
func serve(t *testing.T, py scripttest.Interpreter, modelDir, request, contentType, accept string) string {
	t.Helper()
	driver := `
import importlib.util, sys
model_dir, request, ctype, accept = sys.argv[1:5]
spec = importlib.util.spec_from_file_location("inference", model_dir + "/code/inference.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
model = mod.model_fn(model_dir)
with open(request, "rb") as f:
    body = f.read()
print(mod.output_fn(mod.predict_fn(mod.input_fn(body, ctype), model), accept))
`
	cmd := exec.Command(py.Path, "-I", "-c", driver, modelDir, request, contentType, accept)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("serving %s: %v\n%s", request, err, out)
	}
	return strings.TrimSpace(string(out))
}

// writeCSV writes a table.
func writeCSV(t *testing.T, p string, tb scripttest.Table) {
	t.Helper()
	var sb strings.Builder
	sb.WriteString(strings.Join(tb.Header, ",") + "\n")
	for _, r := range tb.Rows {
		sb.WriteString(strings.Join(r, ",") + "\n")
	}
	scripttest.WriteFile(t, p, sb.String())
}

// TestXGBoostScriptOptions exercises the options of the evaluation,
// calibration, metrics and payload scripts on one binary model, and the
// failures that name what is wrong.
func TestXGBoostScriptOptions(t *testing.T) {
	py := scripttest.Python(t, "pandas", "sklearn", "xgboost", "scipy", "matplotlib")
	tr, data := trained(t, 2)
	model := modelInput(t, tr.ModelTar)
	run := func(node string, cfg map[string]any, inputs map[string]string) (*scripttest.Result, error) {
		t.Helper()
		return scripttest.RunProcessingErr(t, scripttest.Run{Node: node, Config: cfg, Inputs: inputs, Python: py})
	}

	// Comparison mode: a previous model's score column in the data.
	test := readDir(t, filepath.Join(data, "test"))
	num1 := 0
	for i, h := range test.Header {
		if h == "num_1" {
			num1 = i
		}
	}
	test.Header = append(test.Header, "old_score")
	for i := range test.Rows {
		v := test.Rows[i][num1]
		if v == "" {
			v = "0"
		}
		test.Rows[i] = append(test.Rows[i], v)
	}
	cmpDir := t.TempDir()
	writeCSV(t, filepath.Join(cmpDir, "test.csv"), test)
	ev, err := run("XGBoostModelEval_testing", map[string]any{"id_name": "id", "label_name": "label", "comparison_mode": true, "previous_score_field": "old_score"},
		map[string]string{"model_input": model, "processed_data": cmpDir})
	if err != nil {
		t.Fatalf("comparison mode: %v\n%s", err, ev.Log)
	}
	m := metricsOf(t, filepath.Join(ev.Outputs["metrics_output"], "metrics.json"))
	cmp, _ := m["comparison"].(map[string]any)
	if cmp == nil || cmp["delta"] == nil || cmp["statistical_tests"] == nil || m["job_type"] != "testing" {
		t.Errorf("comparison metrics %v", m)
	}
	scripttest.MustFile(t, filepath.Join(ev.Outputs["metrics_output"], "score_comparison.jpg"))

	// Comparison mode without the column, and a label column the data lacks, fail naming them.
	res, err := run("XGBoostModelEval_testing", map[string]any{"id_name": "id", "label_name": "label", "comparison_mode": true, "previous_score_field": "nope"},
		map[string]string{"model_input": model, "processed_data": cmpDir})
	if err == nil || !strings.Contains(res.Log, "PREVIOUS_SCORE_FIELD") {
		t.Errorf("comparison without the column: %v\n%s", err, res.Log)
	}
	res, err = run("XGBoostModelEval_testing", map[string]any{"id_name": "id", "label_name": "is_fraud"},
		map[string]string{"model_input": model, "processed_data": cmpDir})
	if err == nil || !strings.Contains(res.Log, "no label column is_fraud") {
		t.Errorf("a missing label: %v\n%s", err, res.Log)
	}
	// A label value that is not one of the model's classes, and a model input without a model.
	bad := scripttest.Table{Header: test.Header}
	for _, r := range test.Rows {
		bad.Rows = append(bad.Rows, append([]string(nil), r...))
	}
	for i, h := range bad.Header {
		if h == "label" {
			bad.Rows[0][i] = "7"
		}
	}
	badDir := t.TempDir()
	writeCSV(t, filepath.Join(badDir, "test.csv"), bad)
	res, err = run("XGBoostModelEval_testing", map[string]any{"id_name": "id", "label_name": "label"},
		map[string]string{"model_input": model, "processed_data": badDir})
	if err == nil || !strings.Contains(res.Log, "label value 7 is not one of the classes") {
		t.Errorf("an unknown label value: %v\n%s", err, res.Log)
	}
	res, err = run("XGBoostModelInference_calibration", map[string]any{"id_name": "id"},
		map[string]string{"model_input": t.TempDir(), "processed_data": cmpDir})
	if err == nil || !strings.Contains(res.Log, "no xgboost_model.json in") {
		t.Errorf("a model input without a model: %v\n%s", err, res.Log)
	}

	// Calibration methods, and calibration straight from the training job's output.tar.gz.
	for _, method := range []string{"isotonic", "platt"} {
		cal, err := run("ModelCalibration_calibration", map[string]any{"label_field": "label", "calibration_method": method, "calibration_sample_points": 50},
			map[string]string{"evaluation_data": modelInputNamed(t, tr.OutputTar, "output.tar.gz")})
		if err != nil {
			t.Fatalf("%s: %v\n%s", method, err, cal.Log)
		}
		var cm map[string]any
		readJSON(t, filepath.Join(cal.Outputs["calibration_output"], "calibration_model.json"), &cm)
		if pts, _ := cm["points"].([]any); cm["method"] != method || len(pts) != 50 {
			t.Errorf("%s calibrator %v", method, cm)
		}
		var cms map[string]any
		readJSON(t, filepath.Join(cal.Outputs["metrics_output"], "calibration_metrics.json"), &cms)
		sc := cms["scores"].(map[string]any)["prob_class_1"].(map[string]any)
		before := sc["uncalibrated"].(map[string]any)["expected_calibration_error"].(float64)
		after := sc["calibrated"].(map[string]any)["expected_calibration_error"].(float64)
		if method == "isotonic" && after > before+1e-9 {
			t.Errorf("isotonic calibration raised the in-sample ECE %.4f -> %.4f", before, after)
		}
	}
	res, err = run("ModelCalibration_calibration", map[string]any{"label_field": "label", "score_field": "score"},
		map[string]string{"evaluation_data": ev.Outputs["eval_output"]})
	if err == nil || !strings.Contains(res.Log, "no predictions with the column(s) score, label") {
		t.Errorf("a missing score column: %v\n%s", err, res.Log)
	}

	// Metrics: dollar and count recall on hand-made predictions.
	dir := t.TempDir()
	scripttest.WriteFile(t, filepath.Join(dir, "preds.csv"), "id,label,prob_class_1,amount,old\n1,1,0.9,100,0.2\n2,0,0.8,5,0.1\n3,1,0.7,50,0.9\n4,0,0.2,7,0.3\n5,0,0.1,9,0.4\n6,1,0.05,10,0.5\n7,0,0.3,1,0.2\n8,0,0.15,2,0.1\n9,0,0.12,3,0.1\n10,0,0.11,4,0.6\n")
	mc, err := run("ModelMetricsComputation_testing", map[string]any{"id_name": "id", "label_name": "label", "amount_field": "amount",
		"count_recall_cutoff": 0.2, "dollar_recall_fpr": 0.2, "comparison_mode": true, "previous_score_field": "old", "generate_plots": false},
		map[string]string{"eval_output": dir})
	if err != nil {
		t.Fatalf("metrics: %v\n%s", err, mc.Log)
	}
	mm := metricsOf(t, filepath.Join(mc.Outputs["metrics_output"], "metrics.json"))
	// top 20% = ids 1, 2: one of three positives; at FPR 0.2 the threshold admits 0.7 and above: 150 of 160 dollars.
	if cr, dr := mm["count_recall"], mm["dollar_recall"]; cr != 1.0/3 || dr != 150.0/160 {
		t.Errorf("count recall %v (want 1/3), dollar recall %v (want 150/160)", cr, dr)
	}
	if mm["comparison"] == nil {
		t.Errorf("no comparison: %v", mm)
	}

	// Payload: custom sample requests from config replace the generated ones.
	pl, err := run("Payload", map[string]any{"expected_tps": 5, "max_latency_in_millisecond": 300,
		"custom_payloads": map[string]any{"text/csv": "1,2,3,4,A,B"}}, map[string]string{"model_input": model})
	if err != nil {
		t.Fatalf("custom payloads: %v\n%s", err, pl.Log)
	}
	samples := t.TempDir()
	scripttest.Untar(t, filepath.Join(pl.Outputs["payload_sample"], "payload.tar.gz"), samples)
	if b, _ := os.ReadFile(filepath.Join(samples, "payload_text_csv_0.csv")); string(b) != "1,2,3,4,A,B" {
		t.Errorf("custom payload %q", b)
	}

	// Package without serving code or calibrator still writes the archive.
	pkg, err := run("Package", nil, map[string]string{"model_input": model, "inference_scripts_input": t.TempDir()})
	if err != nil {
		t.Fatalf("package: %v\n%s", err, pkg.Log)
	}
	if files := strings.Join(scripttest.TarFiles(t, filepath.Join(pkg.Outputs["packaged_model"], "model.tar.gz")), ","); strings.Contains(files, "code/") || !strings.Contains(files, "xgboost_model.json") {
		t.Errorf("package without code: %s", files)
	}
}

type runFunc func(node string, cfg map[string]any, inputs map[string]string) *scripttest.Result

// batchInference runs XGBoostModelInference on the test split: CSV, then
// JSON records, one prediction per row.
func batchInference(t *testing.T, run runFunc, model, data string, rows int) {
	t.Helper()
	inf := run("XGBoostModelInference_calibration", map[string]any{"id_name": "id", "label_name": "label"},
		map[string]string{"model_input": model, "processed_data": filepath.Join(data, "test")})
	if got := scripttest.ReadCSV(t, filepath.Join(inf.Outputs["eval_output"], "predictions.csv")); len(got.Rows) != rows || got.Header[1] != "label" {
		t.Errorf("inference %v: %d rows, eval %d", got.Header, len(got.Rows), rows)
	}
	inf = run("XGBoostModelInference_calibration", map[string]any{"id_name": "id", "output_format": "json"},
		map[string]string{"model_input": model, "processed_data": filepath.Join(data, "test")})
	b, err := os.ReadFile(filepath.Join(inf.Outputs["eval_output"], "predictions.json"))
	if err != nil || !strings.Contains(string(b), `"prob_class_0"`) || strings.Count(string(b), "\n") != rows {
		t.Errorf("JSON predictions: %v %.200s", err, b)
	}
}

// wikiFrom runs ModelWikiGenerator on ModelMetricsComputation's outputs.
func wikiFrom(t *testing.T, run runFunc, mc *scripttest.Result, metric string) {
	t.Helper()
	wiki := run("ModelWikiGenerator", map[string]any{"model_name": "Fraud Model"},
		map[string]string{"metrics_output": mc.Outputs["metrics_output"], "plots_output": mc.Outputs["plots_output"]})
	md, err := os.ReadFile(filepath.Join(wiki.Outputs["wiki_output"], "Fraud_Model_documentation.md"))
	if err != nil || !strings.Contains(string(md), "# Fraud Model") || !strings.Contains(string(md), metric) || !strings.Contains(string(md), "images/roc_curve.jpg") {
		t.Errorf("wiki markdown: %v\n%.600s", err, md)
	}
	for _, f := range []string{"Fraud_Model_documentation.wiki", "Fraud_Model_documentation.html", "images/roc_curve.jpg"} {
		scripttest.MustFile(t, filepath.Join(wiki.Outputs["wiki_output"], f))
	}
}
