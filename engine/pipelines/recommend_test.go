package pipelines

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/deps"
)

// TestRecommendS3DataPrefersDirectLoading: for data in S3 the recommender
// ranks a DAG that loads from S3 first, whether the source is given or
// read from an s3:// URI in the need; a DAG that loads through the managed
// data service is not hidden but scored below, naming the swap of its
// loading steps that makes it fit.
func TestRecommendS3DataPrefersDirectLoading(t *testing.T) {
	c := mustDefault(t)
	for name, req := range map[string]Request{
		"argument":  {Framework: "xgboost", DataSource: "s3", Need: "calibration and registration"},
		"need URI":  {Framework: "xgboost", Need: "train on s3://my-bucket/train/ with calibration and registration"},
		"need word": {Framework: "xgboost", Need: "our data is in S3; calibration and registration"},
	} {
		t.Run(name, func(t *testing.T) {
			r := c.Recommend(req)
			if len(r.Recommendations) == 0 || r.Recommendations[0].DagID != "xgboost_complete_e2e_dummy" || r.Recommendations[0].Score != 1 {
				t.Fatalf("top: %+v", r.Recommendations)
			}
			for _, rec := range r.Recommendations {
				if rec.DataSource == SourceCradle && (rec.Score >= 1 || !strings.Contains(strings.Join(rec.Reasons, " "), "swap its loading steps for DummyDataLoading")) {
					t.Errorf("%s loads through the data service: score %v, reasons %v", rec.DagID, rec.Score, rec.Reasons)
				}
			}
			if r.DataSource != SourceS3 || len(r.Unserved) != 0 {
				t.Errorf("source %q unserved %v", r.DataSource, r.Unserved)
			}
			if want := map[string]string{"argument": "argument", "need URI": "need", "need word": "need"}[name]; r.DataSourceFrom != want {
				t.Errorf("data_source_from %q", r.DataSourceFrom)
			}
			if r.Recommendations[0].NeedMatch != 1 || slices.Contains(r.NotNeeds, "bucket") {
				t.Errorf("need match %v, not needs %v", r.Recommendations[0].NeedMatch, r.NotNeeds)
			}
		})
	}
	// S3 data also fits a DAG that reads it through Athena, below one that loads S3 directly
	r := c.Recommend(Request{Framework: "lightgbm", DataSource: "s3", MaxResults: 50})
	var athena *Recommendation
	for i, rec := range r.Recommendations {
		if rec.DataSource == SourceAthena {
			athena = &r.Recommendations[i]
		}
	}
	if athena == nil || athena.Score != 0.8 || r.Recommendations[0].DataSource != SourceS3 || r.Recommendations[0].Score != 1 {
		t.Errorf("lightgbm for S3 data: %+v", r.Recommendations)
	}
	// asked for, the data service's DAGs come first and the others are adapted
	r = c.Recommend(Request{Framework: "xgboost", DataSource: "cradle", Need: "calibration and registration"})
	if top := r.Recommendations[0]; top.DataSource != SourceCradle || top.Score != 1 {
		t.Errorf("cradle: top %+v", top)
	}
	for _, rec := range r.Recommendations {
		if rec.DataSource == SourceS3 && rec.Score >= 1 {
			t.Errorf("cradle: %s loads from S3 yet scores %v", rec.DagID, rec.Score)
		}
	}
}

