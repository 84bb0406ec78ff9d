package cursus_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/engine/localrun"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/testenv"
	"github.com/cursus-go/cursus/registry"
)

var update = flag.Bool("update", false, "rewrite what the tests compare with: testdata/golden-path.txt (TestGoldenPath), docs/tools.md (TestToolsDocUpToDate)")

// The golden path: a new user's problem, taken from tools.help to a
// pipeline that runs, by an agent that follows only the answers.
const goldenProblem = "XGBoost on my CSV at s3://my-bucket/fraud/train.csv, label `is_fraud`, evaluate, calibrate, register"

// stated are the facts the problem itself states, by the argument or
// field name the tools ask for them under. The label goes by the two names
// the steps use for it.
var stated = map[string]any{
	"framework":   "xgboost",
	"need":        goldenProblem,
	"data_source": "s3://my-bucket/fraud/train.csv",
	"bucket":      "my-bucket",
	"label_name":  "is_fraud",
	"label_field": "is_fraud",
}

// answers are what the user answers when a tool asks (a field listed in
// essential_fields): who they are and where the pipeline runs, the CSV's
// other columns and the kind of label, the registry's metadata and the
// endpoint's load. No tool can know them; each must have been asked for.
var answers = map[string]any{
	"author":                     "alice",
	"role":                       "arn:aws:iam::123456789012:role/SageMakerRole",
	"region":                     "NA",
	"service_name":               "fraud",
	"pipeline_version":           "1.0.0",
	"project_root_folder":        "fraud",
	"tab_field_list":             []any{"amount", "account_age_days", "num_prior_txns"},
	"cat_field_list":             []any{"country", "merchant_type"},
	"objective":                  "binary:logistic",
	"id_name":                    "transaction_id",
	"model_owner":                "fraud-team",
	"model_domain":               "payments",
	"model_objective":            "flag fraudulent transactions",
	"expected_tps":               2,
	"max_latency_in_millisecond": 800,
}

// goldenPlan is the agent's choice at each call, after tools.help {}: the
// tool it picks among the previous answer's next_steps.
var goldenPlan = []string{
	"pipeline_catalog.recommend",
	"pipeline_catalog.config_guidance",
	"config.template",
	"config.merge_save",
	"compile.validate",
	"compile.definition",
	"execution.run_local",
}

const maxGoldenCalls = 10

