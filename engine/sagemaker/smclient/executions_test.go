package smclient

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/internal/awstest"
)

// paramDefinition declares one parameter of each type.
const paramDefinition = `{"Version": "2020-12-01", "Parameters": [` +
	`{"Name": "EXECUTION_S3_PREFIX", "Type": "String", "DefaultValue": "s3://bucket/runs"},` +
	`{"Name": "MaxDepth", "Type": "Integer", "DefaultValue": 6}, {"Name": "Ratio", "Type": "Float", "DefaultValue": 0.5},` +
	`{"Name": "UseGPU", "Type": "Boolean", "DefaultValue": false}, {"Name": "Untyped"}],` +
	` "Steps": [{"Name": "Train", "Type": "Training", "Arguments": {}}]}`

func TestCheckParameters(t *testing.T) {
	declared, err := DeclaredParameters(paramDefinition)
	if err != nil {
		t.Fatal(err)
	}
	if len(declared) != 5 || declared[1] != (Parameter{Name: "MaxDepth", Type: "Integer", DefaultValue: float64(6)}) || declared[4].Type != "String" {
		t.Fatalf("declared = %+v", declared)
	}
	if err := CheckParameters(declared, map[string]string{"MaxDepth": "8", "Ratio": "1e-3", "UseGPU": "true", "Untyped": "x", "EXECUTION_S3_PREFIX": "s3://b/p"}); err != nil {
		t.Errorf("good values refused: %v", err)
	}
	err = CheckParameters(declared, map[string]string{"NoSuch": "1", "AlsoMissing": "", "MaxDepth": "8.5", "Ratio": "abc", "UseGPU": "yes"})
	var pe *ParameterError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want *ParameterError", err)
	}
	if !slices.Equal(pe.Unknown, []string{"AlsoMissing", "NoSuch"}) || len(pe.Invalid) != 3 || !slices.Contains(pe.Declared, "MaxDepth") {
		t.Errorf("ParameterError = %+v", pe)
	}
	for _, want := range []string{"AlsoMissing, NoSuch", "MaxDepth", "Integer", "Ratio", "UseGPU"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if _, err := DeclaredParameters("not json"); err == nil {
		t.Error("a non-JSON definition gave parameters")
	}
}

func TestExecutionARNs(t *testing.T) {
	arn := "arn:aws:sagemaker:us-east-1:123456789012:pipeline/my-pipe/execution/abc123"
	if PipelineNameOfExecution(arn) != "my-pipe" || ValidateExecutionARN(arn) != nil {
		t.Errorf("%s: name %q, err %v", arn, PipelineNameOfExecution(arn), ValidateExecutionARN(arn))
	}
	for _, bad := range []string{"", "my-pipe", "arn:aws:sagemaker:us-east-1:123456789012:pipeline/my-pipe", "arn:aws:sagemaker:us-east-1:123456789012:pipeline/my-pipe/execution/", "arn:aws:s3:::bucket/pipeline/x/execution/y"} {
		if ValidateExecutionARN(bad) == nil {
			t.Errorf("ValidateExecutionARN(%q) accepted", bad)
		}
	}
}

