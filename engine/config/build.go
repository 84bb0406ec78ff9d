package config

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
)

// BuildInput is what a caller (an agent, through config.merge_save) gives to
// make a config.json for a DAG: values shared by every step and values per
// DAG node.
type BuildInput struct {
	Nodes []catalog.NodeName                  // every DAG node, in DAG order; each gets a config
	Base  map[string]any                      // values applied to every config whose class declares them
	Steps map[catalog.NodeName]map[string]any // per-node values; they win over Base
	Now   func() time.Time                    // clock for metadata.created_at; time.Now when nil
	Opts  ResolveOptions                      // options of the final node -> config check
}

// nodePlan is the class and default job type of one node.
type nodePlan struct {
	node    catalog.NodeName
	class   *Class
	suffix  string
	jobType string // job type taken from the node suffix, or ""
}

// plan maps nodes to classes; unresolvable nodes are problems.
func (s *Schema) plan(nodes []catalog.NodeName) ([]nodePlan, []FieldError) {
	var plans []nodePlan
	var problems []FieldError
	for _, n := range nodes {
		t, suffix, ok := s.ResolveNode(n)
		var c *Class
		if ok {
			c, ok = s.byStep[t]
		}
		if !ok {
			problems = append(problems, FieldError{Path: string(n), Kind: KindUnknownStep,
				Message: fmt.Sprintf("node %s does not start with a known step type, so it has no config class (name nodes <StepType>[_<job_type>], e.g. TabularPreprocessing_training)", n)})
			continue
		}
		p := nodePlan{node: n, class: c, suffix: suffix}
		if f, has := c.Field("job_type"); has && suffix != "" {
			if len(f.Allowed) == 0 || allowed(f.Allowed, suffix) {
				p.jobType = suffix
			}
		}
		plans = append(plans, p)
	}
	return plans, problems
}

