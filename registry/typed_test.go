package registry_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
	"github.com/xeipuuv/gojsonschema"
)

type pointOut struct {
	Name  string   `json:"name"`
	Tags  []string `json:"tags"`
	Note  *string  `json:"note"`
	Extra string   `json:"extra,omitempty"`
	Inner struct {
		Count int `json:"count"`
	} `json:"inner"`
}

type pointArgs struct {
	Name string `json:"name" jsonschema:"required"`
}

func typedRegistry(t *testing.T) (*registry.Registry, *registry.ToolDef) {
	t.Helper()
	tl := registry.New("demo.point", registry.Spec{Description: "A typed tool."},
		func(ctx context.Context, a pointArgs) (*envelope.Result[pointOut], error) {
			if a.Name == "nil" {
				return nil, nil
			}
			return envelope.Success(pointOut{Name: a.Name, Tags: []string{}}).WithNextSteps(envelope.NextStep{Tool: "demo.point", When: "w", Why: "y"}), nil
		})
	md := registry.New("demo.view", registry.Spec{Description: "A typed tool with a view."},
		func(ctx context.Context, a struct{}) (*envelope.Result[pointOut], error) {
			return envelope.Success(pointOut{Name: "v", Tags: []string{}}), nil
		}).WithMarkdown(func(data any) (string, error) { return "# " + data.(pointOut).Name, nil })
	r, err := registry.Build([]registry.Namespace{{Name: "demo", Description: "Demo.", Tools: []*registry.ToolDef{tl, md}}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := r.Get("demo.point")
	return r, got
}

func TestTypedOutput(t *testing.T) {
	r, tl := typedRegistry(t)
	if !tl.Typed() || tl.OutputType() != reflect.TypeFor[pointOut]() {
		t.Fatalf("output type %v", tl.OutputType())
	}
	out := tl.OutputSchema()
	if out["type"] != "object" {
		t.Fatalf("output schema root: %v", out)
	}
	data := tl.DataSchema()
	if data["type"] != "object" || data["additionalProperties"] != false {
		t.Errorf("data schema: %v", data)
	}
	req := registry.SchemaRequired(data)
	if strings.Join(req, ",") != "name,tags,note,inner" {
		t.Errorf("fields without omitempty are required: %v", req)
	}
	props := data["properties"].(map[string]any)
	if typ := props["note"].(map[string]any)["type"]; !reflect.DeepEqual(typ, []any{"string", "null"}) {
		t.Errorf("a pointer may be null: %v", typ)
	}
	var back map[string]any
	if err := json.Unmarshal(tl.OutputSchemaJSON(), &back); err != nil || !reflect.DeepEqual(back, out) {
		t.Errorf("OutputSchemaJSON is OutputSchema: %v", err)
	}

	ctx := context.Background()
	res, wire := r.CallJSON(ctx, "demo.point", map[string]any{"name": "p"})
	if p, ok := res.Data.(pointOut); !ok || p.Name != "p" || len(res.NextSteps) != 1 {
		t.Fatalf("typed data: %+v", res)
	}
	b, _ := json.Marshal(res)
	var a, c any
	_ = json.Unmarshal(b, &a)
	_ = json.Unmarshal(wire, &c)
	if !reflect.DeepEqual(a, c) {
		t.Errorf("CallJSON's bytes are the result's wire form:\n%s\n%s", b, wire)
	}
	schema, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(tl.OutputSchemaJSON()))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{`{"name": "p"}`, `{"name": "nil"}`, `{}`, `{"name": 1}`} {
		_, wire := r.CallJSON(ctx, "demo.point", args)
		v, err := schema.Validate(gojsonschema.NewBytesLoader(wire))
		if err != nil || !v.Valid() {
			t.Errorf("%s: %s breaks the output schema: %v %v", args, wire, err, v.Errors())
		}
	}
	if res := r.Call(ctx, "demo.point", `{"name": "nil"}`); res.Code != envelope.CodeInternalError {
		t.Errorf("a typed handler's nil result is a bug: %+v", res)
	}
	// the unknown tool's bytes too
	if _, wire := r.CallJSON(ctx, "demo.nope", nil); !strings.Contains(string(wire), `"code":"unknown_tool"`) {
		t.Errorf("unknown tool bytes: %s", wire)
	}
	// an untyped tool: data {}
	untyped := registry.New("demo.u", registry.Spec{Description: "x"}, func(ctx context.Context, a struct{}) (*envelope.ToolResult, error) { return envelope.OK(1), nil })
	if untyped.Typed() || untyped.OutputType() != nil || len(untyped.DataSchema()) != 0 {
		t.Errorf("untyped: %v %v", untyped.OutputType(), untyped.DataSchema())
	}
}

func TestTypedMarkdownView(t *testing.T) {
	r, _ := typedRegistry(t)
	tl, _ := r.Get("demo.view")
	d := tl.DataSchema()
	if alts, _ := d["anyOf"].([]any); len(alts) != 2 {
		t.Errorf("a view's data is the data or a string: %v", d)
	}
	if _, ok := tl.Schema()["properties"].(map[string]any)["format"]; !ok {
		t.Error("format argument missing")
	}
	res := r.Call(context.Background(), "demo.view", map[string]any{"format": "markdown"})
	if res.Data != "# v" || res.Meta["format"] != "markdown" {
		t.Errorf("view: %+v", res)
	}
	if res := r.Call(context.Background(), "demo.view", nil); res.Data.(pointOut).Name != "v" {
		t.Errorf("json: %+v", res)
	}
}

type node struct {
	Name string  `json:"name"`
	Kids []*node `json:"kids"`
}

func TestRecursiveDataTypePanics(t *testing.T) {
	tl := registry.New("demo.tree", registry.Spec{Description: "x"}, func(ctx context.Context, a struct{}) (*envelope.Result[node], error) { return nil, nil })
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), "recursive") {
			t.Errorf("panic %v", p)
		}
	}()
	tl.OutputSchema()
}

