package catalog

import (
	"strings"
	"unicode"
)

// CompoundAcronyms are multi-capital tokens kept whole when converting
// between PascalCase and snake_case, longest first (LightGBMMT before
// LightGBM).
var CompoundAcronyms = []string{"LightGBMMT", "LightGBM", "XGBoost", "PyTorch", "TensorFlow", "SageMaker", "MLFlow", "AutoML", "EMR"}

var snakeToAcronym = func() map[string]string {
	m := map[string]string{}
	for _, a := range CompoundAcronyms {
		m[strings.ToLower(a)] = a
	}
	return m
}()

// JobTypeSuffixes are the trailing file-name tokens treated as job types
// when resolving a file-style name (ResolveFileName).
var JobTypeSuffixes = []string{"training", "validation", "testing", "calibration", "inference", "evaluation", "batch", "export", "scoring"}

// CanonicalToSnake converts a canonical step type to its snake_case form,
// keeping compound acronyms whole: XGBoostTraining -> xgboost_training,
// PyTorchModelEval -> pytorch_model_eval, LightGBMMTTraining ->
// lightgbmmt_training, TSAModelEval -> tsa_model_eval.
func CanonicalToSnake(t StepType) string {
	s := string(t)
	for _, a := range CompoundAcronyms {
		if strings.Contains(s, a) {
			s = strings.ReplaceAll(s, a, a[:1]+strings.ToLower(a[1:]))
		}
	}
	// An underscore goes before an upper-case letter that follows a lower-case
	// letter or digit, or that ends a run of capitals and starts a word
	// (ABCWord -> abc_word).
	b := make([]byte, 0, len(s)+4)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isUpper(c) && i > 0 {
			p := s[i-1]
			if isLower(p) || isDigit(p) || (isUpper(p) && i+1 < len(s) && isLower(s[i+1])) {
				b = append(b, '_')
			}
		}
		if isUpper(c) {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b)
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// SnakeToCanonical converts snake_case parts back to PascalCase, using the
// compound-acronym table first (xgboost_training -> XGBoostTraining). It
// does not consult a catalog; use Catalog.ResolveFileName for that.
func SnakeToCanonical(snake string) StepType {
	return PartsToPascal(strings.FieldsFunc(snake, func(r rune) bool { return r == '_' || r == '-' || r == ' ' }))
}

// twoPartNames are step-name prefixes whose spelling the original project
// fixed differently from the acronym table: xgboost_mt -> XgboostMt
// (XgboostMtTraining), not XGBoostMt.
var twoPartNames = map[string]string{"xgboost_mt": "XgboostMt"}

// PartsToPascal joins name parts into PascalCase (two-part names, then the
// acronym table, else capitalised).
func PartsToPascal(parts []string) StepType {
	var b strings.Builder
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		if i+1 < len(parts) {
			if n, ok := twoPartNames[strings.ToLower(p+"_"+parts[i+1])]; ok {
				b.WriteString(n)
				i++
				continue
			}
		}
		if a, ok := snakeToAcronym[strings.ToLower(p)]; ok {
			b.WriteString(a)
			continue
		}
		b.WriteString(capitalize(p))
	}
	return StepType(b.String())
}

// capitalize is Python's str.capitalize: first letter upper, rest lower.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	r := []rune(strings.ToLower(s))
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// CanonicalKey collapses a name to lowercase letters and digits, so
// XGBoostTraining, xgboost_training and XGBoost-Training share one key.
func CanonicalKey(name string) string {
	var b strings.Builder
	b.Grow(len(name))
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r + ('a' - 'A'))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// SageMakerName is the step's name in a SageMaker pipeline definition:
// the type, plus "-" and the capitalised job type when there is one
// (TabularPreprocessing + training -> TabularPreprocessing-Training;
// XGBoostTraining + pretrain -> XGBoostTraining-Pretrain). A step with
// Patterns.NameSuffixField gets a further "-<value>" from the compiler
// (Registration-NA); see Step.SageMakerName.
func SageMakerName(t StepType, jobType string) SageMakerStepName {
	jobType = strings.TrimSpace(jobType)
	if jobType == "" {
		return SageMakerStepName(t)
	}
	return SageMakerStepName(string(t) + "-" + capitalize(jobType))
}

// SageMakerName is SageMakerName(s.Type, jobType) plus the value of the
// step's name-suffix field when it declares one; suffix supplies that
// value (it is ignored when the step has no such field or the value is
// empty).
func (s *Step) SageMakerName(jobType, suffix string) SageMakerStepName {
	n := SageMakerName(s.Type, jobType)
	if s.Patterns.NameSuffixField != "" && strings.TrimSpace(suffix) != "" {
		n += SageMakerStepName("-" + strings.TrimSpace(suffix))
	}
	return n
}

// ConfigKeyFor is the key of a step's entry in config.json: Type_jobType,
// or Type without a job type.
func ConfigKeyFor(t StepType, jobType string) ConfigKey {
	jobType = strings.TrimSpace(jobType)
	if jobType == "" {
		return ConfigKey(t)
	}
	return ConfigKey(string(t) + "_" + jobType)
}

