package config

import (
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/deps"
)

// Resolution methods (Resolution.Method): how a node found its config.
const (
	MethodDirect   = "direct_name"
	MethodJobType  = "job_type"
	MethodSemantic = "semantic"
	MethodPattern  = "pattern"
)

// Direct-match rules (Resolution.Rule).
const (
	RuleExactKey        = "exact_key"
	RuleMetadata        = "metadata_config_types"
	RuleCaseInsensitive = "case_insensitive"
	RuleBaseStepName    = "base_step_name"
	RuleScored          = "scored"
)

// ConfidenceThreshold is the score below which a scored resolution is
// flagged as low-confidence (Resolution.LowConfidence).
const ConfidenceThreshold = 0.7

// Resolution is the config picked for one DAG node.
type Resolution struct {
	Node          catalog.NodeName
	Config        *Config
	Confidence    float64
	Method        string      // direct_name, job_type, semantic or pattern
	Rule          string      // which direct rule matched, or "scored"
	LowConfidence bool        // a scored match below ConfidenceThreshold
	Candidates    []Candidate // every scored candidate considered (scored resolutions only), in tier then config order
}

// ResolveOptions tunes Set.Resolve.
type ResolveOptions struct {
	// ConfigTypes maps node names (or keys) to config class names, like
	// metadata.config_types. When nil the set's MetadataConfigTypes is used.
	ConfigTypes map[string]string
	// FirstOnTie takes the first best candidate on a tied score instead of
	// returning an *AmbiguousNodeError.
	FirstOnTie bool
}

// jobTypeKeywords are the job-type keyword groups, in order.
var jobTypeKeywords = []struct {
	name     string
	keywords []string
}{
	{"training", []string{"training", "train"}},
	{"calibration", []string{"calibration", "calib"}},
	{"evaluation", []string{"evaluation", "eval", "test"}},
	{"inference", []string{"inference", "infer", "predict"}},
}

// semanticKeywords are the semantic categories, in order.
var semanticKeywords = [][]string{
	{"loading", "load", "cradle"},
	{"preprocessing", "tabular"},
	{"training", "xgboost", "pytorch"},
	{"evaluation", "eval", "test"},
	{"transformation", "batch"},
}

// stepTypePatterns are the name patterns (legacy step names included: they
// never match a current config, and keep the scores of the others as they
// are). Each pattern is a plain literal, so it is matched as a substring of
// the lower-cased node name.
var stepTypePatterns = []struct {
	substr string
	types  []catalog.StepType
}{
	{"data_load", []catalog.StepType{"CradleDataLoading"}},
	{"preprocess", []catalog.StepType{"TabularPreprocessing"}},
	{"train", []catalog.StepType{"XGBoostTraining", "PyTorchTraining", "DummyTraining"}},
	{"eval", []catalog.StepType{"XGBoostModelEval"}},
	{"model", []catalog.StepType{"XGBoostModel", "PyTorchModel"}},
	{"calibrat", []catalog.StepType{"ModelCalibration"}},
	{"packag", []catalog.StepType{"MIMSPackaging"}},
	{"payload", []catalog.StepType{"MIMSPayload"}},
	{"regist", []catalog.StepType{"ModelRegistration"}},
	{"transform", []catalog.StepType{"BatchTransform"}},
	{"currency", []catalog.StepType{"CurrencyConversion"}},
	{"risk", []catalog.StepType{"RiskTableMapping"}},
	{"hyperparam", []catalog.StepType{"HyperparameterPrep"}},
}

// Resolve picks a config for every node (see the package doc for the
// order). It reports every node that cannot be resolved in one
// *ResolutionError (each failure with its candidates), and then checks that
// no two nodes yield the same SageMaker step name (*DuplicateStepNameError).
// The resolutions are returned in node order.
func (s *Set) Resolve(nodes []catalog.NodeName, opts ResolveOptions) ([]Resolution, error) {
	out := make([]Resolution, 0, len(nodes))
	var failures []NodeFailure
	for _, n := range nodes {
		r, err := s.ResolveNode(n, opts)
		if err != nil {
			f := NodeFailure{Node: n, Reason: "no_match", Err: err}
			if amb, ok := err.(*AmbiguousNodeError); ok {
				f.Reason, f.Candidates = "ambiguous", amb.Candidates
			}
			failures = append(failures, f)
			continue
		}
		out = append(out, r)
	}
	if len(failures) > 0 {
		return out, &ResolutionError{Total: len(nodes), Failures: failures, Available: s.Keys()}
	}
	if err := checkDuplicateStepNames(out); err != nil {
		return out, err
	}
	return out, nil
}

