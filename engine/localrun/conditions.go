package localrun

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/engine/compiler"
)

// This file runs the control steps of a definition: a Condition step
// evaluates its conditions as SageMaker does and picks the branch that
// runs (its IfSteps when they all hold, else its ElseSteps); a Fail step
// ends the execution, failed, with its message. The steps of the branch
// not taken do not run and are not listed among the report's steps (as
// SageMaker's ListPipelineExecutionSteps does not list them); the report's
// Branches say which branch ran and which steps it left out.

// guard is where a nested step sits: under which Condition step, in which
// branch.
type guard struct {
	condition string
	branch    string // BranchIf or BranchElse
}

// The branches of a Condition step.
const (
	BranchIf   = "if"
	BranchElse = "else"
)

// BranchTaken is what one Condition step decided.
type BranchTaken struct {
	Condition string `json:"condition"`
	Outcome   bool   `json:"outcome"`
	// Branch is the branch that ran: "if" (the conditions held) or "else".
	Branch string `json:"branch"`
	// NotRun are the steps of the other branch.
	NotRun []string `json:"not_run"`
}

// flattenSteps lists steps with the steps of each Condition's IfSteps and
// ElseSteps after it, each nested step carrying its guard.
func flattenSteps(steps []*defStep, g *guard) ([]*defStep, error) {
	var out []*defStep
	for _, s := range steps {
		s.guard = g
		out = append(out, s)
		if s.Type != compiler.StepTypeCondition {
			continue
		}
		for _, br := range []struct{ key, name string }{{"IfSteps", BranchIf}, {"ElseSteps", BranchElse}} {
			raw, ok := s.Arguments[br.key]
			if !ok || raw == nil {
				continue
			}
			b, err := json.Marshal(raw)
			if err != nil {
				return nil, &DefinitionError{Problem: fmt.Sprintf("step %s: %s: %v", s.Name, br.key, err)}
			}
			var nested []*defStep
			if err := json.Unmarshal(b, &nested); err != nil {
				return nil, &DefinitionError{Problem: fmt.Sprintf("step %s: %s is not a list of steps: %v", s.Name, br.key, err)}
			}
			inner, err := flattenSteps(nested, &guard{condition: s.Name, branch: br.name})
			if err != nil {
				return nil, err
			}
			out = append(out, inner...)
		}
	}
	return out, nil
}

// ownArguments are the arguments of a step that are its own: a
// Condition's conditions, without the steps of its branches (they are
// steps of their own).
func ownArguments(s *defStep) map[string]any {
	if s.Type != compiler.StepTypeCondition {
		return s.Arguments
	}
	return map[string]any{"Conditions": s.Arguments["Conditions"]}
}

// statusNotRun is the state of a step on a branch not taken (never a
// reported status: such a step is not among the report's steps).
const statusNotRun = "not_run"

// notTaken reports whether a nested step is on a branch not taken: its
// Condition took the other one, or sits on such a branch itself. It is
// then listed in the nearest Condition's BranchTaken.NotRun.
func (r *run) notTaken(s *defStep) bool {
	if s.guard == nil {
		return false
	}
	c := r.ev.steps[s.guard.condition]
	switch c.status {
	case statusNotRun:
	case StatusSucceeded:
		taken := BranchElse
		if out, _ := c.props["Outcome"].(bool); out {
			taken = BranchIf
		}
		if s.guard.branch == taken {
			return false
		}
	default:
		return false // its dependency on the condition skips it
	}
	cond := s.guard.condition
	for r.ev.steps[cond].status == statusNotRun {
		cond = r.byName[cond].guard.condition
	}
	for i := range r.report.Branches {
		if b := &r.report.Branches[i]; b.Condition == cond {
			b.NotRun = append(b.NotRun, s.Name)
		}
	}
	return true
}

// condition runs a Condition step: every condition is evaluated (Std:JsonGet
// reads the property files of the steps before it) and the outcome is that
// all of them hold.
func (r *run) condition(s *defStep, sr *StepResult) error {
	conds, _ := s.Arguments["Conditions"].([]any)
	outcome := true
	for i, c := range conds {
		ok, why, err := r.holds(c)
		if err != nil {
			return fmt.Errorf("Conditions[%d]: %w", i, err)
		}
		sr.Checks = append(sr.Checks, fmt.Sprintf("%s: %t", why, ok))
		outcome = outcome && ok
	}
	state := r.ev.steps[s.Name]
	state.props["Outcome"] = outcome
	sr.Outcome = &outcome
	branch := BranchElse
	if outcome {
		branch = BranchIf
	}
	r.report.Branches = append(r.report.Branches, BranchTaken{Condition: s.Name, Outcome: outcome, Branch: branch, NotRun: []string{}})
	return nil
}

