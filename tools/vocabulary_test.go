package tools_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/engine/pipelines/pipelinestest"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/tools"
)

// retired are argument names the vocabulary replaced: a tool may still
// accept them, as deprecated aliases only.
var retired = map[string]string{
	"config_path": "config_file",
	"path":        "config_file, dag_file or output_file",
	"nodes":       "dag",
	"edges":       "dag",
}

// TestOneArgumentVocabulary holds every tool to the argument vocabulary:
// a DAG is dag (inline) or dag_file (a path) wherever a tool takes one, a
// config.json is config_file, a file written is output_file, extra step
// files are workspace_dirs; the retired spellings are deprecated aliases
// of the same type as the argument they stand for.
func TestOneArgumentVocabulary(t *testing.T) {
	r := cursus.Registry()
	for _, tl := range r.All() {
		props, _ := tl.Schema()["properties"].(map[string]any)
		aliases := map[string]string{}
		for _, a := range tl.Aliases() {
			aliases[a.Old] = a.New
		}
		for name := range props {
			if want, ok := retired[name]; ok && aliases[name] == "" {
				t.Errorf("%s: argument %q is retired (use %s); keep it only as a deprecated alias", tl.Name, name, want)
			}
		}
		if _, ok := props["dag"]; ok {
			if _, ok := props["dag_file"]; !ok {
				t.Errorf("%s takes dag but not dag_file", tl.Name)
			}
		}
		for old, new := range aliases {
			if strings.Contains(new, ".") {
				continue
			}
			ot, _ := props[old].(map[string]any)["type"].(string)
			nt, _ := props[new].(map[string]any)["type"].(string)
			if ot != nt {
				t.Errorf("%s: alias %s is %q, its replacement %s is %q", tl.Name, old, ot, new, nt)
			}
		}
	}
}

func deprecationWarned(t *testing.T, env map[string]any, old, new string) {
	t.Helper()
	if w, _ := json.Marshal(env["warnings"]); !strings.Contains(string(w), "argument '"+old+"' is deprecated: use '"+new+"'") {
		t.Errorf("no deprecation warning for %s: %s", old, w)
	}
}

// TestConfigToolsTakeDAGFile: config.requirements, config.template and
// config.merge_save take dag_file like compile.* do.
func TestConfigToolsTakeDAGFile(t *testing.T) {
	root := t.TempDir()
	dagFile, err := filepath.Abs("../examples/simple-training/dag.json")
	if err != nil {
		t.Fatal(err)
	}
	ctx := registry.WithPolicy(context.Background(), registry.Policy{AllowDestructive: true, ProjectRoot: root, ReadRoots: []string{filepath.Dir(dagFile)}})
	req := tools.WantOK(t, tools.CallTool(t, ctx, "config.requirements", map[string]any{"dag_file": dagFile}))
	if len(req["config_class_map"].(map[string]any)) == 0 {
		t.Errorf("requirements from dag_file: %v", req)
	}
	env := tools.CallTool(t, ctx, "config.template", map[string]any{"dag_file": dagFile})
	tpl := tools.WantOK(t, env)
	if ns := env["next_steps"].([]any); !strings.Contains(tools.ToJSON(ns[0]), `"dag_file":"`+dagFile) {
		t.Errorf("the next step does not pass dag_file on: %v", ns)
	}
	if len(tpl["essential_fields"].([]any)) == 0 {
		t.Errorf("template from dag_file: %v", tpl)
	}
	d, _, err := dag.ReadFile(nil, dagFile)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	filled, err := pipelinestest.Fill(schema, d.Nodes())
	if err != nil {
		t.Fatal(err)
	}
	base, steps := filled.Base, filled.Steps
	save := tools.WantOK(t, tools.CallTool(t, ctx, "config.merge_save", map[string]any{"dag_file": dagFile, "base": base, "steps": steps, "output_file": "config.json"}))
	if save["config_count"].(float64) < 2 {
		t.Errorf("merge_save from dag_file: %v", save)
	}
	// neither dag nor dag_file, or both: invalid_input
	tools.WantFail(t, tools.CallTool(t, ctx, "config.template", map[string]any{}), envelope.CodeInvalidInput)
	tools.WantFail(t, tools.CallTool(t, ctx, "config.requirements", map[string]any{"dag_file": dagFile, "dag": map[string]any{"nodes": []any{"Package"}}}), envelope.CodeInvalidInput)
}

