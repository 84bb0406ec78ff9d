package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/pipelines"
	"github.com/cursus-go/cursus/engine/pipelines/pipelinestest"
	"github.com/cursus-go/cursus/registry"
)

func TestPipelineCatalogList(t *testing.T) {
	ctx := context.Background()
	env := callTool(t, ctx, "pipeline_catalog.list", map[string]any{})
	d := wantOK(t, env)
	dags := d["dags"].([]any)
	if len(dags) < 15 || d["count"] != float64(len(dags)) || env["meta"].(map[string]any)["count"] != d["count"] {
		t.Fatalf("list %v", d)
	}
	var ids []string
	for _, x := range dags {
		m := x.(map[string]any)
		for _, k := range []string{"dag_id", "title", "framework", "task_type", "complexity", "node_count"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("entry lacks %s: %v", k, m)
			}
		}
		if _, ok := m["description"]; ok {
			t.Fatalf("the brief list carries descriptions: %v", m)
		}
		ids = append(ids, m["dag_id"].(string))
	}
	if !slices.IsSorted(ids) {
		t.Fatalf("not sorted by dag_id: %v", ids)
	}
	d = wantOK(t, callTool(t, ctx, "pipeline_catalog.list", map[string]any{"framework": "pytorch", "complexity": "comprehensive", "feature": "registration", "detail": "full"}))
	found := false
	for _, x := range d["dags"].([]any) {
		m := x.(map[string]any)
		if m["framework"] != "pytorch" || m["complexity"] != "comprehensive" || !slices.Contains(m["features"].([]any), any("registration")) || m["description"] == "" {
			t.Fatalf("filtered %v", m)
		}
		found = found || m["dag_id"] == "pytorch_complete_e2e"
	}
	if !found || d["count"] != float64(len(d["dags"].([]any))) {
		t.Fatalf("filtered %v", d)
	}
	env = callTool(t, ctx, "pipeline_catalog.list", map[string]any{"framework": "xgboost", "feature": "model_creation", "complexity": "simple"})
	if wantOK(t, env)["count"] != 0.0 || env["warnings"] == nil {
		t.Fatalf("empty result should warn: %v", env)
	}
	wantFail(t, callTool(t, ctx, "pipeline_catalog.list", map[string]any{"framework": "julia"}), "invalid_input")
	det := wantFail(t, callTool(t, ctx, "pipeline_catalog.list", map[string]any{"feature": "teleport"}), "invalid_input", "pipeline_catalog.list")
	if len(det["known_features"].([]any)) != len(pipelines.Features) {
		t.Fatalf("details %v", det)
	}
}

