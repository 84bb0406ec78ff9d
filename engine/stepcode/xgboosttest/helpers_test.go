package xgboosttest

import (
	"path/filepath"
	"sort"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler/scripttest"
)

// readDir reads the one CSV file of a directory.
func readDir(t *testing.T, dir string) scripttest.Table {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
	sort.Strings(files)
	if len(files) != 1 {
		t.Fatalf("want one CSV file in %s, got %v", dir, files)
	}
	return scripttest.ReadCSV(t, files[0])
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
