package tools_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	sm "github.com/aws/aws-sdk-go-v2/service/sagemaker"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/pipelines"
	"github.com/cursus-go/cursus/engine/pipelines/pipelinestest"
	"github.com/cursus-go/cursus/engine/sagemaker/smclient"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/tools"
)

// wantKinds are the SageMaker step types the pipeline catalog compiles:
// the test fails when a kind has no catalog DAG that reaches moto_server.
var wantKinds = []string{
	"Processing", "Training", "Tuning", "Model", "RegisterModel", "Transform", "Condition", "Fail",
	"Lambda", "Callback", "QualityCheck", "ClarifyCheck", "EMR",
}

// kindsDAG has a step of each kind no catalog DAG uses (Lambda, Callback,
// the quality and Clarify checks, EMR) and the steps they read from.
var kindsDAG = map[string]any{
	"nodes": []any{"DummyDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining", "XGBoostModel",
		"DummyDataLoading_calibration", "TabularPreprocessing_calibration", "XGBoostModelEval_calibration",
		"DataQualityCheck", "ModelQualityCheck", "DataBiasCheck", "ModelBiasCheck", "ModelExplainabilityCheck",
		"LambdaInvocation", "ExternalCallback", "EMRJob"},
	"edges": []any{
		[]any{"DummyDataLoading_training", "TabularPreprocessing_training"}, []any{"TabularPreprocessing_training", "XGBoostTraining"},
		[]any{"XGBoostTraining", "XGBoostModel"}, []any{"DummyDataLoading_calibration", "TabularPreprocessing_calibration"},
		[]any{"XGBoostTraining", "XGBoostModelEval_calibration"}, []any{"TabularPreprocessing_calibration", "XGBoostModelEval_calibration"},
		[]any{"TabularPreprocessing_training", "DataQualityCheck"}, []any{"XGBoostModelEval_calibration", "ModelQualityCheck"},
		[]any{"TabularPreprocessing_training", "DataBiasCheck"},
		[]any{"XGBoostModel", "ModelBiasCheck"}, []any{"TabularPreprocessing_calibration", "ModelBiasCheck"},
		[]any{"XGBoostModel", "ModelExplainabilityCheck"}, []any{"TabularPreprocessing_calibration", "ModelExplainabilityCheck"},
		[]any{"TabularPreprocessing_training", "LambdaInvocation"}, []any{"LambdaInvocation", "ExternalCallback"}, []any{"ExternalCallback", "EMRJob"},
	},
}

// TestEveryStepKindUpsertsToMoto: for each SageMaker step type the catalog
// compiles, the first catalog DAG that has it (or kindsDAG, for the kinds
// no catalog DAG uses) is configured, compiled and
// upserted with compile.dag to moto_server (code uploaded to its S3, the
// pipeline created), and the definition read back is the one
// compile.definition returns. So every step kind, the newer ones (Lambda,
// Callback, the check steps, EMR) included, goes through the same request
// the SDK would send, not only through the schema.
func TestEveryStepKindUpsertsToMoto(t *testing.T) {
	moto, smc, _ := motoWithBucket(t, "example-bucket")
	compileAWSEnv(t, moto.Endpoint)
	schema, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := pipelines.Default()
	dags := map[string]map[string]any{"step-kinds": kindsDAG}
	ids := append(cat.IDs(), "step-kinds")
	covered := map[string]string{} // step type -> the DAG that brought it
	for _, id := range ids {
		root := t.TempDir()
		ctx := registry.WithPolicy(context.Background(), registry.Policy{AllowDestructive: true, ProjectRoot: root})
		dagArg, ok := dags[id]
		if !ok {
			d := tools.WantOK(t, tools.CallTool(t, ctx, "pipeline_catalog.load_dag", map[string]any{"dag_id": id}))
			dagArg = map[string]any{"nodes": d["nodes"], "edges": d["edges"]}
		}
		var names []catalog.NodeName
		for _, n := range dagArg["nodes"].([]any) {
			names = append(names, catalog.NodeName(n.(string)))
		}
		values, err := pipelinestest.Fill(schema, names)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		tools.WantOK(t, tools.CallTool(t, ctx, "config.merge_save", map[string]any{"dag": dagArg, "base": values.Base, "steps": values.Steps, "output_file": "config.json"}))
		args := map[string]any{"dag": dagArg, "config_file": filepath.Join(root, "config.json"), "pipeline_name": strings.ReplaceAll(id, "_", "-")}
		def := tools.WantOK(t, tools.CallTool(t, ctx, "compile.definition", args))["definition"].(map[string]any)
		var fresh []string
		for _, k := range stepTypes(def["Steps"].([]any)) {
			if _, ok := covered[k]; !ok {
				covered[k] = id
				fresh = append(fresh, k)
			}
		}
		if len(fresh) == 0 {
			continue
		}
		t.Logf("%s brings %v", id, fresh)
		args["upsert"] = true
		up := tools.WantOK(t, tools.CallTool(t, ctx, "compile.dag", args))
		if up["created"] != true {
			t.Fatalf("%s: compile.dag did not create the pipeline: %v", id, up)
		}
		got, err := smc.DescribePipeline(ctx, &sm.DescribePipelineInput{PipelineName: aws.String(args["pipeline_name"].(string))})
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		want, _ := json.Marshal(def)
		if !smclient.JSONEqual(aws.ToString(got.PipelineDefinition), string(want)) {
			t.Errorf("%s: the definition read back differs from the one compiled", id)
		}
	}
	var missing []string
	for _, k := range wantKinds {
		if _, ok := covered[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		t.Errorf("no catalog DAG reached moto with the step types %v (covered: %v)", missing, covered)
	}
}

// stepTypes lists the step types of a definition's steps, those a
// Condition's branches nest included, sorted and without repeats.
func stepTypes(steps []any) []string {
	seen := map[string]bool{}
	var walk func([]any)
	walk = func(steps []any) {
		for _, s := range steps {
			m := s.(map[string]any)
			seen[m["Type"].(string)] = true
			if m["Type"] == "Condition" {
				a := m["Arguments"].(map[string]any)
				for _, k := range []string{"IfSteps", "ElseSteps"} {
					if b, ok := a[k].([]any); ok {
						walk(b)
					}
				}
			}
		}
	}
	walk(steps)
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
