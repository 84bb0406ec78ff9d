package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/jsonpos"
	"github.com/cursus-go/cursus/internal/lazyre"
	"github.com/cursus-go/cursus/internal/suggest"
	"github.com/invopop/jsonschema"
)

// argSchema is a tool's compiled argument schema.
type argSchema struct {
	root     *schemaNode
	defaults []byte // JSON object of top-level defaults, or nil
}

var reflector = &jsonschema.Reflector{
	Anonymous:                  true,
	DoNotReference:             true,
	ExpandedStruct:             true,
	RequiredFromJSONSchemaTags: true,
}

// New builds a ToolDef from a typed handler: In is the argument struct,
// Out the data of a success.
//
// The argument struct is reflected into the tool's JSON Schema (struct
// tags: `json` for names, `jsonschema:"required"` for required keys,
// `jsonschema:"enum=a,enum=b"`, `jsonschema:"default=..."`,
// `jsonschema_description:"..."`, `deprecated:"<new name>"` for an alias).
// The data type is reflected into the schema of the data in the tool's
// output schema (OutputSchema): fields without omitempty are required,
// objects are closed, a pointer may be null. A handler answers with
// envelope.Success(data) and the With* methods (warnings, next steps,
// meta), and reports a failure with an error (an *envelope.ToolError for a
// code, details and a remedy); a *Result whose OK is false is a partial
// failure (envelope.Partial), its data saying what took effect.
//
// A typed handler that returns neither a result nor an error is a bug
// (internal_error). A handler that still returns *envelope.ToolResult
// (Result[any]) has Out = any: its data is untyped, its data schema {}
// (Typed is false), and a nil result is a success without data.
//
// Both schemas are reflected when first asked for; the argument schema
// is compiled for validation on the first call. A struct that cannot be
// reflected (an argument type that is not a struct, a recursive data
// type) panics on that first use, a programming error the registry
// tests catch.
func New[In, Out any](name string, spec Spec, handler func(ctx context.Context, args In) (*envelope.Result[Out], error)) *ToolDef {
	typ := reflect.TypeFor[In]()
	if typ.Kind() != reflect.Struct {
		panic(fmt.Sprintf("registry.New(%q): the argument type must be a struct, got %v", name, typ))
	}
	outType := reflect.TypeFor[Out]()
	t := &ToolDef{Spec: spec, Name: name, argType: typ, outType: outType, wire: WireName(name), argFields: newArgInfo(typ)}
	t.invoke = func(ctx context.Context, raw, defaults []byte) (*envelope.ToolResult, error) {
		var args In
		if defaults != nil {
			if err := json.Unmarshal(defaults, &args); err != nil {
				return nil, fmt.Errorf("apply defaults: %w", err)
			}
		}
		if len(raw) > 0 && !isEmptyObject(raw) {
			if err := json.Unmarshal(raw, &args); err != nil {
				return nil, envelope.InvalidInput("invalid arguments for '%s': %v", name, err)
			}
		}
		res, err := handler(ctx, args)
		if res == nil && err == nil && outType != anyType {
			return nil, fmt.Errorf("tool '%s' returned neither a result nor an error", name)
		}
		return res.Untyped(), err
	}
	return t
}

var anyType = reflect.TypeFor[any]()

func reflectSchema(typ reflect.Type) (map[string]any, error) {
	m, err := reflectWith(reflector, typ)
	if err != nil {
		return nil, err
	}
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
	for name, p := range m["properties"].(map[string]any) {
		if ps, ok := p.(map[string]any); ok && nameProp().MatchString(name) && ps["type"] == "string" {
			if _, ok := ps["maxLength"]; !ok {
				ps["maxLength"] = MaxNameLength
			}
		}
	}
	return m, nil
}

// reflectWith reflects typ with r into a schema as decoded JSON, without
// $schema, $id and $defs.
func reflectWith(r *jsonschema.Reflector, typ reflect.Type) (map[string]any, error) {
	b, err := json.Marshal(r.ReflectFromType(typ))
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
	return m, nil
}

// The bounds every argument is validated against where its schema sets
// none, so no argument is unbounded: a string at most DefaultMaxLength
// characters, an array at most DefaultMaxItems items, a map at most
// DefaultMaxItems keys. They are not written into the published schemas
// (every string would carry one: context for nothing); the bounds that
// mean something are (a name's, a query's, a DAG's). The arguments of one
// call are also at most MaxArgBytes of JSON.
const (
	// DefaultMaxLength bounds a string argument (a path, a name, a value).
	DefaultMaxLength = 65536
	// DefaultMaxItems bounds an array argument and the keys of a map.
	DefaultMaxItems = 10000
	// MaxNameLength bounds a name argument: a property named name, name1,
	// name2, stage, tool, framework or ending in _name, _step, _node,
	// _class, _type or _id (names are compared by edit distance and word
	// overlap, whose cost grows with the product of the lengths).
	MaxNameLength = 256
)

var nameProp = lazyre.New(`^(name[0-9]?|stage|tool|framework|.*_(name|step|node|class|type|id))$`)

