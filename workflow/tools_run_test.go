package workflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/engine/compiler/compilertest"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/workflow"
)

// wfCtx is the context of a trusted caller whose writes are confined to root.
func wfCtx(root string) context.Context {
	return registry.WithPolicy(context.Background(), registry.Policy{AllowDestructive: true, ProjectRoot: root})
}

func wfCall(t *testing.T, ctx context.Context, args map[string]any) *envelope.ToolResult {
	t.Helper()
	res := cursus.Registry().Call(ctx, "workflow.run", args)
	checkOutput(t, "workflow.run", res)
	return res
}

func mustJSONString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// blank reports whether a decoded JSON value is not a non-empty string
// (missing keys decode to nil, which `== ""` would let through).
func blank(v any) bool {
	s, ok := v.(string)
	return !ok || s == ""
}

// wfData returns the run's result of an answer: data when ok, meta.details otherwise.
func wfData(t *testing.T, res *envelope.ToolResult) map[string]any {
	t.Helper()
	var src any = res.Data
	if !res.OK {
		src = res.Details()
	}
	b, err := json.Marshal(src)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func phaseStatus(t *testing.T, d map[string]any) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, p := range d["phases"].([]any) {
		pm := p.(map[string]any)
		out[pm["name"].(string)] = pm
	}
	return out
}

// viaRegistry is the workflow's caller over the default registry, which
// knows the tools' arguments (workflow.ArgChecker).
type viaRegistry interface {
	workflow.Caller
	workflow.ArgChecker
}

func newViaRegistry() viaRegistry { return workflow.RegistryCaller(cursus.Registry()).(viaRegistry) }

// countingCaller calls through the registry, counts calls per tool and may
// cancel the run's context when a given tool is called.
type countingCaller struct {
	viaRegistry
	mu       sync.Mutex
	calls    map[string]int
	cancelAt string
	cancel   context.CancelFunc
}

func (c *countingCaller) CallTool(ctx context.Context, tool string, args any) *envelope.ToolResult {
	c.mu.Lock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[tool]++
	cancelNow := c.cancelAt == tool && c.cancel != nil
	c.mu.Unlock()
	if cancelNow {
		c.cancel()
	}
	return c.viaRegistry.CallTool(ctx, tool, args)
}

func TestNewProjectXGBoostFromAnEmptyFolderToAValidDefinition(t *testing.T) {
	root := t.TempDir()
	ctx := wfCtx(root)
	res := wfCall(t, ctx, map[string]any{"workflow": "new-project", "args": map[string]any{"name": "demo", "framework": "xgboost"}})
	if !res.OK {
		b, _ := json.MarshalIndent(res, "", "  ")
		t.Fatalf("new-project did not finish:\n%s", b)
	}
	d := wfData(t, res)
	// Every phase passes, but the placeholders make the pipeline not
	// deployable: the run is incomplete, its reason names the fields, and
	// nothing offers to deploy it.
	if d["status"] != "incomplete" || d["stopped_at"] != nil || !strings.Contains(d["reason"].(string), "shared.author: author is a placeholder") {
		t.Fatalf("status %v stopped_at %v reason %v", d["status"], d["stopped_at"], d["reason"])
	}
	for name, p := range phaseStatus(t, d) {
		if p["status"] != "passed" || p["ran"] != true {
			t.Errorf("phase %s: %v", name, p)
		}
	}
	for _, ns := range res.NextSteps {
		if ns.Tool == "compile.dag" {
			t.Errorf("an incomplete run offers compile.dag: %+v", ns)
		}
	}
	out := d["outputs"].(map[string]any)
	if out["shippable"] != true || out["dag_id"] != "xgboost_simple" || out["ready_to_deploy"] != false || out["deployable"] != false {
		t.Fatalf("outputs %v", out)
	}
	if bl, _ := out["blockers"].([]any); len(bl) == 0 || !strings.Contains(mustJSONString(bl), `"kind":"placeholder"`) {
		t.Fatalf("blockers %v", out["blockers"])
	}
	// The project's own step stays in its pipeline, and its README draws
	// the DAG it uses.
	projDAG, err := os.ReadFile(filepath.Join(root, out["project_dag_file"].(string)))
	if err != nil || !strings.Contains(string(projDAG), "DemoFeatureEngineering_training") || !strings.Contains(string(projDAG), "xgboost_simple") {
		t.Fatalf("project DAG: %v\n%s", err, projDAG)
	}
	readme, err := os.ReadFile(filepath.Join(root, out["project_dir"].(string), "README.md"))
	if err != nil || !strings.Contains(string(readme), "DemoFeatureEngineering_training --> XGBoostTraining") || strings.Contains(string(readme), "DemoFeatureEngineering_calibration") {
		t.Fatalf("README draws another DAG: %v\n%s", err, readme)
	}
	runDir := filepath.Join(root, "runs", d["run_id"].(string))
	def, err := os.ReadFile(filepath.Join(runDir, workflow.DefinitionFile))
	if err != nil {
		t.Fatal(err)
	}
	compilertest.CheckSchemas(t, def)
	var dd struct {
		Steps []json.RawMessage `json:"Steps"`
	}
	if err := json.Unmarshal(def, &dd); err != nil || len(dd.Steps) != 4 { // xgboost_simple's 3, and the project's own step
		t.Fatalf("definition steps: %d %v", len(dd.Steps), err)
	}
	// Every artifact the issue names is in the run folder.
	for _, f := range []string{"workflow.json", "dag.json", "config.json", "reports/compile.validate.json", "reports/dag.validate_integrity.json", "reports/compile.preview.json"} {
		if _, err := os.Stat(filepath.Join(runDir, f)); err != nil {
			t.Errorf("run folder: %v", err)
		}
	}
	// The run's ledger lists what is left.
	ledger, err := os.ReadFile(filepath.Join(runDir, workflow.LedgerFile))
	if err != nil || !strings.Contains(string(ledger), "run "+d["run_id"].(string)) || !strings.Contains(string(ledger), "`base.role`") || blank(out["run_ledger"]) {
		t.Fatalf("run ledger: %v\n%s", err, ledger)
	}
	// The guided stages see the run as complete (same run-folder format).
	st := cursus.Registry().Call(ctx, "workflow.status", map[string]any{"run_id": d["run_id"]})
	if !st.OK || wfData(t, st)["done"] != true {
		b, _ := json.Marshal(st)
		t.Fatalf("workflow.status of the run: %s", b)
	}
}

