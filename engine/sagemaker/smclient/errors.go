package smclient

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/smithy-go"

	"github.com/cursus-go/cursus/engine/errkind"
)

// InputError reports an UpsertInput that fails validation. Upsert checks its whole input before it
// talks to AWS, so an InputError means nothing was uploaded, created or updated.
type InputError struct {
	Field  string // the input field at fault, e.g. "pipeline_name", "manifest[2].local_path"
	Reason string // what is wrong with it
}

// Error implements error.
func (e *InputError) Error() string {
	return fmt.Sprintf("sagemaker upsert: invalid %s: %s", e.Field, e.Reason)
}

// Kind implements errkind.Kinded: InvalidInput (nothing was uploaded or
// created).
func (e *InputError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: the field.
func (e *InputError) Details() map[string]any { return map[string]any{"field": e.Field} }

// UpsertError reports a failed AWS call during Upsert (or a failure to configure the AWS clients).
// Code is the AWS error code taken from the response (smithy.APIError.ErrorCode(), e.g.
// "ValidationException", "AccessDeniedException", "NoSuchBucket"); it is empty when the failure did
// not come from an AWS error response (network failure, missing credentials, cancelled context).
// Uploaded lists the S3 URIs written before the failure, so a caller knows what side effects
// happened. Err is the underlying error (errors.As reaches the SDK's typed errors through it).
type UpsertError struct {
	Op       string   // "config", "s3:HeadObject", "s3:PutObject", "sagemaker:DescribePipeline", "sagemaker:CreatePipeline", "sagemaker:UpdatePipeline", "sagemaker:ListTags", "sagemaker:AddTags"
	Code     string   // AWS error code, or "" (see above)
	Message  string   // AWS error message, or the error text
	Target   string   // the S3 URI or pipeline name the call was about
	Uploaded []string // S3 URIs uploaded before the failure
	Err      error    // underlying error
}

// Error implements error.
func (e *UpsertError) Error() string {
	return "sagemaker upsert: " + failureText(e.Op, e.Target, e.Code, e.Message)
}

// failureText is "<op> [<target>] failed[: <code>][: <message>]".
func failureText(op, target, code, message string) string {
	var b strings.Builder
	b.WriteString(op)
	if target != "" {
		b.WriteString(" " + target)
	}
	b.WriteString(" failed")
	if code != "" {
		b.WriteString(": " + code)
	}
	if message != "" {
		b.WriteString(": " + message)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *UpsertError) Unwrap() error { return e.Err }

// Kind implements errkind.Kinded: Cancelled for a cancelled context, else
// UpsertFailed.
func (e *UpsertError) Kind() errkind.Kind {
	if errors.Is(e.Err, context.Canceled) || errors.Is(e.Err, context.DeadlineExceeded) {
		return errkind.Cancelled
	}
	return errkind.UpsertFailed
}

// Details implements errkind.Detailer: the AWS error code and message, the
// operation, its target and what was uploaded before the failure.
func (e *UpsertError) Details() map[string]any {
	return map[string]any{"aws_error_code": e.Code, "operation": e.Op, "target": e.Target, "uploaded": nonNil(e.Uploaded), "aws_message": e.Message}
}

// PartialError reports an Upsert that changed the live pipeline and then failed: UpdatePipeline
// replaced the definition (a new pipeline version is live) but merging the tags failed. Output says
// what took effect (PipelineARN, Updated, Uploaded, DefinitionS3URI); Failed is the call that
// failed afterwards.
type PartialError struct {
	Output UpsertOutput
	Failed *UpsertError
}

// Error implements error.
func (e *PartialError) Error() string {
	return fmt.Sprintf("sagemaker upsert: partial: pipeline %s was updated and is live, then %s", e.Output.PipelineARN,
		strings.TrimPrefix(e.Failed.Error(), "sagemaker upsert: "))
}

// Unwrap returns the failure that came after the pipeline went live.
func (e *PartialError) Unwrap() error { return e.Failed }

// newUpsertError wraps err from op, pulling the AWS code and message out of a smithy.APIError.
func newUpsertError(op, target string, err error) *UpsertError {
	ue := &UpsertError{Op: op, Target: target, Err: err, Message: err.Error()}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		ue.Code = apiErr.ErrorCode()
		ue.Message = apiErr.ErrorMessage()
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		ue.Message = err.Error()
	}
	return ue
}

// apiErrorCode returns the AWS error code and message of err, if it carries one.
func apiErrorCode(err error) (code, message string) {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode(), apiErr.ErrorMessage()
	}
	return "", ""
}
