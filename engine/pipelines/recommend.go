package pipelines

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/internal/lazyre"
)

// Request is what Recommend ranks DAGs for. Nil pointers take the
// defaults (labels: true, GPU: true).
type Request struct {
	DataType     string // text | tabular | mixed | "" (unknown)
	HasLabels    *bool
	NeedsLLM     bool
	MultiTask    bool
	Incremental  bool
	Framework    string // a framework, or "" / "any"
	GPUAvailable *bool
	// Need is free text ("calibration and registration") matched against
	// each DAG's features, node names and texts.
	Need string
	// MaxResults bounds the recommendations (default 5).
	MaxResults int
	// DataSource is where the data lives: s3, athena, redshift or cradle;
	// "" infers it from the need (an s3:// URI, or the name of a source)
	// or leaves it unknown.
	DataSource string
}

// Unmatched is a requirement no shared DAG can serve.
type Unmatched struct {
	Requirement string `json:"requirement"`
	Reason      string `json:"reason"`
}

// Recommendation is one ranked DAG.
type Recommendation struct {
	DagID           string   `json:"dag_id"`
	Score           float64  `json:"score"`
	Framework       string   `json:"framework"`
	Complexity      string   `json:"complexity"`
	Description     string   `json:"description"` // at most 100 characters
	NodeCount       int      `json:"node_count"`
	Cost            Cost     `json:"cost"`
	WhenToUse       string   `json:"when_to_use"`
	Differentiators []string `json:"differentiators"`
	Features        []string `json:"features"`
	Reasons         []string `json:"reasons"`
	NeedMatch       float64  `json:"need_match,omitempty"` // share of the need's terms the DAG matches, 0..1
	DataSource      string   `json:"data_source"`          // where the DAG loads its data from
	// ExtraFeatures are the DAG's features the need did not ask for (with
	// a need): fewer is a closer fit.
	ExtraFeatures []string `json:"extra_features,omitempty"`
}

// Ranking is the result of Recommend.
type Ranking struct {
	TotalMatches    int              `json:"total_matches"` // DAGs above the score floor
	Recommendations []Recommendation `json:"recommendations"`
	NeedTerms       []string         `json:"need_terms,omitempty"` // the need as matched
	Excluded        map[string]int   `json:"excluded,omitempty"`   // why DAGs were dropped: reason -> count
	// DataSource is where the data lives, as given or inferred from the
	// need (DataSourceFrom: "argument" or "need"); "" when unknown.
	DataSource     string `json:"data_source,omitempty"`
	DataSourceFrom string `json:"data_source_from,omitempty"`
	// Unmatched lists what was asked for that no shared DAG offers: the
	// ranking cannot honour it, whatever the scores say.
	Unmatched []Unmatched `json:"unmatched,omitempty"`
	// Notes are advice about the request itself (a fact that would change
	// the ranking if given).
	Notes []string `json:"notes,omitempty"`
}

// MinRecommendScore is the floor of Recommend.
const MinRecommendScore = 0.2