func TestAuthorStepStopsForTheScriptLogicThenPasses(t *testing.T) {
	root := t.TempDir()
	ctx := wfCtx(root)
	args := map[string]any{"producer": "TabularPreprocessing_training", "consumer": "XGBoostTraining", "step_name": "OutlierClipping",
		"description": "Clip numeric columns to their 1st-99th percentile range."}
	res := wfCall(t, ctx, map[string]any{"workflow": "author-step", "args": args})
	if res.OK || res.Code != envelope.CodeWorkflowStopped {
		t.Fatalf("want workflow_stopped, got ok=%v code=%s %s", res.OK, res.Code, res.Error)
	}
	d := wfData(t, res)
	if d["status"] != "stopped" || d["stopped_at"] != "script-logic" {
		t.Fatalf("stopped at %v (%v): %v", d["stopped_at"], d["status"], d["reason"])
	}
	if len(d["action_items"].([]any)) == 0 || len(d["tool_calls"].([]any)) == 0 || res.Remedy == nil {
		t.Fatalf("a stop must say what to do: %v", d)
	}
	script := filepath.Join(root, "scripts", "outlier_clipping.py")
	skel, err := os.ReadFile(script)
	if err != nil || !strings.Contains(string(skel), "/opt/ml/processing/input/data") || !strings.Contains(string(skel), "TODO") {
		t.Fatalf("skeleton: %v\n%s", err, skel)
	}
	if _, err := os.Stat(filepath.Join(root, "steps", "OutlierClipping.step.yaml")); err != nil {
		t.Fatal(err)
	}
	runID := d["run_id"].(string)
	// Resuming without writing the logic stops again at the same gate.
	again := wfCall(t, ctx, map[string]any{"resume": runID})
	if again.OK || wfData(t, again)["stopped_at"] != "script-logic" {
		t.Fatalf("resume with the skeleton: %+v", again)
	}
	if err := os.WriteFile(script, []byte(clipScript), 0o644); err != nil {
		t.Fatal(err)
	}
	done := wfCall(t, ctx, map[string]any{"resume": runID})
	if !done.OK {
		b, _ := json.MarshalIndent(done, "", "  ")
		t.Fatalf("resume after writing the script:\n%s", b)
	}
	d = wfData(t, done)
	ps := phaseStatus(t, d)
	for _, p := range []string{"resolve", "contract", "scaffold"} {
		if ps[p]["ran"] != false || ps[p]["status"] != "passed" {
			t.Errorf("phase %s ran again on resume: %v", p, ps[p])
		}
	}
	for _, p := range []string{"script-logic", "validate", "preflight", "align-edges"} {
		if ps[p]["ran"] != true || ps[p]["status"] != "passed" {
			t.Errorf("phase %s: %v", p, ps[p])
		}
	}
	out := d["outputs"].(map[string]any)
	edges := out["edges"].(map[string]any)
	th := edges["threshold"].(float64)
	for _, e := range []string{"producer_to_step", "step_to_consumer"} {
		if sc := edges[e].(map[string]any)["score"].(float64); sc <= th {
			t.Errorf("%s scores %.3f, not above the threshold %.2f", e, sc, th)
		}
	}
	if out["rung"] != "new" {
		t.Fatalf("rung %v", out["rung"])
	}
	// A second author-step for the same, now existing, step on the same edge reuses it.
	reuse := wfCall(t, ctx, map[string]any{"workflow": "author-step", "args": map[string]any{
		"producer": "TabularPreprocessing_training", "consumer": "XGBoostTraining", "step_name": "OutlierClipping"}})
	if !reuse.OK || wfData(t, reuse)["outputs"].(map[string]any)["rung"] != "reuse" {
		b, _ := json.MarshalIndent(reuse, "", "  ")
		t.Fatalf("second run should reuse the step:\n%s", b)
	}
}

