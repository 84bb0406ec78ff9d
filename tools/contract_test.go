package tools_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/tools"
)

var wireRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// TestEveryToolIsDocumented holds every tool of the real registry to the
// contract: host-legal unique wire names, a description, a when, tags of the
// three phases, at least one example, and every example valid against the
// tool's own schema.
func TestEveryToolIsDocumented(t *testing.T) {
	r, err := cursus.Build()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	phases := map[string]bool{}
	for _, p := range registry.Phases {
		phases[p] = true
	}
	for _, tl := range r.All() {
		w := tl.WireName()
		if !wireRE.MatchString(w) || strings.Contains(w, ".") {
			t.Errorf("%s: wire name %q not host-legal", tl.Name, w)
		}
		if seen[w] {
			t.Errorf("%s: wire name %q not unique", tl.Name, w)
		}
		seen[w] = true
		if len(tl.Description) < 20 {
			t.Errorf("%s: description too short: %q", tl.Name, tl.Description)
		}
		if tl.When == "" {
			t.Errorf("%s: no when", tl.Name)
		}
		if len(tl.Tags) == 0 {
			t.Errorf("%s: no phase tag", tl.Name)
		}
		for _, tag := range tl.Tags {
			if !phases[tag] {
				t.Errorf("%s: unknown tag %q", tl.Name, tag)
			}
		}
		if len(tl.Examples) == 0 {
			t.Errorf("%s: no example", tl.Name)
		}
		for _, ex := range tl.Examples {
			name, args, _, err := registry.ParseExample(ex)
			if err != nil {
				t.Errorf("%s: %v", tl.Name, err)
				continue
			}
			if name != tl.Name {
				t.Errorf("%s: example names %q", tl.Name, name)
			}
			errs, err := tl.ValidateArgs(args)
			if err != nil || len(errs) > 0 {
				t.Errorf("%s: example %q invalid against its schema: %v %v", tl.Name, ex, errs, err)
			}
		}
		s := tl.Schema()
		if s["type"] != "object" || s["additionalProperties"] != false {
			t.Errorf("%s: schema root must be a closed object", tl.Name)
		}
		checkSchemaPortable(t, tl.Name, s, "")
	}
	// Every namespace except tools has its generated help.
	for _, ns := range r.NamespaceNames() {
		if ns == "tools" {
			continue
		}
		if _, ok := r.Get(ns + ".help"); !ok {
			t.Errorf("%s.help missing", ns)
		}
	}
}

// checkSchemaPortable enforces what every host accepts: no $ref, no
// top-level unions, every array has items.
func checkSchemaPortable(t *testing.T, tool string, s map[string]any, path string) {
	for _, k := range []string{"$ref", "$schema", "$defs"} {
		if _, ok := s[k]; ok {
			t.Errorf("%s: schema%s has %s", tool, path, k)
		}
	}
	if path == "" {
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			if _, ok := s[k]; ok {
				t.Errorf("%s: top-level %s", tool, k)
			}
		}
	}
	if s["type"] == "array" {
		if _, ok := s["items"]; !ok {
			t.Errorf("%s: array%s without items", tool, path)
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for k, v := range props {
			if m, ok := v.(map[string]any); ok {
				checkSchemaPortable(t, tool, m, path+"."+k)
			}
		}
	}
	if it, ok := s["items"].(map[string]any); ok {
		checkSchemaPortable(t, tool, it, path+"[]")
	}
}

func call(t *testing.T, name string, args any) *envelope.ToolResult {
	t.Helper()
	res := cursus.Registry().Call(context.Background(), name, args)
	if _, err := json.Marshal(res); err != nil {
		t.Fatalf("%s: envelope does not marshal: %v", name, err)
	}
	return res
}

func TestToolsHelp(t *testing.T) {
	r := cursus.Registry()
	res := call(t, "tools.help", nil)
	if !res.OK {
		t.Fatal(res.Error)
	}
	d := res.Data.(tools.ToolsHelpData)
	if d.TotalTools != r.Len() || d.Shown != r.Len() {
		t.Errorf("total %v shown %v registry %d", d.TotalTools, d.Shown, r.Len())
	}
	if len(d.Phases) != 3 {
		t.Error("phases must have exactly three keys")
	}
	// A new user with a problem starts at the recommender; the others
	// browse the namespaces.
	if len(res.NextSteps) != 3 || res.NextSteps[0].Tool != "pipeline_catalog.recommend" || res.NextSteps[1].Tool != "tools.help" {
		t.Errorf("next_steps = %+v", res.NextSteps)
	}
	// the index: every namespace with its count and tool names, no tool details
	named := 0
	groups := d.Namespaces
	if len(groups) != len(r.NamespaceNames()) {
		t.Errorf("%d namespaces, registry %d", len(groups), len(r.NamespaceNames()))
	}
	for _, g := range groups {
		if g.Tools != nil || g.Count != len(g.Names) || g.Description == "" {
			t.Errorf("index entry %s: %+v", g.Namespace, g)
		}
		named += len(g.Names)
	}
	if named != r.Len() {
		t.Errorf("each tool named once: %d vs %d", named, r.Len())
	}

	// detail on request: every tool, as before
	res = call(t, "tools.help", map[string]any{"detail": true})
	listed := 0
	for _, g := range res.Data.(tools.ToolsHelpData).Namespaces {
		if g.Names != nil {
			t.Errorf("detail entry %s has names", g.Namespace)
		}
		listed += len(g.Tools)
	}
	if listed != r.Len() {
		t.Errorf("detail lists each tool once: %d vs %d", listed, r.Len())
	}

	res = call(t, "tools.help", map[string]any{"namespace": "tools", "phase": "planner", "include_schema": true})
	d = res.Data.(tools.ToolsHelpData)
	if d.FilteredNamespace != "tools" || d.FilteredPhase != "planner" {
		t.Errorf("filters not echoed: %+v", d)
	}
	tl := d.Namespaces[0].Tools[0]
	if tl.Schema == nil {
		t.Error("include_schema ignored")
	}
	if res := call(t, "tools.help", map[string]any{"phase": "validator"}); len(res.Data.(tools.ToolsHelpData).Namespaces[0].Tools) == 0 {
		t.Error("a phase filter lists its tools in detail")
	}

	res = call(t, "tools.help", map[string]any{"namespace": "compil"})
	if res.Code != envelope.CodeNotFound || res.Remedy == nil || res.Details()["available_namespaces"] == nil || !strings.Contains(res.Error, "did you mean compile?") {
		t.Errorf("unknown namespace: %+v", res)
	}
	for _, bad := range []any{`{"phase": "bogus"}`, `{"bogus_arg": 1}`, `{"include_schema": "yes"}`} {
		if res := call(t, "tools.help", bad); res.Code != envelope.CodeInvalidInput {
			t.Errorf("%v: %+v", bad, res)
		}
	}
	res = call(t, "tools.help", map[string]any{"format": "markdown"})
	if s, ok := res.Data.(string); !ok || !strings.HasPrefix(s, "# Cursus tools") || !strings.Contains(s, "`catalog.search`") {
		t.Errorf("markdown help: %v", res.Data)
	}
}