// Recommend ranks the DAGs for an agent's request (structured facts and a
// free-text need). See the package doc.
func (c *Catalog) Recommend(r Request) *Ranking {
	max := r.MaxResults
	if max <= 0 {
		max = 5
	}
	hasLabels := r.HasLabels == nil || *r.HasLabels
	gpu := r.GPUAvailable == nil || *r.GPUAvailable
	fw := strings.ToLower(strings.TrimSpace(r.Framework))
	if fw == "any" {
		fw = ""
	}
	dataType := strings.ToLower(strings.TrimSpace(r.DataType))
	ds, from := strings.ToLower(strings.TrimSpace(r.DataSource)), "argument"
	inferred, need := InferDataSource(r.Need)
	if ds == "" && inferred != "" {
		ds, from = inferred, "need"
	}
	terms := NeedTerms(need)
	out := &Ranking{Recommendations: []Recommendation{}, NeedTerms: terms, Excluded: map[string]int{}}
	if ds != "" {
		out.DataSource, out.DataSourceFrom = ds, from
	}
	out.Unmatched = c.unmatched(r, fw, dataType, ds, terms)
	type scored struct {
		rec     Recommendation
		entry   *Entry
		service bool // loads through the managed data service: its specs must be written
	}
	var all []scored
	for _, e := range c.entries {
		if fw != "" && e.Framework != fw {
			out.Excluded["framework is not "+fw]++
			continue
		}
		src := e.InputRequirements.DataSource
		fit, why := sourceFit(ds, src)
		if fit == 0 {
			out.Excluded[why]++
			continue
		}
		if dataType == "text" && !e.InputRequirements.TextSupport {
			out.Excluded["no text support"]++
			continue
		}
		if !gpu && e.Constraints.RequiresGPU {
			out.Excluded["needs a GPU"]++
			continue
		}
		score := 1.0
		var reasons []string
		if fw != "" {
			reasons = append(reasons, "framework "+fw+" (required)")
		}
		if fit == 1 && ds != "" {
			reasons = append(reasons, why)
		}
		if dataType != "" {
			if slices.Contains(e.InputRequirements.DataTypes, dataType) || dataType == "mixed" {
				reasons = append(reasons, dataType+" data fits")
			}
			if dataType == "text" {
				reasons = append(reasons, "supports text input")
			}
		}
		mul := func(f float64, why string) {
			score *= f
			reasons = append(reasons, fmt.Sprintf("x%g: %s", f, why))
		}
		if fit < 1 {
			mul(fit, why)
		}
		if dataType == "tabular" && e.Framework == "pytorch" && !r.NeedsLLM {
			mul(0.5, "tabular data without an LLM suits tree models better than PyTorch")
		}
		switch {
		case r.MultiTask && !e.InputRequirements.MultiTask:
			mul(0.3, "multi-task wanted but the DAG trains one task")
		case !r.MultiTask && e.InputRequirements.MultiTask:
			mul(0.5, "the DAG is multi-task but one task was asked for")
		}
		switch {
		case r.NeedsLLM && !e.InputRequirements.RequiresLLM:
			mul(0.3, "an LLM was asked for but the DAG uses none")
		case !r.NeedsLLM && e.InputRequirements.RequiresLLM:
			mul(0.6, "the DAG calls an LLM that was not asked for")
		}
		if r.Incremental {
			if strings.Contains(e.TaskType, "incremental") {
				mul(1.5, "incremental training")
			} else {
				mul(0.4, "incremental training wanted but the DAG retrains from scratch")
			}
		}
		if !hasLabels && !r.NeedsLLM && e.HasFeature("training") {
			mul(0.3, "the DAG trains a supervised model but the data has no labels")
		}
		if score > 1 {
			score = 1
		}
		rec := Recommendation{DagID: e.ID, Framework: e.Framework, Complexity: e.Complexity, Description: truncate(e.Description, 100),
			NodeCount: len(e.Nodes), Cost: e.Cost, WhenToUse: e.AgentContext.WhenToUse,
			Differentiators: slices.Clone(e.AgentContext.Differentiators), Features: slices.Clone(e.Features), DataSource: src}
		if len(terms) > 0 {
			rec.ExtraFeatures = e.extraFeatures(terms)
			m, why := e.needMatch(terms)
			rec.NeedMatch = round3(m)
			reasons = append(reasons, why...)
			f := 0.4 + 0.6*m
			score *= f
			if m < 1 {
				reasons = append(reasons, fmt.Sprintf("x%.2f: the DAG matches %.0f%% of the need", f, m*100))
			}
		}
		rec.Score = round3(score)
		if rec.Score <= MinRecommendScore {
			out.Excluded["score at or below 0.2"]++
			continue
		}
		if len(reasons) == 0 {
			reasons = append(reasons, "no preference given: every DAG fits; the smallest comes first")
		}
		rec.Reasons = reasons
		all = append(all, scored{rec, e, src == SourceCradle})
	}
	// Ties (same score and need match) go to the closer fit: fewer
	// features beyond the need, then data read directly rather than through
	// the data service, then the smaller DAG, then the id.
	fitOrder := func(a, b scored) (int, string) {
		switch {
		case len(a.rec.ExtraFeatures) != len(b.rec.ExtraFeatures):
			return cmpInt(len(a.rec.ExtraFeatures), len(b.rec.ExtraFeatures)), fmt.Sprintf("fewer features beyond the need (%d against %d)", len(a.rec.ExtraFeatures), len(b.rec.ExtraFeatures))
		case a.service != b.service:
			if a.service {
				return 1, ""
			}
			return -1, fmt.Sprintf("loads its data from %s directly, without the data service's specs", a.rec.DataSource)
		case a.rec.NodeCount != b.rec.NodeCount:
			return cmpInt(a.rec.NodeCount, b.rec.NodeCount), fmt.Sprintf("smaller (%d nodes against %d)", a.rec.NodeCount, b.rec.NodeCount)
		}
		return strings.Compare(a.rec.DagID, b.rec.DagID), ""
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i].rec, all[j].rec
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.NeedMatch != b.NeedMatch {
			return a.NeedMatch > b.NeedMatch
		}
		o, _ := fitOrder(all[i], all[j])
		return o < 0
	})
	out.TotalMatches = len(all)
	for i := 0; i < len(all) && i < max; i++ {
		rec := all[i].rec
		if i+1 < len(all) && all[i+1].rec.Score == rec.Score && all[i+1].rec.NeedMatch == rec.NeedMatch {
			if _, why := fitOrder(all[i], all[i+1]); why != "" {
				rec.Reasons = append(slices.Clone(rec.Reasons), fmt.Sprintf("ranked above %s at the same score: %s", all[i+1].rec.DagID, why))
			}
		}
		out.Recommendations = append(out.Recommendations, rec)
	}
	if ds == "" {
		service := 0
		for _, rec := range out.Recommendations {
			if rec.DataSource == SourceCradle {
				service++
			}
		}
		if service > 0 {
			out.Notes = append(out.Notes, fmt.Sprintf("where the data lives is not known: %d of these DAGs load through the managed data service (CradleDataLoading), whose loading steps need data-service request specs; "+
				"give data_source (s3, athena, redshift or cradle), or an s3:// URI in the need, to rank by it", service))
		}
	}
	if len(out.Excluded) == 0 {
		out.Excluded = nil
	}
	return out
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// sourceFit scores a DAG that loads from src for data that lives in ds:
// 1 when they agree (or ds is unknown), a penalty when the DAG can be
// adapted, 0 (excluded) for a DAG that loads through the managed data
// service when that was not asked for. why says which.
func sourceFit(ds, src string) (float64, string) {
	switch {
	case ds == "":
		return 1, ""
	case src == ds:
		return 1, "loads its data from " + ds
	case src == SourceCradle:
		return 0, "loads through the managed data service (CradleDataLoading), not asked for"
	case src == SourcePretrained:
		return 0.5, "loads no data (it starts from a pretrained model)"
	case ds == SourceS3 && src == SourceAthena:
		return 0.8, "loads through Athena, which queries tables over S3 data (the data needs an Athena table)"
	case ds == SourceS3 && src == SourceRedshift:
		return 0.8, "loads from Redshift, which can load S3 data (the data needs a Redshift table)"
	}
	return 0.6, fmt.Sprintf("loads from %s, not %s: swap its loading steps for %s", src, ds, loadingStepOf(ds))
}

