package exporters_test

import (
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/exporters"
	"github.com/cursus-go/cursus/registry"
	"github.com/invopop/jsonschema"
)

var wireNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// exportJSON exports in format f and decodes the JSON array generically,
// as a host would read it.
func exportJSON(t testing.TB, f exporters.Format, defs []*registry.ToolDef) []map[string]any {
	t.Helper()
	b, err := exporters.ExportJSON(f, defs, false)
	if err != nil {
		t.Fatalf("%s: %v", f, err)
	}
	var out []map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: export is not a JSON array of objects: %v", f, err)
	}
	return out
}

// asJSON is v as decoded JSON (to compare with what an export decodes to).
func asJSON(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func wantKeys(t *testing.T, where string, m map[string]any, want ...string) {
	t.Helper()
	sort.Strings(want)
	if got := keys(m); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: keys %v, want %v", where, got, want)
	}
}

func obj(t *testing.T, where string, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: %T, want a JSON object", where, v)
	}
	return m
}

// exportedName finds the tool name in one exported element of format f.
func exportedName(t *testing.T, f exporters.Format, e map[string]any) string {
	t.Helper()
	var n any
	switch f {
	case exporters.FormatOpenAI:
		n = obj(t, "function", e["function"])["name"]
	case exporters.FormatBedrock:
		n = obj(t, "toolSpec", e["toolSpec"])["name"]
	default:
		n = e["name"]
	}
	s, ok := n.(string)
	if !ok {
		t.Fatalf("%s: name is %T", f, n)
	}
	return s
}

func TestFormatsAndParseFormat(t *testing.T) {
	want := []string{"openai", "openai-responses", "anthropic", "bedrock", "gemini", "mcp"}
	if len(exporters.Formats) != len(want) {
		t.Fatalf("Formats = %v, want %v", exporters.Formats, want)
	}
	for i, f := range exporters.Formats {
		if string(f) != want[i] || f.String() != want[i] {
			t.Errorf("Formats[%d] = %q, want %q", i, f, want[i])
		}
		got, err := exporters.ParseFormat(want[i])
		if err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %q, %v", want[i], got, err)
		}
	}
	for _, bad := range []string{"", "OpenAI", "claude", "openai_responses", "mcp "} {
		_, err := exporters.ParseFormat(bad)
		if err == nil {
			t.Errorf("ParseFormat(%q): no error", bad)
			continue
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("ParseFormat(%q) error %q does not list %q", bad, err, w)
			}
		}
	}
}

func TestExportErrorsAndEmpty(t *testing.T) {
	if _, err := exporters.Export("yaml", nil); err == nil || !strings.Contains(err.Error(), "openai-responses") {
		t.Errorf("unknown format: err = %v, want one listing the formats", err)
	}
	if _, err := exporters.Export(exporters.FormatMCP, []*registry.ToolDef{nil}); err == nil {
		t.Error("nil tool: no error")
	}
	for _, f := range exporters.Formats {
		b, err := exporters.ExportJSON(f, nil, false)
		if err != nil || string(b) != "[]" {
			t.Errorf("%s of no tools = %s, %v; want []", f, b, err)
		}
	}
}

// TestEveryFormatOverRegistry checks the shape of every format over every
// listed tool of the real registry: names, descriptions, schemas and the
// exact keys of each object.
func TestEveryFormatOverRegistry(t *testing.T) {
	reg := cursus.Registry()
	defs := reg.List("")
	if len(defs) == 0 {
		t.Fatal("registry lists no tools")
	}
	for _, f := range exporters.Formats {
		t.Run(string(f), func(t *testing.T) {
			out := exportJSON(t, f, defs)
			if len(out) != len(defs) {
				t.Fatalf("%d exported, want %d", len(out), len(defs))
			}
			seen := map[string]bool{}
			for i, e := range out {
				td := defs[i]
				name := exportedName(t, f, e)
				if !wireNameRE.MatchString(name) || strings.Contains(name, ".") {
					t.Errorf("%s: name %q does not match %s", td.Name, name, wireNameRE)
				}
				if seen[name] {
					t.Errorf("name %q exported twice", name)
				}
				seen[name] = true
				if name != td.WireName() {
					t.Errorf("element %d is %q, want %q (input order)", i, name, td.WireName())
				}
				if got, ok := reg.Get(name); !ok || got != td {
					t.Errorf("%q does not resolve back to %s", name, td.Name)
				}
				checkShape(t, f, td, e)
			}
		})
	}
}

