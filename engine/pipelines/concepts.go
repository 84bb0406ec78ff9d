package pipelines

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/internal/lazyre"
)

// Concept kinds: what a need asks of a pipeline.
const (
	// ConceptFramework is a training framework (xgboost, lightgbm, ...).
	ConceptFramework = "framework"
	// ConceptSource is where the data lives (s3, athena, ...).
	ConceptSource = "data_source"
	// ConceptFeature is a stage or feature of the pipeline (Entry.Features).
	ConceptFeature = "feature"
	// ConceptCapability is something the DAG's input requirements say it
	// can do: calling an LLM, multi-task training, text input, incremental
	// training.
	ConceptCapability = "capability"
	// ConceptExclusion is a feature the pipeline must not have ("no
	// training": an existing model is used).
	ConceptExclusion = "exclusion"
	// ConceptSetting is a config setting of a step type of the DAG (class
	// weights, several classes): served when one of its steps has the field.
	ConceptSetting = "setting"
	// ConceptStep is a step type a need names by one of its keywords of two
	// or more words ("target encoding", "gradient boosting"): served when
	// the DAG has a node of that type.
	ConceptStep = "step"
)

// Capability concepts.
const (
	CapLLM         = "llm"
	CapMultiTask   = "multi_task"
	CapText        = "text_data"
	CapIncremental = "incremental"
	CapTabular     = "tabular_data"
)

// Concept is one need read from a request: a framework, a data source, a
// stage or feature, a capability, a feature the pipeline must not have, or
// a step's config setting.
type Concept struct {
	// ID names the concept: a framework, a data source, a feature of
	// Features, a capability (llm, multi_task, text_data, incremental,
	// tabular_data), no_<feature> for an exclusion, or the config field of
	// a setting (class_weights, multiclass).
	ID string `json:"concept"`
	// Kind is one of the Concept* kinds.
	Kind string `json:"kind"`
	// Phrase is the words of the need that named it, or the argument that
	// asked for it.
	Phrase string `json:"phrase"`
}

// conceptPhrases map phrases of a need (lower-case words, hyphens and
// underscores read as spaces, a final plural s optional) to features.
// Single words that usually mean something else in a request ("risk",
// "score", "select", "missing", "percentile") are deliberately absent:
// only the phrase names the feature.
var conceptPhrases = map[string]string{
	"calibrate": "calibration", "calibrated": "calibration", "calibrating": "calibration", "calibration": "calibration",
	"probability calibration": "calibration", "isotonic": "calibration", "platt": "calibration",
	"register": "registration", "registered": "registration", "registering": "registration", "registration": "registration",
	"model registry": "registration", "model package": "registration", "mims": "registration",
	"evaluate": "evaluation", "evaluated": "evaluation", "evaluating": "evaluation", "evaluation": "evaluation", "eval": "evaluation",
	"assess": "evaluation", "held out": "evaluation", "holdout": "evaluation",
	"package": "packaging", "packaged": "packaging", "packaging": "packaging",
	"tune": "tuning", "tuned": "tuning", "tuning": "tuning", "hpo": "tuning", "hyperparameter tuning": "tuning",
	"hyperparameter search": "tuning", "hyperparameter optimization": "tuning", "hyperparameter optimisation": "tuning",
	"batch": "batch_inference", "batch inference": "batch_inference", "batch prediction": "batch_inference",
	"batch scoring": "batch_inference", "batch transform": "batch_inference", "offline inference": "batch_inference",
	"offline scoring": "batch_inference", "scoring": "batch_inference", "bulk prediction": "batch_inference",
	"impute": "imputation", "imputation": "imputation", "missing value": "imputation", "missing values": "imputation",
	"risk table": "risk_table_mapping", "risk tables": "risk_table_mapping", "risk table mapping": "risk_table_mapping",
	"target encoding":   "risk_table_mapping",
	"feature selection": "feature_selection", "select feature": "feature_selection", "select the feature": "feature_selection",
	"stratified": "stratified_sampling", "stratified sampling": "stratified_sampling", "downsample": "stratified_sampling",
	"class imbalance": "stratified_sampling",
	"currency":        "currency_conversion", "currency conversion": "currency_conversion", "exchange rate": "currency_conversion",
	"percentile calibration": "percentile_calibration", "percentile mapping": "percentile_calibration", "score percentile": "percentile_calibration",
	"wiki": "documentation", "documentation": "documentation", "model card": "documentation", "document the model": "documentation",
	"metrics report": "metrics", "metric report": "metrics", "plots": "metrics", "metrics computation": "metrics", "roc curve": "metrics",
	"payload": "payload", "load test": "payload",
	"train": "training", "trains": "training", "trained": "training", "training": "training", "retrain": "training", "fit": "training",
	"preprocess": "preprocessing", "preprocessed": "preprocessing", "preprocessing": "preprocessing", "clean": "preprocessing",
	"train test split": "preprocessing",
	"quality gate":     "quality_gate", "gate": "quality_gate", "gated": "quality_gate", "gating": "quality_gate", "threshold": "quality_gate",
	"only if": "quality_gate", "only when": "quality_gate", "approval": "quality_gate", "approve": "quality_gate",
	"create model": "model_creation", "model creation": "model_creation",
}