// Build types, defaults, derives and validates the configs of every DAG
// node and returns them as a Set ready to Save. Each node's values are the
// Base values its class declares, overlaid with Steps[node]; a node named
// `<StepType>_<suffix>` whose class has a job_type field gets job_type =
// suffix unless given (and allowed). Finally every node must resolve to its
// own config (Set.Resolve) and no two nodes may share a SageMaker step name.
//
// All problems are reported in one *ValidationError. Paths are
// `<node>.<field>`, or `base.<field>` when a Base value (or a missing base
// field) is wrong for every config that uses it. Fields a class does not
// declare are kept as extra fields, with a warning in Set.Warnings.
func (s *Schema) Build(in BuildInput) (*Set, error) {
	plans, problems := s.plan(in.Nodes)
	var warnings []string
	isNode := map[catalog.NodeName]bool{}
	for _, n := range in.Nodes {
		isNode[n] = true
	}
	for _, name := range mapkeys.Sorted(in.Steps) {
		if !isNode[name] {
			problems = append(problems, FieldError{Path: string(name), Kind: KindUnknownNode,
				Message: fmt.Sprintf("values given for %s, which is not a node of the DAG (nodes: %v)", name, in.Nodes)})
		}
	}
	for _, name := range mapkeys.Sorted(in.Base) {
		used := PipelineKeys[name] || metaKeys[name]
		for _, p := range plans {
			if p.class.HasField(name) || (name == LegacyHyperparametersKey && p.class.LiftsHyperparameters()) {
				used = true
				break
			}
		}
		if !used {
			problems = append(problems, FieldError{Path: "base." + name, Field: name, Kind: KindUnknownField,
				Message: "not a field of any config class of this DAG, so it would reach no step" + didYouMean(name, dagFieldNames(plans))})
		}
	}

	type built struct {
		plan nodePlan
		cfg  *Config
	}
	var configs []built
	var fieldProblems []FieldError
	origin := map[string]string{} // path -> "node" | "base" | "none"
	dagDefaults := s.dagDefaults(plans, map[string]bool{"model_class": true})
	follow := s.followFramework(plans)
	for _, p := range plans {
		values := map[string]any{}
		for name, v := range dagDefaults {
			if s.sharedDefault(p.class, name) {
				values[name] = cloneValue(v)
			}
		}
		// What Requirements stops asking for because the DAG decides it (a
		// Registration's framework and image version): given when absent.
		for name, v := range followedDefaults(s.ownRequirements(p.class), follow) {
			values[name] = v
		}
		own := in.Steps[p.node]
		legacy := p.class.legacyObjectKeys(own) // the node's legacy hyperparameters win over base values
		for name, v := range in.Base {
			if (p.class.HasField(name) && !legacy[name]) || PipelineKeys[name] {
				values[name] = v
			}
		}
		if p.class.legacyObjectKeys(in.Base) != nil {
			values[LegacyHyperparametersKey] = mergeLegacy(in.Base[LegacyHyperparametersKey], own[LegacyHyperparametersKey])
		}
		for name, v := range own {
			if name == LegacyHyperparametersKey && p.class.LiftsHyperparameters() {
				if values[name] == nil {
					values[name] = v
				}
				continue // the lift warns about it
			}
			values[name] = v
			if !p.class.HasField(name) && !metaKeys[name] && !PipelineKeys[name] {
				hint := ""
				if near := p.class.ClosestField(name); near != "" {
					hint = fmt.Sprintf("; did you mean %s?", near)
				} else if elsewhere := otherClassesWith(plans, p, name); len(elsewhere) > 0 {
					hint = fmt.Sprintf("; it is a field of %s", strings.Join(elsewhere, ", "))
				}
				problems = append(problems, FieldError{Path: string(p.node) + "." + name, Field: name, Kind: KindUnknownField,
					Message: fmt.Sprintf("not a field of %s, so the step would not read it%s", p.class.Name, hint)})
			}
		}
		if p.jobType != "" && values["job_type"] == nil {
			values["job_type"] = p.jobType
		}
		cfg, errs, warns := p.class.newConfigAt("", string(p.node), values)
		configs = append(configs, built{p, cfg})
		for _, e := range errs {
			switch {
			case own != nil && hasKey(own, e.Field):
				origin[e.Path] = "node"
			case hasKey(in.Base, e.Field):
				origin[e.Path] = "base"
			default:
				origin[e.Path] = "none"
			}
		}
		fieldProblems = append(fieldProblems, errs...)
		warnings = append(warnings, warns...)
	}
	problems = append(problems, s.collapseBase(fieldProblems, origin)...)

	keyNodes := map[catalog.ConfigKey][]catalog.NodeName{}
	for _, b := range configs {
		keyNodes[b.cfg.Key] = append(keyNodes[b.cfg.Key], b.plan.node)
	}
	for _, b := range configs {
		if ns := keyNodes[b.cfg.Key]; len(ns) > 1 && ns[0] == b.plan.node {
			problems = append(problems, FieldError{Path: string(ns[1]), Kind: KindDuplicateKey,
				Message: fmt.Sprintf("nodes %v all get the config key %s; give each a different job_type", ns, b.cfg.Key)})
		}
	}
	if len(problems) > 0 {
		return nil, &ValidationError{Errors: problems}
	}

	list := make([]*Config, len(configs))
	for i, b := range configs {
		list[i] = b.cfg
	}
	set, err := NewSet(list...)
	if err != nil {
		return nil, err
	}
	res, err := set.Resolve(in.Nodes, in.Opts)
	if err != nil {
		return nil, &ValidationError{Errors: resolutionProblems(err)}
	}
	for i, r := range res {
		if want := configs[i].cfg; r.Config != want {
			problems = append(problems, FieldError{Path: string(r.Node), Kind: KindResolution,
				Message: fmt.Sprintf("node %s would resolve to config %s instead of its own config %s; rename the node to %s", r.Node, r.Config.Key, want.Key, want.Key)})
		}
	}
	if len(problems) > 0 {
		return nil, &ValidationError{Errors: problems}
	}
	now := time.Now
	if in.Now != nil {
		now = in.Now
	}
	set.CreatedAt = now().Format(createdAtLayout)
	set.Warnings = warnings
	return set, nil
}

