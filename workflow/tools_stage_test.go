package workflow_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/stages"
	"github.com/cursus-go/cursus/tools"
	"github.com/cursus-go/cursus/tools/markdown"
	"github.com/cursus-go/cursus/workflow"
)

// TestStageToolsExist: every tool a stage lists is a listed (not
// deprecated) tool of the registry, and the always-visible namespaces exist.
func TestStageToolsExist(t *testing.T) {
	r := cursus.Registry()
	set, err := stages.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range set.Stages() {
		for _, name := range st.Tools {
			tl, ok := r.Get(name)
			if !ok {
				t.Errorf("stage %s lists %s, which is not in the registry", st.Name, name)
				continue
			}
			if tl.Deprecated() {
				t.Errorf("stage %s lists deprecated %s; list %s instead", st.Name, name, tl.DeprecatedBy)
			}
		}
	}
	for _, ns := range set.AlwaysVisible() {
		if len(r.List(ns)) == 0 {
			t.Errorf("always-visible namespace %s has no tools", ns)
		}
	}
	// workflow.complete_stage's stage enum is the sequence.
	tl, _ := r.Get("workflow.complete_stage")
	enum := tl.Schema()["properties"].(map[string]any)["stage"].(map[string]any)["enum"].([]any)
	var got []string
	for _, e := range enum {
		got = append(got, e.(string))
	}
	if !slices.Equal(got, set.Sequence()) {
		t.Errorf("complete_stage enum %v, sequence %v", got, set.Sequence())
	}
}

// TestMarkdownViewsThroughTheRegistry calls every tool with a view with
// format markdown and checks the view replaced the JSON data.
func TestMarkdownViewsThroughTheRegistry(t *testing.T) {
	root := t.TempDir()
	ex, err := filepath.Abs("../examples/xgboost-end-to-end")
	if err != nil {
		t.Fatal(err)
	}
	ctx := registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: root, ReadRoots: []string{ex}, AllowDestructive: true})
	r := cursus.Registry()
	ex += "/"
	dagArgs := readDAG(t, ex+"dag.json")
	if res := r.Call(ctx, "workflow.new_run", map[string]any{"run_id": "md"}); !res.OK {
		t.Fatal(res.Error)
	}
	args := map[string]map[string]any{
		"tools.help":                 {},
		"dag.resolve_plan":           {"dag": dagArgs},
		"compile.with_report":        {"dag_file": ex + "dag.json", "config_file": ex + "config.json"},
		"compile.preview":            {"dag_file": ex + "dag.json", "config_file": ex + "config.json"},
		"validate.alignment":         {"target_scripts": []string{"XGBoostTraining"}},
		"pipeline_catalog.recommend": {"framework": "xgboost"},
		"execdoc.generate":           {"dag_file": ex + "dag.json", "config_file": ex + "config.json"},
		"workflow.status":            {"run_id": "md"},
	}
	for _, tool := range markdown.Views() {
		a, ok := args[tool]
		if !ok {
			t.Errorf("no test arguments for view %s", tool)
			continue
		}
		tl, ok := r.Get(tool)
		if !ok {
			t.Errorf("view %s names no tool", tool)
			continue
		}
		if _, ok := tl.Schema()["properties"].(map[string]any)["format"]; !ok {
			t.Errorf("%s has no format argument", tool)
		}
		plain := r.Call(ctx, tool, a)
		if !plain.OK {
			t.Errorf("%s: %s %s", tool, plain.Code, plain.Error)
			continue
		}
		if _, isString := plain.Data.(string); isString {
			t.Errorf("%s: JSON by default, got a string", tool)
		}
		md := map[string]any{"format": "markdown"}
		for k, v := range a {
			md[k] = v
		}
		res := r.Call(ctx, tool, md)
		s, isString := res.Data.(string)
		if !res.OK || !isString || !strings.HasPrefix(s, "# ") || res.Meta["format"] != "markdown" {
			t.Errorf("%s markdown: ok=%v data=%T meta=%v %s", tool, res.OK, res.Data, res.Meta, res.Error)
			continue
		}
		jb, _ := json.Marshal(plain.Data)
		if len(s) >= len(jb) {
			t.Errorf("%s: the view (%d bytes) is not smaller than the JSON (%d bytes)", tool, len(s), len(jb))
		}
	}
}

