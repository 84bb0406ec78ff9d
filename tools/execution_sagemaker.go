package tools

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cursus-go/cursus/engine/sagemaker"
	"github.com/cursus-go/cursus/engine/sagemaker/smclient"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

// executionNamespace describes the execution namespace, shared by the local runner and the
// SageMaker run loop.
const executionNamespace = "Run pipelines: locally (run_local) and on SageMaker (start, describe, list, steps, stop, wait), and the loop after a failure (failure, logs, download, retry)."

const exampleExecutionARN = "arn:aws:sagemaker:us-east-1:123456789012:pipeline/alice-Demo-xgboost-NA-1-0-0-pipeline/execution/4hbpvjhnx2ox"

// executionSageMakerNamespace is the part of the execution namespace in this file (no description: the
// namespace's constructor has it).
func executionSageMakerNamespace() registry.Namespace {
	return namespace("execution", executionNamespace,
		registry.New("execution.start", registry.Spec{
			Description: "Starts an execution of a deployed SageMaker pipeline (StartPipelineExecution), in its region. Parameters are checked first against the ones the current definition declares (an undeclared name or a value of the wrong type starts nothing). With steps it is a selective execution: only those steps run, reading what they need of the other steps from source_execution_arn (default: the latest ended execution); the selection is checked as SageMaker checks it. Once started it always answers the execution ARN; a failure to read it back is a warning.",
			When:        "the pipeline is deployed (compile.dag with upsert) and you want it to run, or to re-run some steps of it",
			Examples: []string{
				`execution.start {"pipeline_name": "alice-Demo-xgboost-NA-1-0-0-pipeline", "region": "us-east-1"}`,
				`execution.start {"pipeline_name": "alice-Demo-xgboost-NA-1-0-0-pipeline", "parameters": {"EXECUTION_S3_PREFIX": "s3://example-bucket/runs/2024-06-01"}}  # override a declared parameter`,
				`execution.start {"pipeline_name": "alice-Demo-xgboost-NA-1-0-0-pipeline", "steps": ["XGBoostTraining"], "source_execution_arn": "` + exampleExecutionARN + `"}  # selective: re-run training, reuse the rest`,
			},
			Tags:        []string{registry.PhaseProgrammer},
			Destructive: true,
			Network:     true,
		}, executionStart),
		registry.New("execution.describe", registry.Spec{
			Description: "One SageMaker pipeline execution: status, times, failure reason and parameter values (in the ARN's region).",
			When:        "you have an execution ARN and want its status",
			Examples:    []string{`execution.describe {"execution_arn": "` + exampleExecutionARN + `"}`},
			Tags:        []string{registry.PhaseProgrammer},
			Network:     true,
		}, executionDescribe),
		registry.New("execution.list", registry.Spec{
			Description: "A pipeline's executions, newest first: ARN, status, start time, failure reason.",
			When:        "you want a pipeline's recent runs or latest ARN",
			Examples:    []string{`execution.list {"pipeline_name": "alice-Demo-xgboost-NA-1-0-0-pipeline", "max_results": 5, "region": "us-east-1"}`},
			Tags:        []string{registry.PhaseProgrammer},
			Network:     true,
		}, executionList),
		registry.New("execution.steps", registry.Spec{
			Description: "An execution's steps in start order: status, times, failure reason, job and log group.",
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
			Description: "Waits until an execution ends or timeout_seconds pass (then timed_out: true), with progress.",
			When:        "you started an execution and want its outcome",
			Examples:    []string{`execution.wait {"execution_arn": "` + exampleExecutionARN + `", "timeout_seconds": 1800}`},
			Tags:        []string{registry.PhaseProgrammer},
			Network:     true,
		}, executionWait),
		registry.New("execution.retry", registry.Spec{
			Description: "Re-runs a Failed (or Stopped) execution. When the pipeline's definition is the one the execution ran, RetryPipelineExecution resumes it at its failed steps. When an upsert changed it since (a fix), the failed steps and the steps after them are started as a selective execution of the current definition, reusing the outputs of the steps that succeeded (mode says which; force one with mode). parallelism caps the steps that run at once.",
			When:        "an execution failed and its cause is fixed (compile.dag upserted the fix) or was transient",
			Examples: []string{
				`execution.retry {"execution_arn": "` + exampleExecutionARN + `"}`,
				`execution.retry {"execution_arn": "` + exampleExecutionARN + `", "mode": "retry", "parallelism": 2}  # RetryPipelineExecution whatever the definition`,
			},
			Tags:        []string{registry.PhaseProgrammer},
			Destructive: true,
			Network:     true,
		}, executionRetry),
	)
}

