package registry_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/cursus-go/cursus/registry"
)

// TestSchemaJSONOnce: SchemaJSON, OutputSchemaJSON and DataSchemaJSON are
// the JSON of the maps Schema, OutputSchema and DataSchema hand out,
// encoded once: asking for them again allocates nothing. Each map is asked
// for first, as a handler does, before its JSON.
func TestSchemaJSONOnce(t *testing.T) {
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
		m := c.m(tl)
		b := c.want(tl)
		if n := testing.AllocsPerRun(10, func() { _ = c.want(tl) }); n != 0 {
			t.Errorf("%s: the JSON allocates %v times: it is not the bytes encoded once", c.name, n)
		}
		mb, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var x, y any
		if json.Unmarshal(mb, &x) != nil || json.Unmarshal(b, &y) != nil || !reflect.DeepEqual(x, y) {
			t.Errorf("%s: the map marshals to %s, the JSON is %s", c.name, mb, b)
		}
	}
}
