package config

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
)

// Names of the two abstract config classes and their step keys.
const (
	BaseClass           = "BasePipelineConfig"
	ProcessingBaseClass = "ProcessingStepConfigBase"
	BaseStepType        = catalog.StepType("Base")
	ProcessingStepType  = catalog.StepType("Processing")
)

// Field-set names the schema reads from the catalog.
const (
	FieldSetBase       = "base"
	FieldSetProcessing = "processing"
)

// Class is one config class: the effective field declarations of a step type
// (base set, processing set for processing steps, then the step's own
// fields; a later declaration of a name overrides the earlier one in place).
// A *Class is immutable; do not modify it.
type Class struct {
	Name       string           // config class name, e.g. "TabularPreprocessingConfig"
	StepType   catalog.StepType // canonical step type; "Base"/"Processing" for the abstract classes
	Processing bool             // includes the processing field set
	Abstract   bool             // BasePipelineConfig or ProcessingStepConfigBase
	Fields     []catalog.ConfigField
	// Framework is the step's framework (xgboost, pytorch, lightgbm;
	// generic for steps of any framework).
	Framework string
	// ReadsLabel and WritesLabelOnlyWhenSet are the step's
	// (catalog.Step.ReadsLabel, WritesLabelOnlyWhenSet).
	ReadsLabel, WritesLabelOnlyWhenSet bool

	index    map[string]int
	patterns map[string]*regexp.Regexp
	derived  []string // names of derived fields in declaration order
	schema   *Schema

	nameSuffix  string            // the step's patterns.name_suffix_field
	paramOnce   sync.Once         // computes noParamRefs on first use
	noParamRefs map[string]string // fields that cannot hold a {{Parameters.X}} reference -> why
}

// ParameterRefBlocked returns why the field cannot hold a pipeline-parameter
// reference "{{Parameters.<name>}}" ("" when it can): it names the step or
// feeds a name derived at build time (see catalog.ParameterRefBlockers).
func (c *Class) ParameterRefBlocked(name string) string {
	c.paramOnce.Do(func() {
		c.noParamRefs = catalog.ParameterRefBlockers(c.Fields, derivationOf, c.nameSuffix)
	})
	return c.noParamRefs[name]
}

// Field returns the declaration of a field.
func (c *Class) Field(name string) (catalog.ConfigField, bool) {
	i, ok := c.index[name]
	if !ok {
		return catalog.ConfigField{}, false
	}
	return c.Fields[i], true
}

// HasField reports whether the class declares the field.
func (c *Class) HasField(name string) bool { _, ok := c.index[name]; return ok }

// HasJobType reports whether the class declares a job_type field; such a
// config's key and SageMaker step name carry its job type.
func (c *Class) HasJobType() bool { return c.HasField("job_type") }

// Schema indexes every config class the engine knows. It is immutable and
// safe for concurrent use.
type Schema struct {
	base, processing []catalog.ConfigField
	baseNames        map[string]bool
	processingNames  map[string]bool
	classes          map[string]*Class
	byStep           map[catalog.StepType]*Class
	classNames       []string
	stepTypes        []catalog.StepType          // concrete step types, sorted
	stepKeys         map[string]catalog.StepType // canonicalKey(name or alias) -> step type
}