// TestGoldenPath plays a new user's agent: it starts at tools.help {},
// takes each next call from the previous answer's next_steps (the tool
// and its args_hint), fills a "<...>" placeholder under key K with the
// user's fact K and each path an answer's essential_fields lists with the
// user's answer for that field, and nothing else. In at most
// maxGoldenCalls calls the fraud problem must reach a deployable
// definition (no blockers) that execution.run_local runs to the end on
// generated data: every step succeeded or substituted, the model archive
// written. The calls and a line on each answer are
// testdata/golden-path.txt (go test -run TestGoldenPath -update).
func TestGoldenPath(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a ten-step pipeline")
	}
	testenv.Need(t, localrun.Ready("pandas", "sklearn", "xgboost"))
	root := t.TempDir()
	ctx := cursus.WithPolicy(context.Background(), registry.Policy{ProjectRoot: root, AllowDestructive: true, AllowScriptExec: true})
	a := &goldenAgent{t: t, ctx: ctx, root: root, asked: map[string]bool{}}

	res := a.call("tools.help", map[string]any{}, "the front door")
	for _, tool := range goldenPlan {
		res = a.follow(res, tool)
	}
	if len(a.calls) > maxGoldenCalls {
		t.Errorf("%d calls, at most %d", len(a.calls), maxGoldenCalls)
	}

	for _, tool := range []string{"compile.validate", "compile.definition"} {
		if d := a.last[tool].Data.(map[string]any); d["deployable"] != true || len(d["blockers"].([]any)) != 0 {
			t.Errorf("%s: deployable %v, blockers %v", tool, d["deployable"], d["blockers"])
		}
	}
	rep := report(t, res)
	if !rep.Succeeded {
		t.Fatalf("execution.run_local did not run to the end: %+v", rep.Failed)
	}
	archive := ""
	for _, s := range rep.Steps {
		t.Logf("run_local %-32s %-11s %6.2fs", s.Name, s.Status, s.DurationSeconds)
	}
	t.Logf("run_local jobs %.2fs, runner overhead %.2fs", rep.JobSeconds, rep.OverheadSeconds)
	for _, s := range rep.Steps {
		if s.Status != localrun.StatusSucceeded && s.Status != localrun.StatusSubstituted {
			t.Errorf("step %s is %s", s.Name, s.Status)
		}
		if s.Type == "Training" {
			archive = s.Outputs["model_artifacts"]
		}
	}
	if st, err := os.Stat(archive); err != nil || st.Size() == 0 || filepath.Base(archive) != "model.tar.gz" {
		t.Errorf("the training step's model.tar.gz %q: %v", archive, err)
	}
	if len(rep.Generated) != 1 || rep.Generated[0].Key != stated["data_source"] {
		t.Errorf("generated data %+v, want it in place of %s", rep.Generated, stated["data_source"])
	}

	// Every answer the user gave was asked for; every fact asked for is one
	// the user has (follow fails otherwise).
	for k := range answers {
		if !a.asked[k] {
			t.Errorf("the user's answer %s was never asked for: drop it, or some answer should have asked", k)
		}
	}
	a.compare(filepath.Join("testdata", "golden-path.txt"))
	a.followEveryHint()
}

// placeholderFrom reads a placeholder that points into the answer
// ("<a namespace of data.namespaces>").
var placeholderFrom = regexp.MustCompile(`of data\.([a-z_]+)>$`)

// fill copies a hint, replacing each "<...>" placeholder under key K by
// the user's fact K. On the path (res nil) every placeholder must be one
// (a.fact fails the test otherwise). For a hint the path did not take
// (res, the answer that gave it), a placeholder that gives an example gets
// it, and one that points into the answer's data gets the first item
// there (its name, for an object), as an agent would pick one.
func (a *goldenAgent) fill(res *envelope.ToolResult, v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = a.fill(res, e, k)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = a.fill(res, e, key)
		}
		return out
	case string:
		if !strings.HasPrefix(x, "<") || !strings.HasSuffix(x, ">") {
			return v
		}
		_, isStated := stated[key]
		_, isAnswer := answers[key]
		if res == nil || isStated || isAnswer {
			return a.fact(key, "the hint "+x)
		}
		if m := placeholderExample.FindStringSubmatch(x); m != nil {
			return m[1]
		}
		if m := placeholderFrom.FindStringSubmatch(x); m != nil {
			d, _ := res.Data.(map[string]any)
			if items, _ := d[m[1]].([]any); len(items) > 0 {
				if o, ok := items[0].(map[string]any); ok {
					return o["name"]
				}
				return items[0]
			}
		}
		a.t.Errorf("the hint %s (under %q) is a placeholder neither the user nor the answer fills", x, key)
	}
	return v
}

// fillRequired sets, in a merge_save hint's base and steps, the fields an
// answer lists as required_fields ({"base": [...], "steps": {node: [...]}}):
// the values the answer told the agent to collect.
func (a *goldenAgent) fillRequired(res *envelope.ToolResult, args map[string]any) {
	a.t.Helper()
	d, _ := res.Data.(map[string]any)
	req, _ := d["required_fields"].(map[string]any)
	if req == nil || args["base"] == nil {
		return
	}
	base, _ := args["base"].(map[string]any)
	for _, f := range req["base"].([]any) {
		base[f.(string)] = a.fact(f.(string), "required field base."+f.(string))
	}
	steps, _ := args["steps"].(map[string]any)
	for node, fields := range req["steps"].(map[string]any) {
		m, _ := steps[node].(map[string]any)
		if m == nil {
			m = map[string]any{}
			steps[node] = m
		}
		for _, f := range fields.([]any) {
			m[f.(string)] = a.fact(f.(string), "required field "+node+"."+f.(string))
		}
	}
}

