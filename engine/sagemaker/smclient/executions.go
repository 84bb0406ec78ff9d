package smclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sm "github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
)

// The pipeline execution statuses SageMaker reports (PipelineExecutionStatus).
const (
	StatusExecuting = "Executing"
	StatusStopping  = "Stopping"
	StatusStopped   = "Stopped"
	StatusFailed    = "Failed"
	StatusSucceeded = "Succeeded"
)

// Terminal reports whether an execution in status will not change any more.
func Terminal(status string) bool {
	return status == StatusStopped || status == StatusFailed || status == StatusSucceeded
}

// AWSError reports a failed SageMaker call of the execution API. Code is the AWS error code
// ("ValidationException", "AccessDeniedException", ...), empty when the failure did not come from
// an AWS error response; NotFound is true when the pipeline or execution does not exist (SageMaker's
// ResourceNotFound, or moto's ValidationException "Could not find ...").
type AWSError struct {
	Op       string // "config", "sagemaker:StartPipelineExecution", ...
	Code     string
	Message  string
	Target   string // the pipeline name or execution ARN the call was about
	NotFound bool
	Err      error
}

// Error implements error.
func (e *AWSError) Error() string { return failureText(e.Op, e.Target, e.Code, e.Message) }

// Unwrap returns the underlying error.
func (e *AWSError) Unwrap() error { return e.Err }

// Kind implements errkind.Kinded: NotFound for a missing pipeline or
// execution, AWS for any other failure.
func (e *AWSError) Kind() errkind.Kind {
	if e.NotFound {
		return errkind.NotFound
	}
	return errkind.AWS
}

// Details implements errkind.Detailer: the operation, its target and the
// AWS error code (and message, but for a missing pipeline or execution).
func (e *AWSError) Details() map[string]any {
	d := map[string]any{"operation": e.Op, "target": e.Target, "aws_error_code": e.Code}
	if !e.NotFound {
		d["aws_message"] = e.Message
	}
	return d
}

func newAWSError(op, target string, err error) *AWSError {
	ue := newUpsertError(op, target, err)
	return &AWSError{Op: op, Code: ue.Code, Message: ue.Message, Target: target, Err: err, NotFound: isNotFound(err)}
}

// asAWSError turns a configuration *UpsertError into an *AWSError.
func asAWSError(err error) error {
	var ue *UpsertError
	if errors.As(err, &ue) {
		return &AWSError{Op: ue.Op, Code: ue.Code, Message: ue.Message, Target: ue.Target, Err: ue.Err}
	}
	return err
}

// isNotFound recognises a missing pipeline or execution: ResourceNotFound, or moto's
// ValidationException "Could not find pipeline (execution) ...".
func isNotFound(err error) bool { return isPipelineNotFound(err) }

// ParameterError reports StartPipelineExecution parameters the pipeline does not declare, or whose
// value its declared type refuses. Nothing was started.
type ParameterError struct {
	Unknown  []string          // names the definition does not declare, sorted
	Invalid  map[string]string // name -> why its value does not fit the declared type
	Declared []string          // the definition's parameter names, sorted
}

// Error implements error.
func (e *ParameterError) Error() string {
	var parts []string
	if len(e.Unknown) > 0 {
		parts = append(parts, fmt.Sprintf("undeclared parameter(s) %s (the pipeline declares %s)", strings.Join(e.Unknown, ", "), declaredList(e.Declared)))
	}
	for _, name := range mapkeys.Sorted(e.Invalid) {
		parts = append(parts, fmt.Sprintf("parameter %s: %s", name, e.Invalid[name]))
	}
	return strings.Join(parts, "; ")
}

