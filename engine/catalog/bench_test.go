package catalog

import "testing"

// BenchmarkLoadEmbedded parses, resolves and validates every embedded file
// (goal: under 5 ms).
func BenchmarkLoadEmbedded(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := loadEmbedded(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearch runs one query against the embedded catalog (goal: under
// 50 µs per query).
func BenchmarkSearch(b *testing.B) {
	c := mustDefault(b)
	for _, q := range []string{"xgb train", "preprocess", "xgbost traning", "XGBoostTraining"} {
		b.Run(q, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if len(c.Search(q)) == 0 {
					b.Fatal("no match")
				}
			}
		})
	}
}

// BenchmarkResolveNode maps a node name to its step type.
func BenchmarkResolveNode(b *testing.B) {
	c := mustDefault(b)
	for i := 0; i < b.N; i++ {
		if _, _, ok := c.ResolveNode("XGBoostModelEval_calibration"); !ok {
			b.Fatal("not resolved")
		}
	}
}

// BenchmarkForJobType fetches a precomputed variant view.
func BenchmarkForJobType(b *testing.B) {
	s := mustStep(b, mustDefault(b), "RiskTableMapping")
	for i := 0; i < b.N; i++ {
		if s.ForJobType("validation") == s {
			b.Fatal("no variant")
		}
	}
}

// BenchmarkLoadWorkspaceCached is Load with one workspace directory whose
// files did not change (the cache path: a directory listing and stat).
func BenchmarkLoadWorkspaceCached(b *testing.B) {
	dir := b.TempDir()
	writeFile(b, dir, "DedupRows.step.yaml", validExtraStep("DedupRows"))
	if _, err := Load(nil, dir); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Load(nil, dir); err != nil {
			b.Fatal(err)
		}
	}
}
