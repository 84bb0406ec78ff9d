package compiler

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
)

// Values is the resolved config of one DAG node: field name -> JSON value
// (string, float64 or int64, bool, []any, map[string]any, nil). It reads
// the config's own values first and its derived values second, without
// copying either.
type Values struct {
	primary, fallback map[string]any
}

// NewValues returns the values of primary, falling back to fallback for
// fields primary does not set (or sets to null).
func NewValues(primary, fallback map[string]any) Values {
	return Values{primary: primary, fallback: fallback}
}

// has reports whether field is set to a non-null value.
func (v Values) has(field string) bool {
	_, ok := v.lookup(field)
	return ok
}

// lookup returns a field's non-null value; a dotted name
// ("hyperparameters.eta") descends into objects.
func (v Values) lookup(field string) (any, bool) {
	if field == "" {
		return nil, false
	}
	if x := v.primary[field]; x != nil {
		return x, true
	}
	if x := v.fallback[field]; x != nil {
		return x, true
	}
	if i := strings.IndexByte(field, '.'); i > 0 {
		if m, ok := v.primary[field[:i]].(map[string]any); ok {
			return Values{primary: m}.lookup(field[i+1:])
		}
	}
	return nil, false
}

// fieldError is a config value of the wrong type or range.
type fieldError struct {
	field string
	msg   string
}

func (e *fieldError) Error() string { return e.msg }

// str returns a string field, def when unset. A number or bool is
// formatted; any other type is an error, and so is a pipeline-parameter
// reference: str is for values the compiler needs when it builds the
// definition (buildEnv.strExpr reads a value the definition may take as
// an expression).
func (v Values) str(field, def string) (string, error) {
	s, err := v.strOrRef(field, def)
	if err == nil && isRef(s) {
		return "", refusedRef(field, s)
	}
	return s, err
}

// strOrRef is str that returns a "{{Parameters.X}}" value as it is.
func (v Values) strOrRef(field, def string) (string, error) {
	x, ok := v.lookup(field)
	if !ok {
		return def, nil
	}
	switch t := x.(type) {
	case string:
		return t, nil
	case float64, int, int64, bool, json.Number:
		return FormatValue(t), nil
	}
	return "", &fieldError{field, fmt.Sprintf("want a string, got %s", jsonKind(x))}
}

// firstStr returns the first set field among fields, def when none is.
func (v Values) firstStr(def string, fields ...string) (string, string, error) {
	for _, f := range fields {
		if v.has(f) {
			s, err := v.str(f, def)
			if err == nil && s == "" {
				continue
			}
			return s, f, err
		}
	}
	return def, "", nil
}

// integer returns an integer field, def when unset.
func (v Values) integer(field string, def int) (int, error) {
	x, ok := v.lookup(field)
	if !ok {
		return def, nil
	}
	switch t := x.(type) {
	case int:
		return t, nil
	case int64:
		return int(t), nil
	case float64:
		if t != math.Trunc(t) {
			return 0, &fieldError{field, fmt.Sprintf("want an integer, got %v", t)}
		}
		return int(t), nil
	case json.Number:
		n, err := strconv.Atoi(string(t))
		if err != nil {
			return 0, &fieldError{field, fmt.Sprintf("want an integer, got %s", t)}
		}
		return n, nil
	case string:
		if _, ok := paramRefName(t); ok {
			return 0, refusedRef(field, t)
		}
		n, err := strconv.Atoi(strings.TrimSpace(t))
		if err != nil {
			return 0, &fieldError{field, fmt.Sprintf("want an integer, got %q", t)}
		}
		return n, nil
	}
	return 0, &fieldError{field, fmt.Sprintf("want an integer, got %s", jsonKind(x))}
}

// boolean returns a bool field, def when unset. "true"/"false" strings are
// accepted.
func (v Values) boolean(field string, def bool) (bool, error) {
	x, ok := v.lookup(field)
	if !ok {
		return def, nil
	}
	switch t := x.(type) {
	case bool:
		return t, nil
	case string:
		if _, ok := paramRefName(t); ok {
			return false, refusedRef(field, t)
		}
		b, err := strconv.ParseBool(strings.TrimSpace(t))
		if err != nil {
			return false, &fieldError{field, fmt.Sprintf("want true or false, got %q", t)}
		}
		return b, nil
	}
	return false, &fieldError{field, fmt.Sprintf("want true or false, got %s", jsonKind(x))}
}

// object returns an object field; a parameter reference anywhere in it is
// an error (the compiler reads every value of such an object).
func (v Values) object(field string) (map[string]any, error) {
	m, err := v.objectOrRefs(field)
	if err != nil {
		return nil, err
	}
	if at, ref, found := findRef(field, m); found {
		return nil, refusedRef(at, ref)
	}
	return m, nil
}

// objectOrRefs is object that leaves parameter references in place, for
// objects whose values become expressions one by one (env,
// hyperparameters).
func (v Values) objectOrRefs(field string) (map[string]any, error) {
	x, ok := v.lookup(field)
	if !ok {
		return nil, nil
	}
	m, ok := x.(map[string]any)
	if !ok {
		return nil, &fieldError{field, fmt.Sprintf("want an object, got %s", jsonKind(x))}
	}
	return m, nil
}

// FormatValue renders a config value as the string a container sees in an
// environment variable or argument: bools as true/false, integral numbers
// without a decimal point, other numbers in their shortest form, lists
// comma-joined, objects as compact JSON, null as "".
func FormatValue(x any) string {
	if n, ok := x.(json.Number); ok {
		return string(n)
	}
	return catalog.EnvValue(x)
}

// jsonEncodeValue renders a hyperparameter the way SageMaker framework
// estimators do: json.dumps of the value (strings quoted).
func jsonEncodeValue(x any) string {
	if f, ok := x.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	b, err := json.Marshal(x)
	if err != nil {
		return strconv.Quote(fmt.Sprint(x))
	}
	return string(b)
}

func jsonKind(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, int, int64, json.Number:
		return "a number"
	case []any, []string:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", x)
}
