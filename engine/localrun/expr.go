package localrun

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/internal/safefs"
)

// evaluator resolves the pipeline expressions of a definition as
// SageMaker does at execution time: {"Get": "Parameters.X"} (the value
// given for the run, else the default), {"Get": "Execution.X"}, {"Get":
// "Steps.S.<property>"} (a property of a step that already ran),
// {"Std:Join": {"On", "Values"}} and {"Std:JsonGet": {"PropertyFile" or
// "S3Uri", "Path"}}.
type evaluator struct {
	params map[string]any    // resolved parameter values
	noDef  map[string]bool   // parameters with no default and no value given
	exec   map[string]string // execution variables
	steps  map[string]*stepState
	// current is the step being evaluated, for Execution.ProcessingJobName
	// and the like.
	current *stepState
	// s3Path is where an S3 URI of the run is on disk (Std:JsonGet's S3Uri).
	s3Path func(uri string) (hostPath, error)
}

// stepState is what later steps can read of a step.
type stepState struct {
	name   string
	status string
	job    string         // the job name it ran as
	props  map[string]any // property path -> value
	// propFiles maps a property file name to its local file (after the
	// step succeeded).
	propFiles map[string]hostPath
}

func (e *evaluator) eval(v any) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 1 {
			if g, ok := t["Get"]; ok {
				p, ok := g.(string)
				if !ok {
					return nil, fmt.Errorf("a Get takes a string, not %T", g)
				}
				return e.get(p)
			}
			if j, ok := t["Std:Join"]; ok {
				return e.join(j)
			}
			if j, ok := t["Std:JsonGet"]; ok {
				return e.jsonGet(j)
			}
		}
		out := make(map[string]any, len(t))
		for k, x := range t {
			r, err := e.eval(x)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			r, err := e.eval(x)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}

// str evaluates v to text, as SageMaker renders a value in a string
// field.
func (e *evaluator) str(v any) (string, error) {
	r, err := e.eval(v)
	if err != nil {
		return "", err
	}
	return text(r), nil
}

// strs evaluates a list of values to text; a missing list is empty.
func (e *evaluator) strs(v any) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want a list, got %T", v)
	}
	out := make([]string, len(l))
	for i, x := range l {
		s, err := e.str(x)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		out[i] = s
	}
	return out, nil
}

// strMap evaluates an object of values (Environment, HyperParameters) to
// text.
func (e *evaluator) strMap(v any) (map[string]string, error) {
	out := map[string]string{}
	if v == nil {
		return out, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want an object, got %T", v)
	}
	for k, x := range m {
		s, err := e.str(x)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = s
	}
	return out, nil
}

// text renders a value as SageMaker puts it in a string: numbers without
// a trailing .0 when whole, booleans in lower case, objects as JSON.
func text(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1e15 {
			return strconv.FormatInt(int64(t), 10)
		}
		return strconv.FormatFloat(t, 'g', -1, 64)
	case int64:
		return strconv.FormatInt(t, 10)
	case bool:
		return strconv.FormatBool(t)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func (e *evaluator) get(p string) (any, error) {
	head, rest, _ := strings.Cut(p, ".")
	switch head {
	case "Parameters":
		if v, ok := e.params[rest]; ok {
			return v, nil
		}
		if e.noDef[rest] {
			return nil, &ParameterError{Name: rest, Problem: "has no default value and none was given: pass it in parameters"}
		}
		return nil, &ParameterError{Name: rest, Problem: "is not declared in the definition"}
	case "Execution":
		switch rest {
		case "ProcessingJobName", "TrainingJobName", "TransformJobName":
			if e.current != nil {
				return e.current.job, nil
			}
		}
		if v, ok := e.exec[rest]; ok {
			return v, nil
		}
		return nil, fmt.Errorf("Execution.%s is not an execution variable (known: %s)", rest, strings.Join(mapkeys.Sorted(e.exec), ", "))
	case "Steps":
		name, prop, ok := cutStep(rest, e.steps)
		if !ok {
			return nil, fmt.Errorf("%s: no step of that name", p)
		}
		s := e.steps[name]
		if s.status != StatusSucceeded && s.status != StatusSubstituted {
			return nil, fmt.Errorf("%s: step %s has not run (it is %s)", p, name, orPending(s.status))
		}
		v, ok := s.props[normProp(prop)]
		if !ok {
			return nil, fmt.Errorf("%s: step %s has no property %s here (it has: %s)", p, name, prop, strings.Join(mapkeys.Sorted(s.props), ", "))
		}
		return v, nil
	}
	return nil, fmt.Errorf("%q: a Get names Parameters., Execution. or Steps.", p)
}

func orPending(s string) string {
	if s == "" {
		return "not started"
	}
	return s
}

// cutStep splits "<step name>.<property path>"; step names may contain
// dots, so the longest known name wins.
func cutStep(rest string, steps map[string]*stepState) (string, string, bool) {
	best := ""
	for n := range steps {
		if strings.HasPrefix(rest, n+".") && len(n) > len(best) {
			best = n
		}
	}
	if best == "" {
		return "", "", false
	}
	return best, rest[len(best)+1:], true
}

// normProp writes a property path with single quotes in its brackets:
// Outputs["x"] and Outputs['x'] are the same property.
func normProp(p string) string {
	return strings.NewReplacer(`["`, `['`, `"]`, `']`).Replace(strings.TrimPrefix(p, "properties."))
}

func (e *evaluator) join(v any) (any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("Std:Join takes {On, Values}")
	}
	on, _ := m["On"].(string)
	vals, ok := m["Values"].([]any)
	if !ok {
		return nil, fmt.Errorf("Std:Join: Values must be a list")
	}
	parts := make([]string, len(vals))
	for i, x := range vals {
		s, err := e.str(x)
		if err != nil {
			return nil, fmt.Errorf("Std:Join value %d: %w", i, err)
		}
		parts[i] = s
	}
	return strings.Join(parts, on), nil
}