func checkDuplicateStepNames(rs []Resolution) error {
	byName := map[catalog.SageMakerStepName]*StepNameCollision{}
	var order []catalog.SageMakerStepName
	for _, r := range rs {
		name := r.Config.StepName()
		c, ok := byName[name]
		if !ok {
			c = &StepNameCollision{StepName: name}
			byName[name] = c
			order = append(order, name)
		}
		c.Nodes = append(c.Nodes, r.Node)
		c.Keys = append(c.Keys, r.Config.Key)
	}
	var collisions []StepNameCollision
	for _, name := range order {
		if c := byName[name]; len(c.Nodes) > 1 {
			collisions = append(collisions, *c)
		}
	}
	if len(collisions) > 0 {
		return &DuplicateStepNameError{Collisions: collisions}
	}
	return nil
}

// ResolveNode picks the config of one node. Errors: *NoConfigError or
// *AmbiguousNodeError.
func (s *Set) ResolveNode(node catalog.NodeName, opts ResolveOptions) (Resolution, error) {
	if c, rule := s.direct(node, opts); c != nil {
		return Resolution{Node: node, Config: c, Confidence: 1, Method: MethodDirect, Rule: rule}, nil
	}
	type scored struct {
		c *Config
		Candidate
	}
	var all []scored
	add := func(c *Config, conf float64, method string) {
		all = append(all, scored{c, Candidate{Key: c.Key, Class: c.Class.Name, Confidence: conf, Method: method}})
	}
	s.jobTypeMatches(node, add)
	s.semanticMatches(node, add)
	s.patternMatches(node, add)
	if len(all) == 0 {
		return Resolution{}, &NoConfigError{Node: node, Available: s.Keys()}
	}
	best := 0
	for i := range all {
		if all[i].Confidence > all[best].Confidence {
			best = i
		}
	}
	cands := make([]Candidate, len(all))
	for i := range all {
		cands[i] = all[i].Candidate
	}
	if !opts.FirstOnTie {
		var tied []Candidate
		seen := map[catalog.ConfigKey]bool{}
		for _, a := range all {
			if a.Confidence == all[best].Confidence && !seen[a.Key] {
				seen[a.Key] = true
				tied = append(tied, a.Candidate)
			}
		}
		if len(tied) > 1 {
			return Resolution{}, &AmbiguousNodeError{Node: node, Candidates: tied}
		}
	}
	b := all[best]
	return Resolution{Node: node, Config: b.c, Confidence: b.Confidence, Method: b.Method, Rule: RuleScored,
		LowConfidence: b.Confidence < ConfidenceThreshold, Candidates: cands}, nil
}

// direct applies the four direct rules in order.
func (s *Set) direct(node catalog.NodeName, opts ResolveOptions) (*Config, string) {
	name := string(node)
	if c, ok := s.byKey[catalog.ConfigKey(name)]; ok {
		return c, RuleExactKey
	}
	types := opts.ConfigTypes
	if types == nil {
		types = s.MetadataConfigTypes
	}
	if class, ok := types[name]; ok {
		for _, c := range s.configs {
			if c.Class.Name != class {
				continue
			}
			if i := strings.LastIndexByte(name, '_'); i >= 0 {
				if strings.EqualFold(c.JobType(), name[i+1:]) {
					return c, RuleMetadata
				}
			} else {
				return c, RuleMetadata
			}
		}
	}
	lower := strings.ToLower(name)
	for _, c := range s.configs {
		if strings.ToLower(string(c.Key)) == lower {
			return c, RuleCaseInsensitive
		}
	}
	if s.schema != nil {
		if _, suffix, ok := s.schema.ResolveNode(node); !ok || suffix == "" {
			key := canonicalKey(name)
			var hit *Config
			n := 0
			for _, c := range s.configs {
				if string(c.Key) == name {
					continue
				}
				if canonicalKey(string(c.Class.StepType)) == key {
					hit, n = c, n+1
				}
			}
			if n == 1 {
				return hit, RuleBaseStepName
			}
		}
	}
	return nil, ""
}