type executionStartArgs struct {
	PipelineName string         `json:"pipeline_name" jsonschema:"required,minLength=1,maxLength=256" jsonschema_description:"Name of the deployed pipeline (compile.dag answers it as pipeline_name)."`
	Parameters   map[string]any `json:"parameters,omitempty" jsonschema_description:"Pipeline parameter values by name: strings, numbers or booleans (sent as strings). Each name must be declared by the pipeline's definition."`
	DisplayName  string         `json:"display_name,omitempty" jsonschema:"maxLength=82" jsonschema_description:"Display name of the execution."`
	Description  string         `json:"description,omitempty" jsonschema:"maxLength=3072" jsonschema_description:"Description of the execution."`
	Steps        []string       `json:"steps,omitempty" jsonschema:"maxItems=50" jsonschema_description:"Selective execution: the names of the steps to run (1-50; every step on a path between two of them too). Steps after them that are not named do not run."`
	Source       string         `json:"source_execution_arn,omitempty" jsonschema:"maxLength=2048" jsonschema_description:"With steps: the ended execution of this pipeline whose outputs the named steps read from the steps they do not run. Default: the latest ended execution."`
	Parallelism  int            `json:"parallelism,omitempty" jsonschema:"minimum=1,maximum=256" jsonschema_description:"At most this many steps of the execution run at once (overrides the pipeline's max_parallel_execution_steps)."`
	regionArg
}

type executionARNArgs struct {
	ExecutionARN string `json:"execution_arn" jsonschema:"required,minLength=1,maxLength=2048" jsonschema_description:"ARN of the execution: arn:aws:sagemaker:<region>:<account>:pipeline/<name>/execution/<id> (execution.start and execution.list answer it)."`
}

type executionListArgs struct {
	PipelineName string `json:"pipeline_name" jsonschema:"required,minLength=1,maxLength=256" jsonschema_description:"Name of the pipeline."`
	MaxResults   int    `json:"max_results,omitempty" jsonschema:"minimum=1,maximum=100,default=20" jsonschema_description:"At most this many executions, newest first."`
	regionArg
}

type executionWaitArgs struct {
	executionARNArgs
	TimeoutSeconds int `json:"timeout_seconds,omitempty" jsonschema:"minimum=1,maximum=86400,default=600" jsonschema_description:"Give up after this many seconds and answer timed_out: true with the last status."`
}

// ExecutionStartData is the data of execution.start: the execution started and, for a selective
// execution, what it runs and reuses.
type ExecutionStartData struct {
	smclient.Execution
	Selection *smclient.Selection `json:"selection,omitempty"`
}

