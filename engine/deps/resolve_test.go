package deps

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
)

func simpleStep(t catalog.StepType, inputs []catalog.InputPort, outputs []catalog.OutputPort) *catalog.Step {
	return &catalog.Step{Type: t, Inputs: inputs, Outputs: outputs}
}

func TestGreedyOrder(t *testing.T) {
	// Two inputs compete for one output: the required one wins even with a
	// lower score, and the optional one reports the output as taken.
	src := simpleStep("Src", nil, []catalog.OutputPort{
		{LogicalName: "model_output", Type: catalog.DepModelArtifacts, PropertyPath: "properties.ModelArtifacts.S3ModelArtifacts"},
	})
	dst := simpleStep("Dst", []catalog.InputPort{
		{LogicalName: "model_output", Type: catalog.DepModelArtifacts, Required: false},
		{LogicalName: "model_input", Type: catalog.DepModelArtifacts, Required: true},
	}, nil)
	c := NewResolver().ResolveConsumer(Node{"dst", dst}, []Node{{"src", src}})
	if len(c.Bindings) != 1 || c.Bindings[0].Input != "model_input" || !c.Bindings[0].Required {
		t.Fatalf("bindings %+v", c.Bindings)
	}
	if len(c.Unbound) != 1 || c.Unbound[0].Best.Reason != RejectOutputTaken || c.Unbound[0].Best.TakenBy != "model_input" || c.Unbound[0].Missing() {
		t.Fatalf("unbound %+v", c.Unbound)
	}
	// Equal scores: the first parent in edge order wins.
	out := []catalog.OutputPort{{LogicalName: "DATA", Type: catalog.DepProcessingOutput}}
	a, b := simpleStep("A", nil, out), simpleStep("B", nil, out)
	cons := simpleStep("C", []catalog.InputPort{{LogicalName: "DATA", Type: catalog.DepProcessingOutput, Required: true}}, nil)
	for _, order := range [][]Node{{{"a", a}, {"b", b}}, {{"b", b}, {"a", a}}} {
		got := NewResolver().ResolveConsumer(Node{"c", cons}, order)
		if got.Bindings[0].Provider != order[0].Name {
			t.Fatalf("tie went to %s with parents %v", got.Bindings[0].Provider, got.Parents)
		}
	}
	// A consumer without a step or without inputs resolves to nothing.
	if c := NewResolver().ResolveConsumer(Node{Name: "x"}, nil); len(c.Bindings)+len(c.Unbound) != 0 {
		t.Fatal("step-less consumer bound something")
	}
}

func TestConfigSourcedInputIsNotMissing(t *testing.T) {
	s := simpleStep("Loader", []catalog.InputPort{{LogicalName: "INPUT_DATA", Type: catalog.DepProcessingOutput, Required: true, ConfigSource: "data_source"}}, []catalog.OutputPort{{LogicalName: "DATA", Type: catalog.DepProcessingOutput}})
	d := dag.New([]catalog.NodeName{"Loader"}, nil)
	res, err := Resolve(context.Background(), d, func(catalog.NodeName) (*catalog.Step, error) { return s, nil })
	if err != nil {
		t.Fatal(err)
	}
	u := res.Consumer("Loader").Unbound
	if len(u) != 1 || u[0].Missing() || u[0].Best != nil || u[0].Why() != "no parent step has an output of a compatible type" {
		t.Fatalf("unbound %+v", u)
	}
	if res.Consumer("nope") != nil {
		t.Fatal("unknown consumer found")
	}
}

