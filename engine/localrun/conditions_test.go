package localrun

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler"
)

// gated is a pipeline whose Eval step writes a metrics report (its
// property file) that a Condition reads: IfSteps hold After (and, when
// nested, a second Condition guarding Inner), ElseSteps a Fail step.
func gated(t *testing.T, nested bool) *pipeline {
	p := newPipeline(t)
	p.params = []compiler.Parameter{prefixParam(), {Name: "Threshold", Type: "Float", DefaultValue: 0.7}}
	p.script("s3://bucket/code/eval.py", "eval.py", "import json\njson.dump({'auc': 0.8, 'task': 'binary', 'per_class': [{'f1': 0.4}]}, open('/opt/ml/processing/output/metrics/metrics.json', 'w'))\n")
	p.script("s3://bucket/code/ok.py", "ok.py", "open('/opt/ml/processing/output/o/x', 'w').write('1')\n")
	eval := strings.TrimSuffix(processing("Eval", "eval.py", nil, []string{"metrics"}, nil, nil), "}") +
		`, "PropertyFiles": [{"PropertyFileName": "Report", "OutputName": "metrics", "FilePath": "metrics.json"}]}`
	p.step(eval)
	report := `{"Std:JsonGet": {"PropertyFile": {"Get": "Steps.Eval.PropertyFiles.Report"}, "Path": "auc"}}`
	ifSteps := processing("After", "ok.py", nil, []string{"o"}, nil, nil)
	if nested {
		ifSteps += `, {"Name": "Inner", "Type": "Condition", "Arguments": {"Conditions": [{"Type": "Equals", "LeftValue": {"Std:JsonGet": {"PropertyFile": {"Get": "Steps.Eval.PropertyFiles.Report"}, "Path": "task"}}, "RightValue": "binary"}],
			"IfSteps": [` + processing("InnerStep", "ok.py", [][3]string{{"in", outGet("After", "o"), "/opt/ml/processing/input/in"}}, []string{"o"}, nil, nil) + `], "ElseSteps": []}}`
	}
	p.step(`{"Name": "Gate", "Type": "Condition", "Arguments": {
		"Conditions": [{"Type": "GreaterThanOrEqualTo", "LeftValue": ` + report + `, "RightValue": {"Get": "Parameters.Threshold"}}],
		"IfSteps": [` + ifSteps + `],
		"ElseSteps": [{"Name": "Gate-Fail", "Type": "Fail", "Arguments": {"ErrorMessage": {"Std:Join": {"On": " ", "Values": ["AUC", ` + report + `, "is below", {"Get": "Parameters.Threshold"}]}}}}]}}`)
	return p
}

func stepList(rep *Report) []string {
	var out []string
	for _, s := range rep.Steps {
		out = append(out, s.Name)
	}
	return out
}

// The local run follows the gate: the if-branch runs when the condition
// holds; otherwise the Fail step ends the run, failed, with its message.
// The branch not taken is not among the steps; Branches says what ran.
func TestConditionTakesABranch(t *testing.T) {
	needPython(t)
	rep := gated(t, false).run(Options{})
	if !rep.Succeeded {
		t.Fatalf("pass: %+v", rep.Failed)
	}
	if got := stepList(rep); !slices.Equal(got, []string{"Eval", "Gate", "After"}) {
		t.Fatalf("pass: steps %v", got)
	}
	g := wantStatus(t, rep, "Gate", StatusSucceeded)
	if g.Outcome == nil || !*g.Outcome || len(g.Checks) != 1 || g.Checks[0] != "0.8 >= 0.7: true" {
		t.Errorf("the condition's outcome and what it compared: %v %v", g.Outcome, g.Checks)
	}
	if len(rep.Branches) != 1 || rep.Branches[0].Branch != BranchIf || !slices.Equal(rep.Branches[0].NotRun, []string{"Gate-Fail"}) {
		t.Errorf("branches %+v", rep.Branches)
	}

	rep = gated(t, false).run(Options{Parameters: map[string]string{"Threshold": "0.9"}})
	if rep.Succeeded || rep.Failed == nil || rep.Failed.Step != "Gate-Fail" || !rep.Failed.FailStep || rep.Failed.Error != "AUC 0.8 is below 0.9" {
		t.Fatalf("fail: %+v", rep.Failed)
	}
	if got := stepList(rep); !slices.Equal(got, []string{"Eval", "Gate", "Gate-Fail"}) {
		t.Fatalf("fail: steps %v", got)
	}
	wantStatus(t, rep, "Gate-Fail", StatusFailed)
	if len(rep.Branches) != 1 || rep.Branches[0].Outcome || rep.Branches[0].Branch != BranchElse || !slices.Equal(rep.Branches[0].NotRun, []string{"After"}) {
		t.Errorf("branches %+v", rep.Branches)
	}
}