func executionStart(ctx context.Context, a executionStartArgs) (*envelope.Result[ExecutionStartData], error) {
	if err := sagemaker.ValidatePipelineName(a.PipelineName); err != nil {
		return nil, envelope.InvalidInput("pipeline_name: %v", err)
	}
	params, err := parameterStrings(a.Parameters)
	if err != nil {
		return nil, err
	}
	if a.Source != "" && len(a.Steps) == 0 {
		return nil, envelope.InvalidInput("source_execution_arn is for a selective execution: give steps too").WithDetails("field", "source_execution_arn")
	}
	region, err := resolveRegionArg("region", a.Region)
	if err != nil {
		return nil, err
	}
	if a.Source != "" {
		if region, err = regionOfARNArg("source_execution_arn", a.Source, region); err != nil {
			return nil, err
		}
	}
	aw, err := openAWS(ctx, region)
	if err != nil {
		return nil, err
	}
	out, err := aw.c.Start(ctx, smclient.StartInput{PipelineName: a.PipelineName, Parameters: params, DisplayName: a.DisplayName, Description: a.Description,
		Steps: a.Steps, SourceExecutionARN: a.Source, MaxParallelSteps: a.Parallelism})
	if err != nil {
		return nil, aw.fail(err)
	}
	ex := out.Execution
	return done(aw, envelope.Success(ExecutionStartData{Execution: *ex, Selection: out.Selection})).WithWarnings(out.Warnings...).WithNextSteps(
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

// onExecution checks an execution_arn argument, opens the client in the ARN's region and runs
// call, mapping its error.
func onExecution[T any](ctx context.Context, arn string, call func(*smclient.Client) (T, error)) (T, *awsCall, error) {
	var zero T
	if err := checkExecutionARN(arn); err != nil {
		return zero, nil, err
	}
	aw, err := openAWS(ctx, smclient.RegionOfARN(arn))
	if err != nil {
		return zero, nil, err
	}
	out, err := call(aw.c)
	if err != nil {
		return zero, aw, aw.fail(err)
	}
	return out, aw, nil
}

func executionDescribe(ctx context.Context, a executionARNArgs) (*envelope.Result[smclient.Execution], error) {
	ex, aw, err := onExecution(ctx, a.ExecutionARN, func(c *smclient.Client) (*smclient.Execution, error) { return c.Describe(ctx, a.ExecutionARN) })
	if err != nil {
		return nil, err
	}
	r := done(aw, envelope.Success(*ex))
	if ex.Status == smclient.StatusFailed {
		r = r.WithNextSteps(failureNextStep(ex.ARN))
	}
	return r, nil
}

// failureNextStep points a failed execution at execution.failure.
func failureNextStep(arn string) envelope.NextStep {
	return envelope.NextStep{Tool: "execution.failure", When: "the execution failed", Why: "the failed step, its reason, its log's tail and how to reproduce it locally", ArgsHint: map[string]any{"execution_arn": arn}}
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
	region, err := resolveRegionArg("region", a.Region)
	if err != nil {
		return nil, err
	}
	aw, err := openAWS(ctx, region)
	if err != nil {
		return nil, err
	}
	list, err := aw.c.List(ctx, a.PipelineName, a.MaxResults)
	if err != nil {
		return nil, aw.fail(err)
	}
	if list == nil {
		list = []smclient.ExecutionSummary{}
	}
	r := done(aw, envelope.Success(ExecutionListData{PipelineName: a.PipelineName, Count: len(list), Executions: list}))
	for _, e := range list {
		if e.Status == smclient.StatusFailed {
			return r.WithNextSteps(failureNextStep(e.ARN)), nil
		}
	}
	return r, nil
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
	steps, aw, err := onExecution(ctx, a.ExecutionARN, func(c *smclient.Client) ([]smclient.StepExecution, error) {
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
	r := done(aw, envelope.Success(ExecutionStepsData{
		ExecutionARN: ex.ARN, PipelineName: ex.PipelineName, Status: ex.Status, FailureReason: ex.FailureReason,
		StepCount: len(steps), FailedSteps: nonNilList(failed), Steps: steps,
	}))
	if len(failed) > 0 {
		r = r.WithNextSteps(failureNextStep(ex.ARN),
			envelope.NextStep{Tool: "execution.logs", When: "you want the failed step's log", Why: "its job's CloudWatch log, tail or filtered", ArgsHint: map[string]any{"execution_arn": ex.ARN, "step_name": failed[0]}})
	}
	return r, nil
}

func executionStop(ctx context.Context, a executionARNArgs) (*envelope.Result[smclient.Execution], error) {
	ex, aw, err := onExecution(ctx, a.ExecutionARN, func(c *smclient.Client) (*smclient.Execution, error) { return c.Stop(ctx, a.ExecutionARN) })
	if err != nil {
		return nil, err
	}
	return done(aw, envelope.Success(*ex)).WithNextSteps(envelope.NextStep{Tool: "execution.wait", When: "you want to see it stopped", Why: "Stopping becomes Stopped", ArgsHint: map[string]any{"execution_arn": ex.ARN}}), nil
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
	ex, aw, err := onExecution(ctx, a.ExecutionARN, func(c *smclient.Client) (*smclient.Execution, error) {
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
	out := done(aw, envelope.Success(ExecutionWaitData{
		ExecutionARN: ex.ARN, PipelineName: ex.PipelineName, Status: ex.Status, FailureReason: ex.FailureReason,
		TimedOut: timedOut, WaitedSeconds: math.Round(time.Since(start).Seconds()*10) / 10, Polls: polls,
	}))
	if timedOut {
		out = out.WithWarnings(fmt.Sprintf("gave up after %d s with the execution still %s; call execution.wait again to keep waiting", timeout, ex.Status))
	}
	if ex.Status == smclient.StatusFailed {
		out = out.WithNextSteps(failureNextStep(ex.ARN))
	}
	return out, nil
}

type executionRetryArgs struct {
	executionARNArgs
	Mode        string `json:"mode,omitempty" jsonschema:"enum=auto,enum=retry,enum=rerun,default=auto" jsonschema_description:"auto: retry when the pipeline's definition is the one the execution ran, else rerun; retry: RetryPipelineExecution (the execution's own definition); rerun: a selective execution of the current definition running the failed steps and the steps after them."`
	Parallelism int    `json:"parallelism,omitempty" jsonschema:"minimum=1,maximum=256" jsonschema_description:"At most this many steps run at once (overrides the pipeline's)."`
}

// ExecutionRetryData is the data of execution.retry: how the failed execution was re-run (the same
// execution resumed, or a new selective execution), why, and the execution that now runs.
type ExecutionRetryData struct {
	// Mode is "retry" (RetryPipelineExecution: the same execution resumes) or "rerun" (a new
	// selective execution of the current definition).
	Mode string `json:"mode"`
	Why  string `json:"why"`
	// FailedExecutionARN is the execution that failed.
	FailedExecutionARN string `json:"failed_execution_arn"`
	// DefinitionChanged says whether the pipeline's definition changed since it ran.
	DefinitionChanged bool               `json:"definition_changed"`
	Execution         smclient.Execution `json:"execution"`
	// Selection is the rerun's steps (rerun only).
	Selection *smclient.Selection `json:"selection,omitempty"`
}

func executionRetry(ctx context.Context, a executionRetryArgs) (*envelope.Result[ExecutionRetryData], error) {
	if err := checkExecutionARN(a.ExecutionARN); err != nil {
		return nil, err
	}
	aw, err := openAWS(ctx, smclient.RegionOfARN(a.ExecutionARN))
	if err != nil {
		return nil, err
	}
	data := ExecutionRetryData{FailedExecutionARN: a.ExecutionARN}
	var warnings []string
	mode := a.Mode
	if mode == "" {
		mode = "auto"
	}
	if mode != "retry" {
		changed, err := aw.c.DefinitionChanged(ctx, a.ExecutionARN)
		switch {
		case err != nil && mode == "auto":
			warnings = append(warnings, "could not compare the execution's definition with the pipeline's current one ("+err.Error()+"): retried as it ran")
			mode = "retry"
		case err != nil:
			return nil, aw.fail(err)
		case mode == "auto" && changed:
			mode = "rerun"
		case mode == "auto":
			mode = "retry"
		}
		data.DefinitionChanged = changed
	}
	if mode == "retry" {
		out, err := aw.c.Retry(ctx, smclient.RetryInput{ExecutionARN: a.ExecutionARN, MaxParallelSteps: a.Parallelism})
		if err != nil {
			return nil, aw.fail(err)
		}
		data.Mode, data.Execution, data.DefinitionChanged = "retry", *out.Execution, out.DefinitionChanged
		data.Why = "RetryPipelineExecution resumed the execution at its failed steps, with the definition it ran"
		if out.DefinitionChanged {
			warnings = append(warnings, "the pipeline's definition changed since this execution ran, and a retry runs the execution's own definition: the change is not in it (mode rerun runs the failed steps on the current definition)")
		}
		return retryAnswer(aw, data, append(warnings, out.Warnings...)), nil
	}
	ex, err := aw.c.Describe(ctx, a.ExecutionARN)
	if err != nil {
		return nil, aw.fail(err)
	}
	if ex.Status != smclient.StatusFailed && ex.Status != smclient.StatusStopped {
		return nil, aw.fail(&smclient.RetryError{ARN: ex.ARN, Status: ex.Status})
	}
	steps, err := aw.c.Steps(ctx, a.ExecutionARN)
	if err != nil {
		return nil, aw.fail(err)
	}
	var failed []string
	for _, s := range steps {
		if s.Status == smclient.StatusFailed || s.Status == smclient.StatusStopped {
			failed = append(failed, s.Name)
		}
	}
	if len(failed) == 0 {
		return nil, aw.fail(envelope.InvalidInput("execution %s lists no failed or stopped step to re-run: use mode retry", a.ExecutionARN).WithRemedy("call execution.retry with mode retry", "execution.retry"))
	}
	pipe, err := aw.c.DescribePipeline(ctx, ex.PipelineName, 0)
	if err != nil {
		return nil, aw.fail(err)
	}
	g, err := sagemaker.StepGraph(pipe.Definition)
	if err != nil {
		return nil, aw.fail(err)
	}
	var gone []string
	for _, f := range failed {
		if !g.Has(f) {
			gone = append(gone, f)
		}
	}
	if len(gone) > 0 {
		return nil, aw.fail(envelope.InvalidInput("the failed step(s) %s are no longer in the pipeline's definition: start the steps to run by name with execution.start (steps, source_execution_arn)", strings.Join(gone, ", ")).
			WithDetails("steps", g.Steps).WithRemedy("pick the steps of the current definition to run", "execution.start", "pipeline.describe"))
	}
	selected := append(slices.Clone(failed), g.Descendants(failed...)...)
	slices.Sort(selected)
	selected = slices.Compact(selected)
	declared, _ := smclient.DeclaredParameters(pipe.Definition)
	params := map[string]string{}
	for _, p := range declared {
		if v, ok := ex.Parameters[p.Name]; ok {
			params[p.Name] = v
		}
	}
	for name := range ex.Parameters {
		if _, ok := params[name]; !ok {
			warnings = append(warnings, fmt.Sprintf("parameter %s of the failed execution is no longer declared: left out", name))
		}
	}
	out, err := aw.c.Start(ctx, smclient.StartInput{PipelineName: ex.PipelineName, Parameters: params, Steps: selected, SourceExecutionARN: a.ExecutionARN,
		MaxParallelSteps: a.Parallelism, Description: "re-run of " + a.ExecutionARN})
	if err != nil {
		return nil, aw.fail(err)
	}
	data.Mode, data.Execution, data.Selection = "rerun", *out.Execution, out.Selection
	data.Why = fmt.Sprintf("the pipeline's definition changed since the execution ran: a selective execution runs %s on the current definition, reusing the outputs of the steps that succeeded", strings.Join(failed, ", "))
	if a.Mode == "rerun" {
		data.Why = fmt.Sprintf("a selective execution runs %s and the steps after them on the current definition, reusing the outputs of the steps that succeeded", strings.Join(failed, ", "))
	}
	return retryAnswer(aw, data, append(warnings, out.Warnings...)), nil
}

func retryAnswer(aw *awsCall, data ExecutionRetryData, warnings []string) *envelope.Result[ExecutionRetryData] {
	arn := data.Execution.ARN
	return done(aw, envelope.Success(data)).WithWarnings(warnings...).WithNextSteps(
		envelope.NextStep{Tool: "execution.wait", When: "you want the outcome", Why: "polls until it ends", ArgsHint: map[string]any{"execution_arn": arn}},
		envelope.NextStep{Tool: "execution.failure", When: "it fails again", Why: "the failed step, its reason and log", ArgsHint: map[string]any{"execution_arn": arn}},
	)
}