func checkShape(t *testing.T, f exporters.Format, td *registry.ToolDef, e map[string]any) {
	t.Helper()
	desc := td.RenderDescription()
	schema := asJSON(t, td.Schema())
	where := string(f) + " " + td.Name
	switch f {
	case exporters.FormatOpenAI:
		wantKeys(t, where, e, "type", "function")
		if e["type"] != "function" {
			t.Errorf("%s: type %v", where, e["type"])
		}
		fn := obj(t, where, e["function"])
		if len(td.Tags) > 0 {
			wantKeys(t, where+" function", fn, "name", "description", "parameters", "metadata")
			md := obj(t, where+" metadata", fn["metadata"])
			wantKeys(t, where+" metadata", md, "tags")
			if !reflect.DeepEqual(md["tags"], asJSON(t, td.Tags)) {
				t.Errorf("%s: tags %v, want %v", where, md["tags"], td.Tags)
			}
		} else {
			wantKeys(t, where+" function", fn, "name", "description", "parameters")
		}
		checkText(t, where, fn["description"], desc)
		checkSchema(t, where, fn["parameters"], schema)
	case exporters.FormatOpenAIResponses:
		wantKeys(t, where, e, "type", "name", "description", "parameters", "strict")
		if e["type"] != "function" || e["strict"] != false {
			t.Errorf("%s: type %v strict %v", where, e["type"], e["strict"])
		}
		checkText(t, where, e["description"], desc)
		checkSchema(t, where, e["parameters"], schema)
	case exporters.FormatAnthropic:
		wantKeys(t, where, e, "name", "description", "input_schema")
		checkText(t, where, e["description"], desc)
		checkSchema(t, where, e["input_schema"], schema)
	case exporters.FormatBedrock:
		wantKeys(t, where, e, "toolSpec")
		spec := obj(t, where, e["toolSpec"])
		wantKeys(t, where+" toolSpec", spec, "name", "description", "inputSchema")
		in := obj(t, where+" inputSchema", spec["inputSchema"])
		wantKeys(t, where+" inputSchema", in, "json")
		checkText(t, where, spec["description"], desc)
		checkSchema(t, where, in["json"], schema)
	case exporters.FormatGemini:
		props, _ := td.Schema()["properties"].(map[string]any)
		if len(props) == 0 {
			wantKeys(t, where, e, "name", "description")
		} else {
			wantKeys(t, where, e, "name", "description", "parameters")
			p := obj(t, where, e["parameters"])
			if p["type"] != "OBJECT" {
				t.Errorf("%s: parameters type %v, want OBJECT", where, p["type"])
			}
			gp := obj(t, where+" properties", p["properties"])
			if !reflect.DeepEqual(keys(gp), keys(props)) {
				t.Errorf("%s: properties %v, want %v", where, keys(gp), keys(props))
			}
			if req := td.Schema()["required"]; req != nil && !reflect.DeepEqual(p["required"], asJSON(t, req)) {
				t.Errorf("%s: required %v, want %v", where, p["required"], req)
			}
		}
		checkText(t, where, e["description"], desc)
	case exporters.FormatMCP:
		if len(td.Tags) > 0 {
			wantKeys(t, where, e, "name", "title", "description", "inputSchema", "annotations", "tags")
			if !reflect.DeepEqual(e["tags"], asJSON(t, td.Tags)) {
				t.Errorf("%s: tags %v, want %v", where, e["tags"], td.Tags)
			}
		} else {
			wantKeys(t, where, e, "name", "title", "description", "inputSchema", "annotations")
		}
		if e["title"] != exporters.MCPTitle(td) || e["title"] == "" {
			t.Errorf("%s: title %v", where, e["title"])
		}
		ann := obj(t, where+" annotations", e["annotations"])
		wantKeys(t, where+" annotations", ann, "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
		if !reflect.DeepEqual(ann, asJSON(t, exporters.Annotations(td))) {
			t.Errorf("%s: annotations %v", where, ann)
		}
		if ann["readOnlyHint"] != td.ReadOnly() || ann["destructiveHint"] != td.Destructive {
			t.Errorf("%s: annotations %v disagree with the flags", where, ann)
		}
		checkText(t, where, e["description"], desc)
		checkSchema(t, where, e["inputSchema"], schema)
	default:
		t.Fatalf("no shape check for format %q", f)
	}
}

func checkText(t *testing.T, where string, got any, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s: description %q, want the rendered %q", where, got, want)
	}
}

