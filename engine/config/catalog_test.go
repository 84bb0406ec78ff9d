package config

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/cursus-go/cursus/engine/catalog"
)

// TestDefaultSchema builds the schema of the embedded step catalog: every
// step gets a config class and the shared sets have their known sizes.
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
	// 19 base fields and 10 processing fields, plus kms_key_id (the key of
	// outputs and volumes), the run settings of a step (retry_policies,
	// tags), outputs_per_execution and output_locations, which cursus
	// (Python) lacks.
	if len(r.Base) != 22 || len(r.BaseProcessing) != 12 {
		t.Errorf("base %d and processing %d requirements; want 19 and 10 plus kms_key_id, two run settings, outputs_per_execution and output_locations", len(r.Base), len(r.BaseProcessing))
	}
	if len(r.Pending) != 0 {
		t.Errorf("catalog steps pending: %v", r.Pending)
	}
	if again, _ := Default(); again != s {
		t.Error("Default built twice")
	}
}

// TestOriginalFileWithTheCatalog loads a hand-written file in cursus
// (Python)'s layout
// with the real catalog's classes and resolves its DAG nodes.
func TestOriginalFileWithTheCatalog(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	set, err := Load(nil, s, "testdata/original_config.json")
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
	// The file keeps a free-form hyperparameters object: its keys load as
	// the typed fields (objective derived from the task).
	for field, want := range map[string]string{"label_name": "is_abuse", "id_name": "objectId", "objective": "binary:logistic",
		"tab_field_list": `["amount"]`, "cat_field_list": `["marketplace_id"]`, "num_round": "300"} {
		if got := res[2].Config.String(field); got != want {
			t.Errorf("XGBoostTraining %s = %q, want %q", field, got, want)
		}
	}
	if len(set.Warnings) == 0 || !strings.Contains(set.Warnings[0], "hyperparameters object is deprecated") {
		t.Errorf("no deprecation warning: %v", set.Warnings)
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

// TestFromCatalogBuiltOncePerCatalog: one schema per catalog, shared by
// Default and FromCatalog, and dropped once its catalog is collected.
func TestFromCatalogBuiltOncePerCatalog(t *testing.T) {
	def, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	s1, err := FromCatalog(def)
	if err != nil {
		t.Fatal(err)
	}
	if s2, _ := FromCatalog(def); s2 != s1 {
		t.Error("FromCatalog built the embedded catalog's schema twice")
	}
	if d, _ := Default(); d != s1 {
		t.Error("Default and FromCatalog(catalog.Default()) differ")
	}
	if _, err := FromCatalog(nil); err == nil {
		t.Error("FromCatalog(nil) succeeded")
	}

	dir := t.TempDir()
	body, err := os.ReadFile(filepath.Join("..", "catalog", "steps", "DummyTraining.step.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "DummyTraining.step.yaml")
	if err := os.WriteFile(file, body, 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := catalog.Load(nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	w1, err := FromCatalog(ws)
	if err != nil {
		t.Fatal(err)
	}
	if w1 == s1 {
		t.Error("a workspace catalog got the embedded catalog's schema")
	}
	if w2, _ := FromCatalog(ws); w2 != w1 {
		t.Error("FromCatalog built a workspace catalog's schema twice")
	}
	key := weak.Make(ws)
	if _, ok := schemas.Load(key); !ok {
		t.Fatal("workspace schema not cached")
	}

	// A changed step file gives a new catalog; the old one becomes garbage
	// and its cache entry goes with it.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(file, later, later); err != nil {
		t.Fatal(err)
	}
	if ws2, err := catalog.Load(nil, dir); err != nil || ws2 == ws {
		t.Fatalf("catalog not reloaded after a change: %v", err)
	}
	ws, w1 = nil, nil
	// The cache entry goes once the collector has run the catalog's
	// cleanup; the limit only turns an entry that never goes into a failure.
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		runtime.GC()
		if _, ok := schemas.Load(key); !ok {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Error("the schema of a collected catalog is still cached a minute later")
}
