package compiler_test

import (
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
)

// CheckConfigs holds a gate's values to each other as the compiler does when it builds the gate:
// an ordering comparison with a text threshold is refused, naming the field; a number, a numeric
// parameter and In with a list of text pass.
func TestCheckConfigsGateRules(t *testing.T) {
	schema, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	check := func(gate map[string]any, params ...map[string]any) []config.FieldError {
		t.Helper()
		set, err := config.Load(nil, schema, gatedConfig(t, gate, params...))
		if err != nil {
			t.Fatal(err)
		}
		errs, err := compiler.CheckConfigs(set, nil)
		if err != nil {
			t.Fatal(err)
		}
		return errs
	}
	for name, c := range map[string]struct {
		gate   map[string]any
		params []map[string]any
		field  string
	}{
		"text threshold, >=":  {gate: map[string]any{"threshold": "high", "comparison": ">="}, field: "threshold"},
		"text threshold, <":   {gate: map[string]any{"threshold": "x", "comparison": "<"}, field: "threshold"},
		"boolean, default >=": {gate: map[string]any{"threshold": true, "comparison": nil}, field: "threshold"},
		"In without a list":   {gate: map[string]any{"threshold": 0.5, "comparison": "In"}, field: "threshold"},
		"a String parameter":  {gate: map[string]any{"threshold": "{{Parameters.Cut}}", "comparison": ">"}, params: []map[string]any{{"name": "Cut", "type": "String", "default_value": "0.7"}}, field: "threshold"},
		"nested text, <=":     {gate: map[string]any{"comparison": "Or", "conditions": []any{map[string]any{"metric": "auc_roc", "comparison": "<=", "threshold": "low"}}}, field: "conditions[0].threshold"},
	} {
		errs := check(c.gate, c.params...)
		if len(errs) != 1 || errs[0].Field != c.field || errs[0].Kind != config.KindRule || !strings.HasPrefix(errs[0].Path, "ModelQualityGate.") {
			t.Errorf("%s: %+v, want one rule error at %s", name, errs, c.field)
		}
	}
	for name, c := range map[string]struct {
		gate   map[string]any
		params []map[string]any
	}{
		"a number":          {gate: map[string]any{"threshold": 0.8, "comparison": ">="}},
		"text, ==":          {gate: map[string]any{"threshold": "high", "comparison": "=="}},
		"In of text":        {gate: map[string]any{"threshold": []any{"a", "b"}, "comparison": "In"}},
		"a Float parameter": {gate: map[string]any{"threshold": "{{Parameters.Cut}}", "comparison": ">"}, params: []map[string]any{{"name": "Cut", "type": "Float", "default_value": 0.7}}},
	} {
		if errs := check(c.gate, c.params...); len(errs) != 0 {
			t.Errorf("%s: %+v, want none", name, errs)
		}
	}
}