func (e *evaluator) jsonGet(v any) (any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("Std:JsonGet takes {PropertyFile, Path} or {S3Uri, Path}")
	}
	if u, ok := m["S3Uri"]; ok {
		uri, err := e.str(u)
		if err != nil {
			return nil, fmt.Errorf("Std:JsonGet: S3Uri: %w", err)
		}
		if e.s3Path == nil {
			return nil, fmt.Errorf("Std:JsonGet: S3Uri %s: no local S3", uri)
		}
		local, err := e.s3Path(uri)
		if err != nil {
			return nil, fmt.Errorf("Std:JsonGet: S3Uri %s: %w", uri, err)
		}
		return readJSONPath(local, uri, m)
	}
	var step, file string
	switch pf := m["PropertyFile"].(type) {
	case map[string]any:
		g, _ := pf["Get"].(string)
		rest, ok := strings.CutPrefix(g, "Steps.")
		if !ok {
			return nil, fmt.Errorf("Std:JsonGet: PropertyFile must be {\"Get\": \"Steps.<step>.PropertyFiles.<name>\"}")
		}
		name, prop, ok := cutStep(rest, e.steps)
		f, isPF := strings.CutPrefix(prop, "PropertyFiles.")
		if !ok || !isPF {
			return nil, fmt.Errorf("Std:JsonGet: %q names no step's property file", g)
		}
		step, file = name, f
	default:
		return nil, fmt.Errorf("Std:JsonGet: PropertyFile must be a Get of Steps.<step>.PropertyFiles.<name>, or S3Uri an S3 URI")
	}
	s := e.steps[step]
	if s.status != StatusSucceeded && s.status != StatusSubstituted {
		return nil, fmt.Errorf("Std:JsonGet: step %s has not run", step)
	}
	local, ok := s.propFiles[file]
	if !ok {
		return nil, fmt.Errorf("Std:JsonGet: step %s has no property file %s", step, file)
	}
	return readJSONPath(local, fmt.Sprintf("property file %s of %s", file, step), m)
}

// readJSONPath reads the JSON file at local (what names it) and follows
// the Std:JsonGet's Path in it.
func readJSONPath(local hostPath, what string, m map[string]any) (any, error) {
	// A step script wrote it: read it through a root on the directory it
	// lies in, as a regular file of bounded size (a link to a host file, a
	// FIFO or a huge file in its place must not leak, hang or exhaust the
	// run).
	b, err := local.readFile(safefs.KindDocument)
	if err != nil {
		return nil, fmt.Errorf("Std:JsonGet: %s: %w", what, err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("Std:JsonGet: %s is not JSON: %w", what, err)
	}
	p, _ := m["Path"].(string)
	return jsonPath(doc, p)
}

// jsonPath follows a JsonGet path: dotted keys with [index] parts
// ("metrics.auc.value", "a[0].b").
func jsonPath(doc any, p string) (any, error) {
	cur := doc
	for _, seg := range strings.Split(p, ".") {
		key, idx := seg, ""
		if i := strings.IndexByte(seg, '['); i >= 0 {
			key, idx = seg[:i], seg[i:]
		}
		if key != "" {
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("Std:JsonGet path %s: %s is not an object", p, key)
			}
			if cur, ok = m[key]; !ok {
				return nil, fmt.Errorf("Std:JsonGet path %s: no key %s", p, key)
			}
		}
		for idx != "" {
			end := strings.IndexByte(idx, ']')
			if !strings.HasPrefix(idx, "[") || end < 0 {
				return nil, fmt.Errorf("Std:JsonGet path %s: bad index %s", p, idx)
			}
			n, err := strconv.Atoi(idx[1:end])
			l, ok := cur.([]any)
			if err != nil || !ok || n < 0 || n >= len(l) {
				return nil, fmt.Errorf("Std:JsonGet path %s: index %s out of range", p, idx[:end+1])
			}
			cur, idx = l[n], idx[end+1:]
		}
	}
	return cur, nil
}

// refs lists the steps a value refers to (Get Steps.X..., and the steps of
// JsonGet property files).
func refs(v any, steps map[string]*stepState, out map[string]bool) {
	switch t := v.(type) {
	case map[string]any:
		if g, ok := t["Get"].(string); ok && len(t) == 1 {
			if rest, ok := strings.CutPrefix(g, "Steps."); ok {
				if name, _, ok := cutStep(rest, steps); ok {
					out[name] = true
				}
			}
			return
		}
		for _, x := range t {
			refs(x, steps, out)
		}
	case []any:
		for _, x := range t {
			refs(x, steps, out)
		}
	}
}

// ParameterError is a pipeline parameter the run cannot give a value.
type ParameterError struct {
	Name    string
	Problem string
}

// Error says which parameter has no value and why.
func (e *ParameterError) Error() string {
	return fmt.Sprintf("pipeline parameter %s %s", e.Name, e.Problem)
}
