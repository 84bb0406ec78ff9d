package tools_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	sm "github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/awstest"
	"github.com/cursus-go/cursus/tools"
)

const (
	callsPipeline = "demo"
	callsARN      = "arn:aws:sagemaker:us-east-1:123456789012:pipeline/demo/execution/failed1"
)

// callsDefinition is a three-step chain: Prep -> Train -> Eval.
const callsDefinition = `{"Version": "2020-12-01", "Parameters": [{"Name": "Depth", "Type": "Integer", "DefaultValue": 6}], "Steps": [` +
	`{"Name": "Prep", "Type": "Processing", "Arguments": {}},` +
	`{"Name": "Train", "Type": "Training", "Arguments": {"InputDataConfig": [{"DataSource": {"S3DataSource": {"S3Uri": {"Get": "Steps.Prep.ProcessingOutputConfig.Outputs['data'].S3Output.S3Uri"}}}}]}},` +
	`{"Name": "Eval", "Type": "Processing", "Arguments": {}, "DependsOn": ["Train"]}]}`

// callsServer answers the SageMaker calls of an execution that failed at Train on a pipeline
// whose definition is def now and ran with ran, recording every call (no moto: these are the
// calls it does not implement, in the API reference's shapes).
func callsServer(t *testing.T, def, ran string, status string) *awstest.Server {
	srv := awstest.NewServer(t, "")
	srv.Handle("DescribePipeline", func(req map[string]any) (any, error) {
		if req["PipelineName"] != callsPipeline {
			return nil, &awstest.APIError{Status: 400, Type: "ResourceNotFound", Message: "Pipeline does not exist"}
		}
		return map[string]any{"PipelineArn": "arn:aws:sagemaker:us-east-1:123456789012:pipeline/demo", "PipelineName": "demo",
			"PipelineDefinition": def, "RoleArn": "arn:aws:iam::123456789012:role/R", "PipelineStatus": "Active"}, nil
	})
	srv.Handle("DescribePipelineDefinitionForExecution", func(map[string]any) (any, error) {
		return map[string]any{"PipelineDefinition": ran, "CreationTime": 1717243000}, nil
	})
	srv.Handle("DescribePipelineExecution", func(req map[string]any) (any, error) {
		st := status
		if req["PipelineExecutionArn"] != callsARN {
			st = "Executing"
		}
		return map[string]any{"PipelineExecutionArn": req["PipelineExecutionArn"], "PipelineArn": "arn:aws:sagemaker:us-east-1:123456789012:pipeline/demo",
			"PipelineExecutionStatus": st, "CreationTime": 1717243000}, nil
	})
	srv.Handle("ListPipelineParametersForExecution", func(req map[string]any) (any, error) {
		return map[string]any{"PipelineParameters": []any{map[string]any{"Name": "Depth", "Value": "8"}, map[string]any{"Name": "Gone", "Value": "x"}}}, nil
	})
	srv.Handle("ListPipelineExecutionSteps", func(req map[string]any) (any, error) {
		return map[string]any{"PipelineExecutionSteps": []any{
			recorded(t, "step-processing.json", map[string]string{"NAME": "Prep", "STATUS": "Succeeded", "JOB": "pipelines-failed1-Prep-x"}),
			recorded(t, "step-training-failed.json", map[string]string{"NAME": "Train", "JOB": "pipelines-failed1-Train-y", "REASON": "AlgorithmError: boom"}),
		}}, nil
	})
	srv.Handle("ListPipelineExecutions", func(map[string]any) (any, error) {
		return map[string]any{"PipelineExecutionSummaries": []any{map[string]any{"PipelineExecutionArn": callsARN, "PipelineExecutionStatus": status, "StartTime": 1717243000}}}, nil
	})
	srv.Handle("RetryPipelineExecution", func(req map[string]any) (any, error) {
		return recorded(t, "retry-pipeline-execution.json", map[string]string{"ARN": req["PipelineExecutionArn"].(string)}), nil
	})
	srv.Handle("StartPipelineExecution", func(map[string]any) (any, error) {
		return map[string]any{"PipelineExecutionArn": "arn:aws:sagemaker:us-east-1:123456789012:pipeline/demo/execution/new1"}, nil
	})
	compileAWSEnv(t, srv.URL)
	return srv
}

