package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

// onlyScope allows the listed tools and observes every call it allowed.
type onlyScope struct {
	allow map[string]bool

	mu   sync.Mutex
	seen []string
	args []string
	meta []any
}

func (s *onlyScope) Allows(t *registry.ToolDef) (bool, *envelope.ToolError) {
	if s.allow[t.Name] {
		return true, nil
	}
	return false, envelope.Errorf(envelope.CodeToolNotInStage, "tool '%s' is not in this stage", t.Name).
		WithRemedy("move to a stage that offers it", "workflow.start_stage")
}

func (s *onlyScope) ObserveCall(ctx context.Context, t *registry.ToolDef, args []byte, res *envelope.ToolResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, t.Name)
	s.args = append(s.args, string(args))
	s.meta = append(s.meta, res.Meta["tool"])
}

func TestScopeRefusesBeforeValidation(t *testing.T) {
	r := demoRegistry(t)
	sc := &onlyScope{allow: map[string]bool{"demo.inner": true}}
	ctx := registry.WithScope(context.Background(), sc)
	// demo.ok requires name: the scope answers first, so the agent learns
	// where the tool is instead of how to call it.
	res := r.Call(ctx, "demo__ok", nil)
	if res.OK || res.Code != envelope.CodeToolNotInStage || res.Remedy == nil || res.Meta["tool"] != "demo.ok" {
		t.Fatalf("got %+v", res)
	}
	if len(sc.seen) != 0 {
		t.Errorf("a refused call was observed: %v", sc.seen)
	}
}

func TestNestedCallsIgnoreScope(t *testing.T) {
	r := demoRegistry(t)
	sc := &onlyScope{allow: map[string]bool{"demo.inner": true}}
	ctx := registry.WithScope(context.Background(), sc)
	res := r.Call(ctx, "demo.inner", nil)
	if !res.OK || res.Data.(demoArgs).Name != "inner" {
		t.Fatalf("nested call refused by the scope: %+v", res)
	}
	if strings.Join(sc.seen, ",") != "demo.inner" {
		t.Errorf("observed %v, want only the outer call", sc.seen)
	}
	if sc.args[0] != "{}" || sc.meta[0] != "demo.inner" {
		t.Errorf("observed args %q meta.tool %v", sc.args[0], sc.meta[0])
	}
	// The policy still applies to nested calls.
	gated := registry.New("demo.outer_write", registry.Spec{Description: "Calls demo.write."},
		func(ctx context.Context, a struct{}) (*envelope.ToolResult, error) {
			return registry.Call(ctx, "demo.write", map[string]any{"path": "x"}), nil
		})
	r2 := demoRegistry(t, gated)
	sc.allow["demo.outer_write"] = true
	res = r2.Call(registry.WithPolicy(ctx, registry.Policy{}), "demo.outer_write", nil)
	if res.Code != envelope.CodeToolDisabled {
		t.Errorf("nested gated call: %+v", res)
	}
}

type panicky struct{}

func (panicky) Allows(*registry.ToolDef) (bool, *envelope.ToolError) { return true, nil }
func (panicky) ObserveCall(context.Context, *registry.ToolDef, []byte, *envelope.ToolResult) {
	panic("observer bug")
}

func TestObserverPanicIsContained(t *testing.T) {
	r := demoRegistry(t)
	res := r.Call(registry.WithScope(context.Background(), panicky{}), "demo.ok", map[string]any{"name": "x"})
	if !res.OK {
		t.Fatalf("an observer panic changed the result: %+v", res)
	}
}

type fmtArgs struct {
	Name string `json:"name" jsonschema:"required"`
}

type ownFmtArgs struct {
	Format string `json:"format,omitempty" jsonschema:"enum=json,enum=markdown"`
}

