package stages

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cursus-go/cursus/internal/runs"
	"github.com/cursus-go/cursus/internal/strlist"
)

const exampleDir = "../examples/xgboost-end-to-end"

func TestNewRunID(t *testing.T) {
	if id := NewRunID(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)); !strings.HasPrefix(id, "run-20260102-030405-") || runs.CheckID(id) != nil {
		t.Errorf("NewRunID = %q", id)
	}
}

func TestCreateOpenList(t *testing.T) {
	root := t.TempDir()
	if _, err := OpenRun(nil, root, "r1"); !errors.Is(err, ErrRunNotFound) {
		t.Fatalf("OpenRun before create = %v", err)
	}
	ids, err := runs.List(nil, root)
	if err != nil || len(ids) != 0 {
		t.Fatalf("runs.List(nil, empty) = %v, %v", ids, err)
	}
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	r, err := CreateRun(nil, root, "r1", now)
	if err != nil {
		t.Fatal(err)
	}
	if r.Dir != filepath.Join(root, "runs", "r1") {
		t.Errorf("Dir = %s", r.Dir)
	}
	if _, err := CreateRun(nil, root, "r1", now); !errors.Is(err, ErrRunExists) {
		t.Errorf("second CreateRun = %v", err)
	}
	if _, err := CreateRun(nil, root, "../x", now); err == nil {
		t.Error("CreateRun accepted ../x")
	}
	if _, err := os.Stat(filepath.Join(root, "x")); err == nil {
		t.Error("CreateRun(nil, ../x) wrote outside runs/")
	}
	st, err := r.State()
	if err != nil || st.RunID != "r1" || !st.CreatedAt.Equal(now) || len(st.Completed) != 0 {
		t.Fatalf("State = %+v, %v", st, err)
	}
	if err := r.MarkCompleted("plan", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	st, _ = r.State()
	if len(st.Completed) != 1 || st.Completed[0].Stage != "plan" {
		t.Errorf("Completed = %+v", st.Completed)
	}
	if _, err := CreateRun(nil, root, "r2", now); err != nil {
		t.Fatal(err)
	}
	ids, _ = runs.List(nil, root)
	if strings.Join(ids, ",") != "r1,r2" {
		t.Errorf("runs.List = %v", ids)
	}
	r2, err := OpenRun(nil, root, "r1")
	if err != nil || r2.Dir != r.Dir {
		t.Errorf("OpenRun = %+v, %v", r2, err)
	}
	if err := r.WriteArtifact("secrets", []byte("x")); err == nil {
		t.Error("WriteArtifact accepted an unknown artifact")
	}
	if _, err := r.ReportPath("../../x"); err == nil {
		t.Error("ReportPath accepted a path")
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// setTime gives a file a modification time, so staleness does not depend
// on the clock's resolution.
func setTime(t *testing.T, path string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

func writeReport(t *testing.T, r *Run, tool string, args map[string]any, data map[string]any, ok bool, at time.Time) {
	t.Helper()
	a, _ := json.Marshal(args)
	env := map[string]any{"ok": ok, "data": data}
	if !ok {
		env = map[string]any{"ok": false, "error": "boom", "code": "invalid_input"}
	}
	res, _ := json.Marshal(env)
	if err := r.WriteReport(&Report{Tool: tool, Stage: "validate", RecordedAt: at, WorkDir: "/", Args: a, OK: ok, Result: res}); err != nil {
		t.Fatal(err)
	}
	p, _ := r.ReportPath(tool)
	setTime(t, p, at)
}

func next(t *testing.T, s *Set, r *Run) *Status {
	t.Helper()
	st, err := s.Inspect(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestInspectWalksTheSequence(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	base := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	r, err := CreateRun(nil, root, "r1", base)
	if err != nil {
		t.Fatal(err)
	}

	st := next(t, s, r)
	if st.Next != "plan" || st.Done {
		t.Fatalf("empty run: next %q", st.Next)
	}
	plan, _ := st.Stage("plan")
	if plan.Complete || !strings.Contains(strings.Join(plan.Missing, " "), "dag.json is missing") {
		t.Errorf("plan status = %+v", plan)
	}

	// A DAG with an unknown step type goes to author_step.
	if err := os.WriteFile(r.DAGPath(), []byte(`{"dag": {"nodes": ["DummyDataLoading_training", "FancyNewStep"], "edges": [["DummyDataLoading_training", "FancyNewStep"]]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	st = next(t, s, r)
	if st.Next != "author_step" {
		t.Fatalf("unknown step: next %q", st.Next)
	}
	if strlist.Join(st.UnknownSteps, ",") != "FancyNewStep" {
		t.Errorf("UnknownSteps = %v", st.UnknownSteps)
	}

	// A cyclic DAG stays in plan and says why.
	if err := os.WriteFile(r.DAGPath(), []byte(`{"dag": {"nodes": ["Package", "Payload"], "edges": [["Package", "Payload"], ["Payload", "Package"]]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	st = next(t, s, r)
	plan, _ = st.Stage("plan")
	if st.Next != "plan" || !strings.Contains(strings.Join(plan.Missing, " "), "cycles") {
		t.Fatalf("cyclic DAG: next %q, missing %v", st.Next, plan.Missing)
	}

	// The example DAG: every step known, so configure is next.
	copyFile(t, filepath.Join(exampleDir, "dag.json"), r.DAGPath())
	setTime(t, r.DAGPath(), base.Add(time.Minute))
	st = next(t, s, r)
	if st.Next != "configure" {
		t.Fatalf("with DAG: next %q (%+v)", st.Next, st.Stages)
	}
	if a, _ := st.Stage("author_step"); !a.Complete {
		t.Errorf("author_step should pass vacuously: %+v", a)
	}

	// A config that does not cover the DAG keeps configure open.
	if err := os.WriteFile(r.ConfigPath(), []byte(`{"configuration": {"shared": {}, "specific": {}}, "metadata": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	st = next(t, s, r)
	if st.Next != "configure" {
		t.Fatalf("empty config: next %q", st.Next)
	}
	copyFile(t, filepath.Join(exampleDir, "config.json"), r.ConfigPath())
	setTime(t, r.ConfigPath(), base.Add(2*time.Minute))
	st = next(t, s, r)
	if st.Next != "validate" {
		c, _ := st.Stage("configure")
		t.Fatalf("with config: next %q (%v)", st.Next, c.Missing)
	}

	d := map[string]any{"dag_file": r.DAGPath(), "config_file": r.ConfigPath()}
	// A failed compile.validate keeps validate open and says so.
	writeReport(t, r, "dag.validate_integrity", map[string]any{"nodes": nodesOf(t, r), "edges": edgesOf(t, r)}, map[string]any{"is_valid": true}, true, base.Add(3*time.Minute))
	writeReport(t, r, "compile.validate", d, map[string]any{"is_valid": false, "missing_configs": []any{"X"}}, true, base.Add(3*time.Minute))
	st = next(t, s, r)
	v, _ := st.Stage("validate")
	if st.Next != "validate" || !strings.Contains(strings.Join(v.Missing, " "), "is_valid = false, want true (missing_configs: 1)") {
		t.Fatalf("failing report: next %q, missing %v", st.Next, v.Missing)
	}
	// A report about another config does not count.
	writeReport(t, r, "compile.validate", map[string]any{"dag_file": r.DAGPath(), "config_file": "/elsewhere/config.json"}, map[string]any{"is_valid": true}, true, base.Add(3*time.Minute))
	st = next(t, s, r)
	v, _ = st.Stage("validate")
	if st.Next != "validate" || !strings.Contains(strings.Join(v.Missing, " "), "not about this run") {
		t.Fatalf("foreign report: missing %v", v.Missing)
	}
	// An inline DAG that differs does not count either.
	writeReport(t, r, "dag.validate_integrity", map[string]any{"nodes": []any{"Package"}}, map[string]any{"is_valid": true}, true, base.Add(3*time.Minute))
	writeReport(t, r, "compile.validate", d, map[string]any{"is_valid": true}, true, base.Add(3*time.Minute))
	st = next(t, s, r)
	v, _ = st.Stage("validate")
	if st.Next != "validate" || !strings.Contains(strings.Join(v.Missing, " "), "inline DAG differs") {
		t.Fatalf("other inline DAG: missing %v", v.Missing)
	}
	writeReport(t, r, "dag.validate_integrity", map[string]any{"nodes": nodesOf(t, r), "edges": edgesOf(t, r)}, map[string]any{"is_valid": true}, true, base.Add(3*time.Minute))
	st = next(t, s, r)
	if st.Next != "compile" {
		v, _ := st.Stage("validate")
		t.Fatalf("valid reports: next %q (%v)", st.Next, v.Missing)
	}

	// Changing the config makes the reports stale.
	setTime(t, r.ConfigPath(), base.Add(4*time.Minute))
	st = next(t, s, r)
	v, _ = st.Stage("validate")
	if st.Next != "validate" || !strings.Contains(strings.Join(v.Missing, " "), "stale") {
		t.Fatalf("stale: next %q, missing %v", st.Next, v.Missing)
	}
	writeReport(t, r, "dag.validate_integrity", map[string]any{"dag": map[string]any{"dag": map[string]any{"nodes": nodesOf(t, r), "edges": edgesOf(t, r)}}}, map[string]any{"is_valid": true}, true, base.Add(5*time.Minute))
	writeReport(t, r, "compile.validate", map[string]any{"dag_file": r.DAGPath(), "config_file": r.ConfigPath()}, map[string]any{"is_valid": true}, true, base.Add(5*time.Minute))
	if st = next(t, s, r); st.Next != "compile" {
		t.Fatalf("fresh reports: next %q", st.Next)
	}

	// A definition finishes the run; an older one is stale.
	if err := r.WriteArtifact(ArtifactDefinition, []byte(`{"Version": "2020-12-01", "Steps": [{"Name": "A"}]}`)); err != nil {
		t.Fatal(err)
	}
	setTime(t, r.DefinitionPath(), base.Add(time.Minute+30*time.Second))
	st = next(t, s, r)
	c, _ := st.Stage("compile")
	if st.Next != "compile" || !strings.Contains(strings.Join(c.Missing, " "), "stale") {
		t.Fatalf("old definition: next %q (%v)", st.Next, c.Missing)
	}
	setTime(t, r.DefinitionPath(), base.Add(6*time.Minute))
	st = next(t, s, r)
	if !st.Done || st.Next != "" {
		t.Fatalf("complete run: next %q", st.Next)
	}
	// Artifacts: the three files, then the reports.
	var names []string
	for _, a := range st.Artifacts {
		if a.Exists {
			names = append(names, a.Name)
		}
	}
	if got := strings.Join(names, ","); got != "dag,config,definition,report:compile.validate,report:dag.validate_integrity" {
		t.Errorf("artifacts = %s", got)
	}

	checks, ok, err := s.Evaluate(context.Background(), r, "compile")
	if err != nil || !ok || len(checks) != 1 || !checks[0].Passed {
		t.Errorf("Evaluate(compile) = %+v %v %v", checks, ok, err)
	}
	if _, ok, _ := s.Evaluate(context.Background(), r, "orchestrator"); !ok {
		t.Error("the hub passes vacuously")
	}
	if _, _, err := s.Evaluate(context.Background(), r, "nope"); !errors.Is(err, ErrUnknownStage) {
		t.Errorf("Evaluate(nope) = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Inspect(ctx, r); !errors.Is(err, context.Canceled) {
		t.Errorf("Inspect(cancelled) = %v", err)
	}
}

func nodesOf(t *testing.T, r *Run) []any {
	t.Helper()
	var f struct {
		DAG struct {
			Nodes []any `json:"nodes"`
		} `json:"dag"`
	}
	b, _ := os.ReadFile(r.DAGPath())
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.DAG.Nodes
}

func edgesOf(t *testing.T, r *Run) []any {
	t.Helper()
	var f struct {
		DAG struct {
			Edges []any `json:"edges"`
		} `json:"dag"`
	}
	b, _ := os.ReadFile(r.DAGPath())
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.DAG.Edges
}

func TestStepsKnownWithWorkspace(t *testing.T) {
	s, _ := Default()
	root := t.TempDir()
	r, err := CreateRun(nil, root, "r1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.DAGPath(), []byte(`{"dag": {"nodes": ["TabularPreprocessing_training", "MyXGBTraining"], "edges": [["TabularPreprocessing_training", "MyXGBTraining"]]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if st := next(t, s, r); st.Next != "author_step" {
		t.Fatalf("next %q", st.Next)
	}
	src, err := os.ReadFile("../engine/catalog/steps/XGBoostTraining.step.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(r.StepsPath(), 0o755); err != nil {
		t.Fatal(err)
	}
	// A broken step file: steps_known says the workspace does not load.
	if err := os.WriteFile(filepath.Join(r.StepsPath(), "MyXGBTraining.step.yaml"), []byte("step: MyXGBTraining\nverb: Nope\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := next(t, s, r)
	a, _ := st.Stage("author_step")
	if st.Next != "author_step" || !strings.Contains(strings.Join(a.Missing, " "), "do not load") {
		t.Fatalf("broken step file: %q %v", st.Next, a.Missing)
	}
	mine := strings.Replace(string(src), "step: XGBoostTraining", "step: MyXGBTraining", 1)
	if err := os.WriteFile(filepath.Join(r.StepsPath(), "MyXGBTraining.step.yaml"), []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	st = next(t, s, r)
	a, _ = st.Stage("author_step")
	if !a.Complete || st.Next != "configure" {
		t.Fatalf("authored step: next %q, author_step %+v", st.Next, a)
	}
}

// TestCaptureField: the captured field comes out indented and the envelope
// keeps a pointer in its place; data without the field, or not an object,
// is refused.
func TestCaptureField(t *testing.T) {
	env := []byte(`{"ok":true,"data":{"definition":{"Version":"2020-12-01","Steps":[]},"step_count":0},"meta":{"tool":"compile.definition"}}`)
	art, slim, err := CaptureField(env, "definition", "pipeline.definition.json")
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"Version\": \"2020-12-01\",\n  \"Steps\": []\n}\n"; string(art) != want {
		t.Errorf("artifact %q, want %q", art, want)
	}
	var got map[string]any
	if err := json.Unmarshal(slim, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"ok": true, "data": map[string]any{"definition": map[string]any{"$artifact": "pipeline.definition.json"}, "step_count": 0.0},
		"meta": map[string]any{"tool": "compile.definition"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("slim envelope %v, want %v", got, want)
	}
	for _, bad := range []string{`{"ok":true,"data":{"other":1}}`, `{"ok":true,"data":[1]}`, `{"ok":true}`, `not json`} {
		if _, _, err := CaptureField([]byte(bad), "definition", "x"); err == nil {
			t.Errorf("%s: captured", bad)
		}
	}
}
