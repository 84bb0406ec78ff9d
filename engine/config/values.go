package config

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
)

// Typed values. Every value held by a Config is one of:
//
//	nil, string, int64, float64, bool   (scalar fields)
//	[]any                               (list fields: JSON arrays, usually of strings)
//	map[string]any                      (map fields)
//	any of the above                    (any fields and extras)
//
// Nested numbers are int64 (written without fraction or exponent) or float64.
//
// normalize turns decoded JSON (json.Number or float64) and Go literals into
// that form; coerce checks and converts a value for a declared field type.

// normalize converts an arbitrary JSON-like value into the canonical form:
// integral JSON numbers written without a fraction or exponent become int64,
// other numbers float64, containers are copied, `__type_info__` wrappers are
// unwrapped. Unsupported Go types are returned as-is (coerce reports them).
func normalize(v any) any {
	switch x := v.(type) {
	case nil, string, bool, int64, float64:
		return x
	case json.Number:
		return numberValue(string(x))
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case int16:
		return int64(x)
	case int8:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint:
		if uint64(x) <= math.MaxInt64 {
			return int64(x)
		}
		return float64(x)
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x)
		}
		return float64(x)
	case float32:
		return float64(x)
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case map[string]any:
		if inner, ok := unwrapTypeInfo(x); ok {
			return normalize(inner)
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	}
	return v
}

// unwrapTypeInfo recognises the container wrapper a Python serializer writes
// {"__type_info__": "list|dict|tuple|set", "value": ...}.
func unwrapTypeInfo(m map[string]any) (any, bool) {
	ti, ok := m["__type_info__"].(string)
	if !ok || len(m) != 2 {
		return nil, false
	}
	v, ok := m["value"]
	if !ok {
		return nil, false
	}
	switch ti {
	case "list", "tuple", "set", "dict":
		return v, true
	}
	return nil, false
}

func numberValue(s string) any {
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	return f
}

// jsonKind names the JSON kind of a normalized value for messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64:
		return "integer"
	case float64:
		return "number"
	case []any, []string:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// typeLabel is the human name of a declared type, used in messages.
func typeLabel(t catalog.FieldType) string {
	switch t {
	case catalog.FieldString:
		return "a string"
	case catalog.FieldInt:
		return "an integer"
	case catalog.FieldFloat:
		return "a number"
	case catalog.FieldBool:
		return "a boolean"
	case catalog.FieldList:
		return "an array"
	case catalog.FieldMap:
		return "an object"
	}
	return "any JSON value"
}

// coerce converts a value (any Go or decoded-JSON form) to the canonical
// form of the declared type, or returns a message saying why it cannot.
// nil is returned unchanged (callers decide whether null is allowed).
func coerce(t catalog.FieldType, v any) (any, string) {
	v = normalize(v)
	if v == nil {
		return nil, ""
	}
	bad := func() (any, string) {
		return nil, fmt.Sprintf("expected %s, got %s", typeLabel(t), jsonKind(v))
	}
	switch t {
	case catalog.FieldString:
		if s, ok := v.(string); ok {
			return s, ""
		}
		return bad()
	case catalog.FieldInt:
		switch x := v.(type) {
		case int64:
			return x, ""
		case float64:
			if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
				return int64(x), ""
			}
			return nil, fmt.Sprintf("expected an integer, got %v", x)
		}
		return bad()
	case catalog.FieldFloat:
		switch x := v.(type) {
		case int64:
			return float64(x), ""
		case float64:
			return x, ""
		}
		return bad()
	case catalog.FieldBool:
		if b, ok := v.(bool); ok {
			return b, ""
		}
		return bad()
	case catalog.FieldList:
		arr, ok := v.([]any)
		if !ok {
			return bad()
		}
		if !isJSONValue(arr) {
			return nil, "not a JSON array"
		}
		return arr, ""
	case catalog.FieldMap:
		if m, ok := v.(map[string]any); ok {
			return m, ""
		}
		return bad()
	case catalog.FieldAny:
		if !isJSONValue(v) {
			return nil, fmt.Sprintf("not a JSON value (%T)", v)
		}
		return v, ""
	}
	return nil, fmt.Sprintf("unknown field type %q", t)
}

// isJSONValue reports whether a normalized value is representable in JSON.
func isJSONValue(v any) bool {
	switch x := v.(type) {
	case nil, string, bool, int64:
		return true
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case []string:
		return true
	case []any:
		for _, e := range x {
			if !isJSONValue(e) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, e := range x {
			if !isJSONValue(e) {
				return false
			}
		}
		return true
	}
	return false
}

// equalValues compares two normalized values; numbers compare by value.
func equalValues(a, b any) bool {
	if fa, ok := toFloat(a); ok {
		if fb, ok := toFloat(b); ok {
			return fa == fb
		}
		return false
	}
	if sa, ok := a.([]string); ok {
		a = normalize(sa)
	}
	if sb, ok := b.([]string); ok {
		b = normalize(sb)
	}
	return reflect.DeepEqual(a, b)
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case int:
		return float64(x), true
	}
	return 0, false
}

// stringOf renders a value for derive templates and keys: strings as-is,
// numbers and booleans as JSON, lists comma-joined, null as "".
func stringOf(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return pyFloat(x)
	case []string:
		return strings.Join(x, ",")
	}
	b, err := json.Marshal(toJSON(v))
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// pyFloat formats a float the way Python's repr does (1.0, 0.7, 1e-05,
// 1e+16), so integral floats keep a fraction and stay floats on reload.
func pyFloat(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-4 || abs >= 1e16) {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		// Go writes e+16 / e-05 like Python; nothing to adjust.
		return s
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// toJSON converts a normalized value into something encoding/json writes
// faithfully: floats become json.Number in Python repr form so integral
// floats keep their ".0".
func toJSON(v any) any {
	switch x := v.(type) {
	case float64:
		return json.Number(pyFloat(x))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = toJSON(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = toJSON(e)
		}
		return out
	}
	return v
}

// canonicalJSON is a stable encoding used to compare values across configs.
func canonicalJSON(v any) string {
	b, err := json.Marshal(toJSON(v))
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

// cloneValue deep-copies a normalized value.
func cloneValue(v any) any {
	switch x := v.(type) {
	case []string:
		return append([]string(nil), x...)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = cloneValue(e)
		}
		return out
	}
	return v
}
