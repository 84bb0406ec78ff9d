package compiler_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/compiler/compilertest"
	"github.com/cursus-go/cursus/engine/dag"
)

// defSteps decodes a compiled definition's steps as JSON objects.
func defSteps(t *testing.T, res *compiler.Result) []map[string]any {
	t.Helper()
	b, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var d struct{ Steps []map[string]any }
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d.Steps
}

func stepNames(steps []any) []string {
	var out []string
	for _, s := range steps {
		out = append(out, s.(map[string]any)["Name"].(string))
	}
	return out
}

func findStep(t *testing.T, steps []map[string]any, typ string) map[string]any {
	t.Helper()
	for _, s := range steps {
		if s["Type"] == typ {
			return s
		}
	}
	t.Fatalf("no %s step among %d", typ, len(steps))
	return nil
}

// The gated example: the steps after the gate sit in the Condition's
// IfSteps, the Fail step in its ElseSteps, the evaluation step declares its
// report, and the definition passes the strict schema and the SDK's
// request shapes.
func TestGatedExample(t *testing.T) {
	res := compileExample(t, filepath.Join(examplesDir, "xgboost-gated"))
	b, _ := res.JSON()
	checkDefinition(t, "xgboost-gated", b)
	steps := defSteps(t, res)
	var top []string
	for _, s := range steps {
		top = append(top, s["Name"].(string))
	}
	eq(t, "top-level steps", top, []string{"DummyDataLoading-Training", "DummyDataLoading-Calibration", "TabularPreprocessing-Training",
		"TabularPreprocessing-Calibration", "XGBoostTraining", "XGBoostModelEval-Calibration", "ModelQualityGate"})
	cond := findStep(t, steps, "Condition")
	if _, has := cond["DependsOn"]; has {
		t.Errorf("the Condition lists DependsOn %v: its Std:JsonGet names the step it reads", cond["DependsOn"])
	}
	args := cond["Arguments"].(map[string]any)
	ifs := args["IfSteps"].([]any)
	eq(t, "IfSteps", stepNames(ifs), []string{"XGBoostModel", "Package", "Payload", "BatchTransform-Calibration", "Registration-NA"})
	eq(t, "ElseSteps", stepNames(args["ElseSteps"].([]any)), []string{"ModelQualityGate-Fail"})
	for _, s := range ifs {
		for _, d := range asStrings(s.(map[string]any)["DependsOn"]) {
			if d == "ModelQualityGate" {
				t.Errorf("%s depends on the gate it sits in", s.(map[string]any)["Name"])
			}
		}
	}
	eval := map[string]any{}
	for _, s := range steps {
		if s["Name"] == "XGBoostModelEval-Calibration" {
			eval = s
		}
	}
	eq(t, "PropertyFiles", jsonOf(t, eval["PropertyFiles"]), jsonOf(t, []map[string]any{{"PropertyFileName": "EvaluationReport", "OutputName": "metrics_output", "FilePath": "metrics.json"}}))
	eq(t, "Conditions", jsonOf(t, args["Conditions"]), jsonOf(t, []any{map[string]any{"Type": "GreaterThanOrEqualTo",
		"LeftValue":  map[string]any{"Std:JsonGet": map[string]any{"PropertyFile": map[string]any{"Get": "Steps.XGBoostModelEval-Calibration.PropertyFiles.EvaluationReport"}, "Path": "auc_roc"}},
		"RightValue": map[string]any{"Get": "Parameters.AucThreshold"}}}))
	msg := at(t, args["ElseSteps"].([]any)[0], "Arguments", "ErrorMessage", "Std:Join", "Values").([]any)
	if len(msg) != 5 || msg[0] != "The model's AUC " || !strings.Contains(string(mustJSON(t, msg[1])), "Std:JsonGet") || msg[4] != ": not registered" {
		t.Errorf("Fail message values %v", msg)
	}

	eq(t, "report branches", jsonOf(t, res.Report.Branches), jsonOf(t, []compiler.BranchReport{{Gate: "ModelQualityGate", ConditionStep: "ModelQualityGate",
		IfSteps: []catalog.SageMakerStepName{"XGBoostModel", "Package", "Payload", "BatchTransform-Calibration", "Registration-NA"}, ElseSteps: []catalog.SageMakerStepName{"ModelQualityGate-Fail"}}}))
	if n := reportNode(t, res, "Registration"); n.Branch != "ModelQualityGate" {
		t.Errorf("Registration's branch %q", n.Branch)
	}
	if n := reportNode(t, res, "XGBoostTraining"); n.Branch != "" {
		t.Errorf("XGBoostTraining's branch %q", n.Branch)
	}
	var all []catalog.SageMakerStepName
	for _, s := range res.Definition.AllSteps() {
		all = append(all, s.Name)
	}
	if len(all) != 13 || all[len(all)-1] != "ModelQualityGate-Fail" {
		t.Errorf("AllSteps %v", all)
	}
}

