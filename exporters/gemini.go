package exporters

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/cursus-go/cursus/registry"
)

// GeminiFunctionDeclaration is one Gemini function declaration (an element
// of tools[].functionDeclarations).
type GeminiFunctionDeclaration struct {
	// Name is the tool's wire name.
	Name string `json:"name"`
	// Description is the rendered description.
	Description string `json:"description"`
	// Parameters is the argument schema in Gemini's subset; nil (absent)
	// for a tool without arguments, as Gemini asks.
	Parameters *GeminiSchema `json:"parameters,omitempty"`
}

// GeminiSchema is the subset of the OpenAPI 3.0 schema object that Gemini's
// function declarations accept (google.golang.org/genai Schema), less the
// keys Gemini rejects or that carry unions. There is no field for
// additionalProperties, $schema, $ref, anyOf, oneOf, allOf, const or
// default, so none can appear.
type GeminiSchema struct {
	// Type is STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT or NULL.
	Type string `json:"type,omitempty"`
	// Format is kept only where Gemini accepts it: "enum" and "date-time"
	// for strings, "float"/"double" for numbers, "int32"/"int64" for
	// integers; non-string enums get "enum".
	Format string `json:"format,omitempty"`
	// Title is the schema's title.
	Title string `json:"title,omitempty"`
	// Description describes the value; a JSON Schema default is appended
	// to it as "(default: <json>)", since Gemini rejects "default".
	Description string `json:"description,omitempty"`
	// Nullable is true when the JSON Schema allowed null (a "null" type or
	// union branch).
	Nullable bool `json:"nullable,omitempty"`
	// Enum lists the allowed values, as strings (Gemini enums are strings;
	// other values are JSON-encoded).
	Enum []string `json:"enum,omitempty"`
	// Items is the element schema of an ARRAY.
	Items *GeminiSchema `json:"items,omitempty"`
	// MinItems is the minimum length of an ARRAY.
	MinItems *int64 `json:"minItems,omitempty"`
	// MaxItems is the maximum length of an ARRAY.
	MaxItems *int64 `json:"maxItems,omitempty"`
	// Properties are the properties of an OBJECT.
	Properties map[string]*GeminiSchema `json:"properties,omitempty"`
	// Required lists the required properties of an OBJECT (only names that
	// are in Properties).
	Required []string `json:"required,omitempty"`
	// MinProperties is the minimum number of properties of an OBJECT.
	MinProperties *int64 `json:"minProperties,omitempty"`
	// MaxProperties is the maximum number of properties of an OBJECT.
	MaxProperties *int64 `json:"maxProperties,omitempty"`
	// MinLength is the minimum length of a STRING.
	MinLength *int64 `json:"minLength,omitempty"`
	// MaxLength is the maximum length of a STRING.
	MaxLength *int64 `json:"maxLength,omitempty"`
	// Pattern is the regular expression a STRING must match.
	Pattern string `json:"pattern,omitempty"`
	// Minimum is the minimum of a NUMBER or INTEGER.
	Minimum *float64 `json:"minimum,omitempty"`
	// Maximum is the maximum of a NUMBER or INTEGER.
	Maximum *float64 `json:"maximum,omitempty"`
}

// Gemini renders tools as Gemini function declarations. The JSON Schema of
// each tool is rewritten, recursively, into the subset Gemini accepts:
//
//   - additionalProperties, $schema, $id, $ref, $defs, examples,
//     exclusiveMinimum/Maximum, multipleOf, uniqueItems, patternProperties
//     and every other key Gemini does not know are dropped;
//   - a union (anyOf or oneOf) collapses to its first non-null branch, whose
//     keys fill in what the outer schema lacks; a null branch, or "null" in
//     a type array, sets nullable; a union of only nulls is removed;
//     allOf branches are merged (properties and required united);
//   - types are upper-cased (STRING, OBJECT, ...); a type array keeps its
//     first non-null type; a missing type is inferred from properties
//     (OBJECT), items (ARRAY) or enum/const (STRING);
//   - enum and const become string enums; default is folded into the
//     description; formats Gemini rejects are dropped;
//   - properties and required are kept only on objects, items only on
//     arrays, and required only names declared properties;
//   - a tool without arguments gets no parameters at all.
//
// The registry's schemas are read, never modified. Every tool must be
// non-nil.
func Gemini(tools []*registry.ToolDef) []GeminiFunctionDeclaration {
	out := make([]GeminiFunctionDeclaration, len(tools))
	for i, t := range tools {
		out[i] = GeminiFunctionDeclaration{Name: t.WireName(), Description: t.RenderDescription()}
		if p := GeminiParameters(t.Schema()); p != nil {
			out[i].Parameters = p
		}
	}
	return out
}

