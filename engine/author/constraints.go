package author

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/errkind"
)

// Constraint is a field whose values are restricted.
type Constraint struct {
	Name          string   `json:"name"`
	AllowedValues []any    `json:"allowed_values,omitempty"`
	CaseSensitive bool     `json:"case_sensitive"`
	Min           *float64 `json:"min,omitempty"`
	Max           *float64 `json:"max,omitempty"`
	Pattern       string   `json:"pattern,omitempty"`
}

// Constraints is a step's config fields with their legal values.
type Constraints struct {
	StepName          string               `json:"step_name"`
	ConfigClass       string               `json:"config_class"`
	FieldCount        int                  `json:"field_count"`
	Fields            []config.Requirement `json:"fields"`
	Derived           []config.Requirement `json:"derived_fields"`
	RequiredNoDefault []string             `json:"required_no_default"`
	ConstrainedFields []Constraint         `json:"constrained_fields"`
}

// ConfigConstraints lists a step's input fields (essential and system),
// its derived fields, the required fields without a default and every
// field with allowed values, bounds or a pattern. Allowed values are
// compared exactly (case-sensitive).
func ConfigConstraints(schema *config.Schema, st *catalog.Step) (*Constraints, error) {
	class, ok := schema.ClassForStep(st.Type)
	if !ok {
		return nil, errkind.Errorf(errkind.NotFound, "no config class for step %s", st.Type)
	}
	c := &Constraints{StepName: string(st.Type), ConfigClass: class.Name, Fields: class.Requirements(), Derived: class.DerivedFields(),
		RequiredNoDefault: []string{}, ConstrainedFields: []Constraint{}}
	if c.Fields == nil {
		c.Fields = []config.Requirement{}
	}
	if c.Derived == nil {
		c.Derived = []config.Requirement{}
	}
	c.FieldCount = len(c.Fields) + len(c.Derived)
	for _, f := range class.Fields {
		if f.Tier == catalog.TierDerived {
			continue
		}
		if f.Required() && f.Default == nil {
			c.RequiredNoDefault = append(c.RequiredNoDefault, f.Name)
		}
		if len(f.Allowed) > 0 || f.Min != nil || f.Max != nil || f.Pattern != "" {
			c.ConstrainedFields = append(c.ConstrainedFields, Constraint{Name: f.Name, AllowedValues: f.Allowed, CaseSensitive: true, Min: f.Min, Max: f.Max, Pattern: f.Pattern})
		}
	}
	return c, nil
}

// ConfigProblem is one bad value found by PreflightConfig.
type ConfigProblem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
	Type    string `json:"type"` // unknown_field, derived_field, missing, type, allowed, range, pattern, ...
	Allowed []any  `json:"allowed_values,omitempty"`
}

// PreflightConfig validates values against a step's config class: every
// key must be a declared, non-derived field and every value must pass its
// declaration; unless partial, every essential field without a default
// must be given. It returns every problem, sorted by field.
func PreflightConfig(schema *config.Schema, st *catalog.Step, values map[string]any, partial bool) (string, []ConfigProblem, error) {
	class, ok := schema.ClassForStep(st.Type)
	if !ok {
		return "", nil, errkind.Errorf(errkind.NotFound, "no config class for step %s", st.Type)
	}
	var probs []ConfigProblem
	known := map[string]any{}
	for k, v := range values {
		f, ok := class.Field(k)
		switch {
		case !ok:
			probs = append(probs, ConfigProblem{Field: k, Type: "unknown_field", Message: fmt.Sprintf("%s is not a field of %s%s", k, class.Name, suggest(class, k))})
		case f.Tier == catalog.TierDerived:
			probs = append(probs, ConfigProblem{Field: k, Type: "derived_field", Message: fmt.Sprintf("%s is derived (%s) and cannot be set", k, f.Derivation)})
		default:
			known[k] = v
		}
	}
	if partial {
		for k, v := range known {
			f, _ := class.Field(k)
			if v == nil {
				continue
			}
			if msg := f.CheckValue(v); msg != "" {
				probs = append(probs, ConfigProblem{Field: k, Type: kindOf(msg), Message: msg, Allowed: f.Allowed})
			}
		}
	} else {
		_, err := schema.NewConfig(class.Name, "", known)
		var ve *config.ValidationError
		switch {
		case err == nil:
		case errors.As(err, &ve):
			for _, fe := range ve.Errors {
				field := fe.Field
				if field == "" {
					field = fe.Path
				}
				probs = append(probs, ConfigProblem{Field: field, Type: fe.Kind, Message: fe.Message, Allowed: fe.Allowed})
			}
		default:
			return class.Name, nil, err
		}
	}
	sort.SliceStable(probs, func(i, j int) bool { return probs[i].Field < probs[j].Field })
	return class.Name, probs, nil
}

func kindOf(msg string) string {
	switch {
	case strings.Contains(msg, "allowed values"):
		return config.KindAllowed
	case strings.Contains(msg, "minimum") || strings.Contains(msg, "maximum"):
		return config.KindRange
	case strings.Contains(msg, "pattern"):
		return config.KindPattern
	}
	return config.KindType
}

func suggest(class *config.Class, name string) string {
	if best := class.ClosestField(name); best != "" {
		return fmt.Sprintf(" (did you mean %s?)", best)
	}
	return ""
}