// executionClient is a Client on the standard chain pointed at endpoint.
func executionClient(t *testing.T, endpoint string) *Client {
	t.Helper()
	awstest.SetEnv(t, endpoint)
	c, err := NewClient(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestMotoExecutions runs the calls moto 5 implements (StartPipelineExecution,
// DescribePipelineExecution, ListPipelineExecutions, ListPipelineParametersForExecution; the
// parameter check reads DescribePipeline) against moto_server, every call recorded on its way.
func TestMotoExecutions(t *testing.T) {
	moto := awstest.StartMoto(t)
	rec := awstest.NewServer(t, moto.Endpoint)
	c := executionClient(t, rec.URL)
	ctx := context.Background()
	if _, err := Upsert(ctx, UpsertInput{PipelineName: "cursus-exec", DefinitionJSON: paramDefinition, RoleARN: testRole}); err != nil {
		t.Fatal(err)
	}

	_, err := c.Start(ctx, StartInput{PipelineName: "cursus-exec", Parameters: map[string]string{"NoSuchParameter": "1", "MaxDepth": "deep"}})
	var pe *ParameterError
	if !errors.As(err, &pe) || !slices.Equal(pe.Unknown, []string{"NoSuchParameter"}) || pe.Invalid["MaxDepth"] == "" {
		t.Fatalf("undeclared parameter: err = %v, want a *ParameterError naming NoSuchParameter and MaxDepth", err)
	}
	if n := rec.Count("sagemaker:StartPipelineExecution"); n != 0 {
		t.Fatalf("StartPipelineExecution sent %d times despite refused parameters", n)
	}

	params := map[string]string{"MaxDepth": "8", "EXECUTION_S3_PREFIX": "s3://bucket/runs/1"}
	started, err := c.Start(ctx, StartInput{PipelineName: "cursus-exec", Parameters: params, DisplayName: "first"})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	ex := started.Execution
	if started.Selection != nil || len(started.Warnings) != 0 {
		t.Errorf("Start of a whole run: selection %+v, warnings %v", started.Selection, started.Warnings)
	}
	if !strings.HasPrefix(ex.ARN, "arn:aws:sagemaker:us-east-1:123456789012:pipeline/cursus-exec/execution/") || ex.PipelineName != "cursus-exec" ||
		ex.Status != StatusSucceeded || fmt.Sprint(ex.Parameters) != fmt.Sprint(params) || ex.DisplayName != "first" {
		t.Errorf("Start = %+v (moto runs nothing: an execution is Succeeded at once)", ex)
	}
	sent := rec.Requests("StartPipelineExecution")
	if len(sent) != 1 || fmt.Sprint(sent[0]["PipelineParameters"]) != "[map[Name:EXECUTION_S3_PREFIX Value:s3://bucket/runs/1] map[Name:MaxDepth Value:8]]" {
		t.Errorf("StartPipelineExecution bodies %v, want the parameters sorted by name", sent)
	}

	got, err := c.Describe(ctx, ex.ARN)
	if err != nil || got.ARN != ex.ARN || got.Status != StatusSucceeded || got.Parameters["MaxDepth"] != "8" || got.CreationTime == nil {
		t.Errorf("Describe = %+v, %v", got, err)
	}
	secondStart, err := c.Start(ctx, StartInput{PipelineName: "cursus-exec"})
	if err != nil {
		t.Fatal(err)
	}
	second := secondStart.Execution
	list, err := c.List(ctx, "cursus-exec", 0)
	if err != nil || len(list) != 2 {
		t.Fatalf("List = %+v, %v", list, err)
	}
	arns := []string{list[0].ARN, list[1].ARN}
	if !slices.Contains(arns, ex.ARN) || !slices.Contains(arns, second.ARN) || list[0].Status != StatusSucceeded || list[0].FailureReason != "" {
		t.Errorf("List = %+v, want both executions", list)
	}
	if one, err := c.List(ctx, "cursus-exec", 1); err != nil || len(one) != 1 {
		t.Errorf("List max 1 = %+v, %v", one, err)
	}

	n := rec.Count("sagemaker:DescribePipelineExecution")
	polls := 0
	w, timedOut, err := c.Wait(ctx, ex.ARN, WaitOptions{Timeout: 5 * time.Second, OnPoll: func(*Execution, time.Duration) { polls++ }})
	if err != nil || timedOut || w.Status != StatusSucceeded || polls != 1 || rec.Count("sagemaker:DescribePipelineExecution") != n+1 {
		t.Errorf("Wait = %+v, timed out %v, %v, %d polls; want Succeeded after one poll", w, timedOut, err, polls)
	}

	missing := "arn:aws:sagemaker:us-east-1:123456789012:pipeline/cursus-exec/execution/nosuchexecution"
	_, err = c.Describe(ctx, missing)
	var ae *AWSError
	if !errors.As(err, &ae) || !ae.NotFound || ae.Op != "sagemaker:DescribePipelineExecution" {
		t.Errorf("Describe(missing) = %v, want a not-found *AWSError", err)
	}
	_, err = c.Start(ctx, StartInput{PipelineName: "no-such-pipeline"})
	if !errors.As(err, &ae) || !ae.NotFound || ae.Op != "sagemaker:DescribePipeline" {
		t.Errorf("Start(missing pipeline) = %v, want a not-found *AWSError", err)
	}
}

const stepsExecutionARN = "arn:aws:sagemaker:us-east-1:123456789012:pipeline/demo/execution/x1y2z3"

// stepsPages are ListPipelineExecutionSteps answers shaped like the API reference's response
// syntax (timestamps as epoch seconds), across two pages.
var stepsPages = []map[string]any{
	{"NextToken": "page-2", "PipelineExecutionSteps": []any{
		map[string]any{"StepName": "Preprocess", "StepDisplayName": "Preprocess data", "StepStatus": "Succeeded", "StartTime": 1717236000.5, "EndTime": 1717236300, "AttemptCount": 1,
			"Metadata": map[string]any{"ProcessingJob": map[string]any{"Arn": "arn:aws:sagemaker:us-east-1:123456789012:processing-job/pipelines-x1y2z3-Preprocess-AbCdEf1234"}}},
		map[string]any{"StepName": "Train", "StepStatus": "Failed", "StartTime": 1717236301, "EndTime": 1717236900, "AttemptCount": 2,
			"FailureReason": "ClientError: AlgorithmError: label column missing",
			"Metadata":      map[string]any{"TrainingJob": map[string]any{"Arn": "arn:aws:sagemaker:us-east-1:123456789012:training-job/pipelines-x1y2z3-Train-GhIjKl5678"}}},
		map[string]any{"StepName": "Tune", "StepStatus": "Succeeded", "CacheHitResult": map[string]any{"SourcePipelineExecutionArn": "arn:aws:sagemaker:us-east-1:123456789012:pipeline/demo/execution/older"},
			"Metadata": map[string]any{"TuningJob": map[string]any{"Arn": "arn:aws:sagemaker:us-east-1:123456789012:hyper-parameter-tuning-job/pipelines-x1y2z3-tune-7b"}}},
	}},
	{"PipelineExecutionSteps": []any{
		map[string]any{"StepName": "CheckMSE", "StepStatus": "Succeeded", "Metadata": map[string]any{"Condition": map[string]any{"Outcome": "False"}}},
		map[string]any{"StepName": "MSEFail", "StepStatus": "Failed", "FailureReason": "Execution failed", "Metadata": map[string]any{"Fail": map[string]any{"ErrorMessage": "MSE 7.2 above 6.0"}}},
		map[string]any{"StepName": "Notify", "StepStatus": "Succeeded", "Metadata": map[string]any{"Lambda": map[string]any{"Arn": "arn:aws:lambda:us-east-1:123456789012:function:notify-team:3", "OutputParameters": []any{}}}},
		map[string]any{"StepName": "Register", "StepStatus": "Starting"},
	}},
}

// TestStepsAndStopOnAWSJSONServer: moto 5 implements neither ListPipelineExecutionSteps nor
// StopPipelineExecution (it answers 500), so these run against an httptest server speaking the
// AWS JSON 1.1 protocol with responses shaped like the SageMaker API reference's.
func TestStepsAndStopOnAWSJSONServer(t *testing.T) {
	srv := awstest.NewServer(t, "")
	srv.Handle("ListPipelineExecutionSteps", func(req map[string]any) (any, error) {
		if req["PipelineExecutionArn"] != stepsExecutionARN {
			return nil, &awstest.APIError{Status: 400, Type: "ResourceNotFound", Message: "Pipeline execution does not exist"}
		}
		if req["NextToken"] == "page-2" {
			return stepsPages[1], nil
		}
		return stepsPages[0], nil
	})
	var stopped atomic.Bool
	srv.Handle("StopPipelineExecution", func(req map[string]any) (any, error) {
		stopped.Store(true)
		return map[string]any{"PipelineExecutionArn": req["PipelineExecutionArn"]}, nil
	})
	srv.Handle("DescribePipelineExecution", func(req map[string]any) (any, error) {
		status := StatusExecuting
		if stopped.Load() {
			status = StatusStopping
		}
		return map[string]any{"PipelineExecutionArn": req["PipelineExecutionArn"], "PipelineArn": "arn:aws:sagemaker:us-east-1:123456789012:pipeline/demo",
			"PipelineExecutionStatus": status, "CreationTime": 1717236000}, nil
	})
	c := executionClient(t, srv.URL)
	ctx := context.Background()

	steps, err := c.Steps(ctx, stepsExecutionARN)
	if err != nil {
		t.Fatalf("Steps: %v", err)
	}
	if len(steps) != 7 {
		t.Fatalf("%d steps, want 7 over two pages", len(steps))
	}
	reqs := srv.Requests("ListPipelineExecutionSteps")
	if len(reqs) != 2 || reqs[0]["SortOrder"] != "Ascending" || reqs[1]["NextToken"] != "page-2" {
		t.Errorf("requests %v, want ascending and the second page asked for", reqs)
	}
	pre, train, tune, cond, fail, lambda, reg := steps[0], steps[1], steps[2], steps[3], steps[4], steps[5], steps[6]
	if pre.Kind != "ProcessingJob" || pre.JobName != "pipelines-x1y2z3-Preprocess-AbCdEf1234" || pre.DisplayName != "Preprocess data" ||
		*pre.Logs != (LogLocation{LogGroup: "/aws/sagemaker/ProcessingJobs", LogStreamPrefix: "pipelines-x1y2z3-Preprocess-AbCdEf1234/"}) ||
		pre.StartTime == nil || !pre.StartTime.Equal(time.Unix(1717236000, 5e8)) || pre.EndTime.Sub(*pre.StartTime) != 299500*time.Millisecond {
		t.Errorf("processing step %+v logs %+v", pre, pre.Logs)
	}
	if train.Status != "Failed" || train.FailureReason != "ClientError: AlgorithmError: label column missing" || train.AttemptCount != 2 ||
		train.JobARN != "arn:aws:sagemaker:us-east-1:123456789012:training-job/pipelines-x1y2z3-Train-GhIjKl5678" ||
		*train.Logs != (LogLocation{LogGroup: "/aws/sagemaker/TrainingJobs", LogStreamPrefix: "pipelines-x1y2z3-Train-GhIjKl5678/"}) {
		t.Errorf("training step %+v logs %+v", train, train.Logs)
	}
	if tune.Kind != "TuningJob" || *tune.Logs != (LogLocation{LogGroup: "/aws/sagemaker/TrainingJobs", LogStreamPrefix: "pipelines-x1y2z3-tune-7b-"}) ||
		!strings.HasSuffix(tune.CacheHitSource, "/execution/older") {
		t.Errorf("tuning step %+v logs %+v", tune, tune.Logs)
	}
	if cond.Kind != "Condition" || cond.Outcome != "False" || cond.Logs != nil {
		t.Errorf("condition step %+v", cond)
	}
	if fail.Kind != "Fail" || fail.ErrorMessage != "MSE 7.2 above 6.0" {
		t.Errorf("fail step %+v", fail)
	}
	if lambda.JobName != "notify-team" || *lambda.Logs != (LogLocation{LogGroup: "/aws/lambda/notify-team"}) {
		t.Errorf("lambda step %+v logs %+v", lambda, lambda.Logs)
	}
	if reg.Status != "Starting" || reg.Kind != "" || reg.Logs != nil {
		t.Errorf("step without metadata %+v", reg)
	}
	var ae *AWSError
	if _, err := c.Steps(ctx, "arn:aws:sagemaker:us-east-1:123456789012:pipeline/demo/execution/other"); !errors.As(err, &ae) || !ae.NotFound {
		t.Errorf("Steps(unknown) = %v, want not found", err)
	}

	ex, err := c.Stop(ctx, stepsExecutionARN)
	if err != nil || ex.Status != StatusStopping || ex.ARN != stepsExecutionARN || ex.PipelineName != "demo" {
		t.Fatalf("Stop = %+v, %v", ex, err)
	}
	stop := srv.Requests("StopPipelineExecution")
	if tok, _ := stop[0]["ClientRequestToken"].(string); len(stop) != 1 || len(tok) < 32 {
		t.Errorf("StopPipelineExecution bodies %v, want one with an SDK idempotency token", stop)
	}
}

// TestWait polls with backoff until a terminal status, gives up at the timeout with the last
// status, and ends when its context is cancelled; the AWS JSON server answers
// DescribePipelineExecution from a script of statuses.
func TestWait(t *testing.T) {
	script := func(statuses ...string) *awstest.Server {
		srv := awstest.NewServer(t, "")
		var n atomic.Int32
		srv.Handle("DescribePipelineExecution", func(req map[string]any) (any, error) {
			i := int(n.Add(1)) - 1
			s := statuses[min(i, len(statuses)-1)]
			return map[string]any{"PipelineExecutionArn": req["PipelineExecutionArn"], "PipelineExecutionStatus": s, "FailureReason": map[bool]string{true: "step Train failed"}[s == StatusFailed]}, nil
		})
		return srv
	}
	ctx := context.Background()
	fast := WaitOptions{Interval: 5 * time.Millisecond, MaxInterval: 20 * time.Millisecond}

	t.Run("until terminal", func(t *testing.T) {
		c := executionClient(t, script(StatusExecuting, StatusExecuting, StatusFailed).URL)
		var seen []string
		var waits []time.Duration
		o := fast
		o.Timeout = 10 * time.Second
		o.OnPoll = func(ex *Execution, waited time.Duration) {
			seen, waits = append(seen, ex.Status), append(waits, waited)
		}
		ex, timedOut, err := c.Wait(ctx, stepsExecutionARN, o)
		if err != nil || timedOut || ex.Status != StatusFailed || ex.FailureReason != "step Train failed" {
			t.Fatalf("Wait = %+v, %v, %v", ex, timedOut, err)
		}
		if !slices.Equal(seen, []string{StatusExecuting, StatusExecuting, StatusFailed}) || !slices.IsSorted(waits) {
			t.Errorf("polls saw %v at %v", seen, waits)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		c := executionClient(t, script(StatusExecuting).URL)
		o := fast
		o.Timeout = 60 * time.Millisecond
		polls := 0
		o.OnPoll = func(*Execution, time.Duration) { polls++ }
		ex, timedOut, err := c.Wait(ctx, stepsExecutionARN, o)
		if err != nil || !timedOut || ex.Status != StatusExecuting || polls < 1 {
			t.Errorf("Wait = %+v, timed out %v, %v after %d polls; want timed out while Executing", ex, timedOut, err, polls)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		c := executionClient(t, script(StatusExecuting).URL)
		cctx, cancel := context.WithCancel(ctx)
		o := WaitOptions{Interval: time.Hour, OnPoll: func(*Execution, time.Duration) { cancel() }}
		done := make(chan error, 1)
		go func() { _, _, err := c.Wait(cctx, stepsExecutionARN, o); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Wait after cancel = %v, want context.Canceled", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Wait did not end when its context was cancelled")
		}
	})
}

// The run loop's refusals say their kind: a refused parameter is
// InvalidInput with its lists, a missing pipeline NotFound, any other AWS
// failure AWS with the AWS message.
func TestExecutionErrorKinds(t *testing.T) {
	declared, err := DeclaredParameters(paramDefinition)
	if err != nil {
		t.Fatal(err)
	}
	err = fmt.Errorf("start: %w", CheckParameters(declared, map[string]string{"NoSuch": "1"}))
	d := errkind.DetailsOf(err)
	if errkind.Of(err) != errkind.InvalidInput || !slices.Equal(d["unknown"].([]string), []string{"NoSuch"}) || len(d["declared"].([]string)) != 5 {
		t.Errorf("parameter error: %q %v", errkind.Of(err), d)
	}
	missing := &AWSError{Op: "sagemaker:DescribePipelineExecution", Target: "arn", Code: "ResourceNotFound", Message: "gone", NotFound: true}
	if errkind.Of(missing) != errkind.NotFound || missing.Details()["aws_error_code"] != "ResourceNotFound" {
		t.Errorf("missing: %q %v", errkind.Of(missing), missing.Details())
	}
	denied := &AWSError{Op: "sagemaker:StartPipelineExecution", Target: "p", Code: "AccessDeniedException", Message: "no"}
	if errkind.Of(denied) != errkind.AWS || denied.Details()["aws_message"] != "no" {
		t.Errorf("denied: %q %v", errkind.Of(denied), denied.Details())
	}
}