// TestRecommendTiesGoToTheCloserFit: with where the data lives unknown,
// several DAGs score 1.0 for XGBoost calibration and registration; the one
// that reads its data directly wins and says why, and a note asks for the
// data source.
func TestRecommendTiesGoToTheCloserFit(t *testing.T) {
	c := mustDefault(t)
	r := c.Recommend(Request{Framework: "xgboost", Need: "calibration and registration"})
	var tied []string
	for _, rec := range r.Recommendations {
		if rec.Score == 1 && rec.NeedMatch == 1 {
			tied = append(tied, rec.DagID)
		}
	}
	if len(tied) < 2 || tied[0] != "xgboost_complete_e2e_dummy" {
		t.Fatalf("tied %v", tied)
	}
	top := r.Recommendations[0]
	if last := top.Reasons[len(top.Reasons)-1]; !strings.Contains(last, "ranked above "+tied[1]+" at the same score: loads its data from s3 directly") {
		t.Errorf("tie reason %q", last)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "give data_source") || r.DataSource != "" {
		t.Errorf("notes %v source %q", r.Notes, r.DataSource)
	}
	// fewer features beyond the need wins a tie before the size
	r = c.Recommend(Request{Framework: "xgboost", DataSource: "s3", Need: "training"})
	for i := 1; i < len(r.Recommendations); i++ {
		a, b := r.Recommendations[i-1], r.Recommendations[i]
		if a.Score == b.Score && a.NeedMatch == b.NeedMatch && len(a.ExtraFeatures) > len(b.ExtraFeatures) {
			t.Errorf("%s (%d extra features) ranked above %s (%d)", a.DagID, len(a.ExtraFeatures), b.DagID, len(b.ExtraFeatures))
		}
	}
}

func unservedIDs(r *Ranking) []string {
	var out []string
	for _, u := range r.Unserved {
		out = append(out, u.ID)
	}
	return out
}

// TestRecommendReportsUnserved: what the top DAG cannot serve is listed by
// concept, with the nearest DAG that can and the change, never scored away
// in silence; a request the catalog serves in full lists nothing.
func TestRecommendReportsUnserved(t *testing.T) {
	c := mustDefault(t)
	for _, tc := range []struct {
		req  Request
		want []string
	}{
		{Request{Framework: "xgboost", NeedsLLM: true}, []string{"llm"}},
		{Request{MultiTask: true}, nil},
		{Request{Framework: "pytorch", MultiTask: true}, []string{"multi_task"}},
		{Request{Framework: "lightgbmmt"}, nil}, // LightGBM trained on several tasks: the lightgbmmt_* DAGs
		{Request{Framework: "xgboost", DataSource: "athena"}, []string{"athena"}},
		{Request{Framework: "xgboost", Need: "calibration on BigQuery data"}, []string{"bigquery"}},
		{Request{Need: "train a TensorFlow model"}, []string{"tensorflow"}},
		{Request{Framework: "xgboost", DataSource: "s3", Need: "calibration and registration"}, nil},
		{Request{Framework: "lightgbm", DataSource: "athena"}, nil},
	} {
		r := c.Recommend(tc.req)
		if got := unservedIDs(r); !slices.Equal(got, tc.want) {
			t.Errorf("%+v: unserved %+v, want %v", tc.req, r.Unserved, tc.want)
		}
	}
	r := c.Recommend(Request{Framework: "lightgbmmt"})
	if len(r.Recommendations) == 0 || !strings.HasPrefix(r.Recommendations[0].DagID, "lightgbmmt_") || r.Framework != "lightgbm" {
		t.Errorf("lightgbmmt: %+v", r)
	}
	r = c.Recommend(Request{Framework: "catboost"})
	if len(r.Recommendations) != 0 || !strings.Contains(r.Unserved[0].Change, "generic, lightgbm, pytorch, xgboost") {
		t.Errorf("catboost: %+v", r)
	}
	// xgboost DAGs can read Athena once their loading steps are swapped: the
	// nearest Athena DAG is named and the swap is made in the adapted DAG
	r = c.Recommend(Request{Framework: "xgboost", DataSource: "athena"})
	u := r.Unserved[0]
	if u.NearestDAG != "lightgbm_athena_currency_metrics" || !u.Applied || !strings.Contains(u.Change, "AthenaDataLoading_training") ||
		r.Adapted == nil || !slices.Contains(r.Adapted.Nodes, "AthenaDataLoading_training") {
		t.Errorf("athena for xgboost: %+v adapted %+v", u, r.Adapted)
	}
}