func readDAG(t *testing.T, path string) map[string]any {
	t.Helper()
	var f struct {
		DAG struct {
			Nodes []string   `json:"nodes"`
			Edges [][]string `json:"edges"`
		} `json:"dag"`
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return map[string]any{"nodes": f.DAG.Nodes, "edges": f.DAG.Edges}
}

// dataMap is a result's data as a client decodes it from the wire.
func dataMap(t testing.TB, res *envelope.ToolResult) map[string]any {
	t.Helper()
	b, err := json.Marshal(res.Data)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("data is not an object: %s", b)
	}
	return m
}

// typed is a result's data as its Go type; a failure or another type
// fails the test.
func typed[T any](t testing.TB, res *envelope.ToolResult) T {
	t.Helper()
	v, err := envelope.As[T](res)
	if err != nil {
		t.Fatalf("%T data: %v", v, err)
	}
	return v
}

// newSession starts a session over the default registry.
func newSession(t *testing.T, opts workflow.SessionOptions) *workflow.Session {
	t.Helper()
	opts.Registry = cursus.Registry()
	s, err := workflow.NewSession(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func names(defs []*registry.ToolDef) []string {
	var out []string
	for _, d := range defs {
		out = append(out, d.Name)
	}
	return out
}

func TestSessionScoping(t *testing.T) {
	if _, err := workflow.NewSession(workflow.SessionOptions{Stage: "nope", Registry: cursus.Registry()}); err == nil || !strings.Contains(err.Error(), "orchestrator") {
		t.Errorf("unknown stage: %v", err)
	}
	if _, err := workflow.NewSession(workflow.SessionOptions{}); err == nil || !strings.Contains(err.Error(), "Registry") {
		t.Errorf("a session without a registry: %v", err)
	}
	s := newSession(t, workflow.SessionOptions{})
	if s.Stage() != "orchestrator" || s.Pinned() || s.RunID() != "" {
		t.Fatalf("new session: %s %v %q", s.Stage(), s.Pinned(), s.RunID())
	}
	hub := names(s.Tools())
	for _, want := range []string{"tools.help", "workflow.start_stage", "workflow.complete_stage", "workflow.status", "workflow.new_run"} {
		if !slices.Contains(hub, want) {
			t.Errorf("orchestrator lacks %s: %v", want, hub)
		}
	}
	if len(hub) > 20 {
		t.Errorf("orchestrator lists %d tools", len(hub))
	}
	ctx := context.Background()
	res := s.Call(ctx, "compile__with_report", nil)
	if res.Code != envelope.CodeToolNotInStage || res.Remedy == nil {
		t.Fatalf("out of stage: %+v", res)
	}
	d := res.Details()
	if !slices.Equal(d["offered_in"].([]string), []string{"compile"}) || d["active_stage"] != "orchestrator" {
		t.Errorf("details: %v", d)
	}
	if !strings.Contains(res.Remedy.FixAction, "workflow.start_stage") || res.Remedy.SuggestedTools[1] != "workflow.start_stage" {
		t.Errorf("remedy: %+v", res.Remedy)
	}
	// A tool in no stage says so.
	if res := s.Call(ctx, "pipeline.list", map[string]any{}); res.Code != envelope.CodeToolNotInStage || !strings.Contains(res.Error, "nor in any other guided stage") {
		t.Errorf("tool in no stage: %+v", res)
	}
	// Unknown tools are still unknown.
	if res := s.Call(ctx, "nope.nope", nil); res.Code != envelope.CodeUnknownTool {
		t.Errorf("unknown: %+v", res)
	}
	// tools.help shows the stage's tools only.
	res = s.Call(ctx, "tools.help", nil)
	data := res.Data.(tools.ToolsHelpData)
	// (tools.help counts workflow.help, which the stage lists not but lets
	// be called.)
	if data.Stage != "orchestrator" || data.Shown != len(hub)+1 {
		t.Errorf("help in a session: stage %v shown %v (hub %d)", data.Stage, data.Shown, len(hub))
	}

	// workflow.run runs other tools: no stage names it, so no stage lists
	// it, and a call in a stage answers tool_not_in_stage instead of
	// running the tools the stage refuses.
	for _, stage := range []string{"", "compile", "configure"} {
		ss := newSession(t, workflow.SessionOptions{Stage: stage})
		if slices.Contains(names(ss.Tools()), "workflow.run") {
			t.Errorf("stage %q lists workflow.run", ss.Stage())
		}
		res := ss.Call(ctx, "workflow.run", map[string]any{"workflow": "new-project", "args": map[string]any{"name": "demo", "framework": "xgboost"}})
		if res.Code != envelope.CodeToolNotInStage {
			t.Errorf("stage %q: workflow.run answered %s %s, want tool_not_in_stage", ss.Stage(), res.Code, res.Error)
		}
	}

	// A pinned session lists its stage and explains how to reach others.
	p := newSession(t, workflow.SessionOptions{Stage: "compile", Policy: &registry.Policy{}})
	got := names(p.Tools())
	if !slices.Contains(got, "compile.definition") || slices.Contains(got, "compile.dag") || slices.Contains(got, "author.rules") {
		t.Errorf("pinned compile (gates closed): %v", got)
	}
	open := newSession(t, workflow.SessionOptions{Stage: "compile"})
	if !slices.Contains(names(open.Tools()), "compile.dag") {
		t.Error("a trusted session lists compile.dag in compile")
	}
	res = p.Call(ctx, "author.rules", map[string]any{"topic": "naming"})
	if res.Code != envelope.CodeToolNotInStage || !strings.Contains(res.Remedy.FixAction, "--stage author_step") {
		t.Errorf("pinned out of stage: %+v %+v", res, res.Remedy)
	}
}

// sessionRun drives a session through a whole run with the xgboost example.
type sessionRun struct {
	t   *testing.T
	s   *workflow.Session
	ctx context.Context
	id  string
}

func (r *sessionRun) call(name string, args any) *envelope.ToolResult {
	r.t.Helper()
	res := r.s.Call(r.ctx, name, args)
	if !res.OK {
		r.t.Fatalf("%s: %s %s (%+v)", name, res.Code, res.Error, res.Remedy)
	}
	if strings.HasPrefix(name, "workflow.") {
		checkOutput(r.t, name, res)
	}
	return res
}

func (r *sessionRun) start(want string) workflow.StartStageData {
	r.t.Helper()
	res := r.call("workflow.start_stage", map[string]any{"run_id": r.id})
	d := typed[workflow.StartStageData](r.t, res)
	if d.Stage != want || r.s.Stage() != want {
		r.t.Fatalf("start_stage picked %v (session %s), want %s", d.Stage, r.s.Stage(), want)
	}
	return d
}

func (r *sessionRun) complete(wantDone bool) workflow.CompleteStageData {
	r.t.Helper()
	res := r.call("workflow.complete_stage", map[string]any{"run_id": r.id})
	d := typed[workflow.CompleteStageData](r.t, res)
	if d.Completed != wantDone || r.s.Stage() != "orchestrator" {
		r.t.Fatalf("complete_stage: %v, session in %s, warnings %v", d.Completed, r.s.Stage(), res.Warnings)
	}
	return d
}

func TestSessionWholeRun(t *testing.T) {
	root := t.TempDir()
	s := newSession(t, workflow.SessionOptions{Policy: &registry.Policy{ProjectRoot: root, AllowDestructive: true}})
	var mu sync.Mutex
	var changes []string
	s.OnStageChange(func(from, to string) {
		mu.Lock()
		defer mu.Unlock()
		changes = append(changes, from+">"+to)
	})
	r := &sessionRun{t: t, s: s, ctx: context.Background(), id: "demo"}
	ex := "../examples/xgboost-end-to-end/"
	dagArgs := readDAG(t, ex+"dag.json")

	res := r.call("workflow.new_run", map[string]any{"run_id": "demo"})
	arts := dataMap(t, res)["artifacts"].(map[string]any)
	dagFile, configFile := arts["dag_file"].(string), arts["config_file"].(string)
	if dagFile != filepath.Join(root, "runs", "demo", "dag.json") {
		t.Fatalf("dag_file %s", dagFile)
	}
	if res := s.Call(r.ctx, "workflow.new_run", map[string]any{"run_id": "demo"}); res.Code != envelope.CodeAlreadyExists {
		t.Errorf("second new_run: %+v", res)
	}
	// Completing from the hub needs a stage.
	if res := s.Call(r.ctx, "workflow.complete_stage", map[string]any{"run_id": "demo"}); res.Code != envelope.CodeInvalidInput {
		t.Errorf("complete in the hub: %+v", res)
	}

	d := r.start("plan")
	if d.ModelTier != "strong" || !strings.Contains(d.Prompt, dagFile) || len(d.Checklist) == 0 {
		t.Errorf("plan payload: %v", d)
	}
	if tl := d.Tools; !slices.Contains(tl, "dag.serialize") || !slices.Contains(tl, "workflow.status") || slices.Contains(tl, "compile.definition") {
		t.Errorf("plan tools: %v", tl)
	}
	// The stage's own tools work; others do not.
	if res := s.Call(r.ctx, "config.template", map[string]any{"dag": dagArgs}); res.Code != envelope.CodeToolNotInStage {
		t.Errorf("config.template in plan: %+v", res)
	}
	// Completing too early says what is missing and returns to the hub.
	c := r.complete(false)
	if c.NextStage != "plan" || !strings.Contains(strings.Join(c.Missing, " "), "dag.json is missing") {
		t.Errorf("early complete: %v", c)
	}
	r.start("plan")
	r.call("dag.serialize", map[string]any{"dag": dagArgs, "output_file": dagFile})
	if c := r.complete(true); c.NextStage != "configure" || !c.Recorded {
		t.Errorf("complete plan: next %v, recorded %v", c.NextStage, c.Recorded)
	}

	r.start("configure")
	base, steps := exampleValues(t, ex+"config.json")
	r.call("config.merge_save", map[string]any{"dag": dagArgs, "base": base, "steps": steps, "output_file": configFile})
	r.complete(true)

	d = r.start("validate")
	if d.ModelTier != "fast" {
		t.Errorf("validate tier %v", d.ModelTier)
	}
	res = r.call("dag.validate_integrity", map[string]any{"dag": dagArgs})
	if res.Meta["recorded"] != filepath.Join(root, "runs", "demo", "reports", "dag.validate_integrity.json") {
		t.Errorf("not recorded: %v", res.Meta)
	}
	// A markdown-less recorded tool and a view both record.
	r.call("compile.validate", map[string]any{"dag_file": dagFile, "config_file": configFile})
	r.call("compile.preview", map[string]any{"dag_file": dagFile, "config_file": configFile, "format": "markdown"})
	// A tool the stage does not record leaves no report.
	r.call("config.load", map[string]any{"config_file": configFile})
	if _, err := os.Stat(filepath.Join(root, "runs", "demo", "reports", "config.load.json")); err == nil {
		t.Error("config.load was recorded")
	}
	r.complete(true)

	r.start("compile")
	defPath := filepath.Join(root, "runs", "demo", "pipeline.definition.json")
	// A definition written to the caller's own file leaves the run nothing
	// to keep: not recorded, and the warning says how to call instead.
	res = r.call("compile.definition", map[string]any{"dag_file": dagFile, "config_file": configFile, "output_file": filepath.Join(root, "build", "def.json")})
	if res.Meta["recorded"] != nil || res.Meta["saved"] != nil || !strings.Contains(strings.Join(res.Warnings, " "), "without output_file") {
		t.Errorf("compile.definition with output_file in a run: meta %v, warnings %v", res.Meta, res.Warnings)
	}
	if _, err := os.Stat(defPath); err == nil {
		t.Error("a definition written to output_file was also saved in the run")
	}
	res = r.call("compile.definition", map[string]any{"dag_file": dagFile, "config_file": configFile})
	if res.Meta["saved"] != defPath {
		t.Errorf("definition not saved: %v", res.Meta)
	}
	var def struct {
		Version string
		Steps   []map[string]any
	}
	b, err := os.ReadFile(defPath)
	if err != nil || json.Unmarshal(b, &def) != nil || len(def.Steps) != 10 {
		t.Fatalf("saved definition: %v %d steps", err, len(def.Steps))
	}
	// The result keeps the definition; the report refers to the file.
	if d, ok := res.Data.(tools.CompileDefinitionData); !ok || len(d.Definition) == 0 {
		t.Errorf("result lost its definition: %T", res.Data)
	}
	rep, err := os.ReadFile(filepath.Join(root, "runs", "demo", "reports", "compile.definition.json"))
	if err != nil || !strings.Contains(string(rep), `"$artifact"`) {
		t.Errorf("report: %v %.200s", err, rep)
	}
	c = r.complete(true)
	if !c.Done {
		t.Errorf("run not done: %v", c)
	}
	res = r.call("workflow.start_stage", map[string]any{"run_id": "demo"})
	if dataMap(t, res)["done"] != true || s.Stage() != "orchestrator" {
		t.Errorf("start on a done run: %v", res.Data)
	}
	res = r.call("workflow.status", map[string]any{"run_id": "demo", "format": "markdown"})
	if md := res.Data.(string); !strings.HasPrefix(md, "# Run `demo`: complete") {
		t.Errorf("status view:\n%s", md)
	}
	st, _ := stages.OpenRun(nil, root, "demo")
	state, _ := st.State()
	var done []string
	for _, c := range state.Completed {
		done = append(done, c.Stage)
	}
	if strings.Join(done, ",") != "plan,configure,validate,compile" {
		t.Errorf("completion history %v", done)
	}
	mu.Lock()
	defer mu.Unlock()
	want := "orchestrator>plan,plan>orchestrator,orchestrator>plan,plan>orchestrator,orchestrator>configure,configure>orchestrator,orchestrator>validate,validate>orchestrator,orchestrator>compile,compile>orchestrator"
	if strings.Join(changes, ",") != want {
		t.Errorf("stage changes:\n%s\nwant\n%s", strings.Join(changes, ","), want)
	}
}

// exampleValues turns a config.json into config.merge_save's base and
// steps, as an agent would from the user's values.
func exampleValues(t *testing.T, path string) (map[string]any, map[string]any) {
	t.Helper()
	var c struct {
		Configuration struct {
			Shared   map[string]any            `json:"shared"`
			Specific map[string]map[string]any `json:"specific"`
		} `json:"configuration"`
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	steps := map[string]any{}
	for k, v := range c.Configuration.Specific {
		delete(v, "__model_type__")
		steps[k] = v
	}
	return c.Configuration.Shared, steps
}

func TestSessionsAreIndependent(t *testing.T) {
	root := t.TempDir()
	pol := &registry.Policy{ProjectRoot: root, AllowDestructive: true}
	a := newSession(t, workflow.SessionOptions{Policy: pol})
	b := newSession(t, workflow.SessionOptions{Policy: pol})
	ctx := context.Background()
	for _, id := range []string{"one", "two"} {
		if res := a.Call(ctx, "workflow.new_run", map[string]any{"run_id": id}); !res.OK {
			t.Fatal(res.Error)
		}
	}
	// Run two gets a DAG, so it is in configure while run one is in plan.
	dagArgs := readDAG(t, "../examples/xgboost-end-to-end/dag.json")
	if res := a.Call(ctx, "workflow.start_stage", map[string]any{"run_id": "two"}); !res.OK {
		t.Fatal(res.Error)
	}
	if res := a.Call(ctx, "dag.serialize", map[string]any{"dag": dagArgs, "output_file": "runs/two/dag.json"}); !res.OK {
		t.Fatal(res.Error)
	}
	a.Call(ctx, "workflow.complete_stage", map[string]any{"run_id": "two"})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); a.Call(ctx, "workflow.start_stage", map[string]any{"run_id": "two"}) }()
	go func() { defer wg.Done(); b.Call(ctx, "workflow.start_stage", map[string]any{"run_id": "one"}) }()
	wg.Wait()
	if a.Stage() != "configure" || b.Stage() != "plan" {
		t.Fatalf("a in %s, b in %s", a.Stage(), b.Stage())
	}
	if res := a.Call(ctx, "dag.construct", map[string]any{"dag": map[string]any{"nodes": []string{"x"}}}); res.Code != envelope.CodeToolNotInStage {
		t.Errorf("a (configure) called dag.construct: %+v", res)
	}
	if res := b.Call(ctx, "dag.construct", map[string]any{"dag": map[string]any{"nodes": []string{"x"}}}); !res.OK {
		t.Errorf("b (plan) refused dag.construct: %+v", res)
	}
	if a.RunID() != "two" || b.RunID() != "one" {
		t.Errorf("runs: a %s b %s", a.RunID(), b.RunID())
	}
}

func TestWorkflowToolsWithoutSession(t *testing.T) {
	root := t.TempDir()
	r := cursus.Registry()
	closed := registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: root})
	if res := r.Call(closed, "workflow.new_run", nil); res.Code != envelope.CodeToolDisabled {
		t.Errorf("new_run with the gate closed: %+v", res)
	}
	ctx := registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: root, AllowDestructive: true})
	for _, bad := range []string{"../evil", "a/b", ".x"} {
		res := r.Call(ctx, "workflow.new_run", map[string]any{"run_id": bad})
		if res.Code != envelope.CodeInvalidInput {
			t.Errorf("run_id %q: %+v", bad, res)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "evil")); err == nil {
		t.Error("../evil wrote outside runs/")
	}
	res := r.Call(ctx, "workflow.new_run", nil)
	id := typed[workflow.NewRunData](t, res).RunID
	if !res.OK || !strings.HasPrefix(id, "run-") {
		t.Fatalf("generated run: %+v", res)
	}
	res = r.Call(ctx, "workflow.start_stage", map[string]any{"run_id": id})
	if !res.OK || typed[workflow.StartStageData](t, res).Stage != "plan" || len(res.Warnings) == 0 {
		t.Errorf("start without session: %+v", res)
	}
	if _, ok := dataMap(t, res)["model_hint"]; ok {
		t.Error("a model hint nobody asked for")
	}
	// The host layer of the model hint, only when asked for.
	res = r.Call(ctx, "workflow.start_stage", map[string]any{"run_id": id, "host": "claude-code"})
	hint := typed[workflow.StartStageData](t, res).ModelHint
	if want, _ := stages.HintFor("claude-code", stages.TierStrong); !res.OK || hint == nil || *hint != want {
		t.Errorf("plan (strong) on claude-code: %+v, want %+v", hint, want)
	}
	if res := r.Call(ctx, "workflow.start_stage", map[string]any{"run_id": id, "host": "vim"}); res.Code != envelope.CodeInvalidInput || !strings.Contains(res.Error, "claude-code") {
		t.Errorf("unknown host: %+v", res)
	}
	if res := r.Call(ctx, "workflow.complete_stage", map[string]any{"run_id": id}); res.Code != envelope.CodeInvalidInput {
		t.Errorf("complete without stage: %+v", res)
	}
	res = r.Call(ctx, "workflow.complete_stage", map[string]any{"run_id": id, "stage": "plan"})
	if !res.OK || typed[workflow.CompleteStageData](t, res).Completed {
		t.Fatalf("complete plan: %+v", res)
	}
	// The incomplete stage reports its failing checks and stays next.
	pd := typed[workflow.CompleteStageData](t, res)
	checks := pd.Checks
	if len(checks) == 0 || checks[0].Passed || pd.NextStage != "plan" || len(pd.Missing) == 0 {
		t.Errorf("complete plan: checks %+v, next %v, missing %v", checks, pd.NextStage, pd.Missing)
	}
	res = r.Call(ctx, "workflow.status", map[string]any{"run_id": "nope"})
	if res.Code != envelope.CodeNotFound || !slices.Contains(res.Details()["runs"].([]string), id) || res.Remedy == nil {
		t.Errorf("unknown run: %+v", res)
	}
	// A session with the write gate closed does not record reports.
	s := newSession(t, workflow.SessionOptions{Policy: &registry.Policy{ProjectRoot: root}})
	runDir := filepath.Join(root, "runs", id)
	for _, f := range []string{"dag.json", "config.json"} {
		b, err := os.ReadFile("../examples/xgboost-end-to-end/" + f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(runDir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s.Call(context.Background(), "workflow.start_stage", map[string]any{"run_id": id})
	if s.Stage() != "validate" {
		t.Fatalf("stage %s", s.Stage())
	}
	res = s.Call(context.Background(), "dag.validate_integrity", map[string]any{"dag": readDAG(t, filepath.Join(runDir, "dag.json"))})
	if !res.OK || res.Meta["recorded"] != nil || len(res.Warnings) == 0 || !strings.Contains(res.Warnings[len(res.Warnings)-1], "writes are disabled") {
		t.Errorf("recorded with the gate closed: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(runDir, "reports", "dag.validate_integrity.json")); err == nil {
		t.Error("a report was written with the gate closed")
	}
	res = s.Call(context.Background(), "workflow.complete_stage", map[string]any{"run_id": id})
	if !res.OK || typed[workflow.CompleteStageData](t, res).Completed || s.Stage() != "orchestrator" {
		t.Errorf("complete validate without reports: %+v", res)
	}
}

// BenchmarkSessionScopeCheck measures what a guided session adds to a call
// that its stage refuses (the scope answers before any argument work).
func BenchmarkSessionScopeCheck(b *testing.B) {
	s, err := workflow.NewSession(workflow.SessionOptions{Registry: cursus.Registry()})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		if res := s.Call(ctx, "compile.definition", nil); res.Code != envelope.CodeToolNotInStage {
			b.Fatal(res.Error)
		}
	}
}

// BenchmarkSessionTools measures listing a stage's tools.
func BenchmarkSessionTools(b *testing.B) {
	s, err := workflow.NewSession(workflow.SessionOptions{Stage: "plan", Registry: cursus.Registry()})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if len(s.Tools()) == 0 {
			b.Fatal("no tools")
		}
	}
}
