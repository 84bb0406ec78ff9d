// Command go-api shows the Cursus Go API end to end: find a shared DAG in
// the pipeline catalog, check it, and compile an example pipeline into a
// SageMaker definition, reading every result from the tool envelope.
//
// Run it from the repository root:
//
//	go run ./examples/go-api
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/tools"
)

func main() {
	ctx := context.Background()

	// 1. Ask the pipeline catalog for a DAG that fits the need. A converted
	// tool's data comes typed: cursus.Call names its Go type.
	recs := must(cursus.Call[tools.PipelineCatalogRecommendData](ctx, "pipeline_catalog.recommend",
		map[string]any{"framework": "xgboost", "data_source": "s3", "need": "calibration and registration"}))
	top := recs.Recommendations[0]
	fmt.Printf("recommended DAG: %s (score %.2f)\n", top.DagID, top.Score)

	// 2. Load it and check its integrity.
	dag := must(cursus.Call[tools.PipelineCatalogLoadDAGData](ctx, "pipeline_catalog.load_dag", map[string]any{"dag_id": top.DagID}))
	integrity := must(cursus.Call[tools.DagValidateIntegrityData](ctx, "dag.validate_integrity",
		map[string]any{"dag": map[string]any{"nodes": dag.Nodes, "edges": dag.Edges}}))
	fmt.Printf("%d nodes, %d edges, valid: %v\n", dag.NodeCount, dag.EdgeCount, integrity.IsValid)

	// 3. Compile the shipped end-to-end example (same shape, with a config).
	res := call(ctx, "compile.definition", map[string]any{
		"dag_file":    "examples/xgboost-end-to-end/dag.json",
		"config_file": "examples/xgboost-end-to-end/config.json",
	})
	var out struct {
		PipelineName string `json:"pipeline_name"`
		Definition   struct {
			Steps []struct {
				Name string `json:"Name"`
				Type string `json:"Type"`
			} `json:"Steps"`
		} `json:"definition"`
		Manifest []struct {
			S3URI string `json:"s3_uri"`
		} `json:"upload_manifest"`
	}
	decode(res, &out)
	fmt.Printf("pipeline %s: %d steps, %d files to upload\n", out.PipelineName, len(out.Definition.Steps), len(out.Manifest))
	for _, s := range out.Definition.Steps {
		fmt.Printf("  %-32s %s\n", s.Name, s.Type)
	}
}

// must returns a typed call's data, or exits with its error and remedy.
func must[Out any](data Out, res *envelope.ToolResult, err error) Out {
	if err != nil {
		slog.Error("tool failed", "tool", res.Meta["tool"], "code", res.Code, "error", err, "remedy", res.Remedy)
		os.Exit(1)
	}
	return data
}

// call runs one tool and exits with its error and remedy when it fails.
func call(ctx context.Context, tool string, args map[string]any) *envelope.ToolResult {
	res := cursus.CallTool(ctx, tool, args)
	if !res.OK {
		slog.Error("tool failed", "tool", tool, "code", res.Code, "error", res.Error, "remedy", res.Remedy)
		os.Exit(1)
	}
	return res
}

// decode copies a result's data into v through JSON.
func decode(res *envelope.ToolResult, v any) {
	b, err := json.Marshal(res.Data)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		slog.Error("unexpected result shape", "tool", res.Meta["tool"], "error", err)
		os.Exit(1)
	}
}
