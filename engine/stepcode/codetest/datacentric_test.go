package codetest

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// writeRows writes a CSV file with a header and rows.
func writeRows(t *testing.T, path string, header []string, rows [][]string) {
	t.Helper()
	mkdir(t, filepath.Dir(path))
	f, err := os.Create(path)
	must(t, err)
	defer f.Close()
	w := csv.NewWriter(f)
	must(t, w.Write(header))
	must(t, w.WriteAll(rows))
}

// events are transactions of 40 customers over 100 days from 2025-01-01: customer c<i> buys
// every (i%5)+1 days an amount of 10*(i%4+1) (+ the day/100), and is a fraudster (label 1,
// subtask labels too) when i%4 == 3.
func events(t *testing.T, path string) {
	t.Helper()
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var rows [][]string
	for i := 0; i < 40; i++ {
		for d := 0; d < 100; d += i%5 + 1 {
			fraud := "0"
			if i%4 == 3 {
				fraud = "1"
			}
			chargeback := fraud
			if i == 3 {
				chargeback = "0"
			}
			rows = append(rows, []string{fmt.Sprintf("c%d", i), start.AddDate(0, 0, d).Format("2006-01-02T15:04:05Z"),
				strconv.FormatFloat(float64(10*(i%4+1))+float64(d)/100, 'f', 2, 64), "web", "0", chargeback, fraud})
		}
	}
	writeRows(t, path, []string{"customer", "ts", "amount", "channel", "is_abuse", "is_chargeback", "is_ato"}, rows)
}

func TestTemporalSplitKeepsCustomersApartAndTimeInOrder(t *testing.T) {
	t.Parallel()
	sb := needSandbox(t, "pandas", "numpy")
	p := newProcessingDirs(t)
	events(t, p.path("input/data/part-0.csv"))
	env := map[string]string{"DATE_COLUMN": "ts", "SPLIT_DATE": "2025-03-01", "GROUP_ID_COLUMN": "customer", "TRAIN_RATIO": "0.75",
		"TARGETS": "is_abuse,is_chargeback,is_ato", "MAIN_TASK_INDEX": "0", "LABEL_FIELD": "is_abuse"}
	out := sb.mustRun(t, job{script: "temporal_split_preprocessing.py", codeDir: "/opt/ml/processing/input/code", binds: p.binds(), env: env, args: []string{"--job_type", "training"}})
	groups := map[string]map[string]bool{}
	for _, split := range []string{"train", "val", "test"} {
		header, rows := readCSV(t, p.path(fmt.Sprintf("output/training_data/%s/%s_processed_data.csv", split, split)))
		c, ts, abuse, ato, cb := column(t, header, "customer"), column(t, header, "ts"), column(t, header, "is_abuse"), column(t, header, "is_ato"), column(t, header, "is_chargeback")
		groups[split] = map[string]bool{}
		for _, r := range rows {
			groups[split][r[c]] = true
			before := r[ts] < "2025-03-01"
			if before != (split != "test") {
				t.Fatalf("%s holds a row of %s", split, r[ts])
			}
			if want := max(r[ato], r[cb]); !strings.HasPrefix(r[abuse], want) {
				t.Fatalf("main task is_abuse %s, want max(is_chargeback, is_ato) = %s (%v)\n%s", r[abuse], want, r, out)
			}
		}
	}
	for g := range groups["train"] {
		if groups["val"][g] || groups["test"][g] {
			t.Errorf("customer %s is in train and in val or test (train %d, val %d, test %d customers)", g, len(groups["train"]), len(groups["val"]), len(groups["test"]))
		}
	}
	if len(groups["train"]) != 30 || len(groups["val"]) != 10 || len(groups["test"]) != 10 {
		t.Errorf("customers: train %d val %d test %d, want 30, 10 and the 10 validation customers out of time\n%s", len(groups["train"]), len(groups["val"]), len(groups["test"]), out)
	}
	if _, rows := readCSV(t, p.path("output/oot_data/oot/oot_processed_data.csv")); len(rows) == 0 {
		t.Error("oot_data is empty")
	}

	q := newProcessingDirs(t)
	events(t, q.path("input/data/part-0.csv"))
	env["SPLIT_DATE"] = "next tuesday"
	if out, err := sb.run(t, job{script: "temporal_split_preprocessing.py", codeDir: "/opt/ml/processing/input/code", binds: q.binds(), env: env, args: []string{"--job_type", "training"}}); err == nil || !strings.Contains(out, "split_date") {
		t.Errorf("a bad SPLIT_DATE: %v\n%s", err, out)
	}
}

