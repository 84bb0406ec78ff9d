package tools

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/pipelines/pipelinestest"
	"github.com/cursus-go/cursus/registry"
)

func i8JSON(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

var i8Nodes = []string{"CradleDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining", "Package", "Payload", "Registration"}
var i8Edges = [][]string{{"CradleDataLoading_training", "TabularPreprocessing_training"}, {"TabularPreprocessing_training", "XGBoostTraining"},
	{"XGBoostTraining", "Package"}, {"XGBoostTraining", "Payload"}, {"Package", "Registration"}, {"Payload", "Registration"}}

func i8DAG() map[string]any {
	nodes := make([]any, len(i8Nodes))
	for i, n := range i8Nodes {
		nodes[i] = n
	}
	edges := make([]any, len(i8Edges))
	for i, e := range i8Edges {
		edges[i] = []any{e[0], e[1]}
	}
	return map[string]any{"nodes": nodes, "edges": edges}
}

// i8Config writes a config.json for the test DAG and returns its path.
func i8Config(t *testing.T, dir string) string {
	t.Helper()
	schema, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	set, err := pipelinestest.Configs(schema, i8Nodes)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "config.json")
	if err := config.Save(nil, set, p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExecdocTemplateTool(t *testing.T) {
	ctx := context.Background()
	d := wantOK(t, callTool(t, ctx, "execdoc.template", map[string]any{"step_names": []any{"A", "B"}}))
	want := i8JSON(t, `{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {}}, "B": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {}}}}`)
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("template %v", d)
	}
	env := callTool(t, ctx, "execdoc.template", map[string]any{"dag": i8DAG()})
	d = wantOK(t, env)
	steps := d["PIPELINE_STEP_CONFIGS"].(map[string]any)
	if len(steps) != 6 || steps["TabularPreprocessing-Training"] == nil || env["meta"].(map[string]any)["node_count"] != 6.0 {
		t.Fatalf("template from DAG %v", env)
	}
	wantFail(t, callTool(t, ctx, "execdoc.template", map[string]any{}), "invalid_input", "pipeline_catalog.load_dag")
	wantFail(t, callTool(t, ctx, "execdoc.template", map[string]any{"step_names": []any{"A"}, "dag": i8DAG()}), "invalid_input")
	wantFail(t, callTool(t, ctx, "execdoc.template", map[string]any{"step_names": []any{"A", " "}}), "invalid_input")
	wantFail(t, callTool(t, ctx, "execdoc.template", map[string]any{"step_names": "A"}), "invalid_input")
	wantFail(t, callTool(t, ctx, "execdoc.template", map[string]any{"dag_file": filepath.Join(t.TempDir(), "none.json")}), "not_found")
}

func TestExecdocMergeTool(t *testing.T) {
	ctx := context.Background()
	// two documents whose steps overlap: the step configs merge, and a
	// step only the second names is added
	env := callTool(t, ctx, "execdoc.merge", map[string]any{
		"base_doc":       i8JSON(t, `{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {"x": 1}}}}`),
		"additional_doc": i8JSON(t, `{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {"y": 2}}, "B": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {}}}}`)})
	d := wantOK(t, env)
	m := d["PIPELINE_STEP_CONFIGS"].(map[string]any)
	if !reflect.DeepEqual(m["A"].(map[string]any)["STEP_CONFIG"], map[string]any{"x": 1.0, "y": 2.0}) || m["B"] == nil {
		t.Fatalf("merge %v", d)
	}
	meta := env["meta"].(map[string]any)
	if meta["step_count"] != 2.0 || !reflect.DeepEqual(meta["added"], []any{"B"}) {
		t.Fatalf("meta %v", meta)
	}
	d = wantOK(t, callTool(t, ctx, "execdoc.merge", map[string]any{
		"base_doc":       i8JSON(t, `{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_CONFIG": {"x": 1}}}}`),
		"additional_doc": i8JSON(t, `{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_CONFIG": {"y": 2}}, "B": {"STEP_TYPE": ["X"]}}}`)}))
	if want := i8JSON(t, `{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_CONFIG": {"x": 1, "y": 2}}, "B": {"STEP_TYPE": ["X"]}}}`); !reflect.DeepEqual(d, want) {
		t.Fatalf("reference merge %v", d)
	}
	det := wantFail(t, callTool(t, ctx, "execdoc.merge", map[string]any{"base_doc": map[string]any{"x": 1}, "additional_doc": i8JSON(t, `{"PIPELINE_STEP_CONFIGS": {}}`)}),
		"invalid_input", "execdoc.validate")
	if det["argument"] != "base_doc" || len(det["issues"].([]any)) != 1 {
		t.Fatalf("details %v", det)
	}
	wantFail(t, callTool(t, ctx, "execdoc.merge", map[string]any{"base_doc": "text", "additional_doc": map[string]any{}}), "invalid_input")
	wantFail(t, callTool(t, ctx, "execdoc.merge", map[string]any{"base_doc": map[string]any{}}), "invalid_input")
}

func TestExecdocValidateTool(t *testing.T) {
	ctx := context.Background()
	d := wantOK(t, callTool(t, ctx, "execdoc.validate", map[string]any{"execution_document": i8JSON(t, `{"PIPELINE_STEP_CONFIGS": {"XGBoostTraining": {"STEP_TYPE": "TRAINING_STEP", "STEP_CONFIG": {}}}}`)}))
	if d["valid"] != true || len(d["issues"].([]any)) != 0 {
		t.Fatalf("valid doc %v", d)
	}
	// a non-object is an issue, not a failure
	env := callTool(t, ctx, "execdoc.validate", map[string]any{"execution_document": []any{1}})
	d = wantOK(t, env)
	if d["valid"] != false || d["issues"].([]any)[0].(map[string]any)["kind"] != "not_object" || env["next_steps"] == nil {
		t.Fatalf("non-object %v", env)
	}
	// every problem listed
	d = wantOK(t, callTool(t, ctx, "execdoc.validate", map[string]any{"execution_document": i8JSON(t,
		`{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_TYPE": ["PROCESSING_STEP"]}, "B": {"STEP_TYPE": [], "STEP_CONFIG": 3}}}`)}))
	var kinds []string
	for _, is := range d["issues"].([]any) {
		kinds = append(kinds, is.(map[string]any)["kind"].(string))
	}
	if d["valid"] != false || !reflect.DeepEqual(kinds, []string{"unknown_step_type", "missing_config", "unknown_step_type", "bad_step_type", "bad_config"}) {
		t.Fatalf("issues %v", kinds)
	}
	// against a DAG and its config: unknown steps are errors, helper steps must be present
	dir := t.TempDir()
	cfg := i8Config(t, dir)
	d = wantOK(t, callTool(t, ctx, "execdoc.validate", map[string]any{"dag": i8DAG(), "config_file": cfg, "execution_document": i8JSON(t,
		`{"PIPELINE_STEP_CONFIGS": {"Registration-NA": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {}}, "Packaging": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {}}}}`)}))
	kinds = nil
	for _, is := range d["issues"].([]any) {
		kinds = append(kinds, is.(map[string]any)["kind"].(string))
	}
	if d["valid"] != false || !reflect.DeepEqual(kinds, []string{"unknown_step", "empty_config", "missing_step"}) {
		t.Fatalf("against the DAG: %v", d)
	}
	wantFail(t, callTool(t, ctx, "execdoc.validate", map[string]any{}), "invalid_input")
	wantFail(t, callTool(t, ctx, "execdoc.validate", map[string]any{"execution_document": map[string]any{}, "config_file": cfg}), "invalid_input")
	wantFail(t, callTool(t, ctx, "execdoc.validate", map[string]any{"execution_document": map[string]any{}, "dag": i8DAG(), "config_file": filepath.Join(dir, "nope.json")}), "not_found")
}

func TestExecdocGenerateTool(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := i8Config(t, dir)
	env := callTool(t, ctx, "execdoc.generate", map[string]any{"dag": i8DAG(), "config_file": cfg})
	d := wantOK(t, env)
	steps := d["PIPELINE_STEP_CONFIGS"].(map[string]any)
	reg := steps["Registration-NA"].(map[string]any)["STEP_CONFIG"].(map[string]any)
	if len(steps) != 6 || reg["model_domain"] != "demo" || steps["CradleDataLoading-Training"].(map[string]any)["STEP_CONFIG"].(map[string]any)["dataSources"] == nil {
		t.Fatalf("generated %v", d)
	}
	meta := env["meta"].(map[string]any)
	if meta["auto_template"] != true || meta["node_count"] != 6.0 || meta["config_count"] != 6.0 || meta["steps_with_config"] != 2.0 || meta["step_count"] != 6.0 {
		t.Fatalf("meta %v", meta)
	}
	// the generated document validates against the DAG
	v := wantOK(t, callTool(t, ctx, "execdoc.validate", map[string]any{"execution_document": d, "dag": i8DAG(), "config_file": cfg}))
	if v["valid"] != true || len(v["issues"].([]any)) != 0 {
		t.Fatalf("generated document has issues: %v", v)
	}
	// relative paths resolve against project_root; a given document is filled, not replaced
	env = callTool(t, ctx, "execdoc.generate", map[string]any{"dag": i8DAG(), "config_file": "config.json", "project_root": dir, "role": "arn:aws:iam::111122223333:role/X",
		"execution_document": i8JSON(t, `{"PIPELINE_STEP_CONFIGS": {"Registration-NA": {"STEP_TYPE": ["PROCESSING_STEP", "MimsModelRegistrationProcessingStep"], "STEP_CONFIG": {}}}}`)})
	d = wantOK(t, env)
	reg = d["PIPELINE_STEP_CONFIGS"].(map[string]any)["Registration-NA"].(map[string]any)
	if len(d["PIPELINE_STEP_CONFIGS"].(map[string]any)) != 1 || reg["STEP_CONFIG"].(map[string]any)["execution_role"] != "arn:aws:iam::111122223333:role/X" || env["meta"].(map[string]any)["auto_template"] != false {
		t.Fatalf("fill given doc %v", env)
	}
	if !strings.Contains(strings.Join(strs(t, env["warnings"]), "\n"), "CradleDataLoading-Training") {
		t.Fatalf("the missing cradle entry should be warned about: %v", env["warnings"])
	}
	// anchor_file gives the root too
	wantOK(t, callTool(t, ctx, "execdoc.generate", map[string]any{"dag": i8DAG(), "config_file": "config.json", "anchor_file": filepath.Join(dir, "README.md")}))

	wantFail(t, callTool(t, ctx, "execdoc.generate", map[string]any{"dag": i8DAG(), "config_file": filepath.Join(dir, "missing.json")}), "not_found", "config.template")
	wantFail(t, callTool(t, ctx, "execdoc.generate", map[string]any{"dag": i8DAG(), "dag_file": "x.json", "config_file": cfg}), "invalid_input")
	wantFail(t, callTool(t, ctx, "execdoc.generate", map[string]any{"config_file": cfg}), "invalid_input")
	wantFail(t, callTool(t, ctx, "execdoc.generate", map[string]any{"dag": i8DAG()}), "invalid_input")
	wantFail(t, callTool(t, ctx, "execdoc.generate", map[string]any{"dag": i8DAG(), "config_file": cfg, "execution_document": []any{}}), "invalid_input")
	wantFail(t, callTool(t, ctx, "execdoc.generate", map[string]any{"dag": i8DAG(), "config_file": cfg, "execution_document": map[string]any{"x": 1}}), "invalid_input", "execdoc.validate")
	wantFail(t, callTool(t, ctx, "execdoc.generate", map[string]any{"dag": i8DAG(), "config_file": cfg, "role": "admin"}), "invalid_input")

	// the tool is flagged network but not gated by the read-only policy
	gated := registry.WithPolicy(ctx, registry.Policy{ProjectRoot: dir})
	wantOK(t, callTool(t, gated, "execdoc.generate", map[string]any{"dag": i8DAG(), "config_file": cfg}))
}
