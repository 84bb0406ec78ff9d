package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/jsonpos"
	"github.com/cursus-go/cursus/internal/suggest"
	"github.com/invopop/jsonschema"
	"github.com/xeipuuv/gojsonschema"
)

// argSchema is a tool's compiled argument schema.
type argSchema struct {
	validator *gojsonschema.Schema
	defaults  []byte         // JSON object of top-level defaults, or nil
	schema    map[string]any // the schema, for did-you-mean on unknown arguments
}

var reflector = &jsonschema.Reflector{
	Anonymous:                  true,
	DoNotReference:             true,
	ExpandedStruct:             true,
	RequiredFromJSONSchemaTags: true,
}

// New builds a ToolDef from a typed handler. The argument struct A is
// reflected into the tool's JSON Schema (struct tags: `json` for names,
// `jsonschema:"required"` for required keys, `jsonschema:"enum=a,enum=b"`,
// `jsonschema:"default=..."`, `jsonschema_description:"..."`). The schema is
// reflected when first asked for and compiled for validation on the first
// call. A struct that cannot be reflected into an object schema panics on
// that first use, a programming error the registry tests catch.
func New[A any](name string, spec Spec, handler func(ctx context.Context, args A) (*envelope.ToolResult, error)) *ToolDef {
	var zero A
	typ := reflect.TypeOf(zero)
	if typ == nil || typ.Kind() != reflect.Struct {
		panic(fmt.Sprintf("registry.New(%q): the argument type must be a struct, got %v", name, typ))
	}
	t := &ToolDef{Spec: spec, Name: name, argType: typ, wire: WireName(name), aliases: collectAliases(typ)}
	t.prepare = func() (*argSchema, error) { return compileSchema(t.Schema()) }
	t.invoke = func(ctx context.Context, raw []byte) (*envelope.ToolResult, error) {
		var args A
		if d := t.compiled.defaults; d != nil {
			if err := json.Unmarshal(d, &args); err != nil {
				return nil, fmt.Errorf("apply defaults: %w", err)
			}
		}
		if len(raw) > 0 && !isEmptyObject(raw) {
			if err := json.Unmarshal(raw, &args); err != nil {
				return nil, envelope.InvalidInput("invalid arguments for '%s': %v", name, err)
			}
		}
		return handler(ctx, args)
	}
	return t
}

func reflectSchema(typ reflect.Type) (map[string]any, error) {
	s := reflector.ReflectFromType(typ)
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	delete(m, "$schema")
	delete(m, "$id")
	delete(m, "$defs")
	if m["type"] != "object" {
		return nil, fmt.Errorf("root schema type is %v, want object", m["type"])
	}
	if _, ok := m["properties"]; !ok {
		m["properties"] = map[string]any{}
	}
	m["additionalProperties"] = false
	if req, ok := m["required"].([]any); ok && len(req) == 0 {
		delete(m, "required")
	}
	return m, nil
}

func compileSchema(schema map[string]any) (*argSchema, error) {
	v, err := gojsonschema.NewSchema(gojsonschema.NewGoLoader(schema))
	if err != nil {
		return nil, fmt.Errorf("compile schema: %w", err)
	}
	out := &argSchema{validator: v, schema: schema}
	props, _ := schema["properties"].(map[string]any)
	defs := map[string]any{}
	for k, p := range props {
		pm, _ := p.(map[string]any)
		if d, ok := pm["default"]; ok {
			defs[k] = d
		}
	}
	if len(defs) > 0 {
		b, err := json.Marshal(defs)
		if err != nil {
			return nil, err
		}
		out.defaults = b
	}
	return out, nil
}

// decodeArgs parses raw argument JSON into a generic object (numbers kept as
// json.Number), dropping top-level nulls so they count as absent.
func decodeArgs(raw []byte) (map[string]any, error) {
	if isEmptyObject(raw) {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %v", jsonpos.Locate(raw, err))
	}
	if dec.More() {
		return nil, fmt.Errorf("arguments hold more than one JSON value")
	}
	m, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			return map[string]any{}, nil
		}
		return nil, fmt.Errorf("arguments must be a JSON object, got %s", jsonKind(v))
	}
	for k, val := range m {
		if val == nil {
			delete(m, k)
		}
	}
	return m, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "another type"
}

