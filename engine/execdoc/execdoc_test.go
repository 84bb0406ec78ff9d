package execdoc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/pipelines/pipelinestest"
)

// decode turns JSON text into a document, as a tool receives it.
func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("bad test JSON: %v", err)
	}
	return m
}

func steps(doc map[string]any) map[string]any { return doc[KeyStepConfigs].(map[string]any) }

func TestTemplateReferenceCase(t *testing.T) {
	// template(step_names) -> every name -> {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {}}
	doc, err := Template([]string{"A", "B", " A "})
	if err != nil {
		t.Fatal(err)
	}
	want := decode(t, `{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {}},
		"B": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {}}}}`)
	got := roundTrip(t, doc)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("template:\n got %v\nwant %v", got, want)
	}
	if r := Validate(got, Options{}); !r.Valid || len(r.Issues) != 0 {
		t.Fatalf("a template must validate cleanly: %+v", r.Issues)
	}
	empty, err := Template(nil)
	if err != nil || len(steps(empty)) != 0 {
		t.Fatalf("empty template: %v %v", empty, err)
	}
	var ie *InputError
	if _, err := Template([]string{"A", "  "}); !errors.As(err, &ie) || ie.Field != "step_names[1]" {
		t.Fatalf("blank name: want InputError on step_names[1], got %v", err)
	}
}

func roundTrip(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, string(b))
}

func testCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Default()
	if err != nil {
		t.Fatalf("catalog: %v", err)
	}
	return c
}

func TestTemplateFromDAG(t *testing.T) {
	cat := testCatalog(t)
	d := dag.New([]catalog.NodeName{"TabularPreprocessing_training", "XGBoostTraining", "Registration", "mystery_node"}, nil)
	res, err := TemplateFromDAG(d, cat)
	if err != nil {
		t.Fatal(err)
	}
	got := roundTrip(t, res.Document)
	want := decode(t, `{"PIPELINE_STEP_CONFIGS": {
		"TabularPreprocessing-Training": {"STEP_TYPE": ["PROCESSING_STEP", "TabularPreprocessingStep"], "STEP_CONFIG": {}},
		"XGBoostTraining": {"STEP_TYPE": ["TRAINING_STEP", "XGBoostTrainingStep"], "STEP_CONFIG": {}},
		"Registration": {"STEP_TYPE": ["REGISTER_MODEL_STEP", "RegistrationStep"], "STEP_CONFIG": {}},
		"mystery_node": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {}}}}`)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("template from DAG:\n got %v\nwant %v", got, want)
	}
	if len(res.Steps) != 4 || res.Steps[0].StepName != "TabularPreprocessing-Training" || res.Steps[0].JobType != "training" || res.Steps[2].Verb != "RegisterModel" {
		t.Fatalf("steps: %+v", res.Steps)
	}
	joined := strings.Join(res.Warnings, "\n")
	if !strings.Contains(joined, "mystery_node names no step type") || !strings.Contains(joined, "Registration-NA") {
		t.Fatalf("warnings should flag the unknown node and the region-suffixed name: %q", joined)
	}
	if _, err := TemplateFromDAG(dag.New(nil, nil), cat); err == nil {
		t.Fatal("an empty DAG must fail")
	}
	// two nodes giving one step name keep one entry and warn
	res, _ = TemplateFromDAG(dag.New([]catalog.NodeName{"XGBoostTraining", "xgboost_training"}, nil), cat)
	if len(steps(res.Document)) != 1 || !strings.Contains(strings.Join(res.Warnings, " "), "already gives") {
		t.Fatalf("duplicate step names: %v %v", res.Document, res.Warnings)
	}
}

func kinds(r *Report) []string {
	var out []string
	for _, is := range r.Issues {
		out = append(out, string(is.Severity)+":"+is.Kind)
	}
	return out
}

