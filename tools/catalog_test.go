package tools

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/registry"
)

// A workspace step used by the workspace tests.
const wsStep = `step: DedupRows
verb: Processing
kind: internal
description: Drop duplicate rows from a processed data set.
keywords: [dedup, duplicates]
job_types: [training]
compute:
  kind: sklearn
contract:
  entry_point: dedup.py
  env:
    - {name: KEY_COLUMNS, required: true}
inputs:
  - name: input_data
    type: processing_output
    path: /opt/ml/processing/input/data
    required: true
    compatible_sources: [TabularPreprocessing]
    description: Rows to deduplicate.
outputs:
  - name: processed_data
    type: processing_output
    path: /opt/ml/processing/output/data
    description: Deduplicated rows.
fields:
  - {name: processing_entry_point, default: dedup.py}
  - {name: key_columns, type: list, tier: essential, description: "Columns that identify a row."}
`

func TestCatalogListSteps(t *testing.T) {
	ctx := context.Background()
	env := callTool(t, ctx, "catalog.list_steps", map[string]any{})
	d := wantOK(t, env)
	steps := strs(t, d["steps"])
	if len(steps) < 32 || int(d["count"].(float64)) != len(steps) {
		t.Fatalf("steps %d count %v", len(steps), d["count"])
	}
	if !sort.StringsAreSorted(steps) {
		t.Error("steps not sorted")
	}
	meta := env["meta"].(map[string]any)
	if v, ok := meta["workspace_id"]; !ok || v != nil {
		t.Errorf("meta.workspace_id should be present and null: %v", meta)
	}
	if meta["tool"] != "catalog.list_steps" {
		t.Errorf("meta.tool %v", meta["tool"])
	}
	cal := strs(t, wantOK(t, callTool(t, ctx, "catalog.list_steps", map[string]any{"job_type": "calibration"}))["steps"])
	if !slices.Contains(cal, "TabularPreprocessing") || slices.Contains(cal, "Registration") {
		t.Errorf("job_type filter: %v", cal)
	}
	tr := strs(t, wantOK(t, callTool(t, ctx, "catalog.list_steps", map[string]any{"sagemaker_step_type": "Training"}))["steps"])
	if !slices.Contains(tr, "XGBoostTraining") || slices.Contains(tr, "TabularPreprocessing") {
		t.Errorf("verb filter: %v", tr)
	}
	core := strs(t, wantOK(t, callTool(t, ctx, "catalog.list_steps", map[string]any{"workspace_id": "core"}))["steps"])
	if len(core) != len(steps) {
		t.Errorf("workspace_id core: %d of %d", len(core), len(steps))
	}
	wantFail(t, callTool(t, ctx, "catalog.list_steps", map[string]any{"sagemaker_step_type": "Lambda"}), "invalid_input")
	wantFail(t, callTool(t, ctx, "catalog.list_steps", map[string]any{"bogus": 1}), "invalid_input")
}

func TestCatalogSearch(t *testing.T) {
	ctx := context.Background()
	env := callTool(t, ctx, "catalog.search", map[string]any{"query": "xgb train"})
	d := wantOK(t, env)
	m := d["matches"].([]any)
	if len(m) == 0 {
		t.Fatal("no matches")
	}
	first := m[0].(map[string]any)
	if first["step_name"] != "XGBoostTraining" {
		t.Errorf("first match %v", first["step_name"])
	}
	for _, k := range []string{"step_name", "workspace_id", "score", "match_reason", "components_available"} {
		if _, ok := first[k]; !ok {
			t.Errorf("match lacks %s", k)
		}
	}
	if env["meta"].(map[string]any)["query"] != "xgb train" {
		t.Error("meta.query")
	}
	if int(d["count"].(float64)) != len(m) {
		t.Error("count")
	}
	exact := wantOK(t, callTool(t, ctx, "catalog.search", map[string]any{"query": "XGBoostTraining"}))["matches"].([]any)[0].(map[string]any)
	if exact["score"].(float64) != 1 || exact["match_reason"] != "exact_match" {
		t.Errorf("exact: %v", exact)
	}
	none := callTool(t, ctx, "catalog.search", map[string]any{"query": "qqqqzzzz"})
	if d := wantOK(t, none); d["count"].(float64) != 0 || len(strs(t, none["warnings"])) == 0 {
		t.Errorf("no match: %v", none)
	}
	wantFail(t, callTool(t, ctx, "catalog.search", map[string]any{"query": "   "}), "invalid_input")
	wantFail(t, callTool(t, ctx, "catalog.search", map[string]any{}), "invalid_input")
	for _, x := range wantOK(t, callTool(t, ctx, "catalog.search", map[string]any{"query": "model", "job_type": "calibration"}))["matches"].([]any) {
		if x.(map[string]any)["step_name"] == "Registration" {
			t.Error("job_type filter ignored")
		}
	}
}

