package pipelines

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
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
	// Need is free text ("register only if the AUC is at least 0.8"),
	// read as concepts (ParseNeed).
	Need string
	// MaxResults bounds the recommendations (default 5).
	MaxResults int
	// DataSource is where the data lives: s3, athena, redshift or cradle;
	// "" infers it from the need (an s3:// URI, or the name of a source)
	// or leaves it unknown.
	DataSource string
	// Steps is the step catalog whose config fields name settings and whose
	// step types adaptations use; nil: catalog.Default().
	Steps *catalog.Catalog
}

// ServedConcept is a concept the top recommendation serves.
type ServedConcept struct {
	Concept
	// DagID is the DAG that serves it: the top recommendation.
	DagID string `json:"dag_id"`
	// How names the node and field that carry a setting.
	How string `json:"how,omitempty"`
}

// UnservedConcept is a concept the top recommendation does not serve:
// why, the nearest catalog DAG that does (none when no DAG does), and the
// exact change that would make the top recommendation fit.
type UnservedConcept struct {
	Concept
	Reason     string `json:"reason"`
	NearestDAG string `json:"nearest_dag,omitempty"`
	Change     string `json:"change"`
	// Applied: the change is made in Ranking.Adapted.
	Applied bool `json:"applied,omitempty"`
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
	// NeedMatch is the share of the need's concepts the DAG serves, 0..1.
	NeedMatch  float64 `json:"need_match,omitempty"`
	DataSource string  `json:"data_source"` // where the DAG loads its data from
	// Lacks are the need's concepts the DAG does not serve.
	Lacks []string `json:"lacks,omitempty"`
	// ExtraFeatures are the DAG's features the need did not ask for (with
	// a need): fewer is a closer fit.
	ExtraFeatures []string `json:"extra_features,omitempty"`
}

// Ranking is the result of Recommend.
type Ranking struct {
	// Served and Unserved say, per concept of the request, whether the top
	// recommendation serves it; each unserved one names the nearest DAG
	// that does and the change that would make the top one fit.
	Served   []ServedConcept   `json:"served"`
	Unserved []UnservedConcept `json:"unserved"`
	// Adapted is the top recommendation with the mechanical changes of
	// Unserved applied (nil when none applies).
	Adapted         *AdaptedDAG      `json:"adapted_dag,omitempty"`
	TotalMatches    int              `json:"total_matches"` // DAGs above the score floor
	Recommendations []Recommendation `json:"recommendations"`
	// Concepts is the request as read: every concept, from the need and
	// from the structured facts.
	Concepts []Concept `json:"concepts"`
	// NotNeeds are the words of the need that name no concept: not read as
	// needs (stop words and numbers left out).
	NotNeeds []string       `json:"not_needs,omitempty"`
	Excluded map[string]int `json:"excluded,omitempty"` // why DAGs were dropped: reason -> count
	// DataSource is where the data lives, as given or inferred from the
	// need (DataSourceFrom: "argument" or "need"); "" when unknown.
	DataSource     string `json:"data_source,omitempty"`
	DataSourceFrom string `json:"data_source_from,omitempty"`
	// Framework is the framework filter, as given or read from the need
	// (FrameworkFrom: "argument" or "need").
	Framework     string `json:"framework,omitempty"`
	FrameworkFrom string `json:"framework_from,omitempty"`
	// Notes are advice about the request itself (a fact that would change
	// the ranking if given).
	Notes []string `json:"notes,omitempty"`
}

// multiTaskFrameworks are the framework names of multi-task training
// (cursus's LightGBMMT, XgboostMt): the framework they train with and the
// multi-task capability.
var multiTaskFrameworks = map[string]string{"lightgbmmt": "lightgbm", "xgboostmt": "xgboost", "xgboost_mt": "xgboost", "lightgbm_mt": "lightgbm"}

// MinRecommendScore is the floor of Recommend.
const MinRecommendScore = 0.2

