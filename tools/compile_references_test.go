package tools_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/tools"
)

// The reference checks reach the tools as readiness blockers: compile.single_node of a registration
// whose model data is a folder answers deployable false with a prefix_for_object blocker (and the
// failed verdict), the same step given the archive is deployable.
func TestCompileSingleNodePrefixBlocker(t *testing.T) {
	args := func(uri string) map[string]any {
		return map[string]any{"config_file": compileExampleRoot + "/xgboost-end-to-end/config.json", "target_node": "Registration",
			"manual_inputs": map[string]any{"PackagedModel": uri, "GeneratedPayloadSamples": "s3://example-bucket/payload/payload.tar.gz"}}
	}
	env := tools.CallTool(t, context.Background(), "compile.single_node", args("s3://example-bucket/models/"))
	data := tools.WantOK(t, env)
	if data["deployable"] != false {
		t.Fatalf("a folder as model data is deployable: %v", data["blockers"])
	}
	var hit map[string]any
	for _, b := range data["blockers"].([]any) {
		if m := b.(map[string]any); m["kind"] == "prefix_for_object" {
			hit = m
		}
	}
	if hit == nil || !strings.HasSuffix(hit["path"].(string), "].Arguments.InferenceSpecification.Containers[0].ModelDataUrl") || !strings.Contains(hit["fix"].(string), "model.tar.gz") {
		t.Errorf("blockers %v, want prefix_for_object at the ModelDataUrl", data["blockers"])
	}
	if meta, _ := env["meta"].(map[string]any); meta["verdict"] != "fail" {
		t.Errorf("meta %v, want verdict fail", env["meta"])
	}
	if data := tools.WantOK(t, tools.CallTool(t, context.Background(), "compile.single_node", args("s3://example-bucket/models/model.tar.gz"))); data["deployable"] != true {
		t.Errorf("the archive itself is not deployable: %v", data["blockers"])
	}
}