func hasKey(m map[string]any, k string) bool { _, ok := m[k]; return ok }

// dagFieldNames are the fields a value of base may set: every
// non-derived field of the DAG's config classes and the pipeline keys.
func dagFieldNames(plans []nodePlan) []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, p := range plans {
		for _, f := range p.class.Fields {
			if f.Tier != catalog.TierDerived {
				add(f.Name)
			}
		}
	}
	for _, k := range mapkeys.Sorted(PipelineKeys) {
		add(k)
	}
	return out
}

// otherClassesWith names the other nodes of the DAG whose class has the
// field (a value given to the wrong node).
func otherClassesWith(plans []nodePlan, self nodePlan, field string) []string {
	var out []string
	for _, p := range plans {
		if p.node != self.node && p.class.HasField(field) {
			out = append(out, string(p.node))
		}
	}
	return out
}

// didYouMean is "; did you mean <closest>?" for the candidate nearest to
// name, or "" when none is near.
func didYouMean(name string, candidates []string) string {
	if near := ClosestName(name, candidates); near != "" {
		return "; did you mean " + near + "?"
	}
	return ""
}

// resolutionProblems turns resolver errors into field problems.
func resolutionProblems(err error) []FieldError {
	switch e := err.(type) {
	case *ResolutionError:
		out := make([]FieldError, 0, len(e.Failures))
		for _, f := range e.Failures {
			out = append(out, FieldError{Path: string(f.Node), Kind: KindResolution, Message: f.Err.Error()})
		}
		return out
	case *DuplicateStepNameError:
		out := make([]FieldError, 0, len(e.Collisions))
		for _, c := range e.Collisions {
			out = append(out, FieldError{Path: string(c.Nodes[1]), Kind: KindResolution,
				Message: fmt.Sprintf("nodes %v would all become the SageMaker step %s", c.Nodes, c.StepName)})
		}
		return out
	}
	return []FieldError{{Kind: KindResolution, Message: err.Error()}}
}

// collapseBase reports once, as base.<field>, a problem that every affected
// config shares when its value came from Base (or a base-set field is
// missing everywhere); other problems keep their node paths.
func (s *Schema) collapseBase(errs []FieldError, origin map[string]string) []FieldError {
	type group struct{ ok bool }
	groups := map[string]*group{}
	for _, e := range errs {
		o := origin[e.Path]
		eligible := o == "base" || (o == "none" && s.baseNames[e.Field])
		id := e.Field + "\x00" + e.Kind + "\x00" + e.Message
		g, ok := groups[id]
		if !ok {
			g = &group{ok: true}
			groups[id] = g
		}
		g.ok = g.ok && eligible
	}
	var out []FieldError
	emitted := map[string]bool{}
	for i, e := range errs {
		id := e.Field + "\x00" + e.Kind + "\x00" + e.Message
		g := groups[id]
		if g.ok && e.Field != "" {
			if emitted[id] {
				continue
			}
			emitted[id] = true
			e.Path = "base." + e.Field
			out = append(out, e)
			continue
		}
		out = append(out, errs[i])
	}
	return out
}

// newConfigAt is newConfig with problem paths prefixed by prefix (a node
// name) instead of the config key.
func (c *Class) newConfigAt(key catalog.ConfigKey, prefix string, input map[string]any) (*Config, []FieldError, []string) {
	cfg, errs, warns := c.newConfig(key, input)
	if prefix == "" {
		return cfg, errs, warns
	}
	old := string(cfg.Key) + "."
	for i := range errs {
		if strings.HasPrefix(errs[i].Path, old) {
			errs[i].Path = prefix + "." + strings.TrimPrefix(errs[i].Path, old)
		}
	}
	for i := range warns {
		if strings.HasPrefix(warns[i], old) {
			warns[i] = prefix + "." + strings.TrimPrefix(warns[i], old)
		}
	}
	return cfg, errs, warns
}