func TestPipelineCatalogRecommendRanksCalibrationAndRegistration(t *testing.T) {
	ctx := context.Background()
	env := callTool(t, ctx, "pipeline_catalog.recommend", map[string]any{"framework": "xgboost", "need": "calibration and registration"})
	d := wantOK(t, env)
	recs := d["recommendations"].([]any)
	if len(recs) == 0 || d["status"] != "success" || d["total_matches"].(float64) < float64(len(recs)) {
		t.Fatalf("recommend %v", d)
	}
	top := recs[0].(map[string]any)
	for _, k := range []string{"dag_id", "score", "framework", "description", "node_count", "cost", "when_to_use", "differentiators", "reasons"} {
		if _, ok := top[k]; !ok {
			t.Fatalf("recommendation lacks %s: %v", k, top)
		}
	}
	if len(top["reasons"].([]any)) == 0 {
		t.Fatal("no reasons")
	}
	g := wantOK(t, callTool(t, ctx, "pipeline_catalog.load_dag", map[string]any{"dag_id": top["dag_id"]}))
	nodes := strings.ToLower(strings.Join(strs(t, g["nodes"]), " "))
	if !strings.Contains(nodes, "calibration") || !strings.Contains(nodes, "registration") {
		t.Fatalf("top %s lacks calibration/registration: %v", top["dag_id"], nodes)
	}
	next := env["next_steps"].([]any)
	if next[0].(map[string]any)["tool"] != "pipeline_catalog.config_guidance" || next[0].(map[string]any)["args_hint"].(map[string]any)["dag_id"] != top["dag_id"] {
		t.Fatalf("next_steps %v", next)
	}
	// structured facts filter and reorder
	d = wantOK(t, callTool(t, ctx, "pipeline_catalog.recommend", map[string]any{"data_type": "text", "max_results": 2}))
	for _, r := range d["recommendations"].([]any) {
		if r.(map[string]any)["framework"] != "pytorch" {
			t.Fatalf("text data: %v", r)
		}
	}
	if len(d["recommendations"].([]any)) != 2 {
		t.Fatalf("max_results: %v", d)
	}
	// lightgbmmt is LightGBM trained on several tasks: the multi-task DAGs serve it.
	env = callTool(t, ctx, "pipeline_catalog.recommend", map[string]any{"framework": "lightgbmmt"})
	if d = wantOK(t, env); len(d["recommendations"].([]any)) == 0 || len(d["unserved"].([]any)) != 0 ||
		!strings.HasPrefix(d["recommendations"].([]any)[0].(map[string]any)["dag_id"].(string), "lightgbmmt_") ||
		!strings.Contains(toJSON(d["served"]), `"concept":"multi_task","dag_id":"lightgbmmt_`) {
		t.Fatalf("lightgbmmt: %v", env)
	}
	env = callTool(t, ctx, "pipeline_catalog.recommend", map[string]any{"framework": "lightgbmmt", "data_type": "text"})
	if d = wantOK(t, env); len(d["recommendations"].([]any)) != 0 || d["excluded"] == nil || !strings.Contains(toJSON(d["unserved"]), `"concept":"text_data"`) ||
		!slices.Contains(strs(t, env["warnings"]), "no DAG scored above 0.2") || !strings.Contains(toJSON(env["warnings"]), "not served: text_data") {
		t.Fatalf("no match: %v", env)
	}
	wantFail(t, callTool(t, ctx, "pipeline_catalog.recommend", map[string]any{"data_source": "ftp"}), "invalid_input")
	wantFail(t, callTool(t, ctx, "pipeline_catalog.recommend", map[string]any{"framework": "julia"}), "invalid_input")
	wantFail(t, callTool(t, ctx, "pipeline_catalog.recommend", map[string]any{"has_labels": "yes"}), "invalid_input")
	wantFail(t, callTool(t, ctx, "pipeline_catalog.recommend", map[string]any{"max_results": 0}), "invalid_input")
}

// TestPipelineCatalogRecommendWhereTheDataLives: for S3 data the answer,
// its action and its hints name a DAG that loads from S3; what the catalog
// cannot serve is in data.unmatched and the warnings.
func TestPipelineCatalogRecommendWhereTheDataLives(t *testing.T) {
	ctx := context.Background()
	for _, args := range []map[string]any{
		{"framework": "xgboost", "data_source": "s3", "need": "calibration and registration"},
		{"framework": "xgboost", "need": "calibration and registration for s3://my-bucket/train/"},
	} {
		env := callTool(t, ctx, "pipeline_catalog.recommend", args)
		d := wantOK(t, env)
		if d["data_source"] != "s3" {
			t.Errorf("%v: data_source %v", args, d["data_source"])
		}
		for _, r := range d["recommendations"].([]any) {
			if r := r.(map[string]any); r["data_source"] == "cradle" && !strings.Contains(toJSON(r["reasons"]), "swap its loading steps for DummyDataLoading") {
				t.Errorf("%v: %v loads through the data service and does not say what to swap", args, r["dag_id"])
			}
		}
		for _, n := range env["next_steps"].([]any) {
			if id := n.(map[string]any)["args_hint"].(map[string]any)["dag_id"]; id != "xgboost_complete_e2e_dummy" {
				t.Errorf("%v: hint names %v", args, id)
			}
		}
		if !strings.Contains(d["action"].(string), "xgboost_complete_e2e_dummy") {
			t.Errorf("action %v", d["action"])
		}
	}
	env := callTool(t, ctx, "pipeline_catalog.recommend", map[string]any{"framework": "xgboost", "needs_llm": true, "need": "calibration"})
	d := wantOK(t, env)
	if !strings.Contains(toJSON(d["unserved"]), `"concept":"llm"`) || !strings.Contains(toJSON(env["warnings"]), "not served: llm") {
		t.Errorf("needs_llm: %v", env)
	}
	// without a data source, the ranking says how to give one
	env = callTool(t, ctx, "pipeline_catalog.recommend", map[string]any{"framework": "xgboost", "need": "calibration and registration"})
	if d := wantOK(t, env); d["data_source"] != nil || !strings.Contains(toJSON(env["warnings"]), "give data_source") {
		t.Errorf("no data source: %v", env)
	}
}

