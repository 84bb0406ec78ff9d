package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/tools"
)

// TestRemediesLeadSomewhere makes one real failing call of each failure
// class an agent meets before deploying (a misspelt catalog id, step,
// tool or field, a DAG file that is not there, a config file that is not
// a config, a write with writes closed) and follows its remedy as an
// agent would: the first (best) suggested tool is called with the
// arguments of the failed call that it takes, plus what the agent reads
// off the failure (follow), and its answer must hold the fix (want). A
// remedy without a tool must name the argument or variable to set. A
// remedy that points away from the fix is a dead end.
func TestRemediesLeadSomewhere(t *testing.T) {
	root := t.TempDir()
	open := registry.WithPolicy(context.Background(), registry.Policy{AllowDestructive: true, ProjectRoot: root})
	closed := registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: root})
	dag := map[string]any{"nodes": []any{"DummyDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining"},
		"edges": []any{[]any{"DummyDataLoading_training", "TabularPreprocessing_training"}, []any{"TabularPreprocessing_training", "XGBoostTraining"}}}
	cfg := filepath.Join(root, "other.json")
	if err := os.WriteFile(cfg, []byte(`{"not": "a config"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(root, "dag.json")
	cases := []struct {
		name   string
		ctx    context.Context
		tool   string
		args   map[string]any
		code   string
		follow map[string]any // what the agent reads off the failure (nil: an argument it drops)
		want   string         // the fix, in the followed answer
	}{
		{"catalog id misspelt", open, "pipeline_catalog.load_dag", map[string]any{"dag_id": "xgboost_simpel"}, "not_found", nil, `"xgboost_simple"`},
		{"step type misspelt", open, "catalog.step_info", map[string]any{"step_name": "XGBoostTrainng"}, "not_found", map[string]any{"query": "XGBoostTrainng"}, `"XGBoostTraining"`},
		{"tool misspelt", open, "catalog.step_infos", map[string]any{"step_name": "XGBoostTraining"}, "unknown_tool", nil, `"XGBoostTraining"`},
		{"unknown config field", open, "config.merge_save", map[string]any{"dag": dag, "base": map[string]any{"autor": "alice"}, "steps": map[string]any{}, "output_file": "c.json"}, "invalid_input", nil, `"author"`},
		{"DAG file missing", open, "compile.definition", map[string]any{"dag_file": missing, "config_file": cfg}, "not_found", map[string]any{"dag_file": nil, "dag": dag, "output_file": missing}, `"node_count":3`},
		{"config not a config", open, "compile.validate", map[string]any{"dag": dag, "config_file": cfg}, "", nil, `"merge_save_args"`},
		{"writes closed", closed, "dag.serialize", map[string]any{"dag": dag, "output_file": "dag.json"}, "tool_disabled", nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := tools.CallTool(t, c.ctx, c.tool, c.args)
			if env["ok"] != false {
				t.Fatalf("%s did not fail: %v", c.tool, env)
			}
			if c.code != "" && env["code"] != c.code {
				t.Fatalf("%s: code %v, want %s (%v)", c.tool, env["code"], c.code, env["error"])
			}
			remedy, _ := env["remedy"].(map[string]any)
			if remedy == nil {
				t.Fatalf("%s failed with %v and no remedy: %v", c.tool, env["code"], env["error"])
			}
			suggested, _ := remedy["suggested_tools"].([]any)
			fix, _ := remedy["fix_action"].(string)
			if strings.TrimSpace(fix) == "" {
				t.Errorf("%s: a remedy without a fix_action", c.tool)
			}
			if len(suggested) == 0 {
				// A remedy without a tool must name what to set: an
				// argument of the tool or an environment variable.
				if !namesArgumentOrVariable(c.tool, fix) {
					t.Errorf("%s: the remedy names no tool, argument or variable: %q", c.tool, fix)
				}
				return
			}
			name := suggested[0].(string)
			def, ok := cursus.Registry().Get(name)
			if !ok {
				t.Fatalf("%s: the remedy suggests %s, which is not a tool", c.tool, name)
			}
			props, _ := def.Schema()["properties"].(map[string]any)
			args := map[string]any{}
			for k, v := range c.args {
				if props[k] != nil {
					args[k] = v
				}
			}
			for k, v := range c.follow {
				if v == nil {
					delete(args, k)
				} else {
					args[k] = v
				}
			}
			got := tools.CallTool(t, c.ctx, name, args)
			if got["ok"] != true {
				t.Fatalf("%s failed (%v); its remedy %s, called with %v, fails too: %v: %v", c.tool, env["code"], name, keys(args), got["code"], got["error"])
			}
			if b, _ := json.Marshal(got); !strings.Contains(string(b), c.want) {
				t.Errorf("%s failed (%v); its remedy %s answers without the fix %s: %.300s", c.tool, env["code"], name, c.want, b)
			}
		})
	}
}

// namesArgumentOrVariable reports whether text names an argument of tool
// or an environment variable (CURSUS_...).
func namesArgumentOrVariable(tool, text string) bool {
	if strings.Contains(text, "CURSUS_") {
		return true
	}
	def, ok := cursus.Registry().Get(tool)
	if !ok {
		return false
	}
	props, _ := def.Schema()["properties"].(map[string]any)
	for k := range props {
		if strings.Contains(text, k) {
			return true
		}
	}
	return false
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