// Kind implements errkind.Kinded: InvalidInput (nothing was started).
func (e *ParameterError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: the undeclared names, the refused
// values and the declared names (lists never null).
func (e *ParameterError) Details() map[string]any {
	invalid := e.Invalid
	if invalid == nil {
		invalid = map[string]string{}
	}
	return map[string]any{"unknown": nonNil(e.Unknown), "invalid": invalid, "declared": nonNil(e.Declared)}
}

// nonNil is names, or an empty list for nil.
func nonNil(names []string) []string {
	if names == nil {
		return []string{}
	}
	return names
}

func declaredList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// Parameter is a pipeline parameter as the definition declares it.
type Parameter struct {
	Name         string `json:"name"`
	Type         string `json:"type"` // String, Integer, Float or Boolean
	DefaultValue any    `json:"default_value,omitempty"`
}

// DeclaredParameters reads the Parameters of a pipeline definition.
func DeclaredParameters(definitionJSON string) ([]Parameter, error) {
	var def struct {
		Parameters []struct {
			Name         string `json:"Name"`
			Type         string `json:"Type"`
			DefaultValue any    `json:"DefaultValue"`
		} `json:"Parameters"`
	}
	if err := json.Unmarshal([]byte(definitionJSON), &def); err != nil {
		return nil, fmt.Errorf("the pipeline definition is not a JSON object with Parameters: %w", err)
	}
	out := make([]Parameter, 0, len(def.Parameters))
	for _, p := range def.Parameters {
		t := p.Type
		if t == "" {
			t = "String" // the schema's default
		}
		out = append(out, Parameter{Name: p.Name, Type: t, DefaultValue: p.DefaultValue})
	}
	return out, nil
}

// CheckParameters checks values (name -> value as StartPipelineExecution sends it, a string)
// against the declared parameters: every name declared, every value fitting its type (Integer: a
// whole number; Float: a number; Boolean: true or false). It returns a *ParameterError or nil.
func CheckParameters(declared []Parameter, values map[string]string) error {
	byName := make(map[string]Parameter, len(declared))
	names := make([]string, 0, len(declared))
	for _, p := range declared {
		byName[p.Name] = p
		names = append(names, p.Name)
	}
	slices.Sort(names)
	pe := &ParameterError{Invalid: map[string]string{}, Declared: names}
	for _, name := range mapkeys.Sorted(values) {
		p, ok := byName[name]
		if !ok {
			pe.Unknown = append(pe.Unknown, name)
			continue
		}
		v := values[name]
		switch p.Type {
		case "Integer":
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				pe.Invalid[name] = fmt.Sprintf("%q is not an integer (the parameter is Integer)", v)
			}
		case "Float":
			if f, err := strconv.ParseFloat(v, 64); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				pe.Invalid[name] = fmt.Sprintf("%q is not a number (the parameter is Float)", v)
			}
		case "Boolean":
			if v != "true" && v != "false" {
				pe.Invalid[name] = fmt.Sprintf("%q is not true or false (the parameter is Boolean)", v)
			}
		}
		if len(v) > 1024 {
			pe.Invalid[name] = fmt.Sprintf("the value is %d characters; StartPipelineExecution takes at most 1024", len(v))
		}
	}
	if len(pe.Unknown) == 0 && len(pe.Invalid) == 0 {
		return nil
	}
	return pe
}

// Execution is one pipeline execution as DescribePipelineExecution (and, for Parameters,
// ListPipelineParametersForExecution) answers it.
type Execution struct {
	ARN              string            `json:"execution_arn"`
	PipelineName     string            `json:"pipeline_name"`
	PipelineARN      string            `json:"pipeline_arn,omitempty"`
	Status           string            `json:"status"`
	DisplayName      string            `json:"display_name,omitempty"`
	Description      string            `json:"description,omitempty"`
	FailureReason    string            `json:"failure_reason,omitempty"`
	CreationTime     *time.Time        `json:"creation_time,omitempty"`
	LastModifiedTime *time.Time        `json:"last_modified_time,omitempty"`
	Parameters       map[string]string `json:"parameters,omitempty"`
}

// ExecutionSummary is one entry of ListPipelineExecutions.
type ExecutionSummary struct {
	ARN           string     `json:"execution_arn"`
	Status        string     `json:"status"`
	DisplayName   string     `json:"display_name,omitempty"`
	FailureReason string     `json:"failure_reason,omitempty"`
	StartTime     *time.Time `json:"start_time,omitempty"`
}

