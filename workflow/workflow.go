package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cursus-go/cursus/internal/lazyre"
)

// Workflow is a named, ordered list of phases and the arguments it takes.
// Workflows are Go values, built once and read-only afterwards; Get and
// List return the built-in ones.
type Workflow struct {
	// Name is the workflow's name ("new-project").
	Name string
	// Description says what the workflow does, in a sentence or two.
	Description string
	// Args declares the arguments (a JSON object).
	Args []Arg
	// Phases run in order; a phase runs only after every earlier one passed.
	Phases []Phase
	// Check, when set, adds semantic checks of the normalized arguments
	// (one problem per line).
	Check func(args map[string]any) []string
	// Result, when set, shapes the workflow's outputs from the run's
	// variables once every phase passed.
	Result func(v Vars) map[string]any
	// Ready, when set, says whether what the run made is ready once every
	// phase passed (a pipeline that is deployable and ran locally); a run
	// that is not ready ends incomplete, not done, with why as its reason.
	Ready func(v Vars) (ready bool, why string)
}

// Arg declares one workflow argument.
type Arg struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"` // string, boolean, integer, number, object, array
	Required    bool     `json:"required,omitempty"`
	Default     any      `json:"default,omitempty"`
	Enum        []string `json:"enum,omitempty"`
	Description string   `json:"description"`
}

// Phase is one gated step of a workflow.
type Phase struct {
	// Name is unique within the workflow; a phase taken from a nested
	// workflow is named "<nested>/<phase>" (init-project/scaffold).
	Name string
	// Title is a short human title.
	Title string
	// Detail says what the phase does.
	Detail string
	// Gate says what must hold for the phase to pass.
	Gate string
	// Tools are the tools the phase calls, in order.
	Tools []string
	// Judgment, when set, says what the phase may stop for: a decision or
	// work that a program cannot supply.
	Judgment string
	// Stage is the guided stage (see the workflow.* stage tools) whose tools
	// the phase uses, so a host can follow the workflow stage by stage.
	Stage string
	// From names the nested workflow the phase comes from ("" for its own).
	From string
	// Reassess marks a phase that judges what the run made (the readiness
	// of the project's files) rather than making it: resuming an incomplete
	// run runs it again even though it passed.
	Reassess bool
	// Run does the work and checks the gate: nil when the phase passed, a
	// *GateFailure when a gate failed, a *Judgment when it needs judgment,
	// the context's error when cancelled.
	Run func(ctx context.Context, s *Step) error
}

// Description is a workflow exported as data: enough for an agent host to
// follow the workflow phase by phase with the guided stages, calling the
// same tools and checking the same gates.
type Description struct {
	Name        string             `json:"name"`
	Description string             `json:"description"`
	Args        []Arg              `json:"args"`
	Phases      []PhaseDescription `json:"phases"`
	Tools       []string           `json:"tools"`
	Composes    []string           `json:"composes,omitempty"`
	RunFolder   string             `json:"run_folder"`
	Outcomes    map[string]string  `json:"outcomes"`
}

// PhaseDescription is one phase exported as data.
type PhaseDescription struct {
	Index    int      `json:"index"`
	Name     string   `json:"name"`
	Title    string   `json:"title"`
	Detail   string   `json:"detail"`
	Gate     string   `json:"gate"`
	Tools    []string `json:"tools"`
	Judgment string   `json:"judgment,omitempty"`
	Stage    string   `json:"stage,omitempty"`
	From     string   `json:"from,omitempty"`
}

// Outcome statuses of a run.
const (
	StatusRunning    = "running"
	StatusDone       = "done"
	StatusIncomplete = "incomplete"
	StatusStopped    = "stopped"
	StatusFailed     = "failed"
	StatusCancelled  = "cancelled"
)

// Phase statuses.
const (
	PhasePending   = "pending"
	PhaseRunning   = "running"
	PhasePassed    = "passed"
	PhaseFailed    = "failed"
	PhaseStopped   = "stopped"
	PhaseCancelled = "cancelled"
)

