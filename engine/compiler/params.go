package compiler

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/internal/lazyre"
)

// Pipeline parameters.
//
// A definition declares only the parameters some step uses, each with a
// default, so an execution started without parameters runs:
// EXECUTION_S3_PREFIX (where every output goes; default: the config's
// pipeline_s3_loc), KMS_ENCRYPTION_KEY_PARAM (the KMS key of volumes and
// outputs; declared when a config sets kms_key_id, which is its default),
// SECURITY_GROUP_ID and VPC_SUBNET (declared when a config refers to them;
// they have no default unless pipeline_parameters gives one, which makes
// the pipeline not deployable) and the parameters the configs declare.
//
// A config may declare its own in an extra field pipeline_parameters (in
// any config of the file, or in configuration.shared for all of them; the
// same name declared twice must be declared identically). Declaring one of
// the four built-in names gives it a default (it must stay a String):
//
//	"pipeline_parameters": [
//	  {"name": "InputData", "type": "String", "default_value": "s3://bucket/raw/"},
//	  {"name": "TrainingInstanceType", "type": "String", "default_value": "ml.m5.xlarge"}
//	]
//
// A config value written "{{Parameters.<name>}}" (or one of the default
// parameters) then becomes the reference {"Get": "Parameters.<name>"}
// wherever the definition takes an expression for it: a config-sourced
// input's S3 URI, instance types and counts, volume sizes, max runtimes, an
// image URI, environment values (contract variables and the env map),
// container arguments, training hyperparameters, subnets and security
// groups, the transform's content type, accept, split and filters, the
// model package's group, description, approval status and supported types,
// and the tuning strategy, objective type, early stopping and job limits.
// A text place (an environment value, an argument, a hyperparameter) takes
// an Integer, Float or Boolean parameter as {"Std:Join": {"On": "",
// "Values": [{"Get": ...}]}}, as the SDK's to_string() does; a list value
// with references becomes a Std:Join on ",". A number place needs an
// Integer parameter.
//
// Everywhere else the compiler needs the literal value while it builds the
// definition (entry points and source directories it uploads, framework
// versions and the region it chooses images by, the role, caching, the
// objective metric and search space it checks, config-file inputs it
// writes, objects it renders as JSON) and refuses a reference with a
// *StepBuildError naming the field. The execution can override a
// parameter's value (StartPipelineExecution parameters).

// ParameterError is returned for a malformed pipeline_parameters entry or
// a reference to an undeclared parameter.
type ParameterError struct {
	ConfigKey catalog.ConfigKey
	Reason    string
}

// Error implements the error interface.
func (e *ParameterError) Error() string {
	return fmt.Sprintf("config %s: pipeline_parameters: %s", e.ConfigKey, e.Reason)
}

