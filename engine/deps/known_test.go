package deps

import (
	"context"
	"slices"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/dag"
)

// ResolveKnown binds what it can and lists the rest: an unknown node is
// reported, not resolved, and feeds nothing downstream.
func TestResolveKnown(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	d, err := dag.FromPairs([]string{"TabularPreprocessing_training", "Mystery", "XGBoostTraining", "XGBoostModelEval_calibration"},
		[][]string{{"TabularPreprocessing_training", "XGBoostTraining"}, {"Mystery", "XGBoostModelEval_calibration"}, {"XGBoostTraining", "XGBoostModelEval_calibration"}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := ResolveKnown(context.Background(), d, CatalogLookup(cat))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Unknown, []string{"Mystery"}) || p.Consumers["Mystery"] != nil || len(p.Consumers) != 3 {
		t.Fatalf("unknown %v, consumers %d", p.Unknown, len(p.Consumers))
	}
	train := p.Consumers["XGBoostTraining"]
	if len(train.Bindings) == 0 || train.Bindings[0].Provider != "TabularPreprocessing_training" {
		t.Errorf("training bindings %+v", train.Bindings)
	}
	for _, b := range p.Consumers["XGBoostModelEval_calibration"].Bindings {
		if b.Provider == "Mystery" {
			t.Errorf("an unknown parent fed %+v", b)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ResolveKnown(ctx, d, CatalogLookup(cat)); err == nil {
		t.Error("a cancelled context resolved")
	}
}