// hasJobTypeAttr reports whether the config's class has a job_type field
// (set or not).
func hasJobTypeAttr(c *Config) bool {
	if c.Class.HasJobType() {
		return true
	}
	_, ok := c.Values["job_type"]
	return ok
}

func classBase(class string) string {
	b := strings.ToLower(class)
	b = strings.ReplaceAll(b, "config", "")
	return strings.ReplaceAll(b, "step", "")
}

func (s *Set) jobTypeMatches(node catalog.NodeName, add func(*Config, float64, string)) {
	lower := strings.ToLower(string(node))
	var keywords []string
	for _, g := range jobTypeKeywords {
		for _, k := range g.keywords {
			if strings.Contains(lower, k) {
				keywords = g.keywords
				break
			}
		}
		if keywords != nil {
			break
		}
	}
	if keywords == nil {
		return
	}
	nodeStep := ""
	if i := strings.LastIndexByte(string(node), '_'); i >= 0 {
		nodeStep = strings.ToLower(string(node)[:i])
	}
	for _, c := range s.configs {
		if !hasJobTypeAttr(c) {
			continue
		}
		jt := strings.ToLower(c.JobType())
		if !containsAny(jt, keywords) {
			continue
		}
		base := classBase(c.Class.Name)
		if nodeStep != "" && base != "" && !strings.Contains(nodeStep, base) && !strings.Contains(base, nodeStep) {
			continue
		}
		add(c, 0.7+0.3*typeConfidence(lower, base), MethodJobType)
	}
}

// typeConfidence is the confidence that a node names a config's type.
func typeConfidence(nodeLower, base string) float64 {
	if strings.Contains(nodeLower, base) {
		return 0.8
	}
	for _, part := range strings.Split(base, "_") {
		if strings.Contains(nodeLower, part) {
			return 0.8
		}
	}
	return deps.SequenceRatio(nodeLower, base)
}

func (s *Set) semanticMatches(node catalog.NodeName, add func(*Config, float64, string)) {
	lower := strings.ToLower(string(node))
	nodeStep := string(node)
	if s.schema != nil {
		if t, _, ok := s.schema.ResolveNode(node); ok {
			nodeStep = string(t)
		}
	}
	for _, c := range s.configs {
		keyLower := strings.ToLower(string(c.Key))
		hit := false
		for _, kws := range semanticKeywords {
			if containsAny(lower, kws) && containsAny(keyLower, kws) {
				hit = true
				break
			}
		}
		if hit && strings.EqualFold(string(c.Class.StepType), nodeStep) {
			add(c, 0.7, MethodSemantic)
		}
	}
}

func (s *Set) patternMatches(node catalog.NodeName, add func(*Config, float64, string)) {
	lower := strings.ToLower(string(node))
	var types []catalog.StepType
	for _, p := range stepTypePatterns {
		if strings.Contains(lower, p.substr) {
			types = append(types, p.types...)
		}
	}
	if len(types) == 0 {
		return
	}
	for _, c := range s.configs {
		match := false
		for _, t := range types {
			if c.Class.StepType == t {
				match = true
				break
			}
		}
		if !match {
			continue
		}
		conf := 0.6
		if hasJobTypeAttr(c) && jobTypeBoost(lower, strings.ToLower(c.JobType())) {
			conf += 0.2
		}
		if conf > 0.9 {
			conf = 0.9
		}
		add(c, conf, MethodPattern)
	}
}

func jobTypeBoost(nodeLower, jobType string) bool {
	for _, g := range jobTypeKeywords {
		if containsAny(jobType, g.keywords) && containsAny(nodeLower, g.keywords) {
			return true
		}
	}
	return false
}

func containsAny(s string, subs []string) bool {
	for _, k := range subs {
		if strings.Contains(s, k) {
			return true
		}
	}
	return false
}
