package registry_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
	"github.com/xeipuuv/gojsonschema"
)

type listArgs struct {
	RunID   string   `json:"run_id" jsonschema:"required" jsonschema_description:"The run id."`
	Dirs    []string `json:"workspace_dirs,omitempty" jsonschema_description:"Directories of extra step files."`
	Old     string   `json:"old_dirs,omitempty" deprecated:"workspace_dirs"`
	Verbose bool     `json:"verbose,omitempty" jsonschema_description:"Say more."`
}

type listOut struct {
	Items []struct {
		Name  string `json:"name"`
		Parts []struct {
			Key   string `json:"key"`
			Value string `json:"value"`
		} `json:"parts"`
	} `json:"items"`
	Count int `json:"count"`
}

func listTool(name string, examples ...string) *registry.ToolDef {
	return registry.New(name, registry.Spec{Description: "Lists.", Examples: examples},
		func(ctx context.Context, a listArgs) (*envelope.Result[listOut], error) {
			return envelope.Success(listOut{}), nil
		})
}

// TestListedExamples: the tool's name is left out, an example that uses
// no argument an earlier one did not is not listed, and no more than
// MaxListedExamples are.
func TestListedExamples(t *testing.T) {
	tl := listTool("demo.a", `demo.a {"run_id": "r"}`, `demo.a {"run_id": "s"}  # same arguments`, `demo.a {"run_id": "r", "verbose": true}  # more`)
	got := tl.ListedExamples()
	want := []string{`{"run_id": "r"}`, `{"run_id": "r", "verbose": true}  # more`}
	if !slices.Equal(got, want) {
		t.Errorf("listed examples %q, want %q", got, want)
	}
	if d := tl.RenderDescription(); strings.Contains(d, "demo.a {") || strings.Contains(d, `"s"`) {
		t.Errorf("description %q", d)
	}
	// ListFirstExample lists the first example alone.
	one := listTool("demo.a", `demo.a {"run_id": "r"}`, `demo.a {"run_id": "r", "verbose": true}`)
	one.ListFirstExample = true
	if got := one.ListedExamples(); !slices.Equal(got, []string{`{"run_id": "r"}`}) || len(one.Examples) != 2 {
		t.Errorf("listed examples %q", got)
	}
	// A third example with a new argument is left to tools.describe_tool.
	tl = listTool("demo.a", `demo.a {"run_id": "r"}`, `demo.a {"verbose": true}`, `demo.a {"workspace_dirs": ["w"]}`)
	if got := tl.ListedExamples(); len(got) != registry.MaxListedExamples || strings.Contains(strings.Join(got, " "), "workspace_dirs") {
		t.Errorf("listed examples %q", got)
	}
}

// TestListing: deprecated aliases, descriptions that restate the name and
// size bounds are left out; a description three tools share is given once.
func TestListing(t *testing.T) {
	a, b, c := listTool("demo.a"), listTool("demo.b"), listTool("demo.c")
	solo := registry.New("demo.solo", registry.Spec{Description: "Solo."},
		func(ctx context.Context, a struct {
			Dirs []string `json:"workspace_dirs,omitempty" jsonschema_description:"Directories of extra step files."`
		}) (*envelope.ToolResult, error) {
			return envelope.OK(nil), nil
		})
	l, err := registry.NewListing([]*registry.ToolDef{a, b, solo})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Shared) != 1 || l.Shared[0].Name != "workspace_dirs" || l.Shared[0].Tools != 3 {
		t.Fatalf("shared %+v", l.Shared)
	}
	if !strings.Contains(l.SharedText(), "workspace_dirs: Directories of extra step files") {
		t.Errorf("shared text %q", l.SharedText())
	}
	var s map[string]any
	if err := json.Unmarshal(l.InputSchema(a), &s); err != nil {
		t.Fatal(err)
	}
	props := s["properties"].(map[string]any)
	if _, ok := props["old_dirs"]; ok {
		t.Error("a deprecated alias is listed")
	}
	if d, ok := props["run_id"].(map[string]any)["description"]; ok {
		t.Errorf("run_id keeps %q", d)
	}
	if _, ok := props["workspace_dirs"].(map[string]any)["description"]; ok {
		t.Error("a shared description is repeated")
	}
	if props["verbose"].(map[string]any)["description"] != "Say more." {
		t.Error("a description of its own is lost")
	}
	if !slices.Equal(s["required"].([]any), []any{"run_id"}) || s["additionalProperties"] != nil || a.Schema()["additionalProperties"] != false {
		t.Errorf("listed schema %s", l.InputSchema(a))
	}
	// Size bounds are enforced, not listed.
	if _, ok := a.Schema()["properties"].(map[string]any)["run_id"].(map[string]any)["maxLength"]; !ok {
		t.Error("the full schema lost run_id's maxLength")
	}
	if _, ok := props["run_id"].(map[string]any)["maxLength"]; ok {
		t.Errorf("a size bound is listed: %s", l.InputSchema(a))
	}
	// Two tools do not make a shared argument.
	l2, _ := registry.NewListing([]*registry.ToolDef{a, c})
	if len(l2.Shared) != 0 || !strings.Contains(string(l2.InputSchema(c)), "Directories of extra step files") {
		t.Errorf("shared %+v, schema %s", l2.Shared, l2.InputSchema(c))
	}
	// The full schema is untouched.
	if _, ok := a.Schema()["properties"].(map[string]any)["old_dirs"]; !ok {
		t.Error("the full schema lost the alias")
	}
}

