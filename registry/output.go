package registry

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/cursus-go/cursus/internal/jsonsize"
	"github.com/invopop/jsonschema"
)

// outputReflector reflects data types: every field without omitempty is
// required (the data always has it) and objects are closed, so the schema
// says exactly what the wire form holds.
var outputReflector = &jsonschema.Reflector{
	Anonymous:      true,
	DoNotReference: true,
	ExpandedStruct: true,
}

// OutputSchemaFor is the output schema of a tool whose data has the schema
// data: the envelope as sent (root type object). ok is required; data is
// the tool's; next_steps, error, code, remedy, warnings and meta are typed
// as the envelope package writes them (see envelope.Result), kept to
// their types so the schemas of 80 tools stay small in tools/list.
func OutputSchemaFor(data map[string]any) map[string]any {
	return map[string]any{
		"type":     "object",
		"required": []any{"ok"},
		"properties": map[string]any{
			"ok":         map[string]any{"type": "boolean"},
			"data":       data,
			"next_steps": map[string]any{"type": "array", "items": map[string]any{"type": "object"}},
			"error":      map[string]any{"type": "string"},
			"code":       map[string]any{"type": "string"},
			"remedy":     map[string]any{"type": "object"},
			"warnings":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"meta":       map[string]any{"type": "object"},
		},
		"additionalProperties": false,
	}
}

// reflectData is the schema of a data type ({} for any).
func reflectData(typ reflect.Type) (map[string]any, error) {
	if typ == anyType {
		return map[string]any{}, nil
	}
	if err := checkAcyclic(typ, nil); err != nil {
		return nil, fmt.Errorf("data type %v: %w", typ, err)
	}
	m, err := reflectWith(outputReflector, typ)
	if err != nil {
		return nil, err
	}
	nullablePointers(m, typ)
	return m, nil
}

var schemaMethod = reflect.TypeFor[interface{ JSONSchema() *jsonschema.Schema }]()

// checkAcyclic fails on a recursive data type, which reflection without
// references cannot expand (give such a type a JSONSchema method).
func checkAcyclic(typ reflect.Type, stack []reflect.Type) error {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ.Implements(schemaMethod) || reflect.PointerTo(typ).Implements(schemaMethod) {
		return nil
	}
	switch typ.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return checkAcyclic(typ.Elem(), stack)
	case reflect.Struct:
		if slices.Contains(stack, typ) {
			return fmt.Errorf("it is recursive through %v (give %v a JSONSchema method)", typ, typ)
		}
		stack = append(stack, typ)
		for _, f := range jsonFields(typ) {
			if err := checkAcyclic(f.Type, stack); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonFields lists the fields encoding/json writes for a struct type
// (jsonsize.Fields: embedded structs inlined, a shadowed name from its
// shallowest field).
func jsonFields(typ reflect.Type) []jsonsize.Field { return jsonsize.Fields(typ) }

// hasArg reports whether an argument struct has a field of that JSON name.
func hasArg(typ reflect.Type, name string) bool {
	return slices.ContainsFunc(jsonFields(typ), func(f jsonsize.Field) bool { return f.Name == name })
}

// nullablePointers lets a pointer field that is always written (no
// omitempty) be null, as encoding/json writes a nil pointer, through
// nested structs, slices and maps.
func nullablePointers(schema map[string]any, typ reflect.Type) {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ.Implements(schemaMethod) || reflect.PointerTo(typ).Implements(schemaMethod) || typ.Implements(marshalerType) {
		return
	}
	switch typ.Kind() {
	case reflect.Slice, reflect.Array:
		if items, ok := schema["items"].(map[string]any); ok {
			nullablePointers(items, typ.Elem())
		}
	case reflect.Map:
		if extra, ok := schema["additionalProperties"].(map[string]any); ok {
			nullablePointers(extra, typ.Elem())
		}
	case reflect.Struct:
		props, _ := schema["properties"].(map[string]any)
		for _, f := range jsonFields(typ) {
			p, ok := props[f.Name].(map[string]any)
			if !ok {
				continue
			}
			nullablePointers(p, f.Type)
			if f.Type.Kind() != reflect.Pointer || f.OmitEmpty {
				continue
			}
			if t, ok := p["type"].(string); ok {
				p["type"] = []any{t, "null"}
			}
		}
	}
}

var marshalerType = reflect.TypeFor[json.Marshaler]()
