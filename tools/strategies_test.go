package tools

import (
	"context"
	"reflect"
	"slices"
	"testing"
)

func TestStrategiesListAxesAndList(t *testing.T) {
	ctx := context.Background()
	d := wantOK(t, callTool(t, ctx, "strategies.list_axes", map[string]any{}))
	axes := d["axes"].([]any)
	if d["count"] != 2.0 || axes[0].(map[string]any)["axis"] != "sagemaker_step_type" || axes[1].(map[string]any)["axis"] != "step_assembly" {
		t.Fatalf("axes %v", d)
	}
	d = wantOK(t, callTool(t, ctx, "strategies.list", map[string]any{}))
	if d["count"] != 13.0 || d["axis"] != nil { // eleven SageMaker step types with a builder, two assemblies
		t.Fatalf("list %v", d)
	}
	d = wantOK(t, callTool(t, ctx, "strategies.list", map[string]any{"axis": "step_assembly"}))
	var names []string
	for _, s := range d["strategies"].([]any) {
		m := s.(map[string]any)
		names = append(names, m["name"].(string))
		if m["handler"] != "ProcessingStepBuilder" || m["axis"] != "step_assembly" {
			t.Fatalf("assembly strategy %v", m)
		}
	}
	if !slices.Equal(names, []string{"code", "step_args"}) || d["axis"] != "step_assembly" {
		t.Fatalf("filtered %v", d)
	}
	// the knobs by name only, in full with detail (as strategies.knobs has them)
	full := wantOK(t, callTool(t, ctx, "strategies.list", map[string]any{"axis": "step_assembly", "detail": true}))
	for i, s := range d["strategies"].([]any) {
		m, fm := s.(map[string]any), full["strategies"].([]any)[i].(map[string]any)
		if _, ok := m["knobs"]; ok || len(strs(t, m["knob_names"])) == 0 || len(strs(t, m["step_types"])) == 0 {
			t.Errorf("default item %v", m)
		}
		k := wantOK(t, callTool(t, ctx, "strategies.knobs", map[string]any{"axis": "step_assembly", "name": m["name"]}))
		if !reflect.DeepEqual(fm["knobs"], k["knobs"]) || !reflect.DeepEqual(fm["preset_knobs"], k["preset_knobs"]) || len(k["knobs"].([]any)) != len(strs(t, m["knob_names"])) {
			t.Errorf("%s in detail: %v, knobs %v", m["name"], fm, k)
		}
	}
	wantFail(t, callTool(t, ctx, "strategies.list", map[string]any{"axis": "colour"}), "invalid_input")
	wantFail(t, callTool(t, ctx, "strategies.list_axes", map[string]any{"axis": "x"}), "invalid_input")
}

func TestStrategiesShow(t *testing.T) {
	ctx := context.Background()
	d := wantOK(t, callTool(t, ctx, "strategies.show", map[string]any{"name": "Training"}))
	for _, k := range []string{"axis", "name", "verb", "handler", "routable", "implemented", "knobs", "preset_knobs"} {
		if _, ok := d[k]; !ok {
			t.Fatalf("descriptor lacks %s: %v", k, d)
		}
	}
	if d["handler"] != "TrainingStepBuilder" || d["axis"] != "sagemaker_step_type" {
		t.Fatalf("show %v", d)
	}
	d = wantOK(t, callTool(t, ctx, "strategies.show", map[string]any{"name": "step_args", "axis": "step_assembly"}))
	if !reflect.DeepEqual(d["preset_knobs"], map[string]any{"use_step_args": true}) {
		t.Fatalf("step_args %v", d)
	}
	det := wantFail(t, callTool(t, ctx, "strategies.show", map[string]any{"name": "no-such-strategy"}), "not_found", "strategies.list")
	if len(det["available"].([]any)) != 13 {
		t.Fatalf("details %v", det)
	}
	wantFail(t, callTool(t, ctx, "strategies.show", map[string]any{"name": "Training", "axis": "step_assembly"}), "not_found", "strategies.list")
	wantFail(t, callTool(t, ctx, "strategies.show", map[string]any{"name": " "}), "invalid_input")
	wantFail(t, callTool(t, ctx, "strategies.show", map[string]any{}), "invalid_input")
	wantFail(t, callTool(t, ctx, "strategies.show", map[string]any{"name": "code", "axis": "nope"}), "invalid_input")
}