const clipScript = `#!/usr/bin/env python3
"""OutlierClipping: clip numeric columns to their 1st-99th percentile range."""
import argparse
import csv
import os

INPUT_DATA_DIR = "/opt/ml/processing/input/data"
OUTPUT_DIR = "/opt/ml/processing/output"


def clip_file(src, dst):
    with open(src, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return
    for col in [c for c in rows[0] if c not in ("id", "label")]:
        vals = sorted(float(r[col]) for r in rows)
        lo, hi = vals[len(vals) // 100], vals[-1 - len(vals) // 100]
        for r in rows:
            r[col] = str(min(max(float(r[col]), lo), hi))
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(dst, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    for root, _dirs, files in os.walk(INPUT_DATA_DIR):
        for name in files:
            rel = os.path.relpath(os.path.join(root, name), INPUT_DATA_DIR)
            clip_file(os.path.join(root, name), os.path.join(OUTPUT_DIR, rel))
    print("clipped", args.job_type)


if __name__ == "__main__":
    main()
`

func TestACancelledRunResumesWithoutRedoingPassedPhases(t *testing.T) {
	root := t.TempDir()
	ctx, cancel := context.WithCancel(wfCtx(root))
	defer cancel()
	// Cancel in the middle of configure-pipeline/generate: config.merge_save
	// is called with a context that is already cancelled.
	cc := &countingCaller{viaRegistry: newViaRegistry(), cancelAt: "config.merge_save", cancel: cancel}
	w, err := workflow.Get("new-project")
	if err != nil {
		t.Fatal(err)
	}
	res, err := workflow.Start(ctx, w, map[string]any{"name": "demo", "framework": "xgboost"}, workflow.Options{Root: root, Caller: cc})
	if !errors.Is(err, context.Canceled) || res == nil || res.Status != workflow.StatusCancelled {
		t.Fatalf("want a cancelled run, got %+v %v", res, err)
	}
	passedBefore := map[string]bool{}
	for _, p := range res.Phases {
		if p.Status == workflow.PhasePassed {
			passedBefore[p.Name] = true
		}
		if p.Name == "configure-pipeline/generate" && p.Status != workflow.PhaseCancelled {
			t.Fatalf("generate: %+v", p)
		}
	}
	if len(passedBefore) != 9 {
		t.Fatalf("%d phases passed before the cancel: %v", len(passedBefore), passedBefore)
	}
	// Resume through the tool (a fresh context), counting calls with the engine.
	cc2 := &countingCaller{viaRegistry: newViaRegistry()}
	res, err = workflow.Resume(wfCtx(root), res.RunID, workflow.Options{Root: root, Caller: cc2})
	if err != nil || res.Status != workflow.StatusIncomplete { // the placeholders keep it from being ready
		t.Fatalf("resume: %+v %v", res, err)
	}
	for _, tool := range []string{"project.init", "pipeline_catalog.recommend", "pipeline_catalog.load_dag", "config.requirements", "author.config_constraints", "config.template", "author.preflight_config"} {
		if n := cc2.calls[tool]; n != 0 {
			t.Errorf("%s called %d time(s) on resume: a passed phase ran again", tool, n)
		}
	}
	if cc2.calls["config.merge_save"] != 2 || cc2.calls["compile.definition"] != 1 {
		t.Errorf("calls on resume: %v", cc2.calls)
	}
	for _, p := range res.Phases {
		if passedBefore[p.Name] == p.Ran {
			t.Errorf("phase %s: passed before %v, ran on resume %v", p.Name, passedBefore[p.Name], p.Ran)
		}
	}
}

func TestABadConfigValueFailsTheGateWithTheToolsEnvelope(t *testing.T) {
	root := t.TempDir()
	ctx := wfCtx(root)
	args := map[string]any{
		"dag": map[string]any{"nodes": []any{"DummyDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining"},
			"edges": []any{[]any{"DummyDataLoading_training", "TabularPreprocessing_training"}, []any{"TabularPreprocessing_training", "XGBoostTraining"}}},
		"values": map[string]any{
			"base": map[string]any{"author": "alice", "bucket": "demo-bucket", "role": "arn:aws:iam::123456789012:role/SageMakerRole",
				"region": "NA", "service_name": "demo", "pipeline_version": "1.0.0", "project_root_folder": "demo"},
			"steps": map[string]any{
				"DummyDataLoading_training":     map[string]any{"data_source": "s3://demo-bucket/data/"},
				"TabularPreprocessing_training": map[string]any{"train_ratio": 7.5},
				"XGBoostTraining": map[string]any{"label_name": "y", "tab_field_list": []any{"f1", "f2"}, "cat_field_list": []any{},
					"objective": "binary:logistic"},
			},
		},
	}
	res := wfCall(t, ctx, map[string]any{"workflow": "configure-pipeline", "args": args})
	if res.OK || res.Code != envelope.CodeWorkflowStopped {
		t.Fatalf("want workflow_stopped, got %+v", res)
	}
	d := wfData(t, res)
	if d["status"] != "failed" || d["failed_at"] != "preflight" || d["failed_tool"] != "author.preflight_config" {
		t.Fatalf("failed at %v by %v (%v)", d["failed_at"], d["failed_tool"], d["status"])
	}
	env := d["envelope"].(map[string]any)
	if env["ok"] != false || env["code"] != string(envelope.CodeConfigInvalid) || env["meta"].(map[string]any)["tool"] != "author.preflight_config" {
		t.Fatalf("envelope %v", env)
	}
	if !strings.Contains(mustJSONString(env), "train_ratio") {
		t.Fatalf("the envelope does not name the bad field: %v", env)
	}
	if res.Remedy == nil || res.Remedy.SuggestedTools[0] != "author.preflight_config" {
		t.Fatalf("remedy %+v", res.Remedy)
	}
	ps := phaseStatus(t, d)
	if ps["generate"]["status"] != "pending" || ps["values"]["status"] != "passed" {
		t.Fatalf("phases %v", ps)
	}
	if _, err := os.Stat(filepath.Join(root, "runs", d["run_id"].(string), "config.json")); !os.IsNotExist(err) {
		t.Fatalf("config.json was written past a failed gate: %v", err)
	}
	// The fix goes in the answer file; the same gate passes on resume.
	fix := `{"steps": {"TabularPreprocessing_training": {"train_ratio": 0.7}}}`
	if err := os.WriteFile(filepath.Join(root, "runs", d["run_id"].(string), workflow.ValuesFile), []byte(fix), 0o644); err != nil {
		t.Fatal(err)
	}
	res = wfCall(t, ctx, map[string]any{"resume": d["run_id"]})
	if !res.OK {
		b, _ := json.MarshalIndent(res, "", "  ")
		t.Fatalf("resume after the fix:\n%s", b)
	}
	// Every gate passed; whether it is ready to deploy is the readiness
	// phase's verdict, and when it is not, the outputs say why.
	out := wfData(t, res)["outputs"].(map[string]any)
	if out["shippable"] != true || (out["ready_to_deploy"] != true && blank(out["not_ready"])) {
		t.Fatalf("outputs %v", out)
	}
}

