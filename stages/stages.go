package stages

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/cursus-go/cursus/internal/lazyre"
)

//go:embed stages.yaml
var embedded []byte

// Tier is the recommended model tier of a stage.
type Tier string

// The model tiers. strong is for judgment (designing a DAG, authoring a
// step); fast is for tool-driven, checkable work.
const (
	TierStrong Tier = "strong"
	TierFast   Tier = "fast"
)

// The completion check kinds (see the package doc).
const (
	CheckDAGValid       = "dag_valid"
	CheckStepsKnown     = "steps_known"
	CheckConfigResolves = "config_resolves"
	CheckReport         = "report"
	CheckDefinition     = "definition"
)

// CheckKinds lists every completion check kind, sorted.
var CheckKinds = []string{CheckConfigResolves, CheckDAGValid, CheckDefinition, CheckReport, CheckStepsKnown}

// Stage is one stage of a guided run. Treat it as read-only.
type Stage struct {
	// Name is the stage's identifier (plan, configure, ...).
	Name string `yaml:"name" json:"name"`
	// Description says what the stage is for, in a sentence or two.
	Description string `yaml:"description" json:"description"`
	// ModelTier is the recommended model tier for the agent doing the stage.
	ModelTier Tier `yaml:"model_tier" json:"model_tier"`
	// Tools are the dotted names of the tools visible in the stage, besides
	// the tools of the always-visible namespaces.
	Tools []string `yaml:"tools" json:"tools"`
	// Prompt is the instruction handed to the agent doing the stage; it may
	// hold run placeholders (see Expand).
	Prompt string `yaml:"prompt" json:"prompt"`
	// Checklist is what the agent must have done before completing the stage.
	Checklist []string `yaml:"checklist" json:"checklist"`
	// Completion is the stage's completion test: every check must pass.
	Completion []Check `yaml:"completion" json:"completion,omitempty"`
	// Record lists tools whose results are recorded as run reports while the
	// stage is active.
	Record []Record `yaml:"record" json:"record,omitempty"`
}

// Check is one completion check.
type Check struct {
	// Kind is one of CheckKinds.
	Kind string `yaml:"check" json:"check"`
	// Tool names the recorded report a "report" check reads.
	Tool string `yaml:"tool" json:"tool,omitempty"`
	// Require lists fields of the report's data that must be true.
	Require []string `yaml:"require" json:"require,omitempty"`
}

// Record says that a tool's results are recorded while the stage is active.
type Record struct {
	// Tool is the dotted name of the tool.
	Tool string `yaml:"tool" json:"tool"`
	// Capture, when set, also writes one field of the tool's data to a run artifact.
	Capture *Capture `yaml:"capture" json:"capture,omitempty"`
}

// Capture writes one field of a successful result's data to a run artifact.
type Capture struct {
	// Field is the top-level key of the result's data.
	Field string `yaml:"field" json:"field"`
	// File is the artifact written: one of ArtifactNames.
	File string `yaml:"file" json:"file"`
}

// Set is a loaded, validated set of stages. It is read-only and safe for
// concurrent use.
type Set struct {
	always   []string
	never    map[string]bool
	hub      string
	sequence []string
	stages   []*Stage
	byName   map[string]*Stage
	offered  map[string][]string // tool -> stages listing it
	tools    []string
}

type fileFormat struct {
	AlwaysVisible []string `yaml:"always_visible"`
	NeverVisible  []string `yaml:"never_visible"`
	Hub           string   `yaml:"hub"`
	Sequence      []string `yaml:"sequence"`
	Stages        []*Stage `yaml:"stages"`
}

var (
	defaultOnce sync.Once
	defaultSet  *Set
	defaultErr  error
)

// Default returns the embedded stages (stages.yaml), loaded and validated
// once.
func Default() (*Set, error) {
	defaultOnce.Do(func() { defaultSet, defaultErr = Parse(embedded) })
	return defaultSet, defaultErr
}

var (
	stageNameRE = lazyre.New(`^[a-z][a-z0-9_]*$`)
	toolNameRE  = lazyre.New(`^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$`)
	nsNameRE    = lazyre.New(`^[a-z][a-z0-9_]*$`)
	placeholder = lazyre.New(`\{[a-z_]+\}`)
)

// LoadError lists every problem found while loading a stages file.
type LoadError struct {
	Problems []string
}

// Error joins the problems.
func (e *LoadError) Error() string {
	return "stages: " + strings.Join(e.Problems, "; ")
}

// Parse decodes and validates a stages file (unknown keys are errors).
func Parse(data []byte) (*Set, error) {
	var f fileFormat
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, &LoadError{Problems: []string{err.Error()}}
	}
	return build(f)
}

