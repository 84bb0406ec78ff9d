package tools

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

func eqAny(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// The gated example's gate shows in dag.render (a decision with pass and
// fail edges), dag.resolve_plan and compile.with_report (the nodes each
// branch holds).
func TestGateBranchesShown(t *testing.T) {
	ctx := context.Background()
	dagFile, cfg := "../examples/xgboost-gated/dag.json", "../examples/xgboost-gated/config.json"
	ifNodes := []any{"XGBoostModel", "Package", "Payload", "BatchTransform_calibration", "Registration"}

	d := wantOK(t, callTool(t, ctx, "dag.render", map[string]any{"dag_file": dagFile}))
	text := d["mermaid"].(string)
	for _, want := range []string{`n6{"ModelQualityGate"}`, `n6 -->|"pass"| n7`, `n6 -->|"fail"| f0`, `f0(["ModelQualityGate: Fail, the run ends"])`} {
		if !strings.Contains(text, want) {
			t.Errorf("dag.render lacks %s:\n%s", want, text)
		}
	}
	br := d["branches"].([]any)
	if len(br) != 1 || br[0].(map[string]any)["gate"] != "ModelQualityGate" {
		t.Fatalf("dag.render branches %v", br)
	}
	eqAny(t, "render if_nodes", br[0].(map[string]any)["if_nodes"], ifNodes)

	p := wantOK(t, callTool(t, ctx, "dag.resolve_plan", map[string]any{"dag_file": dagFile}))
	eqAny(t, "resolve_plan if_nodes", p["branches"].([]any)[0].(map[string]any)["if_nodes"], ifNodes)
	if flow := p["data_flow_map"].(map[string]any)["ModelQualityGate"].(map[string]any); flow["metrics"] != "XGBoostModelEval_calibration:metrics_output" {
		t.Errorf("the gate reads the evaluation's report: %v", flow)
	}

	r := wantOK(t, callTool(t, ctx, "compile.with_report", map[string]any{"dag_file": dagFile, "config_file": cfg}))
	b := r["branches"].([]any)[0].(map[string]any)
	eqAny(t, "with_report if_steps", b["if_steps"], []any{"XGBoostModel", "Package", "Payload", "BatchTransform-Calibration", "Registration-NA"})
	eqAny(t, "with_report else_steps", b["else_steps"], []any{"ModelQualityGate-Fail"})
	if det := r["resolution_details"].(map[string]any)["Registration"].(map[string]any); det["branch"] != "ModelQualityGate" {
		t.Errorf("Registration's branch: %v", det)
	}
}