func TestConfigurePipelineStopsForMissingValuesThenResumes(t *testing.T) {
	root := t.TempDir()
	ctx := wfCtx(root)
	res := wfCall(t, ctx, map[string]any{"workflow": "configure-pipeline", "run_id": "cfg", "args": map[string]any{
		"dag": map[string]any{"nodes": []any{"DummyDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining"},
			"edges": []any{[]any{"DummyDataLoading_training", "TabularPreprocessing_training"}, []any{"TabularPreprocessing_training", "XGBoostTraining"}}}}})
	d := wfData(t, res)
	if res.Code != envelope.CodeWorkflowStopped || d["stopped_at"] != "values" {
		t.Fatalf("want a stop at values: %v", d)
	}
	files := d["files"].([]any)
	if len(files) != 1 || files[0] != "runs/cfg/values.json" || !strings.Contains(d["reason"].(string), "base.role") {
		t.Fatalf("stop %v", d)
	}
	answer := `{"base": {"author": "alice", "bucket": "demo-bucket", "role": "arn:aws:iam::123456789012:role/SageMakerRole", "region": "EU",
	  "service_name": "demo", "pipeline_version": "1.0.0", "project_root_folder": "demo"},
	  "steps": {"DummyDataLoading_training": {"data_source": "s3://demo-bucket/data/"},
	    "XGBoostTraining": {"label_name": "y", "tab_field_list": ["f1", "f2"], "cat_field_list": [], "objective": "binary:logistic"}}}`
	if err := os.WriteFile(filepath.Join(root, "runs", "cfg", "values.json"), []byte(answer), 0o644); err != nil {
		t.Fatal(err)
	}
	res = wfCall(t, ctx, map[string]any{"resume": "cfg"})
	if !res.OK {
		b, _ := json.MarshalIndent(res, "", "  ")
		t.Fatalf("resume:\n%s", b)
	}
	cfg, err := os.ReadFile(filepath.Join(root, "runs", "cfg", "config.json"))
	if err != nil || !strings.Contains(string(cfg), `"EU"`) {
		t.Fatalf("config.json: %v", err)
	}
}

func TestWorkflowToolsArgumentsAndErrors(t *testing.T) {
	root := t.TempDir()
	ctx := wfCtx(root)
	cases := []struct {
		args map[string]any
		code envelope.Code
		has  string
	}{
		{map[string]any{}, envelope.CodeInvalidInput, "give workflow"},
		{map[string]any{"workflow": "nope"}, envelope.CodeInvalidInput, "workflow"},
		{map[string]any{"workflow": "new-project", "args": map[string]any{"name": "demo"}}, envelope.CodeInvalidInput, "framework: required"},
		{map[string]any{"workflow": "new-project", "args": map[string]any{"name": "demo", "framework": "sklearn"}}, envelope.CodeInvalidInput, "must be one of"},
		{map[string]any{"resume": "missing-run"}, envelope.CodeNotFound, "no workflow.json"},
		{map[string]any{"resume": "x", "args": map[string]any{}}, envelope.CodeInvalidInput, "neither args nor run_id"},
		{map[string]any{"workflow": "init-project", "run_id": "../evil", "args": map[string]any{"name": "demo", "framework": "xgboost"}}, envelope.CodeInvalidInput, "run id"},
	}
	for _, c := range cases {
		res := wfCall(t, ctx, c.args)
		if res.OK || res.Code != c.code || !strings.Contains(res.Error+mustJSONString(res.Meta), c.has) {
			t.Errorf("%v: got %s %q %v", c.args, res.Code, res.Error, res.Meta)
		}
	}
	// Writes are gated like every writing tool.
	empty := t.TempDir()
	closed := registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: empty})
	if res := cursus.Registry().Call(closed, "workflow.run", map[string]any{"workflow": "init-project", "args": map[string]any{"name": "demo", "framework": "xgboost"}}); res.Code != envelope.CodeToolDisabled {
		t.Fatalf("gated: %s", res.Code)
	}
	if _, err := os.Stat(filepath.Join(empty, "runs")); !os.IsNotExist(err) {
		t.Fatalf("a gated call wrote a run folder: %v", err)
	}
}