func TestCatalogStepInfo(t *testing.T) {
	ctx := context.Background()
	d := wantOK(t, callTool(t, ctx, "catalog.step_info", map[string]any{"step_name": "XGBoostTraining"}))
	want := map[string]any{"step_name": "XGBoostTraining", "workspace_id": "core", "sagemaker_step_type": "Training",
		"config_class": "XGBoostTrainingConfig", "builder_step_name": "XGBoostTrainingStepBuilder", "framework": "xgboost", "node_type": "internal"}
	for k, v := range want {
		if d[k] != v {
			t.Errorf("%s = %v, want %v", k, d[k], v)
		}
	}
	rd := d["registry_data"].(map[string]any)
	if rd["spec_type"] != "XGBoostTraining" || rd["sagemaker_step_type"] != "Training" {
		t.Errorf("registry_data %v", rd)
	}
	comps := strs(t, d["components_available"])
	if !sort.StringsAreSorted(comps) || !slices.Contains(comps, "script") {
		t.Errorf("components %v", comps)
	}
	if fc := d["file_components"].(map[string]any); fc["interface"] != "embedded:XGBoostTraining.step.yaml" || fc["script"] != "xgboost_training.py" {
		t.Errorf("file_components %v", fc)
	}
	// A node name carries its job type.
	n := wantOK(t, callTool(t, ctx, "catalog.step_info", map[string]any{"step_name": "TabularPreprocessing_training"}))
	if n["step_name"] != "TabularPreprocessing" || n["job_type"] != "training" || n["sagemaker_step_name"] != "TabularPreprocessing-Training" || n["config_key"] != "TabularPreprocessing_training" {
		t.Errorf("node name: %v", n)
	}
	env := callTool(t, ctx, "catalog.step_info", map[string]any{"step_name": "XGBoostTrainig"})
	wantFail(t, env, "not_found")
	if dd := details(env); dd["step_name"] != "XGBoostTrainig" || strs(t, dd["close_matches"])[0] != "XGBoostTraining" {
		t.Errorf("details %v", dd)
	}
	if r, _ := env["remedy"].(map[string]any); r == nil || !slices.Contains(strs(t, r["suggested_tools"]), "catalog.search") {
		t.Errorf("remedy %v", env["remedy"])
	}
	wantFail(t, callTool(t, ctx, "catalog.step_info", map[string]any{"step_name": " "}), "invalid_input")
}

