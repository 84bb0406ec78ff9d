package strategies

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/errkind"
)

// The axes of the library.
const (
	AxisSageMakerStepType = "sagemaker_step_type"
	AxisStepAssembly      = "step_assembly"
)

// Axes lists the axes, sorted.
var Axes = []string{AxisSageMakerStepType, AxisStepAssembly}

// AxisDescriptions say what each axis routes on.
var AxisDescriptions = map[string]string{
	AxisSageMakerStepType: "The SageMaker verb of a non-Processing step (the compiler's builders but Processing's: Training, CreateModel, Transform, ...): one builder each.",
	AxisStepAssembly:      "How a Processing step is assembled (patterns.step_assembly in its step file): code or step_args.",
}

// DefaultAssembly is the assembly of a Processing step that names none.
const DefaultAssembly = "code"

// Knob is one setting a strategy's builder reads.
type Knob struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Default  any    `json:"default"`
	Required bool   `json:"required"`
	Source   string `json:"source"` // patterns | contract | compute | config | preset
	Doc      string `json:"doc"`
}

// Strategy is one way the compiler builds steps.
type Strategy struct {
	Axis           string         `json:"axis"`
	Name           string         `json:"name"`
	Verb           string         `json:"verb"`    // the SageMaker verb of the steps it builds
	Handler        string         `json:"handler"` // the compiler builder (compiler.BuilderInfo.Name)
	DefinitionType string         `json:"definition_type"`
	APIRequest     string         `json:"api_request"`
	Routable       bool           `json:"routable"`
	Implemented    bool           `json:"implemented"`
	Description    string         `json:"description"`
	Knobs          []Knob         `json:"knobs"`
	PresetKnobs    map[string]any `json:"preset_knobs"`
	StepTypes      []string       `json:"step_types"` // catalog step types routed to it
}

// Library is a read-only set of strategies, safe for concurrent use.
type Library struct {
	strategies []*Strategy // sorted by axis, name
	cat        *catalog.Catalog
}

var (
	defaultOnce sync.Once
	defaultLib  *Library
	defaultErr  error
)

// Default returns the library of the compiler's builders and the embedded
// step catalog, built once.
func Default() (*Library, error) {
	defaultOnce.Do(func() {
		cat, err := catalog.Default()
		if err != nil {
			defaultErr = fmt.Errorf("load the step catalog: %w", err)
			return
		}
		defaultLib, defaultErr = New(compiler.Builders(), cat)
	})
	return defaultLib, defaultErr
}

// New builds a library from a builder table and a step catalog (which says
// which step types each strategy builds and which config knobs are
// required). A Processing builder without assemblies gets DefaultAssembly.
func New(builders []compiler.BuilderInfo, cat *catalog.Catalog) (*Library, error) {
	l := &Library{cat: cat}
	seen := map[string]bool{}
	for _, b := range builders {
		if b.Name == "" {
			return nil, fmt.Errorf("builder of verb %s has no name", b.Verb)
		}
		if b.Verb == catalog.VerbProcessing {
			asm := b.Assemblies
			if len(asm) == 0 {
				asm = []string{DefaultAssembly}
			}
			for _, a := range asm {
				s := l.newStrategy(AxisStepAssembly, a, b)
				s.PresetKnobs = map[string]any{"use_step_args": a == "step_args"}
				s.Description = assemblyDescription(a, b)
				s.StepTypes = l.stepTypes(b.Verb, a)
				s.Knobs = append([]Knob{{Name: "patterns.step_assembly", Type: "string", Default: DefaultAssembly, Source: "patterns",
					Doc: "Chooses this strategy in a step file (" + strings.Join(asm, " or ") + ")."}}, l.knobs(b, s.StepTypes)...)
				if err := l.add(s, seen); err != nil {
					return nil, err
				}
			}
			continue
		}
		s := l.newStrategy(AxisSageMakerStepType, string(b.Verb), b)
		s.PresetKnobs = map[string]any{}
		s.Description = fmt.Sprintf("Builds every %s step as a %s step whose Arguments mirror %s (%s).", b.Verb, b.DefinitionType, b.APIRequest, b.Name)
		if b.APIRequest == "" {
			s.Description = fmt.Sprintf("Builds every %s step as a %s step, which starts no SageMaker job (%s).", b.Verb, b.DefinitionType, b.Name)
		}
		s.StepTypes = l.stepTypes(b.Verb, "")
		s.Knobs = l.knobs(b, s.StepTypes)
		if err := l.add(s, seen); err != nil {
			return nil, err
		}
	}
	sort.Slice(l.strategies, func(i, j int) bool {
		a, b := l.strategies[i], l.strategies[j]
		if a.Axis != b.Axis {
			return a.Axis < b.Axis
		}
		return a.Name < b.Name
	})
	return l, nil
}

