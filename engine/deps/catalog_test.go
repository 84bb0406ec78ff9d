package deps

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/dag"
)

// catalogScoreDeviations pins the scores where the catalog's ports differ
// from the golden file's (cursus (Python)'s); the bindings are the same.
var catalogScoreDeviations = map[string]float64{
	// The golden file's BatchTransform calibration variant lists
	// compatible_sources [TabularPreprocessing-Calibration], a SageMaker step
	// name no provider type matches, so it scored -0.1 (0.8083). Our catalog
	// lists TabularPreprocessing: +0.1, capped at 1.
	"BatchTransform_calibration.processed_data": 1.0,
	// The golden file types Payload.payload_sample processing_output (compatible
	// with payload_samples: +0.2, 0.81); our catalog types it payload_samples,
	// the input's own type: +0.4, capped at 1.
	"Registration.GeneratedPayloadSamples": 1.0,
}

// catalogUnbound lists inputs the golden file binds that the catalog leaves
// unbound on purpose: node.input -> the original's binding not made
// (<provider node>.<output>), or "" for whatever it binds.
var catalogUnbound = map[string]string{
	// The golden file lets the training job's evaluation output fill Payload's
	// optional custom sample requests (0.537), so the payload step read
	// predictions as requests. Ours takes custom samples from config field
	// custom_payloads only.
	"Payload.custom_payload_input": "", // custom samples come from config
	// An optional input binds only on a strong match (StrongMatch): the
	// loaders' METADATA is not a second data set (0.765, name similarity
	// alone), nor is a loader's raw DATA a model to continue from (0.609).
	"TabularPreprocessing_training.DATA_SECONDARY":    "CradleDataLoading_training.METADATA",
	"TabularPreprocessing_calibration.DATA_SECONDARY": "CradleDataLoading_calibration.METADATA",
	"XGBoostTraining.model_artifacts_input":           "DummyDataLoading_training.DATA",
}

// TestCatalogWiringMatchesOriginal resolves the golden cases with the
// real embedded catalog and compares every binding with cursus (Python)'s
// wiring of the same DAG (testdata/original_golden.json), scores
// included except for catalogScoreDeviations.
func TestCatalogWiringMatchesOriginal(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	g, _ := goldenSteps(t)
	for _, w := range g.Wiring {
		t.Run(w.Name, func(t *testing.T) {
			d, err := dag.FromPairs(w.Nodes, w.Edges)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Resolve(context.Background(), d, CatalogLookup(cat))
			var ue *UnresolvedError
			if err != nil && !errors.As(err, &ue) {
				t.Fatal(err)
			}
			for _, c := range res.Consumers {
				want := w.Bindings[c.Node]
				got := map[string]Binding{}
				for _, b := range c.Bindings {
					got[b.Input] = b
				}
				for in, exp := range want {
					b, ok := got[in]
					if not, deliberate := catalogUnbound[string(c.Node)+"."+in]; deliberate && (not == "" || not == fmt.Sprint(exp[0], ".", exp[1])) {
						if ok {
							t.Errorf("%s.%s <- %s.%s: bound, but the catalog means it to stay unbound", c.Node, in, b.Provider, b.Output)
						}
						continue
					}
					if !ok {
						t.Errorf("%s.%s unbound, original %v", c.Node, in, exp)
						continue
					}
					score := exp[2].(float64)
					if dev, ok := catalogScoreDeviations[string(c.Node)+"."+in]; ok {
						score = dev
					}
					if exp[0] != string(b.Provider) || exp[1] != b.Output || math.Abs(score-b.Score) > 1e-9 {
						t.Errorf("%s.%s <- %s.%s (%.6f), original %v", c.Node, in, b.Provider, b.Output, b.Score, exp)
					}
				}
				for in, b := range got {
					if _, ok := want[in]; !ok {
						t.Errorf("%s.%s <- %s.%s (%.6f) bound here, not in the golden file", c.Node, in, b.Provider, b.Output, b.Score)
					}
				}
			}
		})
	}
}

// TestCompatibleOutputTypesOptIn: an input's compatible_output_types lets
// an output type its own type does not take feed it (scored as compatible
// types, +0.2), and only for the ports that list it. XGBoostTraining's
// model_artifacts_input (processing_output) lists model_artifacts, so an
// earlier XGBoostTraining model binds to it along an edge; without the
// opt-in the pair scores 0.
func TestCompatibleOutputTypesOptIn(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	xgb, _ := cat.Step("XGBoostTraining")
	in, ok1 := xgb.Input("model_artifacts_input")
	out, ok2 := xgb.Output("model_output")
	if !ok1 || !ok2 {
		t.Fatal("XGBoostTraining ports missing")
	}
	if TypesCompatible(in.Type, out.Type) {
		t.Fatalf("the type matrix alone takes %s for %s; the test needs a pair it refuses", out.Type, in.Type)
	}
	if !PortAccepts(in, out.Type) {
		t.Fatalf("model_artifacts_input lists %v, yet does not accept %s", in.CompatibleOutputTypes, out.Type)
	}
	c := Explain(in, out, xgb)
	if !c.TypesCompatible || c.Components.TypeCompatibility != WeightTypeCompatible || !c.Viable {
		t.Errorf("explain %+v", c)
	}
	plain := *in
	plain.CompatibleOutputTypes = nil
	if s := Score(&plain, out, xgb); s != 0 {
		t.Errorf("without the opt-in the pair scores %v, want 0", s)
	}
	if s := Score(in, out, xgb); math.Abs(s-c.Score) > 1e-12 || s <= Threshold {
		t.Errorf("score %v (explain %v)", s, c.Score)
	}

	// Along a DAG: the earlier model binds the later training's artefacts input.
	g := dag.New([]catalog.NodeName{"DummyDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining_pretrain", "XGBoostTraining_finetune"},
		[]dag.Edge{{From: "DummyDataLoading_training", To: "TabularPreprocessing_training"},
			{From: "TabularPreprocessing_training", To: "XGBoostTraining_pretrain"},
			{From: "TabularPreprocessing_training", To: "XGBoostTraining_finetune"},
			{From: "XGBoostTraining_pretrain", To: "XGBoostTraining_finetune"}})
	res, err := Resolve(context.Background(), g, CatalogLookup(cat))
	if err != nil {
		t.Fatal(err)
	}
	got, ok := res.Consumer("XGBoostTraining_finetune").Binding("model_artifacts_input")
	if !ok || got.Provider != "XGBoostTraining_pretrain" || got.Output != "model_output" {
		t.Errorf("model_artifacts_input of the finetune step: %+v (bound %v)", got, ok)
	}
}

