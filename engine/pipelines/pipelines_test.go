package pipelines

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/pipelines/pipelinestest"
)

func mustDefault(t testing.TB) *Catalog {
	t.Helper()
	c, err := Default()
	if err != nil {
		t.Fatalf("load the pipeline catalog: %v", err)
	}
	return c
}

func TestEveryEmbeddedDAGLoads(t *testing.T) {
	c := mustDefault(t)
	if c.Len() < 15 {
		t.Fatalf("want at least 15 shared DAGs, have %d", c.Len())
	}
	ids := c.IDs()
	if !slices.IsSorted(ids) {
		t.Fatalf("ids not sorted: %v", ids)
	}
	// coverage the issue asks for
	need := map[string]func(e *Entry) bool{
		"xgboost":       func(e *Entry) bool { return e.Framework == "xgboost" },
		"lightgbm":      func(e *Entry) bool { return e.Framework == "lightgbm" },
		"pytorch":       func(e *Entry) bool { return e.Framework == "pytorch" },
		"simple":        func(e *Entry) bool { return e.Complexity == "simple" },
		"standard":      func(e *Entry) bool { return e.Complexity == "standard" },
		"comprehensive": func(e *Entry) bool { return e.Complexity == "comprehensive" },
		"training only": func(e *Entry) bool {
			return e.HasFeature("training") && !e.HasFeature("evaluation") && len(e.Nodes) <= 3
		},
		"training + evaluation": func(e *Entry) bool { return e.HasFeature("evaluation") && !e.HasFeature("calibration") },
		"calibration+packaging+registrat": func(e *Entry) bool {
			return e.HasFeature("calibration") && e.HasFeature("packaging") && e.HasFeature("registration")
		},
		"batch inference":        func(e *Entry) bool { return e.HasFeature("batch_inference") },
		"tuning":                 func(e *Entry) bool { return e.HasFeature("tuning") },
		"preprocessing variants": func(e *Entry) bool { return e.HasFeature("imputation") || e.HasFeature("feature_selection") },
	}
	for what, ok := range need {
		found := false
		for _, e := range c.Entries() {
			if ok(e) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no shared DAG covers %s", what)
		}
	}
	for _, fw := range []string{"xgboost", "lightgbm", "pytorch"} {
		for _, v := range []string{"simple", "training_with_evaluation", "complete_e2e", "batch_inference"} {
			if _, err := c.Get(fw + "_" + v); err != nil {
				t.Errorf("missing %s_%s", fw, v)
			}
		}
	}
}

// TestEveryDAGPassesIntegrity checks what dag.validate_integrity checks,
// with the step catalog: no cycle, no dangling or undeclared edge, no
// isolated node and every node a step type of the catalog.
func TestEveryDAGPassesIntegrity(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range mustDefault(t).Entries() {
		known := func(n catalog.NodeName) bool { _, _, ok := cat.ResolveNode(n); return ok }
		if issues := e.DAG().Validate(dag.ValidateOptions{StepKnown: known}); !issues.Valid() {
			t.Errorf("%s: %v", e.ID, issues)
		}
		for _, n := range e.Nodes {
			st, jt, ok := cat.ResolveNode(catalog.NodeName(n))
			if !ok {
				continue
			}
			step, _ := cat.Step(st)
			if jt != "" && len(step.JobTypes) > 0 && !slices.Contains(step.JobTypes, jt) {
				t.Errorf("%s: node %s uses job type %q, which %s does not declare (%v)", e.ID, n, jt, st, step.JobTypes)
			}
		}
	}
}

// TestEveryDAGCompiles proves that each shared DAG compiles into a
// SageMaker definition with a config made the way a user makes one: the
// config template of its nodes with every essential field filled.
func TestEveryDAGCompiles(t *testing.T) {
	schema, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, e := range mustDefault(t).Entries() {
		t.Run(e.ID, func(t *testing.T) {
			set, err := pipelinestest.Configs(schema, e.Nodes)
			if err != nil {
				t.Fatalf("config: %v", err)
			}
			res, err := compiler.Compile(ctx, compiler.Input{DAG: e.DAG(), Configs: set, BaseDir: t.TempDir()})
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			// A gate's branch nests its nodes' steps and adds a Fail step; a
			// PyTorch model adds its repack job.
			added := map[catalog.SageMakerStepName]bool{}
			for _, n := range res.Report.Nodes {
				for _, a := range n.AddedSteps {
					added[a] = true
				}
			}
			var steps []compiler.Step
			for _, s := range res.Definition.AllSteps() {
				if s.Type != compiler.StepTypeFail && !added[s.Name] {
					steps = append(steps, s)
				}
			}
			if got := len(steps); got != len(e.Nodes) {
				t.Fatalf("%d steps for %d nodes", got, len(e.Nodes))
			}
			for _, s := range steps {
				if s.Name == "" || s.Type == "" {
					t.Fatalf("step without name or type: %+v", s)
				}
			}
		})
	}
}

