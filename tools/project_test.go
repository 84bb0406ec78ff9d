package tools

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/engine/localrun"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/testenv"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/workflow"
)

// vwRoot returns a context confined to a fresh project root with every gate open.
func vwRoot(t *testing.T) (context.Context, string) {
	t.Helper()
	root := t.TempDir()
	return registry.WithPolicy(context.Background(), registry.Policy{AllowDestructive: true, AllowScriptExec: true, ProjectRoot: root}), root
}

func vwFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func TestProjectInitTool(t *testing.T) {
	ctx, root := vwRoot(t)
	env := callTool(t, ctx, "project.init", map[string]any{"name": "demo", "framework": "xgboost", "target_dir": "sub"})
	d := wantOK(t, env)
	target := filepath.Join(root, "sub", "demo_xgboost")
	if real, _ := filepath.EvalSymlinks(root); d["target_path"] != filepath.Join(real, "sub", "demo_xgboost") && d["target_path"] != target {
		t.Fatalf("target %v", d["target_path"])
	}
	if d["ready"] != true || d["config_source"] != "engine/config.Schema.Template" {
		t.Fatalf("data %v", d)
	}
	// Only the project's own step gets a script: the catalog steps run the
	// catalog's code, which a skeleton of the same name would replace.
	var scripts []string
	for _, f := range d["files_written"].([]any) {
		if strings.HasPrefix(f.(string), "scripts/") {
			scripts = append(scripts, f.(string))
		}
	}
	if strings.Join(scripts, ",") != "scripts/demo_feature_engineering.py" || len(d["files_written"].([]any)) != 7 {
		t.Fatalf("files written %v (scripts %v)", d["files_written"], scripts)
	}
	if env["meta"].(map[string]any)["file_count"] != float64(len(d["files_written"].([]any))) {
		t.Errorf("meta %v", env["meta"])
	}
	next := nextTools(env)
	for _, n := range next {
		if _, ok := testRegistry().Get(n); !ok {
			t.Errorf("next step %s is not a tool", n)
		}
	}
	made := vwFiles(t, root)
	if len(made) != len(d["files_written"].([]any)) {
		t.Errorf("%d files on disk, %d listed", len(made), len(d["files_written"].([]any)))
	}
	// Again: already_exists with a remedy, nothing changed.
	env = callTool(t, ctx, "project.init", map[string]any{"name": "demo", "framework": "xgboost", "target_dir": "sub"})
	det := wantFail(t, env, envelope.CodeAlreadyExists)
	if det["target_path"] == nil || remedyToolsOf(t, env)[0] != "project.init" {
		t.Errorf("already_exists: %v", env)
	}
	// Overwrite replaces.
	if d := wantOK(t, callTool(t, ctx, "project.init", map[string]any{"name": "demo", "framework": "xgboost", "target_dir": "sub", "overwrite": true})); d["replaced"] != true {
		t.Errorf("overwrite: %v", d)
	}
	if after := vwFiles(t, root); len(after) != len(made) {
		t.Errorf("overwrite left %d files, want %d", len(after), len(made))
	}
	// Schema and semantic refusals.
	wantFail(t, callTool(t, ctx, "project.init", map[string]any{"name": "demo", "framework": "bedrock"}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "project.init", map[string]any{"framework": "xgboost"}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "project.init", map[string]any{"name": "  ", "framework": "xgboost"}), envelope.CodeInvalidInput)
	// Gated under a policy that does not open destructive tools.
	det = wantFail(t, callTool(t, registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: root}), "project.init", map[string]any{"name": "x", "framework": "xgboost"}), envelope.CodeToolDisabled)
	if det["env_var"] != registry.EnvEnableDestructive {
		t.Errorf("gate %v", det)
	}
}

