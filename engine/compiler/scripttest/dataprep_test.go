package scripttest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler/scripttest"
)

// readDir reads every CSV/TSV file of a directory (sorted) as one table.
func readDir(t *testing.T, dir string) scripttest.Table {
	t.Helper()
	var out scripttest.Table
	files, _ := filepath.Glob(filepath.Join(dir, "*.[ct]sv"))
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatalf("no CSV files in %s", dir)
	}
	for _, f := range files {
		tb := scripttest.ReadCSV(t, f)
		if out.Header == nil {
			out.Header = tb.Header
		} else if strings.Join(out.Header, ",") != strings.Join(tb.Header, ",") {
			t.Fatalf("%s: header %v, want %v", f, tb.Header, out.Header)
		}
		out.Rows = append(out.Rows, tb.Rows...)
	}
	return out
}

func distinct(vals []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range vals {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// cacheDir keeps step outputs several tests read (a run costs seconds:
// pandas and sklearn are imported each time); TestMain removes it.
var (
	cacheDir string
	cacheMu  sync.Mutex
	cached   = map[string]bool{}
)

func TestMain(m *testing.M) { scripttest.MainWithDir(m, &cacheDir) }

// cachedOutputs returns cacheDir/key holding the named outputs of the run
// produce makes, running it the first time only. Readers must not write
// into the returned directories (the harness copies inputs).
func cachedOutputs(t *testing.T, key string, produce func() *scripttest.Result, outputs ...string) string {
	t.Helper()
	cacheMu.Lock()
	defer cacheMu.Unlock()
	dir := filepath.Join(cacheDir, key)
	if !cached[key] {
		res := produce()
		for _, o := range outputs {
			scripttest.CopyInto(t, res.Outputs[o], filepath.Join(dir, o))
		}
		cached[key] = true
	}
	return dir
}

// generated runs DummyDataGeneration and returns its DATA and SIGNATURE
// directories.
func generated(t *testing.T, classes, rows int, missing float64) (data, signature string) {
	t.Helper()
	dir := cachedOutputs(t, fmt.Sprintf("generated-%d-%d-%g", classes, rows, missing), func() *scripttest.Result {
		return scripttest.RunProcessing(t, scripttest.Run{Node: "DummyDataGeneration_training", Config: map[string]any{
			"num_rows": rows, "num_classes": classes, "missing_rate": missing, "label_name": "label", "positive_rate": 0.3, "num_numeric_features": 4, "num_categorical_features": 2,
		}})
	}, "DATA", "SIGNATURE")
	return filepath.Join(dir, "DATA"), filepath.Join(dir, "SIGNATURE")
}

func TestDummyDataGeneration(t *testing.T) {
	for _, classes := range []int{2, 4} {
		data, sig := generated(t, classes, 300, 0.1)
		tb := readDir(t, data)
		if len(tb.Rows) != 300 || strings.Join(tb.Header, ",") != "id,num_1,num_2,num_3,num_4,cat_1,cat_2,label" {
			t.Fatalf("%d classes: %d rows, header %v", classes, len(tb.Rows), tb.Header)
		}
		labels := distinct(tb.Col(t, "label"))
		if len(labels) != classes {
			t.Errorf("%d classes: labels %v", classes, labels)
		}
		empty := 0
		for _, v := range tb.Col(t, "num_1") {
			if v == "" {
				empty++
			}
		}
		if empty < 10 || empty > 60 {
			t.Errorf("missing_rate 0.1 left %d of 300 cells empty", empty)
		}
		b, err := os.ReadFile(filepath.Join(sig, "signature"))
		if err != nil || strings.TrimSpace(string(b)) != strings.Join(tb.Header, ",") {
			t.Errorf("signature %q (%v)", b, err)
		}
	}
}

// Named columns: the data has the columns a trainer's config names, in
// the order id, numeric, categorical, label.
func TestDummyDataGenerationNamedColumns(t *testing.T) {
	res := scripttest.RunProcessing(t, scripttest.Run{Node: "DummyDataGeneration_training", Config: map[string]any{
		"num_rows": 50, "label_name": "is_fraud", "id_name": "txn_id",
		"tab_field_list": []any{"amount", "age"}, "cat_field_list": []any{"country"},
	}})
	tb := readDir(t, res.Outputs["DATA"])
	if len(tb.Rows) != 50 || strings.Join(tb.Header, ",") != "txn_id,amount,age,country,is_fraud" {
		t.Fatalf("%d rows, header %v", len(tb.Rows), tb.Header)
	}
	if got := distinct(tb.Col(t, "is_fraud")); len(got) != 2 {
		t.Errorf("binary labels %v", got)
	}
	_, err := scripttest.RunProcessingErr(t, scripttest.Run{Node: "DummyDataGeneration_training", Config: map[string]any{
		"label_name": "amount", "tab_field_list": []any{"amount"}}})
	if err == nil {
		t.Error("a label that is also a feature column: the script must refuse it")
	}
}

// preprocessed runs TabularPreprocessing (training) on generated data and
// returns its output directory (train/ val/ test/).
func preprocessed(t *testing.T, classes int, missing float64) string {
	t.Helper()
	data, sig := generated(t, classes, 400, missing)
	dir := cachedOutputs(t, fmt.Sprintf("preprocessed-%d-%g", classes, missing), func() *scripttest.Result {
		return scripttest.RunProcessing(t, scripttest.Run{Node: "TabularPreprocessing_training",
			Config: map[string]any{"label_name": "label"}, Inputs: map[string]string{"DATA": data, "SIGNATURE": sig}})
	}, "processed_data")
	return filepath.Join(dir, "processed_data")
}

func TestTabularPreprocessing(t *testing.T) {
	for _, classes := range []int{2, 3} {
		out := preprocessed(t, classes, 0.15)
		total := 0
		for _, split := range []string{"train", "val", "test"} {
			p := filepath.Join(out, split, split+"_processed_data.csv")
			scripttest.MustFile(t, p)
			tb := scripttest.ReadCSV(t, p)
			total += len(tb.Rows)
			if got := distinct(tb.Col(t, "label")); len(got) != classes {
				t.Errorf("%d classes: %s has labels %v (the split is stratified)", classes, split, got)
			}
		}
		if total != 400 {
			t.Errorf("%d rows in the splits, want 400", total)
		}
		if n := len(scripttest.ReadCSV(t, filepath.Join(out, "train", "train_processed_data.csv")).Rows); n != 280 {
			t.Errorf("train has %d rows, want 0.7 * 400", n)
		}
	}

	// Text labels become class indices, rows without a label go, header-less
	// shards take the signature, and a non-training job writes one folder.
	dir := t.TempDir()
	scripttest.WriteFile(t, filepath.Join(dir, "data", "part-00000.csv"), "id,f,y\n1,0.5,cat\n2,1.5,dog\n3,2.5,\n")
	scripttest.WriteFile(t, filepath.Join(dir, "data", "part-00001.csv"), "4,3.5,dog\n5,4.5,cat\n")
	scripttest.WriteFile(t, filepath.Join(dir, "sig", "signature"), "id,f,y\n")
	res := scripttest.RunProcessing(t, scripttest.Run{Node: "TabularPreprocessing_calibration",
		Config: map[string]any{"label_name": "y", "output_format": "TSV"},
		Inputs: map[string]string{"DATA": filepath.Join(dir, "data"), "SIGNATURE": filepath.Join(dir, "sig")}})
	tb := scripttest.ReadCSV(t, filepath.Join(res.Outputs["processed_data"], "calibration", "calibration_processed_data.tsv"))
	if got := strings.Join(tb.Col(t, "y"), ","); got != "0,1,1,0" {
		t.Errorf("labels %s, want cat=0 dog=1 with the unlabeled row dropped", got)
	}
	if got := strings.Join(tb.Col(t, "id"), ","); got != "1,2,4,5" {
		t.Errorf("ids %s", got)
	}

	// A label column that does not exist fails the job, naming it.
	_, err := scripttest.RunProcessingErr(t, scripttest.Run{Node: "TabularPreprocessing_training",
		Config: map[string]any{"label_name": "nope"}, Inputs: map[string]string{"DATA": filepath.Join(dir, "data")}})
	if err == nil {
		t.Error("a missing label column did not fail the job")
	}
}

func TestDummyDataLoading(t *testing.T) {
	dir := t.TempDir()
	scripttest.WriteFile(t, filepath.Join(dir, "a", "train.csv"), "id,amount,country,label\n1,10.5,US,0\n2,3.0,DE,1\n3,,US,0\n")
	scripttest.WriteFile(t, filepath.Join(dir, "a", "more", "extra.jsonl"), `{"id": 4, "amount": 7.25, "country": "FR", "label": 1}`+"\n")
	scripttest.WriteFile(t, filepath.Join(dir, "a", "notes.txt"), "not data\n")
	res := scripttest.RunProcessing(t, scripttest.Run{Node: "DummyDataLoading_training",
		Config: map[string]any{"data_source": "s3://bucket/raw/"}, Inputs: map[string]string{"INPUT_DATA": filepath.Join(dir, "a")}})
	tb := scripttest.ReadCSV(t, filepath.Join(res.Outputs["DATA"], "part-00000.csv"))
	if len(tb.Rows) != 4 || strings.Join(tb.Header, ",") != "id,amount,country,label" {
		t.Fatalf("data %v %d rows", tb.Header, len(tb.Rows))
	}
	sig, _ := os.ReadFile(filepath.Join(res.Outputs["SIGNATURE"], "signature"))
	if strings.TrimSpace(string(sig)) != "id,amount,country,label" {
		t.Errorf("signature %q", sig)
	}
	meta, _ := os.ReadFile(filepath.Join(res.Outputs["METADATA"], "metadata"))
	if !strings.Contains(string(meta), `"total_rows": 4`) || !strings.Contains(string(meta), `"null_count": 1`) {
		t.Errorf("metadata %s", meta)
	}

	// Shards, JSON output, MODS metadata.
	res = scripttest.RunProcessing(t, scripttest.Run{Node: "DummyDataLoading_training",
		Config: map[string]any{"data_source": "s3://bucket/raw/", "write_data_shards": true, "shard_size": 2, "output_format": "JSON", "metadata_format": "MODS"},
		Inputs: map[string]string{"INPUT_DATA": filepath.Join(dir, "a")}})
	for _, p := range []string{"part-00000.json", "part-00001.json"} {
		b, err := os.ReadFile(filepath.Join(res.Outputs["DATA"], p))
		if err != nil || strings.Count(string(b), "\n") != 2 {
			t.Errorf("%s: %q %v", p, b, err)
		}
	}
	meta, _ = os.ReadFile(filepath.Join(res.Outputs["METADATA"], "metadata"))
	if !strings.HasPrefix(string(meta), "varname,iscategory,datatype\n") || !strings.Contains(string(meta), "country,true,object") {
		t.Errorf("MODS metadata %q", meta)
	}

	// Streaming reads file by file into parts; the result feeds TabularPreprocessing.
	res = scripttest.RunProcessing(t, scripttest.Run{Node: "DummyDataLoading_training",
		Config: map[string]any{"data_source": "s3://bucket/raw/", "enable_true_streaming": true, "supported_formats": []any{"csv"}},
		Inputs: map[string]string{"INPUT_DATA": filepath.Join(dir, "a")}})
	if tb := readDir(t, res.Outputs["DATA"]); len(tb.Rows) != 3 {
		t.Errorf("csv only: %d rows", len(tb.Rows))
	}
	pre := scripttest.RunProcessing(t, scripttest.Run{Node: "TabularPreprocessing_testing", Config: map[string]any{"label_name": "label"},
		Inputs: map[string]string{"DATA": res.Outputs["DATA"], "SIGNATURE": res.Outputs["SIGNATURE"]}})
	if tb := scripttest.ReadCSV(t, filepath.Join(pre.Outputs["processed_data"], "testing", "testing_processed_data.csv")); len(tb.Rows) != 3 {
		t.Errorf("preprocessed %d rows", len(tb.Rows))
	}
}

func splitFile(out, split string) string {
	return filepath.Join(out, split, split+"_processed_data.csv")
}

// TestTransformChain runs the fit-then-apply steps on generated binary and
// multiclass data, chained as a pipeline chains them: imputation, risk
// tables, feature selection and sampling fitted by their training jobs and
// applied by a calibration job with the training job's artifacts.
func TestTransformChain(t *testing.T) {
	for _, classes := range []int{2, 3} {
		t.Run(strconv.Itoa(classes)+"-classes", func(t *testing.T) { transformChain(t, classes) })
	}
}

func transformChain(t *testing.T, classes int) {
	pre := preprocessed(t, classes, 0.15)
	before := scripttest.ReadCSV(t, splitFile(pre, "train"))

	// Imputation: fitted on train, every split imputed, no empty cell left.
	imp := scripttest.RunProcessing(t, scripttest.Run{Node: "MissingValueImputation_training",
		Config: map[string]any{"label_field": "label", "default_numerical_strategy": "median", "column_strategies": map[string]any{"num_2": "constant"}, "numerical_constant_value": -1},
		Inputs: map[string]string{"input_data": pre}})
	scripttest.MustFile(t, filepath.Join(imp.Outputs["model_artifacts_output"], "impute_dict.pkl"))
	summary, _ := os.ReadFile(filepath.Join(imp.Outputs["model_artifacts_output"], "imputation_summary.json"))
	if !strings.Contains(string(summary), `"strategy": "median"`) || !strings.Contains(string(summary), `"fill_value": -1.0`) {
		t.Errorf("summary %s", summary)
	}
	for _, split := range []string{"train", "val", "test"} {
		tb := scripttest.ReadCSV(t, splitFile(imp.Outputs["processed_data"], split))
		for _, col := range []string{"num_1", "num_2", "num_3"} {
			for _, v := range tb.Col(t, col) {
				if v == "" {
					t.Fatalf("%s.%s still has an empty cell", split, col)
				}
			}
		}
	}
	emptyBefore, minusOne := 0, 0
	after := scripttest.ReadCSV(t, splitFile(imp.Outputs["processed_data"], "train"))
	for i, v := range before.Col(t, "num_2") {
		if v == "" {
			emptyBefore++
			if after.Col(t, "num_2")[i] == "-1.0" {
				minusOne++
			}
		}
	}
	if emptyBefore == 0 || minusOne != emptyBefore {
		t.Errorf("num_2's constant strategy filled %d of %d empty cells with -1", minusOne, emptyBefore)
	}
	// A calibration job applies the training job's values and passes them on.
	calData := t.TempDir()
	scripttest.CopyInto(t, filepath.Join(pre, "test"), filepath.Join(calData, "calibration"))
	cal := scripttest.RunProcessing(t, scripttest.Run{Node: "MissingValueImputation_calibration", Config: map[string]any{"label_field": "label"},
		Inputs: map[string]string{"input_data": calData, "model_artifacts_input": imp.Outputs["model_artifacts_output"]}})
	if a, b := scripttest.ReadCSV(t, splitFile(cal.Outputs["processed_data"], "calibration")), scripttest.ReadCSV(t, splitFile(imp.Outputs["processed_data"], "test")); strings.Join(a.Col(t, "num_1"), ",") != strings.Join(b.Col(t, "num_1"), ",") {
		t.Error("the calibration job's imputation differs from the training job's on the same rows")
	}
	scripttest.MustFile(t, filepath.Join(cal.Outputs["model_artifacts_output"], "impute_dict.pkl"))
	if classes == 2 {
		if _, err := scripttest.RunProcessingErr(t, scripttest.Run{Node: "MissingValueImputation_calibration", Config: map[string]any{"label_field": "label"},
			Inputs: map[string]string{"input_data": calData, "model_artifacts_input": t.TempDir()}}); err == nil {
			t.Error("a calibration job without the training artifacts succeeded")
		}
	}

	// Risk tables: categorical columns become risks in [0,1]; the imputation artifacts travel along.
	risk := scripttest.RunProcessing(t, scripttest.Run{Node: "RiskTableMapping_training",
		Config: map[string]any{"label_name": "label", "cat_field_list": []any{"cat_1", "cat_2"}, "count_threshold": 1},
		Inputs: map[string]string{"input_data": imp.Outputs["processed_data"], "model_artifacts_input": imp.Outputs["model_artifacts_output"]}})
	for _, f := range []string{"risk_table_map.pkl", "hyperparameters.json", "impute_dict.pkl"} {
		scripttest.MustFile(t, filepath.Join(risk.Outputs["model_artifacts_output"], f))
	}
	rtrain := scripttest.ReadCSV(t, splitFile(risk.Outputs["processed_data"], "train"))
	risks := distinct(rtrain.Col(t, "cat_1"))
	if len(risks) < 2 || len(risks) > 5 {
		t.Errorf("cat_1 maps to %v", risks)
	}
	for _, r := range risks {
		f, err := strconv.ParseFloat(r, 64)
		if err != nil || f < 0 || f > 1 {
			t.Errorf("risk %q", r)
		}
	}
	rcal := scripttest.RunProcessing(t, scripttest.Run{Node: "RiskTableMapping_calibration", Config: map[string]any{"label_name": "label"},
		Inputs: map[string]string{"input_data": cal.Outputs["processed_data"], "model_artifacts_input": risk.Outputs["model_artifacts_output"]}})
	for _, r := range distinct(scripttest.ReadCSV(t, splitFile(rcal.Outputs["processed_data"], "calibration")).Col(t, "cat_1")) {
		found := false
		for _, x := range risks {
			found = found || x == r
		}
		if !found {
			t.Errorf("calibration risk %s is not one of the training risks %v", r, risks)
		}
	}

	// Feature selection keeps the label and N features in every split.
	fs := scripttest.RunProcessing(t, scripttest.Run{Node: "FeatureSelection_training",
		Config: map[string]any{"label_field": "label", "n_features_to_select": 3, "feature_selection_methods": "variance,correlation,mutual_info,f_test,rfe,importance"},
		Inputs: map[string]string{"input_data": risk.Outputs["processed_data"], "model_artifacts_input": risk.Outputs["model_artifacts_output"]}})
	sel, _ := os.ReadFile(filepath.Join(fs.Outputs["model_artifacts_output"], "selected_features.json"))
	for _, split := range []string{"train", "val", "test"} {
		tb := scripttest.ReadCSV(t, splitFile(fs.Outputs["processed_data"], split))
		if len(tb.Header) != 4 || tb.Header[len(tb.Header)-1] != "label" {
			t.Errorf("%s: columns %v (selection %s)", split, tb.Header, sel)
		}
	}
	scripttest.MustFile(t, filepath.Join(fs.Outputs["model_artifacts_output"], "feature_scores.csv"))
	scripttest.MustFile(t, filepath.Join(fs.Outputs["model_artifacts_output"], "risk_table_map.pkl"))
	for _, strategy := range map[int][]string{2: {"ranking", "scoring"}}[classes] {
		other := scripttest.RunProcessing(t, scripttest.Run{Node: "FeatureSelection_training",
			Config: map[string]any{"label_field": "label", "n_features_to_select": 2, "combination_strategy": strategy, "feature_selection_methods": "mutual_info,chi2,lasso"},
			Inputs: map[string]string{"input_data": risk.Outputs["processed_data"]}})
		if tb := scripttest.ReadCSV(t, splitFile(other.Outputs["processed_data"], "val")); len(tb.Header) != 3 {
			t.Errorf("%s: columns %v", strategy, tb.Header)
		}
	}

	// Balanced sampling of train and val; test copied as it is.
	ss := scripttest.RunProcessing(t, scripttest.Run{Node: "StratifiedSampling_training",
		Config: map[string]any{"strata_column": "label", "target_sample_size": 60, "min_samples_per_stratum": 5, "allow_replacement": true},
		Inputs: map[string]string{"input_data": fs.Outputs["processed_data"]}})
	per := map[string]int{}
	for _, v := range scripttest.ReadCSV(t, splitFile(ss.Outputs["processed_data"], "train")).Col(t, "label") {
		per[v]++
	}
	if len(per) != classes {
		t.Errorf("sample strata %v", per)
	}
	for k, n := range per {
		if n != 60/classes {
			t.Errorf("balanced: stratum %s has %d rows, want %d (%v)", k, n, 60/classes, per)
		}
	}
	scripttest.MustFile(t, filepath.Join(ss.Outputs["processed_data"], "val", "sampling_diagnostics.json"))
	if a, b := scripttest.ReadCSV(t, splitFile(ss.Outputs["processed_data"], "test")), scripttest.ReadCSV(t, splitFile(fs.Outputs["processed_data"], "test")); len(a.Rows) != len(b.Rows) {
		t.Errorf("test was sampled: %d rows, had %d", len(a.Rows), len(b.Rows))
	}
}

func TestStratifiedSamplingStrategies(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("order_id,segment,spend\n")
	for i := 0; i < 300; i++ { // segment a: 200 rows of low spread, b: 100 rows of high spread
		seg, spend := "a", 10+i%3
		if i%3 == 0 {
			seg, spend = "b", (i%50)*10
		}
		b.WriteString(strconv.Itoa(i) + "," + seg + "," + strconv.Itoa(spend) + "\n")
	}
	scripttest.WriteFile(t, filepath.Join(dir, "validation", "validation_processed_data.csv"), b.String())
	count := func(cfg map[string]any) map[string]int {
		cfg["strata_column"] = "segment"
		res := scripttest.RunProcessing(t, scripttest.Run{Node: "StratifiedSampling_validation", Config: cfg, Inputs: map[string]string{"input_data": dir}})
		tb := scripttest.ReadCSV(t, splitFile(res.Outputs["processed_data"], "validation"))
		per := map[string]int{}
		for _, v := range tb.Col(t, "segment") {
			per[v]++
		}
		if ids := tb.Col(t, "order_id"); len(distinct(ids)) != len(ids) {
			t.Errorf("%v: an id appears twice", cfg)
		}
		return per
	}
	if got := count(map[string]any{"sampling_strategy": "proportional_min", "target_sample_size": 90, "min_samples_per_stratum": 5}); got["a"] != 60 || got["b"] != 30 {
		t.Errorf("proportional_min: %v, want a 60 b 30", got)
	}
	if got := count(map[string]any{"sampling_strategy": "optimal", "target_sample_size": 90, "variance_column": "spend", "min_samples_per_stratum": 5}); got["b"] <= got["a"] {
		t.Errorf("optimal: %v; the high-spread stratum should get more rows", got)
	}
	if got := count(map[string]any{"sampling_strategy": "balanced", "target_sample_size": 500}); got["a"] != 200 || got["b"] != 100 {
		t.Errorf("balanced above the data without replacement: %v", got)
	}
}

func TestCurrencyConversion(t *testing.T) {
	dir := t.TempDir()
	scripttest.WriteFile(t, filepath.Join(dir, "train", "train_processed_data.csv"), "id,price,fee,currency,mp,label\n1,100,10,EUR,,0\n2,100,10,,3,1\n3,100,10,,,0\n4,50,,GBP,,1\n5,30,3,XYZ,,0\n")
	scripttest.WriteFile(t, filepath.Join(dir, "val", "val_processed_data.csv"), "id,price,fee,currency,mp,label\n6,200,20,JPY,,0\n")
	res := scripttest.RunProcessing(t, scripttest.Run{Node: "CurrencyConversion_training",
		Config: map[string]any{"currency_conversion_vars": []any{"price", "fee"}, "currency_code_field": "currency", "marketplace_id_field": "mp",
			"currency_conversion_dict": map[string]any{"mappings": []any{
				map[string]any{"currency_code": "EUR", "conversion_rate": 0.5, "marketplace_id": 3},
				map[string]any{"currency_code": "GBP", "conversion_rate": 0.25},
				map[string]any{"currency_code": "JPY", "conversion_rate": 100},
				map[string]any{"currency_code": "XYZ", "conversion_rate": 0},
			}}},
		Inputs: map[string]string{"input_data": dir}})
	tb := scripttest.ReadCSV(t, splitFile(res.Outputs["processed_data"], "train"))
	if got := strings.Join(tb.Col(t, "price"), ","); got != "200.0,200.0,100.0,200.0,30.0" {
		t.Errorf("prices %s (EUR by code, EUR by marketplace, USD default, GBP, XYZ without a rate)", got)
	}
	if got := strings.Join(tb.Col(t, "fee"), ","); got != "20.0,20.0,10.0,,3.0" {
		t.Errorf("fees %s", got)
	}
	if got := scripttest.ReadCSV(t, splitFile(res.Outputs["processed_data"], "val")).Col(t, "price")[0]; got != "2.0" {
		t.Errorf("val price %s", got)
	}
	if !strings.Contains(res.Log, "XYZ") {
		t.Errorf("the currency without a rate is not named in the log:\n%s", res.Log)
	}
}