func asStrings(v any) []string {
	l, _ := v.([]any)
	out := make([]string, len(l))
	for i, x := range l {
		out[i], _ = x.(string)
	}
	return out
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// keyDiff lists where a and b differ in their object keys, recursively
// (lists element by element, of equal length).
func keyDiff(a, b any, path string) []string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return []string{path + ": an object against " + kindOf(b)}
		}
		var out []string
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		var sorted []string
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			xv, inX := x[k]
			yv, inY := y[k]
			switch {
			case !inX:
				out = append(out, path+"."+k+": only in the SDK's")
			case !inY:
				out = append(out, path+"."+k+": only in ours")
			default:
				out = append(out, keyDiff(xv, yv, path+"."+k)...)
			}
		}
		return out
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return []string{path + ": lists of different lengths or kinds"}
		}
		var out []string
		for i := range x {
			out = append(out, keyDiff(x[i], y[i], path+"["+strconv.Itoa(i)+"]")...)
		}
		return out
	}
	if kindOf(a) != kindOf(b) {
		return []string{path + ": " + kindOf(a) + " against " + kindOf(b)}
	}
	return nil
}

func kindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "list"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}

// The abalone-equivalent DAG (testdata/abalone: the SDK's abalone pipeline
// in the catalog's steps) compiles to a Condition, a Fail step and a
// PropertyFiles declaration that match the SageMaker SDK's abalone
// definition key for key; their values agree too, step names aside.
func TestAbaloneEquivalent(t *testing.T) {
	dir := compilertest.RequireSchemas(t)
	raw, err := os.ReadFile(filepath.Join(dir, "examples", "abalone-sdk-2.99.0.definition.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sdk struct{ Steps []map[string]any }
	if err := json.Unmarshal(raw, &sdk); err != nil {
		t.Fatal(err)
	}
	res := compileExample(t, filepath.Join("testdata", "abalone"))
	b, _ := res.JSON()
	checkDefinition(t, "abalone-equivalent", b)
	ours := defSteps(t, res)

	// Our step names differ (they are the catalog's); map them onto the SDK's.
	rename := strings.NewReplacer("Steps.XGBoostModelEval-Testing.", "Steps.AbaloneEval.", `"ModelQualityGate"`, `"AbaloneMSECond"`)
	norm := func(v any) any {
		var out any
		if err := json.Unmarshal([]byte(rename.Replace(string(mustJSON(t, v)))), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	sdkCond, ourCond := findStep(t, sdk.Steps, "Condition"), norm(findStep(t, ours, "Condition")).(map[string]any)
	sdkArgs, ourArgs := sdkCond["Arguments"].(map[string]any), ourCond["Arguments"].(map[string]any)
	for _, c := range []map[string]any{sdkCond, ourCond} {
		for k, v := range c["Arguments"].(map[string]any) {
			if k == "IfSteps" {
				c["Arguments"].(map[string]any)[k] = len(v.([]any)) > 0 // other steps: compared as steps elsewhere
			}
		}
	}
	if d := keyDiff(ourCond, sdkCond, "Condition"); len(d) > 0 {
		t.Errorf("the Condition step differs from the SDK's in its keys:\n%s", strings.Join(d, "\n"))
	}
	eq(t, "Name", ourCond["Name"], sdkCond["Name"])
	eq(t, "Conditions", ourArgs["Conditions"], sdkArgs["Conditions"])
	eq(t, "ElseSteps (the Fail step)", ourArgs["ElseSteps"], sdkArgs["ElseSteps"])
	sdkFail, ourFail := sdkArgs["ElseSteps"].([]any)[0], ourArgs["ElseSteps"].([]any)[0]
	if d := keyDiff(ourFail, sdkFail, "Fail"); len(d) > 0 {
		t.Errorf("the Fail step differs in its keys:\n%s", strings.Join(d, "\n"))
	}

	var sdkPF, ourPF any
	for _, s := range sdk.Steps {
		if s["PropertyFiles"] != nil {
			sdkPF = s["PropertyFiles"]
		}
	}
	for _, s := range ours {
		if s["PropertyFiles"] != nil {
			ourPF = s["PropertyFiles"]
		}
	}
	if d := keyDiff(ourPF, sdkPF, "PropertyFiles"); len(d) > 0 || ourPF == nil {
		t.Errorf("PropertyFiles differ in their keys: %v", d)
	}
	ourFile, sdkFile := ourPF.([]any)[0].(map[string]any), sdkPF.([]any)[0].(map[string]any)
	eq(t, "PropertyFileName", ourFile["PropertyFileName"], sdkFile["PropertyFileName"])
	eq(t, "FilePath", ourFile["FilePath"], sdkFile["FilePath"])

	// The parameter the condition reads is declared as the SDK declares it.
	var params []compiler.Parameter
	for _, p := range res.Definition.Parameters {
		if p.Name == "MseThreshold" {
			params = append(params, p)
		}
	}
	eq(t, "MseThreshold", jsonOf(t, params), jsonOf(t, []map[string]any{{"Name": "MseThreshold", "Type": "Float", "DefaultValue": 6.0}}))
}

// editConfig reads the config file src, lets edit change its document
// and writes it to dst (a new temp file when dst is ""), returning dst.
func editConfig(t *testing.T, src, dst string, edit func(cfg map[string]any)) string {
	t.Helper()
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	edit(cfg)
	if dst == "" {
		dst = filepath.Join(t.TempDir(), "config.json")
	}
	if err := os.WriteFile(dst, mustJSON(t, cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// setFields sets the fields of kv in m; a nil value deletes the field.
func setFields(m, kv map[string]any) {
	for k, v := range kv {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
}

// gatedConfigFile is the gated example's config.
var gatedConfigFile = filepath.Join(examplesDir, "xgboost-gated", "config.json")

// gatedConfig writes the gated example's config with the gate's fields
// replaced (nil deletes one) and extra pipeline parameters, and returns its
// path.
func gatedConfig(t *testing.T, gate map[string]any, params ...map[string]any) string {
	t.Helper()
	return editConfig(t, gatedConfigFile, "", func(cfg map[string]any) {
		c := cfg["configuration"].(map[string]any)
		setFields(c["specific"].(map[string]any)["ModelQualityGate"].(map[string]any), gate)
		shared := c["shared"].(map[string]any)
		for _, p := range params {
			shared["pipeline_parameters"] = append(shared["pipeline_parameters"].([]any), p)
		}
	})
}

func compileGated(t *testing.T, cfgPath string) (*compiler.Result, error) {
	t.Helper()
	d, _, err := dag.ReadFile(nil, filepath.Join(examplesDir, "xgboost-gated", "dag.json"))
	if err != nil {
		t.Fatal(err)
	}
	return compiler.Compile(context.Background(), compiler.Input{DAG: d, ConfigFile: cfgPath})
}

// A gate's comparison: binary comparisons and In against threshold, And,
// Or and Not of conditions (a nested And written Not(Or(Not...))), and
// the failure message's placeholders.
func TestGateConditions(t *testing.T) {
	jg := func(path string) map[string]any {
		return map[string]any{"Std:JsonGet": map[string]any{"PropertyFile": map[string]any{"Get": "Steps.XGBoostModelEval-Calibration.PropertyFiles.EvaluationReport"}, "Path": path}}
	}
	bin := func(typ, path string, right any) map[string]any {
		return map[string]any{"Type": typ, "LeftValue": jg(path), "RightValue": right}
	}
	not := func(c any) map[string]any { return map[string]any{"Type": "Not", "Condition": c} }
	cases := []struct {
		name   string
		gate   map[string]any
		params []map[string]any
		want   []any
		msg    []any
	}{
		{name: "greater than a literal", gate: map[string]any{"comparison": ">", "threshold": 0.75, "failure_message": nil},
			want: []any{bin("GreaterThan", "auc_roc", 0.75)},
			msg:  []any{"Quality gate ModelQualityGate failed: auc_roc must be > ", 0.75, "; it is ", jg("auc_roc")}},
		{name: "equals text", gate: map[string]any{"metric": "task", "comparison": "==", "threshold": "binary", "failure_message": "not a binary model"},
			want: []any{bin("Equals", "task", "binary")},
			msg:  []any{"not a binary model; task is", jg("task")}},
		{name: "in", gate: map[string]any{"metric": "task", "comparison": "In", "threshold": []any{"binary", "multiclass"}},
			want: []any{map[string]any{"Type": "In", "QueryValue": jg("task"), "Values": []any{"binary", "multiclass"}}}},
		{name: "less or equal a parameter", gate: map[string]any{"metric": "log_loss", "comparison": "<=", "threshold": "{{Parameters.MaxLoss}}"},
			params: []map[string]any{{"name": "MaxLoss", "type": "Float", "default_value": 0.6}},
			want:   []any{bin("LessThanOrEqualTo", "log_loss", map[string]any{"Get": "Parameters.MaxLoss"})}},
		{name: "and at the top", gate: map[string]any{"comparison": "And", "failure_message": "weak model", "conditions": []any{
			map[string]any{},
			map[string]any{"metric": "average_precision", "comparison": ">", "threshold": 0.4}}},
			want: []any{bin("GreaterThanOrEqualTo", "auc_roc", map[string]any{"Get": "Parameters.AucThreshold"}), bin("GreaterThan", "average_precision", 0.4)},
			msg:  []any{"weak model; auc_roc is", jg("auc_roc")}},
		{name: "conditions without a comparison are And", gate: map[string]any{"comparison": nil, "failure_message": nil, "conditions": []any{
			map[string]any{"comparison": "<", "threshold": 0.99}}},
			want: []any{bin("LessThan", "auc_roc", 0.99)},
			msg:  []any{"Quality gate ModelQualityGate failed: its conditions (And) do not hold; auc_roc is", jg("auc_roc")}},
		{name: "or with a nested and", gate: map[string]any{"comparison": "Or", "failure_message": "{metric} too low", "conditions": []any{
			map[string]any{"comparison": ">=", "threshold": 0.9},
			map[string]any{"comparison": "And", "conditions": []any{
				map[string]any{"comparison": ">=", "threshold": 0.7},
				map[string]any{"metric": "f1_score", "comparison": ">=", "threshold": 0.5}}}}},
			want: []any{map[string]any{"Type": "Or", "Conditions": []any{bin("GreaterThanOrEqualTo", "auc_roc", 0.9),
				not(map[string]any{"Type": "Or", "Conditions": []any{not(bin("GreaterThanOrEqualTo", "auc_roc", 0.7)), not(bin("GreaterThanOrEqualTo", "f1_score", 0.5))}})}}},
			msg: []any{jg("auc_roc"), "too low"}},
		{name: "not", gate: map[string]any{"comparison": "Not", "failure_message": "MSE={metric}", "conditions": []any{
			map[string]any{"metric": "rmse", "comparison": ">", "threshold": 3}}},
			want: []any{not(bin("GreaterThan", "rmse", 3.0))},
			msg:  []any{"MSE=", jg("auc_roc")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := compileGated(t, gatedConfig(t, c.gate, c.params...))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := res.JSON()
			checkDefinition(t, c.name, b)
			probs, err := compiler.CheckReferences(res.Definition)
			if err != nil || len(probs) > 0 {
				t.Errorf("reference problems %v %v", probs, err)
			}
			args := findStep(t, defSteps(t, res), "Condition")["Arguments"].(map[string]any)
			eq(t, "Conditions", args["Conditions"], jsonOf(t, c.want))
			if c.msg != nil {
				eq(t, "message", at(t, args["ElseSteps"].([]any)[0], "Arguments", "ErrorMessage", "Std:Join", "Values"), jsonOf(t, c.msg))
			}
		})
	}
}

// Every mistake in a gate's config is a build error naming the field.
func TestGateConfigErrors(t *testing.T) {
	cases := []struct {
		name, field, says string
		gate              map[string]any
		params            []map[string]any
	}{
		{"text threshold for an ordering", "threshold", "needs a number", map[string]any{"threshold": "high"}, nil},
		{"string parameter for an ordering", "threshold", "Integer or Float parameter", map[string]any{"threshold": "{{Parameters.Name}}"},
			[]map[string]any{{"name": "Name", "type": "String", "default_value": "x"}}},
		{"undeclared parameter", "threshold", "no config declares", map[string]any{"threshold": "{{Parameters.Nope}}"}, nil},
		{"a list inherited by an ordering", "conditions[0].threshold", "is a list", map[string]any{"comparison": "Or", "threshold": []any{1, 2},
			"conditions": []any{map[string]any{"comparison": ">"}}}, nil},
		{"bad metric path", "metric", "not a JSON path", map[string]any{"metric": "auc roc"}, nil},
		{"in without a list", "threshold", "non-empty list", map[string]any{"comparison": "In", "threshold": 0.5}, nil},
		{"not of two", "conditions", "Not takes one condition", map[string]any{"comparison": "Not", "conditions": []any{
			map[string]any{"comparison": ">", "threshold": 1}, map[string]any{"comparison": ">", "threshold": 2}}}, nil},
		{"unknown key", "conditions[0]", "unknown key", map[string]any{"comparison": "Or", "conditions": []any{map[string]any{"comparison": ">", "threshold": 1, "treshold": 2}}}, nil},
		{"bad nested comparison", "conditions[0].comparison", "want one of", map[string]any{"comparison": "Or", "conditions": []any{map[string]any{"comparison": "=>", "threshold": 1}}}, nil},
		{"conditions under a binary comparison", "conditions", "And, Or or Not", map[string]any{"comparison": ">=", "conditions": []any{map[string]any{"comparison": ">", "threshold": 1}}}, nil},
		{"unknown placeholder", "failure_message", "{auc}", map[string]any{"failure_message": "AUC {auc}"}, nil},
		{"fail step named like a node", "fail_step_name", "node XGBoostTraining", map[string]any{"fail_step_name": "XGBoostTraining"}, nil},
		{"report elsewhere", "report_file", "relative", map[string]any{"report_file": "/etc/metrics.json"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := compileGated(t, gatedConfig(t, c.gate, c.params...))
			var sb *compiler.StepBuildError
			if !errors.As(err, &sb) || sb.Node != "ModelQualityGate" || sb.Field != c.field || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("err = %v (field %q), want field %s saying %q", err, fieldOf(sb), c.field, c.says)
			}
		})
	}
	// threshold is essential: the config check names it.
	if _, err := compileGated(t, gatedConfig(t, map[string]any{"threshold": nil})); err == nil || !strings.Contains(err.Error(), "required field threshold is missing") {
		t.Errorf("no threshold: %v", err)
	}
	// A gate reads a Processing step's report: fed by a training step it is refused.
	d, _, err := dag.ReadFile(nil, filepath.Join(examplesDir, "xgboost-gated", "dag.json"))
	if err != nil {
		t.Fatal(err)
	}
	var edges []dag.Edge
	for _, e := range d.Edges() {
		if e.To != "ModelQualityGate" {
			edges = append(edges, e)
		}
	}
	edges = append(edges, dag.Edge{From: "XGBoostTraining", To: "ModelQualityGate"})
	_, err = compiler.Compile(context.Background(), compiler.Input{DAG: dag.New(d.Nodes(), edges), ConfigFile: gatedConfigFile})
	var sb *compiler.StepBuildError
	if !errors.As(err, &sb) || sb.Node != "ModelQualityGate" || !strings.Contains(err.Error(), "a Training step's output") {
		t.Fatalf("gate fed by a training step: %v", err)
	}
}

func fieldOf(sb *compiler.StepBuildError) string {
	if sb == nil {
		return ""
	}
	return sb.Field
}

// Gates nest: a gate inside another's branch holds its own branch; a node
// after two gates neither of which is after the other is refused.
func TestNestedGates(t *testing.T) {
	path := editConfig(t, gatedConfigFile, "", func(cfg map[string]any) {
		spec := cfg["configuration"].(map[string]any)["specific"].(map[string]any)
		cfg["metadata"].(map[string]any)["config_types"].(map[string]any)["ModelQualityGate_precision"] = "ModelQualityGateConfig"
		spec["ModelQualityGate_precision"] = map[string]any{"__model_type__": "ModelQualityGateConfig", "job_type": "precision",
			"metric": "average_precision", "comparison": ">=", "threshold": 0.3, "property_file_name": "EvaluationReport"}
	})
	d, _, err := dag.ReadFile(nil, filepath.Join(examplesDir, "xgboost-gated", "dag.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The second gate guards the batch transform, inside the first.
	nodes := append(d.Nodes(), "ModelQualityGate_precision")
	var edges []dag.Edge
	for _, e := range d.Edges() {
		if e.To != "BatchTransform_calibration" || e.From != "XGBoostModel" {
			edges = append(edges, e)
		}
	}
	edges = append(edges, dag.Edge{From: "XGBoostModelEval_calibration", To: "ModelQualityGate_precision"}, dag.Edge{From: "ModelQualityGate", To: "ModelQualityGate_precision"},
		dag.Edge{From: "ModelQualityGate_precision", To: "BatchTransform_calibration"}, dag.Edge{From: "XGBoostModel", To: "BatchTransform_calibration"})
	res, err := compiler.Compile(context.Background(), compiler.Input{DAG: dag.New(nodes, edges), ConfigFile: path})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := res.JSON()
	checkDefinition(t, "nested gates", b)
	outer := findStep(t, defSteps(t, res), "Condition")["Arguments"].(map[string]any)
	var inner map[string]any
	for _, s := range outer["IfSteps"].([]any) {
		if s.(map[string]any)["Type"] == "Condition" {
			inner = s.(map[string]any)["Arguments"].(map[string]any)
		}
	}
	if inner == nil || !reflect.DeepEqual(stepNames(inner["IfSteps"].([]any)), []string{"BatchTransform-Calibration"}) {
		t.Fatalf("inner gate %v in outer IfSteps %v", inner, stepNames(outer["IfSteps"].([]any)))
	}
	eq(t, "both gates read one property file", len(res.Definition.Steps[5].PropertyFiles), 1)

	// Move the second gate beside the first: the transform is after both.
	var side []dag.Edge
	for _, e := range edges {
		if e.From != "ModelQualityGate" || e.To != "ModelQualityGate_precision" {
			side = append(side, e)
		}
	}
	_, err = compiler.Compile(context.Background(), compiler.Input{DAG: dag.New(nodes, side), ConfigFile: path})
	var ie *compiler.InvalidDAGError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "BatchTransform_calibration") {
		t.Fatalf("two unrelated gates above one node: %v", err)
	}
	// Its blocker says how to place the gates (not the cycle's fix), and
	// validation lists it with the DAG's problems.
	var bc *dag.BranchConflictError
	if bs := compiler.ErrorBlockers(err); !errors.As(err, &bc) || len(bs) != 1 || bs[0].Node != "BatchTransform_calibration" ||
		!strings.Contains(bs[0].Fix, dag.BranchConflictFix) {
		t.Errorf("the conflict's blockers: %+v", bs)
	}
	v, err := compiler.Validate(context.Background(), compiler.Input{DAG: dag.New(nodes, side), ConfigFile: path})
	if err != nil {
		t.Fatal(err)
	}
	if v.IsValid || len(v.DAGIssues) != 1 || !strings.Contains(v.DAGIssues[0], "BatchTransform_calibration") || len(v.ConfigErrors) != 0 {
		t.Errorf("validation of the conflict: dag issues %q, config errors %v", v.DAGIssues, v.ConfigErrors)
	}
}