// TestOptionalInputsBindOnlyOnStrongMatch: an optional input binds only to
// an output it names, declares the type of, or that a step its sources name
// offers under a shared word; a viable score on name similarity alone
// leaves it unbound and says why (the loader's METADATA is no second data
// set; the trainer's evaluation output is no calibration model).
func TestOptionalInputsBindOnlyOnStrongMatch(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	resolve := func(pairs [][2]string, nodes ...string) *Result {
		t.Helper()
		var edges [][]catalog.NodeName
		for _, p := range pairs {
			edges = append(edges, []catalog.NodeName{catalog.NodeName(p[0]), catalog.NodeName(p[1])})
		}
		ns := make([]catalog.NodeName, len(nodes))
		for i, n := range nodes {
			ns[i] = catalog.NodeName(n)
		}
		d, err := dag.FromPairs(ns, edges)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Resolve(context.Background(), d, CatalogLookup(cat))
		var ue *UnresolvedError
		if err != nil && !errors.As(err, &ue) {
			t.Fatal(err)
		}
		return res
	}
	unbound := func(c *Consumer, input string) *Unbound {
		for i := range c.Unbound {
			if c.Unbound[i].Input == input {
				return &c.Unbound[i]
			}
		}
		return nil
	}
	// one loader: DATA and SIGNATURE by name, DATA_SECONDARY not from METADATA
	res := resolve([][2]string{{"DummyDataLoading_training", "TabularPreprocessing_training"}}, "DummyDataLoading_training", "TabularPreprocessing_training")
	tp := res.Consumer("TabularPreprocessing_training")
	if b, ok := tp.Binding("DATA_SECONDARY"); ok {
		t.Errorf("DATA_SECONDARY <- %s.%s (%.3f)", b.Provider, b.Output, b.Score)
	}
	if u := unbound(tp, "DATA_SECONDARY"); u == nil || u.Best == nil || u.Best.Reason != RejectWeakMatch || u.Best.Output != "METADATA" || u.Best.Score <= Threshold {
		t.Errorf("DATA_SECONDARY unbound %+v", u)
	}
	if _, ok := tp.Binding("SIGNATURE"); !ok {
		t.Error("SIGNATURE, named exactly, is unbound")
	}
	// a second loader's DATA is a second data set
	res = resolve([][2]string{{"DummyDataLoading_training", "TabularPreprocessing_training"}, {"DummyDataLoading_calibration", "TabularPreprocessing_training"}},
		"DummyDataLoading_training", "DummyDataLoading_calibration", "TabularPreprocessing_training")
	if b, ok := res.Consumer("TabularPreprocessing_training").Binding("DATA_SECONDARY"); !ok || b.Provider != "DummyDataLoading_calibration" || b.Output != "DATA" {
		t.Errorf("two loaders: DATA_SECONDARY %+v", b)
	}
	// Package straight after the trainer: no calibration model to ship
	res = resolve([][2]string{{"XGBoostTraining", "Package"}}, "XGBoostTraining", "Package")
	pk := res.Consumer("Package")
	if b, ok := pk.Binding("calibration_model"); ok {
		t.Errorf("calibration_model <- %s.%s (%.3f)", b.Provider, b.Output, b.Score)
	}
	if u := unbound(pk, "calibration_model"); u == nil || u.Best == nil || u.Best.Reason != RejectWeakMatch {
		t.Errorf("calibration_model unbound %+v", u)
	}
	// after a calibration step its calibration output is the one
	res = resolve([][2]string{{"XGBoostTraining", "Package"}, {"PercentileModelCalibration_calibration", "Package"}},
		"XGBoostTraining", "PercentileModelCalibration_calibration", "Package")
	if b, ok := res.Consumer("Package").Binding("calibration_model"); !ok || b.Output != "calibration_output" {
		t.Errorf("after PercentileModelCalibration: calibration_model %+v", b)
	}
	// an input that names no sources takes an output of exactly its type
	// under a shared word: EMR's input_data reads a callback's output_data
	res = resolve([][2]string{{"ExternalCallback", "EMRJob"}}, "ExternalCallback", "EMRJob")
	if b, ok := res.Consumer("EMRJob").Binding("input_data"); !ok || b.Output != "output_data" {
		t.Errorf("EMRJob after ExternalCallback: input_data %+v (bound %v)", b, ok)
	}
}