func TestTemporalSequencesAndFeatures(t *testing.T) {
	t.Parallel()
	sb := needSandbox(t, "pandas", "numpy")
	p := newProcessingDirs(t)
	events(t, p.path("input/data/events.csv"))
	env := map[string]string{"SEQUENCE_GROUPING_FIELD": "customer", "TEMPORAL_FIELD": "ts", "SEQUENCE_LENGTH": "10", "VALUE_FIELDS": "amount",
		"CATEGORICAL_FIELDS": "channel", "LABEL_FIELD": "is_ato"}
	sb.mustRun(t, job{script: "temporal_sequence_normalization.py", codeDir: "/opt/ml/processing/input/code", binds: p.binds(), env: env, args: []string{"--job_type", "training"}})
	header, rows := readCSV(t, p.path("output/sequence_index.csv"))
	if len(rows) != 40 || header[0] != "customer" {
		t.Fatalf("sequence_index: %v, %d rows", header, len(rows))
	}
	for _, r := range rows {
		if kept, _ := strconv.Atoi(r[2]); kept != 10 {
			t.Fatalf("customer %s kept %s events, want the last 10", r[0], r[2])
		}
	}
	// the features step reads the sequences: count, mean and a window aggregation per customer
	q := newProcessingDirs(t)
	copyFile(t, p.path("output/sequences.npz"), q.path("input/normalized_sequences/sequences.npz"))
	sb.mustRun(t, job{script: "temporal_feature_engineering.py", codeDir: "/opt/ml/processing/input/code", binds: q.binds(),
		env: map[string]string{"WINDOW_SIZES": "7,30", "AGGREGATION_FUNCTIONS": "mean,count,max", "LAG_FEATURES": "1", "ENABLE_VALIDATION": "false"}, args: []string{"--job_type", "training"}})
	header, rows = readCSV(t, q.path("output/training/training_processed_data.csv"))
	get := func(r []string, name string) float64 {
		v, err := strconv.ParseFloat(r[column(t, header, name)], 64)
		must(t, err)
		return v
	}
	for _, r := range rows {
		if r[0] != "c0" && r[0] != "c4" {
			continue
		}
		// c0 buys daily (amount 10 + day/100), c4 every 5 days: the last 10 events
		want7 := map[string]float64{"c0": 7, "c4": 2}[r[0]]
		if get(r, "amount_count") != 10 || get(r, "amount_count_7d") != want7 || get(r, "is_ato") != 0 {
			t.Errorf("%s: count %v, count in 7 days %v (want %v), label %v", r[0], get(r, "amount_count"), get(r, "amount_count_7d"), want7, get(r, "is_ato"))
		}
		if r[0] == "c0" && (!near(get(r, "amount_max"), 10.99, 1e-6) || !near(get(r, "amount_lag_1"), 10.98, 1e-6) || !near(get(r, "amount_mean"), 10.945, 1e-6)) {
			t.Errorf("c0: max %v lag %v mean %v", get(r, "amount_max"), get(r, "amount_lag_1"), get(r, "amount_mean"))
		}
	}
}

const ruleset = `{"label_config": {"output_label_name": "label", "output_label_type": "binary", "label_values": [0, 1], "default_label": 0},
 "rules": [
  {"rule_id": "big_new", "priority": 2, "conditions": {"all_of": [{"field": "amount", "operator": ">", "value": 35}, {"field": "channel", "operator": "equals", "value": "web"}]}, "output_label": 1},
  {"rule_id": "trusted", "priority": 1, "conditions": {"field": "customer", "operator": "in", "value": ["c3", "c7"]}, "output_label": 0},
  {"rule_id": "never", "priority": 3, "conditions": {"all_of": [{"field": "amount", "operator": ">", "value": 50}, {"field": "amount", "operator": "<", "value": 20}]}, "output_label": 1},
  {"rule_id": "again", "priority": 4, "conditions": {"all_of": [{"field": "channel", "operator": "equals", "value": "web"}, {"field": "amount", "operator": ">", "value": 35}]}, "output_label": 1}
 ]}`