// TestRecommendServesWhatTheCatalogHas: the needs the catalog's Bedrock,
// multi-task and batch DAGs serve are reported served, each with the DAG
// that serves it; what none serves together with the rest of the request
// is unserved, naming what the nearest DAG lacks.
func TestRecommendServesWhatTheCatalogHas(t *testing.T) {
	c := mustDefault(t)
	for _, tc := range []struct {
		req    Request
		served map[string]string // concept -> prefix of the serving DAG
	}{
		{Request{Need: "one multi-task LightGBM model for three fraud labels"}, map[string]string{"multi_task": "lightgbmmt_", "lightgbm": "lightgbmmt_"}},
		{Request{Need: "one multi-task LightGBM model for chargeback, account takeover and promo abuse labels"}, map[string]string{"multi_task": "lightgbmmt_"}},
		{Request{Need: "label our data with an LLM on Amazon Bedrock, then train a PyTorch model"}, map[string]string{"llm": "bedrock_", "pytorch": "bedrock_", "training": "bedrock_"}},
		{Request{Need: "label support tickets with an LLM on Bedrock, then train a text classifier"}, map[string]string{"llm": "bedrock_", "text_data": "bedrock_"}},
		{Request{Need: "multi-task model", Framework: "xgboost"}, map[string]string{"multi_task": "xgboost_mt_"}},
		{Request{Need: "binary classification of customer churn on CSV data in s3://acme/churn/ with 40 features; register only if AUC >= 0.80"},
			map[string]string{"s3": "", "quality_gate": "", "registration": ""}},
		{Request{Need: "out-of-time validation: split by date, train XGBoost"}, map[string]string{"TemporalSplitPreprocessing": "xgboost_temporal"}},
	} {
		r := c.Recommend(tc.req)
		if len(r.Unserved) != 0 || len(r.Recommendations) == 0 {
			t.Errorf("%+v: unserved %+v", tc.req, r.Unserved)
			continue
		}
		got := map[string]string{}
		for _, s := range r.Served {
			if s.DagID != r.Recommendations[0].DagID {
				t.Errorf("%q: %s served by %q, the top is %s", tc.req.Need, s.ID, s.DagID, r.Recommendations[0].DagID)
			}
			got[s.ID] = s.DagID
		}
		for id, prefix := range tc.served {
			if d, ok := got[id]; !ok || !strings.HasPrefix(d, prefix) {
				t.Errorf("%q: %s served by %q, want %s*", tc.req.Need, id, d, prefix)
			}
		}
	}
	// No catalog DAG scores an existing model without training: the top
	// batch DAG lacks it, the adapted DAG stands the model in, and the
	// nearest DAG without training is named with what it lacks.
	r := c.Recommend(Request{Need: "batch inference with an existing model, no training"})
	if len(r.Unserved) != 1 || r.Unserved[0].ID != "no_training" || !r.Unserved[0].Applied ||
		!strings.Contains(r.Unserved[0].Reason, "lacks batch inference, so no catalog DAG serves both") {
		t.Errorf("unserved %+v", r.Unserved)
	}
	if len(r.Served) != 1 || r.Served[0].ID != "batch_inference" || !strings.HasSuffix(r.Served[0].DagID, "_batch_inference") {
		t.Errorf("served %+v", r.Served)
	}
}

// TestParseNeedReadsNeedsNotWords: ordinary words, numbers and comparison
// words are not needs; phrases and known concepts are (frameworks, data
// sources, stages, features, multi-word needs such as multi-task), and a
// negated feature is an exclusion.
func TestParseNeedReadsNeedsNotWords(t *testing.T) {
	c := mustDefault(t)
	steps, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	ids := func(ks []Concept) []string {
		var out []string
		for _, k := range ks {
			out = append(out, k.Kind+":"+k.ID)
		}
		return out
	}
	for _, tc := range []struct {
		need string
		want []string
	}{
		{"binary classification of customer churn on CSV data in s3://acme/churn/ with 40 features; register only if AUC >= 0.80",
			[]string{"data_source:s3", "feature:quality_gate", "feature:registration"}},
		{"credit risk scoring model", []string{"feature:batch_inference"}},
		{"one multi-task LightGBM model for three fraud labels", []string{"capability:multi_task", "framework:lightgbm"}},
		{"batch inference with an existing model, no training", []string{"exclusion:no_training", "feature:batch_inference"}},
		{"label tickets with an LLM on Amazon Bedrock, then train a text classifier",
			[]string{"capability:llm", "feature:training", "capability:text_data"}},
		{"map the categoricals with a risk table, calibrate, no registration",
			[]string{"feature:risk_table_mapping", "feature:calibration", "exclusion:no_registration"}},
		{"three classes with class weights and early stopping",
			[]string{"setting:multiclass", "setting:class_weights", "setting:early_stopping_rounds"}},
		{"if it is no good, stop", nil},
	} {
		got, ignored := c.ParseNeed(tc.need, steps)
		if g := ids(got); !slices.Equal(g, tc.want) {
			t.Errorf("ParseNeed(%q) = %v, want %v", tc.need, g, tc.want)
		}
		for _, w := range ignored {
			if isNumber(w) || needStopwords[w] {
				t.Errorf("ParseNeed(%q) lists %q as not a need", tc.need, w)
			}
		}
	}
	_, ignored := c.ParseNeed("binary classification of customer churn with 40 features", steps)
	if !slices.Equal(ignored, []string{"binary", "classification", "customer", "churn", "features"}) {
		t.Errorf("not needs %v", ignored)
	}
}

