package validation

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/localrun"
	"github.com/cursus-go/cursus/internal/testenv"
)

func defaultCatalog(t testing.TB) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatalf("catalog: %v", err)
	}
	return cat
}

func step(t testing.TB, cat *catalog.Catalog, name string) *catalog.Step {
	t.Helper()
	st, ok := cat.Step(catalog.StepType(name))
	if !ok {
		t.Fatalf("no step %s in the catalog", name)
	}
	return st
}

func needPython(t testing.TB) {
	t.Helper()
	if p := Python(); !p.Available {
		testenv.Missing(t, "python3 is not available: "+p.Reason)
	}
}

// needML skips (fails under CI) unless the scripts can run here with the
// ML stack the catalog's scripts import: localrun.Ready's probe, the one
// the local runs use.
func needML(t testing.TB) {
	t.Helper()
	testenv.Need(t, localrun.Ready("pandas", "sklearn", "xgboost"))
}

func writeFile(t testing.TB, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// customStep is a valid workspace step with one required input fed by
// TabularPreprocessing and one output.
const customStep = `step: DemoScoring
verb: Processing
kind: internal
description: Score rows for the tests of engine/validation.
framework: generic
job_types: [training, calibration]
compute:
  kind: sklearn
contract:
  entry_point: demo_scoring.py
  job_arguments:
    - {flag: --job_type, source: job_type}
  env:
    - {name: LABEL_FIELD, field: label_name, description: "Label column."}
inputs:
  - name: input_data
    type: processing_output
    path: /opt/ml/processing/input/data
    required: true
    compatible_sources: [TabularPreprocessing]
    keywords: [processed, data]
    description: Rows to score.
outputs:
  - name: scores
    type: processing_output
    path: /opt/ml/processing/output/scores
    aliases: [predictions]
    description: Scores.
fields:
  - {name: processing_entry_point, default: demo_scoring.py}
  - {name: job_type, type: string, tier: essential, pattern: "^[a-z][a-z0-9_]*$", description: "Job type."}
  - {name: label_name, type: string, tier: system, default: label, description: "Label column."}
`

func workspace(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		writeFile(t, filepath.Join(dir, name), content)
	}
	return dir
}
