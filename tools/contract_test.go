package tools_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

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
	r, err := tools.Build()
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
	res := tools.Registry().Call(context.Background(), name, args)
	if _, err := json.Marshal(res); err != nil {
		t.Fatalf("%s: envelope does not marshal: %v", name, err)
	}
	return res
}

func TestToolsHelp(t *testing.T) {
	r := tools.Registry()
	res := call(t, "tools.help", nil)
	if !res.OK {
		t.Fatal(res.Error)
	}
	d := res.Data.(map[string]any)
	if d["total_tools"] != r.Len() || d["shown"] != r.Len() {
		t.Errorf("total %v shown %v registry %d", d["total_tools"], d["shown"], r.Len())
	}
	if len(d["phases"].(map[string]any)) != 3 {
		t.Error("phases must have exactly three keys")
	}
	if len(res.NextSteps) != 3 {
		t.Errorf("next_steps = %d", len(res.NextSteps))
	}
	listed := 0
	for _, g := range d["namespaces"].([]map[string]any) {
		listed += len(g["tools"].([]*tools.ToolInfo))
	}
	if listed != r.Len() {
		t.Errorf("each tool listed once: %d vs %d", listed, r.Len())
	}

	res = call(t, "tools.help", map[string]any{"namespace": "tools", "phase": "planner", "include_schema": true})
	d = res.Data.(map[string]any)
	if d["filtered_namespace"] != "tools" || d["filtered_phase"] != "planner" {
		t.Errorf("filters not echoed: %v", d)
	}
	tl := d["namespaces"].([]map[string]any)[0]["tools"].([]*tools.ToolInfo)[0]
	if tl.Schema == nil {
		t.Error("include_schema ignored")
	}

	res = call(t, "tools.help", map[string]any{"namespace": "nope"})
	if res.Code != envelope.CodeNotFound || res.Remedy == nil || res.Details()["available_namespaces"] == nil {
		t.Errorf("unknown namespace: %+v", res)
	}
	for _, bad := range []any{`{"phase": "bogus"}`, `{"bogus_arg": 1}`, `{"include_schema": "yes"}`} {
		if res := call(t, "tools.help", bad); res.Code != envelope.CodeInvalidInput {
			t.Errorf("%v: %+v", bad, res)
		}
	}
	res = call(t, "tools.help", map[string]any{"format": "markdown"})
	if s, ok := res.Data.(string); !ok || !strings.HasPrefix(s, "# Cursus tools") {
		t.Errorf("markdown help: %v", res.Data)
	}
}

func TestByPhaseAndDescribe(t *testing.T) {
	res := call(t, "tools.by_phase", map[string]any{"phase": "planner"})
	if !res.OK || res.Data.(map[string]any)["count"].(int) < 1 {
		t.Fatalf("%+v", res)
	}
	if res := call(t, "tools.by_phase", nil); res.Code != envelope.CodeInvalidInput || !strings.Contains(res.Error, "phase") {
		t.Errorf("missing phase: %+v", res)
	}
	res = call(t, "tools.describe_tool", map[string]any{"name": "tools__help"})
	if info := res.Data.(tools.ToolInfo); !res.OK || info.Schema == nil || info.Name != "tools.help" {
		t.Errorf("describe by wire name: %+v", res)
	}
	res = call(t, "tools.describe_tool", map[string]any{"name": "nope.nope"})
	if res.Code != envelope.CodeNotFound || len(res.Remedy.SuggestedTools) != 2 {
		t.Errorf("describe unknown: %+v", res)
	}
	if res := call(t, "tools.describe_tool", map[string]any{"name": "  "}); res.Code != envelope.CodeInvalidInput {
		t.Errorf("blank name: %+v", res)
	}
}

func TestNamespaceHelpPinsNamespace(t *testing.T) {
	r := tools.Registry()
	for _, ns := range r.NamespaceNames() {
		if ns == "tools" {
			continue
		}
		res := call(t, ns+".help", nil)
		if !res.OK || res.Data.(map[string]any)["filtered_namespace"] != ns || res.Meta["tool"] != ns+".help" {
			t.Errorf("%s.help: %+v", ns, res)
		}
		if res := call(t, ns+".help", map[string]any{"namespace": "tools"}); res.Code != envelope.CodeInvalidInput {
			t.Errorf("%s.help accepted a namespace argument", ns)
		}
	}
}