// TestRecommendNoTraining: "no training" is not a need for training: the
// top DAG scores batches, its training is reported unserved, and the
// adapted DAG takes the existing model instead and still wires.
func TestRecommendNoTraining(t *testing.T) {
	c := mustDefault(t)
	r := c.Recommend(Request{Need: "We already have a trained XGBoost model at s3://shop-ml/models/ctr/model.tar.gz; batch predictions every day. No training."})
	if len(r.Recommendations) == 0 || r.Recommendations[0].DagID != "xgboost_batch_inference" || r.Framework != "xgboost" || r.FrameworkFrom != "need" {
		t.Fatalf("top %+v framework %q", r.Recommendations, r.Framework)
	}
	if got := unservedIDs(r); !slices.Equal(got, []string{"no_training"}) || !r.Unserved[0].Applied {
		t.Fatalf("unserved %+v", r.Unserved)
	}
	a := r.Adapted
	if a == nil || slices.ContainsFunc(a.Nodes, func(n string) bool { return strings.HasSuffix(stepTypeOf(n), "Training") && n != "DummyTraining" }) ||
		!slices.Contains(a.Nodes, "DummyTraining") || slices.Contains(a.Nodes, "DummyDataLoading_training") {
		t.Fatalf("adapted %+v", a)
	}
	steps, _ := catalog.Default()
	if bad := (&graph{nodes: a.Nodes, edges: a.Edges}).unwired(steps, deps.NewResolver()); len(bad) > 0 {
		t.Errorf("the adapted DAG does not wire: %v", bad)
	}
}

// TestRecommendAdaptsTheNearestFit: the gated XGBoost DAG serves a credit
// need but for its risk tables; the nearest DAG that has them is named and
// its steps are inserted where it has them, and the result wires.
func TestRecommendAdaptsTheNearestFit(t *testing.T) {
	c := mustDefault(t)
	steps, _ := catalog.Default()
	r := c.Recommend(Request{Need: "CSV in s3://bank-ml/loans/: preprocess, map the categoricals with a risk table, train XGBoost, calibrate, and register the model only if AUC is at least 0.75"})
	if r.Recommendations[0].DagID != "xgboost_complete_e2e_dummy_gated" {
		t.Fatalf("top %+v", r.Recommendations[0])
	}
	if got := unservedIDs(r); !slices.Equal(got, []string{"risk_table_mapping"}) {
		t.Fatalf("unserved %+v", r.Unserved)
	}
	u := r.Unserved[0]
	if u.NearestDAG != "xgboost_training_with_preprocessing" || !u.Applied || !strings.Contains(u.Change, "RiskTableMapping_training after TabularPreprocessing_training, before XGBoostTraining") {
		t.Errorf("unserved %+v", u)
	}
	g := &graph{nodes: r.Adapted.Nodes, edges: r.Adapted.Edges}
	if bad := g.unwired(steps, deps.NewResolver()); len(bad) > 0 || g.hasEdge("TabularPreprocessing_training", "XGBoostTraining") ||
		!g.hasEdge("RiskTableMapping_training", "XGBoostTraining") || !g.hasEdge("RiskTableMapping_calibration", "XGBoostModelEval_calibration") {
		t.Errorf("adapted %+v unwired %v", r.Adapted, bad)
	}
	// a splice that would leave a step unwired is not made: LightGBM with
	// evaluation from S3 starts from a DAG that has the evaluation, its
	// loading steps swapped
	r = c.Recommend(Request{Need: "three classes from tabular data in s3://crm-ml/segments/. Train LightGBM with class weights, evaluate, and register it."})
	if r.Recommendations[0].DagID != "lightgbm_complete_e2e" || !slices.Equal(unservedIDs(r), []string{"s3"}) || r.Adapted == nil {
		t.Fatalf("lightgbm: top %s unserved %+v", r.Recommendations[0].DagID, r.Unserved)
	}
	var hows []string
	for _, s := range r.Served {
		hows = append(hows, s.How)
	}
	if !slices.Contains(hows, "LightGBMTraining.class_weights") || !slices.Contains(hows, "LightGBMTraining.objective = multiclass, num_class") {
		t.Errorf("settings: %v", hows)
	}
}