// coverageKinds are the concept kinds a DAG's need match counts; the
// framework and the data source act through the filter and sourceFit.
// So do the capabilities the request's facts weigh (an LLM, multi-task,
// incremental training, text data).
var coverageKinds = map[string]bool{ConceptFeature: true, ConceptCapability: true, ConceptExclusion: true, ConceptSetting: true, ConceptStep: true}

// weighedCapabilities act through the multipliers of Recommend, not the
// need match.
var weighedCapabilities = map[string]bool{CapLLM: true, CapMultiTask: true, CapIncremental: true, CapText: true}

// Recommend ranks the DAGs for an agent's request (structured facts and a
// free-text need read as concepts) and says per concept whether the top
// DAG serves it. See the package doc.
func (c *Catalog) Recommend(r Request) *Ranking {
	max := r.MaxResults
	if max <= 0 {
		max = 5
	}
	steps := r.Steps
	if steps == nil {
		steps, _ = catalog.Default()
	}
	w := newWiring(steps)
	hasLabels := r.HasLabels == nil || *r.HasLabels
	gpu := r.GPUAvailable == nil || *r.GPUAvailable
	out := &Ranking{Recommendations: []Recommendation{}, Served: []ServedConcept{}, Unserved: []UnservedConcept{}, Excluded: map[string]int{}}

	concepts, notNeeds := c.ParseNeed(r.Need, steps)
	out.NotNeeds = notNeeds
	if unlabelled().MatchString(normalizeNeed(r.Need)) {
		hasLabels = false
	}
	// the structured facts are concepts too
	fw := strings.ToLower(strings.TrimSpace(r.Framework))
	if fw == "any" {
		fw = ""
	}
	var extra []Concept
	mtFramework := false
	if base, ok := multiTaskFrameworks[fw]; ok {
		// lightgbmmt is LightGBM trained on several tasks: the multi-task
		// DAGs' framework is lightgbm, and their multi-task training a capability
		extra = append(extra, Concept{ID: CapMultiTask, Kind: ConceptCapability, Phrase: "framework " + fw})
		fw, mtFramework = base, true
	}
	if fw != "" {
		out.Framework, out.FrameworkFrom = fw, "argument"
		extra = append(extra, Concept{ID: fw, Kind: ConceptFramework, Phrase: "framework " + strings.ToLower(strings.TrimSpace(r.Framework))})
	} else {
		var named []Concept
		for _, k := range concepts {
			if k.Kind == ConceptFramework && slices.Contains(Frameworks, k.ID) {
				named = append(named, k)
			}
		}
		if len(named) == 1 {
			fw = named[0].ID
			out.Framework, out.FrameworkFrom = fw, "need"
		}
	}
	ds, from := strings.ToLower(strings.TrimSpace(r.DataSource)), "argument"
	if ds != "" {
		extra = append(extra, Concept{ID: ds, Kind: ConceptSource, Phrase: "data_source " + ds})
	} else {
		var named []string
		for _, k := range concepts {
			if k.Kind == ConceptSource && !slices.Contains(named, k.ID) {
				named = append(named, k.ID)
			}
		}
		if len(named) == 1 && slices.Contains(DataSources, named[0]) {
			ds, from = named[0], "need"
		}
	}
	if ds != "" {
		out.DataSource, out.DataSourceFrom = ds, from
	}
	dataType := strings.ToLower(strings.TrimSpace(r.DataType))
	needsLLM, multiTask, incremental := r.NeedsLLM, r.MultiTask || mtFramework, r.Incremental
	for _, k := range concepts {
		switch {
		case k.Kind != ConceptCapability:
		case k.ID == CapLLM:
			needsLLM = true
		case k.ID == CapMultiTask:
			multiTask = true
		case k.ID == CapIncremental:
			incremental = true
		case k.ID == CapText && dataType == "":
			dataType = "text"
		}
	}
	for _, f := range []struct {
		on   bool
		id   string
		kind string
		arg  string
	}{{r.NeedsLLM, CapLLM, ConceptCapability, "needs_llm"}, {r.MultiTask, CapMultiTask, ConceptCapability, "multi_task"},
		{r.Incremental, CapIncremental, ConceptCapability, "incremental"}, {strings.EqualFold(r.DataType, "text"), CapText, ConceptCapability, "data_type text"}} {
		if f.on {
			extra = append(extra, Concept{ID: f.id, Kind: f.kind, Phrase: f.arg})
		}
	}
	for _, k := range extra {
		if !slices.ContainsFunc(concepts, func(x Concept) bool { return x.Kind == k.Kind && x.ID == k.ID }) {
			concepts = append(concepts, k)
		}
	}
	out.Concepts = concepts
	var cover []Concept
	for _, k := range concepts {
		if coverageKinds[k.Kind] && !(k.Kind == ConceptCapability && weighedCapabilities[k.ID]) {
			cover = append(cover, k)
		}
	}

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
			reasons = append(reasons, "framework "+fw+" ("+map[string]string{"argument": "required", "need": "named in the need"}[out.FrameworkFrom]+")")
		}
		if fit == 1 && ds != "" {
			reasons = append(reasons, why)
		}
		if dataType != "" && (slices.Contains(e.InputRequirements.DataTypes, dataType) || dataType == "mixed") {
			reasons = append(reasons, dataType+" data fits")
		}
		mul := func(f float64, why string) {
			score *= f
			reasons = append(reasons, fmt.Sprintf("x%g: %s", f, why))
		}
		if fit < 1 {
			mul(fit, why)
		}
		if dataType == "tabular" && e.Framework == "pytorch" && !needsLLM {
			mul(0.5, "tabular data without an LLM suits tree models better than PyTorch")
		}
		switch {
		case multiTask && !e.InputRequirements.MultiTask:
			mul(0.3, "multi-task wanted but the DAG trains one task")
		case !multiTask && e.InputRequirements.MultiTask:
			mul(0.5, "the DAG is multi-task but one task was asked for")
		}
		switch {
		case needsLLM && !e.InputRequirements.RequiresLLM:
			mul(0.3, "an LLM was asked for but the DAG uses none")
		case !needsLLM && e.InputRequirements.RequiresLLM:
			mul(0.6, "the DAG calls an LLM that was not asked for")
		}
		if incremental {
			if strings.Contains(e.TaskType, "incremental") {
				mul(1.5, "incremental training")
			} else {
				mul(0.4, "incremental training wanted but the DAG retrains from scratch")
			}
		}
		switch {
		case hasLabels || needsLLM:
		case e.HasFeature("training"):
			mul(0.3, "the DAG trains a supervised model but the data has no labels")
		case e.HasFeature("evaluation") || e.HasFeature("metrics") || e.HasFeature("calibration"):
			mul(0.3, "the DAG measures or calibrates a model against labels but the data has none")
		}
		if score > 1 {
			score = 1
		}
		rec := Recommendation{DagID: e.ID, Framework: e.Framework, Complexity: e.Complexity, Description: truncate(e.Description, 100),
			NodeCount: len(e.Nodes), Cost: e.Cost, WhenToUse: e.AgentContext.WhenToUse,
			Differentiators: slices.Clone(e.AgentContext.Differentiators), Features: slices.Clone(e.Features), DataSource: src}
		if len(cover) > 0 {
			var served, adaptable, lacks []string
			credit := 0.0
			for _, k := range cover {
				switch ok, _ := e.servesConcept(k, steps); {
				case ok:
					served = append(served, k.ID)
					credit++
				case c.adaptable(e, k, concepts, fw, steps, w):
					adaptable = append(adaptable, k.ID)
					lacks = append(lacks, k.ID)
					credit += adaptCredit
				default:
					lacks = append(lacks, k.ID)
				}
			}
			m := credit / float64(len(cover))
			if len(adaptable) > 0 {
				reasons = append(reasons, "a named change adds "+strings.Join(adaptable, ", "))
			}
			rec.NeedMatch, rec.Lacks = round3(m), lacks
			rec.ExtraFeatures = e.extraFeatures(concepts)
			if len(served) > 0 {
				reasons = append(reasons, "serves "+strings.Join(served, ", "))
			}
			f := 0.4 + 0.6*m
			score *= f
			if m < 1 {
				reasons = append(reasons, fmt.Sprintf("x%.2f: lacks %s", f, strings.Join(lacks, ", ")))
			}
			if extra := unasked(e, concepts); len(extra) > 0 {
				mul(round3(math.Pow(0.95, float64(len(extra)))), "has "+strings.Join(extra, ", ")+", not asked for")
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
	var top *Entry
	if len(all) > 0 {
		top = all[0].entry
	}
	c.judge(out, top, concepts, fw, steps, w)
	if ds == "" && top != nil {
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

// unlabelled finds data without labels in a need.
var unlabelled = lazyre.New(`\b(no|without|lacks?|missing) (\w+ )?labels?\b|\bunlabell?ed\b`)

// judge fills the ranking's Served, Unserved and Adapted: each concept
// against the top DAG (nil when nothing ranked), the nearest DAG serving
// an unserved one and the change that would make the top DAG fit, applied
// to a copy of it where the change is mechanical.
func (c *Catalog) judge(out *Ranking, top *Entry, concepts []Concept, fw string, steps *catalog.Catalog, w *wiring) {
	var g *graph
	if top != nil {
		g = entryGraph(top)
	}
	var applied []string
	for _, k := range concepts {
		if top != nil {
			if ok, how := top.servesConcept(k, steps); ok {
				out.Served = append(out.Served, ServedConcept{Concept: k, DagID: top.ID, How: how})
				continue
			}
		}
		u := UnservedConcept{Concept: k}
		near := c.nearest(k, top, concepts, fw, steps)
		switch {
		case near == nil:
			u.Reason = "no catalog DAG " + whatNoneDoes(k)
		case top == nil:
			u.Reason = near.ID + " does, but no DAG fits the rest of the request"
			u.NearestDAG = near.ID
		default:
			u.Reason = top.ID + " does not; " + near.ID + " does"
			if lacks := lacking(near, top, k, concepts, steps); len(lacks) > 0 {
				// the nearest serves k but not what top serves: no DAG serves both
				u.Reason += " but lacks " + strings.Join(lacks, ", ") + ", so no catalog DAG serves both"
			}
			u.NearestDAG = near.ID
		}
		if top != nil {
			u.Change, u.Applied = change(g, top, near, k, steps, w)
			if u.Applied {
				applied = append(applied, u.Change)
			}
		} else if near != nil {
			u.Change = "relax the other requirements, or start from " + near.ID
		} else {
			u.Change = noneChange(k)
		}
		out.Unserved = append(out.Unserved, u)
	}
	if len(applied) > 0 {
		out.Adapted = &AdaptedDAG{From: top.ID, Changes: applied, Nodes: g.nodes, Edges: g.edges}
	}
}

// lacking names the concepts of the request other than k that top serves
// and near does not.
func lacking(near, top *Entry, k Concept, concepts []Concept, steps *catalog.Catalog) []string {
	var out []string
	for _, x := range concepts {
		if x == k {
			continue
		}
		if ok, _ := top.servesConcept(x, steps); !ok {
			continue
		}
		if ok, _ := near.servesConcept(x, steps); !ok {
			out = append(out, conceptLabel(x))
		}
	}
	return out
}

// nearest is the catalog DAG that serves k and is closest to the rest of
// the request: the top DAG's framework (the filter's, when there is one)
// first, then the most concepts served, then the fewest step types
// different from top's, then the id. nil when no DAG serves k.
func (c *Catalog) nearest(k Concept, top *Entry, concepts []Concept, fw string, steps *catalog.Catalog) *Entry {
	var best *Entry
	bestKey := []int{}
	for _, e := range c.entries {
		if ok, _ := e.servesConcept(k, steps); !ok {
			continue
		}
		sameFW := 0
		if (fw != "" && e.Framework == fw) || (fw == "" && top != nil && e.Framework == top.Framework) {
			sameFW = 1
		}
		served := 0
		for _, x := range concepts {
			if ok, _ := e.servesConcept(x, steps); ok {
				served++
			}
		}
		diff := 0
		if top != nil {
			diff = typeDistance(top, e)
		}
		key := []int{sameFW, served, -diff}
		if best == nil || slices.Compare(key, bestKey) > 0 {
			best, bestKey = e, key
		}
	}
	return best
}

// adaptCredit is what a concept a DAG lacks counts towards its need
// match when a mechanical change (a splice, a stand-in model) gives it.
const adaptCredit = 0.6

// adaptable reports whether a mechanical change makes e serve k (see
// change), tried on a copy of e.
func (c *Catalog) adaptable(e *Entry, k Concept, concepts []Concept, fw string, steps *catalog.Catalog, w *wiring) bool {
	switch k.Kind {
	case ConceptExclusion, ConceptFeature, ConceptStep:
	default:
		return false
	}
	near := c.nearest(k, e, concepts, fw, steps)
	_, ok := change(entryGraph(e), e, near, k, steps, w)
	return ok
}

// typeDistance counts the step types one DAG has and the other lacks.
func typeDistance(a, b *Entry) int {
	ta, tb := a.stepTypes(), b.stepTypes()
	d := 0
	for t := range ta {
		if !tb[t] {
			d++
		}
	}
	for t := range tb {
		if !ta[t] {
			d++
		}
	}
	return d
}

// change is the change that makes top serve k, made on g when it is
// mechanical (applied), else said in words; near is the nearest DAG that
// serves k (nil: none).
func change(g *graph, top, near *Entry, k Concept, steps *catalog.Catalog, w *wiring) (string, bool) {
	text, ok := mechanical(g.clone(), top, near, k, steps)
	if ok {
		// made on a copy; kept only when every step still wires
		try := g.clone()
		text, _ = mechanical(try, top, near, k, steps)
		if wiresAsBefore(g, try, w) {
			*g = *try
			return text, true
		}
		text = ""
	}
	if text != "" {
		return text, false
	}
	switch k.Kind {
	case ConceptExclusion:
		if nodes := featureNodes(top, strings.TrimPrefix(k.ID, "no_"), steps); len(nodes) > 0 {
			return fmt.Sprintf("remove %s from %s and check the rest still wires (validate.deps_resolve)", strings.Join(nodes, ", "), top.ID), false
		}
	case ConceptSetting:
		if near != nil {
			_, how := near.servesConcept(k, steps)
			return fmt.Sprintf("start from %s and set %s", near.ID, how), false
		}
	}
	if near != nil {
		return "start from " + near.ID + ", which has it", false
	}
	return noneChange(k), false
}

// mechanical makes on g the change that makes top serve k when one can be
// made by rule (swap the loading steps, stand in an existing model, splice
// the steps of the nearest DAG), else says why not in text (ok false,
// text "" when there is nothing particular to say).
func mechanical(g *graph, top, near *Entry, k Concept, steps *catalog.Catalog) (string, bool) {
	switch k.Kind {
	case ConceptSource:
		if loaderOf(k.ID) == "" {
			return fmt.Sprintf("no step type loads from %s: copy the data to S3 (or an Athena or Redshift table) and keep %s's loading steps, or write a loading step of your own (author.scaffold_step)", k.ID, top.ID), false
		}
		if text, ok := swapSource(g, k.ID); ok {
			return text, true
		}
	case ConceptExclusion:
		if k.ID == "no_training" {
			if text, ok := standInModel(g, steps); ok {
				return text, true
			}
		}
	case ConceptFeature:
		if near != nil {
			if text, ok := spliceFeature(g, near, k.ID, steps); ok {
				return text, true
			}
		}
	case ConceptStep:
		if near != nil {
			if text, ok := spliceStep(g, near, k.ID); ok {
				return text, true
			}
		}
	}
	return "", false
}

// noneChange says what to do about a concept no catalog DAG serves.
func noneChange(k Concept) string {
	switch k.Kind {
	case ConceptFramework:
		return fmt.Sprintf("no step type trains with %s (the catalog's frameworks are %s): bring your own training step (author.scaffold_step), or use one of them", k.ID, strings.Join(Frameworks, ", "))
	case ConceptSource:
		return fmt.Sprintf("no step type loads from %s: copy the data to S3 and load it with DummyDataLoading, or write a loading step of your own (author.scaffold_step)", k.ID)
	}
	return "no step type of the catalog does it: write one of your own (author.scaffold_step) and add it to the DAG, or do it outside the pipeline"
}

// substantial are the features that add jobs a need must ask for (or
// imply): a DAG with them unasked does more than was wanted.
var substantial = []string{"batch_inference", "tuning", "calibration", "percentile_calibration", "packaging", "payload", "registration",
	"quality_gate", "metrics", "documentation", "risk_table_mapping", "imputation", "feature_selection", "stratified_sampling", "currency_conversion"}

// implied are the features another one needs: registration registers a
// packaged model with payload samples; a gate and a calibration read the
// evaluation.
var implied = map[string][]string{"registration": {"packaging", "payload"}, "quality_gate": {"evaluation"}, "calibration": {"evaluation"},
	"batch_inference": {"model_creation"}, "percentile_calibration": {"evaluation"}}

// unasked are e's substantial features the need's concepts neither ask
// for nor imply (none when the need asks for no feature).
func unasked(e *Entry, concepts []Concept) []string {
	asked := map[string]bool{}
	for _, k := range concepts {
		if k.Kind == ConceptFeature {
			asked[k.ID] = true
			for _, f := range implied[k.ID] {
				asked[f] = true
			}
		}
	}
	if len(asked) == 0 {
		return nil
	}
	var out []string
	for _, f := range e.Features {
		if !asked[f] && slices.Contains(substantial, f) {
			out = append(out, f)
		}
	}
	return out
}

// extraFeatures are the entry's features no concept of the need asks for.
func (e *Entry) extraFeatures(concepts []Concept) []string {
	var out []string
	for _, f := range e.Features {
		if !slices.ContainsFunc(concepts, func(k Concept) bool { return k.Kind == ConceptFeature && k.ID == f }) {
			out = append(out, f)
		}
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
// 1 when they agree (or ds is unknown), a penalty when the DAG's loading
// steps must be swapped (the change is named). why says which.
func sourceFit(ds, src string) (float64, string) {
	switch {
	case ds == "":
		return 1, ""
	case src == ds:
		return 1, "loads its data from " + ds
	case src == SourcePretrained:
		return 0.5, "loads no data (it starts from a pretrained model)"
	case ds == SourceS3 && src == SourceAthena:
		return 0.8, "loads through Athena, which queries tables over S3 data (the data needs an Athena table)"
	case ds == SourceS3 && src == SourceRedshift:
		return 0.8, "loads from Redshift, which can load S3 data (the data needs a Redshift table)"
	case loaderOf(ds) == "":
		return 0.6, fmt.Sprintf("loads from %s; no step type loads from %s", src, ds)
	case src == SourceCradle:
		return 0.9, fmt.Sprintf("loads through the managed data service (CradleDataLoading), not %s: swap its loading steps for %s", ds, loaderOf(ds))
	}
	return 0.9, fmt.Sprintf("loads from %s, not %s: swap its loading steps for %s", src, ds, loaderOf(ds))
}

// loadingStepOf is the loading step type that reads a source.
func loadingStepOf(src string) string {
	if t := loaderOf(src); t != "" {
		return t
	}
	return "a loading step for " + src
}

// s3URI matches the S3 URIs a need may carry.
var s3URI = lazyre.New(`(?i)\bs3a?://[^\s,;)]*[^\s,;).]`)

// InferDataSource reads where the data lives from a free-text need: an
// s3:// URI means s3, and so does the word s3; athena, redshift and cradle
// name theirs. Several different sources, or none, infer nothing. It
// returns the need without its URIs.
func InferDataSource(need string) (source, rest string) {
	rest = need
	found := map[string]bool{}
	if s3URI().MatchString(need) {
		found[SourceS3] = true
		rest = s3URI().ReplaceAllString(need, " ")
	}
	for _, w := range needWord().FindAllString(normalizeNeed(rest), -1) {
		if src, ok := sourcePhrases[w]; ok && slices.Contains(DataSources, src) {
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