// NewSchema builds a schema from resolved catalog steps and the base and
// processing field sets. It checks every declaration (known type and tier, a
// default of the declared type, a compilable pattern, unique class names)
// and reports all problems in one error.
func NewSchema(steps []*catalog.Step, base, processing []catalog.ConfigField) (*Schema, error) {
	processing = ownFields(processing, base)
	s := &Schema{
		base:            base,
		processing:      processing,
		baseNames:       map[string]bool{},
		processingNames: map[string]bool{},
		classes:         map[string]*Class{},
		byStep:          map[catalog.StepType]*Class{},
		stepKeys:        map[string]catalog.StepType{},
	}
	var problems []string
	for _, f := range base {
		s.baseNames[f.Name] = true
	}
	for _, f := range processing {
		s.processingNames[f.Name] = true
	}
	add := func(c *Class) {
		c.schema = s
		if prev, dup := s.classes[c.Name]; dup {
			problems = append(problems, fmt.Sprintf("config class %s declared by both %s and %s", c.Name, prev.StepType, c.StepType))
			return
		}
		problems = append(problems, c.build()...)
		s.classes[c.Name] = c
		s.byStep[c.StepType] = c
	}
	add(&Class{Name: BaseClass, StepType: BaseStepType, Abstract: true, Fields: slices.Clone(base)})
	add(&Class{Name: ProcessingBaseClass, StepType: ProcessingStepType, Abstract: true, Processing: true,
		Fields: append(slices.Clone(base), processing...)})

	sorted := slices.Clone(steps)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Type < sorted[j].Type })
	for _, st := range sorted {
		if st == nil {
			continue
		}
		name := st.ConfigClass
		if name == "" {
			name = string(st.Type) + "Config"
		}
		c := &Class{Name: name, StepType: st.Type, Processing: slices.Contains(st.FieldSets, FieldSetProcessing), nameSuffix: st.Patterns.NameSuffixField, Framework: st.Framework,
			ReadsLabel: st.ReadsLabel(), WritesLabelOnlyWhenSet: st.WritesLabelOnlyWhenSet()}
		fields := st.Fields
		if len(fields) == 0 || !hasAll(fields, base) {
			// Steps whose Fields do not already include the shared sets get them here.
			fields = append(slices.Clone(base), func() []catalog.ConfigField {
				if c.Processing {
					return processing
				}
				return nil
			}()...)
			fields = append(fields, st.Fields...)
		}
		// The class shares its step's resolved fields rather than a copy
		// (about 2,000 fields in all, 350 KB): neither is written once the
		// catalog is built, and build makes a new slice when it must
		// deduplicate.
		c.Fields = fields
		add(c)
		s.stepTypes = append(s.stepTypes, st.Type)
	}
	for _, t := range s.stepTypes {
		s.stepKeys[canonicalKey(string(t))] = t
	}
	for _, st := range sorted {
		if st == nil {
			continue
		}
		for _, a := range st.Aliases {
			if _, taken := s.stepKeys[canonicalKey(a)]; !taken {
				s.stepKeys[canonicalKey(a)] = st.Type
			}
		}
	}
	s.classNames = mapkeys.Sorted(s.classes)
	if len(problems) > 0 {
		return nil, &SchemaError{Problems: problems}
	}
	return s, nil
}

