package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
)

// LegacyHyperparametersKey is the free-form object in which an older
// config.json keeps a training step's hyperparameters. A class whose
// hyperparameters are typed fields (LiftsHyperparameters) reads its keys
// as those fields; see liftLegacy.
const LegacyHyperparametersKey = "hyperparameters"

// HyperparameterFields returns the class's typed hyperparameter fields
// (catalog.ConfigField.Hyperparameter), in declaration order.
func (c *Class) HyperparameterFields() []catalog.ConfigField {
	var out []catalog.ConfigField
	for _, f := range c.Fields {
		if f.Hyperparameter {
			out = append(out, f)
		}
	}
	return out
}

// LiftsHyperparameters reports whether the class reads a legacy
// hyperparameters object into typed fields: it has hyperparameter fields
// and no field named hyperparameters (a step that still declares the
// free-form object keeps it as its own field).
func (c *Class) LiftsHyperparameters() bool {
	if c.HasField(LegacyHyperparametersKey) {
		return false
	}
	for _, f := range c.Fields {
		if f.Hyperparameter {
			return true
		}
	}
	return false
}

// legacyObjectKeys returns the keys of values' legacy hyperparameters
// object when the class lifts it (nil otherwise). A caller that merges
// lower-precedence values (config.json's shared section, merge_save's
// base values) under a config's own skips these names, so the config's
// own legacy object wins over them as its top-level values would.
func (c *Class) legacyObjectKeys(values map[string]any) map[string]bool {
	if !c.LiftsHyperparameters() {
		return nil
	}
	m, ok := normalize(values[LegacyHyperparametersKey]).(map[string]any)
	if !ok {
		return nil
	}
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// liftLegacy returns input with a legacy hyperparameters object read into
// the class's fields (input itself is not changed): each key naming a
// field of the class becomes that field's value; a top-level value of the
// same field that differs is a KindConflict problem naming both; a key
// naming no field stays in a hyperparameters object of its own, an extra
// value that Config.UnknownKeys reports as hyperparameters.<key>;
// serialisation markers (__model_type__, ...) are dropped. Reading the
// object adds a deprecation warning. prefix starts problem paths and
// warnings (the config key or node).
func (c *Class) liftLegacy(prefix string, input map[string]any) (map[string]any, []FieldError, []string) {
	raw, present := input[LegacyHyperparametersKey]
	if !present || raw == nil || !c.LiftsHyperparameters() {
		return input, nil, nil
	}
	path := prefix + "." + LegacyHyperparametersKey
	obj, ok := normalize(raw).(map[string]any)
	if !ok {
		return input, []FieldError{{Path: path, Field: LegacyHyperparametersKey, Kind: KindType, Value: normalize(raw),
			Message: fmt.Sprintf("the legacy hyperparameters value must be an object of field values; %s declares its hyperparameters as fields (%s)", c.Name, strings.Join(hyperparameterNames(c), ", "))}}, nil
	}
	out := make(map[string]any, len(input)+len(obj))
	for k, v := range input {
		if k != LegacyHyperparametersKey {
			out[k] = v
		}
	}
	var problems []FieldError
	var lifted []string
	leftover := map[string]any{}
	for _, k := range mapkeys.Sorted(obj) {
		v := obj[k]
		if strings.HasPrefix(k, "__") || metaKeys[k] {
			continue
		}
		if !c.HasField(k) {
			leftover[k] = v
			continue
		}
		if top, has := input[k]; has && top != nil {
			if !equalValues(normalize(top), v) {
				problems = append(problems, FieldError{Path: path + "." + k, Field: k, Kind: KindConflict, Value: v,
					Message: fmt.Sprintf("hyperparameters.%s = %s conflicts with the top-level %s = %s; keep only the top-level field %s", k, canonicalJSON(v), k, canonicalJSON(normalize(top)), k)})
			}
			lifted = append(lifted, k)
			continue
		}
		out[k] = v
		lifted = append(lifted, k)
	}
	if v, ok := legacyObjective(c, out); ok {
		out["objective"] = v
		lifted = append(lifted, "objective (from multiclass_categories)")
	}
	msg := fmt.Sprintf("%s: the free-form hyperparameters object is deprecated: %s declares its hyperparameters as fields", path, c.Name)
	if len(lifted) > 0 {
		msg += fmt.Sprintf("; read %s as top-level fields (saving the config writes them there)", strings.Join(lifted, ", "))
	}
	if len(leftover) > 0 {
		out[LegacyHyperparametersKey] = leftover
		names := mapkeys.Sorted(leftover)
		for i, n := range names {
			names[i] = "hyperparameters." + n
		}
		msg += fmt.Sprintf("; %s name(s) no field of %s and are kept as unknown keys", strings.Join(names, ", "), c.Name)
	}
	return out, problems, []string{msg}
}

// legacyObjective returns the objective an older config leaves out: its
// hyperparameters class derived it from multiclass_categories (two
// classes binary:logistic, more multi:softprob). ok is false when the
// class has no such hyperparameter, the values already set it, or there
// are no categories to derive it from.
func legacyObjective(c *Class, values map[string]any) (string, bool) {
	f, has := c.Field("objective")
	if !has || !f.Hyperparameter || values["objective"] != nil {
		return "", false
	}
	cats, ok := values["multiclass_categories"].([]any)
	if !ok || len(cats) < 2 {
		return "", false
	}
	v := "multi:softprob"
	if len(cats) == 2 {
		v = "binary:logistic"
	}
	if len(f.Allowed) > 0 && !allowed(f.Allowed, v) {
		return "", false
	}
	return v, true
}

// hyperparameterNames lists the class's hyperparameter field names.
func hyperparameterNames(c *Class) []string {
	var out []string
	for _, f := range c.HyperparameterFields() {
		out = append(out, f.Name)
	}
	return out
}

// UnknownKeys returns the keys of the config that name no field of its
// class, sorted: the extra values (Extras), except that the keys left in
// a lifted legacy hyperparameters object are reported one by one as
// "hyperparameters.<key>" (see LegacyHyperparametersKey).
func (c *Config) UnknownKeys() []string {
	var out []string
	for _, k := range c.Extras() {
		if k == LegacyHyperparametersKey && c.Class.LiftsHyperparameters() {
			if m, ok := c.Values[k].(map[string]any); ok {
				for _, sub := range mapkeys.Sorted(m) {
					out = append(out, k+"."+sub)
				}
				continue
			}
		}
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// mergeLegacy merges two legacy hyperparameters objects, the keys of top
// winning over those of under; a value that is not an object is taken as
// it is (the lift reports it).
func mergeLegacy(under, top any) any {
	u, ok1 := normalize(under).(map[string]any)
	t, ok2 := normalize(top).(map[string]any)
	switch {
	case top == nil:
		return under
	case !ok1 || !ok2:
		return top
	}
	out := make(map[string]any, len(u)+len(t))
	for k, v := range u {
		out[k] = v
	}
	for k, v := range t {
		out[k] = v
	}
	return out
}