func checkSchema(t *testing.T, where string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: schema\n got %v\nwant %v", where, got, want)
	}
	if m, ok := got.(map[string]any); !ok || m["type"] != "object" {
		t.Errorf("%s: schema root is not type object: %v", where, got)
	}
}

// geminiForbidden are keys Gemini's parameters must not contain anywhere.
var geminiForbidden = []string{"additionalProperties", "$schema", "$id", "$ref", "$defs", "anyOf", "oneOf", "allOf", "default", "const"}

var geminiTypeNames = map[string]bool{"STRING": true, "NUMBER": true, "INTEGER": true, "BOOLEAN": true, "ARRAY": true, "OBJECT": true, "NULL": true}

// checkGemini walks a Gemini schema (decoded JSON) and reports forbidden
// keys and non-Gemini types, with their paths.
func checkGemini(t *testing.T, path string, v any) {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Errorf("%s: schema is %T, want an object", path, v)
		return
	}
	for _, k := range geminiForbidden {
		if _, bad := m[k]; bad {
			t.Errorf("%s: has %q", path, k)
		}
	}
	if ty, ok := m["type"]; ok {
		if s, _ := ty.(string); !geminiTypeNames[s] {
			t.Errorf("%s: type %v is not a Gemini type", path, ty)
		}
	}
	if e, ok := m["enum"].([]any); ok {
		for _, x := range e {
			if _, ok := x.(string); !ok {
				t.Errorf("%s: enum value %v is not a string", path, x)
			}
		}
	}
	if props, ok := m["properties"].(map[string]any); ok {
		if m["type"] != "OBJECT" {
			t.Errorf("%s: properties on type %v", path, m["type"])
		}
		for k, p := range props {
			checkGemini(t, path+".properties."+k, p)
		}
		req, _ := m["required"].([]any)
		for _, r := range req {
			if s, _ := r.(string); props[s] == nil {
				t.Errorf("%s: required %q is not a property", path, r)
			}
		}
	} else if m["required"] != nil {
		t.Errorf("%s: required without properties", path)
	}
	if it, ok := m["items"]; ok {
		if m["type"] != "ARRAY" {
			t.Errorf("%s: items on type %v", path, m["type"])
		}
		checkGemini(t, path+".items", it)
	}
}

func TestGeminiOverRegistryIsClean(t *testing.T) {
	defs := cursus.Registry().List("")
	for _, e := range exportJSON(t, exporters.FormatGemini, defs) {
		if p, ok := e["parameters"]; ok {
			checkGemini(t, e["name"].(string), p)
		}
	}
}