func TestLookupErrorsAndCancel(t *testing.T) {
	d := dag.New([]catalog.NodeName{"a", "b"}, []dag.Edge{{From: "a", To: "b"}})
	_, err := Resolve(context.Background(), d, func(n catalog.NodeName) (*catalog.Step, error) {
		if n == "b" {
			return nil, errors.New("nope")
		}
		return nil, nil
	})
	var le *LookupError
	if !errors.As(err, &le) || !reflect.DeepEqual(le.Nodes, []catalog.NodeName{"a", "b"}) {
		t.Fatalf("err %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := simpleStep("S", nil, nil)
	if _, err := Resolve(ctx, d, func(catalog.NodeName) (*catalog.Step, error) { return s, nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

// randomDAG draws n nodes from the golden steps (node names carry job-type
// suffixes where a view exists) and edges from earlier to later nodes, plus
// an undeclared endpoint now and then. The steps are drawn from the
// golden step types in name order, so a seed always yields the same DAG.
func randomDAG(t testing.TB, rng *rand.Rand, n int) (*dag.PipelineDAG, map[catalog.NodeName]*catalog.Step, map[string]*catalog.Step) {
	_, steps := goldenSteps(t)
	keys := mapkeys.Sorted(steps)
	byNode := map[catalog.NodeName]*catalog.Step{}
	nodes := make([]catalog.NodeName, n)
	for i := range nodes {
		k := keys[rng.IntN(len(keys))]
		nodes[i] = catalog.NodeName(fmt.Sprintf("%s#%d", k, i))
		byNode[nodes[i]] = steps[k]
	}
	var edges []dag.Edge
	for j := 1; j < n; j++ {
		for p := rng.IntN(4); p > 0; p-- {
			edges = append(edges, dag.Edge{From: nodes[rng.IntN(j)], To: nodes[j]})
		}
		if rng.IntN(10) == 0 {
			edges = append(edges, dag.Edge{From: "ghost", To: nodes[j]})
		}
	}
	return dag.New(nodes, edges), byNode, steps
}

var goldenCache struct {
	g     *golden
	steps map[string]*catalog.Step
}

// goldenSteps loads the golden file once per test binary.
func goldenSteps(t testing.TB) (*golden, map[string]*catalog.Step) {
	if goldenCache.g == nil {
		goldenCache.g, goldenCache.steps = loadGolden(t)
	}
	return goldenCache.g, goldenCache.steps
}

func TestPropertyRandomDAGs(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		d, byNode, _ := randomDAG(t, rng, 2+rng.IntN(25))
		lookup := func(n catalog.NodeName) (*catalog.Step, error) { return byNode[n], nil }
		res, err := Resolve(context.Background(), d, lookup)
		var ue *UnresolvedError
		if err != nil && !errors.As(err, &ue) {
			t.Fatal(err)
		}
		// Determinism: a second run, and a run with a warm shared resolver.
		again, _ := Resolve(context.Background(), d, lookup)
		r := NewResolver()
		_, _ = r.Resolve(context.Background(), d, lookup)
		warm, _ := r.Resolve(context.Background(), d, lookup)
		if !reflect.DeepEqual(res.Consumers, again.Consumers) || !reflect.DeepEqual(res.Consumers, warm.Consumers) {
			t.Fatalf("seed %d: resolution is not deterministic", seed)
		}
		for _, c := range res.Consumers {
			step := byNode[c.Node]
			parents := d.DeclaredParents(c.Node)
			if !reflect.DeepEqual(c.Parents, parents) && !(len(parents) == 0 && len(c.Parents) == 0) {
				t.Fatalf("seed %d %s: parents %v vs %v", seed, c.Node, c.Parents, parents)
			}
			seen := map[[2]string]string{}
			var names []string
			for _, b := range c.Bindings {
				if !slices.Contains(parents, b.Provider) {
					t.Fatalf("seed %d: %s.%s bound to %s, not a direct parent", seed, c.Node, b.Input, b.Provider)
				}
				k := [2]string{string(b.Provider), b.Output}
				if other, dup := seen[k]; dup {
					t.Fatalf("seed %d: %s.%s feeds both %s and %s of %s", seed, b.Provider, b.Output, other, b.Input, c.Node)
				}
				seen[k] = b.Input
				in, _ := port(t, step, b.Input, "")
				_, out := port(t, byNode[b.Provider], "", b.Output)
				if s := Score(in, out, byNode[b.Provider]); s != b.Score || s <= Threshold {
					t.Fatalf("seed %d: binding score %v, Score %v", seed, b.Score, s)
				}
				names = append(names, b.Input)
			}
			for _, u := range c.Unbound {
				names = append(names, u.Input)
				// Every viable candidate of an unbound input feeds another
				// input, and never an optional one when this one is required.
				for _, p := range parents {
					in, _ := port(t, step, u.Input, "")
					for oi := range byNode[p].Outputs {
						out := &byNode[p].Outputs[oi]
						if Score(in, out, byNode[p]) <= Threshold || (!in.Required && !StrongMatch(in, out, byNode[p])) {
							continue
						}
						owner, taken := seen[[2]string{string(p), out.LogicalName}]
						if !taken {
							t.Fatalf("seed %d: %s.%s unbound although %s.%s is free", seed, c.Node, u.Input, p, out.LogicalName)
						}
						if b, _ := c.Binding(owner); u.Required && !b.Required {
							t.Fatalf("seed %d: optional %s took what required %s needed", seed, owner, u.Input)
						}
					}
				}
			}
			sort.Strings(names)
			var all []string
			for _, in := range step.Inputs {
				all = append(all, in.LogicalName)
			}
			sort.Strings(all)
			if !reflect.DeepEqual(names, all) {
				t.Fatalf("seed %d %s: inputs %v accounted as %v", seed, c.Node, all, names)
			}
		}
	}
}

// A gate's input binds to the evaluation's report output; its own edges
// carry no data: the node after it reads from its other parents.
func TestBranchesFindTheGates(t *testing.T) {
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	d := dag.New([]catalog.NodeName{"XGBoostTraining", "XGBoostModelEval_calibration", "ModelQualityGate", "XGBoostModel", "Unknown"},
		[]dag.Edge{{From: "XGBoostTraining", To: "XGBoostModelEval_calibration"}, {From: "XGBoostModelEval_calibration", To: "ModelQualityGate"},
			{From: "ModelQualityGate", To: "XGBoostModel"}, {From: "XGBoostTraining", To: "XGBoostModel"}, {From: "ModelQualityGate", To: "Unknown"}})
	b, err := Branches(d, CatalogLookup(c))
	if err != nil || len(b) != 1 || b[0].Gate != "ModelQualityGate" || !slices.Equal(b[0].Nodes, []catalog.NodeName{"XGBoostModel", "Unknown"}) {
		t.Fatalf("Branches = %+v, %v", b, err)
	}
	known := dag.New(d.Nodes()[:4], d.Edges()[:4])
	res, err := Resolve(context.Background(), known, CatalogLookup(c))
	var ue *UnresolvedError
	if err != nil && !errors.As(err, &ue) { // XGBoostTraining has no data parent here
		t.Fatal(err)
	}
	if bd, ok := res.Consumer("ModelQualityGate").Binding("metrics"); !ok || bd.Provider != "XGBoostModelEval_calibration" || bd.Output != "metrics_output" {
		t.Errorf("the gate's metrics: %+v", bd)
	}
	m := res.Consumer("XGBoostModel")
	if bd, ok := m.Binding("model_data"); !ok || bd.Provider != "XGBoostTraining" || !slices.Equal(m.Parents, []catalog.NodeName{"ModelQualityGate", "XGBoostTraining"}) {
		t.Errorf("the model after the gate: %+v parents %v", bd, m.Parents)
	}
}
