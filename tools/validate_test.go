package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/validation"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

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

func TestValidateStepInterfaceTool(t *testing.T) {
	ctx := context.Background()
	env := callTool(t, ctx, "validate.step_interface", map[string]any{"step_name": "TabularPreprocessing"})
	d := wantOK(t, env)
	if d["validated"] != 1.0 || d["errors"] != 0.0 || len(d["results"].([]any)) != 1 {
		t.Fatalf("data: %v", d)
	}
	if n := nextTools(env); len(n) != 1 || n[0] != "validate.alignment" {
		t.Errorf("next steps %v", n)
	}
	d = wantOK(t, callTool(t, ctx, "validate.step_interface", map[string]any{"all": true}))
	cat, _ := catalog.Default()
	if int(d["validated"].(float64)) != cat.Len() {
		t.Errorf("all: validated %v of %d", d["validated"], cat.Len())
	}
	// Unknown step: validation_failed with the results and a remedy.
	env = callTool(t, ctx, "validate.step_interface", map[string]any{"step_name": "NoSuchStepXyz"})
	det := wantFail(t, env, envelope.CodeValidationFailed)
	if det["errors"] != 1.0 || len(det["results"].([]any)) != 1 {
		t.Errorf("details %v", det)
	}
	if r := remedyToolsOf(t, env); strings.Join(r, ",") != "strategies.for_step_type,catalog.config_fields,validate.deps_explain,catalog.search" {
		t.Errorf("remedy %v", r)
	}
	// A broken workspace file: the error names the field.
	bad := writeFiles(t, map[string]string{"DemoScoring.step.yaml": strings.Replace(vwStep, "kind: internal", "kind: internal\nbogus_key: 1", 1)})
	det = wantFail(t, callTool(t, ctx, "validate.step_interface", map[string]any{"step_name": "DemoScoring", "workspace_dirs": []string{bad}}), envelope.CodeValidationFailed)
	if !strings.Contains(toJSON(det), "bogus_key") {
		t.Errorf("details do not name the field: %v", det)
	}
	good := writeFiles(t, map[string]string{"DemoScoring.step.yaml": vwStep})
	wantOK(t, callTool(t, ctx, "validate.step_interface", map[string]any{"step_name": "DemoScoring", "workspace_dirs": []string{good}, "job_type": "training"}))
	// Invalid input.
	wantFail(t, callTool(t, ctx, "validate.step_interface", map[string]any{}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "validate.step_interface", map[string]any{"step_name": "   "}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "validate.step_interface", map[string]any{"step_name": "TabularPreprocessing", "job_type": 3}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "validate.step_interface", map[string]any{"all": true, "workspace_dirs": []string{filepath.Join(t.TempDir(), "nope")}}), envelope.CodeNotFound)
}

func TestValidateAlignmentTool(t *testing.T) {
	ctx := context.Background()
	d := wantOK(t, callTool(t, ctx, "validate.alignment", map[string]any{}))
	cat, _ := catalog.Default()
	if int(d["total_steps"].(float64)) != cat.Len() || d["scope"] != "all_steps" || d["pass_rate"] != 1.0 || d["failed_steps"] != 0.0 {
		t.Fatalf("all: %v", d)
	}
	for _, k := range []string{"step_type_breakdown", "level_summary", "critical_issues", "critical_issue_count", "step_results", "excluded_steps"} {
		if _, ok := d[k]; !ok {
			t.Errorf("missing key %s", k)
		}
	}
	env := callTool(t, ctx, "validate.alignment", map[string]any{"target_scripts": []string{"tabular_preprocessing.py", "XGBoostTraining"}})
	d = wantOK(t, env)
	if d["scope"] != "target_scripts" || d["total_steps"] != 2.0 || len(d["detailed_results"].([]any)) != 2 {
		t.Fatalf("subset: %v", d)
	}
	if env["meta"].(map[string]any)["tool_scope"] != "subset" {
		t.Errorf("meta %v", env["meta"])
	}
	// A failing step: the report is still a success, with a warning and validate.step next.
	ws := writeFiles(t, map[string]string{"DemoScoring.step.yaml": vwStep + "  - {name: secret_code, type: string, tier: essential, pattern: \"^zz[0-9]{9}q$\", description: \"Impossible.\"}\n"})
	env = callTool(t, ctx, "validate.alignment", map[string]any{"target_scripts": []string{"DemoScoring"}, "workspace_dirs": []string{ws}})
	if d := wantOK(t, env); d["failed_steps"] != 1.0 || len(env["warnings"].([]any)) == 0 || nextTools(env)[0] != "validate.step" {
		t.Errorf("failing step: %v", env)
	}
	env = callTool(t, ctx, "validate.alignment", map[string]any{"target_scripts": []string{"NoSuchStepXyz"}})
	wantFail(t, env, envelope.CodeNotFound)
	remedyToolsOf(t, env)
	wantFail(t, callTool(t, ctx, "validate.alignment", map[string]any{"target_scripts": "TabularPreprocessing"}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "validate.alignment", map[string]any{"target_scripts": []string{""}}), envelope.CodeInvalidInput)
}