func TestLabelRulesetGenerationAndExecution(t *testing.T) {
	t.Parallel()
	sb := needSandbox(t, "pandas", "numpy")
	g := newProcessingDirs(t)
	must(t, os.MkdirAll(g.path("input/config/label_ruleset"), 0o755))
	must(t, os.WriteFile(g.path("input/config/label_ruleset/label_ruleset.json"), []byte(ruleset), 0o644))
	out := sb.mustRun(t, job{script: "label_ruleset_generation.py", codeDir: "/opt/ml/processing/input/code", binds: g.binds(),
		env: map[string]string{"FIELD_NAMES": "customer,ts,amount,channel"}, args: []string{"--job_type", "training"}})
	report := readJSON(t, g.path("output/validation_report/validation_report.json"))
	warnings := fmt.Sprint(report["warnings"])
	if report["valid"] != true || !strings.Contains(warnings, "never matches") || !strings.Contains(warnings, "conditions of big_new") {
		t.Errorf("report %v\n%s", report, out)
	}
	rs := readJSON(t, g.path("output/validated_ruleset/ruleset.json"))
	var order []string
	for _, r := range rs["rules"].([]any) {
		order = append(order, r.(map[string]any)["rule_id"].(string))
	}
	if strings.Join(order, ",") != "trusted,big_new,never" {
		t.Errorf("rules in order %v, want by priority with the duplicate dropped", order)
	}

	// execution over split folders: first matching rule by priority decides
	e := newProcessingDirs(t)
	copyFile(t, g.path("output/validated_ruleset/ruleset.json"), e.path("input/validated_ruleset/ruleset.json"))
	events(t, e.path("input/data/train/train_processed_data.csv"))
	events(t, e.path("input/data/val/val_processed_data.csv"))
	sb.mustRun(t, job{script: "label_ruleset_execution.py", codeDir: "/opt/ml/processing/input/code", binds: e.binds(), args: []string{"--job_type", "training"}})
	header, rows := readCSV(t, e.path("output/processed_data/train/train_processed_data.csv"))
	lc, rc, cc, ac := column(t, header, "label"), column(t, header, "label_rule"), column(t, header, "customer"), column(t, header, "amount")
	for _, r := range rows {
		amount, _ := strconv.ParseFloat(r[ac], 64)
		want, rule := "0", ""
		switch {
		case r[cc] == "c3" || r[cc] == "c7":
			want, rule = "0", "trusted"
		case amount > 35:
			want, rule = "1", "big_new"
		}
		if r[lc] != want || r[rc] != rule {
			t.Fatalf("row %v: label %s by %q, want %s by %q", r, r[lc], r[rc], want, rule)
		}
	}
	rep := readJSON(t, e.path("output/execution_report/execution_report.json"))
	if !strings.Contains(fmt.Sprint(rep["splits"]), "val:") {
		t.Errorf("execution report has no val split: %v", rep)
	}

	// an invalid ruleset fails the generation job, naming the problem
	bad := newProcessingDirs(t)
	must(t, os.MkdirAll(bad.path("input/config/label_ruleset"), 0o755))
	must(t, os.WriteFile(bad.path("input/config/label_ruleset/label_ruleset.json"), []byte(strings.Replace(ruleset, `"operator": "in"`, `"operator": "within"`, 1)), 0o644))
	if out, err := sb.run(t, job{script: "label_ruleset_generation.py", codeDir: "/opt/ml/processing/input/code", binds: bad.binds(), args: []string{"--job_type", "training"}}); err == nil || !strings.Contains(out, "'within'") {
		t.Errorf("an unknown operator passed: %v\n%s", err, out)
	}
	// a rule reading a field the data lacks fails execution unless told to skip it
	miss := newProcessingDirs(t)
	copyFile(t, g.path("output/validated_ruleset/ruleset.json"), miss.path("input/validated_ruleset/ruleset.json"))
	writeRows(t, miss.path("input/data/rows.csv"), []string{"customer", "amount"}, [][]string{{"c1", "40"}})
	if out, err := sb.run(t, job{script: "label_ruleset_execution.py", codeDir: "/opt/ml/processing/input/code", binds: miss.binds(), args: []string{"--job_type", "calibration"}}); err == nil || !strings.Contains(out, "channel") {
		t.Errorf("a missing field passed: %v\n%s", err, out)
	}
	sb.mustRun(t, job{script: "label_ruleset_execution.py", codeDir: "/opt/ml/processing/input/code", binds: miss.binds(), env: map[string]string{"FAIL_ON_MISSING_FIELDS": "false"}, args: []string{"--job_type", "calibration"}})
	if _, rows := readCSV(t, miss.path("output/processed_data/calibration/calibration_processed_data.csv")); len(rows) != 1 || rows[0][2] != "0" {
		t.Errorf("with the big_new rule skipped the row keeps the default label: %v", rows)
	}
}

