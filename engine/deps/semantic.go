package deps

import (
	"strings"
	"unicode"

	"github.com/cursus-go/cursus/engine/catalog"
)

// Weights of the four parts of Similarity.
const (
	WeightString    = 0.30
	WeightToken     = 0.25
	WeightSynonym   = 0.25
	WeightSubstring = 0.20
)

// synonymGroups are the concept groups of the synonym score; two different
// words are synonyms when one group holds both.
var synonymGroups = [][]string{
	{"model", "artifact", "trained", "output"},
	{"data", "dataset", "input", "processed", "training"},
	{"config", "configuration", "params", "parameters", "hyperparameters", "settings"},
	{"payload", "sample", "test", "inference", "example"},
	{"output", "result", "artifact", "generated", "produced"},
	{"training", "train", "fit", "learn"},
	{"preprocessing", "preprocess", "processed", "clean", "transform"},
}

// synonymMask maps a word to the bit set of groups holding it.
var synonymMask = func() map[string]uint32 {
	m := map[string]uint32{}
	for i, g := range synonymGroups {
		for _, w := range g {
			m[w] |= 1 << i
		}
	}
	return m
}()

var abbreviations = map[string]string{
	"config":      "configuration",
	"params":      "parameters",
	"hyperparams": "hyperparameters",
	"preprocess":  "preprocessing",
	"eval":        "evaluation",
	"reg":         "registration",
	"pkg":         "package",
	"packaged":    "package",
}

var stopWords = map[string]bool{
	"the": true, "a": true, "an": true, "and": true, "or": true, "but": true, "in": true,
	"on": true, "at": true, "to": true, "for": true, "of": true, "with": true, "by": true,
}

// isSpace is Python's str.isspace for one code point (Go's unicode.IsSpace
// plus the four ASCII information separators).
func isSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// Normalize prepares a name for comparison: lower
// case; '_', '-' and '.' become spaces; every other character outside
// [a-z0-9] and whitespace is dropped; words are split on whitespace,
// abbreviations expanded (config -> configuration, params -> parameters,
// hyperparams -> hyperparameters, preprocess -> preprocessing, eval ->
// evaluation, reg -> registration, pkg and packaged -> package), stop words
// dropped (the, a, an, and, or, but, in, on, at, to, for, of, with, by) and
// the rest joined by single spaces.
func Normalize(name string) string {
	return strings.Join(normalizedWords(name), " ")
}

func normalizedWords(name string) []string {
	var sb strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r == '_' || r == '-' || r == '.':
			sb.WriteByte(' ')
		case (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9'):
			sb.WriteRune(r)
		case isSpace(r):
			sb.WriteByte(' ') // str.split treats every whitespace alike
		}
	}
	words := strings.Fields(sb.String())
	out := words[:0]
	for _, w := range words {
		if x, ok := abbreviations[w]; ok {
			w = x
		}
		if !stopWords[w] {
			out = append(out, w)
		}
	}
	return out
}

// SimilarityExplanation is the breakdown of Similarity.
type SimilarityExplanation struct {
	OverallScore        float64   `json:"overall_score"`
	NormalizedNames     [2]string `json:"normalized_names"`
	StringSimilarity    float64   `json:"string_similarity"`
	TokenSimilarity     float64   `json:"token_similarity"`
	SemanticSimilarity  float64   `json:"semantic_similarity"` // the synonym score
	SubstringSimilarity float64   `json:"substring_similarity"`
}

// Similarity is the semantic similarity of two names: 0 when
// either name is empty; 1 when the normalized names are equal; otherwise
// 0.30 string ratio + 0.25 token overlap + 0.25 synonym score + 0.20
// substring score (see ExplainSimilarity for the parts).
func Similarity(a, b string) float64 {
	if a == "" || b == "" {
		return 0
	}
	n1, n2 := Normalize(a), Normalize(b)
	if n1 == n2 {
		return 1.0
	}
	s, t, y, u := parts(n1, n2)
	return weighted(s, t, y, u)
}

