package registry_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

type aliasedArgs struct {
	ConfigFile string         `json:"config_file" jsonschema:"required,minLength=1" jsonschema_description:"The config."`
	DAG        map[string]any `json:"dag,omitempty" jsonschema_description:"The DAG."`
	ConfigPath string         `json:"config_path,omitempty" jsonschema:"required" deprecated:"config_file"`
	Nodes      []string       `json:"nodes,omitempty" deprecated:"dag.nodes"`
	Edges      [][]string     `json:"edges,omitempty" deprecated:"dag.edges"`
}

func aliasedRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	tool := registry.New("demo.aliased", registry.Spec{Description: "Echoes its arguments."},
		func(ctx context.Context, a aliasedArgs) (*envelope.ToolResult, error) {
			if a.ConfigPath != "" || a.Nodes != nil || a.Edges != nil {
				return nil, envelope.InvalidInput("the handler saw a deprecated name")
			}
			return envelope.OK(a), nil
		})
	r, err := registry.Build([]registry.Namespace{{Name: "demo", Description: "Demo tools.", Tools: []*registry.ToolDef{tool}}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestAliasesMapBeforeDecode(t *testing.T) {
	r := aliasedRegistry(t)
	ctx := context.Background()
	res := r.Call(ctx, "demo.aliased", map[string]any{"config_path": "c.json", "nodes": []string{"a", "b"}, "edges": [][]string{{"a", "b"}}})
	if !res.OK {
		t.Fatalf("aliases refused: %+v", res)
	}
	a := res.Data.(aliasedArgs)
	if a.ConfigFile != "c.json" || len(a.DAG["nodes"].([]any)) != 2 || len(a.DAG["edges"].([]any)) != 1 {
		t.Errorf("not mapped: %+v", a)
	}
	if len(res.Warnings) != 3 || !strings.Contains(strings.Join(res.Warnings, "\n"), "argument 'config_path' is deprecated: use 'config_file'") {
		t.Errorf("warnings: %v", res.Warnings)
	}
	// the new names alone: no warning
	res = r.Call(ctx, "demo.aliased", map[string]any{"config_file": "c.json"})
	if !res.OK || len(res.Warnings) != 0 {
		t.Errorf("new names: %+v", res)
	}
	// an alias is never required, and a missing replacement is named as such
	res = r.Call(ctx, "demo.aliased", map[string]any{})
	if res.Code != envelope.CodeInvalidInput || !strings.Contains(res.Error, "config_file: missing required argument") || strings.Contains(res.Error, "config_path") {
		t.Errorf("missing: %s", res.Error)
	}
	// both spellings: invalid_input naming both
	res = r.Call(ctx, "demo.aliased", map[string]any{"config_file": "a", "config_path": "b"})
	if res.Code != envelope.CodeInvalidInput || !strings.Contains(res.Error, "config_path: deprecated name of config_file; give config_file only") {
		t.Errorf("both: %s", res.Error)
	}
	res = r.Call(ctx, "demo.aliased", map[string]any{"config_file": "a", "dag": map[string]any{}, "nodes": []string{"a"}})
	if res.Code != envelope.CodeInvalidInput || !strings.Contains(res.Error, "give dag only") {
		t.Errorf("dag and nodes: %s", res.Error)
	}
	// the mapped value is validated where it lands
	res = r.Call(ctx, "demo.aliased", map[string]any{"config_path": ""})
	if res.Code != envelope.CodeInvalidInput || !strings.Contains(res.Error, "config_file") {
		t.Errorf("mapped value not validated: %s", res.Error)
	}
	tool, _ := r.Get("demo.aliased")
	if errs, err := tool.ValidateArgs(map[string]any{"config_path": "x"}); err != nil || len(errs) != 0 {
		t.Errorf("ValidateArgs with an alias: %v %v", errs, err)
	}
}

func TestAliasesInSchema(t *testing.T) {
	tool, _ := aliasedRegistry(t).Get("demo.aliased")
	if got := tool.Aliases(); len(got) != 3 || got[0] != (registry.Alias{Old: "config_path", New: "config_file"}) || got[2].New != "dag.nodes" {
		t.Errorf("Aliases() = %v", got)
	}
	props := tool.Schema()["properties"].(map[string]any)
	p := props["config_path"].(map[string]any)
	if p["deprecated"] != true || !strings.Contains(p["description"].(string), "use config_file") || p["type"] != "string" {
		t.Errorf("config_path property: %v", p)
	}
	if props["config_file"].(map[string]any)["deprecated"] != nil {
		t.Error("the replacement is marked deprecated")
	}
	for _, r := range registry.SchemaRequired(tool.Schema()) {
		if r == "config_path" {
			t.Error("an alias is required")
		}
	}
}

func TestBuildChecksAliases(t *testing.T) {
	for _, c := range []struct {
		name string
		tool *registry.ToolDef
		want string
	}{
		{"unknown target", registry.New("demo.a", registry.Spec{Description: "x"}, func(ctx context.Context, a struct {
			Old string `json:"old,omitempty" deprecated:"nope"`
		}) (*envelope.ToolResult, error) {
			return nil, nil
		}), `deprecated for "nope", which is not an argument`},
		{"deprecated target", registry.New("demo.b", registry.Spec{Description: "x"}, func(ctx context.Context, a struct {
			A string `json:"a,omitempty" deprecated:"b"`
			B string `json:"b,omitempty" deprecated:"c"`
			C string `json:"c,omitempty"`
		}) (*envelope.ToolResult, error) {
			return nil, nil
		}), `deprecated for "b", which is deprecated too`},
		{"empty", registry.New("demo.c", registry.Spec{Description: "x"}, func(ctx context.Context, a struct {
			A string `json:"a,omitempty" deprecated:""`
		}) (*envelope.ToolResult, error) {
			return nil, nil
		}), `deprecated tag names no argument`},
		{"twice", registry.New("demo.d", registry.Spec{Description: "x"}, func(ctx context.Context, a struct {
			A string `json:"a,omitempty" deprecated:"c"`
			B string `json:"b,omitempty" deprecated:"c"`
			C string `json:"c,omitempty"`
		}) (*envelope.ToolResult, error) {
			return nil, nil
		}), `two deprecated arguments stand for "c"`},
	} {
		_, err := registry.Build([]registry.Namespace{{Name: "demo", Description: "Demo.", Tools: []*registry.ToolDef{c.tool}}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