func TestCatalogStepSpec(t *testing.T) {
	ctx := context.Background()
	d := wantOK(t, callTool(t, ctx, "catalog.step_spec", map[string]any{"step_name": "XGBoostTraining"}))
	if d["step_type"] != "XGBoostTraining" || d["dependency_count"].(float64) != 3 || d["output_count"].(float64) != 2 {
		t.Fatalf("spec %v", d)
	}
	dep := d["dependencies"].([]any)[0].(map[string]any)
	if dep["logical_name"] != "input_path" || dep["dependency_type"] != "training_data" || dep["required"] != true {
		t.Errorf("dependency %v", dep)
	}
	out := d["outputs"].([]any)[0].(map[string]any)
	if out["logical_name"] != "model_output" || out["output_type"] != "model_artifacts" || out["property_path"] != "properties.ModelArtifacts.S3ModelArtifacts" {
		t.Errorf("output %v", out)
	}
	for _, name := range []string{"NoSuchStep", "Base", "Processing"} {
		env := callTool(t, ctx, "catalog.step_spec", map[string]any{"step_name": name})
		wantFail(t, env, "not_found")
		r, _ := env["remedy"].(map[string]any)
		if r == nil || !slices.Contains(strs(t, r["suggested_tools"]), "catalog.list_steps") || !slices.Contains(strs(t, r["suggested_tools"]), "catalog.search") {
			t.Errorf("%s remedy %v", name, env["remedy"])
		}
	}
	req := func(jt string) any {
		args := map[string]any{"step_name": "RiskTableMapping"}
		if jt != "" {
			args["job_type"] = jt
		}
		for _, x := range wantOK(t, callTool(t, ctx, "catalog.step_spec", args))["dependencies"].([]any) {
			if x.(map[string]any)["logical_name"] == "model_artifacts_input" {
				return x.(map[string]any)["required"]
			}
		}
		return nil
	}
	if req("") != false || req("validation") != true || req("training") != false {
		t.Errorf("variant required: base %v validation %v training %v", req(""), req("validation"), req("training"))
	}
}

func TestCatalogConfigFields(t *testing.T) {
	ctx := context.Background()
	d := wantOK(t, callTool(t, ctx, "catalog.config_fields", map[string]any{"step_name": "XGBoostTraining"}))
	if d["config_class"] != "XGBoostTrainingConfig" || d["count"].(float64) < 5 {
		t.Fatalf("fields %v", d)
	}
	var region map[string]any
	for _, f := range d["fields"].([]any) {
		m := f.(map[string]any)
		for _, k := range []string{"name", "type", "required", "default", "description", "tier"} {
			if _, ok := m[k]; !ok {
				t.Errorf("field %v lacks %s", m["name"], k)
			}
		}
		if m["name"] == "region" {
			region = m
		}
	}
	if region["required"] != true || region["pattern"] != "^(NA|EU|FE|[a-z]{2}(-[a-z]+)+-[0-9]+)$" {
		t.Errorf("region %v", region)
	}
	ess := wantOK(t, callTool(t, ctx, "catalog.config_fields", map[string]any{"step_name": "XGBoostTraining", "tier": "essential"}))
	for _, f := range ess["fields"].([]any) {
		if f.(map[string]any)["tier"] != "essential" {
			t.Errorf("tier filter: %v", f)
		}
	}
	wantFail(t, callTool(t, ctx, "catalog.config_fields", map[string]any{"step_name": "Nope"}), "not_found")
}

