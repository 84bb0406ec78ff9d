// Package errkind names the kinds of failure an engine error can carry.
// Engine packages never import the tool contract (package envelope); they
// return Go errors, and an error that knows what kind of failure it is says
// so, through a Kind method or by wrapping a kind (New, Errorf, Wrap). The
// tool layer maps each kind onto an envelope code from one table, so it
// needs no case per engine error type; an error without a kind is a bug or
// an unexpected failure (internal_error).
//
// An error may also give the particulars a caller needs to act on it
// (Detailer): the tool layer puts them in the failure's meta.details.
package errkind

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
)

// Kind is a kind of failure.
type Kind string

// The kinds. Each says what went wrong from the caller's side; the tool
// layer's table gives each its envelope code.
const (
	// Unknown: no kind (a bug or an unexpected failure).
	Unknown Kind = ""
	// InvalidInput: the input (an argument, a file's content, a DAG, a
	// config) breaks a rule the caller can fix.
	InvalidInput Kind = "invalid_input"
	// NotFound: a named thing (step, file, node, run, pipeline) does not exist.
	NotFound Kind = "not_found"
	// AlreadyExists: the target exists and overwriting it was not asked for.
	AlreadyExists Kind = "already_exists"
	// Unsupported: the operation cannot be offered (here, or for this input).
	Unsupported Kind = "unsupported"
	// Cancelled: the context was cancelled or its deadline passed.
	Cancelled Kind = "cancelled"
	// TooLarge: an input or an output is over its size limit.
	TooLarge Kind = "too_large"
	// ConfigInvalid: config values break a step's field declarations.
	ConfigInvalid Kind = "config_invalid"
	// NotConstructible: a step fails a gate it must pass to compile.
	NotConstructible Kind = "not_constructible"
	// NotDeployable: a readiness check found blockers before any AWS call.
	NotDeployable Kind = "not_deployable"
	// ScriptAnalysis: a script could not be analysed (unreadable,
	// unparsable, no interpreter, over the analyser's limits).
	ScriptAnalysis Kind = "script_analysis"
	// ScriptCheck: a script and its contract disagree in a blocking way.
	ScriptCheck Kind = "script_check"
	// RunFailed: a local run ran and a step failed or could not run.
	RunFailed Kind = "run_failed"
	// AWS: AWS refused a call that is not a deployment.
	AWS Kind = "aws"
	// UpsertFailed: AWS refused a deployment; nothing took effect.
	UpsertFailed Kind = "upsert_failed"
	// UpsertPartial: a deployment took effect in part.
	UpsertPartial Kind = "upsert_partial"
	// ValidationFailed: a validation ran and found blocking errors.
	ValidationFailed Kind = "validation_failed"
	// WorkflowStopped: a workflow stopped at a phase that needs judgment.
	WorkflowStopped Kind = "workflow_stopped"
	// SandboxUnavailable: code would run, and no sandbox can hold it here.
	SandboxUnavailable Kind = "sandbox_unavailable"
)

// All lists every kind but Unknown.
var All = []Kind{
	InvalidInput, NotFound, AlreadyExists, Unsupported, Cancelled, TooLarge, ConfigInvalid, NotConstructible,
	NotDeployable, ScriptAnalysis, ScriptCheck, RunFailed, AWS, UpsertFailed, UpsertPartial, ValidationFailed,
	WorkflowStopped, SandboxUnavailable,
}

// Kinded is implemented by an error that knows its kind.
type Kinded interface {
	error
	Kind() Kind
}

// Detailer is implemented by an error that gives the particulars a caller
// needs to act on it (the node, the field, the candidates), as JSON-ready
// values keyed by snake_case names.
type Detailer interface {
	Details() map[string]any
}

// Of returns the kind of err: that of the first error in its chain with a
// kind (errors.As on Kinded); Cancelled for a cancelled or expired context;
// NotFound for fs.ErrNotExist; else Unknown.
func Of(err error) Kind {
	if err == nil {
		return Unknown
	}
	var k Kinded
	if errors.As(err, &k) {
		if kind := k.Kind(); kind != Unknown {
			return kind
		}
	}
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return Cancelled
	case errors.Is(err, fs.ErrNotExist):
		return NotFound
	}
	return Unknown
}

// DetailsOf returns the details of the first error in err's chain that
// gives any (Detailer), or nil.
func DetailsOf(err error) map[string]any {
	var d Detailer
	if errors.As(err, &d) {
		return d.Details()
	}
	return nil
}

// Error is an error of a kind: its message, and the error it wraps, if any.
type Error struct {
	K   Kind
	Msg string // the whole message; empty: the wrapped error's
	Err error
}

// Error implements error.
func (e *Error) Error() string {
	switch {
	case e.Msg != "":
		return e.Msg
	case e.Err != nil:
		return e.Err.Error()
	}
	return string(e.K)
}

// Kind implements Kinded.
func (e *Error) Kind() Kind { return e.K }

// Unwrap returns the wrapped error.
func (e *Error) Unwrap() error { return e.Err }

// New returns an error of the kind with the message; a package-level
// sentinel made with it is matched with errors.Is as before.
func New(k Kind, msg string) error { return &Error{K: k, Msg: msg} }

// Errorf returns an error of the kind with a formatted message; %w wraps
// as in fmt.Errorf, and a wrapped error's own kind is shadowed by k.
func Errorf(k Kind, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &Error{K: k, Msg: err.Error(), Err: errors.Unwrap(err)}
}

// Wrap gives err the kind k (nil stays nil). The message is err's.
func Wrap(k Kind, err error) error {
	if err == nil {
		return nil
	}
	return &Error{K: k, Err: err}
}