// Requirement describes one input field of a config class.
type Requirement struct {
	Name          string   `json:"name"`
	Type          string   `json:"type"`
	Description   string   `json:"description"`
	Required      bool     `json:"required"`
	Default       any      `json:"default"`
	Tier          string   `json:"tier"`
	AllowedValues []any    `json:"allowed_values"`
	Min           *float64 `json:"min,omitempty"`
	Max           *float64 `json:"max,omitempty"`
	Pattern       string   `json:"pattern,omitempty"`
	Derivation    string   `json:"derivation,omitempty"` // for derived fields
	// Hyperparameter is set on a field the training job receives as a
	// hyperparameter (catalog.ConfigField.Hyperparameter).
	Hyperparameter bool `json:"hyperparameter,omitempty"`
}

func requirementOf(f catalog.ConfigField) Requirement {
	r := Requirement{Name: f.Name, Type: string(f.Type), Description: f.Description, Required: f.Required(),
		Default: cloneValue(normalize(f.Default)), Tier: string(f.Tier), AllowedValues: slices.Clone(f.Allowed),
		Min: f.Min, Max: f.Max, Pattern: f.Pattern, Derivation: derivationOf(f), Hyperparameter: f.Hyperparameter}
	if r.AllowedValues == nil {
		r.AllowedValues = []any{}
	}
	return r
}

// Requirements lists the class's input fields (essential and system), in
// declaration order.
func (c *Class) Requirements() []Requirement {
	var out []Requirement
	for _, f := range c.Fields {
		if f.Tier != catalog.TierDerived {
			out = append(out, requirementOf(f))
		}
	}
	return out
}

// DerivedFields lists the class's derived fields with their templates.
func (c *Class) DerivedFields() []Requirement {
	var out []Requirement
	for _, f := range c.Fields {
		if f.Tier == catalog.TierDerived {
			out = append(out, requirementOf(f))
		}
	}
	return out
}

// ownRequirements are the class's input fields beyond the base and
// processing sets: its own fields first, then the shared ones it redeclares
// differently (e.g. another default).
func (s *Schema) ownRequirements(c *Class) []Requirement {
	shared := map[string]catalog.ConfigField{}
	for _, f := range s.base {
		shared[f.Name] = f
	}
	if c.Processing {
		for _, f := range s.processing {
			shared[f.Name] = f
		}
	}
	var own, overrides []Requirement
	for _, f := range c.Fields {
		if f.Tier == catalog.TierDerived {
			continue
		}
		g, inherited := shared[f.Name]
		switch {
		case !inherited:
			own = append(own, requirementOf(f))
		case !reflect.DeepEqual(f, g):
			overrides = append(overrides, requirementOf(f))
		}
	}
	return append(own, overrides...)
}

// Requirements is what a DAG needs configured.
type Requirements struct {
	Base            []Requirement                      `json:"base_config_requirements"`
	BaseProcessing  []Requirement                      `json:"base_processing_config_requirements"`
	NeedsProcessing bool                               `json:"needs_processing_config"`
	ConfigClassMap  map[catalog.NodeName]string        `json:"config_class_map"`
	Steps           map[catalog.NodeName][]Requirement `json:"step_requirements"`
	Pending         []catalog.NodeName                 `json:"pending_steps"`
	JobTypes        map[catalog.NodeName]string        `json:"job_types"` // job type taken from the node name, when any
}

