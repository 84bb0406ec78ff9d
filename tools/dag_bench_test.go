package tools

import (
	"context"
	"fmt"
	"testing"

	"github.com/cursus-go/cursus/engine/dag"
)

// benchDAGArgs is a layered synthetic DAG of n nodes (width 10, up to two
// parents each) named like real nodes of the catalog, so the missing_steps
// check runs against the catalog for every node.
func benchDAGArgs(n int) map[string]any {
	kinds := []string{"TabularPreprocessing_training", "XGBoostTraining", "RiskTableMapping_calibration", "Package"}
	nodes := make([]any, n)
	for i := range nodes {
		nodes[i] = fmt.Sprintf("%s%05d", kinds[i%len(kinds)], i)
	}
	var edges []any
	for i := 10; i < n; i++ {
		edges = append(edges, []any{nodes[i-10], nodes[i]})
		if i%10 != 0 {
			edges = append(edges, []any{nodes[i-11], nodes[i]})
		}
	}
	return map[string]any{"dag": map[string]any{"nodes": nodes, "edges": edges}}
}

// BenchmarkDAGValidateIntegrityMax: the largest DAG the tools accept.
func BenchmarkDAGValidateIntegrityMax(b *testing.B) {
	args := benchDAGArgs(dag.MaxNodes)
	ctx := context.Background()
	for b.Loop() {
		if res := testRegistry().Call(ctx, "dag.validate_integrity", args); !res.OK {
			b.Fatal(res.Error)
		}
	}
}

func BenchmarkValidateDepsExplain(b *testing.B) {
	ctx := context.Background()
	b.Run("names", func(b *testing.B) {
		args := map[string]any{"name1": "model_input", "name2": "model_output"}
		for b.Loop() {
			if res := testRegistry().Call(ctx, "validate.deps_explain", args); !res.OK {
				b.Fatal(res.Error)
			}
		}
	})
	b.Run("ports", func(b *testing.B) {
		args := map[string]any{"name1": "input_path", "name2": "processed_data", "consumer_step": "XGBoostTraining", "provider_step": "TabularPreprocessing_training"}
		for b.Loop() {
			if res := testRegistry().Call(ctx, "validate.deps_explain", args); !res.OK {
				b.Fatal(res.Error)
			}
		}
	})
}

// BenchmarkDAGRenderMax: the largest DAG the tools accept.
func BenchmarkDAGRenderMax(b *testing.B) {
	args := benchDAGArgs(dag.MaxNodes)
	ctx := context.Background()
	for b.Loop() {
		if res := testRegistry().Call(ctx, "dag.render", args); !res.OK {
			b.Fatal(res.Error)
		}
	}
}
