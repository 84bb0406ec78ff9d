package tools

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

var (
	e2eNodes = []any{
		"CradleDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining",
		"ModelCalibration_calibration", "Package", "Registration", "Payload",
		"CradleDataLoading_calibration", "TabularPreprocessing_calibration", "XGBoostModelEval_calibration",
	}
	e2eEdges = []any{
		[]any{"CradleDataLoading_training", "TabularPreprocessing_training"},
		[]any{"TabularPreprocessing_training", "XGBoostTraining"},
		[]any{"CradleDataLoading_calibration", "TabularPreprocessing_calibration"},
		[]any{"XGBoostTraining", "XGBoostModelEval_calibration"},
		[]any{"TabularPreprocessing_calibration", "XGBoostModelEval_calibration"},
		[]any{"XGBoostModelEval_calibration", "ModelCalibration_calibration"},
		[]any{"ModelCalibration_calibration", "Package"},
		[]any{"XGBoostTraining", "Package"},
		[]any{"XGBoostTraining", "Payload"},
		[]any{"Package", "Registration"},
		[]any{"Payload", "Registration"},
	}
	case9cNodes = []any{"a", "b", "c", "d"}
	case9cEdges = []any{[]any{"a", "b"}, []any{"b", "c"}, []any{"c", "a"}, []any{"a", "x"}}
)

func TestDAGConstruct(t *testing.T) {
	ctx := context.Background()
	env := callTool(t, ctx, "dag.construct", map[string]any{"dag": map[string]any{"nodes": []any{"A", "B"}, "edges": []any{[]any{"A", "B"}}}, "metadata": map[string]any{"k": "v"}})
	d := wantOK(t, env)
	for _, k := range []string{"version", "created_at", "metadata", "dag", "statistics"} {
		if _, ok := d[k]; !ok {
			t.Errorf("data lacks %s", k)
		}
	}
	meta := env["meta"].(map[string]any)
	if d["version"] != "1.0.0" || meta["node_count"] != 2.0 || meta["edge_count"] != 1.0 || d["metadata"].(map[string]any)["k"] != "v" {
		t.Errorf("construct %v meta %v", d, meta)
	}
	stats := d["statistics"].(map[string]any)
	if stats["max_depth"] != 1.0 || !reflect.DeepEqual(stats["entry_nodes"], []any{"A"}) {
		t.Errorf("statistics %v", stats)
	}
	// A cycle is a warning, not an error.
	env = callTool(t, ctx, "dag.construct", map[string]any{"dag": map[string]any{"nodes": []any{"A", "B"}, "edges": []any{[]any{"A", "B"}, []any{"B", "A"}}}})
	wantOK(t, env)
	if w, _ := json.Marshal(env["warnings"]); !strings.Contains(string(w), "cycle") {
		t.Errorf("no cycle warning: %s", w)
	}
	// Edge shape problems name the edge.
	for _, bad := range []any{
		[]any{[]any{"A", "B"}, []any{"A"}},
		[]any{[]any{"A", "B"}, []any{"A", "B", "C"}},
		[]any{[]any{"A", "B"}, []any{"A", " "}},
	} {
		env = callTool(t, ctx, "dag.construct", map[string]any{"dag": map[string]any{"nodes": []any{"A", "B"}, "edges": bad}})
		wantFail(t, env, envelope.CodeInvalidInput)
		if !strings.Contains(env["error"].(string), "dag.edges[1]") {
			t.Errorf("error does not name edges[1]: %v", env["error"])
		}
	}
	wantFail(t, callTool(t, ctx, "dag.construct", map[string]any{"dag": map[string]any{"nodes": []any{"A"}}, "metadata": "x"}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "dag.construct", map[string]any{"dag": map[string]any{"nodes": []any{"A", ""}}}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "dag.construct", map[string]any{"dag": map[string]any{"nodes": []any{"A"}, "edges": []any{[]any{"A", 3}}}}), envelope.CodeInvalidInput)
}