// capabilityPhrases map phrases to capabilities.
var capabilityPhrases = map[string]string{
	"llm": CapLLM, "large language model": CapLLM, "bedrock": CapLLM, "claude": CapLLM, "gpt": CapLLM, "openai": CapLLM,
	"anthropic": CapLLM, "genai": CapLLM, "gen ai": CapLLM, "generative ai": CapLLM, "prompt": CapLLM, "language model": CapLLM,
	"multi task": CapMultiTask, "multitask": CapMultiTask, "multi label": CapMultiTask, "multilabel": CapMultiTask,
	"multi target": CapMultiTask, "multiple label": CapMultiTask, "multiple target": CapMultiTask, "multiple task": CapMultiTask,
	"several label": CapMultiTask, "several task": CapMultiTask, "several target": CapMultiTask, "lightgbmmt": CapMultiTask,
	"text": CapText, "texts": CapText, "nlp": CapText, "natural language": CapText, "free text": CapText,
	"incremental": CapIncremental, "incrementally": CapIncremental, "warm start": CapIncremental, "continual": CapIncremental,
	"tabular": CapTabular,
}

// settingPhrases name config settings no field name spells out: the
// setting's id and how a step's fields serve it (see servesSetting).
var settingPhrases = map[string]string{
	"multiclass": "multiclass", "multi class": "multiclass", "multinomial": "multiclass",
}

// frameworkWords name frameworks: the catalog's and others it has no DAG for.
var frameworkWords = map[string]string{
	"xgboost": "xgboost", "xgb": "xgboost", "lightgbm": "lightgbm", "lgbm": "lightgbm", "lgb": "lightgbm",
	"pytorch": "pytorch", "torch": "pytorch",
	"tensorflow": "tensorflow", "keras": "tensorflow", "sklearn": "scikit-learn", "scikit learn": "scikit-learn",
	"catboost": "catboost", "spark": "spark", "huggingface": "huggingface", "hugging face": "huggingface", "transformers": "huggingface",
}

// sourcePhrases name where data lives: the catalog's sources and others no
// loading step reads.
var sourcePhrases = map[string]string{
	"s3": SourceS3, "athena": SourceAthena, "redshift": SourceRedshift, "cradle": SourceCradle,
	"bigquery": "bigquery", "snowflake": "snowflake", "postgres": "postgresql", "postgresql": "postgresql", "mysql": "mysql",
	"dynamodb": "dynamodb", "kafka": "kafka", "kinesis": "kinesis", "gcs": "gcs", "hdfs": "hdfs", "databricks": "databricks",
}

// negations before a phrase turn a feature into an exclusion ("no
// training", "without calibration") and drop other concepts.
var negations = map[string]bool{"no": true, "without": true, "not": true, "never": true, "skip": true, "dont": true, "nor": true, "avoid": true}

// existingModel finds a need for an existing model instead of training one.
var existingModel = lazyre.New(`\b(already (have |has )?(a |an |our )?(trained|fitted|built)|existing (\w+ )?model|pre ?trained|previously trained|bring (your|our) own model|trained (\w+ )?model (at|in|from)|model tar gz)\b`)

// gateComparison finds a threshold on a metric ("AUC >= 0.8", "accuracy of
// at least 0.9").
var gateComparison = lazyre.New(`\b(auc|roc|accuracy|f1|precision|recall|rmse|mae|gini|ks|logloss|metric|metrics)\b.{0,30}(>=|=>|>|at least|above|greater than|exceeds?|or higher|or better|over)|(>=|=>|at least|above)\s*\d`)

// countedTargets finds several labels, tasks or targets ("three fraud labels").
var countedTargets = lazyre.New(`\b(two|three|four|five|six|several|multiple|many|\d+) (\w+ )?(labels|tasks|targets)\b`)

// countedClasses finds several classes ("three classes", "3 classes").
var countedClasses = lazyre.New(`\b(three|four|five|six|seven|eight|nine|ten|several|multiple|many|[3-9]|\d\d+) (\w+ )?classes\b`)

