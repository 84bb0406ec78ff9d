package registry_test

import (
	"encoding/json"
	"maps"
	"reflect"
	"testing"

	"github.com/cursus-go/cursus/registry"
)

// TestSchemaMarshalsOnce: a registry.Schema holding a map the registry
// handed out marshals to the bytes encoded once (no allocation, the same
// bytes as SchemaJSON, OutputSchemaJSON, DataSchemaJSON); any other map
// marshals as a map, to the same JSON; the schema of a Schema is an
// object. Each map is asked for first, as a handler does, before its
// JSON.
func TestSchemaMarshalsOnce(t *testing.T) {
	for _, c := range []struct {
		name string
		m    func(*registry.ToolDef) map[string]any
		want func(*registry.ToolDef) json.RawMessage
	}{
		{"input", (*registry.ToolDef).Schema, (*registry.ToolDef).SchemaJSON},
		{"output", (*registry.ToolDef).OutputSchema, (*registry.ToolDef).OutputSchemaJSON},
		{"data", (*registry.ToolDef).DataSchema, (*registry.ToolDef).DataSchemaJSON},
	} {
		_, tl := typedRegistry(t)
		s := registry.Schema(c.m(tl))
		if n := testing.AllocsPerRun(10, func() { _, _ = s.MarshalJSON() }); n != 0 {
			t.Errorf("%s: MarshalJSON allocates %v times: the bytes encoded once are not used", c.name, n)
		}
		b, err := json.Marshal(s)
		if want := c.want(tl); err != nil || string(b) != string(want) {
			t.Fatalf("%s: %s %v, want %s", c.name, b, err, want)
		}
		own := registry.Schema(maps.Clone(c.m(tl)))
		ob, err := json.Marshal(own)
		if err != nil {
			t.Fatal(err)
		}
		var x, y any
		if json.Unmarshal(ob, &x) != nil || json.Unmarshal(b, &y) != nil || !reflect.DeepEqual(x, y) {
			t.Errorf("%s: a copy marshals to %s, want the same JSON as %s", c.name, ob, b)
		}
		if n := testing.AllocsPerRun(10, func() { _, _ = own.MarshalJSON() }); n == 0 {
			t.Errorf("%s: a map the registry did not hand out marshalled from cached bytes", c.name)
		}
	}
	if b, err := json.Marshal(map[string]registry.Schema{"s": nil}); err != nil || string(b) != `{"s":null}` {
		t.Errorf("nil Schema: %s %v", b, err)
	}
	if typ := (registry.Schema{}).JSONSchema().Type; typ != "object" {
		t.Errorf("a Schema's schema has type %q, want object", typ)
	}
}
