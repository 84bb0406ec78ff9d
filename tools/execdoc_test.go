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

// i8Call runs a tool through the real registry and returns the wire-form
// envelope decoded from JSON, as a client sees it.
func i8Call(t *testing.T, ctx context.Context, name string, args any) map[string]any {
	t.Helper()
	res := Registry().Call(ctx, name, args)
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("%s: envelope does not encode: %v", name, err)
	}
	var env map[string]any
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	return env
}

func i8OK(t *testing.T, env map[string]any) map[string]any {
	t.Helper()
	if env["ok"] != true {
		t.Fatalf("want ok, got %v", env)
	}
	d, _ := env["data"].(map[string]any)
	return d
}

// i8Fail checks a failure's code and, when remedyTools is given, that its
// remedy suggests those tools.
func i8Fail(t *testing.T, env map[string]any, code string, remedyTools ...string) map[string]any {
	t.Helper()
	if env["ok"] != false || env["code"] != code {
		t.Fatalf("want %s, got %v", code, env)
	}
	if len(remedyTools) > 0 {
		rem, _ := env["remedy"].(map[string]any)
		got, _ := rem["suggested_tools"].([]any)
		for _, want := range remedyTools {
			found := false
			for _, g := range got {
				found = found || g == want
			}
			if !found {
				t.Fatalf("remedy %v lacks %s", rem, want)
			}
		}
	}
	meta, _ := env["meta"].(map[string]any)
	det, _ := meta["details"].(map[string]any)
	return det
}

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
	if err := config.Save(set, p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExecdocTemplateTool(t *testing.T) {
	ctx := context.Background()
	d := i8OK(t, i8Call(t, ctx, "execdoc.template", map[string]any{"step_names": []any{"A", "B"}}))
	want := i8JSON(t, `{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {}}, "B": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {}}}}`)
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("template %v", d)
	}
	env := i8Call(t, ctx, "execdoc.template", map[string]any{"dag": i8DAG()})
	d = i8OK(t, env)
	steps := d["PIPELINE_STEP_CONFIGS"].(map[string]any)
	if len(steps) != 6 || steps["TabularPreprocessing-Training"] == nil || env["meta"].(map[string]any)["node_count"] != 6.0 {
		t.Fatalf("template from DAG %v", env)
	}
	i8Fail(t, i8Call(t, ctx, "execdoc.template", map[string]any{}), "invalid_input", "pipeline_catalog.load_dag")
	i8Fail(t, i8Call(t, ctx, "execdoc.template", map[string]any{"step_names": []any{"A"}, "dag": i8DAG()}), "invalid_input")
	i8Fail(t, i8Call(t, ctx, "execdoc.template", map[string]any{"step_names": []any{"A", " "}}), "invalid_input")
	i8Fail(t, i8Call(t, ctx, "execdoc.template", map[string]any{"step_names": "A"}), "invalid_input")
	i8Fail(t, i8Call(t, ctx, "execdoc.template", map[string]any{"dag_file": filepath.Join(t.TempDir(), "none.json")}), "not_found")
}

func TestExecdocMergeTool(t *testing.T) {
	ctx := context.Background()
	// the acceptance case and the reference case
	env := i8Call(t, ctx, "execdoc.merge", map[string]any{
		"base_doc":       i8JSON(t, `{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {"x": 1}}}}`),
		"additional_doc": i8JSON(t, `{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {"y": 2}}, "B": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {}}}}`)})
	d := i8OK(t, env)
	m := d["PIPELINE_STEP_CONFIGS"].(map[string]any)
	if !reflect.DeepEqual(m["A"].(map[string]any)["STEP_CONFIG"], map[string]any{"x": 1.0, "y": 2.0}) || m["B"] == nil {
		t.Fatalf("merge %v", d)
	}
	meta := env["meta"].(map[string]any)
	if meta["step_count"] != 2.0 || !reflect.DeepEqual(meta["added"], []any{"B"}) {
		t.Fatalf("meta %v", meta)
	}
	d = i8OK(t, i8Call(t, ctx, "execdoc.merge", map[string]any{
		"base_doc":       i8JSON(t, `{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_CONFIG": {"x": 1}}}}`),
		"additional_doc": i8JSON(t, `{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_CONFIG": {"y": 2}}, "B": {"STEP_TYPE": ["X"]}}}`)}))
	if want := i8JSON(t, `{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_CONFIG": {"x": 1, "y": 2}}, "B": {"STEP_TYPE": ["X"]}}}`); !reflect.DeepEqual(d, want) {
		t.Fatalf("reference merge %v", d)
	}
	det := i8Fail(t, i8Call(t, ctx, "execdoc.merge", map[string]any{"base_doc": map[string]any{"x": 1}, "additional_doc": i8JSON(t, `{"PIPELINE_STEP_CONFIGS": {}}`)}),
		"invalid_input", "execdoc.validate")
	if det["argument"] != "base_doc" || len(det["issues"].([]any)) != 1 {
		t.Fatalf("details %v", det)
	}
	i8Fail(t, i8Call(t, ctx, "execdoc.merge", map[string]any{"base_doc": "text", "additional_doc": map[string]any{}}), "invalid_input")
	i8Fail(t, i8Call(t, ctx, "execdoc.merge", map[string]any{"base_doc": map[string]any{}}), "invalid_input")
}