// needWord splits a need into words.
var needWord = lazyre.New(`[a-z0-9]+`)

// tarball is an S3 URI of a model archive.
var tarball = lazyre.New(`(?i)\bs3a?://\S*\.tar\.gz\b`)

// phraseTable is every phrase the parser knows, longest first, with what
// it names.
type phraseDef struct {
	words []string
	kind  string
	id    string
}

// phraseTables holds the phrase table of each (pipeline catalog, step
// catalog) pair: both are read-only once loaded.
var (
	phraseTablesMu sync.Mutex
	phraseTables   = map[[2]any][]phraseDef{}
)

func (c *Catalog) phraseTable(steps *catalog.Catalog) []phraseDef {
	key := [2]any{c, steps}
	phraseTablesMu.Lock()
	defer phraseTablesMu.Unlock()
	if t, ok := phraseTables[key]; ok {
		return t
	}
	t := c.buildPhraseTable(steps)
	if len(phraseTables) < 16 {
		phraseTables[key] = t
	}
	return t
}

func (c *Catalog) buildPhraseTable(steps *catalog.Catalog) []phraseDef {
	var out []phraseDef
	add := func(phrase, kind, id string) {
		out = append(out, phraseDef{words: strings.Fields(phrase), kind: kind, id: id})
	}
	for p, f := range conceptPhrases {
		add(p, ConceptFeature, f)
	}
	for _, f := range Features {
		add(strings.ReplaceAll(f, "_", " "), ConceptFeature, f)
	}
	for p, id := range capabilityPhrases {
		add(p, ConceptCapability, id)
	}
	for p, id := range settingPhrases {
		add(p, ConceptSetting, id)
	}
	for p, id := range frameworkWords {
		add(p, ConceptFramework, id)
	}
	for _, e := range c.entries {
		add(e.Framework, ConceptFramework, e.Framework)
	}
	for p, id := range sourcePhrases {
		add(p, ConceptSource, id)
	}
	// a config field of two or more words is a setting when the need
	// spells it out ("class weights" -> class_weights)
	if steps != nil {
		seen := map[string]bool{}
		for _, st := range steps.Steps() {
			for _, f := range st.Fields {
				// a training job's hyperparameters are what a need names
				// (class weights, early stopping); other fields say where
				// and how a step runs
				if !f.Hyperparameter || seen[f.Name] || strings.Count(f.Name, "_") == 0 {
					continue
				}
				seen[f.Name] = true
				words := strings.Split(f.Name, "_")
				add(strings.Join(words, " "), ConceptSetting, f.Name)
				if len(words) >= 3 {
					// early_stopping_rounds: "early stopping"
					add(strings.Join(words[:len(words)-1], " "), ConceptSetting, f.Name)
				}
			}
		}
	}
	// a step type's keywords of two or more words name it
	if steps != nil {
		for _, st := range steps.Steps() {
			for _, kw := range st.Keywords {
				w := strings.Fields(strings.ToLower(strings.NewReplacer("-", " ", "_", " ").Replace(kw)))
				if len(w) < 2 || slices.ContainsFunc(w, func(x string) bool { return genericKeywordWords[x] }) {
					continue
				}
				add(strings.Join(w, " "), ConceptStep, string(st.Type))
			}
		}
	}
	slices.SortStableFunc(out, func(a, b phraseDef) int { return len(b.words) - len(a.words) })
	return out
}

// genericKeywordWords make a step keyword too generic to name the step in
// a need ("test data", "input data", "create model").
var genericKeywordWords = map[string]bool{"data": true, "test": true, "input": true, "output": true, "code": true, "sample": true,
	"source": true, "file": true, "files": true, "model": true, "split": true}

// normalizeNeed lowers a need and reads hyphens, underscores, slashes and
// apostrophes as word breaks (multi-task, risk_table, don't -> dont).
func normalizeNeed(s string) string {
	s = strings.ToLower(s)
	s = strings.NewReplacer("≥", " >= ", "'", "", "’", "").Replace(s)
	return s
}