// Conditions nest: an inner Condition in the if-branch runs its own
// branch; when the outer one fails, the inner one and its steps do not run
// and are listed under the outer one.
func TestNestedConditions(t *testing.T) {
	needPython(t)
	rep := gated(t, true).run(Options{})
	if got := stepList(rep); !rep.Succeeded || !slices.Equal(got, []string{"Eval", "Gate", "After", "Inner", "InnerStep"}) {
		t.Fatalf("pass: steps %v, failed %+v", got, rep.Failed)
	}
	rep = gated(t, true).run(Options{Parameters: map[string]string{"Threshold": "0.95"}})
	if got := stepList(rep); !slices.Equal(got, []string{"Eval", "Gate", "Gate-Fail"}) {
		t.Fatalf("fail: steps %v", got)
	}
	if len(rep.Branches) != 1 || !slices.Equal(rep.Branches[0].NotRun, []string{"After", "Inner", "InnerStep"}) {
		t.Errorf("branches %+v", rep.Branches)
	}
}

// A failed evaluation skips its Condition and both branches as dependants.
func TestConditionAfterAFailedStep(t *testing.T) {
	needPython(t)
	p := gated(t, false)
	p.script("s3://bucket/code/eval.py", "eval.py", "raise SystemExit(2)\n")
	p.manifest = p.manifest[1:] // the broken eval.py replaces the first
	rep := p.run(Options{})
	if rep.Succeeded || rep.Failed == nil || rep.Failed.Step != "Eval" || rep.Failed.FailStep {
		t.Fatalf("failed %+v", rep.Failed)
	}
	for _, n := range []string{"Gate", "After", "Gate-Fail"} {
		wantStatus(t, rep, n, StatusSkipped)
	}
}

// Condition types as SageMaker evaluates them.
func TestConditionTypes(t *testing.T) {
	r := &run{ev: &evaluator{params: map[string]any{"T": 0.5, "Name": "binary"}, steps: map[string]*stepState{}}}
	cases := []struct {
		cond string
		want bool
	}{
		{`{"Type": "GreaterThan", "LeftValue": 0.6, "RightValue": {"Get": "Parameters.T"}}`, true},
		{`{"Type": "LessThan", "LeftValue": 0.6, "RightValue": 0.5}`, false},
		{`{"Type": "LessThanOrEqualTo", "LeftValue": 0.5, "RightValue": 0.5}`, true},
		{`{"Type": "Equals", "LeftValue": "binary", "RightValue": {"Get": "Parameters.Name"}}`, true},
		{`{"Type": "Equals", "LeftValue": 1, "RightValue": "1"}`, true},
		{`{"Type": "In", "QueryValue": "b", "Values": ["a", "b"]}`, true},
		{`{"Type": "In", "QueryValue": 3, "Values": [1, 2]}`, false},
		{`{"Type": "Not", "Condition": {"Type": "Equals", "LeftValue": 1, "RightValue": 2}}`, true},
		{`{"Type": "Or", "Conditions": [{"Type": "Equals", "LeftValue": 1, "RightValue": 2}, {"Type": "GreaterThan", "LeftValue": 3, "RightValue": 2}]}`, true},
		{`{"Type": "Or", "Conditions": [{"Type": "Equals", "LeftValue": 1, "RightValue": 2}]}`, false},
	}
	for _, c := range cases {
		got, _, err := r.holds(decodeJSON(t, c.cond))
		if err != nil || got != c.want {
			t.Errorf("%s: %v %v, want %v", c.cond, got, err, c.want)
		}
	}
	for _, bad := range []string{`{"Type": "GreaterThan", "LeftValue": "x", "RightValue": 1}`, `{"Type": "Between", "LeftValue": 1, "RightValue": 2}`,
		`{"Type": "GreaterThan", "LeftValue": {"Get": "Parameters.Nope"}, "RightValue": 1}`} {
		if _, _, err := r.holds(decodeJSON(t, bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// Std:JsonGet also reads a JSON object by its S3 URI (a gate compiled
// alone, with its report given).
func TestJsonGetS3Uri(t *testing.T) {
	needPython(t)
	p := newPipeline(t)
	p.params = []compiler.Parameter{prefixParam()}
	p.script("s3://bucket/code/ok.py", "ok.py", "open('/opt/ml/processing/output/o/x', 'w').write('1')\n")
	p.step(`{"Name": "Gate", "Type": "Condition", "Arguments": {
		"Conditions": [{"Type": "GreaterThan", "LeftValue": {"Std:JsonGet": {"S3Uri": "s3://bucket/reports/metrics.json", "Path": "per_class[1].f1"}}, "RightValue": 0.5}],
		"IfSteps": [` + processing("After", "ok.py", nil, []string{"o"}, nil, nil) + `], "ElseSteps": []}}`)
	report := filepath.Join(t.TempDir(), "metrics.json")
	if err := os.WriteFile(report, []byte(`{"per_class": [{"f1": 0.1}, {"f1": 0.9}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := p.run(Options{Data: map[string]string{"s3://bucket/reports/": filepath.Dir(report)}})
	if got := stepList(rep); !rep.Succeeded || !slices.Equal(got, []string{"Gate", "After"}) {
		t.Fatalf("steps %v, failed %+v", got, rep.Failed)
	}
}

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return v
}