func build(f fileFormat) (*Set, error) {
	var probs []string
	bad := func(format string, a ...any) { probs = append(probs, fmt.Sprintf(format, a...)) }
	s := &Set{hub: f.Hub, byName: map[string]*Stage{}, offered: map[string][]string{}, never: map[string]bool{}}
	seenNS := map[string]bool{}
	for _, ns := range f.AlwaysVisible {
		if !nsNameRE().MatchString(ns) {
			bad("always_visible: %q is not a namespace name", ns)
		} else if seenNS[ns] {
			bad("always_visible: %q listed twice", ns)
		}
		seenNS[ns] = true
		s.always = append(s.always, ns)
	}
	for _, t := range f.NeverVisible {
		if !seenNS[namespaceOf(t)] {
			bad("never_visible: %q is not a tool of an always-visible namespace", t)
		}
		s.never[t] = true
	}
	if len(f.Stages) == 0 {
		bad("no stages")
	}
	allTools := map[string]bool{}
	for i, st := range f.Stages {
		where := fmt.Sprintf("stages[%d]", i)
		if st == nil {
			bad("%s: empty", where)
			continue
		}
		if st.Name != "" {
			where = "stage " + st.Name
		}
		if !stageNameRE().MatchString(st.Name) {
			bad("%s: name %q must be lower snake case", where, st.Name)
		}
		if _, dup := s.byName[st.Name]; dup {
			bad("%s: defined twice", where)
		}
		st.Description = strings.TrimSpace(st.Description)
		st.Prompt = strings.TrimSpace(st.Prompt)
		if st.Description == "" {
			bad("%s: description is empty", where)
		}
		if st.Prompt == "" {
			bad("%s: prompt is empty", where)
		}
		if len(st.Checklist) == 0 {
			bad("%s: checklist is empty", where)
		}
		for j, c := range st.Checklist {
			if strings.TrimSpace(c) == "" {
				bad("%s: checklist[%d] is empty", where, j)
			}
		}
		if st.ModelTier != TierStrong && st.ModelTier != TierFast {
			bad("%s: model_tier %q must be %q or %q", where, st.ModelTier, TierStrong, TierFast)
		}
		for _, text := range append([]string{st.Prompt}, st.Checklist...) {
			for _, ph := range placeholder().FindAllString(text, -1) {
				if !knownPlaceholder[ph] {
					bad("%s: unknown placeholder %s (known: %s)", where, ph, strings.Join(placeholderNames(), ", "))
				}
			}
		}
		seen := map[string]bool{}
		for _, t := range st.Tools {
			if !toolNameRE().MatchString(t) {
				bad("%s: tool %q is not a dotted tool name", where, t)
				continue
			}
			if seen[t] {
				bad("%s: tool %q listed twice", where, t)
			}
			if seenNS[namespaceOf(t)] {
				bad("%s: tool %q is in an always-visible namespace; do not list it", where, t)
			}
			seen[t] = true
			if !allTools[t] {
				allTools[t] = true
				s.tools = append(s.tools, t)
			}
			s.offered[t] = append(s.offered[t], st.Name)
		}
		for j, c := range st.Completion {
			cw := fmt.Sprintf("%s: completion[%d]", where, j)
			switch c.Kind {
			case CheckDAGValid, CheckStepsKnown, CheckConfigResolves, CheckDefinition:
				if c.Tool != "" || len(c.Require) > 0 {
					bad("%s: check %s takes no tool or require", cw, c.Kind)
				}
			case CheckReport:
				if c.Tool == "" {
					bad("%s: a report check needs tool", cw)
				} else if !hasRecord(st, c.Tool) {
					bad("%s: report check on %s, which the stage does not record", cw, c.Tool)
				}
				for _, r := range c.Require {
					if strings.TrimSpace(r) == "" {
						bad("%s: empty require field", cw)
					}
				}
			default:
				bad("%s: unknown check %q (known: %s)", cw, c.Kind, strings.Join(CheckKinds, ", "))
			}
		}
		recorded := map[string]bool{}
		for j, r := range st.Record {
			rw := fmt.Sprintf("%s: record[%d]", where, j)
			if !seen[r.Tool] {
				bad("%s: records %q, which the stage does not list in tools", rw, r.Tool)
			}
			if recorded[r.Tool] {
				bad("%s: %q recorded twice", rw, r.Tool)
			}
			recorded[r.Tool] = true
			if r.Capture != nil {
				if strings.TrimSpace(r.Capture.Field) == "" {
					bad("%s: capture needs field", rw)
				}
				if _, ok := artifactFiles[r.Capture.File]; !ok {
					bad("%s: capture file %q is not an artifact (%s)", rw, r.Capture.File, strings.Join(ArtifactNames, ", "))
				}
			}
		}
		s.byName[st.Name] = st
		s.stages = append(s.stages, st)
	}
	if hub, ok := s.byName[f.Hub]; !ok {
		bad("hub %q is not a stage", f.Hub)
	} else if len(hub.Completion) > 0 {
		bad("hub %q must have no completion test", f.Hub)
	}
	inSeq := map[string]bool{}
	for _, n := range f.Sequence {
		st, ok := s.byName[n]
		switch {
		case !ok:
			bad("sequence: %q is not a stage", n)
		case n == f.Hub:
			bad("sequence: the hub %q cannot be in the sequence", n)
		case inSeq[n]:
			bad("sequence: %q listed twice", n)
		case len(st.Completion) == 0:
			bad("sequence: stage %q has no completion test", n)
		}
		inSeq[n] = true
		s.sequence = append(s.sequence, n)
	}
	if len(s.sequence) == 0 {
		bad("sequence is empty")
	}
	for _, st := range s.stages {
		if st.Name != f.Hub && !inSeq[st.Name] {
			bad("stage %q is neither the hub nor in the sequence", st.Name)
		}
	}
	if len(probs) > 0 {
		return nil, &LoadError{Problems: probs}
	}
	sort.Strings(s.tools)
	return s, nil
}

