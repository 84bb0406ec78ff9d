package tools

import (
	"context"
	"testing"
)

// The per-call cost of the invoker on a cheap call, a small DAG and a big
// one: validation, decoding, the handler and the answer (marshalled once,
// as every front end does).

func BenchmarkCallDescribeTool(b *testing.B) {
	benchCall(b, "tools.describe_tool", []byte(`{"name":"catalog.search"}`))
}

func BenchmarkCallDAGConstruct(b *testing.B) {
	benchCall(b, "dag.construct", []byte(`{"dag":{"nodes":["TabularPreprocessing_training","XGBoostTraining","Package"],"edges":[["TabularPreprocessing_training","XGBoostTraining"],["XGBoostTraining","Package"]]}}`))
}

func benchCall(b *testing.B, name string, args []byte) {
	ctx := context.Background()
	r := Registry()
	for b.Loop() {
		res := r.Call(ctx, name, args)
		if !res.OK {
			b.Fatal(res.Error)
		}
	}
}
