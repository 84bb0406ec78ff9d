package deps

import (
	"slices"
	"strings"
	"unicode"

	"github.com/cursus-go/cursus/engine/catalog"
)

// Threshold is the resolution threshold: a candidate is viable only when its
// compatibility score is strictly greater.
const Threshold = 0.5

// HighScore is the score a binding is trusted at without a second look:
// a binding below it (viable, yet matched on little more than its type)
// is worth a warning naming its score.
const HighScore = 0.8

// StrongMatch reports whether an output is a strong match for an input,
// the only kind of match an optional input binds on: the input names the
// output (its logical name is the output's name or an alias) and does not
// rule the provider out (its compatible_sources, when it lists any, name
// it); or it declares the output's type (compatible_output_types); or its
// compatible_sources name the provider (or it names none and the output is
// of exactly its type) and the output's own name shares a word with the
// input's name or keywords (its aliases do not count) (calibration_model and
// calibration_output share "calibration"; DATA_SECONDARY and METADATA
// share none). A match on name similarity alone, however high it scores,
// is not strong: an optional input left unbound does no harm, one bound to
// the wrong output feeds its step data it did not ask for.
func StrongMatch(in *catalog.InputPort, out *catalog.OutputPort, provider *catalog.Step) bool {
	if slices.Contains(in.CompatibleOutputTypes, out.Type) {
		return true
	}
	named := InSources(provider, in.CompatibleSources)
	if exactName(in.LogicalName, out) {
		return len(in.CompatibleSources) == 0 || named
	}
	// An input that names no sources at all takes a provider's output of
	// exactly its own type when the names share a word (EMR's input_data
	// and a callback's output_data); one that names sources takes only
	// theirs.
	if !named && (len(in.CompatibleSources) > 0 || in.Type != out.Type) {
		return false
	}
	want := portWords(in.LogicalName)
	for _, k := range in.SemanticKeywords {
		for w := range portWords(k) {
			want[w] = true
		}
	}
	for w := range portWords(out.LogicalName) {
		if want[w] {
			return true
		}
	}
	return false
}

// genericPortWords say nothing about what a port carries.
var genericPortWords = map[string]bool{"output": true, "outputs": true, "input": true, "inputs": true, "path": true, "uri": true, "s3": true}

// portWords are the lower-case words of a port name (split at
// underscores, hyphens, spaces and lower-to-upper case changes), generic
// ones left out.
func portWords(name string) map[string]bool {
	out := map[string]bool{}
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			if w := strings.ToLower(string(cur)); !genericPortWords[w] {
				out[w] = true
			}
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == ' ' || r == '.':
			flush()
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			flush()
		}
		cur = append(cur, r)
		prevLower = unicode.IsLower(r)
	}
	flush()
	return out
}

// Weights of the compatibility score's components.
const (
	WeightTypeExact      = 0.4  // input type == output type
	WeightTypeCompatible = 0.2  // types compatible (see TypesCompatible)
	WeightDataExact      = 0.2  // data types equal
	WeightDataCompatible = 0.1  // S3Uri~String, Integer~Float
	WeightName           = 0.25 // times the name similarity
	WeightExactName      = 0.05 // input name equals the output's name or an alias
	WeightSource         = 0.1  // +0.1 provider in compatible sources, -0.1 not
	WeightKeywords       = 0.05 // times the share of keywords found in the output name
)

// DefaultDataType is the data type of a port that declares none.
const DefaultDataType = "S3Uri"

// typeMatrix lists, per input type, the output types it accepts.
var typeMatrix = map[catalog.DependencyType][]catalog.DependencyType{
	catalog.DepModelArtifacts:   {catalog.DepModelArtifacts},
	catalog.DepTrainingData:     {catalog.DepProcessingOutput, catalog.DepTrainingData},
	catalog.DepProcessingOutput: {catalog.DepProcessingOutput, catalog.DepTrainingData},
	catalog.DepHyperparameters:  {catalog.DepHyperparameters, catalog.DepCustomProperty},
	catalog.DepPayloadSamples:   {catalog.DepPayloadSamples, catalog.DepProcessingOutput},
	catalog.DepCustomProperty:   {catalog.DepCustomProperty},
}