// A class with more fields than a page answers them in pages, essential
// fields first, each once; fields picks by name; detail full adds the
// source.
func TestCatalogConfigFieldsPaged(t *testing.T) {
	ctx := context.Background()
	env := callTool(t, ctx, "catalog.config_fields", map[string]any{"step_name": "XGBoostTuning"})
	first := wantOK(t, env)
	total := int(first["total"].(float64))
	if total <= 50 || first["count"] != 50.0 || first["next_offset"] != 50.0 || first["offset"] != 0.0 {
		t.Fatalf("first page: count %v total %v next %v", first["count"], total, first["next_offset"])
	}
	next := env["next_steps"].([]any)[0].(map[string]any)
	if next["tool"] != "catalog.config_fields" || next["args_hint"].(map[string]any)["offset"] != 50.0 {
		t.Errorf("next page hint %v", next)
	}
	second := wantOK(t, callTool(t, ctx, "catalog.config_fields", map[string]any{"step_name": "XGBoostTuning", "offset": 50}))
	if _, more := second["next_offset"]; more || int(second["count"].(float64)) != total-50 {
		t.Errorf("second page: count %v next %v", second["count"], second["next_offset"])
	}
	seen := map[string]bool{}
	lastTier := 0
	rank := map[string]int{"essential": 0, "system": 1, "derived": 2}
	for _, f := range append(first["fields"].([]any), second["fields"].([]any)...) {
		m := f.(map[string]any)
		if seen[m["name"].(string)] {
			t.Errorf("%s on two pages", m["name"])
		}
		seen[m["name"].(string)] = true
		if r := rank[m["tier"].(string)]; r < lastTier {
			t.Errorf("%s (%s) after a later tier", m["name"], m["tier"])
		} else {
			lastTier = r
		}
		if _, has := m["source"]; has {
			t.Errorf("compact field %s carries its source", m["name"])
		}
	}
	if len(seen) != total {
		t.Errorf("%d fields over both pages, %d in the class", len(seen), total)
	}
	two := wantOK(t, callTool(t, ctx, "catalog.config_fields", map[string]any{"step_name": "XGBoostTraining", "fields": []string{"eta", "objective"}, "detail": "full"}))
	if two["count"] != 2.0 || two["fields"].([]any)[0].(map[string]any)["source"] == nil {
		t.Errorf("two fields with their source: %v", two["fields"])
	}
	det := wantFail(t, callTool(t, ctx, "catalog.config_fields", map[string]any{"step_name": "XGBoostTraining", "fields": []string{"etaa"}}), "invalid_input")
	if det["field"] != "fields" || len(det["available"].([]any)) < 20 {
		t.Errorf("an unknown field: %v", det)
	}
	fi := wantOK(t, callTool(t, ctx, "config.field_info", map[string]any{"step_name": "XGBoostTuning", "limit": 30}))
	if fi["count"] != 30.0 || fi["next_offset"] != 30.0 || len(fi["requirements"].([]any)) != 30 || len(fi["derived"].([]any)) == 0 {
		t.Errorf("field_info page: %v %v", fi["count"], fi["next_offset"])
	}
}

func TestCatalogResolveStep(t *testing.T) {
	ctx := context.Background()
	tests := []struct{ in, canonical, source, jobType string }{
		{"XGBoostTraining", "XGBoostTraining", "canonical", ""},
		{"model_evaluation_xgb", "XGBoostModelEval", "file_name", ""},
		{"TabularPreprocessing_training", "TabularPreprocessing", "node_name", "training"},
		{"MIMSPackaging", "Package", "alias", ""},
		{"xgboost_training", "XGBoostTraining", "canonical_key", ""},
	}
	for _, tc := range tests {
		d := wantOK(t, callTool(t, ctx, "catalog.resolve_step", map[string]any{"step_name": tc.in}))
		if d["canonical_name"] != tc.canonical || d["source"] != tc.source || d["input"] != tc.in {
			t.Errorf("%s: %v", tc.in, d)
		}
		if (tc.jobType == "" && d["job_type"] != nil) || (tc.jobType != "" && d["job_type"] != tc.jobType) {
			t.Errorf("%s job_type %v", tc.in, d["job_type"])
		}
		for _, k := range []string{"config_class", "builder_class", "spec_type", "sagemaker_step_type"} {
			if d[k] == nil || d[k] == "" {
				t.Errorf("%s lacks %s", tc.in, k)
			}
		}
	}
	wantFail(t, callTool(t, ctx, "catalog.resolve_step", map[string]any{"step_name": ""}), "invalid_input")
	env := callTool(t, ctx, "catalog.resolve_step", map[string]any{"step_name": "totally_unknown_thing"})
	wantFail(t, env, "not_found")
	if len(strs(t, details(env)["available"])) < 32 {
		t.Errorf("details.available %v", details(env))
	}
}

