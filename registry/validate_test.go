package registry

import (
	"encoding/json"
	"strings"
	"testing"
)

// Keywords the struct tags cannot give (bounds added to a compiled schema,
// alternatives, const, boolean schemas), on a hand-written schema.
func TestValidatorKeywords(t *testing.T) {
	var schema map[string]any
	if err := json.Unmarshal([]byte(`{
		"type": "object",
		"properties": {
			"env": {"type": "object", "maxProperties": 2, "minProperties": 1},
			"mode": {"const": "fast"},
			"either": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "integer"}}]},
			"one": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 0}]},
			"never": false,
			"free": true
		},
		"additionalProperties": false
	}`), &schema); err != nil {
		t.Fatal(err)
	}
	root, err := compileNode(schema, "(schema)")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ args, want string }{
		{`{"env": {"a": 1}, "mode": "fast", "either": [1, 2], "one": -1, "free": {"x": null}}`, ""},
		{`{"env": {"a": 1, "b": 2, "c": 3}}`, "env: must have at most 2 key(s), has 3"},
		{`{"env": {}}`, "env: must have at least 1 key(s), has 0"},
		{`{"mode": "slow"}`, `mode: must be one of "fast"`},
		{`{"either": [1, "x"]}`, "either: matches none of the allowed forms"},
		{`{"either": "s"}`, ""},
		{`{"one": 3}`, "one: matches more than one of the allowed forms"},
		{`{"never": 1}`, "never: no value is allowed here"},
	} {
		errs := validateRaw(root, []byte(c.args))
		got := strings.Join(errs, "; ")
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: want %q, got %q", c.args, c.want, got)
		}
	}
	if _, err := compileNode(map[string]any{"type": "object", "if": map[string]any{}}, "(schema)"); err == nil || !strings.Contains(err.Error(), `"if" is not supported`) {
		t.Errorf("an unknown keyword compiles: %v", err)
	}
}