// placeholderExample reads a placeholder that gives an example
// ("<dotted tool name, e.g. compile.dag>").
var placeholderExample = regexp.MustCompile(`e\.g\. ([^ ,>]+)>$`)

// hintsNotCalled are tools a hint is only checked against the schema for:
// calling them would start jobs or reach AWS.
var hintsNotCalled = map[string]bool{"execution.run_local": true, "compile.dag": true}

// followEveryHint follows every next_steps entry of every answer of the
// path, not only those the path took: its args_hint, with the user's facts
// in its placeholders (and the essential fields filled where the answer
// lists them), must be a valid call of the tool it names (its schema
// accepts it), and called, the tool must not refuse its arguments
// (invalid_input or not_found). A hint is a call an agent makes as it is
// written; one that fails is a dead end. Tools that would start jobs or
// reach AWS (hintsNotCalled) are checked against the schema only.
func (a *goldenAgent) followEveryHint() {
	a.t.Helper()
	followed := 0
	for i, res := range a.answers {
		for _, ns := range res.NextSteps {
			where := fmt.Sprintf("answer %d (%s): next_steps %s", i+1, a.calls[i].tool, ns.Tool)
			def, ok := cursus.Registry().Get(ns.Tool)
			if !ok {
				a.t.Errorf("%s: no such tool", where)
				continue
			}
			args := map[string]any{}
			if h, ok := a.fill(res, ns.ArgsHint, "").(map[string]any); ok {
				args = h
			}
			if _, ok := res.Data.(map[string]any)["essential_fields"]; ok && args["base"] != nil {
				a.fillEssential(res, args)
			}
			a.fillRequired(res, args)
			errs, err := def.ValidateArgs(args)
			if err != nil {
				a.t.Fatalf("%s: %v", where, err)
			}
			for _, e := range errs {
				a.t.Errorf("%s: the args_hint is not a valid call: %s (args %s)", where, e, a.scrub(shortArgs(args)))
			}
			if len(errs) > 0 || hintsNotCalled[ns.Tool] {
				continue
			}
			got := cursus.CallTool(a.ctx, ns.Tool, args)
			followed++
			if !got.OK && (got.Code == envelope.CodeInvalidInput || got.Code == envelope.CodeNotFound) {
				a.t.Errorf("%s: followed as written, it fails: %s: %s", where, got.Code, a.scrub(got.Error))
			}
		}
	}
	if followed < len(a.answers) {
		a.t.Errorf("only %d hints were called for %d answers: the check reaches too little", followed, len(a.answers))
	}
}

type goldenCall struct {
	tool, args, from, summary string
}

type goldenAgent struct {
	t     *testing.T
	ctx   context.Context
	root  string
	calls []goldenCall
	asked map[string]bool
	last  map[string]*envelope.ToolResult // each tool's latest answer
	// answers are every answer of the path, in order.
	answers []*envelope.ToolResult
}

// follow makes the next call: tool must be one of prev's next_steps; its
// args are the step's args_hint with the user's facts filled in.
func (a *goldenAgent) follow(prev *envelope.ToolResult, tool string) *envelope.ToolResult {
	a.t.Helper()
	var offered []string
	for _, ns := range prev.NextSteps {
		offered = append(offered, ns.Tool)
		if ns.Tool != tool {
			continue
		}
		args := a.fill(nil, ns.ArgsHint, "")
		a.fillEssential(prev, args)
		return a.call(tool, args, fmt.Sprintf("next_steps of call %d", len(a.calls)))
	}
	if prev.Remedy != nil && slices.Contains(prev.Remedy.SuggestedTools, tool) {
		a.t.Fatalf("call %d: %s is offered only by the remedy of a failure (%s): the path should not fail", len(a.calls)+1, tool, prev.Error)
	}
	a.t.Fatalf("call %d: %s is not among the previous answer's next_steps %v", len(a.calls)+1, tool, offered)
	return nil
}