// Requirements returns the base requirements, the processing-base
// requirements, each node's config class and own field requirements, and
// the nodes without a config class (pending).
func (s *Schema) Requirements(nodes []catalog.NodeName) *Requirements {
	r := &Requirements{
		Base:           []Requirement{},
		BaseProcessing: []Requirement{},
		ConfigClassMap: map[catalog.NodeName]string{},
		Steps:          map[catalog.NodeName][]Requirement{},
		Pending:        []catalog.NodeName{},
		JobTypes:       map[catalog.NodeName]string{},
	}
	for _, f := range s.base {
		if f.Tier != catalog.TierDerived {
			r.Base = append(r.Base, requirementOf(f))
		}
	}
	for _, f := range s.processing {
		if f.Tier != catalog.TierDerived {
			r.BaseProcessing = append(r.BaseProcessing, requirementOf(f))
		}
	}
	plans, _ := s.plan(nodes)
	planned := map[catalog.NodeName]bool{}
	follow := s.followFramework(plans)
	own := map[string][]Requirement{} // by class: nodes of one class share their list
	for _, p := range plans {
		planned[p.node] = true
		r.ConfigClassMap[p.node] = p.class.Name
		reqs, ok := own[p.class.Name]
		if !ok {
			if reqs = follow(s.ownRequirements(p.class)); reqs == nil {
				reqs = []Requirement{}
			}
			own[p.class.Name] = reqs
		}
		r.Steps[p.node] = reqs
		r.NeedsProcessing = r.NeedsProcessing || p.class.Processing
		if p.jobType != "" {
			r.JobTypes[p.node] = p.jobType
		}
	}
	for _, n := range nodes {
		if !planned[n] {
			r.Pending = append(r.Pending, n)
		}
	}
	return r
}

// Template is a skeleton configuration for a DAG: defaults filled, every
// essential field without value present as null and listed.
type Template struct {
	File            *File                               // config.json skeleton (nulls for essential fields)
	Base            map[string]any                      // merge_save `base` skeleton
	Steps           map[catalog.NodeName]map[string]any // merge_save per-node skeleton
	EssentialFields []string                            // "base.<field>" and "<node>.<field>" still to fill
	ConfigClassMap  map[catalog.NodeName]string
	ConfigKeys      map[catalog.NodeName]catalog.ConfigKey // key of each node's config in File
	Pending         []catalog.NodeName                     // nodes without a config class
	Warnings        []string
	// MinimalBase and MinimalSteps are the smallest merge_save arguments
	// that build the same configs as Base and Steps once the essential
	// fields are filled: every essential field (null), and the values the
	// DAG decides that Build would not give by itself (the framework image
	// version of the DAG's steps, a Registration's framework), leaving out
	// what Build fills alike (defaults, job types from node names).
	MinimalBase  map[string]any
	MinimalSteps map[catalog.NodeName]map[string]any
}

// frameworkFields are the base fields that say which framework a pipeline
// is: its model family (part of the pipeline name) and the version and
// Python version of its framework images.
var frameworkFields = map[string]bool{"model_class": true, "framework_version": true, "py_version": true}

// dagDefaults are the defaults a DAG's own steps give the framework fields
// (frameworkFields) among fields: a field the step classes of the DAG
// that redeclare it give one default, another than the base set's (a
// PyTorch DAG's model_class pytorch, an XGBoost DAG's framework_version
// 1.7-1 and py_version py3). Template writes them as the base values, so a
// step without a version of its own (Registration) follows the DAG's
// framework; Build gives the DAG's model_class to every config that gets
// none, so the pipeline's configs agree on its name. A DAG whose steps are
// of several frameworks (a PyTorch model's scores feeding XGBoost) has no
// one image version to follow: it gets no framework_version or py_version,
// and each step keeps its own default (XGBoost's 1.7-1 as the base value
// would give the PyTorch steps an image version PyTorch does not have).
func (s *Schema) dagDefaults(plans []nodePlan, fields map[string]bool) map[string]any {
	out := map[string]any{}
	mixed := len(frameworksOf(plans)) > 1
	for _, set := range [][]catalog.ConfigField{s.base, s.processing} {
		for _, f := range set {
			if f.Tier == catalog.TierDerived || !fields[f.Name] || (mixed && f.Name != "model_class") {
				continue
			}
			var val any
			seen := map[string]bool{}
			for _, p := range plans {
				g, ok := p.class.Field(f.Name)
				if !ok || g.Default == nil || !redeclared(g) {
					continue
				}
				d := normalize(g.Default)
				if k := canonicalJSON(d); !seen[k] {
					seen[k], val = true, d
				}
			}
			if len(seen) == 1 && !equalValues(val, normalize(f.Default)) {
				out[f.Name] = cloneValue(val)
			}
		}
	}
	return out
}

