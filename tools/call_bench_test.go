package tools

import (
	"context"
	"testing"
)

// The per-call cost of the invoker on a small DAG (the big one:
// BenchmarkDAGValidateIntegrity10000; a cheap call: the cursus package's
// BenchmarkCallDescribeTool): validation, decoding, the handler and the
// answer, encoded once.

func BenchmarkCallDAGConstruct(b *testing.B) {
	benchCall(b, "dag.construct", []byte(`{"dag":{"nodes":["TabularPreprocessing_training","XGBoostTraining","Package"],"edges":[["TabularPreprocessing_training","XGBoostTraining"],["XGBoostTraining","Package"]]}}`))
}

func benchCall(b *testing.B, name string, args []byte) {
	ctx := context.Background()
	r := testRegistry()
	for b.Loop() {
		res := r.Call(ctx, name, args)
		if !res.OK {
			b.Fatal(res.Error)
		}
	}
}
