package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

type demoArgs struct {
	Name   string   `json:"name" jsonschema:"required" jsonschema_description:"a name"`
	Mode   string   `json:"mode,omitempty" jsonschema:"enum=fast,enum=slow,default=fast"`
	Count  int      `json:"count,omitempty" jsonschema:"minimum=0"`
	Pretty bool     `json:"pretty,omitempty" jsonschema:"default=true"`
	Items  []string `json:"items,omitempty"`
	Nested struct {
		Flag bool `json:"flag" jsonschema:"required"`
	} `json:"nested,omitempty"`
}

func demoRegistry(t *testing.T, extra ...*registry.ToolDef) *registry.Registry {
	t.Helper()
	tools := []*registry.ToolDef{
		registry.New("demo.ok", registry.Spec{Description: "Echoes its arguments back.", When: "testing", Examples: []string{`demo.ok {"name": "x"}`}, Tags: []string{registry.PhasePlanner}},
			func(ctx context.Context, a demoArgs) (*envelope.ToolResult, error) {
				return envelope.OK(a), nil
			}),
		registry.New("demo.fail", registry.Spec{Description: "Fails with a handled error."},
			func(ctx context.Context, a struct{}) (*envelope.ToolResult, error) {
				return nil, envelope.NotFound("no such thing").WithDetails("thing", "x").WithRemedy("look elsewhere", "demo.ok")
			}),
		registry.New("demo.boom", registry.Spec{Description: "Panics."},
			func(ctx context.Context, a struct{}) (*envelope.ToolResult, error) {
				var m map[string]int
				m["x"] = 1
				return nil, nil
			}),
		registry.New("demo.err", registry.Spec{Description: "Returns a plain error."},
			func(ctx context.Context, a struct{}) (*envelope.ToolResult, error) {
				return nil, os.ErrPermission
			}),
		registry.New("demo.write", registry.Spec{Description: "Writes a file.", Writes: true},
			func(ctx context.Context, a struct {
				Path string `json:"path" jsonschema:"required"`
			}) (*envelope.ToolResult, error) {
				p, err := registry.ResolveWritePath(ctx, "path", a.Path)
				if err != nil {
					return nil, err
				}
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					return nil, err
				}
				return envelope.OK(p), os.WriteFile(p, []byte("x"), 0o644)
			}),
		registry.New("demo.exec", registry.Spec{Description: "Runs code.", ExecCode: true},
			func(ctx context.Context, a struct{}) (*envelope.ToolResult, error) { return envelope.OK(true), nil }),
		registry.New("demo.old", registry.Spec{Description: "Old echo.", DeprecatedBy: "demo.ok"},
			func(ctx context.Context, a struct{}) (*envelope.ToolResult, error) { return envelope.OK("old"), nil }),
		registry.New("demo.inner", registry.Spec{Description: "Calls demo.ok through the registry."},
			func(ctx context.Context, a struct{}) (*envelope.ToolResult, error) {
				return registry.Call(ctx, "demo.ok", map[string]any{"name": "inner"}), nil
			}),
	}
	tools = append(tools, extra...)
	r, err := registry.Build([]registry.Namespace{{Name: "demo", Description: "Demo tools.", Tools: tools}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func roundTrip(t *testing.T, res *envelope.ToolResult) map[string]any {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestUnknownTool(t *testing.T) {
	r := demoRegistry(t)
	res := r.Call(context.Background(), "demo.nope", nil)
	if res.OK || res.Code != envelope.CodeUnknownTool {
		t.Fatalf("got %+v", res)
	}
	m := roundTrip(t, res)
	if _, ok := m["data"]; ok {
		t.Error("failure carries data")
	}
	avail := res.Details()["available"].([]string)
	if len(avail) == 0 || len(avail) > 5 {
		t.Errorf("available = %v, want a few suggestions", avail)
	}
	if res.Remedy == nil || res.Remedy.SuggestedTools[len(res.Remedy.SuggestedTools)-1] != "tools.help" {
		t.Errorf("remedy = %+v", res.Remedy)
	}
}

func TestUnknownToolDidYouMean(t *testing.T) {
	r := demoRegistry(t)
	for _, name := range []string{"demo.inenr", "demo__inenr", "DEMO.INNER2"} {
		res := r.Call(context.Background(), name, nil)
		avail, _ := res.Details()["available"].([]string)
		if res.Code != envelope.CodeUnknownTool || len(avail) == 0 || avail[0] != "demo.inner" || !strings.Contains(res.Error, "did you mean demo.inner") {
			t.Errorf("%s: %+v", name, res)
		}
		if res.Remedy.SuggestedTools[0] != "demo.inner" {
			t.Errorf("%s: remedy %v", name, res.Remedy.SuggestedTools)
		}
		if res.Details()["total_tools"] != r.Len() {
			t.Errorf("%s: total_tools %v", name, res.Details()["total_tools"])
		}
	}
	// nothing close: no suggestion, but the namespace's help when the namespace is right
	res := r.Call(context.Background(), "zzzzzzzzzz.qqqqqqqqqqqq", nil)
	if avail := res.Details()["available"].([]string); len(avail) != 0 || strings.Contains(res.Error, "did you mean") {
		t.Errorf("far name: %+v", res)
	}
	res = r.Call(context.Background(), "demo.qqqqqqqqqqqqqqqqqqqq", nil)
	if avail := res.Details()["available"].([]string); len(avail) != 1 || avail[0] != "demo.help" {
		t.Errorf("right namespace: %+v", res.Details())
	}
	if te := r.UnknownTool("demo.inenr"); te.Code != envelope.CodeUnknownTool || te.Details["available"].([]string)[0] != "demo.inner" {
		t.Errorf("UnknownTool: %+v", te)
	}
}

func TestUnknownArgumentDidYouMean(t *testing.T) {
	r := demoRegistry(t)
	res := r.Call(context.Background(), "demo.ok", map[string]any{"name": "x", "itmes": []string{"a"}})
	if res.Code != envelope.CodeInvalidInput || !strings.Contains(res.Error, "itmes: unknown argument; did you mean 'items'?") {
		t.Errorf("top level: %s", res.Error)
	}
	res = r.Call(context.Background(), "demo.ok", map[string]any{"name": "x", "nested": map[string]any{"flag": true, "flga": 1}})
	if !strings.Contains(res.Error, "nested.flga: unknown argument; did you mean 'flag'?") {
		t.Errorf("nested: %s", res.Error)
	}
	res = r.Call(context.Background(), "demo.ok", map[string]any{"name": "x", "zzzzzzzz": 1})
	if !strings.Contains(res.Error, "zzzzzzzz: unknown argument; the arguments are: count, items, mode, name, nested, pretty") {
		t.Errorf("nothing close: %s", res.Error)
	}
	res = r.Call(context.Background(), "demo.fail", map[string]any{"x": 1})
	if !strings.Contains(res.Error, "x: unknown argument; this object takes no arguments") {
		t.Errorf("no arguments: %s", res.Error)
	}
}

func TestBadJSONHasPosition(t *testing.T) {
	r := demoRegistry(t)
	res := r.Call(context.Background(), "demo.ok", "{\n  \"name\": \"x\",\n  \"items\": [\"a\" \"b\"]\n}")
	if res.Code != envelope.CodeInvalidInput || !strings.Contains(res.Error, "line 3, column 17") {
		t.Errorf("bad JSON: %s", res.Error)
	}
	res = r.Call(context.Background(), "demo.ok", `{"name": "x"`)
	if !strings.Contains(res.Error, "line 1, column 12") || !strings.Contains(res.Error, "unexpected end") {
		t.Errorf("truncated JSON: %s", res.Error)
	}
}

func TestBothNameForms(t *testing.T) {
	r := demoRegistry(t)
	a, ok1 := r.Get("demo.ok")
	b, ok2 := r.Get("demo__ok")
	if !ok1 || !ok2 || a != b {
		t.Fatal("dotted and wire names must resolve to the same tool")
	}
	res := r.Call(context.Background(), "demo__ok", map[string]any{"name": "x"})
	if !res.OK || res.Meta["tool"] != "demo.ok" {
		t.Fatalf("meta.tool must be the canonical dotted name: %+v", res.Meta)
	}
}

func TestValidation(t *testing.T) {
	r := demoRegistry(t)
	cases := []struct {
		name string
		args string
		want []string // substrings of meta.details.errors
	}{
		{"missing required", `{}`, []string{"name: missing required argument"}},
		{"null required", `{"name": null}`, []string{"name: missing required argument"}},
		{"unknown key", `{"name": "x", "bogus": 1}`, []string{"bogus: unknown argument"}},
		{"bad enum", `{"name": "x", "mode": "warp"}`, []string{"mode:"}},
		{"wrong type", `{"name": 3}`, []string{"name: Invalid type"}},
		{"nested", `{"name": "x", "nested": {"flag": "yes"}}`, []string{"nested.flag: Invalid type"}},
		{"nested missing", `{"name": "x", "nested": {}}`, []string{"nested.flag: missing required argument"}},
		{"array item", `{"name": "x", "items": ["a", 2]}`, []string{"items.1: Invalid type"}},
		{"minimum", `{"name": "x", "count": -1}`, []string{"count:"}},
		{"every problem", `{"bogus": 1, "mode": "warp"}`, []string{"name: missing", "bogus: unknown", "mode:"}},
		{"not an object", `[1]`, []string{"must be a JSON object"}},
		{"not JSON", `{`, []string{"not valid JSON"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := r.Call(context.Background(), "demo.ok", c.args)
			if res.OK || res.Code != envelope.CodeInvalidInput {
				t.Fatalf("got %+v", res)
			}
			errs, _ := res.Details()["errors"].([]string)
			joined := strings.Join(errs, "\n")
			for _, w := range c.want {
				if !strings.Contains(joined, w) {
					t.Errorf("errors %q lack %q", joined, w)
				}
			}
			if res.Meta["tool"] != "demo.ok" {
				t.Error("invalid_input must carry meta.tool")
			}
		})
	}
}

func TestDefaultsAndNullOptional(t *testing.T) {
	r := demoRegistry(t)
	res := r.Call(context.Background(), "demo.ok", `{"name": "x", "mode": null}`)
	if !res.OK {
		t.Fatalf("null optional must count as absent: %+v", res)
	}
	a := res.Data.(demoArgs)
	if a.Mode != "fast" || !a.Pretty {
		t.Errorf("defaults not applied: %+v", a)
	}
	res = r.Call(context.Background(), "demo.ok", `{"name": "x", "pretty": false, "mode": "slow"}`)
	a = res.Data.(demoArgs)
	if a.Mode != "slow" || a.Pretty {
		t.Errorf("explicit values must win over defaults: %+v", a)
	}
}

func TestHandledAndUnhandledFailures(t *testing.T) {
	r := demoRegistry(t)
	res := r.Call(context.Background(), "demo.fail", nil)
	if res.Code != envelope.CodeNotFound || res.Details()["thing"] != "x" || res.Remedy == nil || res.Meta["tool"] != "demo.fail" {
		t.Fatalf("ToolError must keep code, details and remedy: %+v", res)
	}
	res = r.Call(context.Background(), "demo.boom", nil)
	if res.Code != envelope.CodeInternalError || res.Details()["exception"] == nil {
		t.Fatalf("a panic must become internal_error: %+v", res)
	}
	res = r.Call(context.Background(), "demo.err", nil)
	if res.Code != envelope.CodeInternalError || !strings.Contains(res.Details()["exception"].(string), "errors") {
		t.Fatalf("a plain error must become internal_error with its type: %+v", res)
	}
	if _, ok := res.Meta["duration_ms"].(float64); !ok {
		t.Error("meta.duration_ms missing")
	}
}

func TestPolicyGates(t *testing.T) {
	r := demoRegistry(t)
	dir := t.TempDir()
	ctx := registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: dir})
	for name, env := range map[string]string{"demo.write": registry.EnvEnableDestructive, "demo.exec": registry.EnvAllowScriptExec} {
		res := r.Call(ctx, name, map[string]any{"path": "a.txt"})
		if name == "demo.exec" {
			res = r.Call(ctx, name, nil)
		}
		if res.Code != envelope.CodeToolDisabled || res.Details()["env_var"] != env || !strings.Contains(res.Error, env) {
			t.Errorf("%s: got %+v", name, res)
		}
	}
	// Trusted callers (no policy) may call anything.
	if res := r.Call(context.Background(), "demo.exec", nil); !res.OK {
		t.Errorf("trusted call refused: %+v", res)
	}
	open := registry.WithPolicy(context.Background(), registry.Policy{AllowDestructive: true, ProjectRoot: dir})
	if res := r.Call(open, "demo.write", map[string]any{"path": "sub/a.txt"}); !res.OK {
		t.Fatalf("confined write refused: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub", "a.txt")); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(filepath.Dir(dir), "evil.txt")
	for _, p := range []string{"../evil.txt", outside, "sub/../../evil.txt"} {
		res := r.Call(open, "demo.write", map[string]any{"path": p})
		if res.Code != envelope.CodeInvalidInput {
			t.Errorf("%s: escape not refused: %+v", p, res)
		}
	}
	if _, err := os.Stat(outside); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused write wrote something")
	}
	// A symbolic link inside the root that points outside is refused too.
	if err := os.Symlink(filepath.Dir(dir), filepath.Join(dir, "link")); err == nil {
		if res := r.Call(open, "demo.write", map[string]any{"path": "link/evil.txt"}); res.Code != envelope.CodeInvalidInput {
			t.Errorf("symlink escape not refused: %+v", res)
		}
	}
}

