package compiler_test

import (
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler"
)

// output_locations sends the outputs a user keeps where the user says:
// the transform's predictions under the given prefix (the execution id
// appended, or not with outputs_per_execution false), a processing
// output likewise; a misspelt output name or a location that is not S3 is
// refused, naming the field, instead of being ignored.
func TestOutputLocations(t *testing.T) {
	t.Parallel()
	execID := compiler.ExecutionVar("PipelineExecutionId")
	with := func(per map[string]map[string]any) func(*compiler.Input) {
		return func(in *compiler.Input) { in.Configs = configSetPer(t, transformNodes, per) }
	}
	_, steps := mustCompileCase(t, transformNodes, transformEdges, with(map[string]map[string]any{
		"BatchTransform_calibration":       {"output_locations": map[string]any{"transform_output": "s3://shop-ml/predictions/"}},
		"TabularPreprocessing_calibration": {"output_locations": map[string]any{"processed_data": "s3://shop-ml/clean"}, "outputs_per_execution": false},
	}))
	eq(t, "predictions", at(t, steps["BatchTransform-Calibration"], "Arguments", "TransformOutput", "S3OutputPath"),
		compiler.JoinOn("/", "s3://shop-ml/predictions", execID))
	outs := at(t, steps["TabularPreprocessing-Calibration"], "Arguments", "ProcessingOutputConfig", "Outputs").([]any)
	eq(t, "processed data", at(t, outs[0].(map[string]any), "S3Output", "S3Uri"), "s3://shop-ml/clean")

	for _, c := range []struct {
		loc  map[string]any
		want string
	}{
		{map[string]any{"predictions_out": "s3://shop-ml/p"}, `output_locations.predictions_out: BatchTransform has no output "predictions_out" (its outputs: transform_output)`},
		{map[string]any{"transform_output": "/tmp/p"}, `output_locations.transform_output must be an s3:// URI`},
	} {
		_, err := compileCase(t, transformNodes, transformEdges, with(map[string]map[string]any{"BatchTransform_calibration": {"output_locations": c.loc}}))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("output_locations %v: got %v, want an error containing %q", c.loc, err, c.want)
		}
	}
}
