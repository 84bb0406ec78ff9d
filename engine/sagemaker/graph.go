package sagemaker

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cursus-go/cursus/engine/errkind"
)

// Graph is the step graph of a pipeline definition: every step (the steps of Condition branches
// too) and what each depends on, as SageMaker orders them: its DependsOn, every step whose
// properties it reads ({"Get": "Steps.<name>..."} anywhere in its Arguments, PropertyFiles
// included), and for a step in a Condition's IfSteps or ElseSteps, the Condition.
type Graph struct {
	// Steps are the step names in definition order (a Condition's branch steps after it).
	Steps []string
	// Types are the steps' Type (Processing, Training, Condition, ...).
	Types map[string]string
	// Deps are each step's direct dependencies, sorted.
	Deps map[string][]string
	// Arguments are each step's Arguments (decoded JSON).
	Arguments map[string]map[string]any
}

// DefinitionError reports a pipeline definition that cannot be read as one.
type DefinitionError struct{ Reason string }

// Error implements error.
func (e *DefinitionError) Error() string { return "pipeline definition: " + e.Reason }

// Kind implements errkind.Kinded: InvalidInput.
func (e *DefinitionError) Kind() errkind.Kind { return errkind.InvalidInput }

type graphStep struct {
	Name      string         `json:"Name"`
	Type      string         `json:"Type"`
	DependsOn []string       `json:"DependsOn"`
	Arguments map[string]any `json:"Arguments"`
}

