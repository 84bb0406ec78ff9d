package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/runs"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrUnknownWorkflow: no workflow has the name (see *UnknownWorkflowError).
	ErrUnknownWorkflow = errors.New("unknown workflow")
	// ErrRunNotFound: no run folder with a run state has the id (the run
	// folder's own error, runs.ErrNotFound, which the guided stages answer
	// too).
	ErrRunNotFound = runs.ErrNotFound
	// ErrRunBusy: another process is running the same run.
	ErrRunBusy = errors.New("run is busy")
	// ErrInvalidArgs: the workflow arguments break its declared arguments (see *ArgsError).
	ErrInvalidArgs = errors.New("invalid workflow arguments")
	// ErrRunFinished: the run to resume is already done.
	ErrRunFinished = errors.New("run already finished")
)

// UnknownWorkflowError names a workflow that does not exist and the ones that do.
type UnknownWorkflowError struct {
	Name      string
	Available []string
}

// Error implements the error interface.
func (e *UnknownWorkflowError) Error() string {
	return fmt.Sprintf("unknown workflow %q (available: %s)", e.Name, strings.Join(e.Available, ", "))
}

// Is makes errors.Is(err, ErrUnknownWorkflow) true.
func (e *UnknownWorkflowError) Is(target error) bool { return target == ErrUnknownWorkflow }

// ArgsError lists every problem with a workflow's arguments, one line each
// ("name: must be a non-empty string").
type ArgsError struct {
	Workflow string
	Problems []string
}

// Error implements the error interface.
func (e *ArgsError) Error() string {
	return fmt.Sprintf("workflow %s: invalid arguments: %s", e.Workflow, strings.Join(e.Problems, "; "))
}

// Is makes errors.Is(err, ErrInvalidArgs) true.
func (e *ArgsError) Is(target error) bool { return target == ErrInvalidArgs }

// RunError is a problem with a run folder: an id that is not a legal folder
// name, a state file that cannot be read, a run of another workflow.
type RunError struct {
	RunID string
	Msg   string
	Err   error // optional cause
}

// Error implements the error interface.
func (e *RunError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("run %s: %s: %v", e.RunID, e.Msg, e.Err)
	}
	return fmt.Sprintf("run %s: %s", e.RunID, e.Msg)
}

// Unwrap returns the cause.
func (e *RunError) Unwrap() error { return e.Err }

// GateFailure is what a phase returns when a gate does not hold. When the
// gate is a tool's answer, Tool, Code and Envelope are that tool's.
type GateFailure struct {
	// Tool is the tool whose answer failed the gate ("" for a check the
	// workflow makes itself on tool results or files).
	Tool string
	// Code is the tool's failure code, or envelope.CodeGateFailed for a
	// check the workflow makes itself.
	Code envelope.Code
	// Message says what did not hold.
	Message string
	// Envelope is the failing tool's envelope, unchanged.
	Envelope json.RawMessage
	// Remedy says how to fix it, when the workflow knows.
	Remedy string
}

// Error implements the error interface.
func (e *GateFailure) Error() string {
	if e.Tool != "" {
		return fmt.Sprintf("gate failed: %s answered %s: %s", e.Tool, e.Code, e.Message)
	}
	return "gate failed: " + e.Message
}

// ToolCall is one exact tool call an agent or a person is asked to make
// (or a command to run, when Tool is empty and Command is set).
type ToolCall struct {
	// Tool is the dotted tool name.
	Tool string `json:"tool,omitempty"`
	// Args are the exact arguments.
	Args map[string]any `json:"args,omitempty"`
	// Command is a shell command line, for steps that are not tool calls
	// (the resume command).
	Command string `json:"command,omitempty"`
	// Why says what the call is for.
	Why string `json:"why"`
}

// Judgment is what a phase returns when it needs a decision or work a
// program cannot supply (writing a script's logic, choosing between two
// DAGs). The run stops at the phase; a later resume runs the phase again,
// and its gate verifies what was done.
type Judgment struct {
	// Reason says what is needed and why.
	Reason string
	// ActionItems are the things to do, in order, in plain words.
	ActionItems []string
	// ToolCalls are the exact tool calls that do or check them.
	ToolCalls []ToolCall
	// Files are the paths (relative to the project root) the phase will
	// read on resume: the answers to write.
	Files []string
}

// Error implements the error interface.
func (j *Judgment) Error() string { return "stopped for judgment: " + j.Reason }