// validate checks args against the compiled schema and returns every
// problem, each starting with its field path.
func (s *argSchema) validate(args map[string]any) ([]string, error) {
	res, err := s.validator.Validate(gojsonschema.NewRawLoader(args))
	if err != nil {
		return nil, err
	}
	if res.Valid() {
		return nil, nil
	}
	errs := make([]string, 0, len(res.Errors()))
	for _, e := range res.Errors() {
		errs = append(errs, s.formatSchemaError(e))
	}
	sort.Strings(errs)
	return errs, nil
}

func (s *argSchema) formatSchemaError(e gojsonschema.ResultError) string {
	field := e.Field()
	if field == "(root)" {
		field = ""
	}
	details := e.Details()
	switch e.Type() {
	case "required":
		p, _ := details["property"].(string)
		return joinPath(field, p) + ": missing required argument"
	case "additional_property_not_allowed":
		p, _ := details["property"].(string)
		return joinPath(field, p) + ": unknown argument" + didYouMean(p, propertiesAt(s.schema, field))
	}
	if field == "" {
		field = "(arguments)"
	}
	return field + ": " + e.Description()
}

// didYouMean is the hint of an unknown argument: the closest argument
// names, or, when none is close, every argument the object takes (a tool
// takes a handful; the list is short).
func didYouMean(name string, props []string) string {
	if len(props) == 0 {
		return "; this object takes no arguments"
	}
	if close := suggest.Closest(name, props, 3); len(close) > 0 {
		return "; did you mean '" + strings.Join(close, "' or '") + "'?"
	}
	if len(props) > 20 {
		return ""
	}
	return "; the arguments are: " + strings.Join(props, ", ")
}

// propertiesAt returns the sorted, non-deprecated property names of the
// object schema at a validation error's field path ("" for the root,
// "inputs.0" for an item of the inputs array).
func propertiesAt(schema map[string]any, field string) []string {
	cur := schema
	if field != "" {
		for _, seg := range strings.Split(field, ".") {
			if items, ok := cur["items"].(map[string]any); ok && isIndex(seg) {
				cur = items
				continue
			}
			props, _ := cur["properties"].(map[string]any)
			next, ok := props[seg].(map[string]any)
			if !ok {
				return nil
			}
			cur = next
		}
	}
	props, _ := cur["properties"].(map[string]any)
	out := make([]string, 0, len(props))
	for k, p := range props {
		if pm, _ := p.(map[string]any); pm["deprecated"] == true {
			continue
		}
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func joinPath(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// SchemaRequired returns the schema's required top-level keys.
func SchemaRequired(schema map[string]any) []string {
	var out []string
	switch r := schema["required"].(type) {
	case []any:
		for _, v := range r {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
	case []string:
		out = append(out, r...)
	}
	return out
}

// ParseExample splits an example "<name> <json>  # note" into its parts.
func ParseExample(ex string) (name string, args map[string]any, note string, err error) {
	ex = strings.TrimSpace(ex)
	name, rest, _ := strings.Cut(ex, " ")
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return name, map[string]any{}, "", nil
	}
	dec := json.NewDecoder(strings.NewReader(rest))
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return name, nil, "", fmt.Errorf("example %q: arguments are not a JSON object: %v", ex, err)
	}
	tail := strings.TrimSpace(rest[dec.InputOffset():])
	if tail != "" {
		if !strings.HasPrefix(tail, "#") {
			return name, nil, "", fmt.Errorf("example %q: text after the arguments must be a '# note'", ex)
		}
		note = strings.TrimSpace(strings.TrimPrefix(tail, "#"))
	}
	return name, v, note, nil
}

// isEmptyObject reports whether raw is "{}" (with optional white space).
func isEmptyObject(raw []byte) bool {
	t := bytes.TrimSpace(raw)
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return false
	}
	return len(bytes.TrimSpace(t[1:len(t)-1])) == 0
}