func TestDAGValidateIntegrity(t *testing.T) {
	ctx := context.Background()
	d := wantOK(t, callTool(t, ctx, "dag.validate_integrity", map[string]any{"dag": map[string]any{"nodes": e2eNodes, "edges": e2eEdges}}))
	if d["is_valid"] != true || len(d["issues"].(map[string]any)) != 0 || d["node_count"] != 10.0 || d["edge_count"] != 11.0 {
		t.Fatalf("real DAG: %v", d)
	}
	// Reference case 9c.
	d = wantOK(t, callTool(t, ctx, "dag.validate_integrity", map[string]any{"dag": map[string]any{"nodes": case9cNodes, "edges": case9cEdges}}))
	want := []any{"cycles", "dangling_dependencies", "isolated_nodes", "missing_steps", "undeclared_edge_nodes"}
	if d["is_valid"] != false || !reflect.DeepEqual(d["issue_categories"], want) {
		t.Fatalf("case 9c: %v", d)
	}
	issues := d["issues"].(map[string]any)
	if !reflect.DeepEqual(issues["cycles"], []any{"Cycle detected: a -> b -> c"}) || len(issues["missing_steps"].([]any)) != 4 {
		t.Errorf("case 9c issues %v", issues)
	}
	// A misspelled node gets suggestions.
	d = wantOK(t, callTool(t, ctx, "dag.validate_integrity", map[string]any{"dag": map[string]any{"nodes": []any{"XGBoostTrainng"}}}))
	if s, _ := json.Marshal(d["missing_step_suggestions"]); !strings.Contains(string(s), `"XGBoostTrainng":["XGBoostTraining"`) {
		t.Errorf("suggestions %s", s)
	}
	// A typo in an edge endpoint is named.
	d = wantOK(t, callTool(t, ctx, "dag.validate_integrity", map[string]any{"dag": map[string]any{
		"nodes": []any{"TabularPreprocessing_training", "XGBoostTraining"},
		"edges": []any{[]any{"TabularPreprocessing_training", "XGBoostTrainng"}},
	}}))
	u, _ := json.Marshal(d["issues"].(map[string]any)["undeclared_edge_nodes"])
	if !strings.Contains(string(u), "XGBoostTrainng") {
		t.Errorf("undeclared endpoint not named: %s", u)
	}
}

func TestDAGResolvePlan(t *testing.T) {
	ctx := context.Background()
	env := callTool(t, ctx, "dag.resolve_plan", map[string]any{"dag": map[string]any{"nodes": e2eNodes, "edges": e2eEdges}})
	d := wantOK(t, env)
	// Reference case 4's step order.
	want := []any{
		"CradleDataLoading_training", "CradleDataLoading_calibration",
		"TabularPreprocessing_training", "TabularPreprocessing_calibration",
		"XGBoostTraining", "XGBoostModelEval_calibration", "Payload",
		"ModelCalibration_calibration", "Package", "Registration",
	}
	if !reflect.DeepEqual(d["execution_order"], want) || env["meta"].(map[string]any)["step_count"] != 10.0 {
		t.Fatalf("order %v", d["execution_order"])
	}
	if !reflect.DeepEqual(d["dependencies"].(map[string]any)["Package"], []any{"ModelCalibration_calibration", "XGBoostTraining"}) {
		t.Errorf("Package dependencies %v", d["dependencies"].(map[string]any)["Package"])
	}
	flow := d["data_flow_map"].(map[string]any)
	if flow["XGBoostTraining"].(map[string]any)["input_path"] != "TabularPreprocessing_training:processed_data" ||
		flow["Registration"].(map[string]any)["PackagedModel"] != "Package:packaged_model" {
		t.Errorf("data flow %v", flow)
	}
	// Nodes the catalog does not know get one input per parent.
	d = wantOK(t, callTool(t, ctx, "dag.resolve_plan", map[string]any{"dag": map[string]any{"nodes": []any{"n1", "n2", "n3", "n4", "n5"},
		"edges": []any{[]any{"n1", "n3"}, []any{"n2", "n3"}, []any{"n3", "n4"}, []any{"n1", "n5"}}}}))
	if !reflect.DeepEqual(d["execution_order"], []any{"n1", "n2", "n5", "n3", "n4"}) {
		t.Errorf("FIFO order %v", d["execution_order"])
	}
	if !reflect.DeepEqual(d["data_flow_map"].(map[string]any)["n3"], map[string]any{"input_0": "n1:output", "input_1": "n2:output"}) {
		t.Errorf("generic flow %v", d["data_flow_map"])
	}
	env = callTool(t, ctx, "dag.resolve_plan", map[string]any{"dag": map[string]any{"nodes": []any{"a", "b"}, "edges": []any{[]any{"a", "b"}, []any{"b", "a"}}}})
	wantFail(t, env, envelope.CodeInvalidInput)
	if !strings.Contains(env["error"].(string), "cycles") {
		t.Errorf("cycle message %v", env["error"])
	}
}