func TestPipelineCatalogAutoSelect(t *testing.T) {
	ctx := context.Background()
	env := callTool(t, ctx, "pipeline_catalog.auto_select", map[string]any{"framework": "xgboost", "features": []any{"training", "calibration"}})
	d := wantOK(t, env)
	if d["dag_id"] != "xgboost_complete_e2e" || d["score"] != 1.0 || d["matched"] != true || env["meta"].(map[string]any)["dag_id"] != "xgboost_complete_e2e" {
		t.Fatalf("auto_select %v", env)
	}
	env = callTool(t, ctx, "pipeline_catalog.auto_select", map[string]any{"framework": "xgboost", "features": []any{"bedrock"}, "task_type": "llm", "complexity": "simple", "min_score": 0.9})
	d = wantOK(t, env)
	if d["dag_id"] != nil || d["matched"] != false || !slices.Contains(strs(t, env["warnings"]), "No DAG met the minimum score threshold.") {
		t.Fatalf("no match %v", env)
	}
	wantFail(t, callTool(t, ctx, "pipeline_catalog.auto_select", map[string]any{"min_score": 2}), "invalid_input")
	wantFail(t, callTool(t, ctx, "pipeline_catalog.auto_select", map[string]any{"features": []any{""}}), "invalid_input")
}

func TestPipelineCatalogGetAndLoad(t *testing.T) {
	ctx := context.Background()
	d := wantOK(t, callTool(t, ctx, "pipeline_catalog.get_dag", map[string]any{"dag_id": "xgboost_complete_e2e"}))
	for _, k := range []string{"status", "action", "dag_id", "description", "framework", "nodes", "edges", "input_requirements", "constraints", "cost", "agent_context"} {
		if _, ok := d[k]; !ok {
			t.Fatalf("get_dag lacks %s", k)
		}
	}
	if d["node_count"] != 10.0 || d["edge_count"] != 11.0 {
		t.Fatalf("counts %v %v", d["node_count"], d["edge_count"])
	}
	d = wantOK(t, callTool(t, ctx, "pipeline_catalog.load_dag", map[string]any{"dag_id": "lightgbm_complete_e2e"}))
	if len(d) != 5 || d["node_count"] != float64(len(d["nodes"].([]any))) || d["edge_count"] != float64(len(d["edges"].([]any))) {
		t.Fatalf("load_dag %v", d)
	}
	for _, tool := range []string{"pipeline_catalog.get_dag", "pipeline_catalog.load_dag", "pipeline_catalog.config_guidance"} {
		det := wantFail(t, callTool(t, ctx, tool, map[string]any{"dag_id": "xgboost_complete"}), "not_found", "pipeline_catalog.list")
		if det["dag_id"] != "xgboost_complete" || det["suggestions"].([]any)[0] != "xgboost_complete_e2e" {
			t.Fatalf("%s details %v", tool, det)
		}
		wantFail(t, callTool(t, ctx, tool, map[string]any{"dag_id": "  "}), "invalid_input")
		wantFail(t, callTool(t, ctx, tool, map[string]any{}), "invalid_input")
	}
}