// bound sets the default bounds on a property schema and its nested
// schemas (items, properties, additionalProperties), keeping the ones the
// struct tags gave.
func bound(s map[string]any, depth int) {
	if depth > 32 {
		return
	}
	types := map[string]bool{}
	switch t := s["type"].(type) {
	case string:
		types[t] = true
	case []any:
		for _, x := range t {
			if ts, ok := x.(string); ok {
				types[ts] = true
			}
		}
	}
	_, enum := s["enum"]
	_, konst := s["const"]
	if types["string"] && !enum && !konst {
		if _, ok := s["maxLength"]; !ok {
			s["maxLength"] = DefaultMaxLength
		}
	}
	if types["array"] {
		if _, ok := s["maxItems"]; !ok {
			s["maxItems"] = DefaultMaxItems
		}
	}
	if types["object"] {
		if _, hasProps := s["properties"]; !hasProps {
			if _, ok := s["maxProperties"]; !ok {
				s["maxProperties"] = DefaultMaxItems
			}
		}
	}
	if it, ok := s["items"].(map[string]any); ok {
		bound(it, depth+1)
	}
	if ap, ok := s["additionalProperties"].(map[string]any); ok {
		bound(ap, depth+1)
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for _, p := range props {
			if ps, ok := p.(map[string]any); ok {
				bound(ps, depth+1)
			}
		}
	}
}

func compileSchema(schema map[string]any) (*argSchema, error) {
	bounded, err := deepCopy(schema)
	if err != nil {
		return nil, err
	}
	for _, p := range bounded["properties"].(map[string]any) {
		if ps, ok := p.(map[string]any); ok {
			bound(ps, 0)
		}
	}
	root, err := compileNode(bounded, "(schema)")
	if err != nil {
		return nil, fmt.Errorf("compile schema: %w", err)
	}
	out := &argSchema{root: root}
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

// deepCopy copies a schema through JSON.
func deepCopy(m map[string]any) (map[string]any, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, json.Unmarshal(b, &out)
}

// checkArgs reads raw argument JSON: a JSON object, or nothing (nil,
// empty, null: no arguments). Not JSON is reported with its position.
func checkArgs(raw []byte) ([]byte, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return []byte("{}"), nil
	}
	if !json.Valid(t) {
		dec := json.NewDecoder(bytes.NewReader(raw))
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("arguments are not valid JSON: %v", jsonpos.Locate(raw, err))
		}
		return nil, fmt.Errorf("arguments hold more than one JSON value")
	}
	if t[0] != '{' {
		return nil, fmt.Errorf("arguments must be a JSON object, got %s", jsonKind(t[0]))
	}
	return t, nil
}

func jsonKind(first byte) string {
	switch first {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// validate checks raw arguments (a valid JSON object) against the
// compiled schema and returns every problem, each starting with its field
// path.
func (s *argSchema) validate(raw []byte) []string { return validateRaw(s.root, raw) }

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
	return parseExample[any](ex)
}

// parseExample is ParseExample with the arguments' values decoded as V:
// json.RawMessage keeps them as they are, for a caller that needs only
// the arguments' names.
func parseExample[V any](ex string) (name string, args map[string]V, note string, err error) {
	ex = strings.TrimSpace(ex)
	name, rest := splitExample(ex)
	if rest == "" {
		return name, map[string]V{}, "", nil
	}
	dec := json.NewDecoder(strings.NewReader(rest))
	var v map[string]V
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

// splitExample splits an example ("tool {...}  # note") into the tool's
// name and what follows it, each without surrounding white space.
func splitExample(ex string) (name, rest string) {
	name, rest, _ = strings.Cut(strings.TrimSpace(ex), " ")
	return name, strings.TrimSpace(rest)
}

// exampleKeys returns the top-level argument names of an example's
// arguments (rest of splitExample: "{...}  # note") without decoding them:
// a scan of the object that skips strings and nested values (decoding
// every example was most of what rendering the descriptions cost at
// start-up). A key is its text between the quotes, escapes not undone:
// argument names have none. ok is false when the arguments do not start
// with a well-formed object; an example with none has no keys and is
// well-formed.
func exampleKeys(rest string) (keys []string, ok bool) {
	if rest == "" {
		return nil, true
	}
	if rest[0] != '{' {
		return nil, false
	}
	depth, wantKey := 0, false
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '"':
			end := i + 1
			for end < len(rest) && rest[end] != '"' {
				if rest[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(rest) {
				return nil, false
			}
			if depth == 1 && wantKey {
				keys = append(keys, rest[i+1:end])
				wantKey = false
			}
			i = end
		case '{', '[':
			depth++
			if depth == 1 {
				wantKey = true
			}
		case '}', ']':
			depth--
			if depth == 0 {
				return keys, true
			}
		case ',':
			if depth == 1 {
				wantKey = true
			}
		}
	}
	return nil, false
}

// isEmptyObject reports whether raw is "{}" (with optional white space).
func isEmptyObject(raw []byte) bool {
	t := bytes.TrimSpace(raw)
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return false
	}
	return len(bytes.TrimSpace(t[1:len(t)-1])) == 0
}