// The validator on edge cases: escapes, nested nulls, enums of numbers,
// patterns, alternatives.
func TestValidatorEdges(t *testing.T) {
	type args struct {
		Name  string         `json:"name" jsonschema:"required,pattern=^[a-z]+$,maxLength=5"`
		Level int            `json:"level,omitempty" jsonschema:"enum=1,enum=2"`
		Ratio float64        `json:"ratio,omitempty" jsonschema:"exclusiveMaximum=1"`
		Env   map[string]int `json:"env,omitempty"`
		List  []string       `json:"list,omitempty" jsonschema:"minItems=1,maxItems=2"`
		Any   any            `json:"any,omitempty"`
	}
	tl := registry.New("demo.edge", registry.Spec{Description: "x"}, func(ctx context.Context, a args) (*envelope.ToolResult, error) { return envelope.OK(a), nil })
	r, err := registry.Build([]registry.Namespace{{Name: "demo", Description: "Demo.", Tools: []*registry.ToolDef{tl}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args string
		want string // "" = valid
	}{
		{`{"name": "abc"}`, ""},
		{`{"name": "a\u0062c", "any": {"x": [null, 1]}}`, ""},
		{`{"n\u0061me": "abc"}`, ""},
		{`{"name": "ABC"}`, "name: does not match the pattern"},
		{`{"name": "abcdef"}`, "name: must be at most 5"},
		{`{"name": "abc", "level": 3}`, "level: must be one of 1, 2"},
		{`{"name": "abc", "level": 2}`, ""},
		{`{"name": "abc", "level": 1.5}`, "level: Invalid type. Expected: integer, given: number"},
		{`{"name": "abc", "ratio": 1}`, "ratio: must be less than 1"},
		{`{"name": "abc", "env": {"A": 1, "B": "x"}}`, "env.B: Invalid type"},
		{`{"name": "abc", "list": []}`, "list: must have at least 1 item(s)"},
		{`{"name": "abc", "list": ["a", "b", "c"]}`, "list: must have at most 2 item(s)"},
		{`{"name": "abc", "list": null}`, ""},
		{`{"name": "abc", "env": {"A": null}}`, "env.A: Invalid type. Expected: integer, given: null"},
		{` {"name" : "abc" , "level" :2 } `, ""},
	} {
		res := r.Call(context.Background(), "demo.edge", c.args)
		switch {
		case c.want == "" && !res.OK:
			t.Errorf("%s: refused: %s", c.args, res.Error)
		case c.want != "" && (res.OK || !strings.Contains(res.Error, c.want)):
			t.Errorf("%s: want %q, got %+v", c.args, c.want, res.Error)
		}
	}
}
