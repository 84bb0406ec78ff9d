package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/tools"
)

const exampleDir = "../examples/xgboost-end-to-end"

func exampleDAG(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(exampleDir, "dag.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestConfigRequirementsForTheExample(t *testing.T) {
	ctx := context.Background()
	d := tools.WantOK(t, tools.CallTool(t, ctx, "config.requirements", map[string]any{"dag": exampleDAG(t), "detail": "full"}))
	if p := d["pending_steps"].([]any); len(p) != 0 {
		t.Errorf("pending %v", p)
	}
	if len(d["base_config_requirements"].([]any)) != 22 || len(d["base_processing_config_requirements"].([]any)) != 12 { // with retry_policies and tags; outputs_per_execution, output_locations
		t.Errorf("base %d processing %d", len(d["base_config_requirements"].([]any)), len(d["base_processing_config_requirements"].([]any)))
	}
	if d["needs_processing_config"] != true {
		t.Error("needs_processing_config")
	}
	cm := d["config_class_map"].(map[string]any)
	if len(cm) != 10 || cm["XGBoostModelEval_calibration"] != "XGBoostModelEvalConfig" || cm["Registration"] != "RegistrationConfig" {
		t.Errorf("config_class_map %v", cm)
	}
	if _, has := d["step_requirements"]; has {
		t.Error("the answer repeats each class's fields per node (step_requirements)")
	}
	tab := d["class_requirements"].(map[string]any)["TabularPreprocessingConfig"].([]any)
	first := tab[0].(map[string]any)
	if first["name"] != "job_type" || first["required"] != true || first["tier"] != "essential" {
		t.Errorf("TabularPreprocessing requirements start with %v", first)
	}
	for _, k := range []string{"name", "type", "description", "required", "default", "tier", "allowed_values"} {
		if _, ok := first[k]; !ok {
			t.Errorf("requirement lacks %s: %v", k, first)
		}
	}
	// The training script's hyperparameters are typed fields, its essentials essential.
	hp := map[string]map[string]any{}
	for _, r := range d["class_requirements"].(map[string]any)["XGBoostTrainingConfig"].([]any) {
		m := r.(map[string]any)
		hp[m["name"].(string)] = m
	}
	for _, name := range []string{"label_name", "tab_field_list", "cat_field_list", "objective"} {
		if r := hp[name]; r == nil || r["required"] != true || r["hyperparameter"] != true {
			t.Errorf("XGBoostTraining requirement %s: %v", name, r)
		}
	}
	if r := hp["eta"]; r == nil || r["required"] != false || r["hyperparameter"] != true || r["default"] != 0.3 {
		t.Errorf("XGBoostTraining requirement eta: %v", r)
	}
	if _, free := hp["hyperparameters"]; free {
		t.Error("XGBoostTraining still lists the free-form hyperparameters object")
	}
	checkCompactRequirements(t, d, tools.WantOK(t, tools.CallTool(t, ctx, "config.requirements", map[string]any{"dag": exampleDAG(t)})))
	cc := tools.WantOK(t, tools.CallTool(t, ctx, "author.config_constraints", map[string]any{"step_name": "XGBoostTuning"}))
	marked := 0
	for _, f := range cc["fields"].([]any) {
		if m := f.(map[string]any); m["hyperparameter"] == true {
			marked++
			if m["name"] == "objective" && m["required"] != true {
				t.Errorf("config_constraints objective %v", m)
			}
		}
	}
	if marked < 20 {
		t.Errorf("author.config_constraints marks %d XGBoostTuning fields as hyperparameters", marked)
	}
	// Flat form, and an unknown node is pending with a warning.
	env := tools.CallTool(t, ctx, "config.requirements", map[string]any{"dag": map[string]any{"nodes": []any{"XGBoostTraining", "mystery_step"}}})
	d = tools.WantOK(t, env)
	if p := d["pending_steps"].([]any); len(p) != 1 || p[0] != "mystery_step" {
		t.Errorf("pending %v", p)
	}
	if w, _ := env["warnings"].([]any); len(w) == 0 || !strings.Contains(w[0].(string), "mystery_step") {
		t.Errorf("warnings %v", env["warnings"])
	}
	if m := env["meta"].(map[string]any); m["node_count"] != 2.0 || m["mapped_count"] != 1.0 {
		t.Errorf("meta %v", m)
	}
	tools.WantFail(t, tools.CallTool(t, ctx, "config.requirements", map[string]any{"dag": map[string]any{"nodes": []any{}}}), "invalid_input")
	tools.WantFail(t, tools.CallTool(t, ctx, "config.requirements", map[string]any{}), "invalid_input")
}

func TestConfigFieldInfo(t *testing.T) {
	ctx := context.Background()
	d := tools.WantOK(t, tools.CallTool(t, ctx, "config.field_info", map[string]any{"config_class": "XGBoostTrainingConfig"}))
	if d["config_class"] != "XGBoostTrainingConfig" || d["step_type"] != "XGBoostTraining" {
		t.Errorf("data %v", d)
	}
	var names []string
	for _, r := range d["requirements"].([]any) {
		names = append(names, r.(map[string]any)["name"].(string))
	}
	if !slices.Contains(names, "author") || !slices.Contains(names, "training_instance_type") || slices.Contains(names, "pipeline_name") {
		t.Errorf("requirements %v", names)
	}
	var derived []string
	for _, r := range d["derived"].([]any) {
		derived = append(derived, r.(map[string]any)["name"].(string))
	}
	if !slices.Contains(derived, "pipeline_name") || !slices.Contains(derived, "hyperparameter_file") {
		t.Errorf("derived %v", derived)
	}

	d = tools.WantOK(t, tools.CallTool(t, ctx, "config.field_info", map[string]any{"config_class": "TabularPreprocessing", "categorized": true}))
	if d["config_class"] != "TabularPreprocessingConfig" {
		t.Errorf("step name not resolved: %v", d["config_class"])
	}
	var required []string
	for _, r := range d["required"].([]any) {
		required = append(required, r.(string))
	}
	if len(d["requirements"].([]any)) != len(d["required"].([]any))+len(d["optional"].([]any)) {
		t.Errorf("%d fields, %d required and %d optional", len(d["requirements"].([]any)), len(d["required"].([]any)), len(d["optional"].([]any)))
	}
	for _, want := range []string{"author", "bucket", "role", "region", "service_name", "pipeline_version", "project_root_folder", "job_type"} {
		if !slices.Contains(required, want) {
			t.Errorf("required lacks %s: %v", want, required)
		}
	}
	if len(d["optional"].([]any)) == 0 || len(d["by_tier"].(map[string]any)["derived"].([]any)) == 0 {
		t.Errorf("optional / by_tier: %v", d["by_tier"])
	}

	details := tools.WantFail(t, tools.CallTool(t, ctx, "config.field_info", map[string]any{"config_class": "NoSuchConfig"}), "not_found")
	if av, _ := details["available"].([]any); !slices.Contains(av, any("BasePipelineConfig")) || !slices.Contains(av, any("XGBoostTrainingConfig")) {
		t.Errorf("available %v", details["available"])
	}
	tools.WantFail(t, tools.CallTool(t, ctx, "config.field_info", map[string]any{"config_class": "   "}), "invalid_input")
}

func TestConfigLoad(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(exampleDir, "config.json")
	env := tools.CallTool(t, ctx, "config.load", map[string]any{"config_file": path})
	d := tools.WantOK(t, env)
	if d["step_count"] != 10.0 || d["valid"] != true || d["path"] != path {
		t.Errorf("summary %v", d)
	}
	shared := d["shared_fields"].([]any)
	if d["shared_field_count"] != float64(len(shared)) || !slices.Contains(shared, any("author")) {
		t.Errorf("shared %v", shared)
	}
	xgb := d["steps"].(map[string]any)["XGBoostTraining"].(map[string]any)
	if xgb["config_class"] != "XGBoostTrainingConfig" || !slices.Contains(xgb["fields"].([]any), any("training_entry_point")) ||
		slices.Contains(xgb["fields"].([]any), any("__model_type__")) {
		t.Errorf("XGBoostTraining summary %v", xgb)
	}

	details := tools.WantFail(t, tools.CallTool(t, ctx, "config.load", map[string]any{"config_file": "/nonexistent/config.json"}), "not_found")
	if details["config_file"] != "/nonexistent/config.json" {
		t.Errorf("details %v", details)
	}
	tools.WantFail(t, tools.CallTool(t, ctx, "config.load", map[string]any{"config_file": "  "}), "invalid_input")
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"configuration": {"shared": {}, "specific": []}}`), 0o644)
	tools.WantFail(t, tools.CallTool(t, ctx, "config.load", map[string]any{"config_file": bad}), "invalid_input")
	unknown := filepath.Join(dir, "unknown.json")
	os.WriteFile(unknown, []byte(`{"configuration": {"specific": {"A": {}}}, "metadata": {"config_types": {"A": "NoSuchConfig"}}}`), 0o644)
	details = tools.WantFail(t, tools.CallTool(t, ctx, "config.load", map[string]any{"config_file": unknown}), "invalid_input")
	if details["unknown_classes"].(map[string]any)["A"] != "NoSuchConfig" {
		t.Errorf("details %v", details)
	}
	// A structurally fine file with bad values is summarized and flagged.
	invalid := filepath.Join(dir, "invalid.json")
	os.WriteFile(invalid, []byte(`{"configuration": {"shared": {"region": "XX"}, "specific": {"Package": {}}}, "metadata": {"config_types": {"Package": "PackageConfig"}}}`), 0o644)
	d = tools.WantOK(t, tools.CallTool(t, ctx, "config.load", map[string]any{"config_file": invalid}))
	if d["valid"] != false || len(d["errors"].([]any)) < 7 {
		t.Errorf("invalid file: valid=%v errors=%v", d["valid"], d["errors"])
	}
}

// fill returns merge_save arguments from a template, with every essential
// blank filled.
func fill(t *testing.T, tpl map[string]any, dagArg map[string]any, out string) map[string]any {
	t.Helper()
	args := tpl["merge_save_args"].(map[string]any)
	base := args["base"].(map[string]any)
	steps := args["steps"].(map[string]any)
	values := map[string]any{
		"author": "alice", "bucket": "example-bucket", "role": "arn:aws:iam::123456789012:role/R", "region": "NA",
		"service_name": "Demo", "pipeline_version": "1.0.0", "project_root_folder": "demo",
		"data_sources_spec": map[string]any{"data_sources": []any{}}, "transform_spec": map[string]any{"transform_sql": "SELECT 1"},
		"output_spec": map[string]any{"output_format": "CSV"}, "id_name": "id", "label_name": "y", "label_field": "y",
		"expected_tps": 2, "max_latency_in_millisecond": 500, "model_owner": "o", "model_domain": "d",
		"model_objective": "m", "framework": "xgboost", "framework_version": "1.7-1",
		"tab_field_list": []any{"f1"}, "cat_field_list": []any{}, "objective": "binary:logistic",
	}
	for _, p := range tpl["essential_fields"].([]any) {
		where, field, _ := strings.Cut(p.(string), ".")
		v, ok := values[field]
		if !ok {
			t.Fatalf("no test value for essential field %s", p)
		}
		if where == "base" {
			base[field] = v
		} else {
			steps[where].(map[string]any)[field] = v
		}
	}
	return map[string]any{"dag": dagArg, "base": base, "steps": steps, "output_file": out}
}

func TestConfigTemplateMergeSaveLoad(t *testing.T) {
	root := t.TempDir()
	ctx := registry.WithPolicy(context.Background(), registry.Policy{AllowDestructive: true, ProjectRoot: root})
	dagArg := exampleDAG(t)
	env := tools.CallTool(t, ctx, "config.template", map[string]any{"dag": dagArg})
	tpl := tools.WantOK(t, env)
	ess := tpl["essential_fields"].([]any)
	for _, p := range []string{"base.author", "base.region", "XGBoostModelEval_calibration.id_name", "Payload.expected_tps",
		"XGBoostTraining.label_name", "XGBoostTraining.tab_field_list", "XGBoostTraining.cat_field_list", "XGBoostTraining.objective"} {
		if !slices.Contains(ess, any(p)) {
			t.Errorf("essential_fields lacks %s: %v", p, ess)
		}
	}
	// What the DAG says is filled, not asked: Registration registers the
	// XGBoost model under the XGBoost image of the training version.
	reg := tpl["merge_save_args"].(map[string]any)["steps"].(map[string]any)["Registration"].(map[string]any)
	if slices.Contains(ess, any("Registration.framework")) || slices.Contains(ess, any("Registration.framework_version")) ||
		reg["framework"] != "xgboost" || reg["framework_version"] != "1.7-1" {
		t.Errorf("Registration: %v (essential %v)", reg, ess)
	}
	// The next step carries the blanks (null where essential_fields say)
	// and what the DAG decides, not the defaults merge_save fills itself.
	next := env["next_steps"].([]any)[0].(map[string]any)
	hint := next["args_hint"].(map[string]any)
	hsteps := hint["steps"].(map[string]any)
	if v, blank := hsteps["Payload"].(map[string]any)["expected_tps"]; next["tool"] != "config.merge_save" || v != nil || !blank ||
		hsteps["Registration"].(map[string]any)["framework"] != "xgboost" || hint["base"].(map[string]any)["framework_version"] != "1.7-1" {
		t.Errorf("merge_save hint %v", next)
	}
	if _, has := hsteps["TabularPreprocessing_training"]; has {
		t.Errorf("the hint repeats defaults: %v", hsteps["TabularPreprocessing_training"])
	}
	if slices.Contains(ess, any("TabularPreprocessing_training.job_type")) {
		t.Error("job_type from the node name listed as blank")
	}
	if _, has := tpl["config"]; has || tpl["detail"] != "compact" {
		t.Errorf("the compact template carries the config.json document (%v)", tpl["detail"])
	}
	tpl = tools.WantOK(t, tools.CallTool(t, ctx, "config.template", map[string]any{"dag": dagArg, "detail": "full"}))
	cfg := tpl["config"].(map[string]any)
	if sh := cfg["configuration"].(map[string]any)["shared"].(map[string]any); sh["author"] != nil || sh["model_class"] != "xgboost" {
		t.Errorf("skeleton shared %v", sh)
	}
	if len(cfg["metadata"].(map[string]any)["config_types"].(map[string]any)) != 10 || len(tpl["pending_steps"].([]any)) != 0 {
		t.Errorf("skeleton metadata %v", cfg["metadata"])
	}

	args := fill(t, tpl, dagArg, "pipeline_config/config.json")
	d := tools.WantOK(t, tools.CallTool(t, ctx, "config.merge_save", args))
	want := filepath.Join(root, "pipeline_config", "config.json")
	if d["path"] != want || d["config_count"] != 10.0 {
		t.Errorf("merge_save data %v", d)
	}
	d = tools.WantOK(t, tools.CallTool(t, ctx, "config.load", map[string]any{"config_file": "pipeline_config/config.json"}))
	if d["valid"] != true || d["step_count"] != 10.0 {
		t.Errorf("load after save %v", d)
	}
	b, _ := os.ReadFile(want)
	if !strings.Contains(string(b), `"expected_tps": 2,`) {
		t.Error("integer written as a float")
	}
}

func TestConfigMergeSaveRefusals(t *testing.T) {
	root := t.TempDir()
	ctx := registry.WithPolicy(context.Background(), registry.Policy{AllowDestructive: true, ProjectRoot: root})
	dagArg := map[string]any{"nodes": []any{"TabularPreprocessing_training", "XGBoostTraining"}, "edges": []any{[]any{"TabularPreprocessing_training", "XGBoostTraining"}}}
	base := map[string]any{"author": "alice", "bucket": "example-bucket", "role": "r", "region": "APAC",
		"service_name": "Demo", "pipeline_version": "1.0.0", "project_root_folder": "demo"}
	steps := map[string]any{
		"XGBoostTraining":               map[string]any{"training_instance_count": "two", "training_entry_point": "train.py"},
		"TabularPreprocessing_training": map[string]any{"output_format": "XLSX"},
	}
	delete(base, "role")
	details := tools.WantFail(t, tools.CallTool(t, ctx, "config.merge_save", map[string]any{"dag": dagArg, "base": base, "steps": steps, "output_file": "c.json"}), "invalid_input")
	byPath := map[string]map[string]any{}
	for _, e := range details["errors"].([]any) {
		m := e.(map[string]any)
		byPath[m["path"].(string)] = m
	}
	for path, kind := range map[string]string{"base.role": "missing", "base.region": "pattern",
		"XGBoostTraining.training_instance_count": "type", "TabularPreprocessing_training.output_format": "allowed",
		"XGBoostTraining.label_name": "missing", "XGBoostTraining.tab_field_list": "missing", "XGBoostTraining.cat_field_list": "missing",
		"XGBoostTraining.objective": "missing"} {
		if e, ok := byPath[path]; !ok || e["kind"] != kind {
			t.Errorf("%s: %v (all: %v)", path, e, details["errors"])
		}
	}
	if len(byPath) != 8 || details["error_count"] != 8.0 {
		t.Errorf("errors %v", details["errors"])
	}
	if al := byPath["TabularPreprocessing_training.output_format"]["allowed"].([]any); len(al) != 3 {
		t.Errorf("allowed %v", al)
	}
	if _, err := os.Stat(filepath.Join(root, "c.json")); !os.IsNotExist(err) {
		t.Error("file written despite invalid values")
	}

	base["role"], base["region"] = "r", "NA"
	steps = map[string]any{"XGBoostTraining": map[string]any{"training_entry_point": "train.py", "label_name": "y",
		"tab_field_list": []any{"f1"}, "cat_field_list": []any{}, "objective": "binary:logistic"}}
	ok := map[string]any{"dag": dagArg, "base": base, "steps": steps, "output_file": "../outside.json"}
	tools.WantFail(t, tools.CallTool(t, ctx, "config.merge_save", ok), "invalid_input")
	ok["output_file"] = "inside.json"
	gated := registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: root})
	tools.WantFail(t, tools.CallTool(t, gated, "config.merge_save", ok), "tool_disabled")
	tools.WantOK(t, tools.CallTool(t, ctx, "config.merge_save", ok))
	ok["steps"] = map[string]any{"NotANode": map[string]any{}}
	details = tools.WantFail(t, tools.CallTool(t, ctx, "config.merge_save", ok), "invalid_input")
	if e := details["errors"].([]any)[0].(map[string]any); e["path"] != "NotANode" || e["kind"] != "unknown_node" {
		t.Errorf("unknown node: %v", e)
	}
}

// dedupStep is a project's own Processing step with an essential list field.
const dedupStep = `step: DedupRows
verb: Processing
kind: internal
description: Drop duplicate rows from a processed data set.
compute:
  kind: sklearn
contract:
  entry_point: dedup.py
  env:
    - {name: KEY_COLUMNS, required: true}
inputs:
  - {name: input_data, type: processing_output, path: /opt/ml/processing/input/data, required: true, compatible_sources: [DummyDataLoading], description: Rows to deduplicate.}
outputs:
  - {name: processed_data, type: processing_output, path: /opt/ml/processing/output/data, description: Deduplicated rows.}
fields:
  - {name: processing_entry_point, default: dedup.py}
  - {name: job_type, type: string, tier: essential, description: "Data split."}
  - {name: key_columns, type: list, tier: essential, description: "Columns that identify a row."}
`

// dedupProject is a project root whose steps/ holds the DedupRows step.
func dedupProject(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	tools.WriteFile(t, root, "steps/DedupRows.step.yaml", dedupStep)
	return root
}

// TestConfigToolsWorkspaceDirs: with workspace_dirs (relative to the
// project root) a project's own step gets a config class in every config
// tool; without them it stays pending and its saved config does not load.
func TestConfigToolsWorkspaceDirs(t *testing.T) {
	root := dedupProject(t)
	ctx := registry.WithPolicy(context.Background(), registry.Policy{AllowDestructive: true, ProjectRoot: root})
	ws := []any{"steps"}
	dagArg := map[string]any{"nodes": []any{"DummyDataLoading_training", "DedupRows_training"}, "edges": []any{[]any{"DummyDataLoading_training", "DedupRows_training"}}}

	d := tools.WantOK(t, tools.CallTool(t, ctx, "config.requirements", map[string]any{"dag": dagArg}))
	if p := d["pending_steps"].([]any); len(p) != 1 || p[0] != "DedupRows_training" {
		t.Errorf("without workspace_dirs: pending %v", p)
	}
	env := tools.CallTool(t, ctx, "config.requirements", map[string]any{"dag": dagArg, "workspace_dirs": ws})
	d = tools.WantOK(t, env)
	if p := d["pending_steps"].([]any); len(p) != 0 || d["config_class_map"].(map[string]any)["DedupRows_training"] != "DedupRowsConfig" {
		t.Errorf("with workspace_dirs: pending %v classes %v", p, d["config_class_map"])
	}
	var names []string
	for _, r := range d["class_requirements"].(map[string]any)["DedupRowsConfig"].([]any) {
		names = append(names, r.(map[string]any)["name"].(string))
	}
	if !slices.Contains(names, "key_columns") {
		t.Errorf("DedupRows requirements %v", names)
	}
	if ns, _ := env["next_steps"].([]any); len(ns) == 0 || !strings.Contains(fmt.Sprint(ns[0]), "workspace_dirs") {
		t.Errorf("next steps do not carry workspace_dirs: %v", env["next_steps"])
	}

	fi := tools.WantOK(t, tools.CallTool(t, ctx, "config.field_info", map[string]any{"config_class": "DedupRowsConfig", "workspace_dirs": ws}))
	if fi["step_type"] != "DedupRows" {
		t.Errorf("field_info %v", fi)
	}
	tools.WantFail(t, tools.CallTool(t, ctx, "config.field_info", map[string]any{"config_class": "DedupRowsConfig"}), "not_found")

	tpl := tools.WantOK(t, tools.CallTool(t, ctx, "config.template", map[string]any{"dag": dagArg, "workspace_dirs": ws}))
	if ess := tpl["essential_fields"].([]any); !slices.Contains(ess, any("DedupRows_training.key_columns")) || len(tpl["pending_steps"].([]any)) != 0 {
		t.Errorf("template essential %v pending %v", ess, tpl["pending_steps"])
	}
	args := tpl["merge_save_args"].(map[string]any)
	base := args["base"].(map[string]any)
	for k, v := range map[string]any{"author": "alice", "bucket": "example-bucket", "role": "arn:aws:iam::123456789012:role/R",
		"region": "NA", "service_name": "Demo", "pipeline_version": "1.0.0", "project_root_folder": "demo"} {
		base[k] = v
	}
	steps := args["steps"].(map[string]any)
	steps["DummyDataLoading_training"].(map[string]any)["data_source"] = "s3://example-bucket/raw/"
	steps["DedupRows_training"].(map[string]any)["key_columns"] = []any{"id"}
	save := map[string]any{"dag": dagArg, "base": base, "steps": steps, "output_file": "pipeline_config/config.json"}
	details := tools.WantFail(t, tools.CallTool(t, ctx, "config.merge_save", save), "invalid_input")
	if !strings.Contains(fmt.Sprint(details), "DedupRows_training") {
		t.Errorf("merge_save without workspace_dirs: %v", details)
	}
	save["workspace_dirs"] = ws
	if d := tools.WantOK(t, tools.CallTool(t, ctx, "config.merge_save", save)); d["config_count"] != 2.0 {
		t.Errorf("merge_save %v", d)
	}
	if d := tools.WantOK(t, tools.CallTool(t, ctx, "config.load", map[string]any{"config_file": "pipeline_config/config.json", "workspace_dirs": ws})); d["valid"] != true {
		t.Errorf("load with workspace_dirs %v", d)
	}
	tools.WantFail(t, tools.CallTool(t, ctx, "config.load", map[string]any{"config_file": "pipeline_config/config.json"}), "invalid_input")

	// A broken workspace is invalid_input naming the file, as in catalog.*.
	if err := os.WriteFile(filepath.Join(root, "steps", "Broken.step.yaml"), []byte("step: Broken\nverb: Nope\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	details = tools.WantFail(t, tools.CallTool(t, ctx, "config.template", map[string]any{"dag": dagArg, "workspace_dirs": ws}), "invalid_input")
	if !strings.Contains(fmt.Sprint(details["problems"]), "Broken.step.yaml") {
		t.Errorf("broken workspace details %v", details)
	}
}

// checkCompactRequirements holds config.requirements' default (compact)
// answer to its full one: every required field in full in the same list,
// every optional one in optional_defaults with its default, nothing else,
// and the answer within the 16 KB budget.
func checkCompactRequirements(t *testing.T, full, compact map[string]any) {
	t.Helper()
	if full["detail"] != "full" || compact["detail"] != "compact" {
		t.Errorf("detail %v / %v", full["detail"], compact["detail"])
	}
	if _, ok := full["optional_defaults"]; ok {
		t.Error("the full answer has optional_defaults")
	}
	opt, _ := compact["optional_defaults"].(map[string]any)
	type section struct {
		full, compact []any
		defaults      map[string]any
	}
	sections := map[string]section{}
	listOf := func(d map[string]any, key string) []any { l, _ := d[key].([]any); return l }
	sections["base"] = section{listOf(full, "base_config_requirements"), listOf(compact, "base_config_requirements"), opt["base"].(map[string]any)}
	sections["base_processing"] = section{listOf(full, "base_processing_config_requirements"), listOf(compact, "base_processing_config_requirements"), opt["base_processing"].(map[string]any)}
	// Both give each config class once, however many nodes have it.
	fullClasses, compactClasses := full["class_requirements"].(map[string]any), compact["class_requirements"].(map[string]any)
	classDefaults := opt["classes"].(map[string]any)
	classes := map[string]bool{}
	for _, c := range full["config_class_map"].(map[string]any) {
		classes[c.(string)] = true
	}
	for class, l := range fullClasses {
		defaults, _ := classDefaults[class].(map[string]any)
		cl, _ := compactClasses[class].([]any)
		sections[class] = section{l.([]any), cl, defaults}
	}
	if len(fullClasses) != len(classes) || len(compactClasses) != len(classes) || len(classDefaults) != len(classes) ||
		len(classes) >= len(full["config_class_map"].(map[string]any)) {
		t.Errorf("full has %d classes, compact %d and defaults for %d; the DAG's nodes have %d", len(fullClasses), len(compactClasses), len(classDefaults), len(classes))
	}
	optional := 0
	for name, sec := range sections {
		var required []any
		for _, r := range sec.full {
			m := r.(map[string]any)
			if m["required"] == true {
				required = append(required, r)
				continue
			}
			optional++
			if v, ok := sec.defaults[m["name"].(string)]; !ok || compactJSON(v) != compactJSON(m["default"]) {
				t.Errorf("%s: optional field %s: default %v in compact, %v in full", name, m["name"], v, m["default"])
			}
		}
		if compactJSON(required) != compactJSON(sec.compact) && (len(required) > 0 || len(sec.compact) > 0) {
			t.Errorf("%s: compact lists %v, the required fields are %v", name, sec.compact, required)
		}
		if len(sec.defaults)+len(required) != len(sec.full) {
			t.Errorf("%s: %d defaults and %d required fields for %d fields", name, len(sec.defaults), len(required), len(sec.full))
		}
	}
	if optional == 0 {
		t.Error("no optional field: the check checks nothing")
	}
	if b := compactJSON(compact); len(b) > 16<<10 {
		t.Errorf("compact config.requirements data is %d bytes", len(b))
	}
}

func compactJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// config.merge_save refuses what the compiler would refuse between a config's fields: a gate's
// ordering comparison against a text threshold, naming the field; nothing is written. A numeric
// threshold is saved.
func TestConfigMergeSaveGateRule(t *testing.T) {
	root := t.TempDir()
	ctx := registry.WithPolicy(context.Background(), registry.Policy{AllowDestructive: true, ProjectRoot: root})
	dagArg := map[string]any{"nodes": []any{"XGBoostModelEval_calibration", "ModelQualityGate"}, "edges": []any{[]any{"XGBoostModelEval_calibration", "ModelQualityGate"}}}
	base := map[string]any{"author": "alice", "bucket": "example-bucket", "role": "arn:aws:iam::210987654321:role/R", "region": "NA",
		"service_name": "Demo", "pipeline_version": "1.0.0", "project_root_folder": "demo"}
	steps := func(threshold any) map[string]any {
		return map[string]any{"XGBoostModelEval_calibration": map[string]any{"id_name": "id", "label_name": "y"},
			"ModelQualityGate": map[string]any{"metric": "auc_roc", "comparison": ">=", "threshold": threshold}}
	}
	details := tools.WantFail(t, tools.CallTool(t, ctx, "config.merge_save", map[string]any{"dag": dagArg, "base": base, "steps": steps("high"), "output_file": "c.json"}), "invalid_input")
	errs := details["errors"].([]any)
	if len(errs) != 1 || errs[0].(map[string]any)["path"] != "ModelQualityGate.threshold" || errs[0].(map[string]any)["kind"] != "rule" ||
		!strings.Contains(errs[0].(map[string]any)["message"].(string), "ordering comparison needs a number") {
		t.Errorf("errors %v", errs)
	}
	if _, err := os.Stat(filepath.Join(root, "c.json")); err == nil {
		t.Error("a refused config was written")
	}
	tools.WantOK(t, tools.CallTool(t, ctx, "config.merge_save", map[string]any{"dag": dagArg, "base": base, "steps": steps(0.8), "output_file": "c.json"}))
}