func TestActiveSampleSelectionAndPseudoLabelMerge(t *testing.T) {
	t.Parallel()
	sb := needSandbox(t, "pandas", "numpy")
	r := rand.New(rand.NewPCG(3, 4))
	var scored [][]string
	for i := 0; i < 200; i++ {
		p1 := r.Float64()
		scored = append(scored, []string{fmt.Sprintf("u%d", i), strconv.FormatFloat(r.NormFloat64(), 'f', 4, 64), strconv.FormatFloat(1-p1, 'f', 6, 64), strconv.FormatFloat(p1, 'f', 6, 64)})
	}
	a := newProcessingDirs(t)
	writeRows(t, a.path("input/evaluation_data/predictions.csv"), []string{"id", "x1", "prob_class_0", "prob_class_1"}, scored)
	sb.mustRun(t, job{script: "active_sample_selection.py", codeDir: "/opt/ml/processing/input/code", binds: a.binds(),
		env: map[string]string{"SELECTION_STRATEGY": "confidence_threshold", "CONFIDENCE_THRESHOLD": "0.9", "USE_CASE": "ssl"}, args: []string{"--job_type", "training"}})
	header, rows := readCSV(t, a.path("output/selected_samples/selected_samples.csv"))
	want := 0
	for _, s := range scored {
		p1, _ := strconv.ParseFloat(s[3], 64)
		if p1 >= 0.9 || 1-p1 >= 0.9 {
			want++
		}
	}
	if len(rows) != want || want == 0 {
		t.Fatalf("selected %d rows, want the %d with a top probability >= 0.9", len(rows), want)
	}
	for _, row := range rows {
		conf, _ := strconv.ParseFloat(row[column(t, header, "confidence")], 64)
		p1, _ := strconv.ParseFloat(row[column(t, header, "prob_class_1")], 64)
		if conf < 0.9 || (row[column(t, header, "pseudo_label")] == "1") != (p1 > 0.5) {
			t.Fatalf("row %v", row)
		}
	}
	// uncertainty picks the rows nearest 0.5, and an SSL use case refuses it
	u := newProcessingDirs(t)
	writeRows(t, u.path("input/evaluation_data/predictions.csv"), []string{"id", "x1", "prob_class_0", "prob_class_1"}, scored)
	sb.mustRun(t, job{script: "active_sample_selection.py", codeDir: "/opt/ml/processing/input/code", binds: u.binds(),
		env: map[string]string{"SELECTION_STRATEGY": "uncertainty", "MAX_SAMPLES": "5"}, args: []string{"--job_type", "training"}})
	_, picked := readCSV(t, u.path("output/selected_samples/selected_samples.csv"))
	for _, row := range picked {
		if p1, _ := strconv.ParseFloat(row[3], 64); p1 < 0.3 || p1 > 0.7 {
			t.Errorf("uncertainty picked a confident row %v", row)
		}
	}
	if out, err := sb.run(t, job{script: "active_sample_selection.py", codeDir: "/opt/ml/processing/input/code", binds: u.binds(),
		env: map[string]string{"SELECTION_STRATEGY": "uncertainty", "USE_CASE": "ssl"}, args: []string{"--job_type", "training"}}); err == nil || !strings.Contains(out, "noise") {
		t.Errorf("ssl with uncertainty: %v\n%s", err, out)
	}

	// the merge adds the pseudo-labelled rows to train and val, labelled and marked
	m := newProcessingDirs(t)
	ds := dataset{classes: 2}
	for i, split := range []string{"train", "val", "test"} {
		ds.write(t, m.path(fmt.Sprintf("input/base_data/%s/%s_processed_data.csv", split, split)), split, uint64(i+1))
	}
	copyFile(t, a.path("output/selected_samples/selected_samples.csv"), m.path("input/augmentation_data/selected_samples.csv"))
	sb.mustRun(t, job{script: "pseudo_label_merge.py", codeDir: "/opt/ml/processing/input/code", binds: m.binds(), env: map[string]string{"LABEL_FIELD": "label"}, args: []string{"--job_type", "training"}})
	added := 0
	for _, split := range []string{"train", "val", "test"} {
		header, rows := readCSV(t, m.path(fmt.Sprintf("output/merged_data/%s/%s_processed_data.csv", split, split)))
		src, lab := column(t, header, "data_source"), column(t, header, "label")
		n := 0
		for _, row := range rows {
			if row[src] == "pseudo_labeled" {
				n++
				if row[lab] != "0" && row[lab] != "1" {
					t.Fatalf("pseudo-labelled row with label %q", row[lab])
				}
			}
		}
		if split == "test" && n != 0 {
			t.Errorf("test got %d pseudo-labelled rows: evaluation must keep the true mix", n)
		}
		if len(rows)-n != splitSizes[split] {
			t.Errorf("%s has %d original rows, want %d", split, len(rows)-n, splitSizes[split])
		}
		added += n
	}
	if added != want {
		t.Errorf("merged %d pseudo-labelled rows, want %d", added, want)
	}
}

