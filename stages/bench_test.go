package stages

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkParse measures loading and validating the embedded stages.
func BenchmarkParse(b *testing.B) {
	for b.Loop() {
		if _, err := Parse(embedded); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInspect measures workflow.start_stage's inspection of a run
// that has its DAG and config (the costliest state: every check reads
// files, the config is loaded and resolved).
func BenchmarkInspect(b *testing.B) {
	s, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	r, err := CreateRun(nil, b.TempDir(), "bench", time.Now())
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range []string{DAGFile, ConfigFile} {
		data, err := os.ReadFile(filepath.Join(exampleDir, f))
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(r.Dir, f), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	for b.Loop() {
		st, err := s.Inspect(ctx, r)
		if err != nil || st.Next != "validate" {
			b.Fatalf("%v %v", st, err)
		}
	}
}