// ParseNeed reads a free-text need as concepts: frameworks, where the data
// lives (an s3:// URI or a named source), stages and features, capabilities
// (an LLM, multi-task, text data), features the pipeline must not have
// ("no training", an existing model) and config settings of the catalog's
// step types (class weights). Words that name none of these are not needs:
// they are returned as ignored (numbers and stop words left out), never
// reported as unmet. steps may be nil (no settings are read then).
func (c *Catalog) ParseNeed(need string, steps *catalog.Catalog) (concepts []Concept, ignored []string) {
	seen := map[string]bool{}
	addConcept := func(kind, id, phrase string) {
		key := kind + "\x00" + id
		if seen[key] {
			return
		}
		seen[key] = true
		concepts = append(concepts, Concept{ID: id, Kind: kind, Phrase: strings.TrimSpace(phrase)})
	}
	text := need
	if m := tarball().FindString(text); m != "" {
		addConcept(ConceptExclusion, "no_training", m)
		text = tarball().ReplaceAllString(text, " ")
	}
	if m := s3URI().FindString(text); m != "" {
		addConcept(ConceptSource, SourceS3, m)
		text = s3URI().ReplaceAllString(text, " ")
	}
	norm := normalizeNeed(text)
	if m := existingModel().FindString(norm); m != "" {
		addConcept(ConceptExclusion, "no_training", m)
	}
	if m := gateComparison().FindString(norm); m != "" {
		addConcept(ConceptFeature, "quality_gate", m)
	}
	if m := countedTargets().FindString(norm); m != "" {
		addConcept(ConceptCapability, CapMultiTask, m)
	}
	if m := countedClasses().FindString(norm); m != "" {
		addConcept(ConceptSetting, "multiclass", m)
	}
	words := needWord().FindAllString(norm, -1)
	table := c.phraseTable(steps)
	used := make([]bool, len(words))
	for i := 0; i < len(words); i++ {
		var match *phraseDef
		n := 0
		for k := range table {
			p := &table[k]
			if i+len(p.words) > len(words) {
				continue
			}
			ok := true
			for j, w := range p.words {
				got := words[i+j]
				if got != w && !(j == len(p.words)-1 && got == w+"s") {
					ok = false
					break
				}
			}
			if ok {
				match, n = p, len(p.words)
				break
			}
		}
		if match == nil {
			continue
		}
		phrase := strings.Join(words[i:i+n], " ")
		negated := false
		for back := 1; back <= 3 && i-back >= 0; back++ {
			w := words[i-back]
			if negations[w] {
				negated = true
				break
			}
			if w != "a" && w != "an" && w != "the" && w != "any" && w != "do" && w != "model" {
				break
			}
		}
		for j := i; j < i+n; j++ {
			used[j] = true
		}
		switch {
		case negated && match.kind == ConceptFeature:
			addConcept(ConceptExclusion, "no_"+match.id, words[i-1]+" "+phrase)
		case negated:
			// "no GPU", "without an LLM": not asked for
		case match.kind == ConceptFeature && match.id == "training" && seen[ConceptExclusion+"\x00no_training"]:
			// "a trained model at ...": the model exists, nothing is trained
		default:
			addConcept(match.kind, match.id, phrase)
		}
		i += n - 1
	}
	if seen[ConceptExclusion+"\x00no_training"] {
		// an exclusion wins over the feature a later phrase named
		concepts = slices.DeleteFunc(concepts, func(k Concept) bool { return k.Kind == ConceptFeature && k.ID == "training" })
	}
	inPhrase := map[string]bool{}
	for _, k := range concepts {
		for _, w := range needWord().FindAllString(normalizeNeed(k.Phrase), -1) {
			inPhrase[w] = true
		}
	}
	for i, w := range words {
		if used[i] || inPhrase[w] || needStopwords[w] || negations[w] || len(w) < 3 || isNumber(w) || slices.Contains(ignored, w) {
			continue
		}
		ignored = append(ignored, w)
	}
	return concepts, ignored
}

