package scripttest_test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog/scripttest"
)

// table is a CSV file read back: header and rows.
type table struct {
	header []string
	rows   [][]string
}

func (tb table) col(t *testing.T, name string) []string {
	t.Helper()
	for i, h := range tb.header {
		if h == name {
			out := make([]string, len(tb.rows))
			for j, r := range tb.rows {
				out[j] = r[i]
			}
			return out
		}
	}
	t.Fatalf("no column %s in %v", name, tb.header)
	return nil
}

func readCSV(t *testing.T, path string) table {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	if strings.HasSuffix(path, ".tsv") {
		r.Comma = '\t'
	}
	all, err := r.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(all) == 0 {
		t.Fatalf("%s is empty", path)
	}
	return table{header: all[0], rows: all[1:]}
}

// readDir reads every CSV/TSV file of a directory (sorted) as one table.
func readDir(t *testing.T, dir string) table {
	t.Helper()
	var out table
	files, _ := filepath.Glob(filepath.Join(dir, "*.[ct]sv"))
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatalf("no CSV files in %s", dir)
	}
	for _, f := range files {
		tb := readCSV(t, f)
		if out.header == nil {
			out.header = tb.header
		} else if strings.Join(out.header, ",") != strings.Join(tb.header, ",") {
			t.Fatalf("%s: header %v, want %v", f, tb.header, out.header)
		}
		out.rows = append(out.rows, tb.rows...)
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

func mustFile(t *testing.T, p string) {
	t.Helper()
	if st, err := os.Stat(p); err != nil || st.IsDir() || st.Size() == 0 {
		t.Fatalf("missing or empty %s (%v)", p, err)
	}
}

// generated runs DummyDataGeneration and returns its DATA and SIGNATURE
// directories.
func generated(t *testing.T, classes, rows int, missing float64) (data, signature string) {
	t.Helper()
	res := scripttest.RunProcessing(t, scripttest.Run{Node: "DummyDataGeneration_training", Config: map[string]any{
		"num_rows": rows, "num_classes": classes, "missing_rate": missing, "label_name": "label", "positive_rate": 0.3, "num_numeric_features": 4, "num_categorical_features": 2,
	}})
	return res.Outputs["DATA"], res.Outputs["SIGNATURE"]
}

func TestDummyDataGeneration(t *testing.T) {
	for _, classes := range []int{2, 4} {
		data, sig := generated(t, classes, 300, 0.1)
		tb := readDir(t, data)
		if len(tb.rows) != 300 || strings.Join(tb.header, ",") != "id,num_1,num_2,num_3,num_4,cat_1,cat_2,label" {
			t.Fatalf("%d classes: %d rows, header %v", classes, len(tb.rows), tb.header)
		}
		labels := distinct(tb.col(t, "label"))
		if len(labels) != classes {
			t.Errorf("%d classes: labels %v", classes, labels)
		}
		empty := 0
		for _, v := range tb.col(t, "num_1") {
			if v == "" {
				empty++
			}
		}
		if empty < 10 || empty > 60 {
			t.Errorf("missing_rate 0.1 left %d of 300 cells empty", empty)
		}
		b, err := os.ReadFile(filepath.Join(sig, "signature"))
		if err != nil || strings.TrimSpace(string(b)) != strings.Join(tb.header, ",") {
			t.Errorf("signature %q (%v)", b, err)
		}
	}
}

// preprocessed runs TabularPreprocessing (training) on generated data and
// returns its output directory (train/ val/ test/).
func preprocessed(t *testing.T, classes int, missing float64) string {
	t.Helper()
	data, sig := generated(t, classes, 400, missing)
	res := scripttest.RunProcessing(t, scripttest.Run{Node: "TabularPreprocessing_training",
		Config: map[string]any{"label_name": "label"}, Inputs: map[string]string{"DATA": data, "SIGNATURE": sig}})
	return res.Outputs["processed_data"]
}

func TestTabularPreprocessing(t *testing.T) {
	for _, classes := range []int{2, 3} {
		out := preprocessed(t, classes, 0)
		total := 0
		for _, split := range []string{"train", "val", "test"} {
			p := filepath.Join(out, split, split+"_processed_data.csv")
			mustFile(t, p)
			tb := readCSV(t, p)
			total += len(tb.rows)
			if got := distinct(tb.col(t, "label")); len(got) != classes {
				t.Errorf("%d classes: %s has labels %v (the split is stratified)", classes, split, got)
			}
		}
		if total != 400 {
			t.Errorf("%d rows in the splits, want 400", total)
		}
		if n := len(readCSV(t, filepath.Join(out, "train", "train_processed_data.csv")).rows); n != 280 {
			t.Errorf("train has %d rows, want 0.7 * 400", n)
		}
	}

	// Text labels become class indices, rows without a label go, header-less
	// shards take the signature, and a non-training job writes one folder.
	dir := t.TempDir()
	write(t, filepath.Join(dir, "data", "part-00000.csv"), "id,f,y\n1,0.5,cat\n2,1.5,dog\n3,2.5,\n")
	write(t, filepath.Join(dir, "data", "part-00001.csv"), "4,3.5,dog\n5,4.5,cat\n")
	write(t, filepath.Join(dir, "sig", "signature"), "id,f,y\n")
	res := scripttest.RunProcessing(t, scripttest.Run{Node: "TabularPreprocessing_calibration",
		Config: map[string]any{"label_name": "y", "output_format": "TSV"},
		Inputs: map[string]string{"DATA": filepath.Join(dir, "data"), "SIGNATURE": filepath.Join(dir, "sig")}})
	tb := readCSV(t, filepath.Join(res.Outputs["processed_data"], "calibration", "calibration_processed_data.tsv"))
	if got := strings.Join(tb.col(t, "y"), ","); got != "0,1,1,0" {
		t.Errorf("labels %s, want cat=0 dog=1 with the unlabeled row dropped", got)
	}
	if got := strings.Join(tb.col(t, "id"), ","); got != "1,2,4,5" {
		t.Errorf("ids %s", got)
	}

	// A label column that does not exist fails the job, naming it.
	_, err := scripttest.RunProcessingErr(t, scripttest.Run{Node: "TabularPreprocessing_training",
		Config: map[string]any{"label_name": "nope"}, Inputs: map[string]string{"DATA": filepath.Join(dir, "data")}})
	if err == nil {
		t.Error("a missing label column did not fail the job")
	}
}

func write(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestDummyDataLoading(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a", "train.csv"), "id,amount,country,label\n1,10.5,US,0\n2,3.0,DE,1\n3,,US,0\n")
	write(t, filepath.Join(dir, "a", "more", "extra.jsonl"), `{"id": 4, "amount": 7.25, "country": "FR", "label": 1}`+"\n")
	write(t, filepath.Join(dir, "a", "notes.txt"), "not data\n")
	res := scripttest.RunProcessing(t, scripttest.Run{Node: "DummyDataLoading_training",
		Config: map[string]any{"data_source": "s3://bucket/raw/"}, Inputs: map[string]string{"INPUT_DATA": filepath.Join(dir, "a")}})
	tb := readCSV(t, filepath.Join(res.Outputs["DATA"], "part-00000.csv"))
	if len(tb.rows) != 4 || strings.Join(tb.header, ",") != "id,amount,country,label" {
		t.Fatalf("data %v %d rows", tb.header, len(tb.rows))
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
	if tb := readDir(t, res.Outputs["DATA"]); len(tb.rows) != 3 {
		t.Errorf("csv only: %d rows", len(tb.rows))
	}
	pre := scripttest.RunProcessing(t, scripttest.Run{Node: "TabularPreprocessing_testing", Config: map[string]any{"label_name": "label"},
		Inputs: map[string]string{"DATA": res.Outputs["DATA"], "SIGNATURE": res.Outputs["SIGNATURE"]}})
	if tb := readCSV(t, filepath.Join(pre.Outputs["processed_data"], "testing", "testing_processed_data.csv")); len(tb.rows) != 3 {
		t.Errorf("preprocessed %d rows", len(tb.rows))
	}
}
