package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/awstest"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/tools"
)

// The SageMaker run loop end to end: compile.dag deploys simple-training to moto_server, then
// execution.start (an undeclared parameter refused by name first), describe, list and wait run
// against moto. moto 5 implements neither ListPipelineExecutionSteps nor StopPipelineExecution, so
// the recording server in front of moto answers those two itself, with responses shaped like the
// SageMaker API reference's; everything else reaches moto.
func TestExecutionToolsMoto(t *testing.T) {
	moto, _, _ := motoWithBucket(t, "example-bucket")
	rec := awstest.NewServer(t, moto.Endpoint)
	compileAWSEnv(t, rec.URL)
	ctx := context.Background()
	args := compileExampleArgs("simple-training")
	args["upsert"] = true
	name := tools.WantOK(t, tools.CallTool(t, ctx, "compile.dag", args))["pipeline_name"].(string)

	env := tools.CallTool(t, ctx, "execution.start", map[string]any{"pipeline_name": name, "parameters": map[string]any{"NoSuchParameter": "1"}})
	det := tools.WantFail(t, env, envelope.CodeInvalidInput)
	if !strings.Contains(env["error"].(string), "NoSuchParameter") || !strings.Contains(jsonText(t, det["unknown"]), "NoSuchParameter") ||
		!strings.Contains(jsonText(t, det["declared"]), "EXECUTION_S3_PREFIX") {
		t.Errorf("undeclared parameter answer %v", env)
	}
	if n := rec.Count("sagemaker:StartPipelineExecution"); n != 0 {
		t.Fatalf("StartPipelineExecution sent %d times for a refused parameter", n)
	}

	started := tools.WantOK(t, tools.CallTool(t, ctx, "execution.start", map[string]any{"pipeline_name": name,
		"parameters": map[string]any{"EXECUTION_S3_PREFIX": "s3://example-bucket/runs/1"}}))
	arn, _ := started["execution_arn"].(string)
	if !strings.Contains(arn, ":pipeline/"+name+"/execution/") || started["status"] != "Succeeded" || started["pipeline_name"] != name {
		t.Fatalf("execution.start %v", started)
	}
	desc := tools.WantOK(t, tools.CallTool(t, ctx, "execution.describe", map[string]any{"execution_arn": arn}))
	if desc["execution_arn"] != arn || desc["status"] != "Succeeded" || jsonText(t, desc["parameters"]) != `{"EXECUTION_S3_PREFIX":"s3://example-bucket/runs/1"}` {
		t.Errorf("execution.describe %v", desc)
	}
	list := tools.WantOK(t, tools.CallTool(t, ctx, "execution.list", map[string]any{"pipeline_name": name}))
	execs, _ := list["executions"].([]any)
	if list["count"] != float64(1) || len(execs) != 1 || execs[0].(map[string]any)["execution_arn"] != arn || execs[0].(map[string]any)["status"] != "Succeeded" {
		t.Errorf("execution.list %v", list)
	}
	waited := tools.WantOK(t, tools.CallTool(t, ctx, "execution.wait", map[string]any{"execution_arn": arn, "timeout_seconds": 3}))
	if waited["execution_arn"] != arn || waited["status"] != "Succeeded" || waited["timed_out"] != false || waited["polls"] != float64(1) {
		t.Errorf("execution.wait %v", waited)
	}

	rec.Handle("ListPipelineExecutionSteps", func(req map[string]any) (any, error) {
		if req["PipelineExecutionArn"] != arn {
			return nil, &awstest.APIError{Status: 400, Type: "ResourceNotFound", Message: "no such execution"}
		}
		return map[string]any{"PipelineExecutionSteps": []any{
			map[string]any{"StepName": "TabularPreprocessing-Training", "StepStatus": "Succeeded", "StartTime": 1717236000, "EndTime": 1717236300,
				"Metadata": map[string]any{"ProcessingJob": map[string]any{"Arn": "arn:aws:sagemaker:us-east-1:123456789012:processing-job/pipelines-abc-TabularPreprocess-x1"}}},
			map[string]any{"StepName": "XGBoostTraining", "StepStatus": "Failed", "FailureReason": "AlgorithmError: no label",
				"Metadata": map[string]any{"TrainingJob": map[string]any{"Arn": "arn:aws:sagemaker:us-east-1:123456789012:training-job/pipelines-abc-XGBoostTraining-y2"}}},
		}}, nil
	})
	steps := tools.WantOK(t, tools.CallTool(t, ctx, "execution.steps", map[string]any{"execution_arn": arn}))
	if steps["execution_arn"] != arn || steps["status"] != "Succeeded" || steps["step_count"] != float64(2) || jsonText(t, steps["failed_steps"]) != `["XGBoostTraining"]` {
		t.Errorf("execution.steps %v", steps)
	}
	train := steps["steps"].([]any)[1].(map[string]any)
	if jsonText(t, train["logs"]) != `{"log_group":"/aws/sagemaker/TrainingJobs","log_stream_prefix":"pipelines-abc-XGBoostTraining-y2/"}` ||
		train["failure_reason"] != "AlgorithmError: no label" || train["job_name"] != "pipelines-abc-XGBoostTraining-y2" {
		t.Errorf("failed step %v", train)
	}

	rec.Handle("StopPipelineExecution", func(req map[string]any) (any, error) {
		return map[string]any{"PipelineExecutionArn": req["PipelineExecutionArn"]}, nil
	})
	stopped := tools.WantOK(t, tools.CallTool(t, ctx, "execution.stop", map[string]any{"execution_arn": arn}))
	if stopped["execution_arn"] != arn || stopped["status"] != "Succeeded" || rec.Count("sagemaker:StopPipelineExecution") != 1 {
		t.Errorf("execution.stop %v (moto's execution had already succeeded)", stopped)
	}

	missing := strings.Replace(arn, "/execution/", "/execution/zz", 1)
	tools.WantFail(t, tools.CallTool(t, ctx, "execution.describe", map[string]any{"execution_arn": missing}), envelope.CodeNotFound, "execution.list")
	tools.WantFail(t, tools.CallTool(t, ctx, "execution.start", map[string]any{"pipeline_name": "no-such-pipeline"}), envelope.CodeNotFound)
}