func isNumber(w string) bool {
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

var needStopwords = map[string]bool{"and": true, "the": true, "with": true, "for": true, "need": true, "want": true, "pipeline": true,
	"dag": true, "plus": true, "then": true, "that": true, "using": true, "use": true, "data": true, "steps": true, "step": true,
	"also": true, "from": true, "bucket": true, "lives": true, "stored": true, "our": true, "are": true, "has": true, "have": true,
	"this": true, "its": true, "into": true, "onto": true, "model": true, "models": true, "sagemaker": true, "build": true,
	"make": true, "run": true, "runs": true, "them": true, "they": true, "their": true, "which": true, "what": true, "where": true,
	"when": true, "each": true, "every": true, "all": true, "some": true, "like": true, "please": true, "show": true, "can": true,
	"should": true, "must": true, "would": true, "will": true, "amazon": true, "aws": true, "only": true, "one": true, "two": true,
	"there": true, "here": true, "but": true, "not": true, "any": true, "via": true, "per": true, "who": true,
}

// servesConcept reports whether a DAG serves one concept, and for a
// setting which node and field carry it ("" otherwise).
func (e *Entry) servesConcept(k Concept, steps *catalog.Catalog) (bool, string) {
	switch k.Kind {
	case ConceptFramework:
		return e.Framework == k.ID, ""
	case ConceptSource:
		return e.InputRequirements.DataSource == k.ID, ""
	case ConceptFeature:
		return e.HasFeature(k.ID), ""
	case ConceptExclusion:
		return !e.HasFeature(strings.TrimPrefix(k.ID, "no_")), ""
	case ConceptCapability:
		ir := e.InputRequirements
		switch k.ID {
		case CapLLM:
			return ir.RequiresLLM, ""
		case CapMultiTask:
			return ir.MultiTask, ""
		case CapText:
			return ir.TextSupport || slices.Contains(ir.DataTypes, "text"), ""
		case CapTabular:
			return slices.Contains(ir.DataTypes, "tabular"), ""
		case CapIncremental:
			return strings.Contains(e.TaskType, "incremental"), ""
		}
	case ConceptStep:
		return slices.ContainsFunc(e.Nodes, func(n string) bool { return stepTypeOf(n) == k.ID }), ""
	case ConceptSetting:
		if steps == nil {
			return false, ""
		}
		for _, n := range e.Nodes {
			st, _, err := steps.Lookup(n)
			if err != nil {
				continue
			}
			if how := servesSetting(st, k.ID); how != "" {
				return true, n + "." + how
			}
		}
	}
	return false, ""
}

// servesSetting says how a step type carries a setting: the field to set
// ("" when it does not). multiclass is an objective field allowing a
// multi-class value, or a num_class field.
func servesSetting(st *catalog.Step, id string) string {
	if id != "multiclass" {
		if _, ok := st.Field(id); ok {
			return id
		}
		return ""
	}
	if f, ok := st.Field("objective"); ok {
		for _, v := range f.Allowed {
			if s, ok := v.(string); ok && strings.HasPrefix(s, "multi") {
				if _, nc := st.Field("num_class"); nc {
					return fmt.Sprintf("objective = %s, num_class", s)
				}
				return "objective = " + s
			}
		}
	}
	if _, ok := st.Field("num_class"); ok {
		return "num_class"
	}
	return ""
}

// conceptLabel names a concept in a sentence.
func conceptLabel(k Concept) string {
	switch k.Kind {
	case ConceptExclusion:
		return "no " + strings.ReplaceAll(strings.TrimPrefix(k.ID, "no_"), "_", " ")
	case ConceptSource:
		return "data in " + k.ID
	case ConceptFramework:
		return "framework " + k.ID
	}
	switch k.ID {
	case CapLLM:
		return "an LLM step (labelling or generation, e.g. on Bedrock)"
	case CapMultiTask:
		return "multi-task training (one model, several labels)"
	case CapText:
		return "text input"
	case CapTabular:
		return "tabular input"
	}
	return strings.ReplaceAll(k.ID, "_", " ")
}

// whatNoneDoes says what no catalog DAG does, for a concept none serves.
func whatNoneDoes(k Concept) string {
	switch k.Kind {
	case ConceptFramework:
		return "trains with " + k.ID
	case ConceptSource:
		return "loads its data from " + k.ID
	case ConceptExclusion:
		return "has " + conceptLabel(k)
	case ConceptSetting:
		return "has a step with the setting " + k.ID
	case ConceptStep:
		return "has a " + k.ID + " step"
	}
	switch k.ID {
	case CapLLM:
		return "calls an LLM"
	case CapMultiTask:
		return "trains several tasks in one model"
	case CapText:
		return "takes text input"
	case CapIncremental:
		return "trains incrementally"
	}
	return "has " + conceptLabel(k)
}

// stepWords lists the lower-case words that tie a step type to a feature:
// its keywords and its name.
func featureNodes(e *Entry, feature string, steps *catalog.Catalog) []string {
	words := strings.Split(feature, "_")
	want := strings.Join(words, " ")
	var out []string
	for _, n := range e.Nodes {
		t, _, _ := strings.Cut(n, "_")
		hit := strings.Contains(strings.ToLower(t), stem(feature))
		if steps != nil && !hit {
			if st, _, err := steps.Lookup(n); err == nil {
				for _, kw := range st.Keywords {
					if kw == want || kw == words[0] && len(words) > 1 && words[0] != "model" || conceptPhrases[kw] == feature {
						hit = true
						break
					}
				}
			}
		}
		if hit {
			out = append(out, n)
		}
	}
	return out
}

// stem is the part of a feature name matched inside step type names:
// "calibration" -> "calibrat", "registration" -> "registr".
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