// outcomeDocs says what each run status means (exported in descriptions).
var outcomeDocs = map[string]string{
	StatusDone: "every phase passed and the result is ready (a pipeline: deployable, and it ran locally); outputs holds the workflow's results (exit 0)",
	StatusIncomplete: "every phase passed but the result is not ready: reason, and outputs.blockers, say what is left (placeholder values, scripts to write, a local run that failed); " +
		"fix it, then resume: the readiness phase runs again (exit 0)",
	StatusFailed:    "a gate failed: failed_at names the phase and envelope is the failing tool's answer; fix the cause and resume (exit 1)",
	StatusStopped:   "a phase needs judgment: stopped_at, reason, action_items and tool_calls say what to do; then resume, and the same gate checks it (exit 3)",
	StatusCancelled: "the context was cancelled mid-phase; resume continues at that phase without redoing passed ones (exit 1)",
}

// Describe exports the workflow as data.
func (w *Workflow) Describe() Description {
	d := Description{
		Name: w.Name, Description: w.Description, Args: append([]Arg{}, w.Args...),
		RunFolder: "runs/<run_id>/ under the project root: workflow.json (the run state), dag.json, config.json, reports/*.json, pipeline.definition.json and the answers a judgment asks for",
		Outcomes:  map[string]string{},
	}
	for k, v := range outcomeDocs {
		if k != StatusIncomplete || w.Ready != nil {
			d.Outcomes[k] = v
		}
	}
	seenTool := map[string]bool{}
	seenFrom := map[string]bool{}
	for i, p := range w.Phases {
		d.Phases = append(d.Phases, PhaseDescription{
			Index: i + 1, Name: p.Name, Title: p.Title, Detail: p.Detail, Gate: p.Gate,
			Tools: append([]string{}, p.Tools...), Judgment: p.Judgment, Stage: p.Stage, From: p.From,
		})
		for _, t := range p.Tools {
			if !seenTool[t] {
				seenTool[t] = true
				d.Tools = append(d.Tools, t)
			}
		}
		if p.From != "" && !seenFrom[p.From] {
			seenFrom[p.From] = true
			d.Composes = append(d.Composes, p.From)
		}
	}
	sort.Strings(d.Tools)
	return d
}

// nested returns w's phases renamed for composition into another workflow.
func nested(w *Workflow) []Phase {
	out := make([]Phase, 0, len(w.Phases))
	for _, p := range w.Phases {
		p.Name = w.Name + "/" + p.Name
		p.From = w.Name
		out = append(out, p)
	}
	return out
}

var argNameRE = lazyre.New(`^[a-z][a-z0-9_]*$`)

// NormalizeArgs checks args against the declared arguments (unknown keys,
// types, enums, required) and the workflow's semantic checks, and returns a
// copy with defaults applied. Every problem is reported at once in an
// *ArgsError.
func (w *Workflow) NormalizeArgs(args map[string]any) (map[string]any, error) {
	out := map[string]any{}
	var probs []string
	declared := map[string]Arg{}
	for _, a := range w.Args {
		declared[a.Name] = a
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		a, ok := declared[k]
		if !ok {
			names := make([]string, 0, len(w.Args))
			for _, a := range w.Args {
				names = append(names, a.Name)
			}
			probs = append(probs, fmt.Sprintf("%s: unknown argument (expected: %s)", k, strings.Join(names, ", ")))
			continue
		}
		v := args[k]
		if v == nil {
			continue
		}
		if p := checkType(a, v); p != "" {
			probs = append(probs, k+": "+p)
			continue
		}
		out[k] = v
	}
	for _, a := range w.Args {
		if _, ok := out[a.Name]; ok {
			continue
		}
		if a.Required {
			probs = append(probs, a.Name+": required")
			continue
		}
		if a.Default != nil {
			out[a.Name] = cloneJSON(a.Default)
		}
	}
	if len(probs) == 0 && w.Check != nil {
		probs = append(probs, w.Check(out)...)
	}
	if len(probs) > 0 {
		return nil, &ArgsError{Workflow: w.Name, Problems: probs}
	}
	return out, nil
}

