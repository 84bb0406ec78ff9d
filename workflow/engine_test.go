package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/runs"
	"github.com/cursus-go/cursus/stages"
)

// fakeTools is a Caller that answers from a table and counts calls.
type fakeTools struct {
	mu     sync.Mutex
	calls  []string
	answer map[string]func(args any) Response
	before func(tool string) // runs before each call (the test may cancel here)
}

func (f *fakeTools) CallTool(ctx context.Context, tool string, args any) *envelope.ToolResult {
	f.mu.Lock()
	f.calls = append(f.calls, tool)
	before := f.before
	f.mu.Unlock()
	if before != nil {
		before(tool)
	}
	if err := ctx.Err(); err != nil {
		env := fmt.Sprintf(`{"ok":false,"error":"call cancelled: %s","code":"cancelled"}`, err)
		r, _ := ResponseFromEnvelope([]byte(env))
		return &r.ToolResult
	}
	if fn, ok := f.answer[tool]; ok {
		r := fn(args)
		return &r.ToolResult
	}
	r, _ := ResponseFromEnvelope([]byte(`{"ok":true,"data":{"tool":"` + tool + `"}}`))
	return &r.ToolResult
}

func (f *fakeTools) count(tool string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if c == tool {
			n++
		}
	}
	return n
}

func (f *fakeTools) reset() {
	f.mu.Lock()
	f.calls = nil
	f.mu.Unlock()
}

func okEnv(data string) Response {
	r, err := ResponseFromEnvelope([]byte(`{"ok":true,"data":` + data + `}`))
	if err != nil {
		panic(err)
	}
	return r
}

// testFlow is a three-phase workflow: "write" writes an artifact after
// calling a.tool, "check" calls b.tool as a gate and stops for judgment
// until answer.txt exists in the run folder, "finish" calls c.tool.
func testFlow() *Workflow {
	return &Workflow{
		Name: "test-flow", Description: "a test workflow",
		Args: []Arg{
			{Name: "label", Type: "string", Required: true, Description: "a label"},
			{Name: "mode", Type: "string", Default: "plain", Enum: []string{"plain", "fancy"}, Description: "a mode"},
		},
		Phases: []Phase{
			{Name: "write", Title: "Write", Gate: "a.tool answers", Tools: []string{"a.tool"}, Run: func(ctx context.Context, s *Step) error {
				if _, err := s.Require(ctx, "a.tool", map[string]any{"label": s.ArgString("label")}); err != nil {
					return err
				}
				if err := s.WriteFile(s.RunPath("out.txt"), []byte("label="+s.ArgString("label")+"\n")); err != nil {
					return err
				}
				if err := s.WriteFile(s.RunPath("draft.txt"), []byte("draft\n")); err != nil {
					return err
				}
				if err := s.Handoff(s.RunPath("draft.txt")); err != nil {
					return err
				}
				return s.Set("written", true)
			}},
			{Name: "check", Title: "Check", Gate: "b.tool passes and answer.txt exists", Tools: []string{"b.tool"}, Judgment: "an answer", Run: func(ctx context.Context, s *Step) error {
				resp, err := s.Require(ctx, "b.tool", map[string]any{})
				if err != nil {
					return err
				}
				if err := s.Report("b.tool", map[string]any{}, resp); err != nil {
					return err
				}
				if _, err := os.Stat(s.Abs(s.RunPath("answer.txt"))); err != nil {
					return &Judgment{Reason: "needs an answer", ActionItems: []string{"write answer.txt"},
						ToolCalls: []ToolCall{{Tool: "b.tool", Args: map[string]any{}, Why: "look"}}, Files: []string{s.RunPath("answer.txt")}}
				}
				return s.Record(s.RunPath("answer.txt"))
			}},
			{Name: "finish", Title: "Finish", Gate: "c.tool answers", Tools: []string{"c.tool"}, Run: func(ctx context.Context, s *Step) error {
				_, err := s.Require(ctx, "c.tool", map[string]any{})
				return err
			}},
		},
		Result: func(v Vars) map[string]any {
			var w bool
			v.Get("written", &w)
			return map[string]any{"written": w}
		},
	}
}