// TestRecommendReadsCatalogMetadata: what serves a concept is read from
// the DAGs' metadata, so a DAG that declares an LLM or multi-task training
// is served as soon as it is in the catalog.
func TestRecommendReadsCatalogMetadata(t *testing.T) {
	good, err := embedded.ReadFile("dags/pytorch_simple.yaml")
	if err != nil {
		t.Fatal(err)
	}
	llm := strings.Replace(strings.Replace(string(good), "requires_llm: false", "requires_llm: true", 1), "id: pytorch_simple", "id: pytorch_llm", 1)
	c, err := Load(fstest.MapFS{
		"dags/pytorch_simple.yaml": {Data: good},
		"dags/pytorch_llm.yaml":    {Data: []byte(llm)},
	}, "dags")
	if err != nil {
		t.Fatal(err)
	}
	r := c.Recommend(Request{Need: "label our data with an LLM on Amazon Bedrock, then train a PyTorch model"})
	if len(r.Unserved) != 0 || r.Recommendations[0].DagID != "pytorch_llm" {
		t.Fatalf("with an LLM DAG: unserved %+v top %+v", r.Unserved, r.Recommendations)
	}
	only, err := Load(fstest.MapFS{"dags/pytorch_simple.yaml": {Data: good}}, "dags")
	if err != nil {
		t.Fatal(err)
	}
	r = only.Recommend(Request{Need: "label our data with an LLM on Amazon Bedrock, then train a PyTorch model"})
	if !slices.Contains(unservedIDs(r), "llm") || r.Unserved[0].Reason != "no catalog DAG calls an LLM" {
		t.Fatalf("without one: %+v", r.Unserved)
	}
	// the shipped catalog's Bedrock DAGs serve it
	r = mustDefault(t).Recommend(Request{Need: "label our data with an LLM on Amazon Bedrock, then train a PyTorch model"})
	if slices.Contains(unservedIDs(r), "llm") || !strings.HasPrefix(r.Recommendations[0].DagID, "bedrock_") {
		t.Fatalf("the shipped catalog: unserved %+v top %s", r.Unserved, r.Recommendations[0].DagID)
	}
	b, _ := json.Marshal(r)
	if !strings.HasPrefix(string(b), `{"served":`) {
		t.Errorf("served and unserved do not lead the answer: %.80s", b)
	}
}

func TestInferDataSource(t *testing.T) {
	for need, want := range map[string]string{
		"train on s3://b/k/ daily":          "s3",
		"S3A://bucket/prefix calibration":   "s3",
		"the table is in Athena":            "athena",
		"load from redshift":                "redshift",
		"cradle requests":                   "cradle",
		"calibration and registration":      "",
		"s3://b/x then athena for the rest": "", // two sources: nothing inferred
	} {
		got, rest := InferDataSource(need)
		if got != want {
			t.Errorf("InferDataSource(%q) = %q, want %q", need, got, want)
		}
		if strings.Contains(strings.ToLower(rest), "://") {
			t.Errorf("InferDataSource(%q) left a URI: %q", need, rest)
		}
	}
}