func TestPipelineCatalogConfigGuidance(t *testing.T) {
	ctx := context.Background()
	env := callTool(t, ctx, "pipeline_catalog.config_guidance", map[string]any{"dag_id": "xgboost_complete_e2e"})
	d := wantOK(t, env)
	for _, k := range []string{"prerequisites", "config_guidance", "common_pitfalls", "decision_tree", "next_step", "required_fields", "config_class_map"} {
		if _, ok := d[k]; !ok {
			t.Fatalf("config_guidance lacks %s: %v", k, env)
		}
	}
	if _, ok := d["config_requirements"]; ok {
		t.Error("config_requirements given without detail")
	}
	if d["config_class_map"].(map[string]any)["XGBoostTraining"] != "XGBoostTrainingConfig" {
		t.Errorf("config_class_map %v", d["config_class_map"])
	}
	rf := d["required_fields"].(map[string]any)
	base := strs(t, rf["base"])
	steps := rf["steps"].(map[string]any)
	if !slices.Contains(base, "author") || !slices.Contains(base, "role") || steps["Registration"] == nil ||
		!slices.Contains(strs(t, steps["Payload"]), "expected_tps") || !slices.Contains(strs(t, steps["XGBoostModelEval_calibration"]), "label_name") {
		t.Fatalf("required fields %v", rf)
	}
	// the count equals the template's essential fields (what a user must fill)
	tpl := wantOK(t, callTool(t, ctx, "config.template", map[string]any{"dag": pcDAGArgFor(t, "xgboost_complete_e2e")}))
	if rf["count"] != float64(len(tpl["essential_fields"].([]any))) {
		t.Fatalf("required count %v, template essentials %v", rf["count"], tpl["essential_fields"])
	}
	// with detail, every field of every node, as the config schema has them
	d = wantOK(t, callTool(t, ctx, "pipeline_catalog.config_guidance", map[string]any{"dag_id": "xgboost_complete_e2e", "detail": true}))
	schema, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	var nodes []catalog.NodeName
	for _, n := range strs(t, pcDAGArgFor(t, "xgboost_complete_e2e")["nodes"]) {
		nodes = append(nodes, catalog.NodeName(n))
	}
	var want any // the wire form: keys sorted
	if err := json.Unmarshal([]byte(toJSON(schema.Requirements(nodes))), &want); err != nil {
		t.Fatal(err)
	}
	if got, want := toJSON(d["config_requirements"]), toJSON(want); got != want {
		t.Errorf("config_requirements differ from the schema's:\n%s\n%s", got, want)
	}
}

// configBody is a config.json without its creation time.
func configBody(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc["metadata"].(map[string]any), "created_at")
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func pcDAGArgFor(t *testing.T, id string) map[string]any {
	t.Helper()
	d := wantOK(t, callTool(t, context.Background(), "pipeline_catalog.load_dag", map[string]any{"dag_id": id}))
	return map[string]any{"nodes": d["nodes"], "edges": d["edges"]}
}