// TestListedOutputSchema: the output schema a tool list carries is the
// open envelope with data alone (ok is the same in every tool, said once by
// the server), its data the data type's fields with their JSON types, and
// an answer of the tool, a failure too, validates against it.
func TestListedOutputSchema(t *testing.T) {
	tl := listTool("demo.a")
	// The listed output schema is open and lists data alone.
	var out map[string]any
	if err := json.Unmarshal(tl.ListedOutputSchema(), &out); err != nil {
		t.Fatal(err)
	}
	props, _ := out["properties"].(map[string]any)
	if _, ok := props["data"]; out["type"] != "object" || len(props) != 1 || !ok || out["required"] != nil || out["additionalProperties"] != nil {
		t.Errorf("listed output schema %s", tl.ListedOutputSchema())
	}
	// Its data is the data type's fields with their JSON types.
	dataJSON, _ := json.Marshal(out["properties"].(map[string]any)["data"])
	if string(dataJSON) != `{"properties":{"count":{"type":"integer"},"items":{"type":"array"}},"type":"object"}` {
		t.Errorf("listed data outline %s", dataJSON)
	}
	s, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(tl.ListedOutputSchema()))
	if err != nil {
		t.Fatal(err)
	}
	answer := `{"ok": true, "data": {"items": [{"name": "n", "parts": [{"key": "k", "value": "v"}]}], "count": 2}}`
	if r, _ := s.Validate(gojsonschema.NewStringLoader(answer)); !r.Valid() {
		t.Errorf("listed output schema rejects %s: %v", answer, r.Errors())
	}
	if r, _ := s.Validate(gojsonschema.NewStringLoader(`{"ok": false, "error": "e", "code": "not_found"}`)); !r.Valid() {
		t.Errorf("listed output schema rejects a failure: %v", r.Errors())
	}
	if r, _ := s.Validate(gojsonschema.NewStringLoader(`{"ok": true, "data": "no object"}`)); r.Valid() {
		t.Error("listed output schema accepts a string for data")
	}
}

type shadowInner struct {
	Name  string `json:"name"`
	Inner bool   `json:"inner"`
}

type shadowOut struct {
	Name int `json:"name"`
	shadowInner
}