// TestDeprecatedNamesStillWork: config.load's path and execdoc's
// config_path still work for one release, with a warning.
func TestDeprecatedNamesStillWork(t *testing.T) {
	ctx := context.Background()
	cfg, err := filepath.Abs("../examples/xgboost-end-to-end/config.json")
	if err != nil {
		t.Fatal(err)
	}
	dagFile := filepath.Join(filepath.Dir(cfg), "dag.json")
	env := tools.CallTool(t, ctx, "config.load", map[string]any{"path": cfg})
	tools.WantOK(t, env)
	deprecationWarned(t, env, "path", "config_file")
	for _, tool := range []string{"execdoc.generate", "execdoc.validate"} {
		args := map[string]any{"dag_file": dagFile, "config_path": cfg}
		if tool == "execdoc.validate" {
			args["execution_document"] = map[string]any{"PIPELINE_STEP_CONFIGS": map[string]any{}}
		}
		env = tools.CallTool(t, ctx, tool, args)
		tools.WantOK(t, env)
		deprecationWarned(t, env, "config_path", "config_file")
		delete(args, "config_path")
		args["config_file"] = cfg
		if env := tools.CallTool(t, ctx, tool, args); env["ok"] != true || strings.Contains(tools.ToJSON(env["warnings"]), "deprecated") {
			t.Errorf("%s with config_file: %v", tool, env)
		}
	}
}

// TestUnknownArgumentDidYouMean: a misspelled argument is invalid_input
// naming it and the argument meant.
func TestUnknownArgumentDidYouMean(t *testing.T) {
	env := tools.CallTool(t, context.Background(), "catalog.search", map[string]any{"qeury": "xgb"})
	tools.WantFail(t, env, envelope.CodeInvalidInput)
	if msg := env["error"].(string); !strings.Contains(msg, "qeury: unknown argument; did you mean 'query'?") {
		t.Errorf("message %q", msg)
	}
	// a deprecated name is not suggested: its replacement is
	env = tools.CallTool(t, context.Background(), "execdoc.generate", map[string]any{"config_fil": "x", "dag_file": "y"})
	if msg := env["error"].(string); !strings.Contains(msg, "did you mean 'config_file'?") {
		t.Errorf("message %q", msg)
	}
}

// TestProjectStepsAreSeen: validate.deps_explain and dag.validate_integrity
// take workspace_dirs like their siblings, so a project's own step is
// scored and known.
func TestProjectStepsAreSeen(t *testing.T) {
	root := dedupProject(t)
	ctx := registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: root})
	ws := []any{"steps"}
	explain := map[string]any{"name1": "input_data", "name2": "DATA", "consumer_step": "DedupRows_training", "provider_step": "DummyDataLoading_training"}
	tools.WantFail(t, tools.CallTool(t, ctx, "validate.deps_explain", explain), envelope.CodeNotFound)
	explain["workspace_dirs"] = ws
	d := tools.WantOK(t, tools.CallTool(t, ctx, "validate.deps_explain", explain))
	if c := d["compatibility"].(map[string]any); c["consumer_step"] != "DedupRows" || c["provider_in_sources"] != true {
		t.Errorf("compatibility %v", c)
	}
	dagArg := map[string]any{"nodes": []any{"DummyDataLoading_training", "DedupRows_training"}, "edges": []any{[]any{"DummyDataLoading_training", "DedupRows_training"}}}
	if d := tools.WantOK(t, tools.CallTool(t, ctx, "dag.validate_integrity", map[string]any{"dag": dagArg})); d["is_valid"] != false {
		t.Errorf("without workspace_dirs the project's step is unknown: %v", d)
	}
	env := tools.CallTool(t, ctx, "dag.validate_integrity", map[string]any{"dag": dagArg, "workspace_dirs": ws})
	if d := tools.WantOK(t, env); d["is_valid"] != true {
		t.Errorf("with workspace_dirs: %v", d)
	}
	if !strings.Contains(tools.ToJSON(env["next_steps"]), `"workspace_dirs":["steps"]`) {
		t.Errorf("next steps do not pass workspace_dirs on: %v", env["next_steps"])
	}
	if d := tools.WantOK(t, tools.CallTool(t, ctx, "dag.resolve_plan", map[string]any{"dag": dagArg, "workspace_dirs": ws})); tools.ToJSON(d["data_flow_map"]) == "" ||
		!strings.Contains(tools.ToJSON(d["data_flow_map"]), `"input_data":"DummyDataLoading_training:DATA"`) {
		t.Errorf("resolve_plan with workspace_dirs: %v", d["data_flow_map"])
	}
	tools.WantFail(t, tools.CallTool(t, ctx, "dag.render", map[string]any{"dag": dagArg, "workspace_dirs": []any{"missing"}}), envelope.CodeInvalidInput)
}