func TestWithMarkdown(t *testing.T) {
	render := func(data any) (string, error) {
		b, _ := json.Marshal(data)
		if strings.Contains(string(b), "unrenderable") {
			return "", errors.New("cannot render")
		}
		return "# view\n" + string(b), nil
	}
	plain := registry.New("fmt.plain", registry.Spec{Description: "Echoes."},
		func(ctx context.Context, a fmtArgs) (*envelope.ToolResult, error) {
			if a.Name == "fail" {
				return nil, envelope.NotFound("no %s", a.Name)
			}
			return envelope.OK(map[string]any{"name": a.Name}), nil
		}).WithMarkdown(render)
	var seenFormat string
	own := registry.New("fmt.own", registry.Spec{Description: "Renders itself."},
		func(ctx context.Context, a ownFmtArgs) (*envelope.ToolResult, error) {
			seenFormat = a.Format
			if a.Format == "markdown" {
				return envelope.OK("# mine"), nil
			}
			return envelope.OK(map[string]any{"x": 1}), nil
		}).WithMarkdown(render)
	r, err := registry.Build([]registry.Namespace{{Name: "fmt", Description: "Format tools.", Tools: []*registry.ToolDef{plain, own}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tl, _ := r.Get("fmt.plain")
	f, ok := tl.Schema()["properties"].(map[string]any)["format"].(map[string]any)
	if !ok || len(f["enum"].([]any)) != 2 {
		t.Fatalf("format not added to the schema: %v", tl.Schema())
	}
	if res := r.Call(ctx, "fmt.plain", map[string]any{"name": "a"}); !res.OK || res.Data.(map[string]any)["name"] != "a" {
		t.Errorf("json by default: %+v", res)
	}
	res := r.Call(ctx, "fmt.plain", map[string]any{"name": "a", "format": "markdown"})
	if s, _ := res.Data.(string); !res.OK || s != `# view
{"name":"a"}` || res.Meta["format"] != "markdown" {
		t.Errorf("markdown: %+v", res)
	}
	if res := r.Call(ctx, "fmt.plain", map[string]any{"name": "a", "format": "json"}); !res.OK || res.Meta["format"] != nil {
		t.Errorf("explicit json: %+v", res)
	}
	if res := r.Call(ctx, "fmt.plain", map[string]any{"name": "a", "format": "html"}); res.Code != envelope.CodeInvalidInput {
		t.Errorf("bad format accepted: %+v", res)
	}
	if res := r.Call(ctx, "fmt.plain", map[string]any{"name": "fail", "format": "markdown"}); res.Code != envelope.CodeNotFound {
		t.Errorf("failure changed: %+v", res)
	}
	res = r.Call(ctx, "fmt.plain", map[string]any{"name": "unrenderable", "format": "markdown"})
	if _, isMap := res.Data.(map[string]any); !res.OK || !isMap || len(res.Warnings) != 1 {
		t.Errorf("render error: %+v", res)
	}
	// A tool with its own format argument sees it and renders itself.
	if res := r.Call(ctx, "fmt.own", map[string]any{"format": "markdown"}); res.Data != "# mine" || seenFormat != "markdown" || res.Meta["format"] != "markdown" {
		t.Errorf("own format: %+v (seen %q)", res, seenFormat)
	}
}

func TestDeprecationEndToEnd(t *testing.T) {
	r := demoRegistry(t)
	for _, n := range r.Names() {
		if n == "demo.old" {
			t.Error("deprecated tool in Names")
		}
	}
	found := false
	for _, tl := range r.All() {
		found = found || tl.Name == "demo.old"
	}
	if !found {
		t.Error("deprecated tool missing from All")
	}
	tl, ok := r.Get("demo__old")
	if !ok || !tl.Deprecated() || !strings.HasPrefix(tl.RenderDescription(), "DEPRECATED: use demo.ok instead.") {
		t.Fatalf("deprecated tool by wire name: %v %+v", ok, tl)
	}
	res := r.Call(context.Background(), "demo__old", nil)
	if !res.OK || res.Data != "old" {
		t.Fatalf("deprecated tool not callable: %+v", res)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "use demo.ok instead") {
		t.Errorf("warnings = %v", res.Warnings)
	}
	if res.Remedy == nil || res.Remedy.SuggestedTools[0] != "demo.ok" || len(res.NextSteps) == 0 || res.NextSteps[0].Tool != "demo.ok" {
		t.Errorf("remedy %+v next %+v", res.Remedy, res.NextSteps)
	}
	bad := registry.New("x.old", registry.Spec{Description: "x", DeprecatedBy: "x.gone"},
		func(ctx context.Context, a struct{}) (*envelope.ToolResult, error) { return nil, nil })
	if _, err := registry.Build([]registry.Namespace{{Name: "x", Tools: []*registry.ToolDef{bad}}}); err == nil || !strings.Contains(err.Error(), "deprecated by unknown tool") {
		t.Errorf("unknown replacement: %v", err)
	}
}
