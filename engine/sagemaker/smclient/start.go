package smclient

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	sm "github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/engine/sagemaker"
)

// StartInput is what Start starts.
type StartInput struct {
	PipelineName string
	// Parameters are the execution's parameter values by name, as strings (SageMaker's
	// PipelineParameters). Each must be declared by the pipeline's definition.
	Parameters  map[string]string
	DisplayName string
	Description string
	// Steps, when given, makes a selective execution: only these steps run, on the pipeline's
	// current definition; the steps they read from and do not run give their outputs from
	// SourceExecutionARN, and the steps after them that are not selected do not run.
	Steps []string
	// SourceExecutionARN is the execution (of the same pipeline, ended) the selected steps take
	// those outputs from. Empty takes the latest execution that ended, as the SageMaker Python
	// SDK's reference_latest_execution does; it is needed only when a selected step reads a step
	// that is not selected.
	SourceExecutionARN string
	// MaxParallelSteps, when above 0, is this execution's ParallelismConfiguration: at most this
	// many steps run at once (it overrides the pipeline's).
	MaxParallelSteps int
}

// Selection says what a selective execution runs and reuses.
type Selection struct {
	Steps []string `json:"steps"`
	// SourceExecutionARN is the execution the reused outputs come from ("" when none is needed).
	SourceExecutionARN string `json:"source_execution_arn,omitempty"`
	// Reused are the steps not selected whose outputs the selected steps read (from the source).
	Reused []string `json:"reused"`
	// NotRun are the steps after the selected ones that are not selected: they do not run.
	NotRun []string `json:"not_run"`
}

// StartOutput is what Start did.
type StartOutput struct {
	// Execution is the execution started. Once StartPipelineExecution succeeded it is never nil:
	// when describing it failed afterwards it holds the ARN and pipeline name with status
	// Executing, and Warnings says so.
	Execution *Execution
	// Selection is the selective execution's steps (nil for a whole run).
	Selection *Selection
	// Warnings are checks that could not be made and failures after the start.
	Warnings []string
}

// SourceError reports a source execution a selective execution cannot take outputs from: of
// another pipeline, still running, or without a succeeded run of a step the selection reads.
type SourceError struct {
	ARN    string
	Reason string
}

// Error implements error.
func (e *SourceError) Error() string {
	if e.ARN == "" {
		return "source execution: " + e.Reason
	}
	return fmt.Sprintf("source execution %s: %s", e.ARN, e.Reason)
}