func hasRecord(st *Stage, tool string) bool {
	for _, r := range st.Record {
		if r.Tool == tool {
			return true
		}
	}
	return false
}

func namespaceOf(tool string) string {
	if i := strings.IndexByte(tool, '.'); i >= 0 {
		return tool[:i]
	}
	return tool
}

// Hub is the stage a session starts in and returns to (orchestrator).
func (s *Set) Hub() string { return s.hub }

// Sequence is the order in which stages are picked.
func (s *Set) Sequence() []string { return append([]string(nil), s.sequence...) }

// AlwaysVisible lists the namespaces whose tools every stage shows.
func (s *Set) AlwaysVisible() []string { return append([]string(nil), s.always...) }

// Stage returns a stage by name.
func (s *Set) Stage(name string) (*Stage, bool) {
	st, ok := s.byName[name]
	return st, ok
}

// Stages returns every stage: the hub, then the sequence.
func (s *Set) Stages() []*Stage {
	out := make([]*Stage, 0, len(s.stages))
	out = append(out, s.byName[s.hub])
	for _, n := range s.sequence {
		out = append(out, s.byName[n])
	}
	return out
}

// Names returns the stage names: the hub, then the sequence.
func (s *Set) Names() []string {
	out := []string{s.hub}
	return append(out, s.sequence...)
}

// Tools returns every tool any stage lists, sorted (the always-visible
// namespaces are not expanded).
func (s *Set) Tools() []string { return append([]string(nil), s.tools...) }

// IsAlwaysVisible reports whether the tool's namespace is always visible
// (and the tool is not one never visible).
func (s *Set) IsAlwaysVisible(tool string) bool {
	if s.never[tool] {
		return false
	}
	ns := namespaceOf(tool)
	for _, a := range s.always {
		if a == ns {
			return true
		}
	}
	return false
}

// Visible reports whether a tool (dotted name) is visible in a stage.
func (s *Set) Visible(stage, tool string) bool {
	if s.IsAlwaysVisible(tool) {
		return true
	}
	for _, n := range s.offered[tool] {
		if n == stage {
			return true
		}
	}
	return false
}

// Lists reports whether a stage names a tool itself (not through an
// always-visible namespace).
func (s *Set) Lists(stage, tool string) bool {
	for _, n := range s.offered[tool] {
		if n == stage {
			return true
		}
	}
	return false
}

// Offering returns the stages that list a tool, in Names order; every stage
// when the tool's namespace is always visible; nil when none does.
func (s *Set) Offering(tool string) []string {
	if s.IsAlwaysVisible(tool) {
		return s.Names()
	}
	in := map[string]bool{}
	for _, n := range s.offered[tool] {
		in[n] = true
	}
	var out []string
	for _, n := range s.Names() {
		if in[n] {
			out = append(out, n)
		}
	}
	return out
}

// RecordFor returns the stage's record of a tool.
func (st *Stage) RecordFor(tool string) (Record, bool) {
	for _, r := range st.Record {
		if r.Tool == tool {
			return r, true
		}
	}
	return Record{}, false
}

// ErrUnknownStage is returned (wrapped) for a stage name that is not in the set.
var ErrUnknownStage = errors.New("unknown stage")

// Lookup returns a stage or an error wrapping ErrUnknownStage that lists the
// known stages.
func (s *Set) Lookup(name string) (*Stage, error) {
	if st, ok := s.byName[name]; ok {
		return st, nil
	}
	return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownStage, name, strings.Join(s.Names(), ", "))
}

var knownPlaceholder = map[string]bool{
	"{run_id}": true, "{run_dir}": true, "{dag_file}": true, "{config_file}": true,
	"{reports_dir}": true, "{definition_file}": true, "{steps_dir}": true,
}

func placeholderNames() []string {
	out := make([]string, 0, len(knownPlaceholder))
	for k := range knownPlaceholder {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Expand replaces the run placeholders in text with the run's values
// (absolute paths).
func Expand(text string, r *Run) string {
	if r == nil {
		return text
	}
	return strings.NewReplacer(
		"{run_id}", r.ID, "{run_dir}", r.Dir, "{dag_file}", r.DAGPath(), "{config_file}", r.ConfigPath(),
		"{reports_dir}", r.ReportsPath(), "{definition_file}", r.DefinitionPath(), "{steps_dir}", r.StepsPath(),
	).Replace(text)
}
