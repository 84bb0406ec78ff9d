package deps

import (
	"context"
	"errors"
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
// unbound on purpose.
var catalogUnbound = map[string]string{
	// The golden file lets the training job's evaluation output fill Payload's
	// optional custom sample requests (0.537), so the payload step read
	// predictions as requests. Ours takes custom samples from config field
	// custom_payloads only.
	"Payload.custom_payload_input": "custom samples come from config",
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
					if _, deliberate := catalogUnbound[string(c.Node)+"."+in]; deliberate {
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
