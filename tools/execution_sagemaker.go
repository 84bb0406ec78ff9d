package tools

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/cursus-go/cursus/engine/sagemaker"
	"github.com/cursus-go/cursus/engine/sagemaker/smclient"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

// executionNamespace describes the execution namespace, shared by the local runner and the
// SageMaker run loop.
const executionNamespace = "Run pipelines: locally (run_local) and on SageMaker (start, describe, list, steps, stop, wait)."

const exampleExecutionARN = "arn:aws:sagemaker:us-east-1:123456789012:pipeline/alice-Demo-xgboost-NA-1-0-0-pipeline/execution/4hbpvjhnx2ox"

// executionSageMakerNamespace is the part of the execution namespace in this file (no description: the
// namespace's constructor has it).
func executionSageMakerNamespace() registry.Namespace {
	return namespace("execution", executionNamespace,
		registry.New("execution.start", registry.Spec{
			Description: "Starts an execution of a deployed SageMaker pipeline (StartPipelineExecution). Parameters are given by name and checked first against the parameters the pipeline's current definition declares: an undeclared name, or a value its type refuses, is refused by name and nothing starts. Answers the execution's ARN and status.",
			When:        "the pipeline is deployed (compile.dag with upsert) and you want it to run",
			Examples: []string{
				`execution.start {"pipeline_name": "alice-Demo-xgboost-NA-1-0-0-pipeline"}`,
				`execution.start {"pipeline_name": "alice-Demo-xgboost-NA-1-0-0-pipeline", "parameters": {"EXECUTION_S3_PREFIX": "s3://example-bucket/runs/2024-06-01"}}  # override a declared parameter`,
			},
			Tags:        []string{registry.PhaseProgrammer},
			Destructive: true,
			Network:     true,
		}, executionStart),
		registry.New("execution.describe", registry.Spec{
			Description: "One SageMaker pipeline execution: status, times, failure reason and parameter values.",
			When:        "you have an execution ARN and want its status",
			Examples:    []string{`execution.describe {"execution_arn": "` + exampleExecutionARN + `"}`},
			Tags:        []string{registry.PhaseProgrammer},
			Network:     true,
		}, executionDescribe),
		registry.New("execution.list", registry.Spec{
			Description: "Lists a SageMaker pipeline's executions, newest first, each with its ARN, status, start time and failure reason.",
			When:        "you want a pipeline's recent runs or latest ARN",
			Examples:    []string{`execution.list {"pipeline_name": "alice-Demo-xgboost-NA-1-0-0-pipeline", "max_results": 5}`},
			Tags:        []string{registry.PhaseProgrammer},
			Network:     true,
		}, executionList),
		registry.New("execution.steps", registry.Spec{
			Description: "The steps of a pipeline execution in start order: status, times, failure reason, the job it ran and its CloudWatch log group and stream prefix.",
			When:        "an execution failed or is slow",
			Examples:    []string{`execution.steps {"execution_arn": "` + exampleExecutionARN + `"}`},
			Tags:        []string{registry.PhaseProgrammer},
			Network:     true,
		}, executionSteps),
		registry.New("execution.stop", registry.Spec{
			Description: "Asks SageMaker to stop a pipeline execution (StopPipelineExecution); its status becomes Stopping, then Stopped. Answers the status after the request.",
			When:        "an execution should not go on (wrong parameters, runaway cost)",
			Examples:    []string{`execution.stop {"execution_arn": "` + exampleExecutionARN + `"}`},
			Tags:        []string{registry.PhaseProgrammer},
			Destructive: true,
			Network:     true,
		}, executionStop),
		registry.New("execution.wait", registry.Spec{
			Description: "Waits until a pipeline execution finishes or timeout_seconds pass (then timed_out: true); reports progress and can be cancelled.",
			When:        "you started an execution and want its outcome",
			Examples:    []string{`execution.wait {"execution_arn": "` + exampleExecutionARN + `", "timeout_seconds": 1800}`},
			Tags:        []string{registry.PhaseProgrammer},
			Network:     true,
		}, executionWait),
	)
}

type executionStartArgs struct {
	PipelineName string         `json:"pipeline_name" jsonschema:"required,minLength=1,maxLength=256" jsonschema_description:"Name of the deployed pipeline (compile.dag answers it as pipeline_name)."`
	Parameters   map[string]any `json:"parameters,omitempty" jsonschema_description:"Pipeline parameter values by name: strings, numbers or booleans (sent as strings). Each name must be declared by the pipeline's definition."`
	DisplayName  string         `json:"display_name,omitempty" jsonschema:"maxLength=82" jsonschema_description:"Display name of the execution."`
	Description  string         `json:"description,omitempty" jsonschema:"maxLength=3072" jsonschema_description:"Description of the execution."`
}