// holds evaluates one condition and says how it came out.
func (r *run) holds(c any) (bool, string, error) {
	m, ok := c.(map[string]any)
	if !ok {
		return false, "", fmt.Errorf("a condition is an object, not %T", c)
	}
	typ, _ := m["Type"].(string)
	switch typ {
	case "Not":
		ok, why, err := r.holds(m["Condition"])
		return !ok, "not (" + why + ")", err
	case "Or":
		subs, _ := m["Conditions"].([]any)
		var parts []string
		any := false
		for _, sub := range subs {
			ok, why, err := r.holds(sub)
			if err != nil {
				return false, "", err
			}
			parts = append(parts, why)
			any = any || ok
		}
		return any, "(" + strings.Join(parts, " or ") + ")", nil
	case "In":
		q, err := r.ev.eval(m["QueryValue"])
		if err != nil {
			return false, "", err
		}
		vals, err := r.ev.eval(m["Values"])
		if err != nil {
			return false, "", err
		}
		list, _ := vals.([]any)
		for _, v := range list {
			if equalValues(q, v) {
				return true, fmt.Sprintf("%s in %s", text(q), text(list)), nil
			}
		}
		return false, fmt.Sprintf("%s in %s", text(q), text(list)), nil
	}
	op, known := binaryOps[typ]
	if !known {
		return false, "", fmt.Errorf("condition type %q is not one SageMaker evaluates (Equals, GreaterThan, GreaterThanOrEqualTo, LessThan, LessThanOrEqualTo, In, Not, Or)", typ)
	}
	left, err := r.ev.eval(m["LeftValue"])
	if err != nil {
		return false, "", fmt.Errorf("LeftValue: %w", err)
	}
	right, err := r.ev.eval(m["RightValue"])
	if err != nil {
		return false, "", fmt.Errorf("RightValue: %w", err)
	}
	why := fmt.Sprintf("%s %s %s", text(left), op, text(right))
	if typ == "Equals" {
		return equalValues(left, right), why, nil
	}
	cmp, err := compareValues(left, right)
	if err != nil {
		return false, "", fmt.Errorf("%s: %w", why, err)
	}
	switch typ {
	case "GreaterThan":
		return cmp > 0, why, nil
	case "GreaterThanOrEqualTo":
		return cmp >= 0, why, nil
	case "LessThan":
		return cmp < 0, why, nil
	}
	return cmp <= 0, why, nil
}

var binaryOps = map[string]string{"Equals": "==", "GreaterThan": ">", "GreaterThanOrEqualTo": ">=", "LessThan": "<", "LessThanOrEqualTo": "<="}

// number reads a JSON number, or text holding one.
func number(v any) (float64, bool) {
	switch t := v.(type) {
	case float64:
		return t, true
	case int64:
		return float64(t), true
	case string:
		var f float64
		if _, err := fmt.Sscan(t, &f); err == nil {
			return f, true
		}
	}
	return 0, false
}

func equalValues(a, b any) bool {
	if x, ok := number(a); ok {
		if y, ok := number(b); ok {
			return x == y
		}
	}
	return text(a) == text(b)
}

// compareValues orders two numbers (or two texts): -1, 0 or 1.
func compareValues(a, b any) (int, error) {
	x, okA := number(a)
	y, okB := number(b)
	switch {
	case okA && okB:
		switch {
		case x < y:
			return -1, nil
		case x > y:
			return 1, nil
		}
		return 0, nil
	case okA != okB:
		return 0, fmt.Errorf("cannot order %s against %s: one is not a number", text(a), text(b))
	}
	return strings.Compare(text(a), text(b)), nil
}

// fail runs a Fail step: the execution ends, failed, with its message.
func (r *run) fail(s *defStep, sr *StepResult) error {
	msg, err := r.ev.str(s.Arguments["ErrorMessage"])
	if err != nil {
		return fmt.Errorf("ErrorMessage: %w", err)
	}
	r.ended = s.Name
	sr.Checks = append(sr.Checks, "the execution ends here, failed")
	return &FailStepError{Step: s.Name, Message: msg}
}

// FailStepError is a run a Fail step ended: its message.
type FailStepError struct {
	Step    string
	Message string
}

// Error is the Fail step's message.
func (e *FailStepError) Error() string { return e.Message }

func runCondition(r *run, _ context.Context, s *defStep, sr *StepResult) error {
	return r.condition(s, sr)
}

func runFail(r *run, _ context.Context, s *defStep, sr *StepResult) error { return r.fail(s, sr) }