func TestValidateListsEveryProblem(t *testing.T) {
	cases := []struct {
		name  string
		doc   any
		valid bool
		want  []string // severity:kind, in order
	}{
		{"not an object", []any{1}, false, []string{"error:not_object"}},
		{"null", nil, false, []string{"error:not_object"}},
		{"no step configs", map[string]any{}, false, []string{"error:missing_key"}},
		{"step configs not an object", map[string]any{KeyStepConfigs: []any{}}, false, []string{"error:wrong_type"}},
		{"empty", map[string]any{KeyStepConfigs: map[string]any{}}, true, []string{"warning:empty_document"}},
		{"minimal", decode(t, `{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_TYPE": "TRAINING_STEP", "STEP_CONFIG": {}}}, "PIPELINE_ADDITIONAL_PARAMS": {}}`), true, nil},
		{"every step problem at once", decode(t, `{"PIPELINE_STEP_CONFIGS": {
			"A": {"STEP_CONFIG": {"x": 1}},
			"B": {"STEP_TYPE": [], "STEP_CONFIG": []},
			"C": {"STEP_TYPE": ["PROCESSING_STEP"]},
			"D": 7,
			"E": {"STEP_TYPE": [1], "STEP_CONFIG": {}, "EXTRA": true}},
			"PIPELINE_ADDITIONAL_PARAMS": "x", "OTHER": 1}`), false,
			[]string{"warning:unknown_key", "error:wrong_type",
				"warning:missing_step_type",
				"error:bad_step_type", "error:bad_config",
				"error:missing_config",
				"error:bad_step",
				"error:bad_step_type", "warning:unknown_key"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Validate(c.doc, Options{})
			if r.Valid != c.valid || !reflect.DeepEqual(kinds(r), c.want) {
				t.Fatalf("valid=%v kinds=%v, want valid=%v kinds=%v\n%+v", r.Valid, kinds(r), c.valid, c.want, r.Issues)
			}
			if r.Errors+r.Warnings != len(r.Issues) {
				t.Fatalf("counts %d+%d != %d", r.Errors, r.Warnings, len(r.Issues))
			}
		})
	}
}

func TestValidateAgainstDAGSteps(t *testing.T) {
	doc := decode(t, `{"PIPELINE_STEP_CONFIGS": {
		"XGBoostTraining": {"STEP_TYPE": "TRAINING_STEP", "STEP_CONFIG": {}},
		"Registration-NA": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {}},
		"XGBoostTrainin": {"STEP_TYPE": "TRAINING_STEP", "STEP_CONFIG": {}}}}`)
	r := Validate(doc, Options{Steps: []string{"XGBoostTraining", "Registration-NA", "Package"}, NeedConfig: []string{"Registration-NA", "Package"}})
	want := []string{"warning:empty_config", "error:unknown_step", "warning:missing_step"}
	if r.Valid || !reflect.DeepEqual(kinds(r), want) {
		t.Fatalf("kinds %v want %v: %+v", kinds(r), want, r.Issues)
	}
	unknown := r.Issues[1]
	if unknown.Step != "XGBoostTrainin" || len(unknown.Suggestions) == 0 || unknown.Suggestions[0] != "XGBoostTraining" {
		t.Fatalf("unknown step should suggest XGBoostTraining: %+v", unknown)
	}
	// without a DAG, the catalog flags names that start with no step type, as warnings
	r = Validate(decode(t, `{"PIPELINE_STEP_CONFIGS": {"TabularPreprocessing-Training": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {}},
		"Registration-NA": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {}},
		"Frobnicate-Training": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {}}}}`), Options{Catalog: testCatalog(t)})
	if !r.Valid || !reflect.DeepEqual(kinds(r), []string{"warning:unknown_step_type"}) || r.Issues[0].Step != "Frobnicate-Training" {
		t.Fatalf("catalog check: %+v", r.Issues)
	}
}