// unionArgs reflects into a schema with nested objects (additionalProperties
// false), free-form maps (additionalProperties schemas), a nullable field
// (oneOf with null), a field of any type (the schema true), a custom type
// whose schema is full of unions and $-keys, and defaults.
type unionArgs struct {
	Name    string            `json:"name" jsonschema:"required,minLength=1,default=x" jsonschema_description:"A name."`
	Opt     *string           `json:"opt,omitempty" jsonschema:"nullable"`
	Nested  nestedArgs        `json:"nested" jsonschema:"required"`
	List    []nestedArgs      `json:"list,omitempty" jsonschema:"minItems=1"`
	Labels  map[string]string `json:"labels,omitempty"`
	Free    map[string]any    `json:"free,omitempty"`
	Anyway  any               `json:"anyway,omitempty"`
	Weird   weird             `json:"weird,omitempty" jsonschema_description:"Union soup."`
	Level   int               `json:"level,omitempty" jsonschema:"enum=1,enum=2,minimum=1,maximum=2"`
	Created string            `json:"created,omitempty" jsonschema:"format=date-time"`
	Email   string            `json:"email,omitempty" jsonschema:"format=email"`
}

type nestedArgs struct {
	Mode  string   `json:"mode" jsonschema:"required,enum=fast,enum=slow"`
	Ratio float64  `json:"ratio,omitempty" jsonschema:"exclusiveMinimum=0"`
	Items []string `json:"items,omitempty" jsonschema:"uniqueItems=true"`
}

type weird struct{}

// JSONSchema gives weird a schema that uses every construct Gemini rejects.
func (weird) JSONSchema() *jsonschema.Schema {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(`{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$id": "urn:weird",
		"allOf": [
			{"type": "object", "properties": {"a": {"anyOf": [{"type": "null"}, {"type": "string"}]}}, "required": ["a"]},
			{"properties": {"b": {"oneOf": [{"type": "null"}, {"type": "integer", "default": 3}]}}, "required": ["b", "ghost"]}
		],
		"anyOf": [{"required": ["a"]}, {"required": ["b"]}],
		"additionalProperties": {"anyOf": [{"type": "string"}, {"type": "number"}]},
		"patternProperties": {"^x": {"type": "string"}},
		"properties": {"c": {"const": 7}, "d": {"$ref": "#/$defs/D"}}
	}`), &s); err != nil {
		panic(err)
	}
	return &s
}

func noop[A any](context.Context, A) (*envelope.ToolResult, error) { return envelope.OK(nil), nil }

func unionTool() *registry.ToolDef {
	return registry.New("test.unions", registry.Spec{
		Description: "A tool with every schema construct.",
		When:        "testing",
		Examples:    []string{`test.unions {"name": "a", "nested": {"mode": "fast"}}`},
		Tags:        []string{registry.PhaseValidator},
	}, noop[unionArgs])
}

func TestGeminiRewritesUnportableSchemas(t *testing.T) {
	td := unionTool()
	raw, _ := json.Marshal(td.Schema())
	for _, k := range []string{"additionalProperties", "oneOf", "anyOf", "allOf", "$schema", "const", "default"} {
		if !strings.Contains(string(raw), `"`+k+`"`) {
			t.Fatalf("test schema has no %q, so the test would prove nothing: %s", k, raw)
		}
	}
	out := exportJSON(t, exporters.FormatGemini, []*registry.ToolDef{td})
	p := obj(t, "parameters", out[0]["parameters"])
	checkGemini(t, "test__unions", p)

	props := obj(t, "properties", p["properties"])
	got := func(path ...string) any {
		var v any = props
		for _, k := range path {
			v = obj(t, strings.Join(path, "."), v)[k]
		}
		return v
	}
	want := map[string]any{
		"name":                    map[string]any{"type": "STRING", "description": `A name. (default: "x")`, "minLength": 1.0, "maxLength": 256.0}, // names are bounded (registry.MaxNameLength)
		"opt":                     map[string]any{"type": "STRING", "nullable": true},
		"nested.type":             "OBJECT",
		"nested.required":         []any{"mode"},
		"nested.properties.mode":  map[string]any{"type": "STRING", "enum": []any{"fast", "slow"}},
		"nested.properties.ratio": map[string]any{"type": "NUMBER"},
		"nested.properties.items": map[string]any{"type": "ARRAY", "items": map[string]any{"type": "STRING"}},
		"list.type":               "ARRAY",
		"list.minItems":           1.0,
		"list.items.type":         "OBJECT",
		"list.items.required":     []any{"mode"},
		"labels":                  map[string]any{"type": "OBJECT"},
		"free":                    map[string]any{"type": "OBJECT"},
		"anyway":                  map[string]any{},
		"level":                   map[string]any{"type": "INTEGER", "format": "enum", "enum": []any{"1", "2"}, "minimum": 1.0, "maximum": 2.0},
		"created":                 map[string]any{"type": "STRING", "format": "date-time"},
		"email":                   map[string]any{"type": "STRING"},
		"weird.description":       "Union soup.",
		"weird.type":              "OBJECT",
		"weird.required":          []any{"a", "b"},
		"weird.properties.a":      map[string]any{"type": "STRING", "nullable": true},
		"weird.properties.b":      map[string]any{"type": "INTEGER", "nullable": true, "description": "(default: 3)"},
		"weird.properties.c":      map[string]any{"type": "STRING", "enum": []any{"7"}},
		"weird.properties.d":      map[string]any{},
	}
	for path, w := range want {
		g := got(strings.Split(path, ".")...)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s = %#v, want %#v", path, g, w)
		}
	}
	if !reflect.DeepEqual(p["required"], []any{"name", "nested"}) {
		t.Errorf("required = %v", p["required"])
	}
	// The registry schema is untouched by the rewrite.
	after, _ := json.Marshal(td.Schema())
	if string(after) != string(raw) {
		t.Errorf("Gemini modified the registry schema:\nbefore %s\nafter  %s", raw, after)
	}
}