// frameworksOf is the set of frameworks of the DAG's framework-specific
// steps (generic ones left out).
func frameworksOf(plans []nodePlan) map[string]bool {
	fws := map[string]bool{}
	for _, p := range plans {
		if f := p.class.Framework; f != "" && f != "generic" {
			fws[f] = true
		}
	}
	return fws
}

// dagFramework is the one framework of the DAG's framework-specific
// steps (XGBoostTraining: xgboost), or "" when they have none or several.
func dagFramework(plans []nodePlan) string {
	fw := ""
	for _, p := range plans {
		switch f := p.class.Framework; {
		case f == "" || f == "generic":
		case fw == "":
			fw = f
		case fw != f:
			return ""
		}
	}
	return fw
}

// followFramework returns what makes a node's requirements follow the
// DAG's framework, so neither config.requirements nor the template asks
// for what the DAG already says. A step of no framework of its own
// (Registration) whose essential `framework` field allows the DAG's
// framework gets it as its default, and then each essential field the
// base set also declares (framework_version, py_version) gets the base
// value, which follows the DAG (dagDefaults); both stop being required. A
// step whose framework field cannot take the DAG's (a LightGBM model,
// registered under another framework's image) is left to the user.
func (s *Schema) followFramework(plans []nodePlan) func([]Requirement) []Requirement {
	framework := dagFramework(plans)
	base := map[string]any{}
	for _, set := range [][]catalog.ConfigField{s.base, s.processing} {
		for _, f := range set {
			if frameworkFields[f.Name] && f.Default != nil {
				base[f.Name] = normalize(f.Default)
			}
		}
	}
	for k, v := range s.dagDefaults(plans, frameworkFields) {
		base[k] = v
	}
	return func(reqs []Requirement) []Requirement {
		if framework == "" {
			return reqs
		}
		vals := map[string]any{}
		for _, r := range reqs {
			if r.Name == "framework" && r.Required && r.Default == nil {
				if !slices.Contains(r.AllowedValues, any(framework)) {
					return reqs
				}
				vals[r.Name] = framework
			}
		}
		for _, r := range reqs {
			if v := base[r.Name]; frameworkFields[r.Name] && r.Required && r.Default == nil && v != nil {
				vals[r.Name] = v
			}
		}
		for i, r := range reqs {
			if v, ok := vals[r.Name]; ok {
				reqs[i].Default, reqs[i].Required = cloneValue(v), false
			}
		}
		return reqs
	}
}

// followedDefaults are the fields of reqs that follow makes optional (the
// DAG's framework decides them), with their values.
func followedDefaults(reqs []Requirement, follow func([]Requirement) []Requirement) map[string]any {
	required := map[string]bool{}
	for _, r := range reqs {
		if r.Required && r.Default == nil {
			required[r.Name] = true
		}
	}
	out := map[string]any{}
	for _, r := range follow(reqs) {
		if required[r.Name] && !r.Required && r.Default != nil {
			out[r.Name] = cloneValue(r.Default)
		}
	}
	return out
}

// redeclared reports whether a class's field is the step's own
// declaration (an override of a field set's field included).
func redeclared(f catalog.ConfigField) bool { return !strings.HasPrefix(f.Source, "fieldset:") }

// sharedDefault reports whether class c declares field name as its field
// set does, without redeclaring it.
func (s *Schema) sharedDefault(c *Class, name string) bool {
	g, ok := c.Field(name)
	return ok && !redeclared(g)
}

