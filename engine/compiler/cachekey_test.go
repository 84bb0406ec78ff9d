package compiler_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler"
)

// TestCachingOverFixedDataWarns: caching a pipeline whose loading steps
// read fixed S3 prefixes gives every cached step a key that never changes,
// so the compile warns, names them and says how to make the key follow the
// data; with the data's location in a pipeline parameter the loaders and
// every step downstream of them follow it, and the warning is gone.
func TestCachingOverFixedDataWarns(t *testing.T) {
	compile := func(per map[string]map[string]any) []string {
		t.Helper()
		res, err := compiler.Compile(context.Background(), compiler.Input{DAG: newDAG(transformNodes, transformEdges), Configs: configSetPer(t, transformNodes, per), BaseDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, w := range res.Warnings {
			if strings.HasPrefix(w, "caching is on") {
				out = append(out, w)
			}
		}
		return out
	}
	on := map[string]any{"enable_caching": true}
	per := map[string]map[string]any{}
	for _, n := range transformNodes {
		per[n] = on
	}
	w := compile(per)
	if len(w) != 1 || !strings.Contains(w[0], "DummyDataLoading-Training reads s3://example-bucket/raw/train/") ||
		!strings.Contains(w[0], "XGBoostTraining reads TabularPreprocessing-Training's processed_data, written to a fixed prefix") ||
		!strings.Contains(w[0], "{{Parameters.<name>}}") {
		t.Fatalf("warnings %q", w)
	}
	// the data's location in a parameter: the key follows it downstream
	params := []any{map[string]any{"name": "TrainData", "type": "String", "default_value": "s3://example-bucket/raw/train/"},
		map[string]any{"name": "CalibData", "type": "String", "default_value": "s3://example-bucket/raw/calibration/"}}
	for _, n := range transformNodes {
		per[n] = map[string]any{"enable_caching": true, "pipeline_parameters": params}
	}
	per["DummyDataLoading_training"] = map[string]any{"enable_caching": true, "pipeline_parameters": params, "data_source": "{{Parameters.TrainData}}"}
	per["DummyDataLoading_calibration"] = map[string]any{"enable_caching": true, "pipeline_parameters": params, "data_source": "{{Parameters.CalibData}}"}
	if w := compile(per); len(w) != 0 {
		t.Errorf("with the data in parameters: %q", w)
	}
	// caching off: nothing to say
	if w := compile(map[string]map[string]any{}); len(w) != 0 {
		t.Errorf("caching off: %q", w)
	}
}