// TestEveryCatalogDAGThroughTheTools drives each shared DAG the way an
// agent does: load_dag, dag.validate_integrity, config.template with every
// essential field filled, config.merge_save, compile.validate and
// compile.definition.
func TestEveryCatalogDAGThroughTheTools(t *testing.T) {
	schema, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := pipelines.Default()
	for _, id := range cat.IDs() {
		t.Run(id, func(t *testing.T) {
			root := t.TempDir()
			ctx := registry.WithPolicy(context.Background(), registry.Policy{AllowDestructive: true, ProjectRoot: root})
			dagArg := pcDAGArgFor(t, id)
			v := wantOK(t, callTool(t, ctx, "dag.validate_integrity", map[string]any{"dag": dagArg}))
			if v["is_valid"] != true {
				t.Fatalf("integrity %v", v)
			}
			env := callTool(t, ctx, "config.template", map[string]any{"dag": dagArg})
			tpl := wantOK(t, env)
			nodes := strs(t, dagArg["nodes"])
			names := make([]catalog.NodeName, len(nodes))
			for i, n := range nodes {
				names[i] = catalog.NodeName(n)
			}
			values, err := pipelinestest.Fill(schema, names)
			if err != nil {
				t.Fatal(err)
			}
			msa := tpl["merge_save_args"].(map[string]any)
			base, steps := msa["base"].(map[string]any), msa["steps"].(map[string]any)
			for _, p := range strs(t, tpl["essential_fields"]) {
				where, field, _ := strings.Cut(p, ".")
				if where == "base" {
					base[field] = values.Base[field]
				} else {
					steps[where].(map[string]any)[field] = values.Steps[catalog.NodeName(where)][field]
				}
			}
			wantOK(t, callTool(t, ctx, "config.merge_save", map[string]any{"dag": dagArg, "base": base, "steps": steps, "output_file": "config.json"}))
			cfg := filepath.Join(root, "config.json")
			// The template's next step, its blanks filled with the same
			// values, writes the same config: the defaults it leaves out
			// are the ones merge_save fills alike.
			next := env["next_steps"].([]any)[0].(map[string]any)
			hint := next["args_hint"].(map[string]any)
			if next["tool"] != "config.merge_save" {
				t.Fatalf("next step %v", next)
			}
			hb, hs := hint["base"].(map[string]any), hint["steps"].(map[string]any)
			for _, p := range strs(t, tpl["essential_fields"]) {
				where, field, _ := strings.Cut(p, ".")
				var target map[string]any
				if where == "base" {
					target = hb
				} else {
					target, _ = hs[where].(map[string]any)
				}
				if v, ok := target[field]; !ok || v != nil {
					t.Fatalf("the hint has no blank for %s: %v", p, target)
				}
				if where == "base" {
					target[field] = values.Base[field]
				} else {
					target[field] = values.Steps[catalog.NodeName(where)][field]
				}
			}
			hint["output_file"] = "from-hint.json"
			wantOK(t, callTool(t, ctx, "config.merge_save", hint))
			if a, b := configBody(t, cfg), configBody(t, filepath.Join(root, "from-hint.json")); a != b {
				t.Fatalf("merge_save from the hint writes another config than from merge_save_args:\n%s\n%s", a, b)
			}
			cv := wantOK(t, callTool(t, ctx, "compile.validate", map[string]any{"dag": dagArg, "config_file": cfg}))
			if cv["is_valid"] != true {
				t.Fatalf("compile.validate %v", cv)
			}
			def := wantOK(t, callTool(t, ctx, "compile.definition", map[string]any{"dag": dagArg, "config_file": cfg}))
			if n := countSteps(def["definition"].(map[string]any)["Steps"].([]any)); n != len(nodes) {
				t.Fatalf("%d steps for %d nodes", n, len(nodes))
			}
		})
	}
}

// countSteps counts a definition's steps, those a Condition's branches nest
// included and its Fail steps and the models' repack jobs (which no node
// makes) left out.
func countSteps(steps []any) int {
	n := 0
	for _, s := range steps {
		m := s.(map[string]any)
		if m["Type"] != "Fail" && !strings.HasSuffix(m["Name"].(string), "-RepackModel") {
			n++
		}
		if m["Type"] == "Condition" {
			args := m["Arguments"].(map[string]any)
			for _, k := range []string{"IfSteps", "ElseSteps"} {
				if b, ok := args[k].([]any); ok {
					n += countSteps(b)
				}
			}
		}
	}
	return n
}