type executionARNArgs struct {
	ExecutionARN string `json:"execution_arn" jsonschema:"required,minLength=1,maxLength=2048" jsonschema_description:"ARN of the execution: arn:aws:sagemaker:<region>:<account>:pipeline/<name>/execution/<id> (execution.start and execution.list answer it)."`
}

type executionListArgs struct {
	PipelineName string `json:"pipeline_name" jsonschema:"required,minLength=1,maxLength=256" jsonschema_description:"Name of the pipeline."`
	MaxResults   int    `json:"max_results,omitempty" jsonschema:"minimum=1,maximum=1000,default=20" jsonschema_description:"At most this many executions, newest first."`
}

type executionWaitArgs struct {
	executionARNArgs
	TimeoutSeconds int `json:"timeout_seconds,omitempty" jsonschema:"minimum=1,maximum=86400,default=600" jsonschema_description:"Give up after this many seconds and answer timed_out: true with the last status."`
}

// executionClient builds the SageMaker client from the standard AWS configuration.
func executionClient(ctx context.Context) (*smclient.Client, error) {
	c, err := smclient.NewClient(ctx, nil)
	if err != nil {
		return nil, toolError(err)
	}
	return c, nil
}

func executionStart(ctx context.Context, a executionStartArgs) (*envelope.Result[smclient.Execution], error) {
	if err := sagemaker.ValidatePipelineName(a.PipelineName); err != nil {
		return nil, envelope.InvalidInput("pipeline_name: %v", err)
	}
	params, err := parameterStrings(a.Parameters)
	if err != nil {
		return nil, err
	}
	c, err := executionClient(ctx)
	if err != nil {
		return nil, err
	}
	ex, err := c.Start(ctx, smclient.StartInput{PipelineName: a.PipelineName, Parameters: params, DisplayName: a.DisplayName, Description: a.Description})
	if err != nil {
		return nil, toolError(err)
	}
	return envelope.Success(*ex).WithNextSteps(
		envelope.NextStep{Tool: "execution.wait", When: "you want the outcome", Why: "polls until the execution ends", ArgsHint: map[string]any{"execution_arn": ex.ARN}},
		envelope.NextStep{Tool: "execution.steps", When: "you want to follow its steps", Why: "each step's status, job and logs", ArgsHint: map[string]any{"execution_arn": ex.ARN}},
	), nil
}

