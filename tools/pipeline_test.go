package tools_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	sm "github.com/aws/aws-sdk-go-v2/service/sagemaker"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/awstest"
	"github.com/cursus-go/cursus/tools"
)

// The deployed pipelines on moto_server: listed, described (steps, parameters, registry groups,
// schedules; versions from the API reference's response shape, which moto lacks), the definition
// paged, scheduled on EventBridge Scheduler (created, updated, listed, deleted), diffed and
// deleted behind its confirmation.
func TestPipelineToolsMoto(t *testing.T) {
	moto, smc, _ := motoWithBucket(t, "example-bucket")
	rec := awstest.NewServer(t, moto.Endpoint)
	compileAWSEnv(t, rec.URL)
	ctx := context.Background()
	args := compileExampleArgs("xgboost-gated")

	diff := tools.WantOK(t, tools.CallTool(t, ctx, "pipeline.diff", args))
	if diff["action"] != "create" || diff["exists"] != false || len(diff["steps_added"].([]any)) < 5 || len(diff["uploads"].([]any)) == 0 {
		t.Fatalf("pipeline.diff before the deploy %v", diff)
	}
	if n := rec.Count("sagemaker:CreatePipeline"); n != 0 {
		t.Fatalf("pipeline.diff created the pipeline")
	}
	deploy := compileExampleArgs("xgboost-gated")
	deploy["upsert"] = true
	name := tools.WantOK(t, tools.CallTool(t, ctx, "compile.dag", deploy))["pipeline_name"].(string)
	if same := tools.WantOK(t, tools.CallTool(t, ctx, "pipeline.diff", args)); same["action"] != "none" || same["unchanged"] != true || len(same["uploads"].([]any)) != 0 || len(same["steps_changed"].([]any)) != 0 {
		t.Errorf("pipeline.diff after the deploy %v", same)
	}

	list := tools.WantOK(t, tools.CallTool(t, ctx, "pipeline.list", map[string]any{"name_prefix": "alice-"}))
	if list["count"] != float64(1) || list["pipelines"].([]any)[0].(map[string]any)["pipeline_name"] != name {
		t.Errorf("pipeline.list %v", list)
	}

	var versionsBody map[string]any
	rec.Handle("ListPipelineVersions", func(req map[string]any) (any, error) {
		versionsBody = req
		return recorded(t, "list-pipeline-versions.json", map[string]string{"PIPELINE_ARN": "arn:aws:sagemaker:us-east-1:123456789012:pipeline/" + name, "NAME": name,
			"ARN": "arn:aws:sagemaker:us-east-1:123456789012:pipeline/" + name + "/execution/abc"}), nil
	})
	desc := tools.WantOK(t, tools.CallTool(t, ctx, "pipeline.describe", map[string]any{"pipeline_name": name}))
	text := jsonText(t, desc)
	for _, want := range []string{`"model_package_groups":["Gated-xgboost-NA"]`, `"name":"ModelQualityGate","type":"Condition"`, `"version_id":2`, `"name":"AucThreshold"`, `"role_arn":"arn:aws:iam::123456789012:role/SageMakerExecutionRole"`} {
		if !strings.Contains(text, want) {
			t.Errorf("pipeline.describe lacks %s: %s", want, text)
		}
	}
	if versionsBody["PipelineName"] != name || versionsBody["SortOrder"] != "Descending" {
		t.Errorf("ListPipelineVersions request %v", versionsBody)
	}
	def := tools.WantOK(t, tools.CallTool(t, ctx, "pipeline.describe", map[string]any{"pipeline_name": name, "show": "definition"}))
	page := def["definition"].(string)
	if total := int(def["definition_bytes"].(float64)); total <= len(page) || def["next_offset"] != float64(len(page)) {
		t.Fatalf("definition page: %d bytes of %d, next_offset %v", len(page), total, def["next_offset"])
	}
	rest := tools.WantOK(t, tools.CallTool(t, ctx, "pipeline.describe", map[string]any{"pipeline_name": name, "show": "definition", "offset": len(page)}))
	whole := page + rest["definition"].(string)
	for rest["next_offset"] != nil {
		rest = tools.WantOK(t, tools.CallTool(t, ctx, "pipeline.describe", map[string]any{"pipeline_name": name, "show": "definition", "offset": rest["next_offset"]}))
		whole += rest["definition"].(string)
	}
	stored, err := smc.DescribePipeline(ctx, &sm.DescribePipelineInput{PipelineName: aws.String(name)})
	if err != nil || whole != aws.ToString(stored.PipelineDefinition) {
		t.Errorf("the pages do not make the stored definition (%d bytes vs %d)", len(whole), len(aws.ToString(stored.PipelineDefinition)))
	}

	// Schedules: AucThreshold has a default, so none is missing.
	tools.WantFail(t, tools.CallTool(t, ctx, "pipeline.schedule", map[string]any{"pipeline_name": name, "action": "create", "expression": "every day"}), envelope.CodeInvalidInput)
	tools.WantFail(t, tools.CallTool(t, ctx, "pipeline.schedule", map[string]any{"pipeline_name": name, "action": "create", "expression": "rate(1 day)", "parameters": map[string]any{"Nope": 1}}), envelope.CodeInvalidInput)
	created := tools.WantOK(t, tools.CallTool(t, ctx, "pipeline.schedule", map[string]any{"pipeline_name": name, "action": "create", "expression": "cron(0 3 * * ? *)",
		"parameters": map[string]any{"AucThreshold": 0.8}}))
	s := created["schedule"].(map[string]any)
	if created["created"] != true || s["name"] != name || s["expression"] != "cron(0 3 * * ? *)" || s["state"] != "ENABLED" || s["target_arn"] != created["pipeline_arn"] ||
		jsonText(t, s["parameters"]) != `{"AucThreshold":"0.8"}` || s["role_arn"] != "arn:aws:iam::123456789012:role/SageMakerExecutionRole" {
		t.Fatalf("pipeline.schedule create %v", created)
	}
	updated := tools.WantOK(t, tools.CallTool(t, ctx, "pipeline.schedule", map[string]any{"pipeline_name": name, "action": "create", "expression": "rate(12 hours)", "disabled": true}))
	if updated["created"] == true || updated["schedule"].(map[string]any)["expression"] != "rate(12 hours)" || updated["schedule"].(map[string]any)["state"] != "DISABLED" {
		t.Errorf("pipeline.schedule update %v", updated)
	}
	listed := tools.WantOK(t, tools.CallTool(t, ctx, "pipeline.schedule", map[string]any{"pipeline_name": name, "action": "list"}))
	if len(listed["schedules"].([]any)) != 1 {
		t.Errorf("pipeline.schedule list %v", listed)
	}
	if d := tools.WantOK(t, tools.CallTool(t, ctx, "pipeline.describe", map[string]any{"pipeline_name": name})); len(d["schedules"].([]any)) != 1 {
		t.Errorf("pipeline.describe lists no schedule: %v", d["schedules"])
	}

	// Delete: the confirmation guards it; the schedule left behind is named.
	tools.WantFail(t, tools.CallTool(t, ctx, "pipeline.delete", map[string]any{"pipeline_name": name, "confirm": "something-else"}), envelope.CodeInvalidInput)
	if rec.Count("sagemaker:DeletePipeline") != 0 {
		t.Fatal("DeletePipeline sent without the confirmation")
	}
	del := tools.CallTool(t, ctx, "pipeline.delete", map[string]any{"pipeline_name": name, "confirm": name})
	if data := tools.WantOK(t, del); data["deleted"] != true || len(data["schedules"].([]any)) != 1 || !strings.Contains(jsonText(t, del["warnings"]), "still start the deleted pipeline") {
		t.Errorf("pipeline.delete %v", del)
	}
	tools.WantFail(t, tools.CallTool(t, ctx, "pipeline.schedule", map[string]any{"pipeline_name": "no-such-pipeline", "action": "list"}), envelope.CodeNotFound)
}