func TestListFilters(t *testing.T) {
	c := mustDefault(t)
	if got := c.List(Filter{}); len(got) != c.Len() {
		t.Fatalf("no filter: %d of %d", len(got), c.Len())
	}
	for _, e := range c.List(Filter{Framework: "LightGBM"}) {
		if e.Framework != "lightgbm" {
			t.Fatalf("framework filter let %s through", e.ID)
		}
	}
	got := c.List(Filter{Framework: "xgboost", Complexity: "comprehensive", Feature: "registration"})
	if len(got) == 0 {
		t.Fatal("no comprehensive xgboost DAG with registration")
	}
	for _, e := range got {
		if e.Framework != "xgboost" || e.Complexity != "comprehensive" || !e.HasFeature("registration") {
			t.Fatalf("filters let %s through", e.ID)
		}
	}
	if got := c.List(Filter{Feature: "no_such_feature"}); len(got) != 0 {
		t.Fatalf("unknown feature matched %d", len(got))
	}
}

func TestGetNotFoundSuggests(t *testing.T) {
	c := mustDefault(t)
	if e, err := c.Get(" XGBoost_Complete_E2E "); err != nil || e.ID != "xgboost_complete_e2e" {
		t.Fatalf("lookup is trimmed and case-insensitive: %v %v", e, err)
	}
	_, err := c.Get("xgboost_complete")
	var nf *NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, ErrNotFound) {
		t.Fatalf("want NotFoundError, got %v", err)
	}
	if len(nf.Suggestions) == 0 || !strings.HasPrefix(nf.Suggestions[0], "xgboost_complete_e2e") {
		t.Fatalf("suggestions %v", nf.Suggestions)
	}
	if errkind.Of(err) != errkind.NotFound {
		t.Errorf("kind %q", errkind.Of(err))
	}
	if d := errkind.DetailsOf(err); d["dag_id"] != "xgboost_complete" || len(d["available"].([]string)) != c.Len() {
		t.Errorf("details %v", d)
	}
}

func TestRecommendCalibrationAndRegistration(t *testing.T) {
	c := mustDefault(t)
	r := c.Recommend(Request{Framework: "xgboost", Need: "calibration and registration"})
	if len(r.Recommendations) == 0 {
		t.Fatal("no recommendation")
	}
	top := r.Recommendations[0]
	e, _ := c.Get(top.DagID)
	nodes := strings.ToLower(strings.Join(e.Nodes, " "))
	if !strings.Contains(nodes, "calibration") || !strings.Contains(nodes, "registration") {
		t.Fatalf("top recommendation %s lacks calibration or registration steps: %v", top.DagID, e.Nodes)
	}
	if top.Score != 1 || top.NeedMatch != 1 {
		t.Fatalf("top score %v need %v", top.Score, top.NeedMatch)
	}
	joined := strings.Join(top.Reasons, "\n")
	for _, want := range []string{"framework xgboost (required)", "serves calibration, registration"} {
		if !strings.Contains(joined, want) {
			t.Errorf("reasons lack %q:\n%s", want, joined)
		}
	}
	for _, rec := range r.Recommendations {
		if rec.Framework != "xgboost" {
			t.Fatalf("framework is a hard filter: %s", rec.DagID)
		}
		if len(rec.Description) > 100 || len(rec.Reasons) == 0 {
			t.Fatalf("bad item %+v", rec)
		}
	}
	if !slices.IsSortedFunc(r.Recommendations, func(a, b Recommendation) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	}) {
		t.Fatal("not ranked by score")
	}
	// a DAG without registration ranks below one that has it
	for _, rec := range r.Recommendations {
		if rec.DagID == "xgboost_training_with_calibration" && rec.Score >= top.Score {
			t.Fatalf("calibration-only DAG ties the full one: %+v", rec)
		}
	}
}