// weighted sums the parts left to right, as Python's sum() over the same
// list does, so results agree to the last bit.
func weighted(s, t, y, u float64) float64 {
	total := s * WeightString
	total += t * WeightToken
	total += y * WeightSynonym
	total += u * WeightSubstring
	return total
}

// ExplainSimilarity returns Similarity with its parts computed on the
// normalized names:
//   - string_similarity: SequenceRatio of the normalized names;
//   - token_similarity: Jaccard index of their word sets;
//   - semantic_similarity: over every pair of distinct words (w1, w2), 1 if
//     equal, 0.8 if a synonym group holds both, else 0, averaged;
//   - substring_similarity: shorter/longer length when one normalized name
//     contains the other, else the best shorter/longer over word pairs of at
//     least 3 letters where one contains the other, else 0.
//
// The parts are reported even when the names normalize equal and the
// overall score is 1.
func ExplainSimilarity(a, b string) SimilarityExplanation {
	n1, n2 := Normalize(a), Normalize(b)
	s, t, y, u := parts(n1, n2)
	return SimilarityExplanation{
		OverallScore:        Similarity(a, b),
		NormalizedNames:     [2]string{n1, n2},
		StringSimilarity:    s,
		TokenSimilarity:     t,
		SemanticSimilarity:  y,
		SubstringSimilarity: u,
	}
}

func parts(n1, n2 string) (str, token, synonym, substr float64) {
	w1, w2 := uniq(strings.Fields(n1)), uniq(strings.Fields(n2))
	return SequenceRatio(n1, n2), tokenSimilarity(w1, w2), synonymScore(w1, w2), substringScore(n1, n2)
}

func uniq(ws []string) []string {
	out := ws[:0]
	seen := make(map[string]bool, len(ws))
	for _, w := range ws {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func tokenSimilarity(w1, w2 []string) float64 {
	if len(w1) == 0 || len(w2) == 0 {
		return 0
	}
	inter := 0
	for _, a := range w1 {
		for _, b := range w2 {
			if a == b {
				inter++
				break
			}
		}
	}
	union := len(w1) + len(w2) - inter
	return float64(inter) / float64(union)
}

func synonymScore(w1, w2 []string) float64 {
	total := len(w1) * len(w2)
	if total == 0 {
		return 0
	}
	matches := 0.0
	for _, a := range w1 {
		for _, b := range w2 {
			if a == b {
				matches++
			} else if synonymMask[a]&synonymMask[b] != 0 {
				matches += 0.8
			}
		}
	}
	return matches / float64(total)
}

func substringScore(n1, n2 string) float64 {
	if strings.Contains(n2, n1) || strings.Contains(n1, n2) {
		l1, l2 := len([]rune(n1)), len([]rune(n2))
		if l1 == 0 && l2 == 0 {
			return 0 // two empty names: no substring to share (and no division by zero)
		}
		return float64(min(l1, l2)) / float64(max(l1, l2))
	}
	best := 0.0
	for _, a := range strings.Fields(n1) {
		for _, b := range strings.Fields(n2) {
			if len(a) >= 3 && len(b) >= 3 && (strings.Contains(b, a) || strings.Contains(a, b)) {
				if s := float64(min(len(a), len(b))) / float64(max(len(a), len(b))); s > best {
					best = s
				}
			}
		}
	}
	return best
}

// SimilarityWithAliases is the best Similarity of name to the output's
// logical name and each of its aliases (the first one wins a tie), and the
// name that gave it.
func SimilarityWithAliases(name string, out *catalog.OutputPort) (float64, string) {
	return similarityWithAliases(Similarity, name, out)
}

func similarityWithAliases(sim func(a, b string) float64, name string, out *catalog.OutputPort) (float64, string) {
	best, match := sim(name, out.LogicalName), out.LogicalName
	for _, a := range out.Aliases {
		if s := sim(name, a); s > best {
			best, match = s, a
		}
	}
	return best, match
}