// StepExecution is one step of an execution as ListPipelineExecutionSteps answers it, with the job
// it ran and where that job's logs are.
type StepExecution struct {
	Name          string     `json:"step_name"`
	DisplayName   string     `json:"display_name,omitempty"`
	Status        string     `json:"status"` // Starting, Executing, Stopping, Stopped, Failed, Succeeded
	StartTime     *time.Time `json:"start_time,omitempty"`
	EndTime       *time.Time `json:"end_time,omitempty"`
	FailureReason string     `json:"failure_reason,omitempty"`
	AttemptCount  int        `json:"attempt_count,omitempty"`
	// Kind names the metadata SageMaker gave the step: TrainingJob, ProcessingJob, TransformJob,
	// TuningJob, Model, RegisterModel, Condition, Fail, Lambda, Callback, EMR, QualityCheck,
	// ClarifyCheck, AutoMLJob, ... ("" when it gave none, e.g. before the step started).
	Kind string `json:"kind,omitempty"`
	// JobARN is the ARN of what the step ran or made (job, model, model package, function).
	JobARN string `json:"job_arn,omitempty"`
	// JobName is the last segment of JobARN.
	JobName string `json:"job_name,omitempty"`
	// Logs is where the job's CloudWatch logs are, for steps that run a job.
	Logs *LogLocation `json:"logs,omitempty"`
	// Outcome is a Condition step's outcome (True, False); ErrorMessage a Fail step's message.
	Outcome      string `json:"outcome,omitempty"`
	ErrorMessage string `json:"error_message,omitempty"`
	// CacheHitSource is the execution whose cached result the step reused, if any.
	CacheHitSource string `json:"cache_hit_source_execution_arn,omitempty"`
}

// LogLocation names a job's CloudWatch logs as SageMaker writes them: the log group, and the prefix
// every stream of the job starts with (a training job's streams are <job>/algo-<n>-<epoch>, a
// processing job's the same, a transform job's <job>/<instance-id>; a tuning job's training jobs
// are named <tuning job>-<nnn>-<id>). Where a step writes elsewhere (an EMR step to S3), S3URI says
// where.
type LogLocation struct {
	LogGroup        string `json:"log_group,omitempty"`
	LogStreamPrefix string `json:"log_stream_prefix,omitempty"`
	S3URI           string `json:"s3_uri,omitempty"`
}

// PipelineNameOfExecution returns the pipeline name in an execution ARN
// (arn:aws:sagemaker:<region>:<account>:pipeline/<name>/execution/<id>), or "".
func PipelineNameOfExecution(arn string) string {
	_, rest, ok := strings.Cut(arn, ":pipeline/")
	if !ok {
		return ""
	}
	name, _, ok := strings.Cut(rest, "/execution/")
	if !ok {
		return ""
	}
	return name
}

// ValidateExecutionARN checks the shape SageMaker requires of an execution ARN.
func ValidateExecutionARN(arn string) error {
	if !strings.HasPrefix(arn, "arn:aws") || !strings.Contains(arn, ":sagemaker:") || PipelineNameOfExecution(arn) == "" ||
		strings.HasSuffix(arn, "/execution/") || len(arn) > 2048 {
		return fmt.Errorf("%q is not a pipeline execution ARN (arn:aws:sagemaker:<region>:<account>:pipeline/<name>/execution/<id>)", arn)
	}
	return nil
}

// Describe answers an execution's status, times, failure reason and parameter values.
func (c *Client) Describe(ctx context.Context, arn string) (*Execution, error) {
	ex, err := c.describe(ctx, arn)
	if err != nil {
		return nil, err
	}
	params := map[string]string{}
	p := sm.NewListPipelineParametersForExecutionPaginator(c.sm, &sm.ListPipelineParametersForExecutionInput{PipelineExecutionArn: aws.String(arn)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, newAWSError("sagemaker:ListPipelineParametersForExecution", arn, err)
		}
		for _, kv := range page.PipelineParameters {
			params[aws.ToString(kv.Name)] = aws.ToString(kv.Value)
		}
	}
	ex.Parameters = params
	return ex, nil
}

// describe is DescribePipelineExecution alone (what Wait polls).
func (c *Client) describe(ctx context.Context, arn string) (*Execution, error) {
	out, err := c.sm.describePipelineExecution(ctx, &sm.DescribePipelineExecutionInput{PipelineExecutionArn: aws.String(arn)})
	if err != nil {
		return nil, newAWSError("sagemaker:DescribePipelineExecution", arn, err)
	}
	got := aws.ToString(out.PipelineExecutionArn)
	if got == "" {
		got = arn
	}
	return &Execution{
		ARN:              got,
		PipelineName:     PipelineNameOfExecution(got),
		PipelineARN:      aws.ToString(out.PipelineArn),
		Status:           string(out.PipelineExecutionStatus),
		DisplayName:      aws.ToString(out.PipelineExecutionDisplayName),
		Description:      aws.ToString(out.PipelineExecutionDescription),
		FailureReason:    aws.ToString(out.FailureReason),
		CreationTime:     out.CreationTime,
		LastModifiedTime: out.LastModifiedTime,
	}, nil
}