// execution.retry: RetryPipelineExecution when the definition is the one the execution ran (the
// request the SDK's serializer sends, the answer in the API reference's shape); refused for an
// execution that did not fail, before any retry is sent; mode retry on a changed definition warns
// that the change is not in it.
func TestExecutionRetryRequest(t *testing.T) {
	ctx := context.Background()
	srv := callsServer(t, callsDefinition, callsDefinition, "Failed")
	data := tools.WantOK(t, tools.CallTool(t, ctx, "execution.retry", map[string]any{"execution_arn": callsARN, "parallelism": 3}))
	if data["mode"] != "retry" || data["definition_changed"] != false || data["execution"].(map[string]any)["execution_arn"] != callsARN {
		t.Fatalf("execution.retry %v", data)
	}
	want := sdkRequest(t, "RetryPipelineExecution", &sm.RetryPipelineExecutionInput{PipelineExecutionArn: aws.String(callsARN),
		ParallelismConfiguration: &smtypes.ParallelismConfiguration{MaxParallelExecutionSteps: aws.Int32(3)}})
	got := srv.Requests("RetryPipelineExecution")
	if len(got) != 1 || !sameRequest(got[0], want) || len(got[0]["ClientRequestToken"].(string)) < 32 {
		t.Errorf("RetryPipelineExecution sent %v, want (the SDK's serializer) %v with a token of 32+ characters", got, want)
	}

	changed := strings.Replace(callsDefinition, `"DefaultValue": 6`, `"DefaultValue": 7`, 1)
	srv = callsServer(t, changed, callsDefinition, "Failed")
	env := tools.CallTool(t, ctx, "execution.retry", map[string]any{"execution_arn": callsARN, "mode": "retry"})
	if d := tools.WantOK(t, env); d["definition_changed"] != true || !strings.Contains(jsonText(t, env["warnings"]), "the change is not in it") {
		t.Errorf("mode retry on a changed definition: %v", env)
	}

	srv = callsServer(t, callsDefinition, callsDefinition, "Succeeded")
	tools.WantFail(t, tools.CallTool(t, ctx, "execution.retry", map[string]any{"execution_arn": callsARN}), envelope.CodeInvalidInput)
	if n := srv.Count("sagemaker:RetryPipelineExecution"); n != 0 {
		t.Errorf("a Succeeded execution was retried (%d)", n)
	}
}

// execution.retry's rerun: the failed step and the ones after it, on the current definition, from
// the failed execution, with its parameters that the definition still declares.
func TestExecutionRetryRerun(t *testing.T) {
	changed := strings.Replace(callsDefinition, `"DefaultValue": 6`, `"DefaultValue": 7`, 1)
	srv := callsServer(t, changed, callsDefinition, "Failed")
	env := tools.CallTool(t, context.Background(), "execution.retry", map[string]any{"execution_arn": callsARN})
	data := tools.WantOK(t, env)
	if data["mode"] != "rerun" || jsonText(t, data["selection"]) != `{"not_run":[],"reused":["Prep"],"source_execution_arn":"`+callsARN+`","steps":["Eval","Train"]}` ||
		!strings.Contains(jsonText(t, env["warnings"]), "parameter Gone of the failed execution is no longer declared") {
		t.Fatalf("execution.retry rerun %v", env)
	}
	want := sdkRequest(t, "StartPipelineExecution", &sm.StartPipelineExecutionInput{PipelineName: aws.String("demo"),
		PipelineExecutionDescription: aws.String("re-run of " + callsARN),
		PipelineParameters:           []smtypes.Parameter{{Name: aws.String("Depth"), Value: aws.String("8")}},
		SelectiveExecutionConfig: &smtypes.SelectiveExecutionConfig{SourcePipelineExecutionArn: aws.String(callsARN),
			SelectedSteps: []smtypes.SelectedStep{{StepName: aws.String("Eval")}, {StepName: aws.String("Train")}}}})
	if got := srv.Requests("StartPipelineExecution"); len(got) != 1 || !sameRequest(got[0], want) {
		t.Errorf("StartPipelineExecution sent %v, want %v", got, want)
	}
}

