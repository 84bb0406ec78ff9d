package envelope

import "slices"

// Code is a machine-readable failure code. Every code any tool uses is one of
// the constants below. It is a defined type: compare a code read from
// decoded JSON (a string) with string(code).
type Code string

// String returns the code as it appears on the wire.
func (c Code) String() string { return string(c) }

// Known reports whether c is one of AllCodes.
func (c Code) Known() bool { return slices.Contains(AllCodes, c) }

// Failure codes.
const (
	// CodeToolError is the default code of a failure that names no other.
	CodeToolError Code = "tool_error"
	// CodeInvalidInput: the arguments break the schema or a semantic rule.
	CodeInvalidInput Code = "invalid_input"
	// CodeNotFound: a named step, file, tool, namespace or id does not exist.
	CodeNotFound Code = "not_found"
	// CodeInternalError: a bug or an unexpected failure (including a recovered panic).
	CodeInternalError Code = "internal_error"
	// CodeUnknownTool: no tool has that name.
	CodeUnknownTool Code = "unknown_tool"
	// CodeToolDisabled: the tool exists but a safety gate of the caller's policy is closed.
	CodeToolDisabled Code = "tool_disabled"
	// CodeToolNotInStage: the tool exists but the session's active stage does not offer it.
	CodeToolNotInStage Code = "tool_not_in_stage"
	// CodeAlreadyExists: the target exists and overwrite was not asked for.
	CodeAlreadyExists Code = "already_exists"
	// CodeUnsupported: the operation cannot be offered.
	CodeUnsupported Code = "unsupported"
	// CodeAWSError: SageMaker refused a call that is not a deployment (an execution call);
	// details carry the AWS error code and the operation.
	CodeAWSError Code = "aws_error"
	// CodeUpsertFailed: SageMaker or S3 refused the deployment; details carry the AWS error code.
	CodeUpsertFailed Code = "upsert_failed"
	// CodeUpsertPartial: a deployment took effect in part (e.g. UpdatePipeline went live, then
	// AddTags failed); data says what went live, details carry the failed call's AWS error code.
	CodeUpsertPartial Code = "upsert_partial"
	// CodeValidationFailed: a validation ran and found blocking errors.
	CodeValidationFailed Code = "validation_failed"
	// CodeNotConstructible: a step fails one of the gates it must pass to compile.
	CodeNotConstructible Code = "not_constructible"
	// CodeConfigInvalid: config values break a step's field declarations.
	CodeConfigInvalid Code = "config_invalid"
	// CodeScriptAnalysisError: a script could not be analysed (unreadable, unparsable).
	CodeScriptAnalysisError Code = "script_analysis_error"
	// CodeScriptCheckFailed: a script and its contract disagree in a blocking way.
	CodeScriptCheckFailed Code = "script_check_failed"
	// CodeCancelled: the caller's context was cancelled or timed out.
	CodeCancelled Code = "cancelled"
	// CodeRunFailed: a local pipeline run ran and a step failed (or could not
	// run); details carry every step's result and the failing step's log.
	CodeRunFailed Code = "run_failed"
	// CodeGateFailed: a gate a workflow checks itself did not hold (a DAG
	// with no nodes, a ledger that names no placeholder, a tool's answer that
	// lacks what the phase needs). It is the code of a run's failed gate in
	// workflow.run's meta.details, never the answer of a tool called alone.
	CodeGateFailed Code = "gate_failed"
	// CodeWorkflowStopped: a workflow stopped at a phase that needs judgment or failed a gate.
	CodeWorkflowStopped Code = "workflow_stopped"
	// CodeNotDeployable: a deployment was refused before any AWS call because the
	// readiness gate found blockers (placeholders, missing code, ...); details list them.
	CodeNotDeployable Code = "not_deployable"
	// CodeTooLarge: an argument, a file read or the answer is over its size
	// limit; meta.details names the limit, and the remedy the argument that
	// narrows the input or the answer.
	CodeTooLarge Code = "too_large"
	// CodeSandboxUnavailable: the call would run a script and no sandbox can
	// hold it on this machine (bubblewrap is missing or cannot make its
	// namespaces); the remedy says how to install one. Nothing ran.
	CodeSandboxUnavailable Code = "sandbox_unavailable"
	// CodeTooManyCalls: the session already runs as many calls as one
	// session may run at once; nothing of this one ran. Wait for an answer,
	// then call again.
	CodeTooManyCalls Code = "too_many_calls"
)

// AllCodes lists every code, sorted.
var AllCodes = []Code{
	CodeAlreadyExists, CodeAWSError, CodeCancelled, CodeConfigInvalid, CodeGateFailed, CodeInternalError, CodeInvalidInput,
	CodeNotConstructible, CodeNotDeployable, CodeNotFound, CodeRunFailed, CodeSandboxUnavailable, CodeScriptAnalysisError, CodeScriptCheckFailed,
	CodeTooLarge, CodeTooManyCalls, CodeToolDisabled, CodeToolError, CodeToolNotInStage, CodeUnknownTool, CodeUnsupported,
	CodeUpsertFailed, CodeUpsertPartial, CodeValidationFailed, CodeWorkflowStopped,
}