func TestDAGDependencies(t *testing.T) {
	ctx := context.Background()
	args := map[string]any{"node": "XGBoostTraining", "dag": map[string]any{"nodes": e2eNodes, "edges": e2eEdges}}
	d := wantOK(t, callTool(t, ctx, "dag.dependencies", args))
	if !reflect.DeepEqual(d["dependencies"], []any{"TabularPreprocessing_training"}) ||
		!reflect.DeepEqual(d["dependents"], []any{"XGBoostModelEval_calibration", "Package", "Payload"}) {
		t.Errorf("dependencies %v", d)
	}
	args["node"] = "XGBoostTrainig"
	env := callTool(t, ctx, "dag.dependencies", args)
	wantFail(t, env, envelope.CodeNotFound)
	if !strings.Contains(env["error"].(string), "did you mean XGBoostTraining") {
		t.Errorf("no did-you-mean: %v", env["error"])
	}
	if len(env["meta"].(map[string]any)["details"].(map[string]any)["available_nodes"].([]any)) != 10 {
		t.Errorf("available_nodes missing: %v", env["meta"])
	}
	args["node"] = "  "
	wantFail(t, callTool(t, ctx, "dag.dependencies", args), envelope.CodeInvalidInput)
	delete(args, "node")
	wantFail(t, callTool(t, ctx, "dag.dependencies", args), envelope.CodeInvalidInput)
}

func TestDAGSerializeDeserialize(t *testing.T) {
	dir := t.TempDir()
	ctx := registry.WithPolicy(context.Background(), registry.Policy{AllowDestructive: true, ProjectRoot: dir})
	nodes := []any{"n1", "n2", "n3"}
	edges := []any{[]any{"n1", "n3"}, []any{"n2", "n3"}}
	// Inline.
	d := wantOK(t, callTool(t, ctx, "dag.serialize", map[string]any{"dag": map[string]any{"nodes": nodes, "edges": edges}, "pretty": false}))
	var doc map[string]any
	if err := json.Unmarshal([]byte(d["json"].(string)), &doc); err != nil || doc["version"] != "1.0.0" || strings.Contains(d["json"].(string), "\n") {
		t.Fatalf("inline json %v %v", d["json"], err)
	}
	// To a file under the root, then back.
	d = wantOK(t, callTool(t, ctx, "dag.serialize", map[string]any{"dag": map[string]any{"nodes": nodes, "edges": edges}, "output_file": "sub/dag.json", "metadata": map[string]any{"k": "v"}}))
	path := filepath.Join(dir, "sub", "dag.json")
	if real, _ := filepath.EvalSymlinks(dir); d["path"] != filepath.Join(real, "sub", "dag.json") {
		t.Errorf("path %v", d["path"])
	}
	env := callTool(t, ctx, "dag.deserialize", map[string]any{"dag_file": path})
	got := wantOK(t, env)
	if !reflect.DeepEqual(got["nodes"], nodes) || !reflect.DeepEqual(got["edges"], edges) || got["metadata"].(map[string]any)["k"] != "v" {
		t.Errorf("round trip %v", got)
	}
	if got["stats"].(map[string]any)["node_count"] != 3.0 || env["meta"].(map[string]any)["edge_count"] != 2.0 {
		t.Errorf("stats %v meta %v", got["stats"], env["meta"])
	}
	// Refusals: outside the root, a cyclic DAG, gate closed.
	env = callTool(t, ctx, "dag.serialize", map[string]any{"dag": map[string]any{"nodes": nodes}, "output_file": "../escape.json"})
	wantFail(t, env, envelope.CodeInvalidInput)
	env = callTool(t, ctx, "dag.serialize", map[string]any{"dag": map[string]any{"nodes": []any{"a", "b"}, "edges": []any{[]any{"a", "b"}, []any{"b", "a"}}}, "output_file": "cyc.json"})
	wantFail(t, env, envelope.CodeInvalidInput)
	if _, err := os.Stat(filepath.Join(dir, "cyc.json")); !errors.Is(err, os.ErrNotExist) {
		t.Error("cyclic DAG written")
	}
	closed := registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: dir})
	wantFail(t, callTool(t, closed, "dag.serialize", map[string]any{"dag": map[string]any{"nodes": nodes}, "output_file": "x.json"}), envelope.CodeToolDisabled)
	// Reading: missing, malformed, a file cursus (Python) wrote.
	wantFail(t, callTool(t, ctx, "dag.deserialize", map[string]any{"dag_file": filepath.Join(dir, "none.json")}), envelope.CodeNotFound)
	bad := filepath.Join(dir, "bad.json")
	_ = os.WriteFile(bad, []byte(`{"version": "2.0", "dag": {"nodes": [], "edges": []}}`), 0o644)
	wantFail(t, callTool(t, ctx, "dag.deserialize", map[string]any{"dag_file": bad}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "dag.deserialize", map[string]any{"dag_file": " "}), envelope.CodeInvalidInput)
	// (a relative path is taken from the policy's root, so name it absolutely)
	orig, err := filepath.Abs("../engine/dag/testdata/original_writer_xgboost_e2e.json")
	if err != nil {
		t.Fatal(err)
	}
	// (and read it as a trusted caller: it is outside the policy's root)
	got = wantOK(t, callTool(t, context.Background(), "dag.deserialize", map[string]any{"dag_file": orig}))
	wantFail(t, callTool(t, ctx, "dag.deserialize", map[string]any{"dag_file": orig}), envelope.CodeInvalidInput)
	if !reflect.DeepEqual(got["nodes"], e2eNodes) || got["created_at"] != "2026-11-30T02:09:59.920360+00:00" {
		t.Errorf("original file %v", got)
	}
}