// fillEssential sets each path of prev's data.essential_fields
// (base.<field>, <node>.<field>) in args' base and steps.
func (a *goldenAgent) fillEssential(prev *envelope.ToolResult, args any) {
	a.t.Helper()
	d, _ := prev.Data.(map[string]any)
	paths, _ := d["essential_fields"].([]any)
	m, _ := args.(map[string]any)
	for _, pv := range paths {
		p, _ := pv.(string)
		node, field, _ := strings.Cut(p, ".")
		var target map[string]any
		if node == "base" {
			target, _ = m["base"].(map[string]any)
		} else {
			steps, _ := m["steps"].(map[string]any)
			target, _ = steps[node].(map[string]any)
		}
		if target == nil {
			a.t.Fatalf("essential field %s: the args_hint has no place for it", p)
		}
		if target[field] != nil {
			a.t.Fatalf("essential field %s: the args_hint already holds %v", p, target[field])
		}
		target[field] = a.fact(field, "essential field "+p)
	}
}

func (a *goldenAgent) fact(key, why string) any {
	a.t.Helper()
	if v, ok := stated[key]; ok {
		return v
	}
	if v, ok := answers[key]; ok {
		a.asked[key] = true
		return v
	}
	a.t.Fatalf("%s asks for %q, which the user neither stated nor can answer: the tool should fill it", why, key)
	return nil
}

// call calls a tool and returns its answer as a client sees it (decoded
// from the envelope's JSON).
func (a *goldenAgent) call(tool string, args any, from string) *envelope.ToolResult {
	a.t.Helper()
	res := roundTrip(a.t, cursus.CallTool(a.ctx, tool, args))
	a.calls = append(a.calls, goldenCall{tool: tool, args: a.scrub(shortArgs(args)), from: from, summary: a.scrub(summarize(a.t, tool, res))})
	if a.last == nil {
		a.last = map[string]*envelope.ToolResult{}
	}
	a.last[tool] = res
	a.answers = append(a.answers, res)
	if !res.OK {
		a.t.Fatalf("call %d %s failed: %s: %s (remedy %+v)", len(a.calls), tool, res.Code, res.Error, res.Remedy)
	}
	return res
}

func roundTrip(t *testing.T, res *envelope.ToolResult) *envelope.ToolResult {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back envelope.ToolResult
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}

// report decodes execution.run_local's answer.
func report(t *testing.T, res *envelope.ToolResult) *localrun.Report {
	t.Helper()
	b, err := json.Marshal(res.Data)
	if err != nil {
		t.Fatal(err)
	}
	var rep localrun.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return &rep
}

// jsonText is v as JSON, HTML characters as they are.
func jsonText(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSpace(b.String())
}

func (a *goldenAgent) scrub(s string) string { return strings.ReplaceAll(s, a.root, "<root>") }

// shortArgs is the call's arguments as JSON, an inline DAG and the
// merge_save skeletons shortened to what the agent put in them.
func shortArgs(args any) string {
	m, ok := args.(map[string]any)
	if !ok {
		return jsonText(args)
	}
	out := map[string]any{}
	for k, v := range m {
		switch k {
		case "dag":
			nodes, _ := v.(map[string]any)["nodes"].([]any)
			out[k] = fmt.Sprintf("<inline DAG of %d nodes, from the hint>", len(nodes))
		case "base", "steps":
			out[k] = "<merge_save_args from the hint, essential fields filled>"
		default:
			out[k] = v
		}
	}
	return jsonText(out)
}