// splitSegments splits a node name at '_' and '-' separators, keeping the
// separators' positions so prefixes can be re-sliced from the name.
func splitSegments(name string) []int {
	var cuts []int
	for i, r := range name {
		if r == '_' || r == '-' {
			cuts = append(cuts, i)
		}
	}
	return cuts
}

// ResolveNode maps a DAG node name to its step type and job-type suffix by
// stripping trailing _segment groups one at a time and taking the first
// prefix whose case/separator-insensitive key names a known step (or step
// alias): TabularPreprocessing_training -> (TabularPreprocessing,
// "training"); CradleDataLoading_munged -> (CradleDataLoading, "munged");
// XGBoostModel -> (XGBoostModel, ""). The suffix is returned as written.
func (c *Catalog) ResolveNode(node NodeName) (StepType, string, bool) {
	name := strings.TrimSpace(string(node))
	if name == "" {
		return "", "", false
	}
	if t, ok := c.byKey[CanonicalKey(name)]; ok {
		return t, "", true
	}
	cuts := splitSegments(name)
	for i := len(cuts) - 1; i >= 0; i-- {
		prefix := name[:cuts[i]]
		if t, ok := c.byKey[CanonicalKey(prefix)]; ok {
			return t, strings.Trim(name[cuts[i]+1:], "_-"), true
		}
	}
	return "", "", false
}

// fileNameAbbreviations expand file-name tokens ("" drops
// the token).
var fileNameAbbreviations = map[string]string{
	"xgb": "XGBoost", "xgboost": "XGBoost", "pytorch": "PyTorch", "torch": "PyTorch",
	"lgbm": "LightGBM", "lightgbm": "LightGBM", "mims": "", "tabular": "Tabular",
	"preprocess": "Preprocessing",
}

func expandPart(p string, evalShort bool) (string, bool) {
	if x, ok := fileNameAbbreviations[p]; ok {
		return x, x != ""
	}
	if evalShort && p == "evaluation" {
		return "Eval", true
	}
	return capitalize(p), true
}

// ResolveFileName maps a file-style name to a step type: the PascalCase of
// all parts; the same without a trailing job suffix; with abbreviations
// expanded (xgb -> XGBoost, preprocess -> Preprocessing, mims dropped);
// two re-orderings for names of 3+ parts (model_evaluation_xgb ->
// XGBoostModelEval); finally, for names of two or more parts, a similarity
// score of at least 0.8. Matches are case/separator-insensitive.
func (c *Catalog) ResolveFileName(name string) (StepType, bool) {
	name = strings.TrimSpace(strings.TrimSuffix(name, StepFileSuffix))
	if name == "" {
		return "", false
	}
	parts := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '_' || r == '-' || r == ' ' })
	if len(parts) == 0 {
		return "", false
	}
	try := func(ps []string) (StepType, bool) {
		t, ok := c.byKey[CanonicalKey(strings.Join(ps, ""))]
		return t, ok
	}
	// 1. all parts.
	if t, ok := try(parts); ok {
		return t, true
	}
	last := parts[len(parts)-1]
	isSuffix := len(parts) > 1 && contains(JobTypeSuffixes, last)
	// 2. without a job suffix.
	if isSuffix {
		if t, ok := try(parts[:len(parts)-1]); ok {
			return t, true
		}
	}
	// 3. abbreviations.
	expand := func(ps []string, evalShort bool) []string {
		var out []string
		for _, p := range ps {
			if x, keep := expandPart(p, evalShort); keep {
				out = append(out, x)
			}
		}
		return out
	}
	exp := expand(parts, false)
	if t, ok := try(exp); ok {
		return t, true
	}
	if isSuffix {
		if t, ok := try(expand(parts[:len(parts)-1], false)); ok {
			return t, true
		}
	}
	// 4. re-orderings for 3+ parts.
	if len(parts) >= 3 {
		for _, combo := range [][]string{
			{parts[len(parts)-1], parts[0], parts[1]},
			{parts[0], parts[1], parts[len(parts)-1]},
		} {
			if t, ok := try(expand(combo, true)); ok {
				return t, true
			}
		}
	}
	// 5. similarity >= 0.8 (names of two or more parts only: a single word
	// such as "processing" is contained in too many names to pick one).
	if len(parts) < 2 {
		return "", false
	}
	best, bestScore := StepType(""), 0.0
	for _, s := range c.sorted {
		if sc := fileNameSimilarity(parts, string(s.Type)); sc > bestScore && sc >= 0.8 {
			best, bestScore = s.Type, sc
		}
	}
	return best, best != ""
}

// fileNameSimilarity is the similarity of a file name to a
// canonical name: 1 equal, 0.9 contained, 0.85 every part contained,
// 0.8 most parts, else a fraction.
func fileNameSimilarity(parts []string, canonical string) float64 {
	joined := strings.Join(parts, "")
	lc := strings.ToLower(canonical)
	if joined == lc {
		return 1
	}
	if strings.Contains(lc, joined) {
		return 0.9
	}
	n := 0
	for _, p := range parts {
		if strings.Contains(lc, p) {
			n++
		}
	}
	switch {
	case n == len(parts):
		return 0.85
	case float64(n) >= float64(len(parts))*0.8:
		return 0.8
	}
	return float64(n) / float64(len(parts)) * 0.7
}