func TestCatalogListBuilders(t *testing.T) {
	ctx := context.Background()
	d := wantOK(t, callTool(t, ctx, "catalog.list_builders", map[string]any{}))
	all := d["builders"].([]any)
	if len(all) < 32 || int(d["count"].(float64)) != len(all) {
		t.Fatalf("builders %d", len(all))
	}
	var prev string
	for _, b := range all {
		m := b.(map[string]any)
		if m["builder_class"] != m["step_name"].(string)+"StepBuilder" {
			t.Errorf("builder %v", m)
		}
		if m["step_name"].(string) < prev {
			t.Error("not sorted")
		}
		prev = m["step_name"].(string)
	}
	env := callTool(t, ctx, "catalog.list_builders", map[string]any{"sagemaker_step_type": "Processing"})
	for _, b := range wantOK(t, env)["builders"].([]any) {
		if b.(map[string]any)["sagemaker_step_type"] != "Processing" {
			t.Errorf("filter: %v", b)
		}
	}
	if env["meta"].(map[string]any)["sagemaker_step_type"] != "Processing" {
		t.Error("meta.sagemaker_step_type")
	}
}

func TestCatalogWorkspace(t *testing.T) {
	ctx := context.Background()
	dir := writeFiles(t, map[string]string{"DedupRows.step.yaml": wsStep})
	ws := []any{dir}
	steps := strs(t, wantOK(t, callTool(t, ctx, "catalog.list_steps", map[string]any{"workspace_dirs": ws}))["steps"])
	if !slices.Contains(steps, "DedupRows") {
		t.Fatalf("workspace step missing: %v", steps)
	}
	if base := strs(t, wantOK(t, callTool(t, ctx, "catalog.list_steps", map[string]any{}))["steps"]); slices.Contains(base, "DedupRows") || len(base) != len(steps)-1 {
		t.Error("workspace step leaked without workspace_dirs")
	}
	only := strs(t, wantOK(t, callTool(t, ctx, "catalog.list_steps", map[string]any{"workspace_dirs": ws, "workspace_id": filepath.Base(dir)}))["steps"])
	if strings.Join(only, ",") != "DedupRows" {
		t.Errorf("workspace_id filter: %v", only)
	}
	// Every tool that reads steps honours workspace_dirs.
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"catalog.search", map[string]any{"query": "dedup"}},
		{"catalog.step_info", map[string]any{"step_name": "DedupRows"}},
		{"catalog.step_spec", map[string]any{"step_name": "DedupRows"}},
		{"catalog.config_fields", map[string]any{"step_name": "DedupRows"}},
		{"catalog.resolve_step", map[string]any{"step_name": "dedup_rows"}},
		{"catalog.list_builders", map[string]any{}},
		{"steps.io", map[string]any{"step_name": "DedupRows"}},
		{"steps.patterns", map[string]any{"step_name": "DedupRows"}},
	} {
		without := callTool(t, ctx, tc.tool, tc.args)
		tc.args["workspace_dirs"] = ws
		with := callTool(t, ctx, tc.tool, tc.args)
		if with["ok"] != true {
			t.Errorf("%s with workspace: %v", tc.tool, with)
			continue
		}
		b, _ := json.Marshal(with["data"])
		if !strings.Contains(string(b), "DedupRows") {
			t.Errorf("%s: workspace step not in data", tc.tool)
		}
		if wb, _ := json.Marshal(without["data"]); strings.Contains(string(wb), "DedupRows") {
			t.Errorf("%s: workspace step visible without workspace_dirs", tc.tool)
		}
	}
	info := wantOK(t, callTool(t, ctx, "catalog.step_info", map[string]any{"step_name": "DedupRows", "workspace_dirs": ws}))
	if info["workspace_id"] != filepath.Base(dir) {
		t.Errorf("workspace_id %v", info["workspace_id"])
	}
	// Relative directories are taken from the project root.
	rctx := registry.WithPolicy(ctx, registry.Policy{ProjectRoot: filepath.Dir(dir)})
	rel := callTool(t, rctx, "catalog.list_steps", map[string]any{"workspace_dirs": []any{filepath.Base(dir)}})
	if !slices.Contains(strs(t, wantOK(t, rel)["steps"]), "DedupRows") {
		t.Error("relative workspace dir not resolved against the project root")
	}
}