func TestRecommendFactors(t *testing.T) {
	c := mustDefault(t)
	f := false
	cases := []struct {
		name  string
		req   Request
		check func(t *testing.T, r *Ranking)
	}{
		{"no preference: smallest first", Request{}, func(t *testing.T, r *Ranking) {
			if len(r.Recommendations) != 5 || r.TotalMatches != c.Len() || r.Recommendations[0].NodeCount > r.Recommendations[4].NodeCount {
				t.Fatalf("%+v", r)
			}
		}},
		{"tabular pytorch halved", Request{Framework: "pytorch", DataType: "tabular"}, func(t *testing.T, r *Ranking) {
			if r.Recommendations[0].Score != 0.5 || !strings.Contains(strings.Join(r.Recommendations[0].Reasons, " "), "x0.5") {
				t.Fatalf("%+v", r.Recommendations[0])
			}
		}},
		{"text data drops DAGs without text support", Request{DataType: "text"}, func(t *testing.T, r *Ranking) {
			for _, rec := range r.Recommendations {
				if e, _ := c.Get(rec.DagID); !e.InputRequirements.TextSupport {
					t.Fatalf("%s has no text support", rec.DagID)
				}
			}
			if r.Excluded["no text support"] == 0 {
				t.Fatal("exclusions not counted")
			}
		}},
		{"no labels", Request{HasLabels: &f, Framework: "generic"}, func(t *testing.T, r *Ranking) {
			// missing labels do not matter to a DAG that trains nothing (dummy_e2e_basic, a lookup
			// table, rule or LLM labelling); the others fall below the floor
			if len(r.Recommendations) == 0 || r.Recommendations[0].Score != 1 {
				t.Fatalf("%+v", r)
			}
			for _, rec := range r.Recommendations {
				if e, _ := c.Get(rec.DagID); e.HasFeature("training") {
					t.Fatalf("%s trains on labels the user does not have: %+v", rec.DagID, rec)
				}
			}
		}},
		{"no labels drop supervised DAGs below the floor with multi-task", Request{HasLabels: &f, MultiTask: true}, func(t *testing.T, r *Ranking) {
			// a supervised single-task DAG scores 0.3 x 0.3 = 0.09
			for _, rec := range r.Recommendations {
				if e, _ := c.Get(rec.DagID); e.HasFeature("training") && !e.InputRequirements.MultiTask {
					t.Fatalf("%s should score 0.09", rec.DagID)
				}
			}
		}},
		{"incremental penalised", Request{Incremental: true, Framework: "lightgbm"}, func(t *testing.T, r *Ranking) {
			if r.Recommendations[0].Score != 0.4 {
				t.Fatalf("%+v", r.Recommendations[0])
			}
		}},
		{"need tuning", Request{Need: "hyperparameter tuning"}, func(t *testing.T, r *Ranking) {
			if r.Recommendations[0].DagID != "xgboost_tuning" || len(r.Concepts) != 1 || r.Concepts[0].ID != "tuning" {
				t.Fatalf("%+v", r)
			}
		}},
		{"need batch scoring lightgbm", Request{Framework: "lgbm", Need: "batch transform"}, func(t *testing.T, r *Ranking) {
			// "lgbm" is not a framework: everything is filtered out
			if len(r.Recommendations) != 0 {
				t.Fatalf("%+v", r)
			}
		}},
		{"need batch inference", Request{Framework: "lightgbm", Need: "offline batch scoring", MaxResults: 2}, func(t *testing.T, r *Ranking) {
			if len(r.Recommendations) != 2 || r.Recommendations[0].DagID != "lightgbm_batch_inference" {
				t.Fatalf("%+v", r)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, c.Recommend(tc.req)) })
	}
}

