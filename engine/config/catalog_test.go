package config

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
)

// TestDefaultSchema builds the schema of the embedded step catalog: every
// step gets a config class and the shared sets have the original's sizes.
func TestDefaultSchema(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatalf("Default: %v", err)
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range cat.Steps() {
		c, ok := s.ClassForStep(st.Type)
		if !ok || c.Name != st.ConfigClass {
			t.Errorf("%s: class %v", st.Type, c)
		}
	}
	var nodes []catalog.NodeName
	for _, st := range cat.Steps() {
		nodes = append(nodes, catalog.NodeName(st.Type))
	}
	r := s.Requirements(nodes)
	if len(r.Base) != 19 || len(r.BaseProcessing) != 10 {
		t.Errorf("base %d and processing %d requirements; the original has 19 and 10", len(r.Base), len(r.BaseProcessing))
	}
	if len(r.Pending) != 0 {
		t.Errorf("catalog steps pending: %v", r.Pending)
	}
	if again, _ := Default(); again != s {
		t.Error("Default built twice")
	}
}

// TestOriginalFileWithTheCatalog loads the hand-written original-format file
// with the real catalog's classes and resolves its DAG nodes.
func TestOriginalFileWithTheCatalog(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	set, err := Load(s, "testdata/original_config.json")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	res, err := set.Resolve([]catalog.NodeName{"CradleDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining",
		"CradleDataLoading_calibration", "TabularPreprocessing_calibration"}, ResolveOptions{})
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	if res[2].Config.String("hyperparameter_file") != "s3://example-bucket/MODS/alice-Demo-xgboost-NA_1.0.0/hyperparameters/NA_hyperparameters.json" {
		t.Errorf("hyperparameter_file %q", res[2].Config.String("hyperparameter_file"))
	}
}

// TestExampleRoundTripsByteForByte: the example config.json was written by
// config.merge_save; loading and writing it again gives the same bytes.
func TestExampleRoundTripsByteForByte(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "examples", "xgboost-end-to-end", "config.json")
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	set, err := Unmarshal(s, want)
	if err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if len(set.Warnings) > 0 {
		t.Errorf("warnings %v", set.Warnings)
	}
	got, err := Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("re-written example differs from the file")
	}
}
