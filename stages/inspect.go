package stages

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/internal/safefs"
)

// CheckResult is the outcome of one completion check.
type CheckResult struct {
	// Check is the check kind.
	Check string `json:"check"`
	// Tool is the report a report check read.
	Tool string `json:"tool,omitempty"`
	// Passed reports whether the check holds.
	Passed bool `json:"passed"`
	// Detail says what holds, or what is missing and how to get it.
	Detail string `json:"detail"`
}

// StageStatus is the completion state of one stage of the sequence.
type StageStatus struct {
	Name string `json:"name"`
	// Complete reports whether every completion check passes now.
	Complete bool          `json:"complete"`
	Checks   []CheckResult `json:"checks"`
	// Missing lists the details of the failing checks.
	Missing []string `json:"missing,omitempty"`
	// LastCompleted is the last time the stage was recorded as completed.
	LastCompleted time.Time `json:"last_completed,omitzero"`
}

// Status is what Inspect finds in a run folder.
type Status struct {
	RunID     string        `json:"run_id"`
	Dir       string        `json:"run_dir"`
	Artifacts []Artifact    `json:"artifacts"`
	Stages    []StageStatus `json:"stages"`
	// Completed is the completion history of run.json.
	Completed []Completion `json:"completed"`
	// Next is the first stage of the sequence whose test fails; "" when Done.
	Next string `json:"next_stage"`
	// Done reports whether every stage of the sequence is complete.
	Done bool `json:"done"`
	// UnknownSteps are DAG nodes whose step type the catalog does not know.
	UnknownSteps []catalog.NodeName `json:"unknown_steps,omitempty"`
}

// Stage returns the status of one stage.
func (s *Status) Stage(name string) (StageStatus, bool) {
	for _, st := range s.Stages {
		if st.Name == name {
			return st, true
		}
	}
	return StageStatus{}, false
}

// Inspect evaluates every stage of the sequence on the run's artifacts and
// picks the next stage.
func (s *Set) Inspect(ctx context.Context, r *Run) (*Status, error) {
	state, err := r.State()
	if err != nil {
		return nil, err
	}
	ev := newEvaluator(r)
	// Lists are empty, never nil: the status is answered as JSON, where
	// workflow.status' schema has them as arrays.
	out := &Status{RunID: r.ID, Dir: r.Dir, Artifacts: r.Artifacts(), Completed: state.Completed, Stages: []StageStatus{}}
	if out.Completed == nil {
		out.Completed = []Completion{}
	}
	last := map[string]time.Time{}
	for _, c := range state.Completed {
		last[c.Stage] = c.At
	}
	for _, name := range s.sequence {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		st := s.byName[name]
		ss := StageStatus{Name: name, Complete: true, LastCompleted: last[name], Checks: []CheckResult{}}
		for _, c := range st.Completion {
			res := ev.run(c)
			ss.Checks = append(ss.Checks, res)
			if !res.Passed {
				ss.Complete = false
				ss.Missing = append(ss.Missing, res.Detail)
			}
		}
		if !ss.Complete && out.Next == "" {
			out.Next = name
		}
		out.Stages = append(out.Stages, ss)
	}
	out.Done = out.Next == ""
	if ev.dagErr == nil && ev.d != nil {
		out.UnknownSteps = ev.unknownSteps()
	}
	return out, nil
}

// Evaluate runs one stage's completion test on the run. The hub passes
// vacuously (it has no test).
func (s *Set) Evaluate(ctx context.Context, r *Run, stage string) ([]CheckResult, bool, error) {
	st, err := s.Lookup(stage)
	if err != nil {
		return nil, false, err
	}
	ev := newEvaluator(r)
	ok := true
	out := []CheckResult{}
	for _, c := range st.Completion {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		res := ev.run(c)
		out = append(out, res)
		ok = ok && res.Passed
	}
	return out, ok, nil
}

// evaluator loads each input once per inspection.
type evaluator struct {
	r *Run

	dagLoaded bool
	d         *dag.PipelineDAG
	dagErr    error

	catLoaded bool
	cat       *catalog.Catalog
	catErr    error
}

func newEvaluator(r *Run) *evaluator { return &evaluator{r: r} }

func (e *evaluator) dag() (*dag.PipelineDAG, error) {
	if !e.dagLoaded {
		e.dagLoaded = true
		e.d, _, e.dagErr = dag.ReadFile(e.r.fs, e.r.DAGPath())
	}
	return e.d, e.dagErr
}

