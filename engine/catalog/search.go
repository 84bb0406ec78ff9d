package catalog

import (
	"math"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/internal/suggest"
)

// Match is one search result.
type Match struct {
	Step   *Step
	Type   StepType
	Score  float64 // 0..1, rounded to 3 decimals; 1 = exact name
	Reason string  // exact_match | alias_match | token_match | substring_match | keyword_match | fuzzy_match
}

// Match reasons.
const (
	ReasonExact     = "exact_match"     // the query is the step name (case/separator-insensitive)
	ReasonAlias     = "alias_match"     // the query is one of the step's aliases
	ReasonToken     = "token_match"     // every query word starts or equals a word of the name
	ReasonSubstring = "substring_match" // the query is part of the name
	ReasonKeyword   = "keyword_match"   // query words match the step's keywords, verb or framework
	ReasonFuzzy     = "fuzzy_match"     // close spelling (edit distance) or partial word matches
)

// minSearchScore is the lowest score Search reports.
const minSearchScore = 0.4

// QueryAbbreviations expand query words before matching (each word is
// matched both as written and expanded).
var QueryAbbreviations = map[string]string{
	"xgb": "xgboost", "lgbm": "lightgbm", "lgb": "lightgbm", "gbm": "lightgbm", "torch": "pytorch", "pt": "pytorch",
	"calib": "calibration", "cal": "calibration", "preproc": "preprocessing", "prep": "preprocessing",
	"preprocess": "preprocessing", "reg": "registration", "register": "registration", "pkg": "package",
	"hpo": "tuning", "tune": "tuning", "evaluation": "eval", "evaluate": "eval", "infer": "inference",
	"predict": "inference", "impute": "imputation", "metrics": "metrics", "sample": "sampling",
	"load": "loading", "data": "data", "sql": "sql", "bt": "batch", "xform": "transform",
}

// searchEntry holds the precomputed keys of one step. Words are ids into
// the catalog's search vocabulary, so a query scores each distinct word
// once, not once per step.
type searchEntry struct {
	step      *Step
	key       string // canonical key of the name
	nameIDs   []int  // words of the name (snake parts)
	aliasKeys []string
	kwIDs     []int // keywords, verb, framework, alias words (deduplicated, not in the name)
	jobTypes  map[string]bool
}

// searchIndex is the precomputed search data of a catalog.
type searchIndex struct {
	entries []searchEntry
	vocab   []string
}

func buildIndex(steps []*Step) searchIndex {
	idx := searchIndex{entries: make([]searchEntry, len(steps))}
	ids := map[string]int{}
	id := func(w string) int {
		if i, ok := ids[w]; ok {
			return i
		}
		ids[w] = len(idx.vocab)
		idx.vocab = append(idx.vocab, w)
		return ids[w]
	}
	for i, s := range steps {
		e := searchEntry{step: s, key: CanonicalKey(string(s.Type)), jobTypes: map[string]bool{}}
		seen := map[string]bool{}
		for _, t := range strings.Split(CanonicalToSnake(s.Type), "_") {
			e.nameIDs = append(e.nameIDs, id(t))
			seen[t] = true
		}
		addKW := func(w string) {
			for _, t := range tokenize(w) {
				if !seen[t] {
					seen[t] = true
					e.kwIDs = append(e.kwIDs, id(t))
				}
			}
		}
		for _, a := range s.Aliases {
			e.aliasKeys = append(e.aliasKeys, CanonicalKey(a))
			addKW(a)
		}
		for _, k := range s.Keywords {
			addKW(k)
		}
		addKW(string(s.Verb))
		if s.Framework != "" {
			addKW(s.Framework)
		}
		for _, j := range s.JobTypes {
			e.jobTypes[j] = true
		}
		idx.entries[i] = e
	}
	return idx
}

