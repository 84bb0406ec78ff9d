package deps

import (
	"context"
	"slices"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/dag"
)

// TestReportSet resolves a set of catalog steps two ways: every member
// feeding every other (the training step's input binds to the
// preprocessing output), and along a DAG whose one edge leaves the
// training step without a provider, which the report names with why.
func TestReportSet(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	m := StepMembers(cat, []catalog.NodeName{"TabularPreprocessing_training", "XGBoostTraining", "XGBoostTraining", "Bogus", " "})
	if len(m.Found) != 2 || !slices.Equal(m.Missing, []catalog.NodeName{"Bogus", " "}) || !slices.Equal(m.Duplicates, []catalog.NodeName{"XGBoostTraining"}) {
		t.Fatalf("members %+v", m)
	}
	if m.Found[0].JobType != "training" || m.Found[0].Step.Type != "TabularPreprocessing" {
		t.Errorf("first member %+v", m.Found[0])
	}
	rep, err := NewResolver().ReportSet(context.Background(), m.Found, AllOthers(m.Found))
	if err != nil {
		t.Fatal(err)
	}
	xgb := rep.Steps["XGBoostTraining"]
	if xgb == nil || xgb.ResolvedDependencies["input_path"] != "TabularPreprocessing_training.processed_data" {
		t.Fatalf("XGBoostTraining %+v", xgb)
	}
	if !slices.Equal(xgb.Providers, []catalog.NodeName{"TabularPreprocessing_training"}) || xgb.RequiredDependencies+xgb.OptionalDependencies != xgb.TotalDependencies {
		t.Errorf("XGBoostTraining %+v", xgb)
	}
	if rep.Total == 0 || rep.Resolved == 0 || rep.Rate() != float64(rep.Resolved)/float64(rep.Total) {
		t.Errorf("totals %d/%d rate %v", rep.Resolved, rep.Total, rep.Rate())
	}

	d := dag.New(nil, nil)
	for _, n := range []catalog.NodeName{"XGBoostTraining", "TabularPreprocessing_training"} {
		d.AddNode(n)
	}
	d.AddEdge("XGBoostTraining", "TabularPreprocessing_training")
	dm := DAGMembers(cat, d)
	if len(dm.Found) != 2 || len(dm.Missing) != 0 {
		t.Fatalf("DAG members %+v", dm)
	}
	rep, err = NewResolver().ReportSet(context.Background(), dm.Found, d.DeclaredParents)
	if err != nil {
		t.Fatal(err)
	}
	xgb = rep.Steps["XGBoostTraining"]
	if len(xgb.Providers) != 0 || !slices.Contains(xgb.UnresolvedDeps, "input_path") || xgb.Error == "" || !slices.Contains(rep.WithErrors, "XGBoostTraining") {
		t.Errorf("XGBoostTraining without a parent: %+v, with errors %v", xgb, rep.WithErrors)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewResolver().ReportSet(ctx, dm.Found, d.DeclaredParents); err == nil {
		t.Error("a cancelled context resolves")
	}
}