// catalog is the embedded catalog plus the run's steps/ workspace when it
// holds step files.
func (e *evaluator) catalog() (*catalog.Catalog, error) {
	if !e.catLoaded {
		e.catLoaded = true
		if e.hasStepFiles(e.r.StepsPath()) {
			e.cat, e.catErr = catalog.Load(e.r.fs, e.r.StepsPath())
		} else {
			e.cat, e.catErr = catalog.Default()
		}
	}
	return e.cat, e.catErr
}

func (e *evaluator) hasStepFiles(dir string) bool {
	ents, _ := e.r.fs.ReadDir(dir)
	for _, en := range ents {
		if !en.IsDir() && strings.HasSuffix(en.Name(), catalog.StepFileSuffix) {
			return true
		}
	}
	return false
}

func (e *evaluator) run(c Check) CheckResult {
	res := CheckResult{Check: c.Kind, Tool: c.Tool}
	var err error
	switch c.Kind {
	case CheckDAGValid:
		res.Detail, err = e.dagValid()
	case CheckStepsKnown:
		res.Detail, err = e.stepsKnown()
	case CheckConfigResolves:
		res.Detail, err = e.configResolves()
	case CheckReport:
		res.Detail, err = e.report(c)
	case CheckDefinition:
		res.Detail, err = e.definition()
	default:
		err = fmt.Errorf("unknown check %q", c.Kind)
	}
	if err != nil {
		res.Detail = err.Error()
		return res
	}
	res.Passed = true
	return res
}

func (e *evaluator) loadDAG() (*dag.PipelineDAG, error) {
	d, err := e.dag()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s is missing: save the DAG there (dag.serialize with path)", DAGFile)
	}
	if err != nil {
		return nil, fmt.Errorf("%s cannot be read as a DAG: %v", DAGFile, err)
	}
	return d, nil
}

func (e *evaluator) dagValid() (string, error) {
	d, err := e.loadDAG()
	if err != nil {
		return "", err
	}
	if d.NodeCount() == 0 {
		return "", fmt.Errorf("%s has no node", DAGFile)
	}
	issues := d.Validate(dag.ValidateOptions{MaxCycles: 3})
	if !issues.Valid() {
		var parts []string
		for _, cat := range issues.Categories() {
			msgs := issues[cat]
			if len(msgs) > 3 {
				msgs = append(msgs[:3:3], fmt.Sprintf("and %d more", len(issues[cat])-3))
			}
			parts = append(parts, cat+": "+strings.Join(msgs, "; "))
		}
		return "", fmt.Errorf("%s is not a valid DAG: %s", DAGFile, strings.Join(parts, " | "))
	}
	return fmt.Sprintf("%s: %d nodes, %d edges, no cycle", DAGFile, d.NodeCount(), d.EdgeCount()), nil
}

func (e *evaluator) unknownSteps() []catalog.NodeName {
	d, err := e.dag()
	if err != nil {
		return nil
	}
	cat, err := e.catalog()
	if err != nil {
		return nil
	}
	var out []catalog.NodeName
	for _, n := range d.Nodes() {
		if _, _, ok := cat.ResolveNode(n); !ok {
			out = append(out, n)
		}
	}
	return out
}

func (e *evaluator) stepsKnown() (string, error) {
	d, err := e.loadDAG()
	if err != nil {
		return "", err
	}
	cat, err := e.catalog()
	if err != nil {
		return "", fmt.Errorf("the step files in %s do not load: %v", StepsDir+"/", err)
	}
	var unknown []string
	for _, n := range d.Nodes() {
		if _, _, ok := cat.ResolveNode(n); !ok {
			hint := ""
			if c := cat.Closest(string(n), 1); len(c) > 0 {
				hint = fmt.Sprintf(" (closest known: %s)", c[0])
			}
			unknown = append(unknown, string(n)+hint)
		}
	}
	if len(unknown) > 0 {
		return "", fmt.Errorf("step types unknown to the catalog: %s; author them in %s/ or rename the nodes", strings.Join(unknown, ", "), StepsDir)
	}
	return fmt.Sprintf("all %d nodes name known step types", d.NodeCount()), nil
}

