package xgboosttest

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog/scripttest"
)

// table is a CSV file read back: header and rows.
type table struct {
	header []string
	rows   [][]string
}

func readCSV(t *testing.T, path string) table {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	if err != nil || len(all) == 0 {
		t.Fatalf("%s: %v (%d lines)", path, err, len(all))
	}
	return table{header: all[0], rows: all[1:]}
}

// readDir reads the one CSV file of a directory.
func readDir(t *testing.T, dir string) table {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
	sort.Strings(files)
	if len(files) != 1 {
		t.Fatalf("want one CSV file in %s, got %v", dir, files)
	}
	return readCSV(t, files[0])
}

func mustFile(t *testing.T, p string) {
	t.Helper()
	if st, err := os.Stat(p); err != nil || st.IsDir() || st.Size() == 0 {
		t.Fatalf("missing or empty %s (%v)", p, err)
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

// preprocessed generates 400 rows (id, num_1..num_4, cat_1, cat_2, label
// with the given number of classes, missing numeric cells) with
// DummyDataGeneration and splits them with TabularPreprocessing; it
// returns the folder holding train/, val/ and test/.
func preprocessed(t *testing.T, classes int, missing float64) string {
	t.Helper()
	gen := scripttest.RunProcessing(t, scripttest.Run{Node: "DummyDataGeneration_training", Config: map[string]any{
		"num_rows": 400, "num_classes": classes, "missing_rate": missing, "label_name": "label", "positive_rate": 0.3,
		"num_numeric_features": 4, "num_categorical_features": 2,
	}})
	res := scripttest.RunProcessing(t, scripttest.Run{Node: "TabularPreprocessing_training", Config: map[string]any{"label_name": "label"},
		Inputs: map[string]string{"DATA": gen.Outputs["DATA"], "SIGNATURE": gen.Outputs["SIGNATURE"]}})
	return res.Outputs["processed_data"]
}