func (l *Library) add(s *Strategy, seen map[string]bool) error {
	k := s.Axis + "/" + s.Name
	if seen[k] {
		return fmt.Errorf("strategy %s defined twice (two builders of verb %s?)", k, s.Verb)
	}
	seen[k] = true
	l.strategies = append(l.strategies, s)
	return nil
}

func (l *Library) newStrategy(axis, name string, b compiler.BuilderInfo) *Strategy {
	return &Strategy{Axis: axis, Name: name, Verb: string(b.Verb), Handler: b.Name, DefinitionType: b.DefinitionType,
		APIRequest: b.APIRequest, Routable: true, Implemented: true}
}

func assemblyDescription(a string, b compiler.BuilderInfo) string {
	switch a {
	case "code":
		return fmt.Sprintf("Processing step built from the script (the SDK's ProcessingStep(code=...)); Arguments mirror %s (%s).", b.APIRequest, b.Name)
	case "step_args":
		return fmt.Sprintf("Processing step the SDK builds from processor.run(...) step arguments; here it emits the same %s arguments as code (%s).", b.APIRequest, b.Name)
	}
	return fmt.Sprintf("Processing assembly %q of %s.", a, b.Name)
}

// stepTypes lists the catalog step types of a verb (and, for Processing,
// of an assembly), sorted.
func (l *Library) stepTypes(v catalog.Verb, assembly string) []string {
	out := []string{}
	if l.cat == nil {
		return out
	}
	for _, st := range l.cat.Steps() {
		if st.Verb != v {
			continue
		}
		if v == catalog.VerbProcessing {
			a := st.Patterns.StepAssembly
			if a == "" {
				a = DefaultAssembly
			}
			if a != assembly {
				continue
			}
		}
		out = append(out, string(st.Type))
	}
	return out
}

// knobs converts a builder's knobs; a config knob is required when every
// step type routed to the strategy declares the field as essential.
func (l *Library) knobs(b compiler.BuilderInfo, stepTypes []string) []Knob {
	out := make([]Knob, 0, len(b.Knobs))
	for _, k := range b.Knobs {
		kn := Knob{Name: k.Name, Type: k.Type, Default: k.Default, Source: k.Source, Doc: k.Doc}
		if k.Source == "config" && l.cat != nil && len(stepTypes) > 0 {
			kn.Required = true
			for _, t := range stepTypes {
				st, ok := l.cat.Step(catalog.StepType(t))
				f, has := st.Field(k.Name)
				if !ok || !has || !f.Required() {
					kn.Required = false
					break
				}
			}
		}
		out = append(out, kn)
	}
	return out
}

// AxisInfo is one axis with its strategy count.
type AxisInfo struct {
	Axis          string `json:"axis"`
	StrategyCount int    `json:"strategy_count"`
	Description   string `json:"description"`
}

// ListAxes returns every axis with its strategy count.
func (l *Library) ListAxes() []AxisInfo {
	out := make([]AxisInfo, 0, len(Axes))
	for _, a := range Axes {
		n := 0
		for _, s := range l.strategies {
			if s.Axis == a {
				n++
			}
		}
		out = append(out, AxisInfo{Axis: a, StrategyCount: n, Description: AxisDescriptions[a]})
	}
	return out
}

// ErrNotFound is matched (errors.Is) by *NotFoundError.
var ErrNotFound = errors.New("no such strategy")