// execution.wait on an execution that stays Executing gives up at timeout_seconds with
// timed_out: true and the last status, reporting progress at every poll (the AWS JSON server
// answers DescribePipelineExecution); a malformed ARN is refused before any AWS call; an AWS
// refusal is aws_error with the AWS code.
func TestExecutionWaitTimeoutAndErrors(t *testing.T) {
	srv := awstest.NewServer(t, "")
	srv.Handle("DescribePipelineExecution", func(req map[string]any) (any, error) {
		return map[string]any{"PipelineExecutionArn": req["PipelineExecutionArn"], "PipelineExecutionStatus": "Executing"}, nil
	})
	srv.Handle("StopPipelineExecution", func(map[string]any) (any, error) {
		return nil, &awstest.APIError{Status: 400, Type: "AccessDeniedException", Message: "not authorized to perform sagemaker:StopPipelineExecution"}
	})
	compileAWSEnv(t, srv.URL)
	const arn = "arn:aws:sagemaker:us-east-1:123456789012:pipeline/demo/execution/slow1"
	var mu sync.Mutex
	var reports []string
	var totals []float64
	ctx := registry.WithProgress(context.Background(), func(progress, total float64, message string) {
		mu.Lock()
		defer mu.Unlock()
		reports, totals = append(reports, message), append(totals, total)
	})
	data := tools.WantOK(t, tools.CallTool(t, ctx, "execution.wait", map[string]any{"execution_arn": arn, "timeout_seconds": 1}))
	if data["timed_out"] != true || data["status"] != "Executing" || data["execution_arn"] != arn || data["pipeline_name"] != "demo" {
		t.Errorf("execution.wait %v, want timed_out while Executing", data)
	}
	mu.Lock()
	if polls := int(data["polls"].(float64)); polls < 2 || len(reports) != polls || totals[0] != 1 || !strings.Contains(reports[0], "demo is Executing") {
		t.Errorf("%d polls, progress %v (totals %v)", polls, reports, totals)
	}
	mu.Unlock()

	n := len(srv.Calls())
	tools.WantFail(t, tools.CallTool(t, ctx, "execution.steps", map[string]any{"execution_arn": "not-an-arn"}), envelope.CodeInvalidInput)
	tools.WantFail(t, tools.CallTool(t, ctx, "execution.list", map[string]any{"pipeline_name": "bad_name!"}), envelope.CodeInvalidInput)
	tools.WantFail(t, tools.CallTool(t, ctx, "execution.start", map[string]any{"pipeline_name": "demo", "parameters": map[string]any{"X": []any{1}}}), envelope.CodeInvalidInput)
	if len(srv.Calls()) != n {
		t.Errorf("bad arguments reached AWS: %v", srv.Calls()[n:])
	}
	env := tools.CallTool(t, ctx, "execution.stop", map[string]any{"execution_arn": arn})
	det := tools.WantFail(t, env, envelope.CodeAWSError)
	if det["aws_error_code"] != "AccessDeniedException" || det["operation"] != "sagemaker:StopPipelineExecution" {
		t.Errorf("details %v", det)
	}
}

// The run loop is gated like compile.dag: every tool reaches the network; start and stop also
// change external state (destructive), the others only read.
func TestExecutionToolsGates(t *testing.T) {
	reg := cursus.Registry()
	for name, destructive := range map[string]bool{"execution.start": true, "execution.stop": true,
		"execution.describe": false, "execution.list": false, "execution.steps": false, "execution.wait": false} {
		td, ok := reg.Get(name)
		if !ok {
			t.Errorf("%s is not registered", name)
			continue
		}
		if !td.Network || td.Destructive != destructive || td.Writes || td.ExecCode {
			t.Errorf("%s: network %v destructive %v writes %v exec %v; want network, destructive %v", name, td.Network, td.Destructive, td.Writes, td.ExecCode, destructive)
		}
	}
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