func TestProjectInitConfinement(t *testing.T) {
	ctx, root := vwRoot(t)
	outside := t.TempDir()
	for _, args := range []map[string]any{
		{"name": "../evil", "framework": "xgboost"},
		{"name": "a/b", "framework": "xgboost"},
		{"name": "..", "framework": "xgboost"},
		{"name": "x", "framework": "xgboost", "target_dir": "../../.."},
		{"name": "x", "framework": "xgboost", "target_dir": "sub/../../x"},
		{"name": "y", "framework": "xgboost", "target_dir": filepath.Dir(root)},
		{"name": "y", "framework": "xgboost", "target_dir": outside},
	} {
		env := callTool(t, ctx, "project.init", args)
		det := wantFail(t, env, envelope.CodeInvalidInput)
		if det["got"] == nil && det["env_var"] != registry.EnvProjectRoot {
			t.Errorf("%v: details %v", args, det)
		}
	}
	// A symbolic link inside the root pointing outside is refused too.
	if err := os.Symlink(outside, filepath.Join(root, "link")); err == nil {
		wantFail(t, callTool(t, ctx, "project.init", map[string]any{"name": "z", "framework": "xgboost", "target_dir": "link"}), envelope.CodeInvalidInput)
		os.Remove(filepath.Join(root, "link"))
	}
	if files := vwFiles(t, root); len(files) != 0 {
		t.Fatalf("refused inits wrote %v", files)
	}
	if files := vwFiles(t, outside); len(files) != 0 {
		t.Fatalf("refused inits wrote outside: %v", files)
	}
}

func TestProjectBringUpTool(t *testing.T) {
	ctx := context.Background()
	env := callTool(t, ctx, "project.bring_up", map[string]any{"name": "demo", "framework": "xgboost"})
	d := wantOK(t, env)
	args := d["args"].(map[string]any)
	if d["workflow"] != "cursus-new-project" || args["target_dir"] != "projects" || args["region"] != "NA" || args["dag_source"] != "catalog" || nextTools(env)[0] != "project.init" {
		t.Fatalf("bring_up: %v", env)
	}
	// The invocation is real: the command's arguments and the tool call start the workflow it names.
	cmd := d["command"].([]any)
	if len(cmd) != 6 || cmd[0] != "cursus" || cmd[3] != "new-project" || d["tool"] != "workflow.run" || len(d["phases"].([]any)) != 15 {
		t.Fatalf("bring_up invocation: %v", d)
	}
	var cmdArgs map[string]any
	if err := json.Unmarshal([]byte(cmd[5].(string)), &cmdArgs); err != nil || cmdArgs["name"] != "demo" {
		t.Fatalf("command args %v: %v", cmd[5], err)
	}
	wf, err := workflow.Get(cmd[3].(string))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wf.NormalizeArgs(cmdArgs); err != nil {
		t.Fatalf("the command's arguments do not fit the workflow: %v", err)
	}
	if ta := d["tool_args"].(map[string]any); ta["workflow"] != "new-project" || ta["args"].(map[string]any)["framework"] != "xgboost" {
		t.Fatalf("tool_args %v", ta)
	}
	for _, p := range d["plan"].([]any) {
		tool := p.(map[string]any)["tool"].(string)
		if _, ok := testRegistry().Get(tool); !ok {
			t.Errorf("plan names %s, which is not a tool", tool)
		}
	}
	wantFail(t, callTool(t, ctx, "project.bring_up", map[string]any{"name": "demo", "framework": "xgboost", "dag_source": "bogus"}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "project.bring_up", map[string]any{"name": "../demo", "framework": "xgboost"}), envelope.CodeInvalidInput)
	wantFail(t, callTool(t, ctx, "project.bring_up", map[string]any{"name": "demo"}), envelope.CodeInvalidInput)
}