func TestDAGRender(t *testing.T) {
	ctx := context.Background()
	d := wantOK(t, callTool(t, ctx, "dag.render", map[string]any{"dag": map[string]any{"nodes": e2eNodes, "edges": e2eEdges}}))
	text := d["mermaid"].(string)
	for _, s := range []string{
		"flowchart TD",
		`n1["TabularPreprocessing_training"]`,
		`n1 -->|"processed_data → input_path"| n2`,
		`n4 -->|"packaged_model → PackagedModel"| n5`,
	} {
		if !strings.Contains(text, s) {
			t.Errorf("mermaid lacks %q:\n%s", s, text)
		}
	}
	if d["ports_shown"] != true || len(d["unresolved_inputs"].([]any)) != 0 {
		t.Errorf("render data %v", d)
	}
	// Undeclared endpoints, unknown steps and unbound required inputs are marked.
	d = wantOK(t, callTool(t, ctx, "dag.render", map[string]any{"dag": map[string]any{"dag": map[string]any{
		"nodes": []any{"DummyDataLoading_training", "XGBoostTraining", "mystery"},
		"edges": []any{[]any{"DummyDataLoading_training", "XGBoostTraining"}, []any{"XGBoostTraining", "ghost"}, []any{"XGBoostTraining", "mystery"}},
	}}, "direction": "LR"}))
	text = d["mermaid"].(string)
	for _, s := range []string{"flowchart LR", `u0["ghost (not declared)"]`, "class u0 undeclared", "class n2 unknown", "class n1 unresolved"} {
		if !strings.Contains(text, s) {
			t.Errorf("mermaid lacks %q:\n%s", s, text)
		}
	}
	if !reflect.DeepEqual(d["unresolved_inputs"], []any{"XGBoostTraining.input_path"}) || !reflect.DeepEqual(d["unknown_steps"], []any{"mystery"}) {
		t.Errorf("render data %v", d)
	}
	d = wantOK(t, callTool(t, ctx, "dag.render", map[string]any{"dag": map[string]any{"nodes": []any{"a", "b"}, "edges": []any{[]any{"a", "b"}}}, "show_ports": false}))
	if !strings.Contains(d["mermaid"].(string), "n0 --> n1") {
		t.Errorf("plain render %v", d["mermaid"])
	}
	wantFail(t, callTool(t, ctx, "dag.render", map[string]any{"dag": map[string]any{"nodes": []any{"a"}}, "dag_file": "x.json"}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "dag.render", map[string]any{}), envelope.CodeInvalidInput)
}