func TestNamespaceHelpAndDeprecation(t *testing.T) {
	r := demoRegistry(t)
	if _, ok := r.Get("demo.help"); !ok {
		t.Fatal("demo.help not generated")
	}
	for _, tl := range r.List("") {
		if tl.Name == "demo.old" {
			t.Error("a deprecated tool must be hidden from lists")
		}
	}
	res := r.Call(context.Background(), "demo.old", nil)
	if !res.OK || len(res.Warnings) == 0 || res.Remedy == nil || res.Remedy.SuggestedTools[0] != "demo.ok" {
		t.Errorf("deprecated call: %+v", res)
	}
	if res := r.Call(context.Background(), "demo.inner", nil); !res.OK || res.Data.(demoArgs).Name != "inner" {
		t.Errorf("nested call: %+v", res)
	}
}

func TestBuildRejectsDuplicatesAndBadNames(t *testing.T) {
	mk := func(name string) *registry.ToolDef {
		return registry.New(name, registry.Spec{Description: "x"}, func(ctx context.Context, a struct{}) (*envelope.ToolResult, error) { return nil, nil })
	}
	if _, err := registry.Build([]registry.Namespace{{Name: "a", Tools: []*registry.ToolDef{mk("a.x"), mk("a.x")}}}); err == nil {
		t.Error("duplicate accepted")
	}
	for _, bad := range []string{"nodot", "A.x", "a.x__y", "a.x-y"} {
		if _, err := registry.Build([]registry.Namespace{{Name: strings.Split(bad, ".")[0], Tools: []*registry.ToolDef{mk(bad)}}}); err == nil {
			t.Errorf("bad name %q accepted", bad)
		}
	}
}