// GeminiParameters converts a tool's argument schema (a JSON Schema object)
// into Gemini's subset as Gemini describes; it returns nil for a schema
// without properties (a tool that takes no arguments). It does not modify
// schema.
func GeminiParameters(schema map[string]any) *GeminiSchema {
	if schema == nil {
		return nil
	}
	g := geminiSchema(schema)
	if len(g.Properties) == 0 {
		return nil
	}
	g.Type = "OBJECT"
	return g
}

var geminiTypes = map[string]string{
	"string": "STRING", "number": "NUMBER", "integer": "INTEGER", "boolean": "BOOLEAN",
	"array": "ARRAY", "object": "OBJECT", "null": "NULL",
}

var geminiFormats = map[string]map[string]bool{
	"STRING":  {"enum": true, "date-time": true},
	"NUMBER":  {"float": true, "double": true},
	"INTEGER": {"int32": true, "int64": true},
}

// maxUnionRounds bounds how often nested unions are flattened in one node.
const maxUnionRounds = 16

func geminiSchema(v any) *GeminiSchema {
	m, ok := v.(map[string]any)
	if !ok {
		// A boolean schema (true: anything) has no Gemini equivalent but
		// an untyped schema.
		return &GeminiSchema{}
	}
	m, nullable := flattenUnions(m)
	g := &GeminiSchema{Nullable: nullable}

	switch tv := m["type"].(type) {
	case string:
		g.Type = geminiTypes[tv]
	case []any:
		for _, e := range tv {
			s, _ := e.(string)
			if s == "null" {
				g.Nullable = true
			} else if g.Type == "" {
				g.Type = geminiTypes[s]
			}
		}
		if g.Type == "" && g.Nullable {
			g.Type = "NULL"
		}
	}
	enum, enumNull := geminiEnum(m)
	if enumNull {
		g.Nullable = true
	}
	if g.Type == "" {
		switch {
		case m["properties"] != nil:
			g.Type = "OBJECT"
		case m["items"] != nil:
			g.Type = "ARRAY"
		case enum != nil:
			g.Type = "STRING"
		}
	}
	if g.Type == "NULL" {
		g.Nullable = false // NULL says it; nullable would be redundant
	}

	g.Title, _ = m["title"].(string)
	g.Description, _ = m["description"].(string)
	if d, ok := m["default"]; ok && d != nil {
		if b, err := json.Marshal(d); err == nil {
			g.Description = strings.TrimSpace(g.Description + " (default: " + string(b) + ")")
		}
	}
	if f, _ := m["format"].(string); geminiFormats[g.Type][f] {
		g.Format = f
	}
	if enum != nil {
		g.Enum = enum
		if g.Type != "STRING" {
			g.Format = "enum"
		}
	}

	switch g.Type {
	case "STRING":
		g.MinLength = jsonInt(m["minLength"])
		g.MaxLength = jsonInt(m["maxLength"])
		g.Pattern, _ = m["pattern"].(string)
	case "NUMBER", "INTEGER":
		g.Minimum = jsonFloat(m["minimum"])
		g.Maximum = jsonFloat(m["maximum"])
	case "ARRAY":
		g.MinItems = jsonInt(m["minItems"])
		g.MaxItems = jsonInt(m["maxItems"])
		switch it := m["items"].(type) {
		case nil:
		case []any: // draft-04 tuple: the first position stands for all
			if len(it) > 0 {
				g.Items = geminiSchema(it[0])
			}
		default:
			g.Items = geminiSchema(it)
		}
	case "OBJECT":
		g.MinProperties = jsonInt(m["minProperties"])
		g.MaxProperties = jsonInt(m["maxProperties"])
		if props, ok := m["properties"].(map[string]any); ok && len(props) > 0 {
			g.Properties = make(map[string]*GeminiSchema, len(props))
			for k, p := range props {
				g.Properties[k] = geminiSchema(p)
			}
		}
		for _, r := range stringList(m["required"]) {
			if _, ok := g.Properties[r]; ok {
				g.Required = append(g.Required, r)
			}
		}
	}
	return g
}