// TestToolsHelpBudget: the front door answers in at most 8 KB (compact
// JSON of the whole envelope), every tool named.
func TestToolsHelpBudget(t *testing.T) {
	res := call(t, "tools.help", map[string]any{})
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 8192 {
		t.Errorf("tools.help {} is %d bytes, budget 8192", len(b))
	}
	for _, n := range cursus.Registry().Names() {
		if !strings.Contains(string(b), `"`+n+`"`) {
			t.Errorf("tools.help {} does not name %s", n)
		}
	}
}

func TestByPhaseAndDescribe(t *testing.T) {
	res := call(t, "tools.by_phase", map[string]any{"phase": "planner"})
	if !res.OK || res.Data.(tools.ToolsByPhaseData).Count < 1 {
		t.Fatalf("%+v", res)
	}
	for _, info := range res.Data.(tools.ToolsByPhaseData).Tools {
		if info.Description != "" || info.Examples != nil || info.When == "" {
			t.Errorf("by_phase brief entry of %s: want when only, got %+v", info.Name, info)
		}
	}
	res = call(t, "tools.by_phase", map[string]any{"phase": "planner", "detail": true})
	for _, info := range res.Data.(tools.ToolsByPhaseData).Tools {
		if info.Description == "" {
			t.Errorf("by_phase detail entry of %s has no description", info.Name)
		}
	}
	if res := call(t, "tools.by_phase", nil); res.Code != envelope.CodeInvalidInput || !strings.Contains(res.Error, "phase") {
		t.Errorf("missing phase: %+v", res)
	}
	res = call(t, "tools.describe_tool", map[string]any{"name": "tools__help"})
	if info := res.Data.(tools.ToolInfo); !res.OK || info.Schema == nil || info.DataSchema != nil || info.Name != "tools.help" {
		t.Errorf("describe by wire name (the data schema only when asked): %+v", res)
	}
	res = call(t, "tools.describe_tool", map[string]any{"name": "tools__help", "include_data_schema": true})
	if info := res.Data.(tools.ToolInfo); !res.OK || info.Schema == nil || info.DataSchema == nil || info.Name != "tools.help" {
		t.Errorf("describe with include_data_schema: %+v", res)
	} else if def, _ := cursus.Registry().Get("tools.help"); string(info.Schema) != string(def.SchemaJSON()) || string(info.DataSchema) != string(def.DataSchemaJSON()) {
		t.Errorf("describe carries other schema bytes than the registry encoded:\n%s\n%s", info.Schema, info.DataSchema)
	}
	res = call(t, "tools.describe_tool", map[string]any{"name": "nope.nope"})
	if res.Code != envelope.CodeUnknownTool || res.Remedy == nil {
		t.Errorf("describe unknown: %+v", res)
	}
	// one code and one did-you-mean for an unknown tool, called or described
	called := call(t, "catalog.serch", map[string]any{"query": "xgb"})
	described := call(t, "tools.describe_tool", map[string]any{"name": "catalog.serch"})
	for _, r := range []*envelope.ToolResult{called, described} {
		b, _ := json.Marshal(r)
		if r.Code != envelope.CodeUnknownTool || !strings.Contains(r.Error, "did you mean catalog.search") || len(b) >= 2048 {
			t.Errorf("unknown tool (%d bytes): %s", len(b), b)
		}
	}
	if res := call(t, "tools.describe_tool", map[string]any{"name": "  "}); res.Code != envelope.CodeInvalidInput {
		t.Errorf("blank name: %+v", res)
	}
}

func TestNamespaceHelpPinsNamespace(t *testing.T) {
	r := cursus.Registry()
	for _, ns := range r.NamespaceNames() {
		if ns == "tools" {
			continue
		}
		res := call(t, ns+".help", nil)
		if !res.OK || res.Data.(tools.ToolsHelpData).FilteredNamespace != ns || res.Meta["tool"] != ns+".help" {
			t.Errorf("%s.help: %+v", ns, res)
		}
		if res := call(t, ns+".help", map[string]any{"namespace": "tools"}); res.Code != envelope.CodeInvalidInput {
			t.Errorf("%s.help accepted a namespace argument", ns)
		}
	}
}