// summarize is one line on an answer: what an agent takes from it.
func summarize(t *testing.T, tool string, res *envelope.ToolResult) string {
	if !res.OK {
		return fmt.Sprintf("FAILED %s: %s", res.Code, res.Error)
	}
	var next []string
	for _, ns := range res.NextSteps {
		next = append(next, ns.Tool)
	}
	tail := "; next_steps: " + strings.Join(next, ", ")
	d, _ := res.Data.(map[string]any)
	switch tool {
	case "tools.help":
		return fmt.Sprintf("the index of %d namespaces", len(d["namespaces"].([]any))) + tail
	case "pipeline_catalog.recommend":
		recs, _ := json.Marshal(d["recommendations"])
		var rs []struct {
			DagID string `json:"dag_id"`
		}
		if err := json.Unmarshal(recs, &rs); err != nil || len(rs) == 0 {
			t.Fatalf("recommendations %s: %v", recs, err)
		}
		return fmt.Sprintf("top %s, data_source %v", rs[0].DagID, d["data_source"]) + tail
	case "pipeline_catalog.config_guidance":
		rf, _ := d["required_fields"].(map[string]any)
		return fmt.Sprintf("%v required fields for %v", rf["count"], d["dag_id"]) + tail
	case "config.template":
		var ess []string
		for _, e := range d["essential_fields"].([]any) {
			ess = append(ess, e.(string))
		}
		return fmt.Sprintf("%d essential fields to fill: %s", len(ess), strings.Join(ess, ", ")) + tail
	case "config.merge_save":
		return fmt.Sprintf("wrote %v configs to %v", d["config_count"], d["path"]) + tail
	case "compile.validate":
		return fmt.Sprintf("valid %v, deployable %v, %d blockers, %d warnings", d["is_valid"], d["deployable"], blockerCount(d["blockers"]), len(res.Warnings)) + tail
	case "compile.definition":
		return fmt.Sprintf("%v steps, deployable %v, %d blockers", d["step_count"], d["deployable"], blockerCount(d["blockers"])) + tail
	case "execution.run_local":
		rep := report(t, res)
		counts := map[string]int{}
		for _, s := range rep.Steps {
			counts[s.Status]++
		}
		var parts []string
		for _, st := range []string{localrun.StatusSucceeded, localrun.StatusSubstituted, localrun.StatusFailed, localrun.StatusSkipped} {
			if counts[st] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", counts[st], st))
			}
		}
		var gen []string
		for _, g := range rep.Generated {
			gen = append(gen, fmt.Sprintf("%s (%d rows: %s)", g.Key, g.Rows, strings.Join(g.Columns, ",")))
		}
		return fmt.Sprintf("%d steps in %s: %s; generated %s", len(rep.Steps), rep.Sandbox, strings.Join(parts, ", "), strings.Join(gen, "; ")) + tail
	}
	return "ok" + tail
}

func blockerCount(v any) int {
	b, _ := json.Marshal(v)
	var l []any
	_ = json.Unmarshal(b, &l)
	return len(l)
}

func (a *goldenAgent) compare(golden string) {
	a.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "# The golden path (TestGoldenPath): %d calls from tools.help to a local run.\n", len(a.calls))
	fmt.Fprintf(&b, "# Problem: %s\n", goldenProblem)
	fmt.Fprintf(&b, "# Stated in it: %s\n", factList(stated))
	fmt.Fprintf(&b, "# Answered when asked: %s\n\n", factList(answers))
	for i, c := range a.calls {
		fmt.Fprintf(&b, "%d. %s %s\n   (from %s)\n   -> %s\n", i+1, c.tool, c.args, c.from, c.summary)
	}
	got := b.String()
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			a.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		a.t.Fatalf("%v (go test -run TestGoldenPath -update writes it)", err)
	}
	if string(want) != got {
		a.t.Errorf("the golden path changed; review and rerun with -update.\n--- got:\n%s\n--- want:\n%s", got, want)
	}
}

func factList(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + jsonText(m[k])
	}
	return strings.Join(parts, ", ")
}
