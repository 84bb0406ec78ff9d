package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/validation"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

// vwCall calls a tool through the registry and returns the wire envelope.
func vwCall(t *testing.T, ctx context.Context, name string, args map[string]any) map[string]any {
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

func vwOK(t *testing.T, env map[string]any) map[string]any {
	t.Helper()
	if env["ok"] != true {
		t.Fatalf("not ok: %v", env)
	}
	d, _ := env["data"].(map[string]any)
	return d
}

// vwFail checks a failure's code and returns meta.details.
func vwFail(t *testing.T, env map[string]any, code envelope.Code) map[string]any {
	t.Helper()
	if env["ok"] != false || env["code"] != string(code) {
		t.Fatalf("want %s, got %v", code, env)
	}
	meta, _ := env["meta"].(map[string]any)
	d, _ := meta["details"].(map[string]any)
	return d
}

// vwRemedy returns the remedy's suggested tools.
func vwRemedy(t *testing.T, env map[string]any) []string {
	t.Helper()
	r, ok := env["remedy"].(map[string]any)
	if !ok {
		t.Fatalf("no remedy: %v", env)
	}
	var out []string
	for _, x := range r["suggested_tools"].([]any) {
		out = append(out, x.(string))
	}
	if r["fix_action"] == "" {
		t.Errorf("remedy without fix_action: %v", r)
	}
	return out
}

func vwNextTools(env map[string]any) []string {
	var out []string
	ns, _ := env["next_steps"].([]any)
	for _, n := range ns {
		out = append(out, n.(map[string]any)["tool"].(string))
	}
	return out
}

const vwStep = `step: DemoScoring
verb: Processing
kind: internal
description: Score rows for the tests of tools/validate.go.
framework: generic
job_types: [training, calibration]
compute:
  kind: sklearn
contract:
  entry_point: demo_scoring.py
  job_arguments:
    - {flag: --job_type, source: job_type}
  env:
    - {name: LABEL_FIELD, field: label_name, description: "Label column."}
inputs:
  - name: input_data
    type: processing_output
    path: /opt/ml/processing/input/data
    required: true
    compatible_sources: [TabularPreprocessing]
    keywords: [processed, data]
    description: Rows to score.
outputs:
  - name: scores
    type: processing_output
    path: /opt/ml/processing/output/scores
    aliases: [predictions]
    description: Scores.
fields:
  - {name: processing_entry_point, default: demo_scoring.py}
  - {name: job_type, type: string, tier: essential, pattern: "^[a-z][a-z0-9_]*$", description: "Job type."}
  - {name: label_name, type: string, tier: system, default: label, description: "Label column."}
`

func vwWorkspace(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestValidateStepInterfaceTool(t *testing.T) {
	ctx := context.Background()
	env := vwCall(t, ctx, "validate.step_interface", map[string]any{"step_name": "TabularPreprocessing"})
	d := vwOK(t, env)
	if d["validated"] != 1.0 || d["errors"] != 0.0 || len(d["results"].([]any)) != 1 {
		t.Fatalf("data: %v", d)
	}
	if n := vwNextTools(env); len(n) != 1 || n[0] != "validate.alignment" {
		t.Errorf("next steps %v", n)
	}
	d = vwOK(t, vwCall(t, ctx, "validate.step_interface", map[string]any{"all": true}))
	cat, _ := catalog.Default()
	if int(d["validated"].(float64)) != cat.Len() {
		t.Errorf("all: validated %v of %d", d["validated"], cat.Len())
	}
	// Unknown step: validation_failed with the results and a remedy.
	env = vwCall(t, ctx, "validate.step_interface", map[string]any{"step_name": "NoSuchStepXyz"})
	det := vwFail(t, env, envelope.CodeValidationFailed)
	if det["errors"] != 1.0 || len(det["results"].([]any)) != 1 {
		t.Errorf("details %v", det)
	}
	if r := vwRemedy(t, env); strings.Join(r, ",") != "strategies.for_step_type,catalog.config_fields,validate.deps_explain,catalog.search" {
		t.Errorf("remedy %v", r)
	}
	// A broken workspace file: the error names the field.
	bad := vwWorkspace(t, map[string]string{"DemoScoring.step.yaml": strings.Replace(vwStep, "kind: internal", "kind: internal\nbogus_key: 1", 1)})
	det = vwFail(t, vwCall(t, ctx, "validate.step_interface", map[string]any{"step_name": "DemoScoring", "workspace_dirs": []string{bad}}), envelope.CodeValidationFailed)
	if !strings.Contains(toJSON(det), "bogus_key") {
		t.Errorf("details do not name the field: %v", det)
	}
	good := vwWorkspace(t, map[string]string{"DemoScoring.step.yaml": vwStep})
	vwOK(t, vwCall(t, ctx, "validate.step_interface", map[string]any{"step_name": "DemoScoring", "workspace_dirs": []string{good}, "job_type": "training"}))
	// Invalid input.
	vwFail(t, vwCall(t, ctx, "validate.step_interface", map[string]any{}), envelope.CodeInvalidInput)
	vwFail(t, vwCall(t, ctx, "validate.step_interface", map[string]any{"step_name": "   "}), envelope.CodeInvalidInput)
	vwFail(t, vwCall(t, ctx, "validate.step_interface", map[string]any{"step_name": "TabularPreprocessing", "job_type": 3}), envelope.CodeInvalidInput)
	vwFail(t, vwCall(t, ctx, "validate.step_interface", map[string]any{"all": true, "workspace_dirs": []string{filepath.Join(t.TempDir(), "nope")}}), envelope.CodeNotFound)
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestValidateAlignmentTool(t *testing.T) {
	ctx := context.Background()
	d := vwOK(t, vwCall(t, ctx, "validate.alignment", map[string]any{}))
	cat, _ := catalog.Default()
	if int(d["total_steps"].(float64)) != cat.Len() || d["scope"] != "all_steps" || d["pass_rate"] != 1.0 || d["failed_steps"] != 0.0 {
		t.Fatalf("all: %v", d)
	}
	for _, k := range []string{"step_type_breakdown", "level_summary", "critical_issues", "critical_issue_count", "step_results", "excluded_steps"} {
		if _, ok := d[k]; !ok {
			t.Errorf("missing key %s", k)
		}
	}
	env := vwCall(t, ctx, "validate.alignment", map[string]any{"target_scripts": []string{"tabular_preprocessing.py", "XGBoostTraining"}})
	d = vwOK(t, env)
	if d["scope"] != "target_scripts" || d["total_steps"] != 2.0 || len(d["detailed_results"].([]any)) != 2 {
		t.Fatalf("subset: %v", d)
	}
	if env["meta"].(map[string]any)["tool_scope"] != "subset" {
		t.Errorf("meta %v", env["meta"])
	}
	// A failing step: the report is still a success, with a warning and validate.step next.
	ws := vwWorkspace(t, map[string]string{"DemoScoring.step.yaml": vwStep + "  - {name: secret_code, type: string, tier: essential, pattern: \"^zz[0-9]{9}q$\", description: \"Impossible.\"}\n"})
	env = vwCall(t, ctx, "validate.alignment", map[string]any{"target_scripts": []string{"DemoScoring"}, "workspace_dirs": []string{ws}})
	if d := vwOK(t, env); d["failed_steps"] != 1.0 || len(env["warnings"].([]any)) == 0 || vwNextTools(env)[0] != "validate.step" {
		t.Errorf("failing step: %v", env)
	}
	env = vwCall(t, ctx, "validate.alignment", map[string]any{"target_scripts": []string{"NoSuchStepXyz"}})
	vwFail(t, env, envelope.CodeNotFound)
	vwRemedy(t, env)
	vwFail(t, vwCall(t, ctx, "validate.alignment", map[string]any{"target_scripts": "TabularPreprocessing"}), envelope.CodeInvalidInput)
	vwFail(t, vwCall(t, ctx, "validate.alignment", map[string]any{"target_scripts": []string{""}}), envelope.CodeInvalidInput)
}

func TestValidateStepAndBuilderTools(t *testing.T) {
	ctx := context.Background()
	env := vwCall(t, ctx, "validate.step", map[string]any{"step_name": "XGBoostTraining"})
	d := vwOK(t, env)
	if d["step_name"] != "XGBoostTraining" || d["overall_status"] != "PASSED" || len(d["validation_results"].(map[string]any)) != 4 {
		t.Fatalf("validate.step: %v", d)
	}
	env = vwCall(t, ctx, "validate.step", map[string]any{"step_name": "NoSuchStepXyz"})
	vwFail(t, env, envelope.CodeNotFound)
	vwRemedy(t, env)
	vwFail(t, vwCall(t, ctx, "validate.step", map[string]any{}), envelope.CodeInvalidInput)

	env = vwCall(t, ctx, "validate.builder", map[string]any{"step_name": "TabularPreprocessing"})
	d = vwOK(t, env)
	score := d["score"].(map[string]any)
	if score["overall"] != 100.0 || score["rating"] != "Excellent" || d["passed"] != true || env["meta"].(map[string]any)["step_name"] != "TabularPreprocessing" {
		t.Fatalf("builder: %v", d)
	}
	frag := d["build"].(map[string]any)["fragment"].(map[string]any)
	if frag["Type"] != "Processing" || frag["Name"] != "TabularPreprocessing-Training" {
		t.Errorf("fragment %v", frag)
	}
	d = vwOK(t, vwCall(t, ctx, "validate.builder", map[string]any{"step_name": "XGBoostTraining", "enable_scoring": false}))
	if _, ok := d["score"]; ok {
		t.Errorf("scoring off still scored: %v", d["score"])
	}
	env = vwCall(t, ctx, "validate.builder", map[string]any{"step_name": "NoSuchStepXyz"})
	vwFail(t, env, envelope.CodeNotFound)
	vwRemedy(t, env)
	vwFail(t, vwCall(t, ctx, "validate.builder", map[string]any{"step_name": "TabularPreprocessing", "enable_scoring": "yes"}), envelope.CodeInvalidInput)
}

func TestValidateInfoTool(t *testing.T) {
	d := vwOK(t, vwCall(t, context.Background(), "validate.info", map[string]any{}))
	v := d["validation"].(map[string]any)
	if len(v["levels"].([]any)) != 4 || v["resolver_threshold"] != 0.5 {
		t.Errorf("validation: %v", v)
	}
	st := d["script_testing"].(map[string]any)
	if st["python"].(map[string]any)["available"] != validation.Python().Available {
		t.Errorf("script testing: %v", st)
	}
	vwFail(t, vwCall(t, context.Background(), "validate.info", map[string]any{"x": 1}), envelope.CodeInvalidInput)
}

func TestValidateRunScriptsToolInputs(t *testing.T) {
	ctx := context.Background()
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	vwFail(t, vwCall(t, ctx, "validate.run_scripts", map[string]any{"nodes": []string{}, "config_path": cfg}), envelope.CodeInvalidInput)
	vwFail(t, vwCall(t, ctx, "validate.run_scripts", map[string]any{"nodes": []string{"A"}, "config_path": cfg, "edges": [][]string{{"A"}}}), envelope.CodeInvalidInput)
	vwFail(t, vwCall(t, ctx, "validate.run_scripts", map[string]any{"nodes": []string{"A"}, "config_path": cfg, "edges": [][]string{{"A", "B"}}}), envelope.CodeInvalidInput)
	vwFail(t, vwCall(t, ctx, "validate.run_scripts", map[string]any{"nodes": []string{"A", "B"}, "config_path": cfg, "edges": [][]string{{"A", "B"}, {"B", "A"}}}), envelope.CodeInvalidInput)
	env := vwCall(t, ctx, "validate.run_scripts", map[string]any{"nodes": []string{"A"}, "config_path": filepath.Join(t.TempDir(), "missing.json")})
	vwFail(t, env, envelope.CodeNotFound)
	vwRemedy(t, env)
	// The workspace is confined to the project root.
	root := t.TempDir()
	pctx := registry.WithPolicy(ctx, registry.Policy{AllowScriptExec: true, ProjectRoot: root})
	if validation.Python().Available {
		det := vwFail(t, vwCall(t, pctx, "validate.run_scripts", map[string]any{"nodes": []string{"A"}, "config_path": cfg, "test_workspace_dir": "../outside"}), envelope.CodeInvalidInput)
		if det["base"] == nil {
			t.Errorf("details %v", det)
		}
	}
	// The gate: closed by default under a policy.
	det := vwFail(t, vwCall(t, registry.WithPolicy(ctx, registry.Policy{ProjectRoot: root}), "validate.run_scripts", map[string]any{"nodes": []string{"A"}, "config_path": cfg}), envelope.CodeToolDisabled)
	if det["env_var"] != registry.EnvAllowScriptExec {
		t.Errorf("gate details %v", det)
	}
}
