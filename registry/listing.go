package registry

import (
	"encoding"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// This file holds the compact forms a host's tool list carries (MCP
// tools/list, the exporters): each tool's input schema without repetition,
// its output schema cut to an outline, and the argument descriptions
// several tools share, given once. The full schemas stay what Schema and
// OutputSchema return: the registry validates against those, and
// tools.describe_tool answers them.

// SharedArgMin is how many of the listed tools must declare an argument
// with the same name and description before Listing gives that
// description once, as a SharedArg, instead of in every tool.
const SharedArgMin = 3

// OutlineBudget is the size, in bytes of compact JSON, the data part of a
// listed output schema may take (ListedOutputSchema).
const OutlineBudget = 160

// SharedArg is an argument several listed tools declare alike: its
// description is given once, here, and left out of their listed schemas.
type SharedArg struct {
	// Name is the argument's name.
	Name string `json:"name"`
	// Description is the description the tools share.
	Description string `json:"description"`
	// Tools counts the listed tools that declare it.
	Tools int `json:"tools"`
	// Everywhere: every listed tool declares it alike, so the listed
	// schemas leave it out altogether and the instructions name it once.
	Everywhere bool `json:"everywhere,omitempty"`
}

// SharedShape is an object argument several listed tools declare with the
// same nested schema: the schema is given once, here, and their listed
// schemas say only that the argument is an object.
type SharedShape struct {
	// Name is the argument's name.
	Name string `json:"name"`
	// Schema is the argument's listed schema, without its description,
	// compact JSON.
	Schema json.RawMessage `json:"schema"`
	// Tools counts the listed tools that declare it.
	Tools int `json:"tools"`
}

// Listing is the compact form of a set of tools for a host's tool list.
type Listing struct {
	// Shared lists the shared argument descriptions, sorted by name then
	// description.
	Shared []SharedArg
	// Shapes lists the shared object shapes, sorted by name then schema.
	Shapes []SharedShape
	// schemas holds each tool's listed input schema, marshalled once.
	schemas map[*ToolDef]json.RawMessage
}

// InputSchema is t's listed input schema (t must be one of the tools the
// listing was made from): Schema without the deprecated aliases (still
// accepted when called), without descriptions that only restate the
// argument's name, without the keywords that only bound a value's size
// (maxLength, minLength, maxItems: the registry enforces them with an
// error naming the field), without additionalProperties false (unknown
// arguments are still refused when called; the server's instructions say
// so once), without the descriptions of shared arguments, and with each
// shared object shape (Shapes) cut to {"type": "object"}.
func (l *Listing) InputSchema(t *ToolDef) json.RawMessage { return l.schemas[t] }

// NewListing computes the listing of tools. It fails only when a schema
// cannot be marshalled, a programming error.
func NewListing(tools []*ToolDef) (*Listing, error) {
	// An argument is shared by name and description: tools that describe
	// an argument of the same name alike mean the same argument.
	type key struct{ name, desc string }
	stripped := make([]map[string]any, len(tools))
	count := map[key]int{}
	// An object argument's nested schema is shared by name and schema
	// (description aside), as a description is.
	shapes := map[key]int{}
	for i, t := range tools {
		s := maps.Clone(t.Schema())
		props := map[string]any{}
		for name, p := range schemaProps(s) {
			pm, _ := p.(map[string]any)
			if pm["deprecated"] == true {
				continue
			}
			if d, _ := pm["description"].(string); d != "" && restatesName(name, d) {
				pm = maps.Clone(pm)
				delete(pm, "description")
			}
			pm = withoutSizeBounds(pm)
			props[name] = pm
			if d, _ := pm["description"].(string); d != "" {
				count[key{name, d}]++
			}
			if sh, ok := shapeOf(pm); ok {
				shapes[key{name, sh}]++
			}
		}
		if req, ok := s["required"].([]any); ok {
			s["required"] = slices.DeleteFunc(slices.Clone(req), func(r any) bool { _, ok := props[r.(string)]; return !ok })
		}
		s["properties"] = props
		// Unknown arguments are refused, with a did-you-mean, when
		// called; the server's instructions say so once.
		if s["additionalProperties"] == false {
			delete(s, "additionalProperties")
		}
		stripped[i] = s
	}
	l := &Listing{schemas: make(map[*ToolDef]json.RawMessage, len(tools))}
	// The format argument WithMarkdown adds, when every tool declares it
	// alike, is left out of every listed schema: the instructions name it
	// once.
	everywhere := map[string]bool{}
	if len(tools) >= SharedArgMin {
		same := map[string]string{}
		seen := map[string]int{}
		for _, s := range stripped {
			for name, p := range s["properties"].(map[string]any) {
				b, _ := json.Marshal(p)
				if prev, ok := same[name]; ok && prev != string(b) {
					same[name] = "\x00differs"
				} else if !ok {
					same[name] = string(b)
				}
				seen[name]++
			}
		}
		for name, n := range seen {
			if name == "format" && n == len(tools) && same[name] != "\x00differs" {
				everywhere[name] = true
			}
		}
	}
	for k, n := range count {
		if n >= SharedArgMin {
			l.Shared = append(l.Shared, SharedArg{Name: k.name, Description: k.desc, Tools: n, Everywhere: everywhere[k.name] && n == len(tools)})
		}
	}
	sort.Slice(l.Shared, func(i, j int) bool {
		a, b := l.Shared[i], l.Shared[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Description < b.Description
	})
	for k, n := range shapes {
		if n >= SharedArgMin {
			l.Shapes = append(l.Shapes, SharedShape{Name: k.name, Schema: json.RawMessage(k.desc), Tools: n})
		}
	}
	sort.Slice(l.Shapes, func(i, j int) bool {
		a, b := l.Shapes[i], l.Shapes[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return string(a.Schema) < string(b.Schema)
	})
	universal := map[string]bool{}
	for _, a := range l.Shared {
		if a.Everywhere {
			universal[a.Name] = true
		}
	}
	for i, t := range tools {
		s := stripped[i]
		props := s["properties"].(map[string]any)
		for name, p := range props {
			if universal[name] {
				delete(props, name)
				continue
			}
			pm := p.(map[string]any)
			if d, ok := pm["description"].(string); ok && count[key{name, d}] >= SharedArgMin {
				pm = maps.Clone(pm)
				delete(pm, "description")
				props[name] = pm
			}
			if sh, ok := shapeOf(pm); ok && shapes[key{name, sh}] >= SharedArgMin {
				cut := map[string]any{"type": "object"}
				if d, ok := pm["description"]; ok {
					cut["description"] = d
				}
				props[name] = cut
			}
		}
		b, err := json.Marshal(s)
		if err != nil {
			return nil, fmt.Errorf("registry: tool %s: listed schema: %w", t.Name, err)
		}
		l.schemas[t] = b
	}
	return l, nil
}

// SharedText renders the shared argument descriptions and object shapes as
// one paragraph (empty when there are none), for a server's instructions.
func (l *Listing) SharedText() string {
	var text []string
	var parts, every []string
	for _, a := range l.Shared {
		if a.Everywhere {
			every = append(every, a.Name+": "+strings.TrimSuffix(a.Description, "."))
		} else {
			parts = append(parts, a.Name+": "+strings.TrimSuffix(a.Description, "."))
		}
	}
	if len(every) > 0 {
		text = append(text, "Every tool also takes (its schema leaves it out): "+strings.Join(every, "; ")+".")
	}
	if len(parts) > 0 {
		text = append(text, "Arguments several tools share (their schemas leave the description out): "+strings.Join(parts, "; ")+".")
	}
	if len(l.Shapes) > 0 {
		parts := make([]string, len(l.Shapes))
		for i, sh := range l.Shapes {
			parts[i] = sh.Name + ": " + string(sh.Schema)
		}
		text = append(text, "Object arguments whose schema several tools share (their schemas say only object): "+strings.Join(parts, "; ")+".")
	}
	return strings.Join(text, " ")
}

// shapeOf is the compact JSON of an object argument's listed schema
// without its description, when it has nested properties (a shape worth
// giving once); ok is false for any other argument.
func shapeOf(p map[string]any) (string, bool) {
	if p["type"] != "object" {
		return "", false
	}
	if props, _ := p["properties"].(map[string]any); len(props) == 0 {
		return "", false
	}
	q := maps.Clone(p)
	delete(q, "description")
	b, err := json.Marshal(q)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// sizeBounds are the keywords that only bound a value's size (a name's
// length, a list's count): limits against abuse, which the registry
// enforces with an error naming the field, not something a caller needs
// to read before calling. minimum and maximum stay: they say what a
// number means.
var sizeBounds = []string{"maxLength", "minLength", "maxItems"}

// withoutSizeBounds is p without sizeBounds, at every level of items and
// properties; p itself is not changed.
func withoutSizeBounds(p map[string]any) map[string]any {
	out := maps.Clone(p)
	for _, k := range sizeBounds {
		delete(out, k)
	}
	if it, ok := out["items"].(map[string]any); ok {
		out["items"] = withoutSizeBounds(it)
	}
	if props, ok := out["properties"].(map[string]any); ok {
		np := make(map[string]any, len(props))
		for k, v := range props {
			if vm, ok := v.(map[string]any); ok {
				v = withoutSizeBounds(vm)
			}
			np[k] = v
		}
		out["properties"] = np
	}
	return out
}

func schemaProps(s map[string]any) map[string]any {
	p, _ := s["properties"].(map[string]any)
	return p
}

// fillerWords carry no meaning of their own in an argument description.
var fillerWords = map[string]bool{"the": true, "a": true, "an": true, "of": true, "to": true, "this": true, "its": true, "is": true}

// restatesName reports whether a description says nothing but the
// argument's name ("run_id": "The run id.").
func restatesName(name, desc string) bool {
	words := strings.FieldsFunc(strings.ToLower(desc), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	var rest []string
	for _, w := range words {
		if !fillerWords[w] {
			rest = append(rest, w)
		}
	}
	parts := strings.Split(strings.ToLower(name), "_")
	return len(rest) > 0 && slices.Equal(rest, parts)
}

// ListedOutputSchema is the output schema a host's tool list carries: the
// envelope with data alone, the other envelope fields left to the
// envelope's documentation (ok, the same boolean in every answer, is said
// once in the server's instructions instead of in every tool; the schema
// stays open, so every answer, a failure too, validates), and data as an
// outline of the data type within OutlineBudget: the JSON types of its
// fields (a struct's, one level deep), else the type alone ({} for an
// untyped tool), a string too where the tool has a markdown view. The
// outline is read off the Go type directly, without reflecting the full
// schema, so listing every tool costs no schema reflection at start-up.
// Every answer valid against OutputSchema is valid against it. Marshalled
// once.
func (t *ToolDef) ListedOutputSchema() json.RawMessage {
	return t.listedOut.json(t.Name, func() (map[string]any, error) {
		src := t
		if t.outputOf != nil {
			src = t.outputOf
		}
		data := map[string]any{}
		if src.outType != anyType {
			data = typeOutline(src.outType, OutlineBudget)
			if t.markdown != nil || src.markdown != nil {
				if typ, ok := data["type"].(string); ok {
					data["type"] = []any{typ, "string"}
				}
			}
		}
		return map[string]any{
			"type":       "object",
			"properties": map[string]any{"data": data},
		}, nil
	})
}

// typeOutline is the outline of a data type: for a struct, its fields
// (as encoding/json writes them) with their JSON types, when that fits
// budget bytes; else the JSON type alone.
func typeOutline(typ reflect.Type, budget int) map[string]any {
	top := jsonType(typ, false)
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct || top["type"] == nil || customJSON(typ) {
		return top
	}
	props := map[string]any{}
	for _, f := range jsonFields(typ) {
		props[f.Name] = jsonType(f.Type, !f.OmitEmpty)
	}
	out := map[string]any{"type": top["type"], "properties": props}
	if size(out) <= budget {
		return out
	}
	return top
}

// jsonType is the JSON type of a Go type as encoding/json writes it
// ({} when its JSON form cannot be told from the type: an interface, a
// type with its own marshalling or schema); a pointer that is always
// written (nullable) may be null, as the full output schema says.
func jsonType(typ reflect.Type, nullable bool) map[string]any {
	ptr := false
	for typ.Kind() == reflect.Pointer {
		typ, ptr = typ.Elem(), true
	}
	if customJSON(typ) {
		return map[string]any{}
	}
	var name string
	switch typ.Kind() {
	case reflect.String:
		name = "string"
	case reflect.Bool:
		name = "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		name = "integer"
	case reflect.Float32, reflect.Float64:
		name = "number"
	case reflect.Slice:
		if typ.Elem().Kind() == reflect.Uint8 {
			name = "string"
		} else {
			name = "array"
		}
	case reflect.Array:
		name = "array"
	case reflect.Map, reflect.Struct:
		name = "object"
	default:
		return map[string]any{}
	}
	if ptr && nullable {
		return map[string]any{"type": []any{name, "null"}}
	}
	return map[string]any{"type": name}
}

// customJSON reports whether a type writes its own JSON or schema.
func customJSON(typ reflect.Type) bool {
	p := reflect.PointerTo(typ)
	return typ.Implements(marshalerType) || p.Implements(marshalerType) ||
		typ.Implements(textMarshalerType) || p.Implements(textMarshalerType) ||
		typ.Implements(schemaMethod) || p.Implements(schemaMethod)
}

var textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()

func size(v any) int {
	b, _ := json.Marshal(v)
	return len(b)
}