func checkType(a Arg, v any) string {
	switch a.Type {
	case "string":
		s, ok := v.(string)
		if !ok {
			return fmt.Sprintf("must be a string, got %s", jsonType(v))
		}
		if len(a.Enum) > 0 && !slices.Contains(a.Enum, s) {
			return fmt.Sprintf("must be one of %s, got %q", strings.Join(a.Enum, ", "), s)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Sprintf("must be a boolean, got %s", jsonType(v))
		}
	case "integer":
		f, ok := v.(float64)
		if !ok || f != math.Trunc(f) {
			if _, isInt := v.(int); !isInt {
				return fmt.Sprintf("must be an integer, got %s", jsonType(v))
			}
		}
	case "number":
		switch v.(type) {
		case float64, int:
		default:
			return fmt.Sprintf("must be a number, got %s", jsonType(v))
		}
	case "object":
		if _, ok := v.(map[string]any); !ok {
			return fmt.Sprintf("must be an object, got %s", jsonType(v))
		}
	case "array":
		if _, ok := v.([]any); !ok {
			return fmt.Sprintf("must be an array, got %s", jsonType(v))
		}
	}
	return ""
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, int:
		return "a number"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// cloneJSON deep-copies a JSON-shaped value.
func cloneJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}

var (
	builtinOnce sync.Once
	builtins    map[string]*Workflow
	builtinList []*Workflow
)

func loadBuiltins() {
	builtinOnce.Do(func() {
		ws := []*Workflow{initProject(), configurePipeline(), authorStep(), newProject()}
		builtins = map[string]*Workflow{}
		for _, w := range ws {
			if err := validateWorkflow(w); err != nil {
				panic(err)
			}
			builtins[w.Name] = w
		}
		builtinList = ws
		sort.Slice(builtinList, func(i, j int) bool { return builtinList[i].Name < builtinList[j].Name })
	})
}

// validateWorkflow checks the invariants a test also checks: names,
// unique phase names, every phase runnable, arguments named in snake case.
func validateWorkflow(w *Workflow) error {
	if w.Name == "" || w.Description == "" || len(w.Phases) == 0 {
		return fmt.Errorf("workflow %q: name, description and phases are required", w.Name)
	}
	seen := map[string]bool{}
	for _, p := range w.Phases {
		if p.Name == "" || p.Title == "" || p.Gate == "" || p.Run == nil {
			return fmt.Errorf("workflow %s: phase %q needs a name, a title, a gate and a run function", w.Name, p.Name)
		}
		if seen[p.Name] {
			return fmt.Errorf("workflow %s: phase %q declared twice", w.Name, p.Name)
		}
		seen[p.Name] = true
	}
	for _, a := range w.Args {
		if !argNameRE().MatchString(a.Name) {
			return fmt.Errorf("workflow %s: argument %q is not snake case", w.Name, a.Name)
		}
	}
	return nil
}

// List returns the built-in workflows, sorted by name. Do not modify them.
func List() []*Workflow {
	loadBuiltins()
	return slices.Clone(builtinList)
}

// Names returns the names of the built-in workflows, sorted.
func Names() []string {
	loadBuiltins()
	out := make([]string, 0, len(builtinList))
	for _, w := range builtinList {
		out = append(out, w.Name)
	}
	return out
}

// Get returns the built-in workflow with the name; the error is an
// *UnknownWorkflowError.
func Get(name string) (*Workflow, error) {
	loadBuiltins()
	if w, ok := builtins[name]; ok {
		return w, nil
	}
	// Accept the file-stem names cursus (Python) uses (cursus-new-project).
	if w, ok := builtins[strings.TrimPrefix(name, "cursus-")]; ok {
		return w, nil
	}
	return nil, &UnknownWorkflowError{Name: name, Available: Names()}
}
