package compiler_test

import (
	"testing"

	"github.com/cursus-go/cursus/engine/compiler"
)

// Outputs go under the execution id by default, as the SDK's processing outputs do, and at a fixed
// prefix with outputs_per_execution false; processing jobs take the SDK's defaults (a 30 GB
// volume, no StoppingCondition: SageMaker's one day), training jobs the SDK's one-day runtime.
func TestOutputsAndJobDefaults(t *testing.T) {
	nodes := []string{"DummyDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining"}
	edges := [][2]string{{"DummyDataLoading_training", "TabularPreprocessing_training"}, {"TabularPreprocessing_training", "XGBoostTraining"}}
	_, steps := mustCompileCase(t, nodes, edges, nil)
	tp := steps["TabularPreprocessing-Training"]
	eq(t, "output", at(t, tp, "Arguments", "ProcessingOutputConfig", "Outputs", "OutputName=processed_data", "S3Output", "S3Uri"),
		compiler.JoinOn("/", prefix, execID, "tabularpreprocessing", "training", "processed_data"))
	eq(t, "volume", at(t, tp, "Arguments", "ProcessingResources", "ClusterConfig", "VolumeSizeInGB"), 30)
	if sc, has := at(t, tp, "Arguments").(map[string]any)["StoppingCondition"]; has {
		t.Errorf("a processing job without max_runtime_seconds has StoppingCondition %v", sc)
	}
	eq(t, "training runtime", at(t, steps["XGBoostTraining"], "Arguments", "StoppingCondition", "MaxRuntimeInSeconds"), 86400)

	_, steps = mustCompileCase(t, nodes, edges, func(in *compiler.Input) {
		in.Configs = configSet(t, nodes, map[string]any{"outputs_per_execution": false, "max_runtime_seconds": 3600})
	})
	tp = steps["TabularPreprocessing-Training"]
	eq(t, "fixed output", at(t, tp, "Arguments", "ProcessingOutputConfig", "Outputs", "OutputName=processed_data", "S3Output", "S3Uri"),
		compiler.JoinOn("/", prefix, "tabularpreprocessing", "training", "processed_data"))
	eq(t, "processing runtime", at(t, tp, "Arguments", "StoppingCondition", "MaxRuntimeInSeconds"), 3600)
	eq(t, "training runtime", at(t, steps["XGBoostTraining"], "Arguments", "StoppingCondition", "MaxRuntimeInSeconds"), 3600)
}
