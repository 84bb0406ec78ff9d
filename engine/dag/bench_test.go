package dag

import (
	"fmt"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
)

// Layered builds a synthetic DAG of n nodes in layers of width w; every
// node past the first layer has up to two parents in the previous layer.
func layered(n, w int) *PipelineDAG {
	nodes := make([]catalog.NodeName, n)
	for i := range nodes {
		nodes[i] = catalog.NodeName(fmt.Sprintf("Step%05d_training", i))
	}
	var edges []Edge
	for i := w; i < n; i++ {
		edges = append(edges, Edge{nodes[i-w], nodes[i]})
		if i%w != 0 {
			edges = append(edges, Edge{nodes[i-w-1], nodes[i]})
		}
	}
	return New(nodes, edges)
}

func TestLayeredIsAcyclic(t *testing.T) {
	d := layered(1000, 10)
	if !d.Validate(ValidateOptions{}).Valid() {
		t.Fatal("synthetic DAG not valid")
	}
	if d.MaxDepth() != 99 {
		t.Fatalf("depth %d", d.MaxDepth())
	}
}

func BenchmarkValidate(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		d := layered(n, 10)
		known := func(catalog.NodeName) bool { return true }
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if !d.Validate(ValidateOptions{StepKnown: known}).Valid() {
					b.Fatal("invalid")
				}
			}
		})
	}
}

func BenchmarkValidateCyclic10000(b *testing.B) {
	d := layered(10000, 10)
	d.AddEdge("Step09999_training", "Step00000_training") // many cycles: the cap bounds the work
	for b.Loop() {
		if d.Validate(ValidateOptions{}).Valid() {
			b.Fatal("valid")
		}
	}
}

func BenchmarkBuildAndSort10000(b *testing.B) {
	src := layered(10000, 10)
	nodes, edges := src.Nodes(), src.Edges()
	for b.Loop() {
		if _, err := New(nodes, edges).TopologicalSort(); err != nil {
			b.Fatal(err)
		}
	}
}