var dataTypeMatrix = map[string][]string{
	"S3Uri":   {"S3Uri", "String"},
	"String":  {"String", "S3Uri"},
	"Integer": {"Integer", "Float"},
	"Float":   {"Float", "Integer"},
	"Boolean": {"Boolean"},
}

// TypesCompatible reports whether an input of type in accepts an output of
// type out: model_artifacts takes model_artifacts; training_data and
// processing_output take processing_output or training_data;
// hyperparameters takes hyperparameters or custom_property; payload_samples
// takes payload_samples or processing_output; custom_property takes
// custom_property.
func TypesCompatible(in, out catalog.DependencyType) bool {
	for _, t := range typeMatrix[in] {
		if t == out {
			return true
		}
	}
	return false
}

// PortAccepts reports whether an input port accepts an output of type out
// as a compatible type: TypesCompatible for the port's type, or out is one
// of the port's compatible_output_types (its opt-in to an output type its
// own type does not take, such as a processing_output input that takes an
// upstream model's artefacts).
func PortAccepts(in *catalog.InputPort, out catalog.DependencyType) bool {
	if TypesCompatible(in.Type, out) {
		return true
	}
	for _, t := range in.CompatibleOutputTypes {
		if t == out {
			return true
		}
	}
	return false
}

func dataType(t string) string {
	if t == "" {
		return DefaultDataType
	}
	return t
}

func dataTypesCompatible(in, out string) bool {
	allowed, ok := dataTypeMatrix[in]
	if !ok {
		return in == out
	}
	for _, t := range allowed {
		if t == out {
			return true
		}
	}
	return false
}

// jobSuffixes are stripped from a provider type before the sources check,
// so a job-type variant of a step counts as the step.
var jobSuffixes = []string{"_Training", "_Testing", "_Validation", "_Calibration"}

// InSources reports whether a provider step satisfies an input's
// compatible_sources list, aliases included: its type
// (a trailing job suffix such as "_Training" removed) is listed; or one of
// its legacy aliases is; or "<type>Step" is; or an entry equals the type
// once a trailing "Step" is removed from both. Generic class tokens
// (ProcessingStep, DataLoad, ...) are not expanded: they match only
// through the "Step" rule.
func InSources(provider *catalog.Step, sources []string) bool {
	if provider == nil {
		return false
	}
	p := string(provider.Type)
	for _, s := range jobSuffixes {
		if strings.HasSuffix(p, s) {
			p = strings.TrimSuffix(p, s)
			break
		}
	}
	strip := func(n string) string { return strings.TrimSuffix(n, "Step") }
	ps := strip(p)
	for _, src := range sources {
		if src == p || src == p+"Step" || strip(src) == ps {
			return true
		}
		for _, a := range provider.Aliases {
			if src == a {
				return true
			}
		}
	}
	return false
}

// Components are the parts of a compatibility score, each already
// weighted: their sum (capped at 1) is the score when the types are
// compatible.
type Components struct {
	TypeCompatibility     float64 `json:"type_compatibility"`
	DataTypeCompatibility float64 `json:"data_type_compatibility"`
	SemanticSimilarity    float64 `json:"semantic_similarity"`
	ExactMatchBonus       float64 `json:"exact_match_bonus"`
	SourceCompatibility   float64 `json:"source_compatibility"`
	KeywordMatching       float64 `json:"keyword_matching"`
}

// Compatibility explains the score of one provider output for one input.
type Compatibility struct {
	Score     float64 `json:"score"`
	Viable    bool    `json:"viable"` // Score > Threshold
	Threshold float64 `json:"threshold"`
	// TypesCompatible is false when the output's type cannot feed the
	// input at all (PortAccepts: the type matrix, or the port's
	// compatible_output_types); the score is then 0 whatever the other
	// components say.
	TypesCompatible bool       `json:"types_compatible"`
	Components      Components `json:"components"`
	// NameSimilarity is the unweighted best Similarity of the input name to
	// the output's name or aliases, and MatchedName the name that gave it.
	NameSimilarity float64 `json:"name_similarity"`
	MatchedName    string  `json:"matched_name"`
	// ProviderInSources is nil when the input lists no compatible sources.
	ProviderInSources *bool `json:"provider_in_sources,omitempty"`
	// KeywordsMatched are the input's keywords found in the output name.
	KeywordsMatched []string `json:"keywords_matched"`
}

