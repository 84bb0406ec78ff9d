package exporters

import "encoding/json"

// copySchema deep-copies a JSON Schema held as decoded JSON, so an export
// never shares a map or slice with the registry. A nil schema becomes an
// empty object schema.
func copySchema(s map[string]any) map[string]any {
	if s == nil {
		return map[string]any{"type": "object", "properties": map[string]any{}}
	}
	return copyMap(s)
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = deepCopy(v)
	}
	return out
}

// deepCopy copies a decoded JSON value. Scalars are immutable and returned
// as they are; any other Go value (a typed slice or map someone put into a
// schema) is copied through a JSON round trip, which is what a host would
// see anyway.
func deepCopy(v any) any {
	switch x := v.(type) {
	case nil, bool, string, float64, float32, int, int64, int32, uint, uint64, uint32, json.Number:
		return x
	case map[string]any:
		return copyMap(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	case []string:
		return append([]string(nil), x...)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return x
		}
		var out any
		if err := json.Unmarshal(b, &out); err != nil {
			return x
		}
		return out
	}
}
