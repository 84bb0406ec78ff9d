package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

func scaffoldArgs(ws string) map[string]any {
	return map[string]any{
		"step_name": "OutlierClipping", "workspace_dir": ws, "job_type": "training",
		"description": "Clip numeric columns to their 1st-99th percentile range.",
		"inputs":      []any{map[string]any{"name": "input_data", "compatible_sources": []any{"TabularPreprocessing"}, "keywords": []any{"processed_data"}}},
		"outputs":     []any{map[string]any{"name": "processed_data", "aliases": []any{"input_path"}}},
	}
}

func TestAuthorScaffoldStepWritesFilesThatPassTheGates(t *testing.T) {
	root := t.TempDir()
	ctx := registry.WithPolicy(context.Background(), registry.Policy{AllowDestructive: true, ProjectRoot: root})
	r := testRegistry()
	d := wantOK(t, callTool(t, ctx, "author.scaffold_step", scaffoldArgs("steps")))
	stepFile := filepath.Join(root, "steps", "OutlierClipping.step.yaml")
	script := filepath.Join(root, "scripts", "outlier_clipping.py")
	if d["step_file"] != stepFile || d["script"] != script || d["step_file_status"] != "written" || d["script_status"] != "written" {
		t.Fatalf("data %v", d)
	}
	body, _ := os.ReadFile(script)
	if !strings.Contains(string(body), "/opt/ml/processing/input/input_data") || !strings.Contains(string(body), "/opt/ml/processing/output/processed_data") {
		t.Fatalf("script does not use the declared paths:\n%s", body)
	}
	ws := []any{filepath.Join(root, "steps")}
	for _, tool := range []string{"validate.step_interface", "author.check_script", "author.preflight_step"} {
		if got := r.Call(ctx, tool, map[string]any{"step_name": "OutlierClipping", "workspace_dirs": ws}); !got.OK {
			t.Errorf("%s on the scaffold: %s %s %v", tool, got.Code, got.Error, got.Meta)
		}
	}
	// Existing files: fail by default, keep or overwrite on request.
	if again := wantOK(t, callTool(t, ctx, "author.scaffold_step", scaffoldArgs("steps"))); again["script_status"] != "unchanged" {
		t.Fatalf("identical re-run: %+v", again)
	}
	if err := os.WriteFile(script, []byte("# edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if again := r.Call(ctx, "author.scaffold_step", scaffoldArgs("steps")); again.Code != envelope.CodeAlreadyExists {
		t.Fatalf("want already_exists, got %s", again.Code)
	}
	args := scaffoldArgs("steps")
	args["if_exists"] = "keep"
	if kept := wantOK(t, callTool(t, ctx, "author.scaffold_step", args)); kept["script_status"] != "kept" {
		t.Fatalf("keep: %+v", kept)
	}
	if b, _ := os.ReadFile(script); string(b) != "# edited\n" {
		t.Fatal("keep changed the file")
	}
	args["if_exists"] = "overwrite"
	if over := wantOK(t, callTool(t, ctx, "author.scaffold_step", args)); over["script_status"] != "overwritten" {
		t.Fatalf("overwrite: %+v", over)
	}
}

func TestAuthorScaffoldStepRefusals(t *testing.T) {
	root := t.TempDir()
	ctx := registry.WithPolicy(context.Background(), registry.Policy{AllowDestructive: true, ProjectRoot: root})
	bad := func(mut func(map[string]any), code envelope.Code, has string) {
		t.Helper()
		args := scaffoldArgs("steps")
		mut(args)
		res := testRegistry().Call(ctx, "author.scaffold_step", args)
		if res.OK || res.Code != code || !strings.Contains(res.Error+toJSON(res.Meta), has) {
			t.Errorf("want %s containing %q, got %s %q", code, has, res.Code, res.Error)
		}
	}
	bad(func(a map[string]any) { a["step_name"] = "outlier_clipping" }, envelope.CodeInvalidInput, "PascalCase")
	bad(func(a map[string]any) { a["workspace_dir"] = "../evil" }, envelope.CodeInvalidInput, "outside")
	bad(func(a map[string]any) { a["script_dir"] = "/etc" }, envelope.CodeInvalidInput, "outside")
	bad(func(a map[string]any) {
		a["outputs"] = []any{map[string]any{"name": "processed_data", "path": "/tmp/out"}}
	}, envelope.CodeInvalidInput, "would not load")
	bad(func(a map[string]any) { a["inputs"] = []any{} }, envelope.CodeInvalidInput, "inputs")
	bad(func(a map[string]any) {
		a["outputs"] = []any{map[string]any{"name": "input_data"}}
	}, envelope.CodeInvalidInput, "declared twice")
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Fatalf("a refused scaffold wrote files: %v", entries)
	}
	closed := registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: root})
	if res := testRegistry().Call(closed, "author.scaffold_step", scaffoldArgs("steps")); res.Code != envelope.CodeToolDisabled {
		t.Fatalf("gate: %s", res.Code)
	}
}