// parameterStrings turns the parameters argument into StartPipelineExecution's string values.
func parameterStrings(in map[string]any) (map[string]string, error) {
	out := make(map[string]string, len(in))
	for name, v := range in {
		switch x := v.(type) {
		case string:
			out[name] = x
		case bool:
			out[name] = strconv.FormatBool(x)
		case float64:
			if x == math.Trunc(x) && math.Abs(x) < 1e15 {
				out[name] = strconv.FormatInt(int64(x), 10)
			} else {
				out[name] = strconv.FormatFloat(x, 'g', -1, 64)
			}
		default:
			return nil, envelope.InvalidInput("parameters.%s: a parameter value is a string, number or boolean, not %s", name, jsonKind(v)).
				WithDetails("parameter", name)
		}
	}
	return out, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// checkExecutionARN answers a malformed execution_arn with invalid_input before any AWS call.
func checkExecutionARN(arn string) error {
	if err := smclient.ValidateExecutionARN(arn); err != nil {
		return envelope.InvalidInput("execution_arn: %v", err).WithRemedy("take the ARN execution.start or execution.list answered", "execution.list")
	}
	return nil
}

// onExecution checks an execution_arn argument, builds the client and runs call, mapping its error.
func onExecution[T any](ctx context.Context, arn string, call func(*smclient.Client) (T, error)) (T, error) {
	var zero T
	if err := checkExecutionARN(arn); err != nil {
		return zero, err
	}
	c, err := executionClient(ctx)
	if err != nil {
		return zero, err
	}
	out, err := call(c)
	if err != nil {
		return zero, toolError(err)
	}
	return out, nil
}

func executionDescribe(ctx context.Context, a executionARNArgs) (*envelope.Result[smclient.Execution], error) {
	ex, err := onExecution(ctx, a.ExecutionARN, func(c *smclient.Client) (*smclient.Execution, error) { return c.Describe(ctx, a.ExecutionARN) })
	if err != nil {
		return nil, err
	}
	return envelope.Success(*ex), nil
}

// ExecutionListData is the data of execution.list: a pipeline's
// executions, newest first.
type ExecutionListData struct {
	PipelineName string                      `json:"pipeline_name"`
	Count        int                         `json:"count"`
	Executions   []smclient.ExecutionSummary `json:"executions"`
}

func executionList(ctx context.Context, a executionListArgs) (*envelope.Result[ExecutionListData], error) {
	if err := sagemaker.ValidatePipelineName(a.PipelineName); err != nil {
		return nil, envelope.InvalidInput("pipeline_name: %v", err)
	}
	c, err := executionClient(ctx)
	if err != nil {
		return nil, err
	}
	list, err := c.List(ctx, a.PipelineName, a.MaxResults)
	if err != nil {
		return nil, toolError(err)
	}
	if list == nil {
		list = []smclient.ExecutionSummary{}
	}
	return envelope.Success(ExecutionListData{PipelineName: a.PipelineName, Count: len(list), Executions: list}), nil
}

// ExecutionStepsData is the data of execution.steps: the execution's
// status and its steps in the order they started, with the names of the
// failed ones.
type ExecutionStepsData struct {
	ExecutionARN  string                   `json:"execution_arn"`
	PipelineName  string                   `json:"pipeline_name"`
	Status        string                   `json:"status"`
	FailureReason string                   `json:"failure_reason"`
	StepCount     int                      `json:"step_count"`
	FailedSteps   []string                 `json:"failed_steps"`
	Steps         []smclient.StepExecution `json:"steps"`
}

func executionSteps(ctx context.Context, a executionARNArgs) (*envelope.Result[ExecutionStepsData], error) {
	var ex *smclient.Execution
	steps, err := onExecution(ctx, a.ExecutionARN, func(c *smclient.Client) ([]smclient.StepExecution, error) {
		var err error
		if ex, err = c.Describe(ctx, a.ExecutionARN); err != nil {
			return nil, err
		}
		return c.Steps(ctx, a.ExecutionARN)
	})
	if err != nil {
		return nil, err
	}
	var failed []string
	for _, s := range steps {
		if s.Status == smclient.StatusFailed {
			failed = append(failed, s.Name)
		}
	}
	if steps == nil {
		steps = []smclient.StepExecution{}
	}
	return envelope.Success(ExecutionStepsData{
		ExecutionARN: ex.ARN, PipelineName: ex.PipelineName, Status: ex.Status, FailureReason: ex.FailureReason,
		StepCount: len(steps), FailedSteps: nonNilList(failed), Steps: steps,
	}), nil
}

func executionStop(ctx context.Context, a executionARNArgs) (*envelope.Result[smclient.Execution], error) {
	ex, err := onExecution(ctx, a.ExecutionARN, func(c *smclient.Client) (*smclient.Execution, error) { return c.Stop(ctx, a.ExecutionARN) })
	if err != nil {
		return nil, err
	}
	return envelope.Success(*ex).WithNextSteps(envelope.NextStep{Tool: "execution.wait", When: "you want to see it stopped", Why: "Stopping becomes Stopped", ArgsHint: map[string]any{"execution_arn": ex.ARN}}), nil
}

// ExecutionWaitData is the data of execution.wait: the execution's status
// when the wait ended, whether it gave up first, and how long and how
// often it polled.
type ExecutionWaitData struct {
	ExecutionARN  string  `json:"execution_arn"`
	PipelineName  string  `json:"pipeline_name"`
	Status        string  `json:"status"`
	FailureReason string  `json:"failure_reason"`
	TimedOut      bool    `json:"timed_out"`
	WaitedSeconds float64 `json:"waited_seconds"`
	Polls         int     `json:"polls"`
}

func executionWait(ctx context.Context, a executionWaitArgs) (*envelope.Result[ExecutionWaitData], error) {
	timeout := a.TimeoutSeconds
	if timeout == 0 {
		timeout = 600
	}
	polls := 0
	start := time.Now()
	timedOut := false
	ex, err := onExecution(ctx, a.ExecutionARN, func(c *smclient.Client) (*smclient.Execution, error) {
		ex, gaveUp, err := c.Wait(ctx, a.ExecutionARN, smclient.WaitOptions{
			Timeout: time.Duration(timeout) * time.Second,
			OnPoll: func(ex *smclient.Execution, waited time.Duration) {
				polls++
				registry.ReportProgress(ctx, math.Round(waited.Seconds()*10)/10, float64(timeout),
					fmt.Sprintf("%s is %s after %s (poll %d)", ex.PipelineName, ex.Status, waited.Round(time.Second), polls))
			},
		})
		timedOut = gaveUp
		return ex, err
	})
	if err != nil {
		return nil, err
	}
	out := envelope.Success(ExecutionWaitData{
		ExecutionARN: ex.ARN, PipelineName: ex.PipelineName, Status: ex.Status, FailureReason: ex.FailureReason,
		TimedOut: timedOut, WaitedSeconds: math.Round(time.Since(start).Seconds()*10) / 10, Polls: polls,
	})
	if timedOut {
		out = out.WithWarnings(fmt.Sprintf("gave up after %d s with the execution still %s; call execution.wait again to keep waiting", timeout, ex.Status))
	}
	if ex.Status == smclient.StatusFailed {
		out = out.WithNextSteps(envelope.NextStep{Tool: "execution.steps", When: "the execution failed", Why: "says which step failed, why, and where its logs are", ArgsHint: map[string]any{"execution_arn": ex.ARN}})
	}
	return out, nil
}