func TestLoadDAGArg(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "d.json")
	_ = os.WriteFile(file, []byte(`{"dag": {"nodes": ["a", "b"], "edges": [["a", "b"]]}}`), 0o644)
	bad := filepath.Join(dir, "bad.json")
	_ = os.WriteFile(bad, []byte(`{"dag": {"nodes": ["a"]}}`), 0o644)
	ok := []struct {
		name  string
		dag   map[string]any
		file  string
		nodes int
		edges int
	}{
		{"flat", map[string]any{"nodes": []any{"a", "b"}, "edges": []any{[]any{"a", "b"}}}, "", 2, 1},
		{"wrapped", map[string]any{"dag": map[string]any{"nodes": []any{"a", "b"}, "edges": []any{[]any{"a", "b"}}}, "metadata": map[string]any{}}, "", 2, 1},
		{"edge-less", map[string]any{"nodes": []any{"a"}}, "", 1, 0},
		{"null edges", map[string]any{"nodes": []any{"a"}, "edges": nil}, "", 1, 0},
		{"file", nil, file, 2, 1},
	}
	for _, c := range ok {
		d, err := loadDAGArg(context.Background(), c.dag, c.file)
		if err != nil || d.NodeCount() != c.nodes || d.EdgeCount() != c.edges {
			t.Errorf("%s: %v %v", c.name, d, err)
		}
	}
	bads := []struct {
		name string
		dag  map[string]any
		file string
		code envelope.Code
		msg  string
	}{
		{"both", map[string]any{"nodes": []any{"a"}}, file, envelope.CodeInvalidInput, "not both"},
		{"neither", nil, "", envelope.CodeInvalidInput, "one of"},
		{"empty nodes", map[string]any{"nodes": []any{}}, "", envelope.CodeInvalidInput, "non-empty list"},
		{"no nodes", map[string]any{"edges": []any{}}, "", envelope.CodeInvalidInput, "non-empty list"},
		{"non-string node", map[string]any{"nodes": []any{"a", 1}}, "", envelope.CodeInvalidInput, "dag.nodes[1]"},
		{"blank node", map[string]any{"nodes": []any{" "}}, "", envelope.CodeInvalidInput, "dag.nodes[0]"},
		{"edges not a list", map[string]any{"nodes": []any{"a"}, "edges": "a->b"}, "", envelope.CodeInvalidInput, "dag.edges"},
		{"short edge", map[string]any{"nodes": []any{"a"}, "edges": []any{[]any{"a"}}}, "", envelope.CodeInvalidInput, "dag.edges[0]"},
		{"edge not a pair", map[string]any{"nodes": []any{"a"}, "edges": []any{[]any{"a", "b"}, "ab"}}, "", envelope.CodeInvalidInput, "dag.edges[1]"},
		{"non-string endpoint", map[string]any{"nodes": []any{"a"}, "edges": []any{[]any{"a", 2}}}, "", envelope.CodeInvalidInput, "dag.edges[0]"},
		{"missing file", nil, filepath.Join(dir, "none.json"), envelope.CodeNotFound, "not found"},
		{"malformed file", nil, bad, envelope.CodeInvalidInput, "dag.edges"},
	}
	for _, c := range bads {
		_, err := loadDAGArg(context.Background(), c.dag, c.file)
		var te *envelope.ToolError
		if !errors.As(err, &te) || te.Code != c.code || !strings.Contains(te.Message, c.msg) {
			t.Errorf("%s: %v, want %s containing %q", c.name, err, c.code, c.msg)
		}
	}
}

