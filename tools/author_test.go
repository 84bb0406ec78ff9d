package tools

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/validation"
	"github.com/cursus-go/cursus/envelope"
)

func TestAuthorRulesTool(t *testing.T) {
	ctx := context.Background()
	for _, topic := range []string{"naming", "packaging", "sdk_carveout", "reuse_class", "closure"} {
		d := wantOK(t, callTool(t, ctx, "author.rules", map[string]any{"topic": topic}))
		if d["topic"] != topic || len(d["rules"].(map[string]any)) == 0 {
			t.Errorf("%s: %v", topic, d)
		}
	}
	d := wantOK(t, callTool(t, ctx, "author.rules", map[string]any{"topic": "naming"}))
	if d["rules"].(map[string]any)["step_name_pattern"] != "^[A-Z][A-Za-z0-9]*$" {
		t.Errorf("naming: %v", d)
	}
	wantFail(t, callTool(t, ctx, "author.rules", map[string]any{"topic": "nope"}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "author.rules", map[string]any{}), envelope.CodeInvalidInput)
}

func TestAuthorChecklistTool(t *testing.T) {
	ctx := context.Background()
	env := callTool(t, ctx, "author.checklist", map[string]any{"sagemaker_step_type": "Processing"})
	d := wantOK(t, env)
	steps := d["steps"].([]any)
	if len(steps) < 5 || d["routable"] != true || d["exemplar_step"] != "TabularPreprocessing" || nextTools(env)[0] != "strategies.for_step_type" {
		t.Fatalf("processing: %v", env)
	}
	checkSteps := func(verb string, steps []any) {
		t.Helper()
		for _, s := range steps {
			m := s.(map[string]any)
			if blank(m["tool"]) || blank(m["phase"]) {
				t.Errorf("%s: step %v", verb, m)
			}
			// every step names a real tool and hints its current arguments; so do its see_also
			step := envelope.NextStep{Tool: m["tool"].(string), ArgsHint: m["args_hint"]}
			res := envelope.OK(nil).WithNextSteps(step)
			if also, ok := m["see_also"].([]any); ok {
				for _, a := range also {
					res.WithNextSteps(envelope.NextStep{Tool: a.(string)})
				}
			}
			for _, p := range testRegistry().CheckHints(res) {
				t.Errorf("%s: step %v: %s", verb, m["order"], p)
			}
		}
	}
	checkSteps("Processing", steps)
	// the step file of a Processing step is scaffolded, not written by hand
	write := steps[3].(map[string]any)
	if write["tool"] != "author.scaffold_step" || write["phase"] != "author" {
		t.Errorf("Processing write step: %v", write)
	}
	for _, verb := range []string{"Training", "CreateModel", "Transform", "RegisterModel", "Tuning"} {
		d := wantOK(t, callTool(t, ctx, "author.checklist", map[string]any{"sagemaker_step_type": verb}))
		steps := d["steps"].([]any)
		checkSteps(verb, steps)
		if w := steps[3].(map[string]any); w["tool"] == "author.scaffold_step" || !strings.Contains(w["action"].(string), "author.scaffold_step scaffolds Processing steps") {
			t.Errorf("%s write step: %v", verb, w)
		}
	}
	sa := wantOK(t, callTool(t, ctx, "author.checklist", map[string]any{"sagemaker_step_type": "Processing", "step_assembly": "step_args"}))
	if w := sa["steps"].([]any)[3].(map[string]any); w["tool"] != "catalog.step_info" {
		t.Errorf("step_args write step: %v", w)
	}
	// Original step types without a builder: routable false, a warning, no next steps.
	env = callTool(t, ctx, "author.checklist", map[string]any{"sagemaker_step_type": "Lambda"})
	if d := wantOK(t, env); d["routable"] != false || env["warnings"] == nil || env["next_steps"] != nil {
		t.Errorf("Lambda: %v", env)
	}
	env = callTool(t, ctx, "author.checklist", map[string]any{"sagemaker_step_type": "CradleDataLoading"})
	if d := wantOK(t, env); d["sagemaker_step_type"] != "Processing" || env["warnings"] == nil {
		t.Errorf("CradleDataLoading: %v", env)
	}
	wantFail(t, callTool(t, ctx, "author.checklist", map[string]any{"sagemaker_step_type": "Bogus"}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "author.checklist", map[string]any{"sagemaker_step_type": "Training", "step_assembly": "step_args"}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "author.checklist", map[string]any{}), envelope.CodeInvalidInput)
}

func TestAuthorConfigTools(t *testing.T) {
	ctx := context.Background()
	d := wantOK(t, callTool(t, ctx, "author.config_constraints", map[string]any{"step_name": "TabularPreprocessing"}))
	if d["config_class"] != "TabularPreprocessingConfig" || len(d["constrained_fields"].([]any)) == 0 {
		t.Fatalf("constraints: %v", d)
	}
	env := callTool(t, ctx, "author.config_constraints", map[string]any{"step_name": "NoSuchStepXyz"})
	wantFail(t, env, envelope.CodeNotFound)
	remedyToolsOf(t, env)

	env = callTool(t, ctx, "author.preflight_config", map[string]any{"step_name": "TabularPreprocessing", "values": map[string]any{"job_type": "training", "output_format": "CSV"}, "partial": true})
	if d := wantOK(t, env); d["valid"] != true || nextTools(env)[0] != "author.preflight_step" {
		t.Fatalf("valid values: %v", env)
	}
	env = callTool(t, ctx, "author.preflight_config", map[string]any{"step_name": "XGBoostTraining", "values": map[string]any{"no_such_field_xyz": 1, "training_instance_count": "many"}})
	det := wantFail(t, env, envelope.CodeConfigInvalid)
	if r := remedyToolsOf(t, env); r[0] != "author.config_constraints" {
		t.Errorf("remedy %v", r)
	}
	fields := map[string]bool{}
	for _, e := range det["errors"].([]any) {
		m := e.(map[string]any)
		fields[m["field"].(string)] = true
		if blank(m["message"]) || blank(m["type"]) {
			t.Errorf("error %v", m)
		}
	}
	if !fields["no_such_field_xyz"] || !fields["training_instance_count"] || det["valid"] != false || det["config_class"] != "XGBoostTrainingConfig" {
		t.Errorf("details %v", det)
	}
	wantFail(t, callTool(t, ctx, "author.preflight_config", map[string]any{"step_name": "XGBoostTraining", "values": []any{1}}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "author.preflight_config", map[string]any{"step_name": "XGBoostTraining"}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "author.preflight_config", map[string]any{"step_name": "NoSuchStepXyz", "values": map[string]any{}}), envelope.CodeNotFound)
}

