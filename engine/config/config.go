package config

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
)

// metaKeys are keys a serializer adds to a config's JSON; they
// are not config values.
var metaKeys = map[string]bool{"__model_type__": true, "__model_module__": true, "_metadata": true}

// ModelTypeKey is the key naming a config's class inside config.json.
const ModelTypeKey = "__model_type__"

// Config is the typed configuration of one step.
//
// Values holds every declared non-derived field (defaults applied; a field
// without value and without default is nil) and extra fields the class does
// not declare, kept verbatim. Derived holds the non-null derived values. Use
// the Schema's constructors; a Config is not modified after construction.
type Config struct {
	Key     catalog.ConfigKey
	Class   *Class
	Values  map[string]any
	Derived map[string]any
}

// StepType is the canonical step type of the config's class.
func (c *Config) StepType() catalog.StepType { return c.Class.StepType }

// JobType returns the config's job_type, or "".
func (c *Config) JobType() string { s, _ := c.Values["job_type"].(string); return s }

// Get returns a value (declared, extra or derived) by name.
func (c *Config) Get(name string) (any, bool) {
	if v, ok := c.Values[name]; ok {
		return v, true
	}
	v, ok := c.Derived[name]
	return v, ok
}

// String returns a value rendered as text ("" when absent or null).
func (c *Config) String(name string) string { v, _ := c.Get(name); return stringOf(v) }