func (e *evaluator) configResolves() (string, error) {
	d, err := e.loadDAG()
	if err != nil {
		return "", err
	}
	if _, err := e.r.fs.Stat(e.r.ConfigPath()); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s is missing: write it with config.merge_save (output_file)", ConfigFile)
	}
	cat, err := e.catalog()
	if err != nil {
		return "", fmt.Errorf("the step catalog does not load: %v", err)
	}
	schema, err := config.FromCatalog(cat)
	if err != nil {
		return "", fmt.Errorf("config classes: %v", err)
	}
	set, err := config.Load(e.r.fs, schema, e.r.ConfigPath())
	if err != nil {
		return "", fmt.Errorf("%s does not load: %v", ConfigFile, err)
	}
	if _, err := set.Resolve(d.Nodes(), config.ResolveOptions{}); err != nil {
		return "", fmt.Errorf("%s does not give every DAG node a config: %v", ConfigFile, err)
	}
	return fmt.Sprintf("%s: %d configs, every one of the %d nodes resolves", ConfigFile, set.Len(), d.NodeCount()), nil
}

// modTime is the modification time of a file, or the zero time.
func (e *evaluator) modTime(path string) time.Time {
	st, err := e.r.fs.Stat(path)
	if err != nil {
		return time.Time{}
	}
	return st.ModTime()
}

func (e *evaluator) report(c Check) (string, error) {
	rep, err := e.r.ReadReport(c.Tool)
	if errors.Is(err, ErrNoReport) {
		return "", fmt.Errorf("no %s report: call %s on the run's DAG and config in this stage", c.Tool, c.Tool)
	}
	if err != nil {
		return "", err
	}
	p, _ := e.r.ReportPath(c.Tool)
	written := e.modTime(p)
	for _, in := range []struct{ name, path string }{{DAGFile, e.r.DAGPath()}, {ConfigFile, e.r.ConfigPath()}} {
		if m := e.modTime(in.path); !m.IsZero() && written.Before(m) {
			return "", fmt.Errorf("the %s report is stale: %s changed after it; call %s again", c.Tool, in.name, c.Tool)
		}
	}
	if err := e.aboutRun(rep); err != nil {
		return "", fmt.Errorf("the %s report is not about this run: %v; call it with the run's files", c.Tool, err)
	}
	var env struct {
		OK    bool           `json:"ok"`
		Error string         `json:"error"`
		Code  string         `json:"code"`
		Data  map[string]any `json:"data"`
	}
	if err := json.Unmarshal(rep.Result, &env); err != nil {
		return "", fmt.Errorf("the %s report has no result envelope: %v", c.Tool, err)
	}
	if !env.OK {
		return "", fmt.Errorf("%s failed (%s): %s", c.Tool, env.Code, env.Error)
	}
	for _, f := range c.Require {
		v, ok := lookupPath(env.Data, f)
		if b, isBool := v.(bool); !ok || !isBool || !b {
			return "", fmt.Errorf("%s reports %s = %v, want true%s", c.Tool, f, render(v, ok), summarizeProblems(env.Data))
		}
	}
	return fmt.Sprintf("%s passed (recorded %s)", c.Tool, rep.RecordedAt.UTC().Format(time.RFC3339)), nil
}