// tokenize splits text into lowercase words at separators and camel-case
// boundaries (compound acronyms kept whole).
func tokenize(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		for _, t := range strings.Split(CanonicalToSnake(StepType(f)), "_") {
			if t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

// queryToken is one query word with its expansion.
type queryToken struct{ word, expanded string }

// Search finds steps by a free-text query: words, abbreviations (xgb ->
// xgboost), substrings of the name and near spellings, scored 0..1 with a
// reason. Results are sorted by score, then name. An empty query returns
// nothing.
func (c *Catalog) Search(query string) []Match {
	return c.SearchJobType(query, "")
}

// SearchJobType is Search restricted to steps that declare the job type
// (no restriction when jobType is empty).
func (c *Catalog) SearchJobType(query, jobType string) []Match {
	words := tokenize(query)
	qkey := CanonicalKey(query)
	if qkey == "" {
		return nil
	}
	q := make([]queryToken, len(words))
	for i, w := range words {
		q[i] = queryToken{word: w, expanded: QueryAbbreviations[w]}
	}
	jobType = strings.ToLower(strings.TrimSpace(jobType))
	// Score every query word against every vocabulary word once.
	vocab := c.index.vocab
	scores := make([]float64, len(q)*len(vocab))
	for i, t := range q {
		row := scores[i*len(vocab) : (i+1)*len(vocab)]
		for j, w := range vocab {
			sc := wordScore(t.word, w)
			if t.expanded != "" && sc < 1 {
				if x := wordScore(t.expanded, w); x > sc {
					sc = x
				}
			}
			row[j] = sc
		}
	}
	var out []Match
	for i := range c.index.entries {
		e := &c.index.entries[i]
		if jobType != "" && !e.jobTypes[jobType] {
			continue
		}
		score, reason := e.score(qkey, scores, len(q), len(vocab))
		if score >= minSearchScore {
			out = append(out, Match{Step: e.step, Type: e.step.Type, Score: math.Round(score*1000) / 1000, Reason: reason})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Type < out[j].Type
	})
	return out
}

// score rates one step against a query; scores holds, per query word, the
// word scores against the vocabulary.
func (e *searchEntry) score(qkey string, scores []float64, nq, nv int) (float64, string) {
	if qkey == e.key {
		return 1, ReasonExact
	}
	for _, a := range e.aliasKeys {
		if qkey == a {
			return 0.95, ReasonAlias
		}
	}
	best, reason := 0.0, ""
	if nq > 0 {
		total, nameHits, allName, kwOnly := 0.0, 0, true, true
		var matched uint64 // bit per name word (names have few words)
		for i := 0; i < nq; i++ {
			row := scores[i*nv : (i+1)*nv]
			ns, ni := 0.0, -1
			for k, id := range e.nameIDs {
				if row[id] > ns {
					ns, ni = row[id], k
				}
			}
			ks := 0.0
			for _, id := range e.kwIDs {
				if row[id] > ks {
					ks = row[id]
				}
			}
			ks *= 0.6
			if ns >= ks && ns > 0 {
				total += ns
				if ni < 64 && matched&(1<<ni) == 0 {
					matched |= 1 << ni
					nameHits++
				}
				kwOnly = false
			} else {
				total += ks
			}
			if ns < 0.9 {
				allName = false
			}
		}
		coverage := total / float64(nq)
		nameCov := float64(nameHits) / float64(len(e.nameIDs))
		s := 0.9 * coverage * (0.75 + 0.25*nameCov)
		if s > best {
			best = s
			switch {
			case allName:
				reason = ReasonToken
			case kwOnly:
				reason = ReasonKeyword
			default:
				reason = ReasonFuzzy
			}
		}
	}
	if len(qkey) >= 3 && strings.Contains(e.key, qkey) {
		s := 0.7 + 0.15*float64(len(qkey))/float64(len(e.key))
		if s > best {
			best, reason = s, ReasonSubstring
		}
	}
	return best, reason
}

// wordScore compares one query word with one step word.
func wordScore(q, w string) float64 {
	switch {
	case q == w:
		return 1
	case len(q) >= 3 && strings.HasPrefix(w, q):
		return 0.9
	case len(q) == 2 && strings.HasPrefix(w, q):
		return 0.6
	case len(w) >= 3 && strings.HasPrefix(q, w):
		return 0.8
	case len(q) >= 3 && strings.Contains(w, q):
		return 0.7
	}
	lq, lw := len(q), len(w)
	if lq >= 4 && lw >= 4 && absInt(lq-lw) <= 2 {
		k := 1
		if lq >= 6 {
			k = 2
		}
		if d := suggest.Distance(q, w, k); d <= k {
			if d == 1 {
				return 0.75
			}
			return 0.6
		}
	}
	return 0
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Closest returns up to n step types closest to a name that is not in the
// catalog, best first: search hits and names within a small edit distance
// of it. It is meant for "did you mean" suggestions.
func (c *Catalog) Closest(name string, n int) []StepType {
	if n <= 0 {
		return nil
	}
	key := CanonicalKey(name)
	if key == "" {
		return nil
	}
	scores := map[StepType]float64{}
	for _, m := range c.Search(name) {
		scores[m.Type] = m.Score
	}
	for i := range c.index.entries {
		e := &c.index.entries[i]
		longest := len(key)
		if len(e.key) > longest {
			longest = len(e.key)
		}
		k := longest / 2
		if d := suggest.Distance(key, e.key, k); d <= k {
			sim := 1 - float64(d)/float64(longest)
			if sim > scores[e.step.Type] {
				scores[e.step.Type] = sim
			}
		}
	}
	type cand struct {
		t StepType
		s float64
	}
	var cs []cand
	for t, s := range scores {
		if s >= 0.5 {
			cs = append(cs, cand{t, s})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].s != cs[j].s {
			return cs[i].s > cs[j].s
		}
		return cs[i].t < cs[j].t
	})
	if len(cs) > n {
		cs = cs[:n]
	}
	out := make([]StepType, len(cs))
	for i, x := range cs {
		out[i] = x.t
	}
	return out
}