// ownFields drops from set the declarations it inherits unchanged from
// parent (a field set resolved through `extends` repeats its parent's fields).
func ownFields(set, parent []catalog.ConfigField) []catalog.ConfigField {
	inherited := make(map[string]catalog.ConfigField, len(parent))
	for _, f := range parent {
		inherited[f.Name] = f
	}
	var out []catalog.ConfigField
	for _, f := range set {
		if g, ok := inherited[f.Name]; ok && reflect.DeepEqual(f, g) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// hasAll reports whether every field of set is declared in fields.
func hasAll(fields, set []catalog.ConfigField) bool {
	names := make(map[string]bool, len(fields))
	for _, f := range fields {
		names[f.Name] = true
	}
	for _, f := range set {
		if !names[f.Name] {
			return false
		}
	}
	return true
}

// dedup replaces the fields by a new slice of them in which a later
// declaration of a name overrides the earlier one in place, and indexes
// it. (c.Fields may be the step's own slice, which stays as it is.)
func (c *Class) dedup() {
	clear(c.index)
	out := make([]catalog.ConfigField, 0, len(c.Fields))
	for _, f := range c.Fields {
		if i, ok := c.index[f.Name]; ok {
			out[i] = f
			continue
		}
		c.index[f.Name] = len(out)
		out = append(out, f)
	}
	c.Fields = out
}

// build deduplicates the fields (later declarations override in place),
// indexes them and checks each declaration.
func (c *Class) build() []string {
	var problems []string
	c.index = make(map[string]int, len(c.Fields))
	c.patterns = map[string]*regexp.Regexp{}
	for i, f := range c.Fields {
		if _, dup := c.index[f.Name]; dup {
			c.dedup()
			break
		}
		c.index[f.Name] = i
	}
	for _, f := range c.Fields {
		where := c.Name + "." + f.Name
		if f.Name == "" {
			problems = append(problems, c.Name+": field without a name")
			continue
		}
		if !knownType(f.Type) {
			problems = append(problems, fmt.Sprintf("%s: unknown type %q", where, f.Type))
		}
		switch f.Tier {
		case catalog.TierEssential, catalog.TierSystem:
		case catalog.TierDerived:
			c.derived = append(c.derived, f.Name)
		default:
			problems = append(problems, fmt.Sprintf("%s: unknown tier %q", where, f.Tier))
		}
		if f.Pattern != "" {
			re, err := catalog.CompilePattern(f.Pattern)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: bad pattern: %v", where, err))
			} else {
				c.patterns[f.Name] = re
			}
		}
		if f.Default != nil && knownType(f.Type) {
			if _, msg := coerce(f.Type, f.Default); msg != "" {
				problems = append(problems, fmt.Sprintf("%s: default %v: %s", where, f.Default, msg))
			}
		}

	}
	return problems
}

func knownType(t catalog.FieldType) bool {
	switch t {
	case catalog.FieldString, catalog.FieldInt, catalog.FieldFloat, catalog.FieldBool,
		catalog.FieldList, catalog.FieldMap, catalog.FieldAny:
		return true
	}
	return false
}

// SchemaError lists problems in the field declarations a schema was built from.
type SchemaError struct{ Problems []string }

// Error implements error: every declaration problem.
func (e *SchemaError) Error() string {
	return fmt.Sprintf("config schema: %d problem(s): %s", len(e.Problems), strings.Join(e.Problems, "; "))
}

// Class returns a config class by name.
func (s *Schema) Class(name string) (*Class, bool) { c, ok := s.classes[name]; return c, ok }

// ClassForStep returns the config class of a step type ("Base" and
// "Processing" name the abstract classes).
func (s *Schema) ClassForStep(t catalog.StepType) (*Class, bool) { c, ok := s.byStep[t]; return c, ok }

// ClassNames returns every class name, sorted.
func (s *Schema) ClassNames() []string { return slices.Clone(s.classNames) }

// StepTypes returns every concrete step type, sorted.
func (s *Schema) StepTypes() []catalog.StepType { return slices.Clone(s.stepTypes) }

// BaseFields returns the base field set.
func (s *Schema) BaseFields() []catalog.ConfigField { return slices.Clone(s.base) }

// ProcessingFields returns the processing field set.
func (s *Schema) ProcessingFields() []catalog.ConfigField { return slices.Clone(s.processing) }

// IsBaseField reports whether a field belongs to the base set.
func (s *Schema) IsBaseField(name string) bool { return s.baseNames[name] }

// IsProcessingField reports whether a field belongs to the processing set.
func (s *Schema) IsProcessingField(name string) bool { return s.processingNames[name] }

// LookupClass finds a class by class name, or by step type (canonical or
// any casing/separator variant, e.g. "XGBoostTraining" or "xgboost_training").
func (s *Schema) LookupClass(name string) (*Class, bool) {
	if c, ok := s.classes[name]; ok {
		return c, true
	}
	if t, ok := s.stepKeys[canonicalKey(name)]; ok {
		return s.byStep[t], true
	}
	for _, cn := range s.classNames {
		if strings.EqualFold(cn, name) {
			return s.classes[cn], true
		}
	}
	return nil, false
}

// ResolveNode splits a DAG node name into its step type and suffix: strip trailing `_segment` groups one at a time and take
// the first prefix whose case/separator-insensitive form names a known step
// (or an alias). ok is false when no prefix names a step.
func (s *Schema) ResolveNode(node catalog.NodeName) (t catalog.StepType, suffix string, ok bool) {
	parts := strings.Split(string(node), "_")
	for cut := len(parts); cut > 0; cut-- {
		if hit, found := s.stepKeys[canonicalKey(strings.Join(parts[:cut], "_"))]; found {
			return hit, strings.Join(parts[cut:], "_"), true
		}
	}
	return "", "", false
}

// canonicalKey collapses a name to lowercase alphanumerics, so
// "XGBoostTraining", "xgboost_training" and "XGBoost_Training" are equal.
func canonicalKey(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ClosestField returns the declared, non-derived field of the class whose
// name is nearest to name (a misspelt key such as lable_name gives
// label_name), or "" when none is near enough: the share of the longer
// name covered by the common prefix and suffix must be at least 0.6.
func (c *Class) ClosestField(name string) string {
	var names []string
	for _, f := range c.Fields {
		if f.Tier != catalog.TierDerived {
			names = append(names, f.Name)
		}
	}
	return ClosestName(name, names)
}

// ClosestName returns the candidate nearest to name by the measure of
// Class.ClosestField, or "" when none is near enough. Ties go to the
// earlier candidate.
func ClosestName(name string, candidates []string) string {
	best, bestScore := "", 0.0
	for _, c := range candidates {
		if s := nameSimilarity(name, c); s > bestScore {
			best, bestScore = c, s
		}
	}
	if bestScore >= 0.6 {
		return best
	}
	return ""
}

// nameSimilarity is a cheap normalised common-prefix/suffix measure of two
// names, case-insensitive: 1 for equal names.
func nameSimilarity(a, b string) float64 {
	a, b = strings.ToLower(a), strings.ToLower(b)
	if a == b {
		return 1
	}
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	m := 0
	for m < len(a)-n && m < len(b)-n && a[len(a)-1-m] == b[len(b)-1-m] {
		m++
	}
	l := len(a)
	if len(b) > l {
		l = len(b)
	}
	return float64(n+m) / float64(l)
}
