package compiler

import (
	"errors"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/config"
)

// CheckConfigs runs the checks of a config's values that involve more
// than one of its fields, which a field's own declaration cannot state:
// a gate's comparison and threshold (an ordering comparison needs a
// number or a numeric pipeline parameter; In needs a list), the
// conditions it combines, the parameters they refer to. The compiler runs
// the same checks when it builds the step; config.merge_save runs them
// before it writes, so a config that will not compile is not saved. Each
// problem is a config.FieldError of kind rule, at <config key>.<field>.
// cat is the catalog the configs' step types come from (nil: the
// embedded one).
func CheckConfigs(set *config.Set, cat *catalog.Catalog) ([]config.FieldError, error) {
	if cat == nil {
		var err error
		if cat, err = catalog.Default(); err != nil {
			return nil, err
		}
	}
	declared, err := declaredParameters(set)
	if err != nil {
		var pe *ParameterError
		if errors.As(err, &pe) {
			return []config.FieldError{{Path: string(pe.ConfigKey) + ".pipeline_parameters", Field: "pipeline_parameters", Kind: config.KindRule, Message: pe.Error()}}, nil
		}
		return nil, err
	}
	env := &buildEnv{params: make(map[string]Parameter, len(declared))}
	for _, d := range declared {
		env.params[d.Name] = d
	}
	var out []config.FieldError
	for _, c := range set.Configs() {
		st, ok := cat.Step(c.StepType())
		if !ok || st.Verb != catalog.VerbCondition {
			continue
		}
		p, err := newNodePlan(cat, config.Resolution{Node: catalog.NodeName(c.Key), Config: c})
		if err != nil {
			return nil, err
		}
		err = checkMetric(p)
		if err == nil {
			_, _, _, err = env.gateConditions(p, func(path string) JSONGet { return JSONGetS3("s3://report/metrics.json", path) })
		}
		var fe *fieldError
		switch {
		case errors.As(err, &fe):
			out = append(out, config.FieldError{Path: string(c.Key) + "." + fe.field, Field: fe.field, Kind: config.KindRule, Message: fe.msg})
		case err != nil:
			out = append(out, config.FieldError{Path: string(c.Key), Kind: config.KindRule, Message: err.Error()})
		}
	}
	return out, nil
}