// loadingStepOf is the loading step type that reads a source.
func loadingStepOf(src string) string {
	for t, s := range LoadingSteps {
		if s == src {
			return t
		}
	}
	return "a loading step for " + src
}

// s3URI matches the S3 URIs a need may carry.
var s3URI = lazyre.New(`(?i)\bs3a?://[^\s,;)]*`)

// sourceWords name a data source in a need.
var sourceWords = map[string]string{"s3": SourceS3, "athena": SourceAthena, "redshift": SourceRedshift, "cradle": SourceCradle}

// InferDataSource reads where the data lives from a free-text need: an
// s3:// URI means s3, and so does the word s3; athena, redshift and cradle
// name theirs. Several different sources, or none, infer nothing. It
// returns the need without its URIs, for NeedTerms.
func InferDataSource(need string) (source, rest string) {
	rest = need
	found := map[string]bool{}
	if s3URI().MatchString(need) {
		found[SourceS3] = true
		rest = s3URI().ReplaceAllString(need, " ")
	}
	for _, w := range splitWords(rest) {
		if src, ok := sourceWords[w]; ok {
			found[src] = true
		}
	}
	if len(found) != 1 {
		return "", rest
	}
	for src := range found {
		source = src
	}
	return source, rest
}

// extraFeatures are the entry's features none of the need terms asks for.
func (e *Entry) extraFeatures(terms []string) []string {
	var out []string
	for _, f := range e.Features {
		asked := false
		for _, t := range terms {
			if f == t || strings.Contains(f, stem(t)) {
				asked = true
				break
			}
		}
		if !asked {
			out = append(out, f)
		}
	}
	return out
}