func TestMergeReferenceCase(t *testing.T) {
	// two documents whose steps overlap: {A:{STEP_CONFIG:{x:1}}} + {A:{STEP_CONFIG:{y:2}}, B:{STEP_TYPE:[X]}}
	base := decode(t, `{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_CONFIG": {"x": 1}}}}`)
	add := decode(t, `{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_CONFIG": {"y": 2}}, "B": {"STEP_TYPE": ["X"]}}}`)
	baseCopy := roundTrip(t, base)
	addCopy := roundTrip(t, add)
	got, stats, err := Merge(base, add)
	if err != nil {
		t.Fatal(err)
	}
	want := decode(t, `{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_CONFIG": {"x": 1, "y": 2}}, "B": {"STEP_TYPE": ["X"]}}}`)
	if !reflect.DeepEqual(roundTrip(t, got), want) {
		t.Fatalf("merge:\n got %v\nwant %v", got, want)
	}
	if !reflect.DeepEqual(stats.Added, []string{"B"}) || !reflect.DeepEqual(stats.Updated, []string{"A"}) {
		t.Fatalf("stats %+v", stats)
	}
	if !reflect.DeepEqual(base, baseCopy) || !reflect.DeepEqual(add, addCopy) {
		t.Fatal("merge modified its arguments")
	}
	// the result shares nothing with the inputs
	steps(got)["B"].(map[string]any)[KeyStepType].([]any)[0] = "changed"
	if steps(add)["B"].(map[string]any)[KeyStepType].([]any)[0] != "X" {
		t.Fatal("merge result aliases additional_doc")
	}
}

func TestMergeRules(t *testing.T) {
	base := decode(t, `{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {"x": 1, "nested": {"a": 1, "b": 2}}}},
		"PIPELINE_ADDITIONAL_PARAMS": {"p": 1, "q": 2}}`)
	add := decode(t, `{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_TYPE": "TRAINING_STEP", "STEP_CONFIG": {"nested": {"a": 9}}}},
		"PIPELINE_ADDITIONAL_PARAMS": {"q": 3}}`)
	got, _, err := Merge(base, add)
	if err != nil {
		t.Fatal(err)
	}
	// STEP_CONFIG is updated key by key (shallow: nested objects are replaced), other keys replaced
	want := decode(t, `{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_TYPE": "TRAINING_STEP", "STEP_CONFIG": {"x": 1, "nested": {"a": 9}}}},
		"PIPELINE_ADDITIONAL_PARAMS": {"p": 1, "q": 3}}`)
	if !reflect.DeepEqual(roundTrip(t, got), want) {
		t.Fatalf("merge:\n got %v\nwant %v", got, want)
	}
	// a non-object STEP_CONFIG in base is replaced, not merged
	got, _, err = Merge(decode(t, `{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_CONFIG": "bad"}}}`), decode(t, `{"PIPELINE_STEP_CONFIGS": {"A": {"STEP_CONFIG": {"y": 2}}}}`))
	if err != nil || !reflect.DeepEqual(steps(got)["A"], map[string]any{"STEP_CONFIG": map[string]any{"y": 2.0}}) {
		t.Fatalf("replace non-object config: %v %v", got, err)
	}
}

func TestMergeRejectsInvalidDocuments(t *testing.T) {
	ok := decode(t, `{"PIPELINE_STEP_CONFIGS": {}}`)
	cases := []struct {
		base, add any
		arg       string
	}{
		{map[string]any{}, ok, "base_doc"},
		{ok, "text", "additional_doc"},
		{ok, map[string]any{KeyStepConfigs: map[string]any{"A": 3}}, "additional_doc"},
		{map[string]any{KeyStepConfigs: []any{}}, ok, "base_doc"},
	}
	for i, c := range cases {
		_, _, err := Merge(c.base, c.add)
		var ide *InvalidDocumentError
		if !errors.As(err, &ide) || ide.Arg != c.arg || len(ide.Issues) == 0 {
			t.Errorf("case %d: want InvalidDocumentError on %s, got %v", i, c.arg, err)
		}
	}
}