func TestValidateStepAndBuilderTools(t *testing.T) {
	ctx := context.Background()
	env := callTool(t, ctx, "validate.step", map[string]any{"step_name": "XGBoostTraining"})
	d := wantOK(t, env)
	if d["step_name"] != "XGBoostTraining" || d["overall_status"] != "PASSED" || len(d["validation_results"].(map[string]any)) != 4 {
		t.Fatalf("validate.step: %v", d)
	}
	env = callTool(t, ctx, "validate.step", map[string]any{"step_name": "NoSuchStepXyz"})
	wantFail(t, env, envelope.CodeNotFound)
	remedyToolsOf(t, env)
	wantFail(t, callTool(t, ctx, "validate.step", map[string]any{}), envelope.CodeInvalidInput)

	env = callTool(t, ctx, "validate.builder", map[string]any{"step_name": "TabularPreprocessing"})
	d = wantOK(t, env)
	score := d["score"].(map[string]any)
	if score["overall"] != 100.0 || score["rating"] != "Excellent" || d["passed"] != true || env["meta"].(map[string]any)["step_name"] != "TabularPreprocessing" {
		t.Fatalf("builder: %v", d)
	}
	frag := d["build"].(map[string]any)["fragment"].(map[string]any)
	if frag["Type"] != "Processing" || frag["Name"] != "TabularPreprocessing-Training" {
		t.Errorf("fragment %v", frag)
	}
	d = wantOK(t, callTool(t, ctx, "validate.builder", map[string]any{"step_name": "XGBoostTraining", "enable_scoring": false}))
	if _, ok := d["score"]; ok {
		t.Errorf("scoring off still scored: %v", d["score"])
	}
	env = callTool(t, ctx, "validate.builder", map[string]any{"step_name": "NoSuchStepXyz"})
	wantFail(t, env, envelope.CodeNotFound)
	remedyToolsOf(t, env)
	wantFail(t, callTool(t, ctx, "validate.builder", map[string]any{"step_name": "TabularPreprocessing", "enable_scoring": "yes"}), envelope.CodeInvalidInput)
}

func TestValidateInfoTool(t *testing.T) {
	d := wantOK(t, callTool(t, context.Background(), "validate.info", map[string]any{}))
	v := d["validation"].(map[string]any)
	if len(v["levels"].([]any)) != 4 || v["resolver_threshold"] != 0.5 {
		t.Errorf("validation: %v", v)
	}
	st := d["script_testing"].(map[string]any)
	if st["python"].(map[string]any)["available"] != validation.Python().Available {
		t.Errorf("script testing: %v", st)
	}
	wantFail(t, callTool(t, context.Background(), "validate.info", map[string]any{"x": 1}), envelope.CodeInvalidInput)
}

func TestValidateRunScriptsToolInputs(t *testing.T) {
	ctx := context.Background()
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantFail(t, callTool(t, ctx, "validate.run_scripts", map[string]any{"dag": map[string]any{"nodes": []string{}}, "config_file": cfg}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "validate.run_scripts", map[string]any{"dag": map[string]any{"nodes": []string{"A"}, "edges": [][]string{{"A"}}}, "config_file": cfg}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "validate.run_scripts", map[string]any{"dag": map[string]any{"nodes": []string{"A"}, "edges": [][]string{{"A", "B"}}}, "config_file": cfg}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "validate.run_scripts", map[string]any{"dag": map[string]any{"nodes": []string{"A", "B"}, "edges": [][]string{{"A", "B"}, {"B", "A"}}}, "config_file": cfg}), envelope.CodeInvalidInput)
	// A blank config_file: invalid_input naming the argument, with a remedy.
	env := callTool(t, ctx, "validate.run_scripts", map[string]any{"dag": map[string]any{"nodes": []string{"A"}}, "config_file": "  "})
	wantFail(t, env, envelope.CodeInvalidInput, "config.template")
	if msg, _ := env["error"].(string); !strings.Contains(msg, "config_file") {
		t.Errorf("blank config_file: message %q does not name the argument", msg)
	}
	// the old spellings (top-level nodes, config_path) still reach the same checks
	env = callTool(t, ctx, "validate.run_scripts", map[string]any{"nodes": []string{"A"}, "config_path": filepath.Join(t.TempDir(), "missing.json")})
	wantFail(t, env, envelope.CodeNotFound)
	remedyToolsOf(t, env)
	// The workspace is confined to the project root.
	root := t.TempDir()
	pctx := registry.WithPolicy(ctx, registry.Policy{AllowScriptExec: true, AllowDestructive: true, ProjectRoot: root})
	if validation.Python().Available {
		det := wantFail(t, callTool(t, pctx, "validate.run_scripts", map[string]any{"dag": map[string]any{"nodes": []string{"A"}}, "config_file": cfg, "test_workspace_dir": "../outside"}), envelope.CodeInvalidInput)
		if det["env_var"] != registry.EnvProjectRoot {
			t.Errorf("details %v", det)
		}
	}
	// The gate: closed by default under a policy.
	det := wantFail(t, callTool(t, registry.WithPolicy(ctx, registry.Policy{ProjectRoot: root}), "validate.run_scripts", map[string]any{"dag": map[string]any{"nodes": []string{"A"}}, "config_file": cfg}), envelope.CodeToolDisabled)
	if det["env_var"] != registry.EnvAllowScriptExec {
		t.Errorf("gate details %v", det)
	}
	// It writes run folders: the exec gate alone does not open it.
	det = wantFail(t, callTool(t, registry.WithPolicy(ctx, registry.Policy{ProjectRoot: root, AllowScriptExec: true}), "validate.run_scripts", map[string]any{"dag": map[string]any{"nodes": []string{"A"}}, "config_file": cfg}), envelope.CodeToolDisabled)
	if det["env_var"] != registry.EnvEnableDestructive {
		t.Errorf("with only the exec gate open, the write gate is named: %v", det)
	}
}