func TestStrategiesKnobs(t *testing.T) {
	ctx := context.Background()
	d := wantOK(t, callTool(t, ctx, "strategies.knobs", map[string]any{"axis": "sagemaker_step_type", "name": "Transform"}))
	if d["count"] != float64(len(d["knobs"].([]any))) || d["name"] != "Transform" {
		t.Fatalf("knobs %v", d)
	}
	found := false
	for _, k := range d["knobs"].([]any) {
		m := k.(map[string]any)
		for _, key := range []string{"name", "type", "default", "required", "doc"} {
			if _, ok := m[key]; !ok {
				t.Fatalf("knob lacks %s: %v", key, m)
			}
		}
		if m["name"] == "input_filter" && m["default"] == "$[1:]" {
			found = true
		}
	}
	if !found {
		t.Fatal("Transform knobs lack input_filter")
	}
	wantFail(t, callTool(t, ctx, "strategies.knobs", map[string]any{"axis": "step_assembly", "name": "Transform"}), "not_found", "strategies.list")
	wantFail(t, callTool(t, ctx, "strategies.knobs", map[string]any{"name": "Transform"}), "invalid_input")
}

func TestStrategiesForStepType(t *testing.T) {
	ctx := context.Background()
	env := callTool(t, ctx, "strategies.for_step_type", map[string]any{"sagemaker_step_type": "Training"})
	d := wantOK(t, env)
	if env["warnings"] != nil {
		t.Fatalf("nothing was ignored, yet warnings: %v", env)
	}
	if d["resolved_axis"] != "sagemaker_step_type" || d["resolved_name"] != "Training" || d["strategy"].(map[string]any)["handler"] != "TrainingStepBuilder" {
		t.Fatalf("Training %v", d)
	}
	d = wantOK(t, callTool(t, ctx, "strategies.for_step_type", map[string]any{"sagemaker_step_type": "Processing"}))
	if d["resolved_axis"] != "step_assembly" || d["resolved_name"] != "code" || d["step_assembly"] != "code" {
		t.Fatalf("Processing %v", d)
	}
	d = wantOK(t, callTool(t, ctx, "strategies.for_step_type", map[string]any{"sagemaker_step_type": "Processing", "step_assembly": "step_args"}))
	if d["resolved_name"] != "step_args" || d["strategy"].(map[string]any)["preset_knobs"].(map[string]any)["use_step_args"] != true {
		t.Fatalf("step_args %v", d)
	}
	d = wantOK(t, callTool(t, ctx, "strategies.for_step_type", map[string]any{"sagemaker_step_type": "XGBoostModel"}))
	if d["resolved_name"] != "CreateModel" || d["step_type"] != "XGBoostModel" {
		t.Fatalf("catalog step type %v", d)
	}
	env = callTool(t, ctx, "strategies.for_step_type", map[string]any{"sagemaker_step_type": "Tuning", "step_assembly": "code"})
	if wantOK(t, env)["step_assembly"] != "" || !slices.Equal(strs(t, env["warnings"]), []string{`step_assembly "code" ignored: only Processing steps have assemblies`}) {
		t.Fatalf("assembly on a non-Processing type should be ignored with a warning: %v", env)
	}
	for _, bad := range []string{"Base", "AutoML"} {
		wantFail(t, callTool(t, ctx, "strategies.for_step_type", map[string]any{"sagemaker_step_type": bad}), "not_found", "strategies.list")
	}
	wantFail(t, callTool(t, ctx, "strategies.for_step_type", map[string]any{"sagemaker_step_type": "Processing", "step_assembly": "lambda"}), "not_found", "strategies.list")
	wantFail(t, callTool(t, ctx, "strategies.for_step_type", map[string]any{}), "invalid_input")
	wantFail(t, callTool(t, ctx, "strategies.for_step_type", map[string]any{"sagemaker_step_type": "  "}), "invalid_input")
}
