package compiler_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/dag"
)

// BenchmarkCompileExample compiles each example from its files (config
// loading, resolution, build and JSON encoding included).
func BenchmarkCompileExample(b *testing.B) {
	for _, dir := range exampleDirs(b) {
		d, _, err := dag.ReadFile(nil, filepath.Join(dir, "dag.json"))
		if err != nil {
			b.Fatal(err)
		}
		in := compiler.Input{DAG: d, ConfigFile: filepath.Join(dir, "config.json")}
		b.Run(filepath.Base(dir), func(b *testing.B) {
			for b.Loop() {
				res, err := compiler.Compile(context.Background(), in)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := res.JSON(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// synthetic builds a DAG of n nodes: n/3 chains DummyDataLoading ->
// TabularPreprocessing -> XGBoostTraining, each chain with its own job
// type (so every node has its own config and step name), plus its configs.
func synthetic(tb testing.TB, n int) (*dag.PipelineDAG, *config.Set) {
	tb.Helper()
	schema, err := config.Default()
	if err != nil {
		tb.Fatal(err)
	}
	var nodes []catalog.NodeName
	var edges []dag.Edge
	var cs []*config.Config
	add := func(class, step, jt string, vals map[string]any) catalog.NodeName {
		key := step + "_" + jt
		v := baseValues()
		v["source_dir"] = "scripts"
		v["job_type"] = jt
		for k, x := range vals {
			v[k] = x
		}
		c, err := schema.NewConfig(class, catalog.ConfigKey(key), v)
		if err != nil {
			tb.Fatal(err)
		}
		cs = append(cs, c)
		nodes = append(nodes, catalog.NodeName(key))
		return catalog.NodeName(key)
	}
	for g := 0; len(nodes) < n; g++ {
		jt := fmt.Sprintf("g%05d", g)
		a := add("DummyDataLoadingConfig", "DummyDataLoading", jt, map[string]any{"data_source": "s3://example-bucket/raw/" + jt + "/"})
		if len(nodes) == n {
			break
		}
		p := add("TabularPreprocessingConfig", "TabularPreprocessing", jt, map[string]any{"label_name": "y"})
		edges = append(edges, dag.Edge{From: a, To: p})
		if len(nodes) == n {
			break
		}
		t := add("XGBoostTrainingConfig", "XGBoostTraining", jt, xgbHyperparameters(map[string]any{"num_round": 10}))
		edges = append(edges, dag.Edge{From: p, To: t})
	}
	set, err := config.NewSet(cs...)
	if err != nil {
		tb.Fatal(err)
	}
	return dag.New(nodes, edges), set
}

// BenchmarkCompileSynthetic compiles synthetic DAGs of 100, 1,000, 3,000
// (dag.MaxNodes) and 5,000 nodes with in-memory configs (goal: linear, < 100 ms at 1,000).
func BenchmarkCompileSynthetic(b *testing.B) {
	base := filepath.Join(examplesDir, "simple-training")
	for _, n := range []int{100, 1000, 3000, 5000} {
		d, set := synthetic(b, n)
		in := compiler.Input{DAG: d, Configs: set, BaseDir: base}
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			for b.Loop() {
				res, err := compiler.Compile(context.Background(), in)
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Definition.Steps) != n {
					b.Fatalf("%d steps", len(res.Definition.Steps))
				}
				if _, err := res.JSON(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The synthetic DAG compiles to a valid definition (so the benchmark
// measures real work).
func TestSyntheticDAG(t *testing.T) {
	d, set := synthetic(t, 100)
	res, err := compiler.Compile(context.Background(), compiler.Input{DAG: d, Configs: set, BaseDir: filepath.Join(examplesDir, "simple-training"), PipelineName: "synthetic-100"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Definition.Steps) != 100 || len(res.Manifest) != 4 || len(res.Warnings) != 0 || !res.Deployable() {
		t.Fatalf("%d steps, manifest %d, warnings %v, blockers %v", len(res.Definition.Steps), len(res.Manifest), res.Warnings, res.Blockers)
	}
	b, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	checkDefinition(t, "synthetic-100", b)
}

// The compile's one encoding, which Result.JSON returns, is the encoding
// of the definition it returns (the examples and a synthetic DAG).
func TestResultJSONIsTheDefinition(t *testing.T) {
	var results []*compiler.Result
	for _, dir := range exampleDirs(t) {
		d, _, err := dag.ReadFile(nil, filepath.Join(dir, "dag.json"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := compiler.Compile(context.Background(), compiler.Input{DAG: d, ConfigFile: filepath.Join(dir, "config.json")})
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		results = append(results, res)
	}
	d, set := synthetic(t, 30)
	res, err := compiler.Compile(context.Background(), compiler.Input{DAG: d, Configs: set, BaseDir: filepath.Join(examplesDir, "simple-training")})
	if err != nil {
		t.Fatal(err)
	}
	results = append(results, res)
	for _, res := range results {
		got, err := res.JSON()
		if err != nil {
			t.Fatal(err)
		}
		want, err := res.Definition.Marshal(false)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s: Result.JSON is not the definition's encoding", res.PipelineName)
		}
	}
}