// Template builds the skeleton of every node's config. Base holds the base
// set (and the processing set when a node needs it) with defaults; Steps
// holds each node's own fields (job_type filled from the node name where it
// applies). Paths in EssentialFields match the paths Build reports.
func (s *Schema) Template(nodes []catalog.NodeName) *Template {
	t := &Template{
		Base:           map[string]any{},
		Steps:          map[catalog.NodeName]map[string]any{},
		ConfigClassMap: map[catalog.NodeName]string{},
		ConfigKeys:     map[catalog.NodeName]catalog.ConfigKey{},
		Pending:        []catalog.NodeName{},
		MinimalBase:    map[string]any{},
		MinimalSteps:   map[catalog.NodeName]map[string]any{},
	}
	plans, _ := s.plan(nodes)
	needsProcessing := false
	for _, p := range plans {
		needsProcessing = needsProcessing || p.class.Processing
	}
	sets := [][]catalog.ConfigField{s.base}
	if needsProcessing {
		sets = append(sets, s.processing)
	}
	var baseEssential []string
	for _, set := range sets {
		for _, f := range set {
			if f.Tier == catalog.TierDerived {
				continue
			}
			t.Base[f.Name] = cloneValue(normalize(f.Default))
			if f.Tier == catalog.TierEssential && f.Default == nil {
				baseEssential = append(baseEssential, "base."+f.Name)
			}
		}
	}
	t.EssentialFields = append(t.EssentialFields, baseEssential...)
	for _, p := range baseEssential {
		t.MinimalBase[strings.TrimPrefix(p, "base.")] = nil
	}
	for k, v := range s.dagDefaults(plans, frameworkFields) {
		t.Base[k] = v
		t.MinimalBase[k] = cloneValue(v)
	}
	planned := map[catalog.NodeName]bool{}
	var configs []*Config
	keyOwner := map[catalog.ConfigKey]catalog.NodeName{}
	follow := s.followFramework(plans)
	// A step that reads the label (metrics, evaluation) after a model that
	// writes it only when told to: that model's label_name is essential.
	labelRead := false
	for _, p := range plans {
		labelRead = labelRead || p.class.ReadsLabel
	}
	for _, p := range plans {
		planned[p.node] = true
		own := map[string]any{}
		minimal := map[string]any{}
		declared := map[string]any{} // the class's own defaults, before the DAG's framework
		for _, r := range s.ownRequirements(p.class) {
			declared[r.Name] = r.Default
		}
		for _, r := range follow(s.ownRequirements(p.class)) {
			own[r.Name] = r.Default
			if r.Name == "job_type" && p.jobType != "" {
				own[r.Name] = p.jobType
			}
			_, inBase := t.MinimalBase[r.Name]
			switch {
			case (r.Required || (labelRead && p.class.WritesLabelOnlyWhenSet && r.Name == "label_name")) && own[r.Name] == nil:
				t.EssentialFields = append(t.EssentialFields, string(p.node)+"."+r.Name)
				minimal[r.Name] = nil
			case r.Name == "job_type":
				// Build takes it from the node name as the template does.
			case inBase && own[r.Name] != nil && !equalValues(own[r.Name], t.MinimalBase[r.Name]),
				!inBase && !equalValues(own[r.Name], declared[r.Name]):
				// Decided by the DAG, or the node's own value a base value would override.
				minimal[r.Name] = cloneValue(own[r.Name])
			}
		}
		t.Steps[p.node] = own
		if len(minimal) > 0 {
			t.MinimalSteps[p.node] = minimal
		}
		t.ConfigClassMap[p.node] = p.class.Name
		values := map[string]any{}
		for name, v := range t.Base {
			if p.class.HasField(name) {
				values[name] = v
			}
		}
		for name, v := range own {
			values[name] = v
		}
		cfg, _, _ := p.class.newConfig("", values)
		t.ConfigKeys[p.node] = cfg.Key
		if prev, dup := keyOwner[cfg.Key]; dup {
			t.Warnings = append(t.Warnings, fmt.Sprintf("nodes %s and %s both get the config key %s; give them different job types", prev, p.node, cfg.Key))
			continue
		}
		keyOwner[cfg.Key] = p.node
		configs = append(configs, cfg)
	}
	for _, n := range nodes {
		if !planned[n] {
			t.Pending = append(t.Pending, n)
			t.Warnings = append(t.Warnings, fmt.Sprintf("node %s does not start with a known step type; it has no config class", n))
		}
	}
	sort.Slice(configs, func(i, j int) bool { return configs[i].Key < configs[j].Key })
	t.File = layout(configs, "", true)
	return t
}
