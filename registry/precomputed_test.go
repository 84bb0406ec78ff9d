package registry_test

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

type preArgs struct {
	Query string `json:"query" jsonschema:"required" jsonschema_description:"What to look for."`
	Limit int    `json:"limit,omitempty" jsonschema:"minimum=1,default=10"`
}

// preArgsRetagged is preArgs with one tag changed.
type preArgsRetagged struct {
	Query string `json:"query" jsonschema:"required" jsonschema_description:"What to look for, in other words."`
	Limit int    `json:"limit,omitempty" jsonschema:"minimum=1,default=10"`
}

type preData struct {
	Hits  []string `json:"hits"`
	Total int      `json:"total"`
}

func preTool(name string) *registry.ToolDef {
	return registry.New(name, registry.Spec{Description: "Finds."},
		func(ctx context.Context, a preArgs) (*envelope.Result[preData], error) {
			return envelope.Success(preData{Hits: []string{a.Query}}), nil
		})
}

func preNamespaces(tools ...*registry.ToolDef) []registry.Namespace {
	return []registry.Namespace{{Name: "pre", Description: "Precomputed.", Tools: tools}}
}

// precomputeOf reflects a registry of the tools and parses what Precompute
// writes of it, with the listing of every tool but the help tool.
func precomputeOf(t *testing.T, tools ...*registry.ToolDef) *registry.Precomputed {
	t.Helper()
	r, err := registry.Build(preNamespaces(tools...))
	if err != nil {
		t.Fatal(err)
	}
	var listed []*registry.ToolDef
	for _, td := range r.List("") {
		if !td.NamespaceHelp() {
			listed = append(listed, td)
		}
	}
	b, err := r.Precompute(listed)
	if err != nil {
		t.Fatal(err)
	}
	p, err := registry.ParsePrecomputed(b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return p
}

// TestPrecomputedMatches: a registry built with the entries of the same
// tools takes every schema from them, the same bytes and the same maps as
// reflection gives, and the listing of the same sequence too.
func TestPrecomputedMatches(t *testing.T) {
	p := precomputeOf(t, preTool("pre.find"), preTool("pre.seek"))
	reflected, err := registry.Build(preNamespaces(preTool("pre.find"), preTool("pre.seek")))
	if err != nil {
		t.Fatal(err)
	}
	r, err := registry.Build(preNamespaces(preTool("pre.find"), preTool("pre.seek")), registry.WithPrecomputed(p))
	if err != nil {
		t.Fatal(err)
	}
	for _, td := range r.All() {
		want, _ := reflected.Get(td.Name)
		if !td.Precomputed() || want.Precomputed() {
			t.Errorf("%s: precomputed %v, the reflected one %v", td.Name, td.Precomputed(), want.Precomputed())
		}
		if !bytes.Equal(td.SchemaJSON(), want.SchemaJSON()) || !bytes.Equal(td.ListedOutputSchema(), want.ListedOutputSchema()) {
			t.Errorf("%s: precomputed schemas differ from the reflected ones:\n%s\n%s", td.Name, td.SchemaJSON(), want.SchemaJSON())
		}
		if !reflect.DeepEqual(td.Schema(), want.Schema()) {
			t.Errorf("%s: the decoded schema differs", td.Name)
		}
	}
	// The call path validates against the precomputed schema.
	if res := r.Call(context.Background(), "pre.find", map[string]any{"limit": 0}); res.Code != envelope.CodeInvalidInput {
		t.Errorf("a call without query and a limit below 1: %s %s", res.Code, res.Error)
	}
	if res := r.Call(context.Background(), "pre.find", map[string]any{"query": "q"}); !res.OK {
		t.Errorf("a good call: %s", res.Error)
	}
	find, _ := r.Get("pre.find")
	seek, _ := r.Get("pre.seek")
	l, err := registry.NewListing([]*registry.ToolDef{find, seek})
	if err != nil {
		t.Fatal(err)
	}
	rf, _ := reflected.Get("pre.find")
	rs, _ := reflected.Get("pre.seek")
	want, err := registry.NewListing([]*registry.ToolDef{rf, rs})
	if err != nil {
		t.Fatal(err)
	}
	if !l.Precomputed() || want.Precomputed() {
		t.Fatalf("listing precomputed %v, the reflected one %v", l.Precomputed(), want.Precomputed())
	}
	if !bytes.Equal(l.InputSchema(find), want.InputSchema(rf)) || !bytes.Equal(l.InputSchema(seek), want.InputSchema(rs)) || l.SharedText() != want.SharedText() {
		t.Errorf("the precomputed listing differs from the computed one")
	}
	// Another sequence of the same tools has no precomputed listing.
	if l, err := registry.NewListing([]*registry.ToolDef{seek, find}); err != nil || l.Precomputed() {
		t.Errorf("a listing in another order: precomputed %v, %v", l.Precomputed(), err)
	}
	if l, err := registry.NewListing([]*registry.ToolDef{find}); err != nil || l.Precomputed() {
		t.Errorf("a listing of fewer tools: precomputed %v, %v", l.Precomputed(), err)
	}
}

// TestPrecomputedFallsBack: a tool the entries do not know, or whose
// argument or data type is not the one they were made from (same name),
// is reflected, and answers its own schema.
func TestPrecomputedFallsBack(t *testing.T) {
	p := precomputeOf(t, preTool("pre.find"), preTool("pre.seek"))
	retagged := registry.New("pre.find", registry.Spec{Description: "Finds."},
		func(ctx context.Context, a preArgsRetagged) (*envelope.Result[preData], error) {
			return envelope.Success(preData{}), nil
		})
	otherData := registry.New("pre.seek", registry.Spec{Description: "Finds."},
		func(ctx context.Context, a preArgs) (*envelope.Result[[]string], error) {
			return envelope.Success([]string{}), nil
		})
	own := preTool("pre.own")
	r, err := registry.Build(preNamespaces(retagged, otherData, own), registry.WithPrecomputed(p))
	if err != nil {
		t.Fatal(err)
	}
	for _, td := range []*registry.ToolDef{retagged, otherData, own} {
		if td.Precomputed() {
			t.Errorf("%s: took a precomputed entry made from other types", td.Name)
		}
	}
	if !strings.Contains(string(retagged.SchemaJSON()), "in other words") {
		t.Errorf("the retagged tool's schema is not its own: %s", retagged.SchemaJSON())
	}
	if got := string(otherData.ListedOutputSchema()); !strings.Contains(got, `"array"`) {
		t.Errorf("the tool with other data lists %s", got)
	}
	// The help tool's types did not change: it still matches.
	if h, ok := r.Get("pre.help"); !ok || !h.Precomputed() {
		t.Errorf("pre.help: precomputed %v", ok && h.Precomputed())
	}
	l, err := registry.NewListing(r.List(""))
	if err != nil || l.Precomputed() {
		t.Errorf("a listing of reflected tools: precomputed %v, %v", l.Precomputed(), err)
	}
}

// TestParsePrecomputedRefusesMalformed: a file of another format, or cut
// short, is an error naming the line.
func TestParsePrecomputedRefusesMalformed(t *testing.T) {
	for _, bad := range []string{
		"",
		"something else\n",
		"cursus-precomputed-schemas 1\ntool pre.find zz\nin {}\nlisted_out {}\n",
		"cursus-precomputed-schemas 1\ntool pre.find 00\nin {}\n",
		"cursus-precomputed-schemas 1\nlisting 00 2\nshared []\nshapes []\nlisted_in pre.find {}\n",
		"cursus-precomputed-schemas 1\nstray line\n",
	} {
		if _, err := registry.ParsePrecomputed([]byte(bad)); err == nil || !strings.Contains(err.Error(), "line ") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
