package deps

import (
	"context"
	"slices"
	"strings"
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
	d, err := dag.FromPairs([]catalog.NodeName{"TabularPreprocessing_training", "Mystery", "XGBoostTraining", "XGBoostModelEval_calibration"},
		[][]catalog.NodeName{{"TabularPreprocessing_training", "XGBoostTraining"}, {"Mystery", "XGBoostModelEval_calibration"}, {"XGBoostTraining", "XGBoostModelEval_calibration"}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := ResolveKnown(context.Background(), d, CatalogLookup(cat))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Unknown, []catalog.NodeName{"Mystery"}) || p.Consumers["Mystery"] != nil || len(p.Consumers) != 3 {
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

// Mermaid draws ports on edges, marks unknown and undeclared nodes, and
// draws a gate as a decision with a fail edge; DataFlow maps inputs to
// providers, and the parents of a node it did not resolve.
func TestMermaidAndDataFlow(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	nodes := []catalog.NodeName{"TabularPreprocessing_training", "XGBoostTraining", "XGBoostModelEval_calibration", "ModelQualityGate", "Package", "Mystery"}
	d, err := dag.FromPairs(nodes, [][]catalog.NodeName{{"TabularPreprocessing_training", "XGBoostTraining"}, {"XGBoostTraining", "XGBoostModelEval_calibration"},
		{"XGBoostModelEval_calibration", "ModelQualityGate"}, {"ModelQualityGate", "Package"}, {"XGBoostTraining", "Package"},
		{"Package", "Mystery"}})
	if err != nil {
		t.Fatal(err)
	}
	lookup := CatalogLookup(cat)
	p, err := ResolveKnown(context.Background(), d, lookup)
	if err != nil {
		t.Fatal(err)
	}
	branches, err := Branches(d, lookup)
	if err != nil || len(branches) != 1 {
		t.Fatalf("branches %v %v", branches, err)
	}
	dr := Mermaid(d, "LR", p, []catalog.NodeName{branches[0].Gate})
	for _, want := range []string{"flowchart LR\n", `n3{"ModelQualityGate"}`, `n3 -->|"pass"| n4`, `f0(["ModelQualityGate: Fail, the run ends"])`,
		`n3 -->|"fail"| f0`, "class n5 unknown", `n0 -->|"processed_data → input_path"| n1`} {
		if !strings.Contains(dr.Mermaid, want) {
			t.Errorf("drawing lacks %q:\n%s", want, dr.Mermaid)
		}
	}
	if len(dr.Edges) != d.EdgeCount() || len(dr.Edges[0].Ports) == 0 || dr.Unresolved == nil {
		t.Errorf("edges %+v unresolved %v", dr.Edges, dr.Unresolved)
	}
	ghost, err := dag.FromPairs([]catalog.NodeName{"a"}, [][]catalog.NodeName{{"Ghost", "a"}})
	if err != nil {
		t.Fatal(err)
	}
	if plain := Mermaid(ghost, "", nil, nil); !strings.HasPrefix(plain.Mermaid, "flowchart TD\n") || strings.Contains(plain.Mermaid, "|") ||
		!strings.Contains(plain.Mermaid, `u0["Ghost (not declared)"]`) {
		t.Errorf("topology only:\n%s", plain.Mermaid)
	}
	order, err := d.TopologicalSort()
	if err != nil {
		t.Fatal(err)
	}
	flow, _ := DataFlow(d, order, p)
	if flow["XGBoostTraining"]["input_path"] != "TabularPreprocessing_training:processed_data" {
		t.Errorf("flow %v", flow["XGBoostTraining"])
	}
	flow, _ = DataFlow(d, []catalog.NodeName{"Mystery"}, p)
	if flow["Mystery"]["input_0"] != "Package:output" {
		t.Errorf("an unresolved node's flow %v", flow["Mystery"])
	}
}