func TestAutoSelectReferenceCase(t *testing.T) {
	c := mustDefault(t)
	// reference: auto_select(xgboost, [training, calibration]) -> xgboost_complete_e2e, 1.0 (ties in index order)
	m, ok := c.AutoSelect(Query{Framework: "xgboost", Features: []string{"training", "calibration"}}, DefaultMinScore)
	if !ok || m.DagID != "xgboost_complete_e2e" || m.Score != 1 {
		t.Fatalf("auto_select = %+v %v", m, ok)
	}
	if _, ok := c.AutoSelect(Query{Framework: "xgboost", Features: []string{"bedrock"}, TaskType: "llm", Complexity: "simple"}, 0.6); ok {
		t.Fatal("a poor match must not pass the threshold")
	}
	ms := c.Score(Query{Framework: "lightgbm", Features: []string{"training"}, Complexity: "simple"})
	if ms[0].DagID != "lightgbm_simple" || ms[0].Score != 1 {
		t.Fatalf("score: %+v", ms[:3])
	}
	// adjacent complexity gets partial credit: standard vs simple = 0.1*(1-0.33)
	for _, m := range ms {
		if m.DagID == "lightgbm_training_with_evaluation" && m.Score != 0.967 {
			t.Fatalf("partial complexity credit: %+v", m)
		}
		// an xgboost DAG only gets the feature, task and part of the complexity credit
		if m.DagID == "xgboost_simple" && m.Score != 0.75 {
			t.Fatalf("other framework: %+v", m)
		}
	}
}

func TestParseReportsEveryProblem(t *testing.T) {
	bad := `id: Bad-ID
title: ""
framework: julia
complexity: advanced
task_type: training
features: [training, teleportation, training]
description: d
nodes: [A, B, A, " C"]
edges: [[A, B], [B, X], [A], [B, A], [A, A]]
input_requirements: {data_types: [tabular]}
constraints: {}
cost: {estimated_hours: 0, cost_driver: x, instance_cost_tier: cheap}
agent_context: {when_to_use: w, when_not_to_use: n, config_guidance: {user_must_provide: [x]}}
`
	_, errs := Parse("bad.yaml", []byte(bad))
	var fields []string
	for _, e := range errs {
		fields = append(fields, e.Field)
	}
	for _, want := range []string{"id", "title", "framework", "complexity", "cost.instance_cost_tier", "cost.estimated_hours",
		"features[1]", "features[2]", "nodes[2]", "nodes[3]", "edges[1]", "edges[2]", "edges[4]"} {
		if !slices.Contains(fields, want) {
			t.Errorf("no problem reported on %s; got %v", want, errs)
		}
	}
	if _, errs := Parse("x.yaml", []byte("id: x\nunknown_key: 1\n")); len(errs) != 1 || !strings.Contains(errs[0].Error(), "unknown_key") {
		t.Fatalf("unknown keys must fail: %v", errs)
	}
	// a cycle is caught by the integrity check
	cyc := strings.Replace(bad, "edges: [[A, B], [B, X], [A], [B, A], [A, A]]", "edges: [[A, B], [B, A]]", 1)
	_, errs = Parse("bad.yaml", []byte(cyc))
	found := false
	for _, e := range errs {
		if e.Field == "edges" && strings.Contains(e.Message, "cycles") {
			found = true
		}
	}
	if !found {
		t.Fatalf("cycle not reported: %v", errs)
	}
}

func TestLoadRejectsDuplicatesAndEmpty(t *testing.T) {
	good, err := embedded.ReadFile("dags/xgboost_simple.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{"d/xgboost_simple.yaml": {Data: good}, "d/other.yaml": {Data: good}}
	_, err = Load(fsys, "d")
	var le LoadErrors
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "other.yaml: id: must equal the file name") {
		t.Fatalf("want the id/file mismatch, got %v", err)
	}
	if _, err := Load(fstest.MapFS{}, "d"); err == nil {
		t.Fatal("an empty catalog must fail")
	}
}

func TestEntryDAGIsACopy(t *testing.T) {
	e, _ := mustDefault(t).Get("xgboost_simple")
	d := e.DAG()
	d.AddNode("Extra")
	if len(e.Nodes) != 3 || d.NodeCount() != 4 {
		t.Fatal("DAG() must not share the entry's node list")
	}
}

func TestConcurrentUse(t *testing.T) {
	c := mustDefault(t)
	done := make(chan bool)
	for i := 0; i < 8; i++ {
		go func() {
			c.Recommend(Request{Framework: "xgboost", Need: "calibration"})
			c.Score(Query{Features: []string{"training"}})
			c.List(Filter{Framework: "pytorch"})
			done <- true
		}()
	}
	for i := 0; i < 8; i++ {
		<-done
	}
}