// Kind implements errkind.Kinded: InvalidInput (nothing was started).
func (e *SourceError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer.
func (e *SourceError) Details() map[string]any {
	return map[string]any{"source_execution_arn": e.ARN}
}

// Start checks in against the pipeline's current definition (DescribePipeline): every parameter
// declared and of its type (else a *ParameterError), and for a selective execution the steps
// (else a *sagemaker.SelectionError) and the source execution (else a *SourceError); nothing is
// started when a check fails. It then starts the execution (StartPipelineExecution, whose
// idempotency token the SDK fills) and describes it.
func (c *Client) Start(ctx context.Context, in StartInput) (*StartOutput, error) {
	pipe, err := c.sm.describePipeline(ctx, &sm.DescribePipelineInput{PipelineName: aws.String(in.PipelineName)})
	if err != nil {
		return nil, newAWSError("sagemaker:DescribePipeline", in.PipelineName, err)
	}
	def := aws.ToString(pipe.PipelineDefinition)
	declared, err := DeclaredParameters(def)
	if err != nil {
		return nil, &AWSError{Op: "sagemaker:DescribePipeline", Target: in.PipelineName, Message: err.Error(), Err: err}
	}
	if err := CheckParameters(declared, in.Parameters); err != nil {
		return nil, err
	}
	out := &StartOutput{}
	req := &sm.StartPipelineExecutionInput{
		PipelineName:                 aws.String(in.PipelineName),
		PipelineParameters:           sdkParameters(in.Parameters),
		PipelineExecutionDisplayName: optString(in.DisplayName),
		PipelineExecutionDescription: optString(in.Description),
	}
	if in.MaxParallelSteps > 0 {
		req.ParallelismConfiguration = &smtypes.ParallelismConfiguration{MaxParallelExecutionSteps: aws.Int32(int32(in.MaxParallelSteps))}
	}
	if len(in.Steps) > 0 {
		sel, warnings, err := c.selection(ctx, in, def)
		if err != nil {
			return nil, err
		}
		out.Selection, out.Warnings = sel, warnings
		cfg := &smtypes.SelectiveExecutionConfig{SourcePipelineExecutionArn: optString(sel.SourceExecutionARN)}
		for _, s := range sel.Steps {
			cfg.SelectedSteps = append(cfg.SelectedSteps, smtypes.SelectedStep{StepName: aws.String(s)})
		}
		req.SelectiveExecutionConfig = cfg
	}
	started, err := c.sm.startPipelineExecution(ctx, req)
	if err != nil {
		return nil, newAWSError("sagemaker:StartPipelineExecution", in.PipelineName, err)
	}
	arn := aws.ToString(started.PipelineExecutionArn)
	out.Execution, err = c.Describe(ctx, arn)
	if err != nil {
		out.Execution = &Execution{ARN: arn, PipelineName: in.PipelineName, PipelineARN: aws.ToString(pipe.PipelineArn), Status: StatusExecuting}
		out.Warnings = append(out.Warnings, fmt.Sprintf("the execution started (%s), but reading it back failed: %v; its status is not read (shown as Executing): ask execution.describe, and do not start it again", arn, err))
	}
	return out, nil
}

// sdkParameters are the values as StartPipelineExecution's PipelineParameters, sorted by name.
func sdkParameters(values map[string]string) []smtypes.Parameter {
	params := make([]smtypes.Parameter, 0, len(values))
	for _, name := range mapkeys.Sorted(values) {
		params = append(params, smtypes.Parameter{Name: aws.String(name), Value: aws.String(values[name])})
	}
	return params
}

// selection checks a selective execution's steps against the definition and finds and checks its
// source execution.
func (c *Client) selection(ctx context.Context, in StartInput, def string) (*Selection, []string, error) {
	g, err := sagemaker.StepGraph(def)
	if err != nil {
		return nil, nil, &AWSError{Op: "sagemaker:DescribePipeline", Target: in.PipelineName, Message: err.Error(), Err: err}
	}
	needs, err := g.CheckSelection(in.Steps)
	if err != nil {
		return nil, nil, err
	}
	sel := &Selection{Steps: slices.Clone(in.Steps), Reused: needs, NotRun: []string{}}
	for _, d := range g.Descendants(in.Steps...) {
		if !slices.Contains(in.Steps, d) {
			sel.NotRun = append(sel.NotRun, d)
		}
	}
	src := in.SourceExecutionARN
	if src == "" && len(needs) == 0 {
		return sel, nil, nil
	}
	if src == "" {
		list, err := c.List(ctx, in.PipelineName, 20)
		if err != nil {
			return nil, nil, err
		}
		for _, e := range list {
			if Terminal(e.Status) {
				src = e.ARN
				break
			}
		}
		if src == "" {
			return nil, nil, &SourceError{Reason: fmt.Sprintf("the selected steps read %s, which they do not run, and no execution of %s has ended to take their outputs from: run the whole pipeline first, or select those steps too",
				joinNames(needs), in.PipelineName)}
		}
	} else {
		if err := ValidateExecutionARN(src); err != nil {
			return nil, nil, &SourceError{ARN: src, Reason: err.Error()}
		}
		if p := PipelineNameOfExecution(src); p != in.PipelineName {
			return nil, nil, &SourceError{ARN: src, Reason: fmt.Sprintf("it is an execution of %s, not of %s", p, in.PipelineName)}
		}
		ex, err := c.describe(ctx, src)
		if err != nil {
			return nil, nil, err
		}
		if !Terminal(ex.Status) {
			return nil, nil, &SourceError{ARN: src, Reason: fmt.Sprintf("it is %s; a source execution must have ended (Succeeded, Failed or Stopped)", ex.Status)}
		}
	}
	sel.SourceExecutionARN = src
	if len(needs) == 0 {
		return sel, nil, nil
	}
	steps, err := c.Steps(ctx, src)
	if err != nil {
		return sel, []string{fmt.Sprintf("could not check that %s succeeded in the source execution: %v", joinNames(needs), err)}, nil
	}
	status := map[string]string{}
	for _, s := range steps {
		status[s.Name] = s.Status
	}
	var bad []string
	for _, n := range needs {
		if status[n] != StatusSucceeded {
			st := status[n]
			if st == "" {
				st = "did not run"
			}
			bad = append(bad, fmt.Sprintf("%s (%s)", n, st))
		}
	}
	if len(bad) > 0 {
		return nil, nil, &SourceError{ARN: src, Reason: fmt.Sprintf("the selected steps read %s, which did not succeed there: select them too, or take another source execution", joinNames(bad))}
	}
	return sel, nil, nil
}

func joinNames(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return fmt.Sprintf("%s and %s", joinComma(names[:len(names)-1]), names[len(names)-1])
}

func joinComma(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}

// RetryInput is what Retry retries.
type RetryInput struct {
	ExecutionARN string
	// MaxParallelSteps, when above 0, overrides the pipeline's ParallelismConfiguration for the
	// retry.
	MaxParallelSteps int
}

// RetryOutput is what Retry did.
type RetryOutput struct {
	Execution *Execution
	// DefinitionChanged is true when the pipeline's current definition differs from the one the
	// execution ran with (an upsert since): the retry runs the execution's own definition.
	DefinitionChanged bool
	Warnings          []string
}

// RetryError reports an execution that cannot be retried: it has not failed (or stopped).
type RetryError struct {
	ARN, Status string
}

// Error implements error.
func (e *RetryError) Error() string {
	return fmt.Sprintf("execution %s is %s: only a Failed or Stopped execution can be retried", e.ARN, e.Status)
}

// Kind implements errkind.Kinded: InvalidInput.
func (e *RetryError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer.
func (e *RetryError) Details() map[string]any {
	return map[string]any{"execution_arn": e.ARN, "status": e.Status}
}

// Retry retries a Failed or Stopped execution (RetryPipelineExecution, whose idempotency token the
// SDK fills): the same execution resumes with the failed steps. It first compares the definition
// the execution ran with (DescribePipelineDefinitionForExecution) with the pipeline's current one
// and says in DefinitionChanged when an upsert changed it, since the retry runs the execution's.
// An execution in another status is a *RetryError and nothing is sent.
func (c *Client) Retry(ctx context.Context, in RetryInput) (*RetryOutput, error) {
	ex, err := c.describe(ctx, in.ExecutionARN)
	if err != nil {
		return nil, err
	}
	if ex.Status != StatusFailed && ex.Status != StatusStopped {
		return nil, &RetryError{ARN: in.ExecutionARN, Status: ex.Status}
	}
	out := &RetryOutput{}
	changed, err := c.DefinitionChanged(ctx, in.ExecutionARN)
	if err != nil {
		out.Warnings = append(out.Warnings, "could not compare the execution's definition with the pipeline's current one: "+err.Error())
	}
	out.DefinitionChanged = changed
	req := &sm.RetryPipelineExecutionInput{PipelineExecutionArn: aws.String(in.ExecutionARN)}
	if in.MaxParallelSteps > 0 {
		req.ParallelismConfiguration = &smtypes.ParallelismConfiguration{MaxParallelExecutionSteps: aws.Int32(int32(in.MaxParallelSteps))}
	}
	res, err := c.sm.retryPipelineExecution(ctx, req)
	if err != nil {
		return nil, newAWSError("sagemaker:RetryPipelineExecution", in.ExecutionARN, err)
	}
	arn := aws.ToString(res.PipelineExecutionArn)
	if arn == "" {
		arn = in.ExecutionARN
	}
	out.Execution, err = c.describe(ctx, arn)
	if err != nil {
		ex.Status = StatusExecuting
		out.Execution = ex
		out.Warnings = append(out.Warnings, fmt.Sprintf("the retry was accepted, but reading the execution back failed: %v; do not retry it again before execution.describe says it ended", err))
	}
	return out, nil
}

// DefinitionChanged reports whether the pipeline's current definition differs (as JSON) from the
// one the execution ran with.
func (c *Client) DefinitionChanged(ctx context.Context, arn string) (bool, error) {
	ran, err := c.ExecutionDefinition(ctx, arn)
	if err != nil {
		return false, err
	}
	p, err := c.DescribePipeline(ctx, PipelineNameOfExecution(arn), 0)
	if err != nil {
		return false, err
	}
	return !JSONEqual(ran, p.Definition), nil
}
