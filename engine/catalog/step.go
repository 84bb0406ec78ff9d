package catalog

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/internal/mapkeys"
)

// GenericSource is a compatible-source token that stands for a class of
// steps rather than one step type. Step files may name it; the dependency
// resolver does not expand it (see engine/deps).
type GenericSource struct {
	Description string
}

// GenericSources is the closed list of generic compatible-source tokens a
// step file may use besides real step names. Anything else in
// compatible_sources must be a step type of the catalog.
var GenericSources = map[string]GenericSource{
	"ProcessingStep":     {Description: "any step with verb Processing"},
	"TrainingStep":       {Description: "any step with verb Training or Tuning"},
	"ModelStep":          {Description: "any step with verb CreateModel"},
	"UserProvided":       {Description: "no step: the data is supplied by the user (an S3 URI in the config)"},
	"DataLoad":           {Description: "any source step (a data-loading step with no upstream inputs)"},
	"HyperparameterPrep": {Description: "any step with an output of type hyperparameters"},
}

// GenericSourceNames lists the generic tokens, sorted.
func GenericSourceNames() []string { return mapkeys.Sorted(GenericSources) }

// Step returns the step type with exactly this name.
func (c *Catalog) Step(t StepType) (*Step, bool) {
	s, ok := c.steps[t]
	return s, ok
}

// Lookup finds a step by a loosely written name: the exact type, an alias,
// a case/separator-insensitive match or a node name with a job-type suffix
// (TabularPreprocessing_training); file-style names are ResolveFileName's
// job. It returns the job type found in a node-name
// suffix, if any. Unknown names yield a *NotFoundError with suggestions.
func (c *Catalog) Lookup(name string) (*Step, string, error) {
	name = strings.TrimSpace(name)
	if s, ok := c.steps[StepType(name)]; ok {
		return s, "", nil
	}
	if t, ok := c.byKey[CanonicalKey(name)]; ok {
		return c.steps[t], "", nil
	}
	if t, jt, ok := c.ResolveNode(NodeName(name)); ok {
		return c.steps[t], jt, nil
	}
	return nil, "", &NotFoundError{Name: name, Suggestions: c.Closest(name, 5)}
}

// Steps returns every step (base definitions), sorted by type.
func (c *Catalog) Steps() []*Step { return append([]*Step(nil), c.sorted...) }

// Names returns every step type, sorted.
func (c *Catalog) Names() []StepType { return append([]StepType(nil), c.names...) }

// Len is the number of step types.
func (c *Catalog) Len() int { return len(c.sorted) }

// Workspaces returns the absolute workspace directories the catalog was
// loaded with (nil for the embedded catalog).
func (c *Catalog) Workspaces() []string { return append([]string(nil), c.workspaces...) }

// FieldSet returns the resolved fields of a shared field set (its extends
// chain included, root first).
func (c *Catalog) FieldSet(name string) ([]ConfigField, bool) {
	s, ok := c.fieldSets[name]
	if !ok {
		return nil, false
	}
	return append([]ConfigField(nil), s.Fields...), true
}

// FieldSetInfo returns a field set with its metadata.
func (c *Catalog) FieldSetInfo(name string) (*FieldSet, bool) {
	s, ok := c.fieldSets[name]
	return s, ok
}

// FieldSetNames lists the shared field sets, sorted.
func (c *Catalog) FieldSetNames() []string { return mapkeys.Sorted(c.fieldSets) }

// Input returns the input port with that logical name.
func (s *Step) Input(name string) (*InputPort, bool) {
	for i := range s.Inputs {
		if s.Inputs[i].LogicalName == name {
			return &s.Inputs[i], true
		}
	}
	return nil, false
}

// ConfigFileInput reports whether the input carries a structured config
// value: its config_source field is a map or list, which the compiler
// writes to <field>.json and mounts at the input's path (Cradle's request
// specs, a currency table). Such an input is part of the step's own
// request, not a dependency another step could satisfy.
func (s *Step) ConfigFileInput(in *InputPort) bool {
	if in.ConfigSource == "" {
		return false
	}
	f, ok := s.Field(in.ConfigSource)
	return ok && (f.Type == FieldMap || f.Type == FieldList)
}