func TestCamel(t *testing.T) {
	for in, want := range map[string]string{"data_sources": "dataSources", "x": "x", "already": "already", "a_b_c": "aBC", "_lead": "lead", "transform_sql": "transformSql"} {
		if got := SnakeToCamel(in); got != want {
			t.Errorf("SnakeToCamel(%q) = %q, want %q", in, got, want)
		}
	}
	got := CamelKeys(map[string]any{"start_date": "d", "data_sources": []any{map[string]any{"data_source_name": "X"}}})
	want := map[string]any{"startDate": "d", "dataSources": []any{map[string]any{"dataSourceName": "X"}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("CamelKeys %v", got)
	}
}

// e2e is a DAG with a data-loading step and a registration step.
var e2eNodes = []catalog.NodeName{"CradleDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining", "Package", "Payload", "Registration"}
var e2eEdges = [][]catalog.NodeName{{"CradleDataLoading_training", "TabularPreprocessing_training"}, {"TabularPreprocessing_training", "XGBoostTraining"},
	{"XGBoostTraining", "Package"}, {"XGBoostTraining", "Payload"}, {"Package", "Registration"}, {"Payload", "Registration"}}

func e2e(t *testing.T) (*dag.PipelineDAG, *config.Set) {
	t.Helper()
	schema, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	set, err := pipelinestest.Configs(schema, e2eNodes)
	if err != nil {
		t.Fatal(err)
	}
	d, err := dag.FromPairs(e2eNodes, e2eEdges)
	if err != nil {
		t.Fatal(err)
	}
	return d, set
}

func TestGenerateAutoTemplate(t *testing.T) {
	d, set := e2e(t)
	res, err := Generate(context.Background(), GenerateInput{DAG: d, Configs: set, Role: "arn:aws:iam::111122223333:role/Override"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.AutoTemplate {
		t.Fatal("no document given: the template must be built")
	}
	st := steps(res.Document)
	wantNames := []string{"CradleDataLoading-Training", "Package", "Payload", "Registration-NA", "TabularPreprocessing-Training", "XGBoostTraining"}
	if got := StepNames(res.Document); !reflect.DeepEqual(got, wantNames) {
		t.Fatalf("step names %v want %v", got, wantNames)
	}
	cradle := st["CradleDataLoading-Training"].(map[string]any)[KeyStepConfig].(map[string]any)
	ds := cradle["dataSources"].(map[string]any)
	if ds["startDate"] != "2025-01-01T00:00:00" || len(ds["dataSources"].([]any)) != 1 || cradle["transformSpecification"].(map[string]any)["transformSql"] == nil {
		t.Fatalf("cradle request: %v", cradle)
	}
	reg := st["Registration-NA"].(map[string]any)[KeyStepConfig].(map[string]any)
	if reg["model_owner"] != "team-demo" || reg["model_registration_region"] != "NA" || reg["source_model_region"] != "us-east-1" ||
		reg["execution_role"] != "arn:aws:iam::111122223333:role/Override" ||
		!strings.Contains(reg["source_model_inference_image_arn"].(string), "sagemaker-xgboost:1.7-1") {
		t.Fatalf("registration config: %v", reg)
	}
	lt := reg["load_testing_info_map"].(map[string]any)
	if fmt.Sprint(lt["expected_tps"]) != "10" || lt["sample_payload_s3_bucket"] != "example-bucket" {
		t.Fatalf("load testing info: %v", lt)
	}
	if len(st["XGBoostTraining"].(map[string]any)[KeyStepConfig].(map[string]any)) != 0 {
		t.Fatal("a step without a helper must stay empty")
	}
	if res.StepsWithConfig() != 2 || res.NodeSteps["Registration"] != "Registration-NA" || res.NodeConfigs["TabularPreprocessing_training"] != "TabularPreprocessing_training" {
		t.Fatalf("result: %d %v %v", res.StepsWithConfig(), res.NodeSteps, res.NodeConfigs)
	}
	// the generated document is valid against the DAG's steps
	var names []string
	for _, n := range res.NodeSteps {
		names = append(names, string(n))
	}
	if r := Validate(roundTrip(t, res.Document), Options{Steps: names}); !r.Valid || len(r.Issues) != 0 {
		t.Fatalf("generated document has issues: %+v", r.Issues)
	}
}

func TestGenerateFillsGivenDocument(t *testing.T) {
	d, set := e2e(t)
	// a MODS-style document: only the steps with runtime configuration, the
	// registration under another name, one user key to keep.
	in := decode(t, `{"PIPELINE_STEP_CONFIGS": {
		"CradleDataLoading-Training": {"STEP_TYPE": ["WORKFLOW_INPUT", "CradleDataLoadingStep"], "STEP_CONFIG": {"userKey": 1}},
		"ModelRegistration-NA": {"STEP_CONFIG": {}},
		"SomethingElse": {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {"keep": true}}}}`)
	before := roundTrip(t, in)
	res, err := Generate(context.Background(), GenerateInput{DAG: d, Configs: set, Document: in})
	if err != nil {
		t.Fatal(err)
	}
	if res.AutoTemplate || !reflect.DeepEqual(in, before) {
		t.Fatal("the given document must be filled in a copy")
	}
	st := steps(res.Document)
	if len(st) != 3 {
		t.Fatalf("no step may be added or dropped: %v", StepNames(res.Document))
	}
	cradle := st["CradleDataLoading-Training"].(map[string]any)
	if cradle[KeyStepConfig].(map[string]any)["userKey"] != 1.0 || cradle[KeyStepConfig].(map[string]any)["dataSources"] == nil ||
		!reflect.DeepEqual(cradle[KeyStepType], []any{"WORKFLOW_INPUT", "CradleDataLoadingStep"}) {
		t.Fatalf("cradle entry: %v", cradle)
	}
	reg := st["ModelRegistration-NA"].(map[string]any)
	if !reflect.DeepEqual(reg[KeyStepType], RegistrationStepType) || reg[KeyStepConfig].(map[string]any)["model_domain"] != "demo" {
		t.Fatalf("registration found by name and STEP_TYPE added: %v", reg)
	}
	if !reflect.DeepEqual(st["SomethingElse"], before[KeyStepConfigs].(map[string]any)["SomethingElse"]) {
		t.Fatal("a step no node matches is left as it is")
	}

	// a document without the cradle entry: skipped with a warning
	res, err = Generate(context.Background(), GenerateInput{DAG: d, Configs: set, Document: decode(t, `{"PIPELINE_STEP_CONFIGS": {}}`)})
	if err != nil || !strings.Contains(strings.Join(res.Warnings, "\n"), "CradleDataLoading-Training (node CradleDataLoading_training) takes runtime configuration") {
		t.Fatalf("missing entry warning: %v %v", res.Warnings, err)
	}
}

func TestGenerateErrors(t *testing.T) {
	d, set := e2e(t)
	var ide *InvalidDocumentError
	if _, err := Generate(context.Background(), GenerateInput{DAG: d, Configs: set, Document: map[string]any{"x": 1}}); !errors.As(err, &ide) || ide.Arg != "execution_document" {
		t.Fatalf("bad document: %v", err)
	}
	var ie *InputError
	if _, err := Generate(context.Background(), GenerateInput{DAG: dag.New(nil, nil), Configs: set}); !errors.As(err, &ie) {
		t.Fatalf("empty DAG: %v", err)
	}
	if _, err := Generate(context.Background(), GenerateInput{DAG: d}); !errors.As(err, &ie) {
		t.Fatalf("no configs: %v", err)
	}
	// both say their kind and particulars
	if errkind.Of(ide) != errkind.InvalidInput || errkind.DetailsOf(ide)["argument"] != "execution_document" ||
		len(errkind.DetailsOf(ide)["issues"].([]map[string]any)) != len(ide.Issues) {
		t.Errorf("document error: %q %v", errkind.Of(ide), errkind.DetailsOf(ide))
	}
	if errkind.Of(ie) != errkind.InvalidInput || errkind.DetailsOf(ie)["field"] != ie.Field {
		t.Errorf("input error: %q %v", errkind.Of(ie), errkind.DetailsOf(ie))
	}
	// a node with no config is skipped with a warning
	d2, _ := dag.FromPairs(append(append([]catalog.NodeName{}, e2eNodes...), "XGBoostModelEval_calibration"), e2eEdges)
	res, err := Generate(context.Background(), GenerateInput{DAG: d2, Configs: set})
	if err != nil || !strings.Contains(strings.Join(res.Warnings, "\n"), "XGBoostModelEval_calibration has no config") {
		t.Fatalf("unresolved node: %v %v", res, err)
	}
}

func TestHelperFor(t *testing.T) {
	cat := testCatalog(t)
	for name, want := range map[catalog.StepType]string{"CradleDataLoading": HelperDataLoading, "RedshiftDataLoading": HelperDataLoading,
		"AthenaDataLoading": HelperDataLoading, "Registration": HelperRegistration, "XGBoostTraining": "", "Package": ""} {
		st, ok := cat.Step(name)
		if !ok {
			t.Fatalf("catalog has no %s", name)
		}
		if got := HelperFor(st); got != want {
			t.Errorf("HelperFor(%s) = %q want %q", name, got, want)
		}
	}
}

func BenchmarkMerge(b *testing.B) {
	base := map[string]any{KeyStepConfigs: map[string]any{}}
	add := map[string]any{KeyStepConfigs: map[string]any{}}
	for i := 0; i < 100; i++ {
		n := "Step" + strings.Repeat("x", i%7) + string(rune('A'+i%26)) + string(rune('a'+i/26))
		base[KeyStepConfigs].(map[string]any)[n] = map[string]any{KeyStepType: []any{"PROCESSING_STEP"}, KeyStepConfig: map[string]any{"a": 1.0, "b": "x"}}
		add[KeyStepConfigs].(map[string]any)[n] = map[string]any{KeyStepConfig: map[string]any{"c": 2.0}}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Merge(base, add); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGenerate(b *testing.B) {
	t := &testing.T{}
	d, set := e2e(t)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Generate(ctx, GenerateInput{DAG: d, Configs: set}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestExpectedSteps(t *testing.T) {
	d, set := e2e(t)
	cat := testCatalog(t)
	ctx := context.Background()
	withCfg, err := ExpectedSteps(ctx, d, cat, set, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"CradleDataLoading-Training", "TabularPreprocessing-Training", "XGBoostTraining", "Package", "Payload", "Registration-NA"}
	if !reflect.DeepEqual(withCfg.Steps, want) || !reflect.DeepEqual(withCfg.NeedConfig, []string{"CradleDataLoading-Training", "Registration-NA"}) {
		t.Fatalf("with configs: %+v", withCfg)
	}
	// without configs, the region suffix is taken from the document's key
	doc := decode(t, `{"PIPELINE_STEP_CONFIGS": {"Registration-EU": {"STEP_CONFIG": {}}}}`)
	noCfg, err := ExpectedSteps(ctx, d, cat, nil, doc)
	if err != nil {
		t.Fatal(err)
	}
	if noCfg.Steps[5] != "Registration-EU" || len(noCfg.Warnings) != 0 {
		t.Fatalf("without configs: %+v", noCfg)
	}
	r := Validate(doc, Options{Steps: noCfg.Steps, NeedConfig: noCfg.NeedConfig})
	if !r.Valid || !reflect.DeepEqual(kinds(r), []string{"warning:missing_step_type", "warning:empty_config", "warning:missing_step"}) || r.Issues[2].Step != "CradleDataLoading-Training" {
		t.Fatalf("validate against the DAG: %+v", r.Issues)
	}
	if _, err := ExpectedSteps(ctx, dag.New(nil, nil), cat, nil, nil); err == nil {
		t.Fatal("empty DAG")
	}
}