// TestDataSourceIsChecked: a DAG's data_source is a closed value and must
// be what its loading steps read.
func TestDataSourceIsChecked(t *testing.T) {
	good, err := embedded.ReadFile("dags/xgboost_simple.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, errs := Parse("xgboost_simple.yaml", good); len(errs) != 0 {
		t.Fatal(errs)
	}
	for src, want := range map[string]string{
		"cradle":           "but the loading nodes read [s3]",
		"pretrained_model": "but the loading nodes read [s3]",
		"ftp":              "must be one of",
	} {
		bad := strings.Replace(string(good), "data_source: s3", "data_source: "+src, 1)
		_, errs := Parse("xgboost_simple.yaml", []byte(bad))
		if len(errs) != 1 || errs[0].Field != "input_requirements.data_source" || !strings.Contains(errs[0].Message, want) {
			t.Errorf("data_source %s: %v", src, errs)
		}
	}
}

// TestRecommendGated: a need for a quality gate ("register only when the
// AUC passes a threshold") finds the gated variants first, in the data
// source asked for; without it the ungated DAG stays on top.
func TestRecommendGated(t *testing.T) {
	c := mustDefault(t)
	for _, tc := range []struct{ framework, source, need, want string }{
		{"xgboost", "s3", "calibration, registration and a quality gate on the AUC threshold", "xgboost_complete_e2e_dummy_gated"},
		{"xgboost", "cradle", "gate the registration on the evaluation", "xgboost_complete_e2e_gated"},
		{"lightgbm", "cradle", "registered only when gated by a threshold", "lightgbm_complete_e2e_gated"},
		{"xgboost", "s3", "calibration and registration", "xgboost_complete_e2e_dummy"},
		// the best gated LightGBM DAG is not hidden for its loader: it fits once its loading steps are swapped
		{"lightgbm", "s3", "calibration and registration, gated on the AUC", "lightgbm_complete_e2e_gated"},
	} {
		r := c.Recommend(Request{Framework: tc.framework, DataSource: tc.source, Need: tc.need})
		if len(r.Recommendations) == 0 || r.Recommendations[0].DagID != tc.want {
			var got []string
			for _, rec := range r.Recommendations {
				got = append(got, rec.DagID)
			}
			t.Errorf("%s %q: %v, want %s first", tc.framework, tc.need, got, tc.want)
		}
	}
	e, err := c.Get("xgboost_complete_e2e_gated")
	if err != nil || !e.HasFeature("quality_gate") || !slices.Contains(e.Nodes, "ModelQualityGate") {
		t.Fatalf("xgboost_complete_e2e_gated: %+v", e)
	}
}

// TestRecommendNoLabelsScoresDownWhatNeedsThem: a DAG that trains nothing
// but measures or calibrates a model against labels (dummy_inference_with_wiki)
// is no fit for unlabelled data either, while one that only registers a
// model (dummy_e2e_basic) is.
func TestRecommendNoLabelsScoresDownWhatNeedsThem(t *testing.T) {
	c := mustDefault(t)
	f := false
	r := c.Recommend(Request{HasLabels: &f, MaxResults: 100})
	scores := map[string]Recommendation{}
	for _, rec := range r.Recommendations {
		scores[rec.DagID] = rec
	}
	if rec, ok := scores["dummy_inference_with_wiki"]; ok && rec.Score >= 1 {
		t.Errorf("dummy_inference_with_wiki fits unlabelled data: %v %v", rec.Score, rec.Reasons)
	}
	if rec, ok := scores["dummy_e2e_basic"]; !ok || rec.Score != 1 {
		t.Errorf("dummy_e2e_basic: %+v", rec)
	}
	withLabels := c.Recommend(Request{Framework: "xgboost", Need: "metrics and a model wiki for an existing model", MaxResults: 100})
	found := false
	for _, rec := range withLabels.Recommendations {
		found = found || rec.DagID == "dummy_inference_with_wiki"
	}
	if !found {
		t.Errorf("with labels, dummy_inference_with_wiki is not recommended: %+v", withLabels.Recommendations)
	}
}
