package workflow

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkEngineRunToStop measures the engine's own cost of a run (run
// folder, state writes around every call, artifacts, a report) with tools
// that answer at once: the three-phase test workflow up to its stop.
func BenchmarkEngineRunToStop(b *testing.B) {
	root := b.TempDir()
	w := testFlow()
	ft := &fakeTools{}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		res, err := Start(context.Background(), w, map[string]any{"label": "x"}, Options{Root: root, Caller: ft})
		if err != nil || res.Status != StatusStopped {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkEngineResumeVerify measures a resume of a stopped run: reading
// the state, re-hashing the passed phase's artifacts, re-running the stopped
// gate and the last phase.
func BenchmarkEngineResumeVerify(b *testing.B) {
	root := b.TempDir()
	w := testFlow()
	ft := &fakeTools{}
	opts := Options{Root: root, Caller: ft, Workflows: []*Workflow{w}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		res, err := Start(context.Background(), w, map[string]any{"label": "x"}, opts)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(RunDir(root, res.RunID), "answer.txt"), []byte("1"), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err = Resume(context.Background(), res.RunID, opts)
		if err != nil || res.Status != StatusDone {
			b.Fatal(res, err)
		}
	}
}

func BenchmarkDescribeAll(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, w := range List() {
			_ = w.Describe()
		}
	}
}
