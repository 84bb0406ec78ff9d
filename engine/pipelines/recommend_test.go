package pipelines

import (
	"slices"
	"strings"
	"testing"
)

// TestRecommendS3DataNeverDataService: for data in S3 the recommender
// picks a DAG that loads from S3 and never one that loads through the
// managed data service, whether the source is given or read from an
// s3:// URI in the need; the hints then name that DAG.
func TestRecommendS3DataNeverDataService(t *testing.T) {
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
				if rec.DataSource == SourceCradle {
					t.Errorf("%s loads through the data service", rec.DagID)
				}
			}
			if r.DataSource != SourceS3 || r.Excluded["loads through the managed data service (CradleDataLoading), not asked for"] == 0 {
				t.Errorf("source %q excluded %v", r.DataSource, r.Excluded)
			}
			if want := map[string]string{"argument": "argument", "need URI": "need", "need word": "need"}[name]; r.DataSourceFrom != want {
				t.Errorf("data_source_from %q", r.DataSourceFrom)
			}
			if slices.Contains(r.NeedTerms, "s3") || slices.Contains(r.NeedTerms, "bucket") || r.Recommendations[0].NeedMatch != 1 {
				t.Errorf("where the data lives counted as a need: %v (match %v)", r.NeedTerms, r.Recommendations[0].NeedMatch)
			}
		})
	}
	// S3 data also fits a DAG that reads it through Athena, below one that loads S3 directly
	r := c.Recommend(Request{Framework: "lightgbm", DataSource: "s3"})
	var athena *Recommendation
	for i, rec := range r.Recommendations {
		if rec.DataSource == SourceAthena {
			athena = &r.Recommendations[i]
		}
		if rec.DataSource == SourceCradle {
			t.Errorf("lightgbm: %s loads through the data service", rec.DagID)
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
		if rec.DataSource == SourceS3 && rec.Score > 0.6 {
			t.Errorf("cradle: %s loads from S3 yet scores %v", rec.DagID, rec.Score)
		}
	}
}

// TestRecommendTiesGoToTheCloserFit: with where the data lives unknown,
// three DAGs score 1.0 for XGBoost calibration and registration; the one
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

// TestRecommendReportsUnmatched: what the catalog cannot serve is listed,
// not silently scored away.
func TestRecommendReportsUnmatched(t *testing.T) {
	c := mustDefault(t)
	reqs := func(r *Ranking) []string {
		var out []string
		for _, u := range r.Unmatched {
			out = append(out, u.Requirement)
		}
		return out
	}
	for _, tc := range []struct {
		req  Request
		want []string
	}{
		{Request{Framework: "xgboost", NeedsLLM: true}, []string{"needs_llm"}},
		{Request{MultiTask: true}, []string{"multi_task"}},
		{Request{Framework: "lightgbmmt"}, []string{"framework lightgbmmt"}},
		{Request{DataSource: "redshift"}, []string{"data_source redshift"}},
		{Request{Framework: "xgboost", DataSource: "athena"}, []string{"data_source athena"}},
		{Request{Framework: "xgboost", Need: "calibration and quantum annealing"}, []string{`need "quantum"`, `need "annealing"`}},
		{Request{Framework: "xgboost", DataSource: "s3", Need: "calibration and registration"}, nil},
		{Request{Framework: "lightgbm", DataSource: "athena"}, nil},
	} {
		r := c.Recommend(tc.req)
		if got := reqs(r); !slices.Equal(got, tc.want) {
			t.Errorf("%+v: unmatched %v, want %v", tc.req, r.Unmatched, tc.want)
		}
	}
	r := c.Recommend(Request{Framework: "lightgbmmt"})
	if len(r.Recommendations) != 0 || !strings.Contains(r.Unmatched[0].Reason, "generic, lightgbm, pytorch, xgboost") {
		t.Errorf("lightgbmmt: %+v", r)
	}
	r = c.Recommend(Request{Framework: "xgboost", DataSource: "athena"})
	if !strings.Contains(r.Unmatched[0].Reason, "lightgbm_athena_currency_metrics") {
		t.Errorf("athena for xgboost names no alternative: %v", r.Unmatched)
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