func TestExecdocValidateTool(t *testing.T) {
	ctx := context.Background()
	d := i8OK(t, i8Call(t, ctx, "execdoc.validate", map[string]any{"execution_document": i8JSON(t, `{"PIPELINE_STEP_CONFIGS": {"XGBoostTraining": {"STEP_TYPE": "TRAINING_STEP", "STEP_CONFIG": {}}}}`)}))
	if d["valid"] != true || len(d["issues"].([]any)) != 0 {
		t.Fatalf("valid doc %v", d)
	}
	// a non-object is an issue, not a failure
	env := i8Call(t, ctx, "execdoc.validate", map[string]any{"execution_document": []any{1}})
	d = i8OK(t, env)
	if d["valid"] != false || d["issues"].([]any)[0].(map[string]any)["kind"] != "not_object" || env["next_steps"] == nil {
		t.Fatalf("non-object %v", env)
	}
	// every problem listed
	d = i8OK(t, i8Call(t, ctx, "execdoc.validate", map[string]any{"execution_document": i8JSON(t,
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
	d = i8OK(t, i8Call(t, ctx, "execdoc.validate", map[string]any{"dag": i8DAG(), "config_path": cfg, "execution_document": i8JSON(t,
		`{"PIPELINE_STEP_CONFIGS": {"Registration-NA": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {}}, "Packaging": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {}}}}`)}))
	kinds = nil
	for _, is := range d["issues"].([]any) {
		kinds = append(kinds, is.(map[string]any)["kind"].(string))
	}
	if d["valid"] != false || !reflect.DeepEqual(kinds, []string{"unknown_step", "empty_config", "missing_step"}) {
		t.Fatalf("against the DAG: %v", d)
	}
	i8Fail(t, i8Call(t, ctx, "execdoc.validate", map[string]any{}), "invalid_input")
	i8Fail(t, i8Call(t, ctx, "execdoc.validate", map[string]any{"execution_document": map[string]any{}, "config_path": cfg}), "invalid_input")
	i8Fail(t, i8Call(t, ctx, "execdoc.validate", map[string]any{"execution_document": map[string]any{}, "dag": i8DAG(), "config_path": filepath.Join(dir, "nope.json")}), "not_found")
}

func TestExecdocGenerateTool(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := i8Config(t, dir)
	env := i8Call(t, ctx, "execdoc.generate", map[string]any{"dag": i8DAG(), "config_path": cfg})
	d := i8OK(t, env)
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
	v := i8OK(t, i8Call(t, ctx, "execdoc.validate", map[string]any{"execution_document": d, "dag": i8DAG(), "config_path": cfg}))
	if v["valid"] != true || len(v["issues"].([]any)) != 0 {
		t.Fatalf("generated document has issues: %v", v)
	}
	// relative paths resolve against project_root; a given document is filled, not replaced
	env = i8Call(t, ctx, "execdoc.generate", map[string]any{"dag": i8DAG(), "config_path": "config.json", "project_root": dir, "role": "arn:aws:iam::111122223333:role/X",
		"execution_document": i8JSON(t, `{"PIPELINE_STEP_CONFIGS": {"Registration-NA": {"STEP_TYPE": ["PROCESSING_STEP", "MimsModelRegistrationProcessingStep"], "STEP_CONFIG": {}}}}`)})
	d = i8OK(t, env)
	reg = d["PIPELINE_STEP_CONFIGS"].(map[string]any)["Registration-NA"].(map[string]any)
	if len(d["PIPELINE_STEP_CONFIGS"].(map[string]any)) != 1 || reg["STEP_CONFIG"].(map[string]any)["execution_role"] != "arn:aws:iam::111122223333:role/X" || env["meta"].(map[string]any)["auto_template"] != false {
		t.Fatalf("fill given doc %v", env)
	}
	if !strings.Contains(strings.Join(i8Strings(env["warnings"]), "\n"), "CradleDataLoading-Training") {
		t.Fatalf("the missing cradle entry should be warned about: %v", env["warnings"])
	}
	// anchor_file gives the root too
	i8OK(t, i8Call(t, ctx, "execdoc.generate", map[string]any{"dag": i8DAG(), "config_path": "config.json", "anchor_file": filepath.Join(dir, "README.md")}))

	i8Fail(t, i8Call(t, ctx, "execdoc.generate", map[string]any{"dag": i8DAG(), "config_path": filepath.Join(dir, "missing.json")}), "not_found", "config.template")
	i8Fail(t, i8Call(t, ctx, "execdoc.generate", map[string]any{"dag": i8DAG(), "dag_file": "x.json", "config_path": cfg}), "invalid_input")
	i8Fail(t, i8Call(t, ctx, "execdoc.generate", map[string]any{"config_path": cfg}), "invalid_input")
	i8Fail(t, i8Call(t, ctx, "execdoc.generate", map[string]any{"dag": i8DAG()}), "invalid_input")
	i8Fail(t, i8Call(t, ctx, "execdoc.generate", map[string]any{"dag": i8DAG(), "config_path": cfg, "execution_document": []any{}}), "invalid_input")
	i8Fail(t, i8Call(t, ctx, "execdoc.generate", map[string]any{"dag": i8DAG(), "config_path": cfg, "execution_document": map[string]any{"x": 1}}), "invalid_input", "execdoc.validate")
	i8Fail(t, i8Call(t, ctx, "execdoc.generate", map[string]any{"dag": i8DAG(), "config_path": cfg, "role": "admin"}), "invalid_input")

	// the tool is flagged network (as the original) but not gated by the read-only policy
	gated := registry.WithPolicy(ctx, registry.Policy{})
	i8OK(t, i8Call(t, gated, "execdoc.generate", map[string]any{"dag": i8DAG(), "config_path": cfg}))
}

func i8Strings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
