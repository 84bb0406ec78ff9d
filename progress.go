package cursus

import (
	"context"

	"github.com/cursus-go/cursus/engine/localrun"
	"github.com/cursus-go/cursus/workflow"
)

// WorkflowEvent is one event of a workflow run's progress: a phase started,
// passed, failed or stopped, or the run ended (Kind says which).
type WorkflowEvent = workflow.Event

// WithWorkflowProgress returns a context under which a workflow.run call
// reports each event of the run to fn, in order, before the call answers.
func WithWorkflowProgress(ctx context.Context, fn func(WorkflowEvent)) context.Context {
	return workflow.WithObserver(ctx, fn)
}

// WorkflowName returns the name workflow.run knows a workflow by, given
// that name or another the workflow answers to; ok is false for no
// workflow.
func WorkflowName(name string) (canonical string, ok bool) {
	w, err := workflow.Get(name)
	if err != nil {
		return "", false
	}
	return w.Name, true
}

// Workflow run statuses (a workflow.run answer's data.status, or
// meta.details.status of a run that stopped, failed or was cancelled).
const (
	WorkflowDone       = workflow.StatusDone
	WorkflowIncomplete = workflow.StatusIncomplete
	WorkflowStopped    = workflow.StatusStopped
	WorkflowFailed     = workflow.StatusFailed
	WorkflowCancelled  = workflow.StatusCancelled
)

// WorkflowExitCode maps a run status to a process exit status: 0 done (or
// incomplete: every phase passed, what is left is in the result), 1 failed
// or cancelled, 3 stopped for judgment.
func WorkflowExitCode(status string) int { return workflow.ExitCode(status) }

// StepEvent is one event of a local pipeline run (execution.run_local): a
// step started (Status StepRunning) or ended.
type StepEvent = localrun.Event

// StepRunning is a StepEvent's status when the step has just started.
const StepRunning = localrun.StatusRunning

// WithStepProgress returns a context under which an execution.run_local
// call reports each step's start and end to fn.
func WithStepProgress(ctx context.Context, fn func(StepEvent)) context.Context {
	return localrun.WithProgress(ctx, fn)
}