// The outline of a data type whose embedded struct has a field of a name
// the outer one takes lists the field encoding/json writes: the outer one.
func TestListedOutlineShadowedField(t *testing.T) {
	tl := registry.New("demo.shadow", registry.Spec{Description: "Shadows."},
		func(ctx context.Context, a listArgs) (*envelope.Result[shadowOut], error) {
			return envelope.Success(shadowOut{}), nil
		})
	var out struct {
		Properties struct {
			Data json.RawMessage `json:"data"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(tl.ListedOutputSchema(), &out); err != nil {
		t.Fatal(err)
	}
	if got := string(out.Properties.Data); got != `{"properties":{"inner":{"type":"boolean"},"name":{"type":"integer"}},"type":"object"}` {
		t.Errorf("listed data outline %s", got)
	}
}

type graph struct {
	Nodes []string `json:"nodes"`
}

type shapeArgs struct {
	Graph *graph `json:"graph,omitempty"`
}

type ownShapeArgs struct {
	Graph *graph `json:"graph,omitempty" jsonschema_description:"The graph to draw."`
}

// TestListingShapes: an object argument three tools declare with the same
// nested schema is listed as an object, its schema given once (with a
// description of its own kept); two tools do not share a shape.
func TestListingShapes(t *testing.T) {
	tool := func(name string) *registry.ToolDef {
		return registry.New(name, registry.Spec{Description: "Shapes."},
			func(ctx context.Context, a shapeArgs) (*envelope.ToolResult, error) { return envelope.OK(nil), nil })
	}
	own := registry.New("demo.own", registry.Spec{Description: "Shapes."},
		func(ctx context.Context, a ownShapeArgs) (*envelope.ToolResult, error) { return envelope.OK(nil), nil })
	a, b := tool("demo.a"), tool("demo.b")
	l, err := registry.NewListing([]*registry.ToolDef{a, b, own})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"additionalProperties":false,"properties":{"nodes":{"items":{"type":"string"},"type":"array"}},"type":"object"}`
	if len(l.Shapes) != 1 || l.Shapes[0].Name != "graph" || string(l.Shapes[0].Schema) != want || l.Shapes[0].Tools != 3 {
		t.Fatalf("shapes %s", must(json.Marshal(l.Shapes)))
	}
	if !strings.Contains(l.SharedText(), "graph: "+want) {
		t.Errorf("shared text %q", l.SharedText())
	}
	if got := string(l.InputSchema(a)); got != `{"properties":{"graph":{"type":"object"}},"type":"object"}` {
		t.Errorf("listed schema %s", got)
	}
	if got := string(l.InputSchema(own)); got != `{"properties":{"graph":{"description":"The graph to draw.","type":"object"}},"type":"object"}` {
		t.Errorf("listed schema %s", got)
	}
	// The full schema keeps the shape.
	if !strings.Contains(string(must(json.Marshal(a.Schema()))), `"nodes"`) {
		t.Error("the full schema lost the shape")
	}
	l2, _ := registry.NewListing([]*registry.ToolDef{a, b})
	if len(l2.Shapes) != 0 || !strings.Contains(string(l2.InputSchema(a)), `"nodes"`) || l2.SharedText() != "" {
		t.Errorf("shapes %+v, schema %s", l2.Shapes, l2.InputSchema(a))
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestListingFoldsFormat: the format argument WithMarkdown gives every
// tool is left out of every listed schema and named once in the shared
// text; when one tool lacks it, it stays where it is.
func TestListingFoldsFormat(t *testing.T) {
	md := func(tl *registry.ToolDef) *registry.ToolDef {
		return tl.WithMarkdown(func(any) (string, error) { return "# x\n", nil })
	}
	a, b, c := md(listTool("demo.a")), md(listTool("demo.b")), md(listTool("demo.c"))
	l, err := registry.NewListing([]*registry.ToolDef{a, b, c})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range []*registry.ToolDef{a, b, c} {
		if strings.Contains(string(l.InputSchema(tl)), `"format"`) {
			t.Errorf("%s lists format: %s", tl.Name, l.InputSchema(tl))
		}
		if _, ok := tl.Schema()["properties"].(map[string]any)["format"]; !ok {
			t.Errorf("%s's full schema lost format", tl.Name)
		}
	}
	if txt := l.SharedText(); !strings.Contains(txt, "Every tool also takes (its schema leaves it out): format: json (default) returns data") {
		t.Errorf("shared text %q", txt)
	}
	l, err = registry.NewListing([]*registry.ToolDef{a, b, listTool("demo.c")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(l.InputSchema(a)), `"format"`) || strings.Contains(l.SharedText(), "Every tool also takes") {
		t.Errorf("format folded although demo.c lacks it: %s / %q", l.InputSchema(a), l.SharedText())
	}
}
