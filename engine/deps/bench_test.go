package deps

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
)

func BenchmarkResolve(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		d, byNode, _ := randomDAG(b, rand.New(rand.NewPCG(1, 2)), n)
		lookup := func(n catalog.NodeName) (*catalog.Step, error) { return byNode[n], nil }
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				_, err := Resolve(context.Background(), d, lookup)
				var ue *UnresolvedError
				if err != nil && !errors.As(err, &ue) {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkExplainSimilarity(b *testing.B) {
	for b.Loop() {
		_ = ExplainSimilarity("model_input", "model_output")
	}
}

func BenchmarkExplainCompatibility(b *testing.B) {
	_, steps := goldenSteps(b)
	in, _ := port(b, steps["XGBoostTraining"], "input_path", "")
	_, out := port(b, steps["TabularPreprocessing"], "", "processed_data")
	for b.Loop() {
		_ = Explain(in, out, steps["TabularPreprocessing"])
	}
}

// BenchmarkResolveWarm reuses one Resolver, so the scores of the step pairs
// are known and only the graph walk and assignment are measured.
func BenchmarkResolveWarm(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		d, byNode, _ := randomDAG(b, rand.New(rand.NewPCG(1, 2)), n)
		lookup := func(n catalog.NodeName) (*catalog.Step, error) { return byNode[n], nil }
		r := NewResolver()
		_, _ = r.Resolve(context.Background(), d, lookup)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				_, _ = r.Resolve(context.Background(), d, lookup)
			}
		})
	}
}