// execution.start's selective execution: the SDK's rules checked before anything starts (steps of
// the pipeline, every step between two selected ones, a source of this pipeline that ended and
// ran the steps read), the latest ended execution taken as the source by default.
func TestExecutionStartSelective(t *testing.T) {
	ctx := context.Background()
	srv := callsServer(t, callsDefinition, callsDefinition, "Failed")
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"steps": []string{"Tune"}}, "no step named Tune in the pipeline (its steps: Prep, Train, Eval)"},
		{map[string]any{"steps": []string{"Prep", "Eval"}}, "add Train"},
		{map[string]any{"steps": []string{"Train", "Train"}}, "steps named twice: Train"},
		{map[string]any{"steps": []string{"Train"}, "source_execution_arn": "arn:aws:sagemaker:us-east-1:123456789012:pipeline/other/execution/x"}, "it is an execution of other, not of demo"},
		{map[string]any{"steps": []string{"Train"}, "source_execution_arn": "arn:aws:sagemaker:us-east-1:123456789012:pipeline/demo/execution/running"}, "it is Executing"},
		{map[string]any{"steps": []string{"Eval"}}, "the selected steps read Train (Failed), which did not succeed there"},
		{map[string]any{"source_execution_arn": callsARN}, "give steps too"},
	} {
		args := map[string]any{"pipeline_name": callsPipeline}
		for k, v := range c.args {
			args[k] = v
		}
		env := tools.CallTool(t, ctx, "execution.start", args)
		tools.WantFail(t, env, envelope.CodeInvalidInput)
		if !strings.Contains(env["error"].(string), c.want) {
			t.Errorf("%v: error %q lacks %q", c.args, env["error"], c.want)
		}
	}
	if n := srv.Count("sagemaker:StartPipelineExecution"); n != 0 {
		t.Fatalf("StartPipelineExecution sent %d times for refused selections", n)
	}
	data := tools.WantOK(t, tools.CallTool(t, ctx, "execution.start", map[string]any{"pipeline_name": callsPipeline, "steps": []string{"Train"}}))
	if jsonText(t, data["selection"]) != `{"not_run":["Eval"],"reused":["Prep"],"source_execution_arn":"`+callsARN+`","steps":["Train"]}` {
		t.Errorf("selection %v", data["selection"])
	}
}

// Once StartPipelineExecution succeeded, execution.start answers the ARN whatever happens next:
// a failure to read the execution back is a warning, not an error (a retry would start a second
// execution).
func TestExecutionStartAnswersTheARN(t *testing.T) {
	srv := callsServer(t, callsDefinition, callsDefinition, "Failed")
	srv.Handle("DescribePipelineExecution", func(map[string]any) (any, error) {
		return nil, &awstest.APIError{Status: 400, Type: "ThrottlingException", Message: "Rate exceeded"}
	})
	env := tools.CallTool(t, context.Background(), "execution.start", map[string]any{"pipeline_name": callsPipeline})
	data := tools.WantOK(t, env)
	if data["execution_arn"] != "arn:aws:sagemaker:us-east-1:123456789012:pipeline/demo/execution/new1" || data["status"] != "Executing" ||
		!strings.Contains(jsonText(t, env["warnings"]), "ThrottlingException") || !strings.Contains(jsonText(t, env["warnings"]), "do not start it again") {
		t.Errorf("execution.start after a failed read-back: %v", env)
	}
}

