package localrun

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/dag"
)

// BenchmarkRunLocalXGBoost runs the xgboost-end-to-end example locally,
// as execution.run_local does after compiling it, on the sample data it
// ships. Per run it reports each step's time (s/<step>), the jobs' total
// (job-s) and the runner's own overhead (overhead-s: the run's time minus
// its jobs').
func BenchmarkRunLocalXGBoost(b *testing.B) {
	needLibraries(b, "pandas", "sklearn", "xgboost")
	needSandbox(b, Bubblewrap)
	root, err := filepath.Abs("../../examples/xgboost-end-to-end")
	if err != nil {
		b.Fatal(err)
	}
	d, _, err := dag.ReadFile(nil, filepath.Join(root, "dag.json"))
	if err != nil {
		b.Fatal(err)
	}
	res, err := compiler.Compile(context.Background(), compiler.Input{DAG: d, ConfigFile: filepath.Join(root, "config.json")})
	if err != nil {
		b.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "local-data.json"))
	if err != nil {
		b.Fatal(err)
	}
	data := map[string]string{}
	if err := json.Unmarshal(raw, &data); err != nil {
		b.Fatal(err)
	}
	repo := filepath.Dir(filepath.Dir(root))
	for k, v := range data {
		data[k] = filepath.Join(repo, v)
	}
	work := b.TempDir()
	steps := map[string]float64{}
	var job, overhead float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := Run(context.Background(), res, Options{WorkDir: work, Data: data})
		if err != nil {
			b.Fatal(err)
		}
		if !rep.Succeeded {
			b.Fatalf("the run failed: %+v", rep.Failed)
		}
		for _, s := range rep.Steps {
			steps[s.Name] += s.DurationSeconds
		}
		job += rep.JobSeconds
		overhead += rep.OverheadSeconds
	}
	n := float64(b.N)
	for name, sec := range steps {
		b.ReportMetric(sec/n, "s/"+name)
	}
	b.ReportMetric(job/n, "job-s")
	b.ReportMetric(overhead/n, "overhead-s")
}