func TestWorkflowDescribeExportsTheWorkflowsAsData(t *testing.T) {
	ctx := context.Background()
	res := cursus.Registry().Call(ctx, "workflow.describe", map[string]any{})
	checkOutput(t, "workflow.describe", res)
	d := wfData(t, res)
	if !res.OK || d["count"].(float64) != 4 {
		t.Fatalf("list: %v", d)
	}
	if dd := typed[workflow.DescribeData](t, res); dd.List == nil || dd.Workflow != nil || dd.Run != nil || len(dd.List.Workflows) != 4 {
		t.Fatalf("list, typed: %+v", dd)
	}
	res = cursus.Registry().Call(ctx, "workflow.describe", map[string]any{"workflow": "new-project"})
	checkOutput(t, "workflow.describe", res)
	if dd := typed[workflow.DescribeData](t, res); dd.Workflow == nil || dd.Workflow.Name != "new-project" || dd.List != nil || dd.Run != nil {
		t.Fatalf("one workflow, typed: %+v", dd)
	}
	d = wfData(t, res)
	if !res.OK || len(d["phases"].([]any)) != 15 || d["cli"] == nil {
		t.Fatalf("describe: %v", d)
	}
	if old := cursus.Registry().Call(ctx, "workflow.describe", map[string]any{"name": "new-project"}); !old.OK || len(old.Warnings) != 1 || !strings.Contains(old.Warnings[0], "'name' is deprecated: use 'workflow'") {
		t.Errorf("deprecated name: %+v", old)
	}
	first := d["phases"].([]any)[0].(map[string]any)
	if first["name"] != "init-project/scaffold" || first["from"] != "init-project" || first["stage"] != "plan" {
		t.Fatalf("first phase %v", first)
	}
	if res := cursus.Registry().Call(ctx, "workflow.describe", map[string]any{"workflow": "nope"}); res.Code != envelope.CodeNotFound {
		t.Fatalf("unknown: %v", res.Code)
	}
	// workflow.run's enum is the engine's list of workflows.
	td, _ := cursus.Registry().Get("workflow.run")
	enum := td.Schema()["properties"].(map[string]any)["workflow"].(map[string]any)["enum"]
	if !sameSet(enum, workflow.Names()) {
		t.Fatalf("workflow.run enum %v, workflows %v", enum, workflow.Names())
	}
	// Every tool any phase names exists in the registry.
	for _, w := range workflow.List() {
		var missing []string
		for _, p := range w.Phases {
			for _, tool := range p.Tools {
				if _, ok := cursus.Registry().Get(tool); !ok {
					missing = append(missing, p.Name+": "+tool)
				}
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			t.Errorf("%s names unknown tools: %v", w.Name, missing)
		}
	}
	// A run's state by id.
	root := t.TempDir()
	run := wfCall(t, wfCtx(root), map[string]any{"workflow": "init-project", "args": map[string]any{"name": "demo", "framework": "xgboost"}})
	if !run.OK {
		t.Fatalf("init-project: %+v", run)
	}
	st := cursus.Registry().Call(wfCtx(root), "workflow.describe", map[string]any{"run_id": "init-project-001"})
	if !st.OK || wfData(t, st)["status"] != "done" {
		t.Fatalf("run status: %+v", st)
	}
	checkOutput(t, "workflow.describe", st)
	if dd := typed[workflow.DescribeData](t, st); dd.Run == nil || dd.Run.Status != workflow.StatusDone || dd.List != nil || dd.Workflow != nil {
		t.Fatalf("run state, typed: %+v", dd)
	}
}

func BenchmarkNewProjectWorkflow(b *testing.B) {
	for i := 0; i < b.N; i++ {
		root := b.TempDir()
		res := cursus.Registry().Call(wfCtx(root), "workflow.run", map[string]any{"workflow": "new-project", "args": map[string]any{"name": "demo", "framework": "xgboost"}})
		if !res.OK {
			b.Fatalf("%s: %s", res.Code, res.Error)
		}
	}
}

// recordingCaller records every call (tool and arguments, with the project
// root replaced by a marker) on its way to the registry.
type recordingCaller struct {
	viaRegistry
	root string
	seq  []string
}

func (c *recordingCaller) CallTool(ctx context.Context, tool string, args any) *envelope.ToolResult {
	b, _ := json.Marshal(args)
	c.seq = append(c.seq, tool+" "+strings.ReplaceAll(string(b), c.root, "<root>"))
	return c.viaRegistry.CallTool(ctx, tool, args)
}

func TestNewProjectIsDeterministic(t *testing.T) {
	var seqs [][]string
	var defs [][]byte
	for i := 0; i < 2; i++ {
		root := t.TempDir()
		rc := &recordingCaller{viaRegistry: newViaRegistry(), root: root}
		w, _ := workflow.Get("new-project")
		res, err := workflow.Start(wfCtx(root), w, map[string]any{"name": "demo", "framework": "xgboost"}, workflow.Options{Root: root, Caller: rc})
		if err != nil || res.Status != workflow.StatusIncomplete {
			t.Fatalf("run %d: %+v %v", i, res, err)
		}
		def, err := os.ReadFile(filepath.Join(root, "runs", res.RunID, workflow.DefinitionFile))
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, rc.seq)
		defs = append(defs, def)
	}
	if strings.Join(seqs[0], "\n") != strings.Join(seqs[1], "\n") {
		t.Fatalf("the tool calls differ between two runs:\n%s\n---\n%s", strings.Join(seqs[0], "\n"), strings.Join(seqs[1], "\n"))
	}
	if string(defs[0]) != string(defs[1]) {
		t.Fatal("the compiled definitions differ between two runs")
	}
	if len(seqs[0]) < 20 {
		t.Fatalf("only %d tool calls", len(seqs[0]))
	}
}

