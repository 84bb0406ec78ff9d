package tools_test

import (
	"context"
	"github.com/cursus-go/cursus/internal/testenv"
	"github.com/cursus-go/cursus/internal/testfs"
	"os"
	"path/filepath"
	"testing"

	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/tools"
)

// TestReadPathsFromTheProjectRoot: with a project root that is not the
// working directory (an MCP server started with --project-root elsewhere),
// every tool that reads a file takes a relative path from that root, as
// the writing tools do; without the root the same relative paths are
// looked up in the working directory and are not found.
func TestReadPathsFromTheProjectRoot(t *testing.T) {
	root := t.TempDir()
	testfs.CopyTree(t, xgbExample, root)
	// a project script of its own, for the tools that read one
	testfs.CopyTree(t, "../engine/stepcode/scripts", filepath.Join(root, "scripts"))
	if wd, _ := os.Getwd(); wd == root {
		t.Fatal("the test needs a working directory other than the root")
	}
	if _, err := os.Stat("config.json"); err == nil {
		t.Fatal("config.json exists in the working directory; the test could not tell the two apart")
	}
	ctx := registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: root})
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"config.load", map[string]any{"config_file": "config.json"}},
		{"dag.deserialize", map[string]any{"dag_file": "dag.json"}},
		{"dag.render", map[string]any{"dag_file": "dag.json"}},
		{"compile.validate", map[string]any{"dag_file": "dag.json", "config_file": "config.json"}},
		{"compile.preview", map[string]any{"dag_file": "dag.json", "config_file": "config.json"}},
		{"compile.definition", map[string]any{"dag_file": "dag.json", "config_file": "config.json"}},
		{"compile.single_node", map[string]any{"dag_file": "dag.json", "config_file": "config.json", "target_node": "XGBoostTraining", "manual_inputs": map[string]any{"input_path": "s3://example-bucket/train/"}}},
		{"execdoc.template", map[string]any{"dag_file": "dag.json"}},
		{"execdoc.generate", map[string]any{"dag_file": "dag.json", "config_file": "config.json"}},
		{"execdoc.validate", map[string]any{"dag_file": "dag.json", "config_file": "config.json", "execution_document": map[string]any{"PIPELINE_STEP_CONFIGS": map[string]any{}}}},
		{"validate.deps_resolve", map[string]any{"dag_file": "dag.json"}},
		{"validate.alignment", map[string]any{"target_scripts": []any{"TabularPreprocessing"}, "script_dirs": []any{"scripts"}}},
	}
	if testenv.Python() != "" {
		calls = append(calls, struct {
			tool string
			args map[string]any
		}{"author.check_script", map[string]any{"step_name": "TabularPreprocessing", "script_path": "scripts/tabular_preprocessing.py"}})
	}
	for _, c := range calls {
		t.Run(c.tool, func(t *testing.T) {
			env := tools.CallTool(t, ctx, c.tool, c.args)
			if env["ok"] != true {
				t.Fatalf("with the project root: %v", env)
			}
			env = tools.CallTool(t, context.Background(), c.tool, c.args)
			if env["ok"] == true {
				t.Errorf("without a project root the relative paths should not resolve from %s", root)
			}
		})
	}
	// A path above the root is refused (reads are confined), and so is one
	// through a symbolic link out of it; the trusted caller reads both.
	sub := filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root, filepath.Join(sub, "up")); err != nil {
		t.Fatal(err)
	}
	inSub := registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: sub})
	if env := tools.CallTool(t, inSub, "config.load", map[string]any{"config_file": "../config.json"}); env["code"] != "invalid_input" {
		t.Errorf("read above the root: %v", env)
	}
	if env := tools.CallTool(t, inSub, "config.load", map[string]any{"config_file": "up/config.json"}); env["code"] != "not_found" {
		t.Errorf("read through a link out of the root: %v", env)
	}
	if env := tools.CallTool(t, context.Background(), "config.load", map[string]any{"config_file": filepath.Join(sub, "up", "config.json")}); env["ok"] != true {
		t.Errorf("a trusted caller follows the link: %v", env)
	}
}