// unmatched lists the requirements of r that no DAG of the framework
// (every DAG when fw is "") can serve.
func (c *Catalog) unmatched(r Request, fw, dataType, ds string, terms []string) []Unmatched {
	var out []Unmatched
	pool := c.entries
	which := "shared DAG"
	if fw != "" {
		pool = nil
		for _, e := range c.entries {
			if e.Framework == fw {
				pool = append(pool, e)
			}
		}
		which = fw + " DAG"
		if len(pool) == 0 {
			return []Unmatched{{Requirement: "framework " + fw, Reason: fmt.Sprintf("no shared DAG uses %s; the catalog's frameworks are %s", fw, strings.Join(Frameworks, ", "))}}
		}
	}
	none := func(has func(*Entry) bool) bool {
		for _, e := range pool {
			if has(e) {
				return false
			}
		}
		return true
	}
	others := func(has func(*Entry) bool) string {
		var ids []string
		for _, e := range c.entries {
			if has(e) && (fw == "" || e.Framework != fw) {
				ids = append(ids, e.ID)
			}
		}
		if len(ids) == 0 || fw == "" {
			return ""
		}
		return " (other frameworks' do: " + strings.Join(ids, ", ") + ")"
	}
	check := func(asked bool, req, what string, has func(*Entry) bool) {
		if asked && none(has) {
			out = append(out, Unmatched{Requirement: req, Reason: "no " + which + " " + what + others(has)})
		}
	}
	check(r.NeedsLLM, "needs_llm", "calls an LLM", func(e *Entry) bool { return e.InputRequirements.RequiresLLM })
	check(r.MultiTask, "multi_task", "trains several tasks in one model", func(e *Entry) bool { return e.InputRequirements.MultiTask })
	check(r.Incremental, "incremental", "trains incrementally", func(e *Entry) bool { return strings.Contains(e.TaskType, "incremental") })
	check(dataType == "text", "data_type text", "takes text input", func(e *Entry) bool { return e.InputRequirements.TextSupport })
	check(ds != "", "data_source "+ds, "loads its data from "+ds, func(e *Entry) bool { return e.InputRequirements.DataSource == ds })
	for _, t := range terms {
		check(true, fmt.Sprintf("need %q", t), "covers it", func(e *Entry) bool { return e.covers(t) > 0 })
	}
	return out
}

// needSynonyms map the words of a need to a canonical term.
var needSynonyms = map[string]string{
	"calibrate": "calibration", "calibrated": "calibration", "calibrating": "calibration", "calib": "calibration",
	"register": "registration", "registered": "registration", "registry": "registration", "registering": "registration", "mims": "registration",
	"eval": "evaluation", "evaluate": "evaluation", "evaluating": "evaluation", "evaluated": "evaluation", "validation": "evaluation", "assess": "evaluation",
	"package": "packaging", "packaged": "packaging", "bundle": "packaging",
	"tune": "tuning", "tuned": "tuning", "hpo": "tuning", "hyperparameter": "tuning", "hyperparameters": "tuning", "search": "tuning",
	"batch": "batch_inference", "transform": "batch_inference", "offline": "batch_inference", "scoring": "batch_inference", "score": "batch_inference",
	"impute": "imputation", "missing": "imputation", "nulls": "imputation",
	"risk": "risk_table_mapping", "categorical": "risk_table_mapping",
	"select": "feature_selection", "selection": "feature_selection",
	"sample": "stratified_sampling", "sampling": "stratified_sampling", "stratified": "stratified_sampling", "imbalanced": "stratified_sampling",
	"currency": "currency_conversion", "exchange": "currency_conversion",
	"percentile": "percentile_calibration", "percentiles": "percentile_calibration", "rank": "percentile_calibration",
	"wiki": "documentation", "docs": "documentation", "document": "documentation",
	"metric": "metrics", "plots": "metrics", "auc": "metrics",
	"payloads": "payload", "loadtest": "payload",
	"train": "training", "trained": "training", "fit": "training",
	"xgb": "xgboost", "lgbm": "lightgbm", "lgb": "lightgbm", "torch": "pytorch",
	"preprocess": "preprocessing", "preprocessed": "preprocessing", "clean": "preprocessing",
	"predict": "inference", "predictions": "inference",
	"load": "data_loading", "loading": "data_loading", "ingest": "data_loading",
	"endpoint": "model_creation", "deployable": "packaging",
	"gate": "quality_gate", "gated": "quality_gate", "gating": "quality_gate", "threshold": "quality_gate", "condition": "quality_gate",
	"conditional": "quality_gate", "approve": "quality_gate", "approval": "quality_gate",
}