// Score is the compatibility of provider's output out for input in, its
// components summed in a fixed order so the value agrees to the last bit
// with cursus (Python)'s (see the package doc). Zero when the types are incompatible.
func Score(in *catalog.InputPort, out *catalog.OutputPort, provider *catalog.Step) float64 {
	return score(Similarity, in, out, provider)
}

func score(sim func(a, b string) float64, in *catalog.InputPort, out *catalog.OutputPort, provider *catalog.Step) float64 {
	s := 0.0
	switch {
	case in.Type == out.Type:
		s += WeightTypeExact
	case PortAccepts(in, out.Type):
		s += WeightTypeCompatible
	default:
		return 0
	}
	dIn, dOut := dataType(in.DataType), dataType(out.DataType)
	if dIn == dOut {
		s += WeightDataExact
	} else if dataTypesCompatible(dIn, dOut) {
		s += WeightDataCompatible
	}
	name, _ := similarityWithAliases(sim, in.LogicalName, out)
	s += name * WeightName
	if exactName(in.LogicalName, out) {
		s += WeightExactName
	}
	if len(in.CompatibleSources) > 0 {
		if InSources(provider, in.CompatibleSources) {
			s += WeightSource
		} else {
			s -= WeightSource
		}
	}
	if len(in.SemanticKeywords) > 0 {
		s += keywordShare(in.SemanticKeywords, out.LogicalName) * WeightKeywords
	}
	return min(s, 1.0)
}

func exactName(name string, out *catalog.OutputPort) bool {
	if name == out.LogicalName {
		return true
	}
	for _, a := range out.Aliases {
		if a == name {
			return true
		}
	}
	return false
}

func keywordShare(keywords []string, outputName string) float64 {
	lower := strings.ToLower(outputName)
	n := 0
	for _, k := range keywords {
		if strings.Contains(lower, strings.ToLower(k)) {
			n++
		}
	}
	return float64(n) / float64(len(keywords))
}

// Explain returns the score of out for in with every component.
func Explain(in *catalog.InputPort, out *catalog.OutputPort, provider *catalog.Step) Compatibility {
	var c Compatibility
	c.Threshold = Threshold
	switch {
	case in.Type == out.Type:
		c.Components.TypeCompatibility = WeightTypeExact
		c.TypesCompatible = true
	case PortAccepts(in, out.Type):
		c.Components.TypeCompatibility = WeightTypeCompatible
		c.TypesCompatible = true
	}
	dIn, dOut := dataType(in.DataType), dataType(out.DataType)
	if dIn == dOut {
		c.Components.DataTypeCompatibility = WeightDataExact
	} else if dataTypesCompatible(dIn, dOut) {
		c.Components.DataTypeCompatibility = WeightDataCompatible
	}
	c.NameSimilarity, c.MatchedName = SimilarityWithAliases(in.LogicalName, out)
	c.Components.SemanticSimilarity = c.NameSimilarity * WeightName
	if exactName(in.LogicalName, out) {
		c.Components.ExactMatchBonus = WeightExactName
	}
	if len(in.CompatibleSources) > 0 {
		ok := InSources(provider, in.CompatibleSources)
		c.ProviderInSources = &ok
		if ok {
			c.Components.SourceCompatibility = WeightSource
		} else {
			c.Components.SourceCompatibility = -WeightSource
		}
	}
	c.KeywordsMatched = []string{}
	if len(in.SemanticKeywords) > 0 {
		lower := strings.ToLower(out.LogicalName)
		for _, k := range in.SemanticKeywords {
			if strings.Contains(lower, strings.ToLower(k)) {
				c.KeywordsMatched = append(c.KeywordsMatched, k)
			}
		}
		c.Components.KeywordMatching = keywordShare(in.SemanticKeywords, out.LogicalName) * WeightKeywords
	}
	c.Score = Score(in, out, provider)
	c.Viable = c.Score > Threshold
	return c
}