// StepGraph reads the step graph of a definition (the JSON CreatePipeline takes).
func StepGraph(definitionJSON string) (*Graph, error) {
	var def struct {
		Steps []json.RawMessage `json:"Steps"`
	}
	if err := json.Unmarshal([]byte(definitionJSON), &def); err != nil {
		return nil, &DefinitionError{Reason: "not a JSON object with Steps: " + err.Error()}
	}
	g := &Graph{Types: map[string]string{}, Deps: map[string][]string{}, Arguments: map[string]map[string]any{}}
	deps := map[string]map[string]bool{}
	var add func(raw []json.RawMessage, guard string) error
	add = func(raw []json.RawMessage, guard string) error {
		for _, r := range raw {
			var s graphStep
			if err := json.Unmarshal(r, &s); err != nil || s.Name == "" {
				return &DefinitionError{Reason: "a step without a Name"}
			}
			if _, dup := g.Types[s.Name]; dup {
				return &DefinitionError{Reason: "two steps are named " + s.Name}
			}
			g.Steps = append(g.Steps, s.Name)
			g.Types[s.Name] = s.Type
			g.Arguments[s.Name] = s.Arguments
			set := map[string]bool{}
			for _, d := range s.DependsOn {
				set[d] = true
			}
			if guard != "" {
				set[guard] = true
			}
			var whole map[string]any
			_ = json.Unmarshal(r, &whole)
			delete(whole, "Arguments")
			stepRefs(s.Arguments, set)
			stepRefs(whole, set) // PropertyFiles and other members outside Arguments
			deps[s.Name] = set
			if s.Type == "Condition" {
				var branches struct {
					Arguments struct {
						IfSteps   []json.RawMessage `json:"IfSteps"`
						ElseSteps []json.RawMessage `json:"ElseSteps"`
					} `json:"Arguments"`
				}
				_ = json.Unmarshal(r, &branches)
				if err := add(append(branches.Arguments.IfSteps, branches.Arguments.ElseSteps...), s.Name); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := add(def.Steps, ""); err != nil {
		return nil, err
	}
	for name, set := range deps {
		delete(set, name)
		var list []string
		for d := range set {
			if _, ok := g.Types[d]; !ok {
				return nil, &DefinitionError{Reason: fmt.Sprintf("step %s depends on %s, which is not a step", name, d)}
			}
			list = append(list, d)
		}
		slices.Sort(list)
		g.Deps[name] = list
	}
	// A Condition's branch steps sit inside its Arguments: they are not its dependencies.
	for _, name := range g.Steps {
		if g.Types[name] == "Condition" {
			g.Deps[name] = slices.DeleteFunc(g.Deps[name], func(d string) bool { return g.under(d, name) })
		}
	}
	return g, nil
}

// under reports whether step d sits in a branch of Condition cond (directly or deeper).
func (g *Graph) under(d, cond string) bool {
	args := g.Arguments[cond]
	for _, key := range []string{"IfSteps", "ElseSteps"} {
		list, _ := args[key].([]any)
		for _, s := range list {
			m, _ := s.(map[string]any)
			if m["Name"] == d {
				return true
			}
			if n, _ := m["Name"].(string); n != "" && m["Type"] == "Condition" && g.under(d, n) {
				return true
			}
		}
	}
	return false
}

// stepRefs adds to set every step a JSON value reads ({"Get": "Steps.<name>...."}).
func stepRefs(v any, set map[string]bool) {
	switch t := v.(type) {
	case map[string]any:
		if g, ok := t["Get"].(string); ok {
			if rest, ok := strings.CutPrefix(g, "Steps."); ok {
				name, _, _ := strings.Cut(rest, ".")
				name, _, _ = strings.Cut(name, "[")
				set[name] = true
			}
		}
		if pf, ok := t["PropertyFile"]; ok {
			if m, ok := pf.(map[string]any); ok {
				stepRefs(m, set)
			}
		}
		for k, x := range t {
			if k == "IfSteps" || k == "ElseSteps" {
				continue
			}
			stepRefs(x, set)
		}
	case []any:
		for _, x := range t {
			stepRefs(x, set)
		}
	}
}

// Has reports whether the definition has a step of that name.
func (g *Graph) Has(name string) bool { _, ok := g.Types[name]; return ok }

// Ancestors are the steps name depends on, directly or not, in definition order.
func (g *Graph) Ancestors(name string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		for _, d := range g.Deps[n] {
			if !seen[d] {
				seen[d] = true
				walk(d)
			}
		}
	}
	walk(name)
	return g.ordered(seen)
}

// Descendants are the steps that depend on one of names, directly or not (names excluded unless
// one depends on another), in definition order.
func (g *Graph) Descendants(names ...string) []string {
	seen := map[string]bool{}
	frontier := slices.Clone(names)
	for len(frontier) > 0 {
		var next []string
		for _, s := range g.Steps {
			if seen[s] {
				continue
			}
			for _, d := range g.Deps[s] {
				if slices.Contains(frontier, d) {
					seen[s] = true
					next = append(next, s)
					break
				}
			}
		}
		frontier = next
	}
	return g.ordered(seen)
}

func (g *Graph) ordered(set map[string]bool) []string {
	out := []string{}
	for _, s := range g.Steps {
		if set[s] {
			out = append(out, s)
		}
	}
	return out
}

// MaxSelectedSteps is the most steps a selective execution may select (SelectiveExecutionConfig).
const MaxSelectedSteps = 50

// SelectionError reports a set of steps a selective execution cannot run, as SageMaker would
// refuse it: names that are no step of the definition, repeated names, more than
// MaxSelectedSteps, or steps missing between two selected ones (every step on every path between
// two selected steps must be selected too).
type SelectionError struct {
	Unknown  []string // not steps of the definition
	Repeated []string
	TooMany  int      // the count, when above MaxSelectedSteps
	Between  []string // steps on a path between two selected steps that are not selected
	Steps    []string // the definition's steps, for the message
}

// Error implements error.
func (e *SelectionError) Error() string {
	var parts []string
	if len(e.Unknown) > 0 {
		parts = append(parts, fmt.Sprintf("no step named %s in the pipeline (its steps: %s)", strings.Join(e.Unknown, ", "), strings.Join(e.Steps, ", ")))
	}
	if len(e.Repeated) > 0 {
		parts = append(parts, "steps named twice: "+strings.Join(e.Repeated, ", "))
	}
	if e.TooMany > 0 {
		parts = append(parts, fmt.Sprintf("%d steps selected; a selective execution runs at most %d", e.TooMany, MaxSelectedSteps))
	}
	if len(e.Between) > 0 {
		parts = append(parts, "every step on a path between two selected steps must be selected too: add "+strings.Join(e.Between, ", "))
	}
	return strings.Join(parts, "; ")
}

// Kind implements errkind.Kinded: InvalidInput.
func (e *SelectionError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer.
func (e *SelectionError) Details() map[string]any {
	nn := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	return map[string]any{"unknown": nn(e.Unknown), "repeated": nn(e.Repeated), "between": nn(e.Between), "steps": nn(e.Steps)}
}

// CheckSelection checks the steps a selective execution would run against the definition's graph
// (the rules of SelectiveExecutionConfig), returning a *SelectionError or nil, and the steps the
// selection reads from steps it does not run (they come from the source execution), in
// definition order.
func (g *Graph) CheckSelection(selected []string) (needs []string, err error) {
	e := &SelectionError{Steps: g.Steps}
	sel := map[string]bool{}
	for _, s := range selected {
		switch {
		case !g.Has(s):
			e.Unknown = append(e.Unknown, s)
		case sel[s]:
			e.Repeated = append(e.Repeated, s)
		}
		sel[s] = true
	}
	if len(selected) > MaxSelectedSteps {
		e.TooMany = len(selected)
	}
	if len(e.Unknown) == 0 {
		// A step is between two selected ones when it descends from one and is an ancestor of another.
		var from []string
		for s := range sel {
			from = append(from, s)
		}
		down := map[string]bool{}
		for _, d := range g.Descendants(from...) {
			down[d] = true
		}
		missing := map[string]bool{}
		for s := range sel {
			for _, a := range g.Ancestors(s) {
				if down[a] && !sel[a] {
					missing[a] = true
				}
			}
		}
		e.Between = g.ordered(missing)
	}
	if len(e.Unknown)+len(e.Repeated)+len(e.Between) > 0 || e.TooMany > 0 {
		return nil, e
	}
	need := map[string]bool{}
	for s := range sel {
		for _, d := range g.Deps[s] {
			if !sel[d] {
				need[d] = true
			}
		}
	}
	return g.ordered(need), nil
}