var needStopwords = map[string]bool{"a": true, "an": true, "and": true, "the": true, "with": true, "for": true, "of": true, "to": true,
	"in": true, "on": true, "my": true, "i": true, "need": true, "want": true, "pipeline": true, "dag": true, "plus": true, "then": true,
	"that": true, "it": true, "is": true, "be": true, "using": true, "use": true, "data": true, "steps": true, "step": true, "also": true, "or": true,
	"from": true, "bucket": true, "lives": true, "stored": true, "our": true, "we": true, "are": true, "has": true, "have": true, "this": true, "its": true}

// NeedTerms splits a free-text need into canonical terms: words lowered,
// stop words and the names of data sources dropped (where the data lives
// is Request.DataSource, not something the pipeline does), synonyms mapped
// (calibrate -> calibration, hpo -> tuning), duplicates removed, in order.
func NeedTerms(need string) []string {
	var out []string
	for _, w := range splitWords(need) {
		if needStopwords[w] || sourceWords[w] != "" || len(w) < 2 {
			continue
		}
		if s, ok := needSynonyms[w]; ok {
			w = s
		}
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// stem is the part of a term matched inside names: "calibration" ->
// "calibrat", "registration" -> "registr"; a feature term matches the
// feature itself as well.
func stem(term string) string {
	if i := strings.IndexByte(term, '_'); i > 0 {
		term = term[:i]
	}
	for _, suf := range []string{"ation", "ing", "ion", "s"} {
		if len(term)-len(suf) >= 5 && strings.HasSuffix(term, suf) {
			return term[:len(term)-len(suf)]
		}
	}
	return term
}

// needIndex is the lower-cased text of an entry that needMatch searches.
// Entries are read-only once parsed, so Parse builds it once instead of
// every Recommend rebuilding it per entry.
type needIndex struct {
	types []string // step type of each node, lower-cased
	text  string   // title, description and advice, lower-cased
}

func newNeedIndex(e *Entry) needIndex {
	// a node matches by its step type: the job-type suffix of
	// XGBoostModelEval_calibration says which data split it reads, not
	// that it calibrates
	types := make([]string, len(e.Nodes))
	for i, n := range e.Nodes {
		t, _, _ := strings.Cut(n, "_")
		types[i] = strings.ToLower(t)
	}
	text := strings.ToLower(e.Title + " " + e.Description + " " + e.AgentContext.WhenToUse + " " + strings.Join(e.AgentContext.Differentiators, " "))
	return needIndex{types: types, text: text}
}

// needMatch scores how well the DAG matches the need terms (0..1) and says
// where each term matched: a feature, the framework or a node name counts
// fully, the title, description or advice half.
func (e *Entry) needMatch(terms []string) (float64, []string) {
	var total float64
	var reasons []string
	for _, t := range terms {
		where := e.termWhere(t)
		switch {
		case len(where) > 0:
			total++
			reasons = append(reasons, fmt.Sprintf("need %q: %s", t, strings.Join(where, "; ")))
		case strings.Contains(e.need.text, stem(t)):
			total += 0.5
			reasons = append(reasons, fmt.Sprintf("need %q: mentioned in the description only", t))
		default:
			reasons = append(reasons, fmt.Sprintf("need %q: not covered", t))
		}
	}
	return total / float64(len(terms)), reasons
}

// covers is how far the DAG covers one need term: 1 by a feature, the
// framework or a node, 0.5 by its texts only, else 0.
func (e *Entry) covers(t string) float64 {
	switch {
	case len(e.termWhere(t)) > 0:
		return 1
	case strings.Contains(e.need.text, stem(t)):
		return 0.5
	}
	return 0
}

// termWhere says where a need term matches the DAG's features, framework
// or nodes (empty: nowhere).
func (e *Entry) termWhere(t string) []string {
	lowerTypes := e.need.types
	st := stem(t)
	var where []string
	if e.HasFeature(t) {
		where = append(where, "feature "+t)
	} else {
		for _, f := range e.Features {
			if strings.Contains(f, st) {
				where = append(where, "feature "+f)
				break
			}
		}
	}
	if e.Framework == t {
		where = append(where, "framework "+t)
	}
	var nodes []string
	for i, n := range lowerTypes {
		if strings.Contains(n, st) {
			nodes = append(nodes, e.Nodes[i])
		}
	}
	if len(nodes) > 0 {
		where = append(where, "node "+strings.Join(nodes, ", "))
	}
	return where
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// complexityLevel orders complexities for partial credit (four levels; "advanced" has no DAG here but keeps the distances).
var complexityLevel = map[string]int{"simple": 0, "standard": 1, "advanced": 2, "comprehensive": 3}

// Match is one result of Score.
type Match struct {
	DagID     string  `json:"dag_id"`
	Score     float64 `json:"score"`
	Reasoning string  `json:"reasoning"`
}

// Query is what Score and AutoSelect rank DAGs for.
type Query struct {
	Framework  string
	Features   []string
	TaskType   string
	Complexity string
}

// Score ranks every DAG with the feature formula (see the
// package doc) and returns those above 0.2, best first, ties in id order.
func (c *Catalog) Score(q Query) []Match {
	fw := strings.ToLower(strings.TrimSpace(q.Framework))
	if fw == "any" {
		fw = ""
	}
	task := strings.ToLower(strings.TrimSpace(q.TaskType))
	cx := strings.ToLower(strings.TrimSpace(q.Complexity))
	var feats []string
	for _, f := range q.Features {
		if f = strings.ToLower(strings.TrimSpace(f)); f != "" && !slices.Contains(feats, f) {
			feats = append(feats, f)
		}
	}
	var out []Match
	for _, e := range c.entries {
		var s float64
		var why []string
		if len(feats) == 0 {
			s += 0.5
		} else {
			var hit []string
			for _, f := range feats {
				if e.HasFeature(f) {
					hit = append(hit, f)
				}
			}
			s += 0.5 * float64(len(hit)) / float64(len(feats))
			if len(hit) > 0 {
				why = append(why, "features "+strings.Join(hit, ", "))
			}
		}
		switch {
		case fw == "":
			s += 0.25
		case e.Framework == fw:
			s += 0.25
			why = append(why, "framework "+fw)
		case strings.Contains(e.ID, fw):
			s += 0.1
			why = append(why, "id mentions "+fw)
		}
		switch {
		case task == "":
			s += 0.15
		case strings.Contains(e.TaskType, task) || strings.Contains(task, e.TaskType):
			s += 0.15
			why = append(why, "task type "+e.TaskType)
		case strings.Contains(e.ID, task):
			s += 0.07
			why = append(why, "id mentions "+task)
		}
		if cx == "" {
			s += 0.1
		} else if want, ok := complexityLevel[cx]; ok {
			d := math.Abs(float64(want - complexityLevel[e.Complexity]))
			s += 0.1 * math.Max(0, 1-0.33*d)
			if d == 0 {
				why = append(why, "complexity "+cx)
			}
		}
		s = round3(s)
		if s > 0.2 {
			out = append(out, Match{DagID: e.ID, Score: s, Reasoning: strings.Join(why, "; ")})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}

// DefaultMinScore is AutoSelect's default threshold.
const DefaultMinScore = 0.6

// AutoSelect returns the best DAG of Score when its score reaches minScore,
// else ok=false.
func (c *Catalog) AutoSelect(q Query, minScore float64) (Match, bool) {
	ms := c.Score(q)
	if len(ms) == 0 || ms[0].Score < minScore {
		return Match{}, false
	}
	return ms[0], true
}