// List answers a pipeline's executions, newest first, at most max (1-1000; 0 means 20).
func (c *Client) List(ctx context.Context, pipelineName string, max int) ([]ExecutionSummary, error) {
	if max <= 0 {
		max = 20
	}
	out := []ExecutionSummary{}
	p := sm.NewListPipelineExecutionsPaginator(c.sm, &sm.ListPipelineExecutionsInput{
		PipelineName: aws.String(pipelineName), SortBy: smtypes.SortPipelineExecutionsByCreationTime,
		SortOrder: smtypes.SortOrderDescending, MaxResults: aws.Int32(int32(min(max, 100))),
	})
	for p.HasMorePages() && len(out) < max {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, newAWSError("sagemaker:ListPipelineExecutions", pipelineName, err)
		}
		for _, s := range page.PipelineExecutionSummaries {
			if len(out) == max {
				break
			}
			reason := aws.ToString(s.PipelineExecutionFailureReason)
			if reason == "None" { // moto writes Python's None for "no reason"
				reason = ""
			}
			out = append(out, ExecutionSummary{ARN: aws.ToString(s.PipelineExecutionArn), Status: string(s.PipelineExecutionStatus),
				DisplayName: aws.ToString(s.PipelineExecutionDisplayName), FailureReason: reason, StartTime: s.StartTime})
		}
	}
	return out, nil
}

// Steps answers an execution's steps in the order they started (ListPipelineExecutionSteps,
// ascending), each with its status, times, failure reason, job ARN and log location.
func (c *Client) Steps(ctx context.Context, arn string) ([]StepExecution, error) {
	out := []StepExecution{}
	p := sm.NewListPipelineExecutionStepsPaginator(c.sm, &sm.ListPipelineExecutionStepsInput{
		PipelineExecutionArn: aws.String(arn), SortOrder: smtypes.SortOrderAscending,
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, newAWSError("sagemaker:ListPipelineExecutionSteps", arn, err)
		}
		for _, s := range page.PipelineExecutionSteps {
			out = append(out, stepOf(s))
		}
	}
	return out, nil
}

func stepOf(s smtypes.PipelineExecutionStep) StepExecution {
	st := StepExecution{
		Name: aws.ToString(s.StepName), DisplayName: aws.ToString(s.StepDisplayName), Status: string(s.StepStatus),
		StartTime: s.StartTime, EndTime: s.EndTime, FailureReason: aws.ToString(s.FailureReason),
		AttemptCount: int(aws.ToInt32(s.AttemptCount)),
	}
	if s.CacheHitResult != nil {
		st.CacheHitSource = aws.ToString(s.CacheHitResult.SourcePipelineExecutionArn)
	}
	m := s.Metadata
	if m == nil {
		return st
	}
	job := func(kind string, arn *string, group string) {
		st.Kind, st.JobARN = kind, aws.ToString(arn)
		if i := strings.LastIndexByte(st.JobARN, '/'); i >= 0 {
			st.JobName = st.JobARN[i+1:]
		}
		if group != "" && st.JobName != "" {
			st.Logs = &LogLocation{LogGroup: group, LogStreamPrefix: st.JobName + "/"}
		}
	}
	switch {
	case m.TrainingJob != nil:
		job("TrainingJob", m.TrainingJob.Arn, "/aws/sagemaker/TrainingJobs")
	case m.ProcessingJob != nil:
		job("ProcessingJob", m.ProcessingJob.Arn, "/aws/sagemaker/ProcessingJobs")
	case m.TransformJob != nil:
		job("TransformJob", m.TransformJob.Arn, "/aws/sagemaker/TransformJobs")
	case m.TuningJob != nil:
		job("TuningJob", m.TuningJob.Arn, "")
		if st.JobName != "" {
			st.Logs = &LogLocation{LogGroup: "/aws/sagemaker/TrainingJobs", LogStreamPrefix: st.JobName + "-"}
		}
	case m.QualityCheck != nil:
		job("QualityCheck", m.QualityCheck.CheckJobArn, "/aws/sagemaker/ProcessingJobs")
	case m.ClarifyCheck != nil:
		job("ClarifyCheck", m.ClarifyCheck.CheckJobArn, "/aws/sagemaker/ProcessingJobs")
	case m.Model != nil:
		job("Model", m.Model.Arn, "")
	case m.RegisterModel != nil:
		job("RegisterModel", m.RegisterModel.Arn, "")
	case m.Lambda != nil:
		job("Lambda", m.Lambda.Arn, "")
		if fn := lambdaFunctionName(st.JobARN); fn != "" {
			st.JobName = fn
			st.Logs = &LogLocation{LogGroup: "/aws/lambda/" + fn}
		}
	case m.AutoMLJob != nil:
		job("AutoMLJob", m.AutoMLJob.Arn, "")
	case m.Endpoint != nil:
		job("Endpoint", m.Endpoint.Arn, "")
	case m.EndpointConfig != nil:
		job("EndpointConfig", m.EndpointConfig.Arn, "")
	case m.Job != nil:
		job("Job", m.Job.Arn, "")
	case m.Condition != nil:
		st.Kind, st.Outcome = "Condition", string(m.Condition.Outcome)
	case m.Fail != nil:
		st.Kind, st.ErrorMessage = "Fail", aws.ToString(m.Fail.ErrorMessage)
	case m.Callback != nil:
		st.Kind = "Callback"
	case m.EMR != nil:
		st.Kind, st.JobName = "EMR", aws.ToString(m.EMR.StepId)
		if p := aws.ToString(m.EMR.LogFilePath); p != "" {
			st.Logs = &LogLocation{S3URI: p}
		}
	}
	return st
}

