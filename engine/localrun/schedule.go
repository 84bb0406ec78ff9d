package localrun

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cursus-go/cursus/engine/compiler"
)

// This file runs the steps: each as soon as the steps it depends on have
// ended, as SageMaker Pipelines runs an execution, with at most
// parallelism() of them at once. The run's state (the evaluator, the
// store, the report) is guarded by run.mu, which a step holds except
// while its job's process runs (runJob), so the steps' staging, checks
// and packing take turns while their jobs run side by side.

// StatusCancelled is the status of a step that was running when the run
// was cancelled (its job was stopped), and of the steps that had not
// started then.
const StatusCancelled = "cancelled"

// parallelism is how many steps may run at once: the pipeline's
// ParallelismConfiguration (MaxParallelExecutionSteps) when it has one,
// bounded by the CPUs the runner may use; the tuning's bound when set.
func (r *run) parallelism() int {
	if n := r.opts.tune.maxParallel; n > 0 {
		return n
	}
	n, _ := jobCPUs()
	if p := r.res.Parallelism; p != nil && p.MaxParallelExecutionSteps > 0 && p.MaxParallelExecutionSteps < n {
		n = p.MaxParallelExecutionSteps
	}
	return max(n, 1)
}

// schedule runs every step of r.order and fills the report's steps in
// that order. It returns the context's error when the run was cancelled
// (the report then says which steps were running).
func (r *run) schedule(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	total := len(r.order)
	results := make([]*StepResult, total)
	started := make([]bool, total)
	finished := map[string]bool{}
	ended := make(chan int)
	running, limit := 0, r.parallelism()

	ready := func(s *defStep) bool {
		for _, p := range r.deps[s.Name] {
			if !finished[p] {
				return false
			}
		}
		return true
	}
	// settle decides a step that runs nothing: on a branch not taken,
	// skipped (a dependency failed, or a Fail step ended the execution),
	// or cancelled. It reports whether it did.
	settle := func(i int, s *defStep) bool {
		sr := &StepResult{Name: s.Name, Type: s.Type, StepType: r.stepType[s.Name], Outputs: map[string]string{}}
		switch {
		case r.notTaken(s):
			r.ev.steps[s.Name].status = statusNotRun
			finished[s.Name] = true
			return true
		case r.notSelected(s):
			finished[s.Name] = true
			return true
		case ctx.Err() != nil:
			sr.Status, sr.Error = StatusCancelled, "not run: the run was cancelled"
		case r.ended != "":
			sr.Status, sr.Error = StatusSkipped, "not run: the execution ended at Fail step "+r.ended
		default:
			why := r.blocked(s)
			if why == "" {
				return false
			}
			sr.Status, sr.Error = StatusSkipped, why
		}
		r.ev.steps[s.Name].status = sr.Status
		results[i] = sr
		finished[s.Name] = true
		r.emit(Event{Step: s.Name, Type: s.Type, Index: i + 1, Total: total, Status: sr.Status, Error: sr.Error})
		return true
	}
	for {
		progressed := true
		for progressed {
			progressed = false
			for i, s := range r.order {
				if started[i] || !ready(s) {
					continue
				}
				if settle(i, s) {
					started[i], progressed = true, true
					continue
				}
				if running >= limit {
					continue
				}
				started[i], progressed = true, true
				running++
				r.emit(Event{Step: s.Name, Type: s.Type, Index: i + 1, Total: total, Status: StatusRunning})
				go func(i int, s *defStep) {
					r.mu.Lock()
					results[i] = r.step(ctx, i, s)
					r.mu.Unlock()
					ended <- i
				}(i, s)
			}
		}
		if running == 0 {
			break
		}
		r.mu.Unlock()
		i := <-ended
		r.mu.Lock()
		running--
		finished[r.order[i].Name] = true
	}
	rep := r.report
	for i, sr := range results {
		if sr == nil {
			if !finished[r.order[i].Name] {
				return fmt.Errorf("internal error: step %s never became ready", r.order[i].Name)
			}
			continue // a branch not taken
		}
		rep.Steps = append(rep.Steps, *sr)
		if sr.Status == StatusSucceeded {
			rep.Plots = append(rep.Plots, plotsOf(sr.Name, sr.Outputs)...)
		}
		if sr.Status == StatusFailed && rep.Failed == nil {
			failStep := sr.Type == compiler.StepTypeFail
			rep.Failed = &Failure{Step: sr.Name, ExitCode: sr.ExitCode, Error: sr.Error, LogTail: sr.LogTail, FailStep: failStep}
		}
	}
	if err := ctx.Err(); err != nil {
		names := []string{}
		for _, sr := range results {
			if sr != nil && sr.Status == StatusCancelled && sr.DurationSeconds > 0 {
				names = append(names, sr.Name)
			}
		}
		rep.Cancelled = &Cancellation{Running: names}
		return err
	}
	return nil
}

// step runs one step (r.mu held) and returns its result.
func (r *run) step(ctx context.Context, i int, s *defStep) *StepResult {
	sr := &StepResult{Name: s.Name, Type: s.Type, StepType: r.stepType[s.Name], Outputs: map[string]string{}}
	began := time.Now()
	err := r.runStep(ctx, s, sr)
	switch {
	case err != nil && ctx.Err() != nil:
		sr.Status, sr.Error = StatusCancelled, "cancelled while it ran: its job was stopped"
	case err != nil:
		sr.Status, sr.Error = StatusFailed, err.Error()
	}
	sr.DurationSeconds = max(seconds(time.Since(began)), 0.001)
	r.ev.steps[s.Name].status = sr.Status
	r.emit(Event{Step: s.Name, Type: s.Type, Index: i + 1, Total: len(r.order), Status: sr.Status, Duration: sr.DurationSeconds, Error: sr.Error})
	return sr
}

// Cancellation says what a cancelled run was doing.
type Cancellation struct {
	// Running names the steps that were running (their jobs were stopped).
	Running []string `json:"running"`
}

// cancelled finishes a cancelled run: the report (the steps that ended,
// those that were running and those that had not started) is written,
// and returned with the context's error.
func (r *run) cancelled(began time.Time, err error) (*Report, error) {
	if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	rep := r.report
	rep.Succeeded = false
	if rep.Cancelled == nil {
		rep.Cancelled = &Cancellation{Running: []string{}}
	}
	r.finish(began)
	return rep, &CancelledError{Err: err, RunDir: r.dir, Running: rep.Cancelled.Running}
}

// CancelledError is a run that was cancelled: the steps that were running
// and the run directory, where report.json says what had run.
type CancelledError struct {
	Err     error
	RunDir  string
	Running []string
}

// Error names the running steps and the run directory.
func (e *CancelledError) Error() string {
	what := "no step was running"
	if len(e.Running) > 0 {
		what = "running: " + strings.Join(e.Running, ", ")
	}
	return fmt.Sprintf("the run was cancelled (%s); its report is %s/report.json", what, e.RunDir)
}

// Details implements errkind.Detailer: the run directory and the steps
// that were running.
func (e *CancelledError) Details() map[string]any {
	return map[string]any{"run_dir": e.RunDir, "running": e.Running}
}

// Unwrap is the context's error.
func (e *CancelledError) Unwrap() error { return e.Err }