func TestValidateDepsExplain(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		a, b string
		want float64
	}{{"input_path", "processed_data", 0.2}, {"DATA", "processed_data", 0.5405}, {"model_input", "model_output", 0.6306}} {
		env := callTool(t, ctx, "validate.deps_explain", map[string]any{"name1": c.a, "name2": c.b})
		d := wantOK(t, env)
		if math.Abs(d["overall_score"].(float64)-c.want) > 5e-5 {
			t.Errorf("%s/%s = %v", c.a, c.b, d["overall_score"])
		}
		for _, k := range []string{"normalized_names", "string_similarity", "token_similarity", "semantic_similarity", "substring_similarity"} {
			if _, ok := d[k]; !ok {
				t.Errorf("no %s", k)
			}
		}
		if env["meta"].(map[string]any)["name1"] != c.a {
			t.Errorf("meta %v", env["meta"])
		}
	}
	d := wantOK(t, callTool(t, ctx, "validate.deps_explain", map[string]any{"name1": "input_path", "name2": "processed_data",
		"consumer_step": "XGBoostTraining", "provider_step": "TabularPreprocessing_training"}))
	c := d["compatibility"].(map[string]any)
	comp := c["components"].(map[string]any)
	if c["score"] != 0.8125 || c["viable"] != true || comp["keyword_matching"] != 0.0125 || comp["type_compatibility"] != 0.2 || c["provider_job_type"] != "training" {
		t.Errorf("compatibility %v", c)
	}
	wantFail(t, callTool(t, ctx, "validate.deps_explain", map[string]any{"name1": " ", "name2": "x"}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "validate.deps_explain", map[string]any{"name1": "x"}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "validate.deps_explain", map[string]any{"name1": "a", "name2": "b", "consumer_step": "XGBoostTraining"}), envelope.CodeInvalidInput)
	env := callTool(t, ctx, "validate.deps_explain", map[string]any{"name1": "a", "name2": "b", "consumer_step": "XGBoostTrainin", "provider_step": "Package"})
	wantFail(t, env, envelope.CodeNotFound)
	if s, _ := json.Marshal(env["meta"]); !strings.Contains(string(s), "XGBoostTraining") {
		t.Errorf("no suggestion: %s", s)
	}
	env = callTool(t, ctx, "validate.deps_explain", map[string]any{"name1": "nope", "name2": "processed_data", "consumer_step": "XGBoostTraining", "provider_step": "TabularPreprocessing"})
	wantFail(t, env, envelope.CodeNotFound)
	if s, _ := json.Marshal(env["meta"]); !strings.Contains(string(s), "input_path") {
		t.Errorf("no available inputs: %s", s)
	}
}

func TestValidateDepsResolve(t *testing.T) {
	ctx := context.Background()
	// Without a DAG (every other step a parent): 4 of 9 dependencies
	// resolve; the optional inputs a weak match would have fed
	// (DATA_SECONDARY from METADATA, Package's calibration_model from the
	// trainer's evaluation output) stay unbound.
	d := wantOK(t, callTool(t, ctx, "validate.deps_resolve", map[string]any{"step_names": []any{"CradleDataLoading", "TabularPreprocessing", "XGBoostTraining", "Package"}}))
	sum := d["report"].(map[string]any)["resolution_summary"].(map[string]any)
	if sum["resolved_dependencies"] != 4.0 || sum["total_dependencies"] != 9.0 || d["mode"] != "steps" {
		t.Errorf("summary %v", sum)
	}
	tp := d["report"].(map[string]any)["step_details"].(map[string]any)["TabularPreprocessing"].(map[string]any)
	if tp["resolved_dependencies"].(map[string]any)["DATA"] != "CradleDataLoading.DATA" {
		t.Errorf("TabularPreprocessing %v", tp["resolved_dependencies"])
	}
	// Along a DAG's edges: input_path stays unbound.
	env := callTool(t, ctx, "validate.deps_resolve", map[string]any{"dag": map[string]any{
		"nodes": []any{"DummyDataLoading_training", "XGBoostTraining"}, "edges": []any{[]any{"DummyDataLoading_training", "XGBoostTraining"}}}})
	d = wantOK(t, env)
	rep := d["report"].(map[string]any)
	if !reflect.DeepEqual(rep["unresolved_dependencies"], []any{"XGBoostTraining"}) || d["mode"] != "dag" {
		t.Fatalf("case 10 report %v", rep)
	}
	x := rep["step_details"].(map[string]any)["XGBoostTraining"].(map[string]any)
	if !strings.Contains(x["error"].(string), "input_path") || !strings.Contains(x["error"].(string), "0.4652") {
		t.Errorf("error %v", x["error"])
	}
	if steps, _ := json.Marshal(env["next_steps"]); !strings.Contains(string(steps), "validate.deps_explain") {
		t.Errorf("next steps %s", steps)
	}
	// Unknown names are reported; none known is not_found; both inputs invalid.
	d = wantOK(t, callTool(t, ctx, "validate.deps_resolve", map[string]any{"step_names": []any{"XGBoostTraining", "Bogus"}}))
	if !reflect.DeepEqual(d["missing_specs"], []any{"Bogus"}) {
		t.Errorf("missing %v", d["missing_specs"])
	}
	wantFail(t, callTool(t, ctx, "validate.deps_resolve", map[string]any{"step_names": []any{"Bogus"}}), envelope.CodeNotFound)
	wantFail(t, callTool(t, ctx, "validate.deps_resolve", map[string]any{"step_names": []any{"XGBoostTraining"}, "dag_file": "x.json"}), envelope.CodeInvalidInput)
	// No arguments: every catalog step.
	d = wantOK(t, callTool(t, ctx, "validate.deps_resolve", map[string]any{}))
	if len(d["registered_steps"].([]any)) < 20 || len(d["missing_specs"].([]any)) != 0 {
		t.Errorf("all steps: %d registered", len(d["registered_steps"].([]any)))
	}
}