// Extras returns the names of values the class does not declare, sorted.
func (c *Config) Extras() []string {
	var out []string
	for k := range c.Values {
		if !c.Class.HasField(k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// StepName is the SageMaker step name the compiler gives this
// config: `<StepType>` plus `-<Jobtype>` (capitalized) when a job type is
// set. It is what the duplicate-step-name check compares.
func (c *Config) StepName() catalog.SageMakerStepName {
	name := string(c.Class.StepType)
	if jt := c.JobType(); jt != "" {
		name += "-" + capitalize(jt)
	}
	return catalog.SageMakerStepName(name)
}

// capitalize is Python's str.capitalize: first rune upper, rest lower.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	lower := strings.ToLower(s)
	return strings.ToUpper(lower[:1]) + lower[1:]
}

// GenerateKey returns the config key of a config: a
// non-empty step_name_override other than the class name, else the step type
// followed by `_<value>` for each of job_type, data_type and mode that is set.
func GenerateKey(class *Class, values map[string]any) catalog.ConfigKey {
	if o, _ := values["step_name_override"].(string); o != "" && o != class.Name {
		return catalog.ConfigKey(o)
	}
	key := string(class.StepType)
	for _, attr := range []string{"job_type", "data_type", "mode"} {
		if s := stringOf(values[attr]); s != "" {
			key += "_" + s
		}
	}
	return catalog.ConfigKey(key)
}

// NewConfig types, defaults, derives and validates the values of one config
// class (a class name, or a step type). key may be empty: it is then
// generated (GenerateKey). The error is a *ValidationError listing every
// problem with paths `<key>.<field>`, or an *UnknownClassError.
func (s *Schema) NewConfig(class string, key catalog.ConfigKey, values map[string]any) (*Config, error) {
	c, ok := s.LookupClass(class)
	if !ok {
		return nil, &UnknownClassError{Classes: map[string]string{string(key): class}, Available: s.ClassNames()}
	}
	cfg, errs, _ := c.newConfig(key, values)
	if len(errs) > 0 {
		return nil, &ValidationError{Errors: errs}
	}
	return cfg, nil
}

// newConfig builds a config from raw values and returns it with every field
// problem and warnings (derived values given that differ from the computed
// ones). The config is returned even when there are problems.
func (c *Class) newConfig(key catalog.ConfigKey, input map[string]any) (*Config, []FieldError, []string) {
	cfg := &Config{Class: c, Values: make(map[string]any, len(c.Fields)+4)}
	var problems []FieldError
	var warnings []string
	prefix := func() string {
		if cfg.Key != "" {
			return string(cfg.Key)
		}
		return c.Name
	}
	// Key first when the caller fixed it, so paths are right.
	cfg.Key = key
	liftAt := key
	if liftAt == "" {
		liftAt = GenerateKey(c, input) // the key the config will get, so paths match the others
	}
	input, problems, warnings = c.liftLegacy(string(liftAt), input)
	var bad []pending
	for _, f := range c.Fields {
		if f.Tier == catalog.TierDerived {
			continue
		}
		raw := input[f.Name]
		v, msg := coerce(f.Type, raw)
		if _, ref := catalog.ParameterRef(normalize(raw)); ref && msg != "" && f.Type.AcceptsParameterRef() {
			v, msg = normalize(raw), "" // a number chosen when the pipeline runs
		}
		if msg != "" {
			bad = append(bad, pending{f, msg, normalize(raw)})
			cfg.Values[f.Name] = nil
			continue
		}
		if v == nil && f.Default != nil {
			v, _ = coerce(f.Type, cloneValue(normalize(f.Default)))
		}
		cfg.Values[f.Name] = v
	}
	var derived0 map[string]any // derived values before dynamic defaults, computed when needed
	for _, f := range c.Fields {
		if f.Tier != catalog.TierDerived && cfg.Values[f.Name] == nil && f.Derivation != "" && !hasPending(bad, f.Name) {
			if derived0 == nil {
				derived0 = c.computeDerived(cfg.Values)
			}
			cfg.Values[f.Name] = c.dynamicDefault(f, cfg.Values, derived0)
		}
	}
	for name, raw := range input {
		if metaKeys[name] || c.HasField(name) {
			continue
		}
		v := normalize(raw)
		if !isJSONValue(v) {
			bad = append(bad, pending{catalog.ConfigField{Name: name, Type: catalog.FieldAny}, fmt.Sprintf("not a JSON value (%T)", raw), nil})
			continue
		}
		cfg.Values[name] = v
	}
	if cfg.Key == "" {
		cfg.Key = GenerateKey(c, cfg.Values)
	}
	for _, b := range bad {
		problems = append(problems, FieldError{Path: prefix() + "." + b.f.Name, Field: b.f.Name, Kind: KindType,
			Message: b.msg, Allowed: b.f.Allowed, Value: b.raw})
	}
	for _, f := range c.Fields {
		if f.Tier == catalog.TierDerived {
			continue
		}
		v := cfg.Values[f.Name]
		if v == nil {
			if f.Tier == catalog.TierEssential && !hasProblem(problems, f.Name) {
				problems = append(problems, FieldError{Path: prefix() + "." + f.Name, Field: f.Name, Kind: KindMissing,
					Message: fmt.Sprintf("required field %s is missing (expected %s)", f.Name, typeLabel(f.Type)),
					Allowed: f.Allowed})
			}
			continue
		}
		if fe, ok := c.checkConstraints(f, v); !ok {
			fe.Path = prefix() + "." + f.Name
			problems = append(problems, fe)
		}
	}
	cfg.Derived = c.computeDerived(cfg.Values)
	for _, name := range c.derived {
		given, ok := input[name]
		if !ok || given == nil {
			continue
		}
		if got := cfg.Derived[name]; !equalValues(normalize(given), got) {
			warnings = append(warnings, fmt.Sprintf("%s.%s: the given value %s differs from the derived value %s; derived fields are computed, the given value is ignored",
				prefix(), name, canonicalJSON(normalize(given)), canonicalJSON(got)))
		}
	}
	return cfg, problems, warnings
}

// pending is a field whose value could not be typed.
type pending struct {
	f   catalog.ConfigField
	msg string
	raw any
}

func hasPending(bad []pending, field string) bool {
	for _, b := range bad {
		if b.f.Name == field {
			return true
		}
	}
	return false
}

func hasProblem(problems []FieldError, field string) bool {
	for _, p := range problems {
		if p.Field == field {
			return true
		}
	}
	return false
}

// checkConstraints checks allowed values, min/max and pattern of a typed,
// non-null value. A string, int or float field's "{{Parameters.<name>}}"
// value skips the allowed-values, range and pattern checks (the compiler
// checks the parameter is declared) unless the field names the step or
// feeds a derived name.
func (c *Class) checkConstraints(f catalog.ConfigField, v any) (FieldError, bool) {
	fe := FieldError{Field: f.Name, Value: v}
	if _, ok := catalog.ParameterRef(v); ok && f.Type.AcceptsParameterRef() {
		if why := c.ParameterRefBlocked(f.Name); why != "" {
			fe.Kind = KindParameter
			fe.Message = fmt.Sprintf("%s cannot be a pipeline parameter reference: %s", f.Name, why)
			return fe, false
		}
		return FieldError{}, true
	}
	if len(f.Allowed) > 0 {
		items := []any{v}
		if list, ok := v.([]any); ok {
			items = list
		}
		for _, it := range items {
			if !allowed(f.Allowed, it) {
				fe.Kind, fe.Allowed = KindAllowed, f.Allowed
				fe.Message = fmt.Sprintf("%s is not an allowed value of %s", canonicalJSON(it), f.Name)
				return fe, false
			}
		}
	}
	if x, ok := toFloat(v); ok {
		if f.Min != nil && x < *f.Min {
			fe.Kind = KindRange
			fe.Message = fmt.Sprintf("%s must be >= %s, got %s", f.Name, fmtNum(*f.Min), canonicalJSON(v))
			return fe, false
		}
		if f.Max != nil && x > *f.Max {
			fe.Kind = KindRange
			fe.Message = fmt.Sprintf("%s must be <= %s, got %s", f.Name, fmtNum(*f.Max), canonicalJSON(v))
			return fe, false
		}
	}
	if re := c.patterns[f.Name]; re != nil {
		if s, ok := v.(string); ok && !re.MatchString(s) {
			fe.Kind = KindPattern
			fe.Message = fmt.Sprintf("%q does not match the pattern %s", s, f.Pattern)
			return fe, false
		}
	}
	return FieldError{}, true
}

func allowed(list []any, v any) bool {
	for _, a := range list {
		if a == nil {
			continue
		}
		if equalValues(normalize(a), v) {
			return true
		}
	}
	return false
}

func fmtNum(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprint(f)
}

// Set is the configs of one pipeline, ordered by config key.
type Set struct {
	configs []*Config
	byKey   map[catalog.ConfigKey]*Config
	schema  *Schema

	// MetadataConfigTypes is metadata.config_types as read from a file
	// (it may map extra node names to classes); nil for sets built in memory.
	MetadataConfigTypes map[string]string
	// CreatedAt is metadata.created_at; Marshal writes the current time when empty.
	CreatedAt string
	// Warnings are non-fatal findings made while building or loading the set.
	Warnings []string
	// IgnoredShared are the keys of config.json's configuration.shared that
	// no config class of the file declares (and that are not PipelineKeys):
	// they reach no config, so a misspelt shared key is listed here.
	IgnoredShared []string
}

// PipelineKeys are keys a config may carry that no config class declares
// but the compiler reads for the whole pipeline: pipeline_parameters (the
// pipeline's own parameters) and max_parallel_execution_steps (its
// ParallelismConfiguration), see engine/compiler. Written in
// configuration.shared of a config.json, or in the Base values of Build,
// they apply to every config.
var PipelineKeys = map[string]bool{"pipeline_parameters": true, "max_parallel_execution_steps": true}

// NewSet orders configs by key. Two configs with the same key are a
// *ValidationError (kind duplicate_key).
func NewSet(configs ...*Config) (*Set, error) {
	s := &Set{byKey: make(map[catalog.ConfigKey]*Config, len(configs))}
	var problems []FieldError
	for _, c := range configs {
		if prev, dup := s.byKey[c.Key]; dup {
			problems = append(problems, FieldError{Path: string(c.Key), Kind: KindDuplicateKey,
				Message: fmt.Sprintf("two configs have the key %s (%s and %s); give them different job types", c.Key, prev.Class.Name, c.Class.Name)})
			continue
		}
		s.byKey[c.Key] = c
		s.configs = append(s.configs, c)
	}
	sort.Slice(s.configs, func(i, j int) bool { return s.configs[i].Key < s.configs[j].Key })
	if len(s.configs) > 0 {
		s.schema = s.configs[0].Class.schema
	}
	if len(problems) > 0 {
		return nil, &ValidationError{Errors: problems}
	}
	return s, nil
}

// Configs returns the configs in key order.
func (s *Set) Configs() []*Config { return slices.Clone(s.configs) }

// Len is the number of configs.
func (s *Set) Len() int { return len(s.configs) }

// Config returns the config with a key.
func (s *Set) Config(key catalog.ConfigKey) (*Config, bool) { c, ok := s.byKey[key]; return c, ok }

// Keys returns the config keys in order.
func (s *Set) Keys() []catalog.ConfigKey {
	out := make([]catalog.ConfigKey, len(s.configs))
	for i, c := range s.configs {
		out[i] = c.Key
	}
	return out
}

// ConfigTypes maps every config key to its class name.
func (s *Set) ConfigTypes() map[string]string {
	out := make(map[string]string, len(s.configs))
	for _, c := range s.configs {
		out[string(c.Key)] = c.Class.Name
	}
	return out
}

// Shared returns the fields written to config.json's `shared` section:
// essential and system fields whose value is non-null and identical in every
// config (at least two configs), except the fields always kept specific.
func (s *Set) Shared() map[string]any {
	return sharedFields(s.configs, false)
}

// keepSpecific are fields config.json never shares: they stay in each
// config's specific section.
var keepSpecific = map[string]bool{"hyperparameters": true, "data_sources_spec": true, "transform_spec": true,
	"output_spec": true, "output_schema": true, "job_type": true}

func sharedFields(configs []*Config, allowNullEssential bool) map[string]any {
	out := map[string]any{}
	if len(configs) < 2 {
		return out
	}
	first := configs[0]
	for _, f := range first.Class.Fields {
		if f.Tier == catalog.TierDerived || keepSpecific[f.Name] {
			continue
		}
		v := first.Values[f.Name]
		if v == nil && !(allowNullEssential && f.Tier == catalog.TierEssential) {
			continue
		}
		want := canonicalJSON(v)
		same := true
		for _, c := range configs[1:] {
			g, declared := c.Class.Field(f.Name)
			if !declared || g.Tier == catalog.TierDerived {
				same = false
				break
			}
			w, ok := c.Values[f.Name]
			if !ok || canonicalJSON(w) != want {
				same = false
				break
			}
			if w == nil && g.Tier != catalog.TierEssential {
				same = false
				break
			}
		}
		if same {
			out[f.Name] = cloneValue(v)
		}
	}
	return out
}