func render(v any, ok bool) string {
	if !ok {
		return "absent"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// summarizeProblems names the non-empty problem lists of a validation
// result, so a failing check says what to fix.
func summarizeProblems(data map[string]any) string {
	var parts []string
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch v := data[k].(type) {
		case []any:
			if len(v) > 0 && (strings.Contains(k, "issue") || strings.Contains(k, "missing") || strings.Contains(k, "error") || strings.Contains(k, "unresolv")) {
				parts = append(parts, fmt.Sprintf("%s: %d", k, len(v)))
			}
		case map[string]any:
			if len(v) > 0 && (strings.Contains(k, "issue") || strings.Contains(k, "error")) {
				parts = append(parts, fmt.Sprintf("%s: %s", k, strings.Join(slices.Sorted(maps.Keys(v)), ", ")))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

func lookupPath(m map[string]any, path string) (any, bool) {
	var cur any = m
	for _, p := range strings.Split(path, ".") {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = mm[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// aboutRun checks that a report's arguments name the run's DAG and config:
// every file argument must be the run's file, an inline DAG must equal the
// run's DAG, and at least one of them must be given.
func (e *evaluator) aboutRun(rep *Report) error {
	var args map[string]any
	if len(rep.Args) > 0 {
		if err := json.Unmarshal(rep.Args, &args); err != nil {
			return fmt.Errorf("arguments are not a JSON object")
		}
	}
	matched := 0
	abs := func(p string) string {
		if !filepath.IsAbs(p) {
			p = filepath.Join(rep.WorkDir, p)
		}
		return canonical(p)
	}
	for _, k := range []string{"config_file", "config_path"} {
		if p, ok := args[k].(string); ok && p != "" {
			if abs(p) != canonical(e.r.ConfigPath()) {
				return fmt.Errorf("%s is %s, not %s", k, p, e.r.ConfigPath())
			}
			matched++
		}
	}
	if p, ok := args["dag_file"].(string); ok && p != "" {
		if abs(p) != canonical(e.r.DAGPath()) {
			return fmt.Errorf("dag_file is %s, not %s", p, e.r.DAGPath())
		}
		matched++
	}
	var inline map[string]any
	if m, ok := args["dag"].(map[string]any); ok {
		inline = m
		if inner, ok := m["dag"].(map[string]any); ok {
			inline = inner
		}
	} else if _, ok := args["nodes"]; ok {
		inline = args
	}
	if inline != nil {
		d, err := e.loadDAG()
		if err != nil {
			return err
		}
		if !sameGraph(inline, d) {
			return fmt.Errorf("the inline DAG differs from %s", DAGFile)
		}
		matched++
	}
	if matched == 0 {
		return fmt.Errorf("the call named neither the run's DAG nor its config")
	}
	return nil
}

func canonical(p string) string {
	p = filepath.Clean(p)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	if real, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(real, filepath.Base(p))
	}
	return p
}

// sameGraph compares an inline {"nodes", "edges"} with a DAG as sets.
func sameGraph(inline map[string]any, d *dag.PipelineDAG) bool {
	nodes, _ := inline["nodes"].([]any)
	want := map[catalog.NodeName]bool{}
	for _, n := range d.Nodes() {
		want[n] = true
	}
	got := map[catalog.NodeName]bool{}
	for _, n := range nodes {
		s, ok := n.(string)
		if !ok || !want[catalog.NodeName(s)] {
			return false
		}
		got[catalog.NodeName(s)] = true
	}
	if len(got) != len(want) {
		return false
	}
	wantE := map[dag.Edge]bool{}
	for _, e := range d.Edges() {
		wantE[e] = true
	}
	gotE := map[dag.Edge]bool{}
	edges, _ := inline["edges"].([]any)
	for _, e := range edges {
		pair, ok := e.([]any)
		if !ok || len(pair) != 2 {
			return false
		}
		a, _ := pair[0].(string)
		b, _ := pair[1].(string)
		k := dag.Edge{From: catalog.NodeName(a), To: catalog.NodeName(b)}
		if !wantE[k] {
			return false
		}
		gotE[k] = true
	}
	return len(gotE) == len(wantE)
}

func (e *evaluator) definition() (string, error) {
	b, err := e.r.fs.ReadFile(e.r.DefinitionPath(), safefs.KindDocument)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s is missing: compile.definition on the run's DAG and config saves it", DefinitionFile)
	}
	if err != nil {
		return "", err
	}
	var def struct {
		Version string            `json:"Version"`
		Steps   []json.RawMessage `json:"Steps"`
	}
	if err := json.Unmarshal(b, &def); err != nil {
		return "", fmt.Errorf("%s is not a pipeline definition: %v", DefinitionFile, err)
	}
	if def.Version == "" || len(def.Steps) == 0 {
		return "", fmt.Errorf("%s is not a pipeline definition (no Version or no Steps)", DefinitionFile)
	}
	written := e.modTime(e.r.DefinitionPath())
	for _, in := range []struct{ name, path string }{{DAGFile, e.r.DAGPath()}, {ConfigFile, e.r.ConfigPath()}} {
		m := e.modTime(in.path)
		if m.IsZero() {
			return "", fmt.Errorf("%s is missing, so %s cannot be current", in.name, DefinitionFile)
		}
		if written.Before(m) {
			return "", fmt.Errorf("%s is stale: %s changed after it; compile again", DefinitionFile, in.name)
		}
	}
	return fmt.Sprintf("%s: %d steps (definition version %s)", DefinitionFile, len(def.Steps), def.Version), nil
}