func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := Load(embedded, "dags"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRecommend(b *testing.B) {
	c := mustDefault(b)
	for b.Loop() {
		c.Recommend(Request{Framework: "xgboost", Need: "calibration and registration"})
	}
}

func BenchmarkAutoSelect(b *testing.B) {
	c := mustDefault(b)
	for b.Loop() {
		c.AutoSelect(Query{Framework: "xgboost", Features: []string{"training", "calibration"}}, DefaultMinScore)
	}
}

func TestNeedMatchesStepTypesNotJobTypes(t *testing.T) {
	c := mustDefault(t)
	r := c.Recommend(Request{Framework: "xgboost", Need: "calibration", MaxResults: 50})
	for _, rec := range r.Recommendations {
		e, _ := c.Get(rec.DagID)
		if !e.HasFeature("calibration") && rec.NeedMatch == 1 {
			t.Errorf("%s matched \"calibration\" through a node's job type: %v", rec.DagID, rec.Reasons)
		}
	}
	if r.Recommendations[0].DagID != "xgboost_training_with_calibration" {
		t.Fatalf("the smallest DAG that calibrates should come first: %+v", r.Recommendations[0])
	}
}

// TestAdviceNamesOnlyRealEnvironmentVariables: an upper-case name with an
// underscore in a DAG's agent advice (DATA_SOURCES_SPEC, ...) must be an
// environment variable a node of that DAG declares, or a default pipeline
// parameter, so advice cannot outlive a contract change (the Cradle specs
// moved from environment variables to mounted config files).
func TestAdviceNamesOnlyRealEnvironmentVariables(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	upper := regexp.MustCompile(`\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b`)
	for _, e := range mustDefault(t).Entries() {
		known := map[string]bool{compiler.ParamExecutionS3Prefix: true, compiler.ParamKMSKey: true,
			compiler.ParamSecurityGroupID: true, compiler.ParamVPCSubnet: true}
		for _, n := range e.Nodes {
			if st, jt, ok := cat.ResolveNode(catalog.NodeName(n)); ok {
				step, _ := cat.Step(st)
				for _, ev := range step.ForJobType(jt).Contract.Env {
					known[ev.Name] = true
				}
			}
		}
		b, err := json.Marshal(e.AgentContext)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range upper.FindAllString(string(b), -1) {
			if !known[name] {
				t.Errorf("%s: the agent advice names %s, which no node of the DAG declares as an environment variable", e.ID, name)
			}
		}
	}
}

// A DAG's rows carry one id column: with the id column named by every field config.template
// asks for (id_name, id_field), every processing job that reads it (ID_FIELD) reads that name, so
// none falls back to a default "id" the data has not (ActiveSampleSelection read "id" from rows
// scored under the user's id_name and failed; PseudoLabelMerge silently skipped its dedupe). The
// trainers' id_name only names the id column of their evaluation predictions (row numbers when
// the data has none), so it is left to them.
func TestEveryStepReadsTheDAGsIDColumn(t *testing.T) {
	schema, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	const id = "objectId"
	for _, e := range mustDefault(t).Entries() {
		nodes := make([]catalog.NodeName, len(e.Nodes))
		for i, n := range e.Nodes {
			nodes[i] = catalog.NodeName(n)
		}
		f, err := pipelinestest.Fill(schema, nodes)
		if err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		for _, path := range schema.Template(nodes).EssentialFields { // what config.template asks for
			owner, field, _ := strings.Cut(path, ".")
			if field != "id_name" && field != "id_field" {
				continue
			}
			if owner == "base" {
				f.Base[field] = id
			} else {
				f.Steps[catalog.NodeName(owner)][field] = id
			}
		}
		set, err := schema.Build(config.BuildInput{Nodes: nodes, Base: f.Base, Steps: f.Steps})
		if err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		res, err := compiler.Compile(context.Background(), compiler.Input{DAG: e.DAG(), Configs: set, BaseDir: t.TempDir()})
		if err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		for _, s := range res.Definition.AllSteps() {
			a, ok := s.Arguments.(*compiler.ProcessingArguments)
			if !ok {
				continue
			}
			if got, ok := a.Environment["ID_FIELD"]; ok && got != id {
				t.Errorf("%s: step %s reads the id column %v, the DAG's is %s", e.ID, s.Name, got, id)
			}
		}
	}
}