// NotFoundError reports a strategy (or a step type without a builder) the
// library does not have.
type NotFoundError struct {
	What      string   // what was asked for
	Axis      string   // the axis looked in ("" = all)
	Reason    string   // why nothing matched
	Available []string // "axis/name" of every strategy, or the axis's names
}

// Error implements error.
func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("no strategy %q", e.What)
	if e.Axis != "" {
		msg += " on axis " + e.Axis
	}
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// Is makes errors.Is(err, ErrNotFound) true.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// Kind implements errkind.Kinded: NotFound.
func (e *NotFoundError) Kind() errkind.Kind { return errkind.NotFound }

// Details implements errkind.Detailer: what was asked for, the axis and
// the strategies there are.
func (e *NotFoundError) Details() map[string]any {
	avail := slices.Clone(e.Available)
	if avail == nil {
		avail = []string{}
	}
	return map[string]any{"name": e.What, "axis": e.Axis, "available": avail}
}

// AxisError reports an unknown axis.
type AxisError struct{ Axis string }

// Error implements error.
func (e *AxisError) Error() string {
	return fmt.Sprintf("unknown axis %q: want one of %s", e.Axis, strings.Join(Axes, ", "))
}

// Kind implements errkind.Kinded: InvalidInput.
func (e *AxisError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: the axes there are.
func (e *AxisError) Details() map[string]any { return map[string]any{"axes": slices.Clone(Axes)} }

// AmbiguousError reports a name that exists on several axes.
type AmbiguousError struct {
	Name string
	Axes []string
}

// Error implements error.
func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("strategy %q exists on several axes (%s); pass axis", e.Name, strings.Join(e.Axes, ", "))
}