// execution.logs reads a step's streams from CloudWatch Logs on moto: the tail shared among the
// job's two streams and paged back to the start, the head, a filter, a bad token; a step that
// runs no job and a job with no log yet say so.
func TestExecutionLogsMoto(t *testing.T) {
	moto := awstest.StartMoto(t)
	srv := callsServer(t, callsDefinition, callsDefinition, "Failed")
	srv.Handle("ListPipelineExecutionSteps", func(map[string]any) (any, error) {
		return map[string]any{"PipelineExecutionSteps": []any{
			recorded(t, "step-processing.json", map[string]string{"NAME": "Quiet", "STATUS": "Executing", "JOB": "pipelines-failed1-Quiet-q"}),
			map[string]any{"StepName": "Gate", "StepStatus": "Succeeded", "Metadata": map[string]any{"Condition": map[string]any{"Outcome": "True"}}},
			recorded(t, "step-training-failed.json", map[string]string{"NAME": "Train", "JOB": "pipelines-failed1-Train-y", "REASON": "AlgorithmError: boom"}),
		}}, nil
	})
	compileAWSEnv(t, moto.Endpoint)
	// STS, SageMaker: the handlers; CloudWatch Logs: moto.
	proxy := awstest.NewServer(t, moto.Endpoint)
	for _, op := range []string{"ListPipelineExecutionSteps", "DescribePipelineExecution"} {
		op := op
		proxy.Handle(op, func(req map[string]any) (any, error) { return awstest.Forward(srv.URL, op, req) })
	}
	compileAWSEnv(t, proxy.URL)
	var lines1, lines2 []string
	for i := 0; i < 30; i++ {
		lines1 = append(lines1, fmt.Sprintf("algo-1 line %02d", i))
		lines2 = append(lines2, fmt.Sprintf("algo-2 line %02d", i))
	}
	lines1[29] = strings.Repeat("x", 30000) // one huge line
	putLog(t, moto.Endpoint, "/aws/sagemaker/TrainingJobs", "pipelines-failed1-Train-y/algo-1-1717243200", lines1)
	putLog(t, moto.Endpoint, "/aws/sagemaker/TrainingJobs", "pipelines-failed1-Train-y/algo-2-1717243200", lines2)
	ctx := context.Background()

	var seen []string
	var mu sync.Mutex
	args := map[string]any{"execution_arn": callsARN, "lines": 20}
	for page := 0; ; page++ {
		env := tools.CallTool(t, ctx, "execution.logs", args)
		if b := len(jsonText(t, env)); b > 16<<10 {
			t.Errorf("page %d is %d bytes", page, b)
		}
		data := tools.WantOK(t, env)
		if data["step_name"] != "Train" || len(data["streams"].([]any)) != 2 {
			t.Fatalf("execution.logs %v", data)
		}
		mu.Lock()
		for _, l := range data["lines"].([]any) {
			seen = append(seen, l.(map[string]any)["message"].(string))
		}
		mu.Unlock()
		if page == 0 && (data["cut"] != true || !strings.Contains(jsonText(t, data["lines"]), "more characters]")) {
			t.Errorf("the huge line was not cut: %v", data["cut"])
		}
		tok, _ := data["next_token"].(string)
		if tok == "" {
			break
		}
		if page > 5 {
			t.Fatal("the tail does not end")
		}
		args["next_token"] = tok
	}
	if len(seen) != 60 {
		t.Errorf("paging the tail back saw %d lines, want all 60", len(seen))
	}
	head := tools.WantOK(t, tools.CallTool(t, ctx, "execution.logs", map[string]any{"execution_arn": callsARN, "step_name": "Train", "from_head": true, "lines": 4}))
	if jsonText(t, head["lines"].([]any)[0].(map[string]any)["message"]) != `"algo-1 line 00"` || len(head["lines"].([]any)) != 4 {
		t.Errorf("from_head %v", head["lines"])
	}
	filtered := tools.WantOK(t, tools.CallTool(t, ctx, "execution.logs", map[string]any{"execution_arn": callsARN, "filter": "\"line 07\""}))
	if n := len(filtered["lines"].([]any)); n != 2 {
		t.Errorf("filter matched %d lines, want 2: %v", n, filtered["lines"])
	}
	tools.WantFail(t, tools.CallTool(t, ctx, "execution.logs", map[string]any{"execution_arn": callsARN, "next_token": "bogus"}), envelope.CodeInvalidInput)
	tools.WantFail(t, tools.CallTool(t, ctx, "execution.logs", map[string]any{"execution_arn": callsARN, "step_name": "Nope"}), envelope.CodeNotFound, "execution.steps")
	gate := tools.WantOK(t, tools.CallTool(t, ctx, "execution.logs", map[string]any{"execution_arn": callsARN, "step_name": "Gate"}))
	if !strings.Contains(gate["note"].(string), "runs no job") {
		t.Errorf("a Condition step's log: %v", gate)
	}
	quiet := tools.WantOK(t, tools.CallTool(t, ctx, "execution.logs", map[string]any{"execution_arn": callsARN, "step_name": "Quiet"}))
	if !strings.Contains(quiet["note"].(string), "has not written a log") || quiet["log_group"] != "/aws/sagemaker/ProcessingJobs" {
		t.Errorf("a job without a log: %v", quiet)
	}
}

// Without an STS answer the account is not known: the call goes on, saying so.
func TestIdentityUnknownIsAWarning(t *testing.T) {
	srv := callsServer(t, callsDefinition, callsDefinition, "Failed")
	_ = srv
	env := tools.CallTool(t, context.Background(), "execution.describe", map[string]any{"execution_arn": callsARN})
	tools.WantOK(t, env)
	if jsonText(t, env["meta"].(map[string]any)["aws"]) != `{"account":"","region":"us-east-1"}` || !strings.Contains(jsonText(t, env["warnings"]), "the account is not known") {
		t.Errorf("no STS: %v", env)
	}
}