// TestSharedArgumentsEverywhereTheyApply: every argument the server's
// instructions call shared is accepted by every tool it applies to: a tool
// that takes a DAG takes dag_id (a shared DAG) too, every tool takes
// format, every tool that compiles a named pipeline takes pipeline_name
// (compile.validate included), and a tool that describes one step's
// fields takes step_name.
func TestSharedArgumentsEverywhereTheyApply(t *testing.T) {
	r := cursus.Registry()
	listing, err := registry.NewListing(r.All())
	if err != nil {
		t.Fatal(err)
	}
	shared := map[string]bool{}
	for _, a := range listing.Shared {
		shared[a.Name] = true
	}
	for _, name := range []string{"dag_id", "format", "step_name", "dag", "dag_file"} {
		if !shared[name] {
			t.Errorf("%s is not a shared argument of the listing", name)
		}
	}
	for _, tl := range r.All() {
		props, _ := tl.Schema()["properties"].(map[string]any)
		has := func(n string) bool { _, ok := props[n]; return ok }
		if !has("format") {
			t.Errorf("%s does not take format", tl.Name)
		}
		if has("dag") && !has("dag_id") {
			t.Errorf("%s takes dag but not dag_id", tl.Name)
		}
		if has("dag") && has("config_file") && strings.HasPrefix(tl.Name, "compile.") && tl.Name != "compile.preview" && !has("pipeline_name") {
			t.Errorf("%s compiles a pipeline but does not take pipeline_name", tl.Name)
		}
		if has("config_class") && !has("step_name") {
			t.Errorf("%s takes config_class but not step_name", tl.Name)
		}
	}
	ctx := context.Background()
	cfg, err := filepath.Abs("../examples/simple-training/config.json")
	if err != nil {
		t.Fatal(err)
	}
	// the calls the instructions promise
	tpl := tools.CallTool(t, ctx, "config.template", map[string]any{"dag_id": "xgboost_simple"})
	tools.WantOK(t, tpl)
	if hint := tools.ToJSON(tpl["next_steps"]); !strings.Contains(hint, `"dag_id":"xgboost_simple"`) || strings.Contains(hint, `"nodes"`) {
		t.Errorf("config.template's next step does not pass dag_id on: %s", hint)
	}
	if env := tools.CallTool(t, ctx, "config.requirements", map[string]any{"dag_id": "xgboost_simple", "format": "markdown"}); env["ok"] != true {
		t.Errorf("config.requirements in markdown: %v", env)
	}
	tools.WantOK(t, tools.CallTool(t, ctx, "dag.render", map[string]any{"dag_id": "xgboost_simple"}))
	tools.WantFail(t, tools.CallTool(t, ctx, "config.template", map[string]any{"dag_id": "xgboost_simpel"}), envelope.CodeNotFound)
	tools.WantFail(t, tools.CallTool(t, ctx, "config.template", map[string]any{"dag_id": "xgboost_simple", "dag_file": "x.json"}), envelope.CodeInvalidInput)
	fi := tools.WantOK(t, tools.CallTool(t, ctx, "config.field_info", map[string]any{"step_name": "TabularPreprocessing_training"}))
	if fi["step_type"] != "TabularPreprocessing" {
		t.Errorf("config.field_info by step_name: %v", fi)
	}
	tools.WantFail(t, tools.CallTool(t, ctx, "config.field_info", map[string]any{}), envelope.CodeInvalidInput)
	md := tools.CallTool(t, ctx, "config.load", map[string]any{"config_file": cfg, "format": "markdown"})
	if data, _ := md["data"].(string); !strings.Contains(data, "- shared_fields:") {
		t.Errorf("config.load in markdown: %v", md["data"])
	}
	env := tools.CallTool(t, ctx, "compile.validate", map[string]any{"dag_file": filepath.Join(filepath.Dir(cfg), "dag.json"), "config_file": cfg, "pipeline_name": "churn-xgb"})
	tools.WantOK(t, env)
	for _, n := range env["next_steps"].([]any) {
		if h := n.(map[string]any)["args_hint"].(map[string]any); h["pipeline_name"] != "churn-xgb" {
			t.Errorf("compile.validate's next step %v drops pipeline_name", n)
		}
	}
}

// TestToolsHelpCountsWhatTheCallerLists: under the server's policy, with
// the gates closed, tools.help counts the tools the caller's list holds,
// not the registry's.
func TestToolsHelpCountsWhatTheCallerLists(t *testing.T) {
	r := cursus.Registry()
	closed := registry.WithPolicy(context.Background(), registry.Policy{})
	listed := 0
	for _, tl := range r.List("") {
		if ok, _ := (registry.Policy{}).Allows(tl); ok {
			listed++
		}
	}
	d := tools.WantOK(t, tools.CallTool(t, closed, "tools.help", map[string]any{}))
	if int(d["total_tools"].(float64)) != listed || listed == r.Len() {
		t.Errorf("total_tools %v, the closed server lists %d of %d", d["total_tools"], listed, r.Len())
	}
	d = tools.WantOK(t, tools.CallTool(t, context.Background(), "tools.help", map[string]any{}))
	if int(d["total_tools"].(float64)) != r.Len() {
		t.Errorf("a trusted caller sees %v of %d", d["total_tools"], r.Len())
	}
}