// Kind implements errkind.Kinded: InvalidInput.
func (e *ParameterError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: the config that declares it.
func (e *ParameterError) Details() map[string]any { return map[string]any{"config_key": e.ConfigKey} }

// paramRefRE matches a "{{Parameters.<name>}}" string; paramRefName
// bounds the name at 64 bytes (a {1,64} here compiles to 64 copies of the
// class).
var paramRefRE = lazyre.New(`^\{\{\s*Parameters\.([A-Za-z0-9\-_]+)\s*\}\}$`)

// builtinParameter reports whether name is one of the compiler's four
// parameters.
func builtinParameter(name string) bool {
	switch name {
	case ParamExecutionS3Prefix, ParamKMSKey, ParamSecurityGroupID, ParamVPCSubnet:
		return true
	}
	return false
}

// parameters are the parameters the steps may use, in declaration order:
// the four built-in ones (EXECUTION_S3_PREFIX defaulting to prefix, the
// KMS key defaulting to the configs' kms_key_id), a user declaration of a
// built-in name replacing it, then the parameters the configs declare.
// usedParameters later keeps those some step uses.
func (pl *plan) parameters(prefix string) ([]Parameter, error) {
	declared, err := declaredParameters(pl.set)
	if err != nil {
		return nil, err
	}
	kms, err := pl.kmsDefault()
	if err != nil {
		return nil, err
	}
	params := []Parameter{
		{Name: ParamExecutionS3Prefix, Type: "String", DefaultValue: nonEmptyString(prefix)},
		{Name: ParamKMSKey, Type: "String", DefaultValue: nonEmptyString(kms)},
		{Name: ParamSecurityGroupID, Type: "String"},
		{Name: ParamVPCSubnet, Type: "String"},
	}
	for _, d := range declared {
		if !builtinParameter(d.Name) {
			params = append(params, d)
			continue
		}
		for i := range params {
			if params[i].Name == d.Name && d.DefaultValue != nil {
				params[i].DefaultValue = d.DefaultValue
			}
		}
	}
	return params, nil
}

// usedParameterNames adds to used each <name> of a
// "Get":"Parameters.<name>" in text (a name of 1-64 letters, digits, - and
// _ closed by its quote).
func usedParameterNames(text []byte, used map[string]bool) {
	ref := []byte(`"Get":"Parameters.`)
	for {
		i := bytes.Index(text, ref)
		if i < 0 {
			return
		}
		text = text[i+len(ref):]
		n := 0
		for n < len(text) && n <= 64 && isParamNameByte(text[n]) {
			n++
		}
		if n >= 1 && n <= 64 && n < len(text) && text[n] == '"' {
			used[string(text[:n])] = true
		}
	}
}

func isParamNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

func nonEmptyString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// usedParameters returns the parameters some step of the definition refers
// to, in declaration order: those some {"Get":"Parameters.<name>"} of the
// steps' encoding names (steps, encodeSteps). A parameter a config declares
// that no step uses is left out with a warning.
func (e *buildEnv) usedParameters(def *Definition, steps []byte) []Parameter {
	used := map[string]bool{}
	usedParameterNames(steps, used)
	out := []Parameter{}
	for _, p := range def.Parameters {
		if used[p.Name] {
			out = append(out, p)
		} else if !builtinParameter(p.Name) {
			e.warnf("pipeline parameter %s is declared in pipeline_parameters but no step uses it; it is left out of the definition", p.Name)
		}
	}
	return out
}

// declaredParameters collects the pipeline_parameters of every config.
func declaredParameters(set *config.Set) ([]Parameter, error) {
	var out []Parameter
	byName := map[string]Parameter{}
	for _, c := range set.Configs() {
		raw, ok := c.Get("pipeline_parameters")
		if !ok || raw == nil {
			continue
		}
		list, ok := raw.([]any)
		if !ok {
			return nil, &ParameterError{c.Key, "want a list of {name, type, default_value}"}
		}
		for i, x := range list {
			m, ok := x.(map[string]any)
			if !ok {
				return nil, &ParameterError{c.Key, fmt.Sprintf("item %d: want {name, type, default_value}", i)}
			}
			p, err := parseParameter(m)
			if err != nil {
				return nil, &ParameterError{c.Key, fmt.Sprintf("item %d: %v", i, err)}
			}
			if builtinParameter(p.Name) && p.Type != "String" {
				return nil, &ParameterError{c.Key, fmt.Sprintf("%s is a built-in String parameter; declare it with type String to give it a default", p.Name)}
			}
			if prev, dup := byName[p.Name]; dup {
				if !reflect.DeepEqual(prev, p) {
					return nil, &ParameterError{c.Key, fmt.Sprintf("%s is declared differently in two configs", p.Name)}
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
	if !isNameToken(name, "-_") {
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

// paramRefName returns the parameter a "{{Parameters.<name>}}" string
// refers to.
func paramRefName(x any) (string, bool) {
	s, ok := x.(string)
	if !ok {
		return "", false
	}
	m := paramRefRE().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil || len(m[1]) > 64 {
		return "", false
	}
	return m[1], true
}

// isRef reports whether a string is a parameter reference or holds an
// execution variable.
func isRef(s string) bool {
	if _, ok := paramRefName(s); ok {
		return true
	}
	return hasExecRef(s)
}

// findRef returns the first parameter reference or execution variable
// inside a config value (a string, or nested in lists and objects), with
// its path from field.
func findRef(field string, x any) (at, ref string, found bool) {
	switch t := x.(type) {
	case string:
		if isRef(t) {
			return field, t, true
		}
	case []any:
		for i, e := range t {
			if at, ref, found := findRef(fmt.Sprintf("%s[%d]", field, i), e); found {
				return at, ref, true
			}
		}
	case []string:
		for i, e := range t {
			if isRef(e) {
				return fmt.Sprintf("%s[%d]", field, i), e, true
			}
		}
	case map[string]any:
		for _, k := range mapkeys.Sorted(t) {
			if at, ref, found := findRef(field+"."+k, t[k]); found {
				return at, ref, true
			}
		}
	}
	return "", "", false
}

// refusedRef is the error for a parameter reference where the definition
// cannot take one: the compiler needs the value while it builds the
// definition (a name, a choice, a file it uploads, a check), or the
// SageMaker API takes only a literal there.
func refusedRef(field, ref string) error {
	what := "a pipeline parameter reference"
	if hasExecRef(ref) {
		what = "an execution variable reference"
	}
	return &fieldError{field, fmt.Sprintf("%s is %s, but %s cannot be one: the compiler needs its literal value when it builds the definition, or SageMaker takes only a literal there; set a value", strings.TrimSpace(ref), what, field)}
}

// Execution variables.
//
// A config value in a place of the definition that takes an expression
// may name an execution variable, "{{Execution.<name>}}", as the whole
// value ({"Get": "Execution.<name>"}) or inside text
// ("s3://bucket/runs/{{Execution.PipelineExecutionId}}/" becomes a
// Std:Join on "" of the text and the Get). The names are SageMaker's:
// ExecutionVariables. An unknown name, or a variable where the compiler
// needs the literal value, is refused naming the field; no "{{...}}"
// reaches the definition as text (the readiness gate checks that too).

var execRefRE = lazyre.New(`\{\{\s*Execution\.([A-Za-z0-9_\-]*)\s*\}\}`)

// hasExecRef reports whether s holds a "{{Execution.<name>}}".
func hasExecRef(s string) bool {
	return strings.Contains(s, "{{") && execRefRE().MatchString(s)
}

// execExpr returns s with its execution variables as an expression: the
// Get when s is one variable, else a Std:Join on "" of the text pieces and
// the Gets. isRef is false when s holds no variable.
func execExpr(field, s string) (v any, isRef bool, err error) {
	locs := execRefRE().FindAllStringSubmatchIndex(s, -1)
	if len(locs) == 0 {
		return nil, false, nil
	}
	var parts []any
	last := 0
	for _, l := range locs {
		name := s[l[2]:l[3]]
		if !slices.Contains(ExecutionVariables, name) {
			return nil, true, &fieldError{field, fmt.Sprintf("%s names no execution variable %q; SageMaker's are %s", strings.TrimSpace(s[l[0]:l[1]]), name, strings.Join(ExecutionVariables, ", "))}
		}
		if l[0] > last {
			parts = append(parts, s[last:l[0]])
		}
		parts = append(parts, ExecutionVar(name))
		last = l[1]
	}
	if last < len(s) {
		parts = append(parts, s[last:])
	}
	if len(parts) == 1 {
		return parts[0], true, nil
	}
	return JoinOn("", parts...), true, nil
}

// param returns the declared parameter a reference names (the four default
// parameters included).
func (e *buildEnv) param(field, ref, name string) (Parameter, error) {
	prm, declared := e.params[name]
	if !declared {
		return Parameter{}, &fieldError{field, fmt.Sprintf("%s refers to pipeline parameter %s, which no config declares in pipeline_parameters", strings.TrimSpace(ref), name)}
	}
	return prm, nil
}

// textRef returns x as a string expression when it is a parameter
// reference (isRef false otherwise): {"Get": "Parameters.X"} for a String
// parameter; an Integer, Float or Boolean one is converted to text with a
// one-value Std:Join, as the SageMaker SDK's to_string() does.
func (e *buildEnv) textRef(field string, x any) (v any, isRef bool, err error) {
	if s, isStr := x.(string); isStr {
		if v, isRef, err := execExpr(field, s); isRef {
			return v, true, err
		}
	}
	name, ok := paramRefName(x)
	if !ok {
		return nil, false, nil
	}
	prm, err := e.param(field, x.(string), name)
	if err != nil {
		return nil, true, err
	}
	if prm.Type == "String" {
		return Param(name), true, nil
	}
	return JoinOn("", Param(name)), true, nil
}

// textExpr renders a config value for a string place of the definition
// that takes an expression (an environment variable, a container
// argument): FormatValue of a literal, textRef of a reference, and a list
// holding references as a Std:Join on "," (FormatValue joins lists with
// commas). A reference inside an object cannot be rendered into its JSON
// text and is refused.
func (e *buildEnv) textExpr(field string, x any) (any, error) {
	if v, isRef, err := e.textRef(field, x); isRef {
		return v, err
	}
	if list, ok := x.([]any); ok {
		if _, _, found := findRef(field, list); found {
			vals := make([]any, len(list))
			for i, it := range list {
				itemField := fmt.Sprintf("%s[%d]", field, i)
				if name, ok := paramRefName(it); ok {
					if _, err := e.param(itemField, it.(string), name); err != nil {
						return nil, err
					}
					vals[i] = Param(name)
					continue
				}
				if v, isRef, err := e.textRef(itemField, it); isRef {
					if err != nil {
						return nil, err
					}
					vals[i] = v
					continue
				}
				if at, ref, found := findRef(itemField, it); found {
					return nil, refusedRef(at, ref)
				}
				vals[i] = FormatValue(it)
			}
			return JoinOn(",", vals...), nil
		}
	}
	if at, ref, found := findRef(field, x); found {
		return nil, refusedRef(at, ref)
	}
	return FormatValue(x), nil
}

// strExpr returns a string field for a place of the definition that takes
// an expression: the literal (def when unset) or textRef of a reference.
// isLiteral says which, for callers that check literal values.
func (e *buildEnv) strExpr(p *nodePlan, field, def string) (v any, isLiteral bool, err error) {
	if x, ok := p.Values.lookup(field); ok {
		if v, isRef, err := e.textRef(field, x); isRef {
			return v, false, err
		}
	}
	s, err := p.Values.str(field, def)
	return s, true, err
}

// strListExpr returns a list-of-strings field for a place of the
// definition whose items take expressions; each reference becomes textRef.
func (e *buildEnv) strListExpr(p *nodePlan, field string) ([]any, error) {
	x, ok := p.Values.lookup(field)
	if !ok {
		return nil, nil
	}
	items, isList := []any{x}, true
	switch t := x.(type) {
	case []any:
		items = t
	case []string:
		items = make([]any, len(t))
		for i, s := range t {
			items[i] = s
		}
	default:
		isList = false
	}
	out := make([]any, 0, len(items))
	for i, it := range items {
		itemField := field
		if isList {
			itemField = fmt.Sprintf("%s[%d]", field, i)
		}
		if v, isRef, err := e.textRef(itemField, it); isRef {
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			continue
		}
		switch s := it.(type) {
		case string:
			out = append(out, s)
		case float64, int, int64, bool, json.Number:
			out = append(out, FormatValue(s))
		default:
			return nil, &fieldError{field, fmt.Sprintf("want a list of strings, found %s", jsonKind(it))}
		}
	}
	return out, nil
}

// intExpr returns an integer field for a place of the definition that
// takes an expression: the literal, checked against [min, max] (max 0 =
// unbounded), def when unset, or the reference to an Integer parameter.
func (e *buildEnv) intExpr(p *nodePlan, field string, def, min, max int) (any, error) {
	if x, ok := p.Values.lookup(field); ok {
		if name, isRef := paramRefName(x); isRef {
			prm, err := e.param(field, x.(string), name)
			if err != nil {
				return nil, err
			}
			if prm.Type != "Integer" {
				return nil, &fieldError{field, fmt.Sprintf("%s refers to %s parameter %s; %s needs an Integer parameter", strings.TrimSpace(x.(string)), prm.Type, name, field)}
			}
			return Param(name), nil
		}
	}
	return p.firstInt(def, min, max, field)
}

// instanceType is nodePlan.instanceType with parameter references: it
// returns the value for the definition (a literal or a Get) and the
// instance type the image is chosen for (a parameter's default).
func (e *buildEnv) instanceType(p *nodePlan, def string) (forImage string, value any, err error) {
	s, err := p.instanceType(def)
	if err != nil {
		return "", nil, err
	}
	field := p.instanceTypeField()
	name, ok := paramRefName(s)
	if !ok {
		return s, s, nil
	}
	prm, err := e.param(field, s, name)
	if err != nil {
		return "", nil, err
	}
	d, _ := prm.DefaultValue.(string)
	if prm.Type != "String" || d == "" {
		return "", nil, &fieldError{field, fmt.Sprintf("%s: an instance-type parameter needs to be a String parameter with a default, used to choose the container image", s)}
	}
	return d, Param(name), nil
}

// enumExpr is strExpr for a field whose literal value must be one of
// allowed (a parameter's value is checked by SageMaker when the pipeline
// runs).
func (e *buildEnv) enumExpr(p *nodePlan, field, def string, allowed ...string) (any, error) {
	v, literal, err := e.strExpr(p, field, def)
	if err != nil || !literal {
		return v, err
	}
	if s := v.(string); !slices.Contains(allowed, s) {
		return nil, &fieldError{field, fmt.Sprintf("%s %q: want one of %s", field, s, strings.Join(allowed, ", "))}
	}
	return v, nil
}

// optionalExpr is strExpr with "" as nil, for definition fields that are
// left out when empty.
func (e *buildEnv) optionalExpr(p *nodePlan, field, def string) (any, error) {
	v, _, err := e.strExpr(p, field, def)
	if err != nil || v == "" {
		return nil, err
	}
	return v, nil
}
