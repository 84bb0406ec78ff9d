package registry

import (
	"encoding/json"
	"reflect"
	"sync"

	"github.com/invopop/jsonschema"
)

// Schema is a JSON Schema as the registry hands it out (ToolDef.Schema,
// OutputSchema, DataSchema), for a data type that carries one. It is a
// plain map to read; it marshals from the bytes the registry encoded once
// when it is one of those maps, so an answer that carries a tool's schema
// (tools.describe_tool) does not encode the map again on every call, and
// marshals as a map otherwise. Its own JSON Schema is an object.
type Schema map[string]any

// wireBytes maps the maps the registry handed out (by identity) to their
// JSON, encoded once. An entry keeps its map alive (so no other map can
// take its address): a registry's schemas stay for the life of the
// process, which is what a server's one registry does anyway; a program
// that builds many registries (the tests) keeps each one's schemas.
var wireBytes sync.Map // unsafe.Pointer -> json.RawMessage

// MarshalJSON implements json.Marshaler.
func (s Schema) MarshalJSON() ([]byte, error) {
	if s == nil {
		return []byte("null"), nil
	}
	if b, ok := wireBytes.Load(reflect.ValueOf(s).UnsafePointer()); ok {
		return b.(json.RawMessage), nil
	}
	return marshalWire(map[string]any(s))
}

// JSONSchema is the schema of a schema: an object.
func (Schema) JSONSchema() *jsonschema.Schema { return &jsonschema.Schema{Type: "object"} }