// TestProjectEndToEnd: project.init in a temp root, its custom step passes
// author.preflight_step, the DAG compiles, and validate.run_scripts runs the
// scaffolded scripts on data this test writes.
func TestProjectEndToEnd(t *testing.T) {
	ctx, root := vwRoot(t)
	d := wantOK(t, callTool(t, ctx, "project.init", map[string]any{"name": "e2e", "framework": "xgboost"}))
	ws := d["workspace_dir"].(string)
	custom := d["custom_steps"].([]any)[0].(string)
	if custom != "E2eFeatureEngineering" {
		t.Fatalf("custom step %s", custom)
	}
	wsRel, _ := filepath.Rel(root, ws)
	if real, err := filepath.EvalSymlinks(root); err == nil && !strings.HasPrefix(ws, real) {
		t.Fatalf("workspace %s outside the root %s", ws, real)
	}

	// The custom step passes its gates (relative workspace paths are taken from the root).
	wantOK(t, callTool(t, ctx, "validate.step_interface", map[string]any{"step_name": custom, "workspace_dirs": []string{ws}}))
	pf := wantOK(t, callTool(t, ctx, "author.preflight_step", map[string]any{"step_name": custom, "workspace_dirs": []string{ws}}))
	if pf["constructible"] != true {
		t.Fatalf("preflight: %v", pf)
	}
	wantOK(t, callTool(t, ctx, "author.check_script", map[string]any{"step_name": custom, "workspace_dirs": []string{ws}}))
	var targets []string
	for _, n := range d["nodes"].([]any) {
		targets = append(targets, n.(string))
	}
	al := wantOK(t, callTool(t, ctx, "validate.alignment", map[string]any{"target_scripts": targets, "workspace_dirs": []string{wsRel}}))
	if al["failed_steps"] != 0.0 {
		t.Fatalf("alignment: %v", al["critical_issues"])
	}

	// The DAG compiles with the project's catalog.
	cat, err := catalog.Load(nil, ws)
	if err != nil {
		t.Fatal(err)
	}
	pd, _, err := dag.ReadFile(nil, d["dag_file"].(string))
	if err != nil {
		t.Fatal(err)
	}
	out, err := compiler.Compile(context.Background(), compiler.Input{DAG: pd, ConfigFile: d["config_file"].(string), Catalog: cat})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	if len(out.Definition.Steps) != pd.NodeCount() {
		t.Fatalf("compiled %d steps", len(out.Definition.Steps))
	}
	if tool, ok := testRegistry().Get("compile.validate"); ok {
		if _, has := tool.Schema()["properties"].(map[string]any)["workspace_dirs"]; has {
			cv := wantOK(t, callTool(t, ctx, "compile.validate", map[string]any{"dag_file": d["dag_file"], "config_file": d["config_file"], "workspace_dirs": []string{ws}}))
			if cv["is_valid"] != true {
				t.Fatalf("compile.validate: %v", cv)
			}
		}
	}

	// The scripts run on small data written here.
	testenv.Need(t, localrun.Ready("pandas", "sklearn", "xgboost"))
	dataDir := filepath.Join(root, "mydata")
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dataDir, "part-0.csv"))
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(f)
	w.Write([]string{"id", "f1", "f2", "label"})
	for i := 0; i < 20; i++ {
		w.Write([]string{strings.Repeat("1", i%3+1), "0.5", "1.5", []string{"0", "1"}[i%2]})
	}
	w.Flush()
	f.Close()
	// What the ledger asks of the user for this data: the trainer's feature
	// lists, scaffolded as placeholders, name its numeric columns.
	cfgDoc := readJSONFile(t, d["config_file"].(string))
	tr := cfgDoc["configuration"].(map[string]any)["specific"].(map[string]any)["XGBoostTraining"].(map[string]any)
	tr["tab_field_list"], tr["cat_field_list"] = []any{"f1", "f2"}, []any{}
	writeJSONFile(t, d["config_file"].(string), cfgDoc)
	input := map[string]any{"DummyDataLoading_training": map[string]any{"INPUT_DATA": "mydata"}, "DummyDataLoading_calibration": map[string]any{"INPUT_DATA": "mydata/part-0.csv"}}
	env := callTool(t, ctx, "validate.run_scripts", map[string]any{"dag_file": d["dag_file"], "config_file": d["config_file"],
		"workspace_dirs": []string{ws}, "input_data": input, "test_workspace_dir": "runs"})
	rd := wantOK(t, env)
	if rd["pipeline_success"] != true || rd["successful_scripts"] != 8.0 {
		t.Fatalf("run: %v", env)
	}
	results := rd["script_results"].(map[string]any)
	trained := results["XGBoostTraining"].(map[string]any)
	if trained["success"] != true || !strings.Contains(toJSON(trained["output_files"]), "model_output/xgboost_model.json") {
		t.Errorf("training: %v", trained)
	}
	if !strings.HasPrefix(rd["run_dir"].(string), filepath.Join(root, "runs")) {
		if real, _ := filepath.EvalSymlinks(root); !strings.HasPrefix(rd["run_dir"].(string), filepath.Join(real, "runs")) {
			t.Errorf("run dir %v outside root/runs", rd["run_dir"])
		}
	}
	// The training split holds the rows this test wrote (20 rows, 70% train).
	tp := results["TabularPreprocessing_training"].(map[string]any)
	split := filepath.Join(tp["outputs"].(map[string]any)["processed_data"].(string), "train", "train_processed_data.csv")
	rows, err := csv.NewReader(mustOpen(t, split)).ReadAll()
	if err != nil || len(rows) != 15 {
		t.Errorf("train split: %d rows (want header + 14), %v", len(rows), err)
	}
}

func mustOpen(t *testing.T, p string) *os.File {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func readJSONFile(t *testing.T, p string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return m
}

func writeJSONFile(t *testing.T, p string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