func TestGeminiParametersEdgeCases(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want string // JSON of the result; "null" for nil
	}{
		{"no properties", `{"type":"object","properties":{},"additionalProperties":false}`, `null`},
		{"no properties key", `{"type":"object"}`, `null`},
		{"only-null union is removed", `{"type":"object","properties":{"x":{"anyOf":[{"type":"null"}],"description":"d"}}}`,
			`{"type":"OBJECT","properties":{"x":{"description":"d","nullable":true}}}`},
		{"type inferred", `{"properties":{"o":{"properties":{"a":{"enum":["p","q"]}}},"l":{"items":{"type":"boolean"}}}}`,
			`{"type":"OBJECT","properties":{"l":{"type":"ARRAY","items":{"type":"BOOLEAN"}},"o":{"type":"OBJECT","properties":{"a":{"type":"STRING","enum":["p","q"]}}}}}`},
		{"null type alone", `{"type":"object","properties":{"n":{"type":"null"},"m":{"type":["null"]}}}`,
			`{"type":"OBJECT","properties":{"m":{"type":"NULL"},"n":{"type":"NULL"}}}`},
		{"nested unions flatten", `{"type":"object","properties":{"x":{"anyOf":[{"oneOf":[{"type":"null"},{"allOf":[{"type":"string","maxLength":3}]}]}]}}}`,
			`{"type":"OBJECT","properties":{"x":{"type":"STRING","nullable":true,"maxLength":3}}}`},
		{"type-scoped keys", `{"type":"object","properties":{"s":{"type":"string","minimum":1,"items":{"type":"string"},"properties":{"a":{}}}}}`,
			`{"type":"OBJECT","properties":{"s":{"type":"STRING"}}}`},
		{"tuple items", `{"type":"object","properties":{"t":{"type":"array","items":[{"type":"integer","format":"int64"},{"type":"string"}]}}}`,
			`{"type":"OBJECT","properties":{"t":{"type":"ARRAY","items":{"type":"INTEGER","format":"int64"}}}}`},
		{"bad numbers dropped", `{"type":"object","properties":{"s":{"type":"string","minLength":-1,"maxLength":2.5}}}`,
			`{"type":"OBJECT","properties":{"s":{"type":"STRING"}}}`},
		{"type arrays", `{"type":"object","properties":{"a":{"type":["null","string"]},"b":{"type":["integer","string"]}}}`,
			`{"type":"OBJECT","properties":{"a":{"type":"STRING","nullable":true},"b":{"type":"INTEGER"}}}`},
		{"null enum value", `{"type":"object","properties":{"e":{"type":"string","enum":["a",null]}}}`,
			`{"type":"OBJECT","properties":{"e":{"type":"STRING","nullable":true,"enum":["a"]}}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var in map[string]any
			if err := json.Unmarshal([]byte(c.in), &in); err != nil {
				t.Fatal(err)
			}
			before, _ := json.Marshal(in)
			g := exporters.GeminiParameters(in)
			var got, want any
			b, _ := json.Marshal(g)
			_ = json.Unmarshal(b, &got)
			if err := json.Unmarshal([]byte(c.want), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %s\nwant %s", b, c.want)
			}
			if after, _ := json.Marshal(in); string(after) != string(before) {
				t.Errorf("input modified: %s -> %s", before, after)
			}
		})
	}
	if exporters.GeminiParameters(nil) != nil {
		t.Error("GeminiParameters(nil) != nil")
	}
}

func TestNamespaceFilter(t *testing.T) {
	reg := cursus.Registry()
	total := 0
	for _, ns := range reg.NamespaceNames() {
		defs := reg.List(ns)
		for _, f := range exporters.Formats {
			out := exportJSON(t, f, defs)
			if len(out) != len(defs) {
				t.Errorf("%s/%s: %d exported, want %d", f, ns, len(out), len(defs))
			}
			for _, e := range out {
				name := exportedName(t, f, e)
				if !strings.HasPrefix(name, ns+"__") {
					t.Errorf("%s/%s: exported %q from another namespace", f, ns, name)
				}
			}
		}
		total += len(defs)
	}
	if total != reg.Len() {
		t.Errorf("namespaces add up to %d tools, registry lists %d", total, reg.Len())
	}
	if n := len(reg.List("tools")); n == 0 {
		t.Error("namespace tools exports nothing")
	}
	if out := exportJSON(t, exporters.FormatOpenAI, reg.List("no_such_namespace")); len(out) != 0 {
		t.Errorf("unknown namespace exported %d tools", len(out))
	}
}

// scramble overwrites and deletes whatever it can reach in decoded-JSON-like
// Go values, to prove an export shares nothing with the registry.
func scramble(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			scramble(e)
			x[k] = "scrambled"
		}
		x["added"] = true
	case []any:
		for i, e := range x {
			scramble(e)
			x[i] = "scrambled"
		}
	case []string:
		for i := range x {
			x[i] = "scrambled"
		}
	}
}

func TestExportsDoNotShareWithRegistry(t *testing.T) {
	defs := append(append([]*registry.ToolDef{}, cursus.Registry().All()...), unionTool())
	snapshot := func() string {
		var b strings.Builder
		for _, td := range defs {
			s, err := json.Marshal(map[string]any{"schema": td.Schema(), "tags": td.Tags})
			if err != nil {
				t.Fatal(err)
			}
			b.Write(s)
		}
		return b.String()
	}
	before := snapshot()
	for _, f := range exporters.Formats {
		out, err := exporters.Export(f, defs)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range out {
			switch x := e.(type) {
			case exporters.OpenAITool:
				scramble(x.Function.Parameters)
				if x.Function.Metadata != nil {
					scramble(x.Function.Metadata.Tags)
				}
			case exporters.OpenAIResponsesTool:
				scramble(x.Parameters)
			case exporters.AnthropicTool:
				scramble(x.InputSchema)
			case exporters.BedrockTool:
				scramble(x.ToolSpec.InputSchema.JSON)
			case exporters.GeminiFunctionDeclaration:
				if x.Parameters != nil {
					for k := range x.Parameters.Properties {
						x.Parameters.Properties[k] = nil
					}
					for i := range x.Parameters.Required {
						x.Parameters.Required[i] = "scrambled"
					}
				}
			case exporters.MCPTool:
				scramble(x.InputSchema)
				scramble(x.Tags)
			default:
				t.Fatalf("%s: unexpected element type %T", f, e)
			}
		}
	}
	if after := snapshot(); after != before {
		t.Errorf("editing exports changed the registry:\nbefore %s\nafter  %s", before, after)
	}
}

func TestAnnotations(t *testing.T) {
	mk := func(s registry.Spec) *registry.ToolDef {
		s.Description, s.When, s.Examples, s.Tags = "d", "w", []string{"test.x {}"}, []string{registry.PhasePlanner}
		return registry.New("test.x", s, noop[struct{}])
	}
	cases := []struct {
		spec registry.Spec
		want exporters.MCPAnnotations
	}{
		{registry.Spec{}, exporters.MCPAnnotations{ReadOnlyHint: true, IdempotentHint: true}},
		{registry.Spec{Writes: true}, exporters.MCPAnnotations{}},
		{registry.Spec{Destructive: true}, exporters.MCPAnnotations{DestructiveHint: true}},
		{registry.Spec{Destructive: true, Writes: true, Network: true}, exporters.MCPAnnotations{DestructiveHint: true, OpenWorldHint: true}},
		{registry.Spec{ExecCode: true}, exporters.MCPAnnotations{OpenWorldHint: true}},
		{registry.Spec{Network: true}, exporters.MCPAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: true}},
		// A tool that calls other tools may do what they do.
		{registry.Spec{Writes: true, CallsTools: true}, exporters.MCPAnnotations{OpenWorldHint: true}},
	}
	for i, c := range cases {
		td := mk(c.spec)
		if got := exporters.Annotations(td); got != c.want {
			t.Errorf("case %d (%+v): %+v, want %+v", i, c.spec, got, c.want)
		}
		// All four hints are always on the wire, false included.
		b, _ := json.Marshal(exporters.MCP([]*registry.ToolDef{td})[0].Annotations)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		if len(m) != 4 {
			t.Errorf("case %d: annotations JSON %s, want all four hints", i, b)
		}
	}
}

func TestMCPTitleAndTagsAndNoArgs(t *testing.T) {
	plain := registry.New("test.plain", registry.Spec{Description: "Plain."}, noop[struct{}])
	titled := registry.New("test.titled", registry.Spec{Description: "T.", Title: "A Title", Tags: []string{registry.PhaseProgrammer}}, noop[struct{}])
	mcp := exporters.MCP([]*registry.ToolDef{plain, titled})
	if mcp[0].Title != "test.plain" || mcp[1].Title != "A Title" {
		t.Errorf("titles %q, %q", mcp[0].Title, mcp[1].Title)
	}
	if mcp[0].Tags != nil || !reflect.DeepEqual(mcp[1].Tags, []string{"programmer"}) {
		t.Errorf("tags %v, %v", mcp[0].Tags, mcp[1].Tags)
	}
	if mcp[0].Description != "Plain." {
		t.Errorf("a tool without when/examples renders %q, want exactly its description", mcp[0].Description)
	}
	oa := exporters.OpenAI([]*registry.ToolDef{plain, titled})
	if oa[0].Function.Metadata != nil || oa[1].Function.Metadata == nil {
		t.Errorf("metadata %v, %v: want none without tags, tags otherwise", oa[0].Function.Metadata, oa[1].Function.Metadata)
	}
	gm := exporters.Gemini([]*registry.ToolDef{plain})
	if gm[0].Parameters != nil {
		t.Errorf("a tool without arguments has Gemini parameters %+v", gm[0].Parameters)
	}
	// Other formats keep the empty object schema.
	an := exporters.Anthropic([]*registry.ToolDef{plain})
	if an[0].InputSchema["type"] != "object" {
		t.Errorf("anthropic schema of a no-arg tool: %v", an[0].InputSchema)
	}
}

func BenchmarkExport(b *testing.B) {
	defs := cursus.Registry().List("")
	for _, f := range exporters.Formats {
		b.Run(string(f), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := exporters.Export(f, defs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("json-all-formats", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, f := range exporters.Formats {
				if _, err := exporters.ExportJSON(f, defs, false); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