func collect(events *[]Event) func(Event) {
	var mu sync.Mutex
	return func(e Event) {
		mu.Lock()
		*events = append(*events, e)
		mu.Unlock()
	}
}

func kinds(events []Event) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.Kind+":"+e.Phase)
	}
	return out
}

func TestStopForJudgmentThenResumeThroughTheSameGate(t *testing.T) {
	root := t.TempDir()
	ft := &fakeTools{}
	w := testFlow()
	var events []Event
	opts := Options{Root: root, Caller: ft, Workflows: []*Workflow{w}, Observer: collect(&events)}
	res, err := Start(context.Background(), w, map[string]any{"label": "x"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusStopped || res.StoppedAt != "check" || res.Reason != "needs an answer" || len(res.ToolCalls) != 1 {
		t.Fatalf("want a stop at check, got %+v", res)
	}
	if res.RunID != "test-flow-001" || res.Resume != "cursus workflow run test-flow --resume test-flow-001" || ExitCode(res.Status) != 3 {
		t.Fatalf("run id / resume / exit: %s %q %d", res.RunID, res.Resume, ExitCode(res.Status))
	}
	if got := kinds(events); !reflect.DeepEqual(got, []string{"start:write", "passed:write", "start:check", "stopped:check"}) {
		t.Fatalf("events %v", got)
	}
	st, err := LoadState(nil, root, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if st.Args["mode"] != "plain" {
		t.Fatalf("default not applied: %v", st.Args)
	}
	if st.Phases[0].Status != PhasePassed || st.Phases[1].Status != PhaseStopped || st.Phases[2].Status != PhasePending {
		t.Fatalf("phase states %+v", st.Phases)
	}
	if len(st.Phases[0].Artifacts) != 2 || st.Phases[0].Artifacts[0].SHA256 == "" || st.Phases[0].Artifacts[1].Kind != ArtifactHandoff {
		t.Fatalf("artifacts %+v", st.Phases[0].Artifacts)
	}
	// The report is in the guided stages' format.
	b, err := os.ReadFile(filepath.Join(RunDir(root, res.RunID), "reports", "b.tool.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep stages.Report
	if err := json.Unmarshal(b, &rep); err != nil || rep.Tool != "b.tool" || !rep.OK || rep.WorkDir != root {
		t.Fatalf("report %s (%v)", b, err)
	}
	// Resuming without the answer stops again, at the same gate.
	ft.reset()
	res, err = Resume(context.Background(), res.RunID, opts)
	if err != nil || res.Status != StatusStopped || res.StoppedAt != "check" {
		t.Fatalf("second stop: %+v %v", res, err)
	}
	if ft.count("a.tool") != 0 || ft.count("b.tool") != 1 {
		t.Fatalf("a passed phase ran again or the gate did not: %v", ft.calls)
	}
	// A handed-over file may change without re-running its phase.
	if err := os.WriteFile(filepath.Join(RunDir(root, res.RunID), "draft.txt"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(RunDir(root, res.RunID), "answer.txt"), []byte("42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ft.reset()
	events = nil
	res, err = Resume(context.Background(), res.RunID, opts)
	if err != nil || res.Status != StatusDone || !res.Resumed || res.Resume != "" {
		t.Fatalf("resume: %+v %v", res, err)
	}
	if ft.count("a.tool") != 0 || ft.count("b.tool") != 1 || ft.count("c.tool") != 1 {
		t.Fatalf("calls on resume %v", ft.calls)
	}
	if got := kinds(events); !reflect.DeepEqual(got, []string{"verified:write", "start:check", "passed:check", "start:finish", "passed:finish", "done:"}) {
		t.Fatalf("events %v", got)
	}
	if res.Phases[0].Ran || !res.Phases[1].Ran || res.Phases[1].Attempts != 3 || res.Outputs["written"] != true {
		t.Fatalf("result %+v", res)
	}
	// A done run is not run again.
	if _, err := Resume(context.Background(), res.RunID, opts); !errors.Is(err, ErrRunFinished) {
		t.Fatalf("resume of a done run: %v", err)
	}
	if got, err := Status(nil, root, res.RunID, w); err != nil || got.Status != StatusDone {
		t.Fatalf("status %+v %v", got, err)
	}
}

func TestGateFailureKeepsTheToolsEnvelope(t *testing.T) {
	root := t.TempDir()
	env := `{"ok":false,"error":"bad value","code":"config_invalid","meta":{"details":{"errors":[{"field":"region"}]},"tool":"b.tool"}}`
	ft := &fakeTools{answer: map[string]func(any) Response{"b.tool": func(any) Response {
		r, _ := ResponseFromEnvelope([]byte(env))
		return r
	}}}
	w := testFlow()
	res, err := Start(context.Background(), w, map[string]any{"label": "x"}, Options{Root: root, Caller: ft})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusFailed || res.FailedAt != "check" || res.FailedTool != "b.tool" || ExitCode(res.Status) != 1 {
		t.Fatalf("result %+v", res)
	}
	var got, want any
	_ = json.Unmarshal(res.Envelope, &got)
	_ = json.Unmarshal([]byte(env), &want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("envelope %s, want %s", res.Envelope, env)
	}
	if res.Phases[2].Status != PhasePending || ft.count("c.tool") != 0 {
		t.Fatalf("a phase after the failed gate ran: %+v", res.Phases)
	}
	// Fix the tool, resume: the failed phase runs again, the passed one does not.
	ft.answer = nil
	if err := os.WriteFile(filepath.Join(RunDir(root, res.RunID), "answer.txt"), []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	ft.reset()
	res, err = Resume(context.Background(), res.RunID, Options{Root: root, Caller: ft, Workflows: []*Workflow{w}})
	if err != nil || res.Status != StatusDone || ft.count("a.tool") != 0 {
		t.Fatalf("resume %+v %v %v", res, err, ft.calls)
	}
}

func TestCancelledMidPhaseResumesWithoutRedoingPassedPhases(t *testing.T) {
	root := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ft := &fakeTools{before: func(tool string) {
		if tool == "b.tool" {
			cancel()
		}
	}}
	w := testFlow()
	res, err := Start(ctx, w, map[string]any{"label": "x"}, Options{Root: root, Caller: ft, RunID: "mine"})
	if !errors.Is(err, context.Canceled) || res == nil || res.Status != StatusCancelled {
		t.Fatalf("want cancelled, got %+v %v", res, err)
	}
	st, _ := LoadState(nil, root, "mine")
	if st.Phases[0].Status != PhasePassed || st.Phases[1].Status != PhaseCancelled {
		t.Fatalf("phases %+v", st.Phases)
	}
	if c := st.Phases[1].Calls; len(c) != 1 || c[0].Tool != "b.tool" || c[0].Code != "cancelled" {
		t.Fatalf("the interrupted call is not recorded: %+v", c)
	}
	if err := os.WriteFile(filepath.Join(RunDir(root, "mine"), "answer.txt"), []byte("ok"), 0o644); err != nil {
		t.Fatal(err)
	}
	ft2 := &fakeTools{}
	res, err = Resume(context.Background(), "mine", Options{Root: root, Caller: ft2, Workflows: []*Workflow{w}})
	if err != nil || res.Status != StatusDone {
		t.Fatalf("resume %+v %v", res, err)
	}
	if ft2.count("a.tool") != 0 || ft2.count("b.tool") != 1 || ft2.count("c.tool") != 1 {
		t.Fatalf("resume calls %v", ft2.calls)
	}
	if res.Phases[1].Attempts != 2 {
		t.Fatalf("attempts %+v", res.Phases[1])
	}
}

func TestChangedArtifactRerunsItsPhaseAndLaterOnes(t *testing.T) {
	root := t.TempDir()
	ft := &fakeTools{}
	w := testFlow()
	opts := Options{Root: root, Caller: ft, Workflows: []*Workflow{w}}
	res, err := Start(context.Background(), w, map[string]any{"label": "x"}, opts)
	if err != nil || res.Status != StatusStopped {
		t.Fatal(res, err)
	}
	dir := RunDir(root, res.RunID)
	if err := os.WriteFile(filepath.Join(dir, "out.txt"), []byte("tampered\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "answer.txt"), []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	var events []Event
	opts.Observer = collect(&events)
	ft.reset()
	res, err = Resume(context.Background(), res.RunID, opts)
	if err != nil || res.Status != StatusDone {
		t.Fatal(res, err)
	}
	if events[0].Kind != "changed" || events[0].Phase != "write" || !strings.Contains(events[0].Message, "out.txt changed") {
		t.Fatalf("first event %+v", events[0])
	}
	if ft.count("a.tool") != 1 {
		t.Fatalf("the phase with the changed artifact did not run again: %v", ft.calls)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "out.txt"))
	if string(b) != "label=x\n" {
		t.Fatalf("artifact not regenerated: %q", b)
	}
	// A missing artifact is a change too.
	if err := os.Remove(filepath.Join(dir, "answer.txt")); err != nil {
		t.Fatal(err)
	}
	st, _ := LoadState(nil, root, res.RunID)
	r := &runner{w: w, st: st, root: root, opts: opts}
	r.verify()
	if st.Phases[0].Status != PhasePassed || st.Phases[1].Status != PhasePending || st.Phases[2].Status != PhasePending {
		t.Fatalf("verify did not reset from the phase with the missing artifact: %+v", st.Phases)
	}
	// So is a missing handed-over file (its content may change, it may not go).
	if err := os.Remove(filepath.Join(dir, "draft.txt")); err != nil {
		t.Fatal(err)
	}
	r.verify()
	if st.Phases[0].Status != PhasePending || !strings.Contains(st.Phases[0].Message, "draft.txt is missing") {
		t.Fatalf("verify did not reset the phase whose handoff is missing: %+v", st.Phases[0])
	}
}

func TestArgumentsAreCheckedAllAtOnce(t *testing.T) {
	w := testFlow()
	_, err := w.NormalizeArgs(map[string]any{"mode": "odd", "extra": 1})
	var ae *ArgsError
	if !errors.As(err, &ae) || !errors.Is(err, ErrInvalidArgs) {
		t.Fatalf("want *ArgsError, got %v", err)
	}
	joined := strings.Join(ae.Problems, "\n")
	for _, want := range []string{"extra: unknown argument", "mode: must be one of plain, fancy", "label: required"} {
		if !strings.Contains(joined, want) {
			t.Errorf("missing %q in %v", want, ae.Problems)
		}
	}
	if _, err := w.NormalizeArgs(map[string]any{"label": 3.0}); err == nil || !strings.Contains(err.Error(), "must be a string") {
		t.Fatalf("type not checked: %v", err)
	}
	got, err := w.NormalizeArgs(map[string]any{"label": "x"})
	if err != nil || got["mode"] != "plain" {
		t.Fatalf("defaults: %v %v", got, err)
	}
	// The semantic checks of a built-in workflow.
	cp, _ := Get("configure-pipeline")
	if _, err := cp.NormalizeArgs(map[string]any{"dag_file": "a", "project_dir": "b"}); err == nil || !strings.Contains(err.Error(), "exactly one of") {
		t.Fatalf("configure-pipeline: %v", err)
	}
	as, _ := Get("author-step")
	if _, err := as.NormalizeArgs(map[string]any{"producer": "A", "consumer": "B", "step_name": "bad_name"}); err == nil || !strings.Contains(err.Error(), "PascalCase") {
		t.Fatalf("author-step: %v", err)
	}
}

func TestRunIDsAndFolders(t *testing.T) {
	root := t.TempDir()
	w := testFlow()
	ft := &fakeTools{}
	opts := Options{Root: root, Caller: ft}
	for i, want := range []string{"test-flow-001", "test-flow-002"} {
		res, err := Start(context.Background(), w, map[string]any{"label": fmt.Sprint(i)}, opts)
		if err != nil || res.RunID != want {
			t.Fatalf("run %d: %v %v", i, res, err)
		}
	}
	for _, bad := range []string{"../x", "a/b", "a..b", "-x", strings.Repeat("a", 65)} {
		o := opts
		o.RunID = bad
		var idErr *runs.IDError
		if _, err := Start(context.Background(), w, map[string]any{"label": "x"}, o); !errors.As(err, &idErr) {
			t.Errorf("run id %q: want the run folder's *runs.IDError, got %v", bad, err)
		}
	}
	o := opts
	o.RunID = "test-flow-001"
	if _, err := Start(context.Background(), w, map[string]any{"label": "x"}, o); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("existing run id: %v", err)
	}
	if _, err := Resume(context.Background(), "nope", Options{Root: root, Caller: ft}); !errors.Is(err, ErrRunNotFound) {
		t.Fatalf("missing run: %v", err)
	}
	if _, err := Start(context.Background(), w, map[string]any{"label": "x"}, Options{Root: root}); err == nil {
		t.Fatal("a run without a caller started")
	}
}

func TestABusyRunIsRefused(t *testing.T) {
	root := t.TempDir()
	w := testFlow()
	res, err := Start(context.Background(), w, map[string]any{"label": "x"}, Options{Root: root, Caller: &fakeTools{}})
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := lockRun(nil, RunDir(root, res.RunID))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	_, err = Resume(context.Background(), res.RunID, Options{Root: root, Caller: &fakeTools{}, Workflows: []*Workflow{w}})
	if !errors.Is(err, ErrRunBusy) {
		t.Fatalf("want ErrRunBusy, got %v", err)
	}
}

func TestAPanickingPhaseFailsTheRun(t *testing.T) {
	w := &Workflow{Name: "boom", Description: "d", Phases: []Phase{{Name: "p", Title: "P", Gate: "g", Run: func(context.Context, *Step) error { panic("kaboom") }}}}
	res, err := Start(context.Background(), w, nil, Options{Root: t.TempDir(), Caller: &fakeTools{}})
	if err != nil || res.Status != StatusFailed || !strings.Contains(res.Reason, "kaboom") {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestBuiltinWorkflowsAreWellFormed(t *testing.T) {
	st, err := stages.Default()
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, n := range st.Names() {
		known[n] = true
	}
	if got := Names(); !reflect.DeepEqual(got, []string{"author-step", "configure-pipeline", "init-project", "new-project"}) {
		t.Fatalf("names %v", got)
	}
	for _, w := range List() {
		if err := validateWorkflow(w); err != nil {
			t.Error(err)
		}
		d := w.Describe()
		outcomes := 4
		if w.Ready != nil {
			outcomes = 5 // and incomplete
		}
		if len(d.Phases) != len(w.Phases) || len(d.Outcomes) != outcomes {
			t.Errorf("%s: description %+v", w.Name, d)
		}
		for _, p := range d.Phases {
			if p.Stage == "" || !known[p.Stage] {
				t.Errorf("%s/%s: stage %q is not a guided stage", w.Name, p.Name, p.Stage)
			}
			if p.Detail == "" || p.Gate == "" {
				t.Errorf("%s/%s: no detail or gate", w.Name, p.Name)
			}
		}
		if _, err := json.Marshal(d); err != nil {
			t.Errorf("%s: %v", w.Name, err)
		}
	}
	np, _ := Get("cursus-new-project")
	if np == nil || np.Name != "new-project" {
		t.Fatal("the file-stem name (cursus-new-project) does not resolve")
	}
	d := np.Describe()
	if !reflect.DeepEqual(d.Composes, []string{"init-project", "configure-pipeline"}) {
		t.Fatalf("composes %v", d.Composes)
	}
	if _, err := Get("nope"); !errors.Is(err, ErrUnknownWorkflow) {
		t.Fatalf("unknown workflow: %v", err)
	}
}

func TestPlaceholdersPassTheFieldDeclaration(t *testing.T) {
	one, two := 1.0, 2.0
	cases := []struct {
		f    config.Requirement
		want any
	}{
		{config.Requirement{Name: "bucket", Type: "string", Pattern: `^[a-z0-9][a-z0-9.\-]{1,61}[a-z0-9]$`}, "replace-me-bucket"},
		{config.Requirement{Name: "region", Type: "string", AllowedValues: []any{"NA", "EU"}}, "NA"},
		{config.Requirement{Name: "count", Type: "int", Min: &two}, 2},
		{config.Requirement{Name: "ratio", Type: "float", Max: &one}, 0.5},
		{config.Requirement{Name: "flag", Type: "bool"}, false},
		{config.Requirement{Name: "input_uri", Type: "string", Pattern: "^s3://"}, "s3://replace-me-bucket/input_uri/"},
		{config.Requirement{Name: "names", Type: "list"}, []any{PlaceholderMarker}},
	}
	for _, c := range cases {
		got, ok := placeholder(c.f)
		if !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v (%v), want %v", c.f.Name, got, ok, c.want)
		}
	}
	if _, ok := placeholder(config.Requirement{Name: "x", Type: "string", Pattern: "^$never"}); ok {
		t.Error("a placeholder that breaks the pattern was accepted")
	}
}

func TestObserverTravelsInTheContext(t *testing.T) {
	n := 0
	ctx := WithObserver(context.Background(), func(Event) { n++ })
	ObserverFrom(ctx)(Event{})
	if n != 1 || ObserverFrom(context.Background()) != nil {
		t.Fatal("observer not carried")
	}
}

// A workflow with a Ready hook ends incomplete (exit 0, with the reason)
// while what it made is not ready; resuming it runs the Reassess phase
// again, and the run is done once that phase says ready.
func TestIncompleteRunIsReassessedOnResume(t *testing.T) {
	root := t.TempDir()
	ready := false
	w := &Workflow{
		Name: "ready-flow", Description: "a workflow with a readiness phase",
		Phases: []Phase{
			{Name: "make", Title: "Make", Gate: "a.tool answers", Tools: []string{"a.tool"}, Run: func(ctx context.Context, s *Step) error {
				_, err := s.Require(ctx, "a.tool", map[string]any{})
				return err
			}},
			{Name: "judge", Title: "Judge", Gate: "records the verdict", Tools: []string{"b.tool"}, Reassess: true, Run: func(ctx context.Context, s *Step) error {
				if _, err := s.Require(ctx, "b.tool", map[string]any{}); err != nil {
					return err
				}
				return s.Set("ready", ready)
			}},
		},
		Ready: func(v Vars) (bool, string) {
			var ok bool
			v.Get("ready", &ok)
			return ok, "not ready: field x is a placeholder"
		},
	}
	ft := &fakeTools{}
	var events []Event
	opts := Options{Root: root, Caller: ft, Workflows: []*Workflow{w}, Observer: collect(&events)}
	res, err := Start(context.Background(), w, map[string]any{}, opts)
	if err != nil || res.Status != StatusIncomplete || res.Reason != "not ready: field x is a placeholder" || ExitCode(res.Status) != 0 || res.Resume == "" {
		t.Fatalf("start: %+v %v", res, err)
	}
	if last := events[len(events)-1]; last.Kind != "incomplete" || last.Message != res.Reason {
		t.Errorf("last event %+v", last)
	}
	d := w.Describe()
	if _, ok := d.Outcomes[StatusIncomplete]; !ok {
		t.Errorf("outcomes %v", d.Outcomes)
	}
	ready = true
	ft.reset()
	res, err = Resume(context.Background(), res.RunID, opts)
	if err != nil || res.Status != StatusDone || res.Reason != "" {
		t.Fatalf("resume: %+v %v", res, err)
	}
	if ft.count("a.tool") != 0 || ft.count("b.tool") != 1 {
		t.Errorf("on resume only the reassessed phase runs: %v", ft.calls)
	}
	if _, err := Resume(context.Background(), res.RunID, opts); !errors.Is(err, ErrRunFinished) {
		t.Errorf("a done run does not resume: %v", err)
	}
}

func TestSpliceCustomSteps(t *testing.T) {
	scaffold := DAG{
		Nodes: []string{"Load_training", "Prep_training", "Own_training", "Train", "Load_calibration", "Prep_calibration", "Own_calibration", "Eval_calibration"},
		Edges: [][]string{{"Load_training", "Prep_training"}, {"Prep_training", "Own_training"}, {"Own_training", "Train"},
			{"Load_calibration", "Prep_calibration"}, {"Prep_calibration", "Own_calibration"}, {"Own_calibration", "Eval_calibration"}, {"Train", "Eval_calibration"}},
	}
	full := DAG{Nodes: []string{"Cradle_training", "Prep_training", "Train", "Prep_calibration", "Eval_calibration", "Package"},
		Edges: [][]string{{"Cradle_training", "Prep_training"}, {"Prep_training", "Train"}, {"Prep_calibration", "Eval_calibration"}, {"Train", "Eval_calibration"}, {"Train", "Package"}}}
	got, ok := spliceCustomSteps(full, scaffold, []string{"Own"})
	want := DAG{Nodes: append(append([]string{}, full.Nodes...), "Own_training", "Own_calibration"),
		Edges: [][]string{{"Cradle_training", "Prep_training"}, {"Train", "Eval_calibration"}, {"Train", "Package"},
			{"Prep_training", "Own_training"}, {"Own_training", "Train"}, {"Prep_calibration", "Own_calibration"}, {"Own_calibration", "Eval_calibration"}}}
	if !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("both branches:\n got  %v\n want %v", got, want)
	}
	// A training-only DAG: the calibration branch's own node is left out.
	simple := DAG{Nodes: []string{"Load_training", "Prep_training", "Train"}, Edges: [][]string{{"Load_training", "Prep_training"}, {"Prep_training", "Train"}}}
	got, ok = spliceCustomSteps(simple, scaffold, []string{"Own"})
	if !ok || strings.Join(got.Nodes, ",") != "Load_training,Prep_training,Train,Own_training" || len(got.Edges) != 3 {
		t.Errorf("training only: %v %v", got, ok)
	}
	// No place: the neighbours are there but not their edge, or none is.
	if _, ok := spliceCustomSteps(DAG{Nodes: []string{"Prep_training", "Train"}}, scaffold, []string{"Own"}); ok {
		t.Error("no Prep_training -> Train edge to stand in")
	}
	if _, ok := spliceCustomSteps(DAG{Nodes: []string{"Other"}}, scaffold, []string{"Own"}); ok {
		t.Error("no neighbour at all: the project's step would drop out")
	}
}

// TestReadAnswerRecordsWhatItParsed: an answer file that is absent is
// watched; once written, ReadAnswer hands its content to the phase and
// records that content's hash (what a resume compares the file with).
func TestReadAnswerRecordsWhatItParsed(t *testing.T) {
	root := t.TempDir()
	var parsed []string
	w := &Workflow{Name: "answer-flow", Description: "one answer", Phases: []Phase{{
		Name: "ask", Title: "Ask", Gate: "answer.txt exists", Judgment: "an answer",
		Run: func(ctx context.Context, s *Step) error {
			found, err := s.ReadAnswer(s.RunPath("answer.txt"), func(b []byte) error { parsed = append(parsed, string(b)); return nil })
			if err != nil || found {
				return err
			}
			return &Judgment{Reason: "needs an answer", ActionItems: []string{"write answer.txt"}}
		},
	}}}
	opts := Options{Root: root, Caller: &fakeTools{}, Workflows: []*Workflow{w}}
	res, err := Start(context.Background(), w, nil, opts)
	if err != nil || res.Status != StatusStopped {
		t.Fatalf("start: %+v %v", res, err)
	}
	answer := filepath.Join(RunDir(root, res.RunID), "answer.txt")
	if err := os.WriteFile(answer, []byte("first"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res, err = Resume(context.Background(), res.RunID, opts); err != nil || res.Status != StatusDone {
		t.Fatalf("resume with the answer: %+v %v", res, err)
	}
	st, err := LoadState(nil, root, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	want := Artifact{Path: "runs/" + res.RunID + "/answer.txt", Kind: ArtifactOutput, SHA256: hashBytes([]byte("first"))}
	if got := st.Phases[0].Artifacts; len(got) != 1 || got[0] != want {
		t.Fatalf("artifacts %+v, want [%+v]", got, want)
	}
	if !reflect.DeepEqual(parsed, []string{"first"}) {
		t.Fatalf("parsed %q", parsed)
	}
}