// Kind implements errkind.Kinded: InvalidInput.
func (e *AmbiguousError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: the name and the axes it is on.
func (e *AmbiguousError) Details() map[string]any {
	return map[string]any{"name": e.Name, "axes": slices.Clone(e.Axes)}
}

func checkAxis(axis string) error {
	if axis != "" && !slices.Contains(Axes, axis) {
		return &AxisError{Axis: axis}
	}
	return nil
}

// List returns the strategies of an axis ("" = all), sorted by axis and
// name. The strategies are shared and must not be modified.
func (l *Library) List(axis string) ([]*Strategy, error) {
	if err := checkAxis(axis); err != nil {
		return nil, err
	}
	var out []*Strategy
	for _, s := range l.strategies {
		if axis == "" || s.Axis == axis {
			out = append(out, s)
		}
	}
	return out, nil
}

// Names returns "axis/name" of every strategy of an axis ("" = all).
func (l *Library) Names(axis string) []string {
	var out []string
	for _, s := range l.strategies {
		if axis == "" || s.Axis == axis {
			out = append(out, s.Axis+"/"+s.Name)
		}
	}
	return out
}

// Show returns the strategy with a name (case-insensitive), on one axis or
// on any. Errors: *AxisError, *NotFoundError, *AmbiguousError (the name is
// on several axes and none was given).
func (l *Library) Show(name, axis string) (*Strategy, error) {
	if err := checkAxis(axis); err != nil {
		return nil, err
	}
	name = strings.TrimSpace(name)
	var hits []*Strategy
	for _, s := range l.strategies {
		if strings.EqualFold(s.Name, name) && (axis == "" || s.Axis == axis) {
			hits = append(hits, s)
		}
	}
	switch len(hits) {
	case 0:
		return nil, &NotFoundError{What: name, Axis: axis, Available: l.Names(axis)}
	case 1:
		return hits[0], nil
	}
	axes := make([]string, len(hits))
	for i, h := range hits {
		axes[i] = h.Axis
	}
	return nil, &AmbiguousError{Name: name, Axes: axes}
}

// Knobs returns the knobs of one strategy (axis and name required).
func (l *Library) Knobs(axis, name string) ([]Knob, *Strategy, error) {
	if axis == "" {
		return nil, nil, &AxisError{Axis: axis}
	}
	s, err := l.Show(name, axis)
	if err != nil {
		return nil, nil, err
	}
	return s.Knobs, s, nil
}

// Route is the strategy a step type is built with.
type Route struct {
	SageMakerStepType string    `json:"sagemaker_step_type"` // as asked
	StepAssembly      string    `json:"step_assembly"`       // as asked, or the step file's, or "" for non-Processing
	Verb              string    `json:"verb"`                // the verb it resolved to
	StepType          string    `json:"step_type,omitempty"` // the catalog step type, when one was named
	ResolvedAxis      string    `json:"resolved_axis"`
	ResolvedName      string    `json:"resolved_name"`
	Strategy          *Strategy `json:"strategy"`
	Notes             []string  `json:"notes,omitempty"`
	// Warnings are the notes that say part of the request was ignored
	// (also in Notes).
	Warnings []string `json:"-"`
}

// verbAliases map other names of the verbs to them (the definition's
// step type "Model", and "ModelCreation", cursus (Python)'s verb).
var verbAliases = map[string]catalog.Verb{"model": catalog.VerbCreateModel, "modelcreation": catalog.VerbCreateModel,
	"registermodelstep": catalog.VerbRegisterModel, "register": catalog.VerbRegisterModel}

// ForStepType routes a SageMaker step type (a verb, or a catalog step type
// or node name) and an optional step assembly to a strategy. Errors:
// *NotFoundError for a type without a builder or an unknown assembly.
func (l *Library) ForStepType(stepType, assembly string) (*Route, error) {
	stepType, assembly = strings.TrimSpace(stepType), strings.TrimSpace(assembly)
	r := &Route{SageMakerStepType: stepType, StepAssembly: assembly}
	var verb catalog.Verb
	for _, v := range catalog.Verbs {
		if strings.EqualFold(string(v), stepType) {
			verb = v
		}
	}
	if verb == "" {
		if v, ok := verbAliases[strings.ToLower(stepType)]; ok {
			verb = v
		}
	}
	if verb == "" && l.cat != nil {
		if st, _, err := l.cat.Lookup(stepType); err == nil {
			verb, r.StepType = st.Verb, string(st.Type)
			if st.Verb == catalog.VerbProcessing && assembly == "" && st.Patterns.StepAssembly != "" {
				assembly = st.Patterns.StepAssembly
				r.Notes = append(r.Notes, fmt.Sprintf("step assembly %s from %s's step file", assembly, st.Type))
			}
			r.Notes = append(r.Notes, fmt.Sprintf("%s is a %s step", st.Type, st.Verb))
		}
	}
	if verb == "" {
		return nil, &NotFoundError{What: stepType, Axis: AxisSageMakerStepType,
			Reason: "no builder for this SageMaker step type (the compiler builds " + l.verbList() + ")", Available: l.Names("")}
	}
	r.Verb = string(verb)
	if verb == catalog.VerbProcessing {
		if assembly == "" {
			assembly = DefaultAssembly
			r.Notes = append(r.Notes, "no step assembly given: Processing defaults to "+DefaultAssembly)
		}
		r.StepAssembly = assembly
		r.ResolvedAxis, r.ResolvedName = AxisStepAssembly, assembly
	} else {
		if assembly != "" {
			w := fmt.Sprintf("step_assembly %q ignored: only Processing steps have assemblies", assembly)
			r.Notes, r.Warnings = append(r.Notes, w), append(r.Warnings, w)
			r.StepAssembly = ""
		}
		r.ResolvedAxis, r.ResolvedName = AxisSageMakerStepType, string(verb)
	}
	s, err := l.Show(r.ResolvedName, r.ResolvedAxis)
	if err != nil {
		var nf *NotFoundError
		if errors.As(err, &nf) {
			nf.What = r.ResolvedName
			if r.ResolvedAxis == AxisStepAssembly {
				nf.Reason = "unknown step assembly for Processing steps"
			} else {
				nf.Reason = "the compiler has no builder for " + string(verb)
			}
		}
		return nil, err
	}
	r.Strategy = s
	return r, nil
}

func (l *Library) verbList() string {
	var vs []string
	for _, s := range l.strategies {
		if !slices.Contains(vs, s.Verb) {
			vs = append(vs, s.Verb)
		}
	}
	return strings.Join(vs, ", ")
}