func TestCatalogWorkspaceErrors(t *testing.T) {
	ctx := context.Background()
	bad := strings.Replace(wsStep, "path: /opt/ml/processing/input/data", "path: /data/in", 1)
	dir := writeFiles(t, map[string]string{"DedupRows.step.yaml": bad})
	env := callTool(t, ctx, "catalog.list_steps", map[string]any{"workspace_dirs": []any{dir}})
	wantFail(t, env, "invalid_input")
	msg := env["error"].(string)
	for _, w := range []string{"DedupRows.step.yaml", "inputs[0].path", "/opt/ml/processing/input/"} {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q lacks %q", msg, w)
		}
	}
	probs, _ := details(env)["problems"].([]any)
	if len(probs) != 1 || probs[0].(map[string]any)["field"] != "inputs[0].path" || !strings.HasSuffix(probs[0].(map[string]any)["file"].(string), "DedupRows.step.yaml") {
		t.Errorf("problems %v", probs)
	}
	if env["remedy"] == nil {
		t.Error("no remedy")
	}
	unknownKey := writeFiles(t, map[string]string{"DedupRows.step.yaml": strings.Replace(wsStep, "    required: true\n", "    requird: true\n", 1)})
	env = callTool(t, ctx, "steps.io", map[string]any{"step_name": "DedupRows", "workspace_dirs": []any{unknownKey}})
	wantFail(t, env, "invalid_input")
	if !strings.Contains(env["error"].(string), `unknown key "requird"`) {
		t.Errorf("unknown key error %v", env["error"])
	}
	wantFail(t, callTool(t, ctx, "catalog.search", map[string]any{"query": "x", "workspace_dirs": []any{filepath.Join(dir, "missing")}}), "invalid_input")
	wantFail(t, callTool(t, ctx, "catalog.search", map[string]any{"query": "x", "workspace_dirs": []any{""}}), "invalid_input")
}

func TestCatalogExamplesRun(t *testing.T) {
	// Every example of the catalog and steps tools succeeds (examples with
	// workspace_dirs need the directory, so they are skipped here).
	ctx := context.Background()
	for _, ns := range []string{"catalog", "steps"} {
		for _, td := range testRegistry().List(ns) {
			for _, ex := range td.Examples {
				if strings.Contains(ex, "workspace_dirs") || strings.HasSuffix(td.Name, ".help") {
					continue
				}
				rest := strings.TrimSpace(strings.TrimPrefix(ex, td.Name))
				if i := strings.Index(rest, "  #"); i >= 0 {
					rest = rest[:i]
				}
				var args map[string]any
				if err := json.Unmarshal([]byte(rest), &args); err != nil {
					t.Errorf("%s example %q: %v", td.Name, ex, err)
					continue
				}
				if env := callTool(t, ctx, td.Name, args); env["ok"] != true {
					t.Errorf("%s example %q failed: %v", td.Name, ex, env)
				}
			}
		}
	}
}

// BenchmarkCatalogListSteps calls catalog.list_steps through the registry
// (argument validation, handler, envelope).
func BenchmarkCatalogListSteps(b *testing.B) {
	ctx := context.Background()
	args := map[string]any{}
	for i := 0; i < b.N; i++ {
		if res := testRegistry().Call(ctx, "catalog.list_steps", args); !res.OK {
			b.Fatal(res.Error)
		}
	}
}

// BenchmarkCatalogSearch calls catalog.search through the registry.
func BenchmarkCatalogSearch(b *testing.B) {
	ctx := context.Background()
	args := map[string]any{"query": "xgb train"}
	for i := 0; i < b.N; i++ {
		if res := testRegistry().Call(ctx, "catalog.search", args); !res.OK {
			b.Fatal(res.Error)
		}
	}
}
