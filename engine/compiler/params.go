package compiler

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strings"

	"github.com/cursus-go/cursus/engine/config"
)

// Pipeline parameters a config declares.
//
// Besides the four default parameters, a config may declare its own in an
// extra field pipeline_parameters (in any config of the file; the same name
// declared twice must be declared identically):
//
//	"pipeline_parameters": [
//	  {"name": "InputData", "type": "String", "default_value": "s3://bucket/raw/"},
//	  {"name": "TrainingInstanceType", "type": "String", "default_value": "ml.m5.xlarge"}
//	]
//
// A config value written "{{Parameters.<name>}}" then becomes the reference
// {"Get": "Parameters.<name>"} where the definition accepts an expression:
// a config-sourced input (data_source, ...) and a job's instance type. The
// execution can override the value (StartPipelineExecution parameters).

// ParameterError is returned for a malformed pipeline_parameters entry or
// a reference to an undeclared parameter.
type ParameterError struct {
	ConfigKey string
	Reason    string
}

// Error implements the error interface.
func (e *ParameterError) Error() string {
	return fmt.Sprintf("config %s: pipeline_parameters: %s", e.ConfigKey, e.Reason)
}

var paramNameRE = regexp.MustCompile(`^[A-Za-z0-9\-_]{1,64}$`)

var paramRefRE = regexp.MustCompile(`^\{\{\s*Parameters\.([A-Za-z0-9\-_]{1,64})\s*\}\}$`)

// declaredParameters collects the pipeline_parameters of every config.
func declaredParameters(set *config.Set) ([]Parameter, error) {
	reserved := map[string]bool{ParamExecutionS3Prefix: true, ParamKMSKey: true, ParamSecurityGroupID: true, ParamVPCSubnet: true}
	var out []Parameter
	byName := map[string]Parameter{}
	for _, c := range set.Configs() {
		raw, ok := c.Get("pipeline_parameters")
		if !ok || raw == nil {
			continue
		}
		list, ok := raw.([]any)
		if !ok {
			return nil, &ParameterError{string(c.Key), "want a list of {name, type, default_value}"}
		}
		for i, x := range list {
			m, ok := x.(map[string]any)
			if !ok {
				return nil, &ParameterError{string(c.Key), fmt.Sprintf("item %d: want {name, type, default_value}", i)}
			}
			p, err := parseParameter(m)
			if err != nil {
				return nil, &ParameterError{string(c.Key), fmt.Sprintf("item %d: %v", i, err)}
			}
			if reserved[p.Name] {
				return nil, &ParameterError{string(c.Key), fmt.Sprintf("%s is a default parameter of every pipeline", p.Name)}
			}
			if prev, dup := byName[p.Name]; dup {
				if !reflect.DeepEqual(prev, p) {
					return nil, &ParameterError{string(c.Key), fmt.Sprintf("%s is declared differently in two configs", p.Name)}
				}
				continue
			}
			byName[p.Name] = p
			out = append(out, p)
		}
	}
	return out, nil
}

func parseParameter(m map[string]any) (Parameter, error) {
	for k := range m {
		switch k {
		case "name", "type", "default_value":
		default:
			return Parameter{}, fmt.Errorf("unknown key %q (want name, type, default_value)", k)
		}
	}
	name, _ := m["name"].(string)
	if !paramNameRE.MatchString(name) {
		return Parameter{}, fmt.Errorf("name %q: 1-64 letters, digits, - and _", name)
	}
	typ, _ := m["type"].(string)
	if typ == "" {
		typ = "String"
	}
	switch typ {
	case "String", "Integer", "Float", "Boolean":
	default:
		return Parameter{}, fmt.Errorf("%s: type %q: want String, Integer, Float or Boolean", name, typ)
	}
	p := Parameter{Name: name, Type: typ}
	def, has := m["default_value"]
	if !has || def == nil {
		return p, nil
	}
	switch typ {
	case "String":
		s, ok := def.(string)
		if !ok || len(s) > 4096 {
			return p, fmt.Errorf("%s: a String default must be a string of at most 4096 characters", name)
		}
		p.DefaultValue = s
	case "Integer":
		switch n := def.(type) {
		case int64:
			p.DefaultValue = n
		case float64:
			if n != math.Trunc(n) {
				return p, fmt.Errorf("%s: an Integer default must be whole", name)
			}
			p.DefaultValue = int64(n)
		default:
			return p, fmt.Errorf("%s: an Integer default must be a number", name)
		}
	case "Float":
		switch n := def.(type) {
		case int64:
			p.DefaultValue = float64(n)
		case float64:
			p.DefaultValue = n
		default:
			return p, fmt.Errorf("%s: a Float default must be a number", name)
		}
	case "Boolean":
		b, ok := def.(bool)
		if !ok {
			return p, fmt.Errorf("%s: a Boolean default must be true or false", name)
		}
		p.DefaultValue = b
	}
	return p, nil
}

// paramRef turns a "{{Parameters.X}}" value into a Get, checking X is a
// declared parameter. ok is false when s is not such a reference.
func (e *buildEnv) paramRef(field, s string) (ref Get, ok bool, err error) {
	m := paramRefRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return Get{}, false, nil
	}
	if _, declared := e.params[m[1]]; !declared {
		return Get{}, true, &fieldError{field, fmt.Sprintf("%s refers to pipeline parameter %s, which no config declares in pipeline_parameters", s, m[1])}
	}
	return Param(m[1]), true, nil
}

// instanceType is nodePlan.instanceType with parameter references: it
// returns the value for the definition (a literal or a Get) and the
// instance type the image is chosen for (a parameter's default).
func (e *buildEnv) instanceType(p *nodePlan, def string) (forImage string, value any, err error) {
	s, err := p.instanceType(def)
	if err != nil {
		return "", nil, err
	}
	ref, ok, err := e.paramRef(p.instanceTypeField(), s)
	if err != nil || !ok {
		return s, s, err
	}
	d, _ := e.params[strings.TrimPrefix(ref.Get, "Parameters.")].DefaultValue.(string)
	if d == "" {
		return "", nil, &fieldError{p.instanceTypeField(), fmt.Sprintf("%s: an instance-type parameter needs a String default, used to choose the container image", s)}
	}
	return d, ref, nil
}