// Dependencies returns the inputs other steps may provide: every input
// except the config-file inputs (ConfigFileInput). An input sourced from a
// string config field (a data location such as DummyDataLoading's
// data_source) stays a dependency: an upstream step may still provide it.
func (s *Step) Dependencies() []InputPort {
	out := make([]InputPort, 0, len(s.Inputs))
	for i := range s.Inputs {
		if !s.ConfigFileInput(&s.Inputs[i]) {
			out = append(out, s.Inputs[i])
		}
	}
	return out
}

// Output returns the output port with that logical name (aliases are not
// consulted; see OutputByAlias).
func (s *Step) Output(name string) (*OutputPort, bool) {
	for i := range s.Outputs {
		if s.Outputs[i].LogicalName == name {
			return &s.Outputs[i], true
		}
	}
	return nil, false
}

// OutputByAlias returns the output whose logical name or one of whose
// aliases equals name.
func (s *Step) OutputByAlias(name string) (*OutputPort, bool) {
	if o, ok := s.Output(name); ok {
		return o, true
	}
	for i := range s.Outputs {
		for _, a := range s.Outputs[i].Aliases {
			if a == name {
				return &s.Outputs[i], true
			}
		}
	}
	return nil, false
}

// Field returns the config field with that name.
func (s *Step) Field(name string) (*ConfigField, bool) {
	if s.fieldIndex != nil {
		i, ok := s.fieldIndex[name]
		if !ok {
			return nil, false
		}
		return &s.Fields[i], true
	}
	return fieldByName(s.Fields, name)
}

// FieldsByTier returns the step's fields of one tier, in declaration order.
func (s *Step) FieldsByTier(t FieldTier) []ConfigField {
	var out []ConfigField
	for _, f := range s.Fields {
		if f.Tier == t {
			out = append(out, f)
		}
	}
	return out
}

// Hyperparameters returns the step's hyperparameter fields (fields marked
// hyperparameter: true), in declaration order. Only Training and Tuning
// steps have any.
func (s *Step) Hyperparameters() []ConfigField {
	var out []ConfigField
	for _, f := range s.Fields {
		if f.Hyperparameter {
			out = append(out, f)
		}
	}
	return out
}

// EnvField returns the config field an environment variable reads ("" when
// it takes only its declared default).
func (s *Step) EnvField(name string) string {
	if e, ok := s.Contract.EnvVar(name); ok {
		return e.Field
	}
	return ""
}

// HasVariant reports whether the step declares a variant for the job type.
func (s *Step) HasVariant(jobType string) bool {
	_, ok := s.variants[strings.ToLower(jobType)]
	return ok
}

// ForJobType returns the view of the step for a job type: the variant
// deep-merged over the base definition when the step declares one, else
// the base step. Job types are matched case-insensitively. The result is
// shared and read-only.
func (s *Step) ForJobType(jobType string) *Step {
	if v, ok := s.variants[strings.ToLower(strings.TrimSpace(jobType))]; ok {
		return v
	}
	return s
}

// IsVariant reports whether this value is a job-type view made by
// ForJobType (JobType is set) rather than the base definition.
func (s *Step) IsVariant() bool { return s.JobType != "" }

// TrainingChannels returns the SageMaker training channels an input feeds
// (meaningful for Training and Tuning steps): the declared channels; else
// [train, val, test] for the conventional input_path; else the directory
// under /opt/ml/input/data the path names; else the logical name.
func (in *InputPort) TrainingChannels() []string {
	if len(in.Channels) > 0 {
		return append([]string(nil), in.Channels...)
	}
	if in.LogicalName == "input_path" {
		return []string{"train", "val", "test"}
	}
	if rest, ok := strings.CutPrefix(in.ContainerPath, trainingDataRoot+"/"); ok && rest != "" {
		return []string{strings.SplitN(rest, "/", 2)[0]}
	}
	return []string{in.LogicalName}
}

// Channels returns TrainingChannels for Training and Tuning steps and nil
// for other verbs (they have no channels).
func (s *Step) Channels(in *InputPort) []string {
	if !s.Info().Training {
		return nil
	}
	return in.TrainingChannels()
}