// lambdaFunctionName is the function name of arn:aws:lambda:<region>:<account>:function:<name>[:<qualifier>].
func lambdaFunctionName(arn string) string {
	_, rest, ok := strings.Cut(arn, ":function:")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, ":")
	return name
}

// Stop asks SageMaker to stop an execution (StopPipelineExecution) and describes it: its status is
// then Stopping (or already terminal).
func (c *Client) Stop(ctx context.Context, arn string) (*Execution, error) {
	if _, err := c.sm.stopPipelineExecution(ctx, &sm.StopPipelineExecutionInput{PipelineExecutionArn: aws.String(arn)}); err != nil {
		return nil, newAWSError("sagemaker:StopPipelineExecution", arn, err)
	}
	return c.describe(ctx, arn)
}

// WaitOptions tune Wait.
type WaitOptions struct {
	// Timeout is how long to wait in all; 0 means wait until ctx ends.
	Timeout time.Duration
	// Interval is the first pause between polls (0: 2s); each pause is 1.5 times the last, up to
	// MaxInterval (0: 30s), and never past the timeout.
	Interval, MaxInterval time.Duration
	// OnPoll, when set, is called after every poll with the execution and the time waited so far.
	OnPoll func(ex *Execution, waited time.Duration)
}

// Wait polls DescribePipelineExecution with backoff until the execution reaches a terminal status
// (Stopped, Failed, Succeeded) or the timeout passes. It returns the last answer and whether it
// gave up (timedOut). A cancelled ctx ends the wait with ctx's error.
func (c *Client) Wait(ctx context.Context, arn string, o WaitOptions) (ex *Execution, timedOut bool, err error) {
	interval, maxInterval := o.Interval, o.MaxInterval
	if interval <= 0 {
		interval = 2 * time.Second
	}
	if maxInterval <= 0 {
		maxInterval = 30 * time.Second
	}
	start := time.Now()
	var deadline time.Time
	if o.Timeout > 0 {
		deadline = start.Add(o.Timeout)
	}
	for {
		ex, err = c.describe(ctx, arn)
		if err != nil {
			return nil, false, err
		}
		if o.OnPoll != nil {
			o.OnPoll(ex, time.Since(start))
		}
		if Terminal(ex.Status) {
			return ex, false, nil
		}
		pause := interval
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return ex, true, nil
			}
			pause = min(pause, left)
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return ex, false, ctx.Err()
		case <-t.C:
		}
		interval = min(time.Duration(float64(interval)*1.5), maxInterval)
	}
}
