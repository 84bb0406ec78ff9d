package config

import (
	"github.com/cursus-go/cursus/engine/catalog"
)

// builtinDerivations are the templates (catalog.ExpandDerivation syntax) of
// the well-known derived properties, used when a derived field
// is declared without a `derive:` template.
var builtinDerivations = map[string]string{
	"aws_region":              "{region|aws_region}",
	"pipeline_name":           "{author}-{service_name}-{model_class}-{region}",
	"pipeline_description":    "{service_name} {model_class} Model {region}",
	"pipeline_s3_loc":         "s3://{bucket}/MODS/{pipeline_name}_{pipeline_version}",
	"effective_source_dir":    "{processing_source_dir|or:source_dir}",
	"effective_instance_type": "{use_large_processing_instance|if:processing_instance_type_large:processing_instance_type_small}",
	"script_path":             "{effective_source_dir}/{processing_entry_point}",
	"hyperparameter_file":     "{pipeline_s3_loc}/hyperparameters/{region}_hyperparameters.json",
}

// derivationOf returns the template of a derived field: its own, or the
// built-in one for a well-known name, or "".
func derivationOf(f catalog.ConfigField) string {
	if f.Derivation != "" {
		return f.Derivation
	}
	if f.Tier == catalog.TierDerived {
		return builtinDerivations[f.Name]
	}
	return ""
}

// dynamicDefault computes the default of a non-derived field declared with a
// `derive:` template and no static default (e.g. current_date = "{today}",
// model_package_description = "{pipeline_description}"); the template may
// read values and derived values. It returns nil when the template cannot be
// rendered.
func (c *Class) dynamicDefault(f catalog.ConfigField, values, derived map[string]any) any {
	if f.Derivation == "" {
		return nil
	}
	s, err := catalog.ExpandDerivation(f.Derivation, func(name string) (any, bool) {
		if v, ok := values[name]; ok && v != nil {
			return v, true
		}
		v, ok := derived[name]
		return v, ok && v != nil
	})
	if err != nil {
		return nil
	}
	v, msg := coerce(f.Type, s)
	if msg != "" {
		return nil
	}
	return v
}

// computeDerived evaluates every derived field of the class over values,
// following references between derived fields (a cycle, or a placeholder
// without value, yields null). The result holds only non-null values.
func (c *Class) computeDerived(values map[string]any) map[string]any {
	out := map[string]any{}
	if len(c.derived) == 0 {
		return out
	}
	state := map[string]int{} // 0 unvisited, 1 in progress, 2 done
	var get func(string) (any, bool)
	get = func(name string) (any, bool) {
		f, declared := c.Field(name)
		if !declared || f.Tier != catalog.TierDerived {
			v, ok := values[name]
			return v, ok && v != nil
		}
		switch state[name] {
		case 1:
			return nil, false // cycle
		case 2:
			v, ok := out[name]
			return v, ok
		}
		state[name] = 1
		defer func() { state[name] = 2 }()
		src := derivationOf(f)
		if src == "" {
			return nil, false
		}
		s, err := catalog.ExpandDerivation(src, get)
		if err != nil {
			return nil, false
		}
		out[name] = s
		return s, true
	}
	for _, name := range c.derived {
		get(name)
	}
	return out
}