// TestDAGDeprecatedArguments: the dag.* tools' old spellings (top-level
// nodes and edges, dependencies' step, serialize's and deserialize's path)
// still work for one release and warn, naming the new argument.
func TestDAGDeprecatedArguments(t *testing.T) {
	dir := t.TempDir()
	ctx := registry.WithPolicy(context.Background(), registry.Policy{AllowDestructive: true, ProjectRoot: dir})
	warned := func(env map[string]any, old, new string) {
		t.Helper()
		if w, _ := json.Marshal(env["warnings"]); !strings.Contains(string(w), "argument '"+old+"' is deprecated: use '"+new+"'") {
			t.Errorf("no deprecation warning for %s: %s", old, w)
		}
	}
	old := map[string]any{"nodes": e2eNodes, "edges": e2eEdges}
	for _, tool := range []string{"dag.construct", "dag.validate_integrity", "dag.resolve_plan", "dag.render"} {
		env := callTool(t, ctx, tool, old)
		wantOK(t, env)
		warned(env, "nodes", "dag.nodes")
		warned(env, "edges", "dag.edges")
	}
	env := callTool(t, ctx, "dag.dependencies", map[string]any{"step": "XGBoostTraining", "nodes": e2eNodes, "edges": e2eEdges})
	if d := wantOK(t, env); !reflect.DeepEqual(d["dependencies"], []any{"TabularPreprocessing_training"}) {
		t.Errorf("dependencies via step: %v", d)
	}
	warned(env, "step", "node")
	env = callTool(t, ctx, "dag.serialize", map[string]any{"nodes": []any{"a", "b"}, "edges": []any{[]any{"a", "b"}}, "path": "old.json"})
	wantOK(t, env)
	warned(env, "path", "output_file")
	env = callTool(t, ctx, "dag.deserialize", map[string]any{"path": filepath.Join(dir, "old.json")})
	if d := wantOK(t, env); !reflect.DeepEqual(d["nodes"], []any{"a", "b"}) {
		t.Errorf("deserialize via path: %v", d)
	}
	warned(env, "path", "dag_file")
	// the old and the new spelling together are refused
	wantFail(t, callTool(t, ctx, "dag.validate_integrity", map[string]any{"nodes": []any{"a"}, "dag": map[string]any{"nodes": []any{"a"}}}), envelope.CodeInvalidInput)
	// a dag_file works for every dag.* tool that reads a DAG
	for _, tool := range []string{"dag.construct", "dag.validate_integrity", "dag.resolve_plan", "dag.render"} {
		wantOK(t, callTool(t, ctx, tool, map[string]any{"dag_file": filepath.Join(dir, "old.json")}))
	}
}