func TestSchemaShape(t *testing.T) {
	r := demoRegistry(t)
	tl, _ := r.Get("demo.ok")
	s := tl.Schema()
	if s["type"] != "object" || s["additionalProperties"] != false {
		t.Fatalf("schema root: %v", s)
	}
	for _, k := range []string{"$ref", "$schema", "$defs", "$id"} {
		if _, ok := s[k]; ok {
			t.Errorf("schema has %s", k)
		}
	}
	if req := registry.SchemaRequired(s); len(req) != 1 || req[0] != "name" {
		t.Errorf("required = %v", req)
	}
	props := s["properties"].(map[string]any)
	if props["name"].(map[string]any)["description"] != "a name" {
		t.Error("description tag lost")
	}
	if props["pretty"].(map[string]any)["default"] != true {
		t.Errorf("default tag lost: %v", props["pretty"])
	}
}

func TestRenderDescription(t *testing.T) {
	r := demoRegistry(t)
	tl, _ := r.Get("demo.ok")
	want := "Echoes its arguments back.\n\nWhen: testing\n\nExamples:\n- {\"name\": \"x\"}"
	if got := tl.RenderDescription(); got != want {
		t.Errorf("got %q", got)
	}
	plain, _ := r.Get("demo.fail")
	if plain.RenderDescription() != "Handled error."[0:0]+"Fails with a handled error." {
		t.Errorf("plain tool renders %q", plain.RenderDescription())
	}
}

func TestParseExample(t *testing.T) {
	name, args, note, err := registry.ParseExample(`dag.construct {"nodes": ["a"]}  # one node`)
	if err != nil || name != "dag.construct" || note != "one node" || args["nodes"] == nil {
		t.Fatalf("%q %v %q %v", name, args, note, err)
	}
	if _, _, _, err := registry.ParseExample(`x.y {"a": 1} trailing`); err == nil {
		t.Error("trailing text accepted")
	}
}

func TestCancelledContext(t *testing.T) {
	r := demoRegistry(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res := r.Call(ctx, "demo.ok", map[string]any{"name": "x"}); res.Code != envelope.CodeCancelled {
		t.Errorf("got %+v", res)
	}
}