func TestTabularLookupModelServes(t *testing.T) {
	t.Parallel()
	sb := needSandbox(t, "pandas", "numpy")
	p := newProcessingDirs(t)
	writeRows(t, p.path("input/data/rows.csv"), []string{"country", "channel", "fraud"}, [][]string{
		{"US", "web", "1"}, {"US", "web", "0"}, {"US", "web", "1"}, {"US", "app", "0"}, {"DE", "web", "1"}, {"", "web", "1"}})
	sb.mustRun(t, job{script: "tabular_lookup_model_building.py", codeDir: "/opt/ml/processing/input/code", binds: p.binds(),
		env: map[string]string{"KEY_FIELDS": "country,channel", "VALUE_FIELD": "fraud", "AGGREGATION": "mean", "MIN_COUNT": "2"}, args: []string{"--job_type", "training"}})
	cfg := readJSON(t, p.path("output/model/model_config.json"))
	if cfg["framework"] != "lookup" || cfg["entries"] != float64(3) || !near(cfg["default_value"].(float64), 4.0/6, 1e-9) {
		t.Fatalf("model_config %v", cfg)
	}
	// serve it: the handlers answer a known key with its value, a rare one and an unknown one
	// with the default
	rows := t.TempDir()
	writeRows(t, filepath.Join(rows, "req.csv"), []string{"country", "channel"}, [][]string{{"US", "web"}, {"DE", "web"}, {"FR", "app"}})
	model, outDir := p.path("output/model"), t.TempDir()
	sb.mustRun(t, job{script: "inference/lookup/inference.py", codeDir: "/opt/ml/model/code", extra: map[string]string{"serve.py": serveDriver}, entry: "serve.py",
		binds: map[string]string{"/opt/ml/model": model, "/opt/ml/output": outDir, "/opt/ml/input/data": rows}, args: []string{"/opt/ml/input/data/req.csv"}})
	b, err := os.ReadFile(filepath.Join(outDir, "served.json"))
	must(t, err)
	var got struct {
		CSV  []string         `json:"csv"`
		JSON []map[string]any `json:"json"`
	}
	must(t, json.Unmarshal(b, &got))
	if len(got.CSV) != 4 || got.CSV[0] != "fraud" || !strings.HasPrefix(got.CSV[1], "0.666") || !strings.HasPrefix(got.CSV[2], "0.666") {
		t.Errorf("CSV answers %q: a header line, US/web 2 of 3, DE/web (1 row < min_count) the default", got.CSV)
	}
	if len(got.JSON) != 3 || got.JSON[0]["found"] != true || got.JSON[2]["found"] != false || got.JSON[1]["row_count"] != float64(1) {
		t.Errorf("JSON answers %v", got.JSON)
	}
}