const vwGoodScript = `import argparse, os
IN = "/opt/ml/processing/input/data"
OUT = "/opt/ml/processing/output/scores"
p = argparse.ArgumentParser(); p.add_argument("--job_type", default="")
print(IN, OUT, os.environ.get("LABEL_FIELD", "label"), p.parse_args().job_type)
`

func TestAuthorCheckScriptTool(t *testing.T) {
	ctx := context.Background()
	ws := writeFiles(t, map[string]string{"DemoScoring.step.yaml": vwStep})
	// No script on disk: skipped with a warning.
	env := callTool(t, ctx, "author.check_script", map[string]any{"step_name": "DemoScoring", "workspace_dirs": []string{ws}})
	if d := wantOK(t, env); d["status"] != "skipped" || d["passed"] != true || env["warnings"] == nil {
		t.Fatalf("no script: %v", env)
	}
	env = callTool(t, ctx, "author.check_script", map[string]any{"step_name": "DemoScoring", "script_path": filepath.Join(ws, "nope.py")})
	wantFail(t, env, envelope.CodeNotFound)
	wantFail(t, callTool(t, ctx, "author.check_script", map[string]any{"step_name": "NoSuchStepXyz"}), envelope.CodeNotFound)
	wantFail(t, callTool(t, ctx, "author.check_script", map[string]any{}), envelope.CodeInvalidInput)
	if !validation.Python().Available {
		t.Skip("python3 is not available: the checked, failed and unparsable cases need it")
	}
	writeFile(t, ws, "scripts/demo_scoring.py", vwGoodScript)
	env = callTool(t, ctx, "author.check_script", map[string]any{"step_name": "DemoScoring", "workspace_dirs": []string{ws}})
	if d := wantOK(t, env); d["status"] != "checked" || d["passed"] != true {
		t.Fatalf("good script: %v", env)
	}
	bad := writeFile(t, t.TempDir(), "demo_scoring.py", vwGoodScript+"print(os.environ['EXTRA_KNOB'])\n")
	env = callTool(t, ctx, "author.check_script", map[string]any{"step_name": "DemoScoring", "workspace_dirs": []string{ws}, "script_path": bad})
	det := wantFail(t, env, envelope.CodeScriptCheckFailed)
	if det["passed"] != false || !strings.Contains(toJSON(det["issues"]), "EXTRA_KNOB") {
		t.Errorf("details %v", det)
	}
	if r := remedyToolsOf(t, env); strings.Join(r, ",") != "steps.io,author.config_constraints" {
		t.Errorf("remedy %v", r)
	}
	broken := writeFile(t, t.TempDir(), "demo_scoring.py", "def broken(:\n")
	env = callTool(t, ctx, "author.check_script", map[string]any{"step_name": "DemoScoring", "workspace_dirs": []string{ws}, "script_path": broken})
	if det := wantFail(t, env, envelope.CodeScriptAnalysisError); det["kind"] != "syntax" {
		t.Errorf("details %v", det)
	}
}

func TestAuthorPreflightStepTool(t *testing.T) {
	ctx := context.Background()
	env := callTool(t, ctx, "author.preflight_step", map[string]any{"step_name": "TabularPreprocessing"})
	d := wantOK(t, env)
	if d["constructible"] != true || len(d["gates"].([]any)) != 4 || nextTools(env)[0] != "compile.validate" {
		t.Fatalf("preflight: %v", env)
	}
	unbuildable := vwStep + "  - {name: secret_code, type: string, tier: essential, pattern: \"^zz[0-9]{9}q$\", description: \"Impossible.\"}\n"
	ws := writeFiles(t, map[string]string{"DemoScoring.step.yaml": unbuildable})
	env = callTool(t, ctx, "author.preflight_step", map[string]any{"step_name": "DemoScoring", "workspace_dirs": []string{ws}})
	det := wantFail(t, env, envelope.CodeNotConstructible)
	if !strings.Contains(env["error"].(string), "builder_routability") || det["constructible"] != false {
		t.Errorf("not constructible: %v", env)
	}
	if r := remedyToolsOf(t, env); r[0] != "validate.step_interface" {
		t.Errorf("remedy %v", r)
	}
	env = callTool(t, ctx, "author.preflight_step", map[string]any{"step_name": "NoSuchStepXyz"})
	if det := wantFail(t, env, envelope.CodeNotConstructible); det["failed_gates"].([]any)[0] != "interface" {
		t.Errorf("unknown step: %v", det)
	}
	wantFail(t, callTool(t, ctx, "author.preflight_step", map[string]any{}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "author.preflight_step", map[string]any{"all": "yes"}), envelope.CodeInvalidInput)
}