// flattenUnions removes anyOf, oneOf and allOf from a schema node, merging
// the chosen branches into a new map (the input is not modified). It reports
// whether a union allowed null.
func flattenUnions(m map[string]any) (map[string]any, bool) {
	nullable := false
	for round := 0; round < maxUnionRounds && hasUnion(m); round++ {
		out := make(map[string]any, len(m))
		for k, v := range m {
			if k != "anyOf" && k != "oneOf" && k != "allOf" {
				out[k] = v
			}
		}
		if all, ok := m["allOf"].([]any); ok {
			for _, b := range all {
				if bm, ok := b.(map[string]any); ok {
					mergeSchema(out, bm)
				}
			}
		}
		for _, key := range []string{"anyOf", "oneOf"} {
			branches, _ := m[key].([]any)
			var chosen map[string]any
			for _, b := range branches {
				bm, ok := b.(map[string]any)
				if !ok {
					continue
				}
				if isNullSchema(bm) {
					nullable = true
					continue
				}
				if chosen == nil {
					chosen = bm
				}
			}
			if chosen != nil {
				mergeSchema(out, chosen)
			}
		}
		m = out
	}
	if hasUnion(m) { // pathological nesting: give up on what is left
		out := make(map[string]any, len(m))
		for k, v := range m {
			if k != "anyOf" && k != "oneOf" && k != "allOf" {
				out[k] = v
			}
		}
		m = out
	}
	return m, nullable
}

func hasUnion(m map[string]any) bool {
	return m["anyOf"] != nil || m["oneOf"] != nil || m["allOf"] != nil
}

func isNullSchema(m map[string]any) bool {
	switch t := m["type"].(type) {
	case string:
		return t == "null"
	case []any:
		return len(t) == 1 && t[0] == "null"
	}
	return false
}

// mergeSchema fills dst with src's keys: properties and required are
// united (dst wins a clash), any other key is taken only when dst lacks it.
// Maps and slices of dst and src are never modified; united values are new.
func mergeSchema(dst, src map[string]any) {
	for k, v := range src {
		switch k {
		case "properties":
			sp, _ := v.(map[string]any)
			dp, _ := dst[k].(map[string]any)
			merged := make(map[string]any, len(sp)+len(dp))
			for pk, pv := range sp {
				merged[pk] = pv
			}
			for pk, pv := range dp {
				merged[pk] = pv
			}
			dst[k] = merged
		case "required":
			seen := map[string]bool{}
			var merged []any
			for _, list := range [][]string{stringList(dst[k]), stringList(v)} {
				for _, r := range list {
					if !seen[r] {
						seen[r] = true
						merged = append(merged, r)
					}
				}
			}
			dst[k] = merged
		default:
			if _, ok := dst[k]; !ok {
				dst[k] = v
			}
		}
	}
}

// geminiEnum turns enum (or const) into Gemini's string enum, in the order
// given; null values are left out and reported.
func geminiEnum(m map[string]any) ([]string, bool) {
	var vals []any
	if e, ok := m["enum"].([]any); ok {
		vals = e
	} else if e, ok := m["enum"].([]string); ok {
		for _, s := range e {
			vals = append(vals, s)
		}
	} else if c, ok := m["const"]; ok {
		vals = []any{c}
	} else {
		return nil, false
	}
	out := make([]string, 0, len(vals))
	null := false
	for _, v := range vals {
		switch x := v.(type) {
		case nil:
			null = true
		case string:
			out = append(out, x)
		default:
			b, err := json.Marshal(x)
			if err == nil {
				out = append(out, string(b))
			}
		}
	}
	if len(out) == 0 {
		return nil, null
	}
	return out, null
}

func stringList(v any) []string {
	switch x := v.(type) {
	case []string:
		return x
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func jsonFloat(v any) *float64 {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return nil
		}
	default:
		return nil
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

func jsonInt(v any) *int64 {
	f := jsonFloat(v)
	if f == nil || *f < 0 || *f != math.Trunc(*f) || *f > math.MaxInt64/2 {
		return nil
	}
	n := int64(*f)
	return &n
}
