package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeFile(t testing.TB, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// validExtraStep is a small, valid Processing step file.
func validExtraStep(name string) string {
	return `step: ` + name + `
verb: Processing
kind: internal
description: Drop duplicate rows from a processed data set.
keywords: [dedup, duplicates]
compute:
  kind: sklearn
contract:
  entry_point: dedup.py
  env:
    - {name: KEY_COLUMNS, required: true}
inputs:
  - name: input_data
    type: processing_output
    path: /opt/ml/processing/input/data
    required: true
    compatible_sources: [TabularPreprocessing, ProcessingStep]
    description: Rows to deduplicate.
outputs:
  - name: processed_data
    type: processing_output
    path: /opt/ml/processing/output/data
    aliases: [input_data]
    description: Deduplicated rows.
fields:
  - {name: processing_entry_point, default: dedup.py}
  - {name: key_columns, type: list, tier: essential, description: "Columns that identify a row."}
`
}

// validTrainingStep is a minimal valid Training step file whose one input
// feeds the channels train and val.
func validTrainingStep(name string) string {
	return `step: ` + name + `
verb: Training
kind: internal
description: Train.
compute: {kind: estimator, sdk_class: XGBoost}
contract:
  entry_point: train.py
inputs:
  - {name: input_path, type: training_data, path: /opt/ml/input/data, required: true, channels: [train, val], description: d}
outputs:
  - {name: model_output, type: model_artifacts, path: /opt/ml/model, property_path: properties.ModelArtifacts.S3ModelArtifacts, description: d}
fields:
  - {name: training_entry_point, tier: system, default: train.py}
`
}

func TestWorkspaceAddsStep(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "DedupRows.step.yaml", validExtraStep("DedupRows"))
	writeFile(t, dir, "notes.txt", "ignored")
	c, err := Load(nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	base := mustDefault(t)
	if c.Len() != base.Len()+1 {
		t.Errorf("workspace catalog has %d steps, want %d", c.Len(), base.Len()+1)
	}
	s := mustStep(t, c, "DedupRows")
	if s.WorkspaceID != filepath.Base(dir) || s.Source != filepath.Join(dir, "DedupRows.step.yaml") || s.Overrides != "" {
		t.Errorf("workspace step %q %q %q", s.WorkspaceID, s.Source, s.Overrides)
	}
	if s.EnvField("KEY_COLUMNS") != "key_columns" || s.ConfigClass != "DedupRowsConfig" {
		t.Errorf("defaults not applied: %+v", s.Contract.Env)
	}
	if _, ok := base.Step("DedupRows"); ok {
		t.Error("workspace step leaked into the embedded catalog")
	}
	if m := c.Search("dedup"); len(m) == 0 || m[0].Type != "DedupRows" {
		t.Errorf("search in workspace catalog: %v", m)
	}
	if _, jt, ok := c.ResolveNode("DedupRows_training"); !ok || jt != "training" {
		t.Error("ResolveNode on workspace step")
	}
	// Cached: the same dir set gives the same catalog.
	again, err := Load(nil, dir)
	if err != nil || again != c {
		t.Errorf("second Load not cached: %v", err)
	}
	if c2, _ := Load(nil); c2 != base {
		t.Error("Load(nil, ) without dirs should be Default()")
	}
	// A snake_case file name is accepted too.
	dir2 := t.TempDir()
	writeFile(t, dir2, "dedup_rows.step.yaml", validExtraStep("DedupRows"))
	if _, err := Load(nil, dir2); err != nil {
		t.Errorf("snake_case file name: %v", err)
	}
}

func TestWorkspaceOverridesEmbeddedStep(t *testing.T) {
	dir := t.TempDir()
	body := strings.Replace(validExtraStep("Package"), "Drop duplicate rows", "Our own packaging", 1)
	writeFile(t, dir, "Package.step.yaml", body)
	c, err := Load(nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	s := mustStep(t, c, "Package")
	if !strings.HasPrefix(s.Description, "Our own packaging") || s.Overrides != "embedded:Package.step.yaml" {
		t.Errorf("override: %q overrides %q", s.Description, s.Overrides)
	}
	if c.Len() != mustDefault(t).Len() {
		t.Error("override should not add a step")
	}
	if orig := mustStep(t, mustDefault(t), "Package"); strings.HasPrefix(orig.Description, "Our own") {
		t.Error("override leaked into the embedded catalog")
	}
}

func TestWorkspaceLaterDirectoryOverrides(t *testing.T) {
	// Two directories with the same base name: the later one wins.
	a := filepath.Join(t.TempDir(), "steps")
	b := filepath.Join(t.TempDir(), "steps")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, a, "DedupRows.step.yaml", validExtraStep("DedupRows"))
	writeFile(t, b, "DedupRows.step.yaml", strings.Replace(validExtraStep("DedupRows"), "Drop duplicate rows", "Second version", 1))
	c, err := Load(nil, a, b)
	if err != nil {
		t.Fatal(err)
	}
	s := mustStep(t, c, "DedupRows")
	if !strings.HasPrefix(s.Description, "Second version") || s.Overrides != filepath.Join(a, "DedupRows.step.yaml") {
		t.Errorf("later directory should win: %q overrides %q", s.Description, s.Overrides)
	}
	// The same step twice in one directory is an error.
	writeFile(t, a, "dedup_rows.step.yaml", validExtraStep("DedupRows"))
	if _, err := Load(nil, a); err == nil || !strings.Contains(err.Error(), "already declared") {
		t.Errorf("duplicate in one directory: %v", err)
	}
}

func TestWorkspaceReloadsChangedFiles(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "DedupRows.step.yaml", validExtraStep("DedupRows"))
	c1, err := Load(nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Replace(validExtraStep("DedupRows"), "Drop duplicate rows", "Remove repeated rows", 1)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(2 * time.Second)
	_ = os.Chtimes(p, future, future)
	c2, err := Load(nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	if c2 == c1 || !strings.HasPrefix(mustStep(t, c2, "DedupRows").Description, "Remove repeated") {
		t.Error("changed file not reloaded")
	}
}

func TestWorkspaceMalformedFileNamesFileAndField(t *testing.T) {
	tests := []struct {
		name, file, body string
		want             []string
	}{
		{"bad processing path", "DedupRows.step.yaml",
			strings.Replace(validExtraStep("DedupRows"), "path: /opt/ml/processing/input/data", "path: /data/in", 1),
			[]string{"DedupRows.step.yaml", "inputs[0].path", "must start with /opt/ml/processing/input/"}},
		{"unknown key", "DedupRows.step.yaml",
			strings.Replace(validExtraStep("DedupRows"), "    required: true\n", "    required: true\n    chanels: [a]\n", 1),
			[]string{"DedupRows.step.yaml", "line 17", `unknown key "chanels"`, "input port"}},
		{"unknown compatible source", "DedupRows.step.yaml",
			strings.Replace(validExtraStep("DedupRows"), "[TabularPreprocessing, ProcessingStep]", "[TabularPreprocesing]", 1),
			[]string{"DedupRows.step.yaml", "inputs[0].compatible_sources[0]", `"TabularPreprocesing"`, "did you mean TabularPreprocessing"}},
		{"file name mismatch", "Other.step.yaml", validExtraStep("DedupRows"),
			[]string{"Other.step.yaml", "step:", "name the file DedupRows.step.yaml"}},
		{"not yaml", "DedupRows.step.yaml", "step: [unclosed\n",
			[]string{"DedupRows.step.yaml"}},
		{"empty", "DedupRows.step.yaml", "",
			[]string{"DedupRows.step.yaml", "empty"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, tc.file, tc.body)
			_, err := Load(nil, dir)
			if err == nil {
				t.Fatal("want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if len(Problems(err)) == 0 {
				t.Errorf("Problems(%v) is empty", err)
			}
		})
	}
}

func TestWorkspaceDirErrors(t *testing.T) {
	if _, err := Load(nil, filepath.Join(t.TempDir(), "missing")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing dir: %v", err)
	}
	f := writeFile(t, t.TempDir(), "plain.txt", "x")
	if _, err := Load(nil, f); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("file as dir: %v", err)
	}
	dir := t.TempDir()
	writeFile(t, dir, "A.step.yaml", validExtraStep("DedupRows"))
	writeFile(t, dir, "DedupRows.step.yaml", validExtraStep("DedupRows"))
	if _, err := Load(nil, dir); err == nil {
		t.Error("two problems expected (name mismatch)")
	} else if n := len(Problems(err)); n < 1 {
		t.Errorf("problems %d", n)
	}
	var fe *FileError
	_, err := Load(nil, filepath.Join(t.TempDir(), "missing"))
	if !errors.As(err, &fe) {
		t.Errorf("want *FileError, got %T", err)
	}
}