// Components lists what the step's interface provides, sorted: builder,
// config, contract and spec always; compute when it runs on SageMaker
// compute of its own; script when it has an entry point; variants when it
// declares job-type variants.
func (s *Step) Components() []string {
	out := []string{"builder", "config", "contract", "spec"}
	if s.Compute.Kind != "" {
		out = append(out, "compute")
	}
	if s.Contract.EntryPoint != "" {
		out = append(out, "script")
	}
	if len(s.Variants) > 0 {
		out = append(out, "variants")
	}
	sort.Strings(out)
	return out
}

// buildVariants converts the file's variants and precomputes every
// job-type view.
func buildVariants(c *collector, st *Step, sf *StepFile) {
	if len(sf.Variants) == 0 {
		return
	}
	st.Variants = map[string]Variant{}
	st.variants = map[string]*Step{}
	for _, jt := range mapkeys.Sorted(sf.Variants) {
		vd := sf.Variants[jt]
		p := "variants." + jt
		if !reJobType().MatchString(jt) {
			c.add(p, "%q is not a job type (lowercase letters, digits, _)", jt)
			continue
		}
		for _, name := range mapkeys.Sorted(vd.Inputs) {
			if !hasInput(st, name) {
				c.add(p+".inputs."+name, "the step has no input %q", name)
			}
		}
		for _, name := range mapkeys.Sorted(vd.Outputs) {
			if !hasOutput(st, name) {
				c.add(p+".outputs."+name, "the step has no output %q", name)
			}
		}
		for _, name := range mapkeys.Sorted(vd.EnvDefaults) {
			e, ok := st.Contract.EnvVar(name)
			if !ok {
				c.add(p+".env_defaults."+name, "the step declares no env var %s", name)
			} else if e.Required {
				c.add(p+".env_defaults."+name, "%s is required; only optional variables have defaults", name)
			}
		}
		v := Variant{Inputs: vd.Inputs, Outputs: vd.Outputs, Env: vd.EnvDefaults, Description: strings.TrimSpace(vd.Description)}
		st.Variants[jt] = v
		st.variants[jt] = st.merge(jt, v)
		if !contains(st.JobTypes, jt) {
			st.JobTypes = append(st.JobTypes, jt)
		}
	}
}

// merge deep-merges a variant over a copy of the step.
func (s *Step) merge(jobType string, v Variant) *Step {
	out := *s
	out.JobType = jobType
	out.variants = nil
	out.Inputs = make([]InputPort, len(s.Inputs))
	for i, in := range s.Inputs {
		if p, ok := v.Inputs[in.LogicalName]; ok {
			if p.Required != nil {
				in.Required = *p.Required
			}
			if p.CompatibleSources != nil {
				in.CompatibleSources = p.CompatibleSources
			}
			if p.SemanticKeywords != nil {
				in.SemanticKeywords = p.SemanticKeywords
			}
			if p.Aliases != nil {
				in.Aliases = p.Aliases
			}
			if p.Description != "" {
				in.Description = p.Description
			}
		}
		out.Inputs[i] = in
	}
	out.Outputs = make([]OutputPort, len(s.Outputs))
	for i, o := range s.Outputs {
		if p, ok := v.Outputs[o.LogicalName]; ok {
			if p.Aliases != nil {
				o.Aliases = p.Aliases
			}
			if p.SemanticKeywords != nil {
				o.SemanticKeywords = p.SemanticKeywords
			}
		}
		out.Outputs[i] = o
	}
	if len(v.Env) > 0 {
		out.Contract.Env = append([]EnvVar(nil), s.Contract.Env...)
		out.Contract.OptionalEnv = map[string]string{}
		for k, d := range s.Contract.OptionalEnv {
			out.Contract.OptionalEnv[k] = d
		}
		for i := range out.Contract.Env {
			if d, ok := v.Env[out.Contract.Env[i].Name]; ok {
				out.Contract.Env[i].Default = d
				out.Contract.OptionalEnv[out.Contract.Env[i].Name] = d
			}
		}
	}
	return &out
}

// String renders a short description for logs.
func (s *Step) String() string {
	if s.JobType != "" {
		return fmt.Sprintf("%s[%s] (%s)", s.Type, s.JobType, s.Verb)
	}
	return fmt.Sprintf("%s (%s)", s.Type, s.Verb)
}