// dropAfter calls through, then loses the answer of one tool and cancels
// the run, as if the process died right after the tool wrote its files.
type dropAfter struct {
	viaRegistry
	tool   string
	cancel context.CancelFunc
	done   bool
}

func (c *dropAfter) CallTool(ctx context.Context, tool string, args any) *envelope.ToolResult {
	resp := c.viaRegistry.CallTool(ctx, tool, args)
	if tool == c.tool && !c.done {
		c.done = true
		c.cancel()
		return envelope.Fail("call cancelled", envelope.CodeCancelled)
	}
	return resp
}

func TestScaffoldNeverClobbersAProjectTheRunDidNotCreate(t *testing.T) {
	// A project the user already has: the gate fails and stays failed on resume.
	root := t.TempDir()
	mine := filepath.Join(root, "projects", "demo_xgboost", "keep.txt")
	if err := os.MkdirAll(filepath.Dir(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"workflow": "new-project", "args": map[string]any{"name": "demo", "framework": "xgboost"}}
	for i := 0; i < 2; i++ {
		res := wfCall(t, wfCtx(root), args)
		d := wfData(t, res)
		if d["failed_at"] != "init-project/scaffold" || d["envelope"].(map[string]any)["code"] != string(envelope.CodeAlreadyExists) {
			t.Fatalf("attempt %d: %v", i, d)
		}
		args = map[string]any{"resume": d["run_id"]}
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "mine" {
		t.Fatalf("the user's project was touched: %v", err)
	}

	// A project this run was creating when it was interrupted: resume regenerates it.
	root = t.TempDir()
	ctx, cancel := context.WithCancel(wfCtx(root))
	defer cancel()
	w, _ := workflow.Get("new-project")
	res, err := workflow.Start(ctx, w, map[string]any{"name": "demo", "framework": "xgboost"},
		workflow.Options{Root: root, Caller: &dropAfter{viaRegistry: newViaRegistry(), tool: "project.init", cancel: cancel}})
	if !errors.Is(err, context.Canceled) || res.Status != workflow.StatusCancelled {
		t.Fatalf("want cancelled: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(root, "projects", "demo_xgboost", "README.md")); err != nil {
		t.Fatalf("project.init did not write before the interruption: %v", err)
	}
	res2 := wfCall(t, wfCtx(root), map[string]any{"resume": res.RunID})
	if !res2.OK {
		b, _ := json.MarshalIndent(res2, "", "  ")
		t.Fatalf("resume after an interrupted scaffold:\n%s", b)
	}
}

func TestNewProjectManualDAGChoiceStopsThenResumes(t *testing.T) {
	root := t.TempDir()
	ctx := wfCtx(root)
	res := wfCall(t, ctx, map[string]any{"workflow": "new-project", "args": map[string]any{"name": "demo", "framework": "xgboost", "dag_source": "manual"}})
	d := wfData(t, res)
	if d["stopped_at"] != "seed-dag" || len(d["files"].([]any)) != 1 {
		t.Fatalf("want a stop at seed-dag: %v", d)
	}
	choice := filepath.Join(root, d["files"].([]any)[0].(string))
	if err := os.WriteFile(choice, []byte(`{"dag_id": "xgboost_training_with_evaluation"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	res = wfCall(t, ctx, map[string]any{"resume": d["run_id"]})
	if !res.OK {
		b, _ := json.MarshalIndent(res, "", "  ")
		t.Fatalf("resume:\n%s", b)
	}
	d = wfData(t, res)
	out := d["outputs"].(map[string]any)
	// The catalog DAG's 6 nodes, with the project's own step on both branches.
	if out["dag_id"] != "xgboost_training_with_evaluation" || out["step_count"].(float64) != 8 {
		t.Fatalf("outputs %v", out)
	}
	def, err := os.ReadFile(filepath.Join(root, out["definition_file"].(string)))
	if err != nil {
		t.Fatal(err)
	}
	compilertest.CheckSchemas(t, def, compilertest.Strict)
	for _, p := range phaseStatus(t, d) {
		if strings.HasPrefix(p["name"].(string), "init-project/") && p["ran"] != false {
			t.Errorf("%v ran again", p["name"])
		}
	}
}

func TestConfigurePipelineOnAProjectWithItsOwnStep(t *testing.T) {
	root := t.TempDir()
	ctx := wfCtx(root)
	if res := cursus.Registry().Call(ctx, "project.init", map[string]any{"name": "demo", "framework": "xgboost"}); !res.OK {
		t.Fatalf("project.init: %s", res.Error)
	}
	res := wfCall(t, ctx, map[string]any{"workflow": "configure-pipeline", "args": map[string]any{"project_dir": "projects/demo_xgboost", "placeholders": true}})
	if !res.OK {
		b, _ := json.MarshalIndent(res, "", "  ")
		t.Fatalf("configure-pipeline on the scaffolded project:\n%s", b)
	}
	d := wfData(t, res)
	if d["outputs"].(map[string]any)["shippable"] != true {
		t.Fatalf("outputs %v", d["outputs"])
	}
	// The custom step was configured from the project's workspace.
	cfg, err := os.ReadFile(filepath.Join(root, "runs", d["run_id"].(string), "config.json"))
	if err != nil || !strings.Contains(string(cfg), "DemoFeatureEngineeringConfig") {
		t.Fatalf("config.json lacks the custom step's config: %v", err)
	}
	rep, err := os.ReadFile(filepath.Join(root, "runs", d["run_id"].(string), "reports", "compile.validate.json"))
	if err != nil || !strings.Contains(string(rep), "workspace_dirs") {
		t.Fatalf("compile.validate did not get the workspace: %v", err)
	}
}

func TestAuthorStepIntoAProjectWorkspace(t *testing.T) {
	root := t.TempDir()
	ctx := wfCtx(root)
	if res := cursus.Registry().Call(ctx, "project.init", map[string]any{"name": "demo", "framework": "xgboost"}); !res.OK {
		t.Fatalf("project.init: %s", res.Error)
	}
	// The consumer is the project's own step, known only in its workspace.
	res := wfCall(t, ctx, map[string]any{"workflow": "author-step", "args": map[string]any{
		"producer": "TabularPreprocessing_training", "consumer": "DemoFeatureEngineering_training", "step_name": "RowFilter",
		"project_dir": "projects/demo_xgboost"}})
	d := wfData(t, res)
	if d["stopped_at"] != "script-logic" {
		t.Fatalf("want a stop at script-logic: %v", d)
	}
	script := filepath.Join(root, "projects", "demo_xgboost", "scripts", "row_filter.py")
	if _, err := os.Stat(filepath.Join(root, "projects", "demo_xgboost", "steps", "RowFilter.step.yaml")); err != nil {
		t.Fatal(err)
	}
	// The contract's paths (runs/<id>/contract.json) are the ones clipScript uses.
	logic := strings.ReplaceAll(clipScript, "OutlierClipping", "RowFilter")
	if err := os.WriteFile(script, []byte(logic), 0o644); err != nil {
		t.Fatal(err)
	}
	res = wfCall(t, ctx, map[string]any{"resume": d["run_id"]})
	if !res.OK {
		b, _ := json.MarshalIndent(res, "", "  ")
		t.Fatalf("resume:\n%s", b)
	}
	if out := wfData(t, res)["outputs"].(map[string]any); out["node"] != "RowFilter_training" || out["step_file"] != "projects/demo_xgboost/steps/RowFilter.step.yaml" {
		t.Fatalf("outputs %v", out)
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func sameSet(enum any, names []string) bool {
	var got []string
	for _, v := range enum.([]any) {
		got = append(got, v.(string))
	}
	return mustJSONString(sortedCopy(got)) == mustJSONString(sortedCopy(names))
}

// TestNewProjectPassesWhereTheDataLives: new-project's data_source reaches
// the recommendation, which then seeds the project from a DAG that loads
// from S3.
func TestNewProjectPassesWhereTheDataLives(t *testing.T) {
	root := t.TempDir()
	rc := &recordingCaller{viaRegistry: newViaRegistry(), root: root}
	w, _ := workflow.Get("new-project")
	_, err := workflow.Start(wfCtx(root), w, map[string]any{"name": "demo", "framework": "xgboost", "need": "calibration and registration", "data_source": "s3"},
		workflow.Options{Root: root, Caller: rc})
	if err != nil {
		t.Fatal(err)
	}
	var rec, load string
	for _, c := range rc.seq {
		switch {
		case strings.HasPrefix(c, "pipeline_catalog.recommend "):
			rec = c
		case strings.HasPrefix(c, "pipeline_catalog.load_dag "):
			load = c
		}
	}
	if !strings.Contains(rec, `"data_source":"s3"`) || !strings.Contains(load, `"dag_id":"xgboost_complete_e2e_dummy"`) {
		t.Errorf("recommend %q, load_dag %q", rec, load)
	}
}

// After the documented author.scaffold_step example, the step exists but
// its output reaches XGBoostTraining's optional model_artifacts_input, not
// its required input_path: author-step does not take that for a binding of
// the edge (it stops to extend the step, naming the unbound input).
func TestAuthorStepNeedsEveryRequiredInputOfTheConsumer(t *testing.T) {
	root := t.TempDir()
	ctx := wfCtx(root)
	sc := cursus.Registry().Call(ctx, "author.scaffold_step", map[string]any{"step_name": "OutlierClipping", "workspace_dir": "steps", "job_type": "training",
		"inputs": []any{map[string]any{"name": "input_data", "compatible_sources": []any{"TabularPreprocessing"}}}, "outputs": []any{map[string]any{"name": "processed_data"}}})
	if !sc.OK {
		t.Fatalf("author.scaffold_step: %s", sc.Error)
	}
	args := map[string]any{"producer": "TabularPreprocessing_training", "consumer": "XGBoostTraining", "step_name": "OutlierClipping"}
	res := wfCall(t, ctx, map[string]any{"workflow": "author-step", "args": args})
	d := wfData(t, res)
	if res.OK || d["stopped_at"] != "resolve" || !strings.Contains(d["reason"].(string), "XGBoostTraining.input_path") {
		t.Fatalf("want a stop at resolve naming XGBoostTraining.input_path; got ok=%v stopped_at=%v reason=%v", res.OK, d["stopped_at"], d["reason"])
	}
}

// A reused workspace step whose script is still a skeleton (a scaffold
// made outside the run, so not the run's own skeleton) does not pass the
// script-logic gate; with its logic written it does.
func TestAuthorStepReuseOfASkeletonStopsForItsLogic(t *testing.T) {
	root := t.TempDir()
	ctx := wfCtx(root)
	sc := cursus.Registry().Call(ctx, "author.scaffold_step", map[string]any{"step_name": "OutlierClipping", "workspace_dir": "steps", "job_type": "training",
		"inputs":  []any{map[string]any{"name": "input_data", "compatible_sources": []any{"TabularPreprocessing"}, "keywords": []any{"processed_data"}}},
		"outputs": []any{map[string]any{"name": "processed_data", "aliases": []any{"input_path", "training_data"}, "keywords": []any{"input_path", "training"}}}})
	if !sc.OK {
		t.Fatalf("author.scaffold_step: %s", sc.Error)
	}
	args := map[string]any{"producer": "TabularPreprocessing_training", "consumer": "XGBoostTraining", "step_name": "OutlierClipping"}
	res := wfCall(t, ctx, map[string]any{"workflow": "author-step", "args": args})
	d := wfData(t, res)
	if res.OK || d["stopped_at"] != "script-logic" || !strings.Contains(d["reason"].(string), "still the skeleton") {
		b, _ := json.MarshalIndent(d, "", "  ")
		t.Fatalf("want a stop at script-logic for the skeleton:\n%s", b)
	}
	// The logic written: here, the skeleton's pass-through kept as the
	// step's logic, its TODO line gone.
	script := filepath.Join(root, "scripts", "outlier_clipping.py")
	skel, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	var logic []string
	for _, line := range strings.Split(string(skel), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "TODO: replace ") {
			logic = append(logic, line)
		}
	}
	if err := os.WriteFile(script, []byte(strings.Join(logic, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	done := wfCall(t, ctx, map[string]any{"resume": d["run_id"]})
	if !done.OK || wfData(t, done)["outputs"].(map[string]any)["rung"] != "reuse" {
		b, _ := json.MarshalIndent(done, "", "  ")
		t.Fatalf("resume after writing the logic:\n%s", b)
	}
}

// The run: new-project for "evaluate, calibrate and register"
// passes every gate (Registration's framework_version follows XGBoost's,
// so its image exists), keeps the project's own step in the catalog DAG,
// and ends incomplete because of the placeholders, naming them. A gate that
// fails names the field too, not only a count.
func TestNewProjectEvaluateCalibrateRegister(t *testing.T) {
	root := t.TempDir()
	ctx := wfCtx(root)
	res := wfCall(t, ctx, map[string]any{"workflow": "new-project", "args": map[string]any{"name": "fraud", "framework": "xgboost", "need": "evaluate, calibrate and register"}})
	d := wfData(t, res)
	if !res.OK || d["status"] != "incomplete" {
		b, _ := json.MarshalIndent(d, "", "  ")
		t.Fatalf("new-project:\n%s", b)
	}
	out := d["outputs"].(map[string]any)
	cfg, err := os.ReadFile(filepath.Join(root, out["project_config_file"].(string)))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Configuration struct {
			Shared   map[string]any            `json:"shared"`
			Specific map[string]map[string]any `json:"specific"`
		} `json:"configuration"`
	}
	if err := json.Unmarshal(cfg, &doc); err != nil {
		t.Fatal(err)
	}
	fv := doc.Configuration.Specific["Registration"]["framework_version"]
	if fv == nil {
		fv = doc.Configuration.Shared["framework_version"]
	}
	if fv != "1.7-1" {
		t.Errorf("Registration framework_version %v, want XGBoost's 1.7-1", fv)
	}
	if _, ok := doc.Configuration.Specific["FraudFeatureEngineering_training"]; !ok {
		t.Errorf("the project's own step left the pipeline: %v", mapKeys(doc.Configuration.Specific))
	}
	if !strings.Contains(d["reason"].(string), "placeholder") {
		t.Errorf("reason %v", d["reason"])
	}

	// A value that has no image fails the gate naming the field.
	bad := wfCall(t, ctx, map[string]any{"workflow": "configure-pipeline", "args": map[string]any{
		"project_dir": out["project_dir"], "placeholders": true,
		"values": map[string]any{"steps": map[string]any{"Registration": map[string]any{"framework_version": "2.1.0"}}},
	}})
	bd := wfData(t, bad)
	if bad.OK || bd["failed_at"] != "dag-check" || !strings.Contains(bd["reason"].(string), "Registration.framework_version") {
		t.Fatalf("want a failed dag-check naming Registration.framework_version: ok=%v failed_at=%v reason=%v", bad.OK, bd["failed_at"], bd["reason"])
	}
}

func mapKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
