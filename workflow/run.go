package workflow

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/runs"
	"github.com/cursus-go/cursus/internal/safefs"
)

// Options configure a run.
type Options struct {
	// Root is the project root: run folders go to Root/runs/<run_id>/ and
	// relative paths are taken from it. Empty means the working directory.
	Root string
	// Caller calls the tools (required).
	Caller Caller
	// RunID names a new run; empty picks "<workflow>-NNN", the next free
	// number. Ignored by Resume.
	RunID string
	// Observer, when set, receives progress events, in order, from the
	// goroutine running the workflow.
	Observer func(Event)
	// Workflows are workflows besides the built-in ones that Resume may
	// find by name (a program that runs workflows of its own).
	Workflows []*Workflow
	// FS is how the run folder and the files phases read are reached (nil:
	// the trusted file-access layer); a confined FS keeps the run inside
	// its root even when runs/ or runs/<id> is a symbolic link out of it.
	FS *safefs.FS
}

// lookup finds a workflow by name: opts.Workflows first, then the built-ins.
func (o Options) lookup(name string) (*Workflow, error) {
	for _, w := range o.Workflows {
		if w.Name == name {
			return w, nil
		}
	}
	return Get(name)
}

// Event is one progress report.
type Event struct {
	RunID    string `json:"run_id"`
	Workflow string `json:"workflow"`
	// Kind: "start" (a phase begins), "passed", "failed", "stopped",
	// "cancelled", "verified" (a phase passed earlier and its artifacts
	// still match), "changed" (a passed phase's artifact changed: it runs
	// again), "done" (the run finished, Phase empty), "incomplete" (every
	// phase passed, the result is not ready: Message says why).
	Kind    string        `json:"kind"`
	Phase   string        `json:"phase,omitempty"`
	Index   int           `json:"index,omitempty"` // 1-based
	Total   int           `json:"total"`
	Message string        `json:"message,omitempty"`
	Elapsed time.Duration `json:"elapsed,omitempty"`
}

// Result is what a run (or a resume) ended with.
type Result struct {
	RunID    string `json:"run_id"`
	Workflow string `json:"workflow"`
	// Status is done, incomplete, stopped, failed or cancelled.
	Status string `json:"status"`
	// RunDir is the run folder, relative to the project root.
	RunDir string `json:"run_dir"`
	// StateFile is the run state, relative to the project root.
	StateFile string `json:"state_file"`
	// Resumed is true when this invocation continued an earlier run.
	Resumed bool `json:"resumed"`
	// Halt is the run state's: a stop for judgment or a failed gate.
	Halt
	// Phases lists every phase with its status.
	Phases []PhaseOutcome `json:"phases"`
	// Outputs are the workflow's results (when done or incomplete).
	Outputs map[string]any `json:"outputs,omitempty"`
	// Warnings gathered by the phases.
	Warnings []string `json:"warnings,omitempty"`
	// Resume is the command that continues the run (unless done).
	Resume string `json:"resume,omitempty"`
}

// PhaseOutcome is one phase in a Result.
type PhaseOutcome struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	// Ran is true when the phase ran in this invocation (false: it passed
	// earlier and was verified, or it was not reached).
	Ran      bool   `json:"ran"`
	Attempts int    `json:"attempts"`
	Message  string `json:"message,omitempty"`
}

// ExitCode maps a run status to the CLI's exit status: 0 done (or
// incomplete: every phase passed, what is left is in the result), 1 failed
// (or cancelled), 3 stopped for judgment.
func ExitCode(status string) int {
	switch status {
	case StatusDone, StatusIncomplete:
		return 0
	case StatusStopped:
		return 3
	}
	return 1
}

// Start runs a workflow from its first phase in a new run folder. Invalid
// arguments are an *ArgsError; a run that stops, fails a gate or is
// cancelled returns a Result saying so (and, when cancelled, the
// context's error too).
func Start(ctx context.Context, w *Workflow, args map[string]any, opts Options) (*Result, error) {
	if opts.Caller == nil {
		return nil, errors.New("workflow: Options.Caller is required")
	}
	norm, err := w.NormalizeArgs(args)
	if err != nil {
		return nil, err
	}
	root, err := rootDir(opts.Root)
	if err != nil {
		return nil, err
	}
	runID, err := newRunDir(opts.FS, root, w.Name, opts.RunID)
	if err != nil {
		return nil, err
	}
	st := &State{Version: stateVersion, RunID: runID, Workflow: w.Name, Args: norm, Status: StatusRunning, Vars: Vars{}}
	for _, p := range w.Phases {
		st.Phases = append(st.Phases, PhaseState{Name: p.Name, Status: PhasePending})
	}
	unlock, err := lockRun(opts.FS, RunDir(root, runID))
	if err != nil {
		return nil, &RunError{RunID: runID, Msg: "cannot lock the run folder", Err: err}
	}
	defer unlock()
	if err := saveState(opts.FS, root, st); err != nil {
		return nil, &RunError{RunID: runID, Msg: "cannot write the run state", Err: err}
	}
	r := &runner{w: w, st: st, root: root, opts: opts}
	return r.execute(ctx, false)
}

// Resume continues a run: it re-verifies the artifacts of every passed
// phase (by hash; the first phase with a changed artifact runs again, with
// every phase after it) and runs the first phase not passed, then the rest.
// A phase that stopped for judgment runs again, so its gate checks what was
// done. Resuming a finished run is ErrRunFinished.
func Resume(ctx context.Context, runID string, opts Options) (*Result, error) {
	if opts.Caller == nil {
		return nil, errors.New("workflow: Options.Caller is required")
	}
	root, err := rootDir(opts.Root)
	if err != nil {
		return nil, err
	}
	if err := checkRunID(runID); err != nil {
		return nil, err
	}
	if _, err := opts.FS.Stat(statePath(root, runID)); errors.Is(err, fs.ErrNotExist) {
		return nil, runNotFound(runID)
	}
	unlock, err := lockRun(opts.FS, RunDir(root, runID))
	if err != nil {
		return nil, &RunError{RunID: runID, Msg: "cannot lock the run folder", Err: err}
	}
	defer unlock()
	st, err := LoadState(opts.FS, root, runID)
	if err != nil {
		return nil, err
	}
	w, err := opts.lookup(st.Workflow)
	if err != nil {
		return nil, &RunError{RunID: runID, Msg: "the run's workflow is unknown", Err: err}
	}
	if len(st.Phases) != len(w.Phases) {
		return nil, &RunError{RunID: runID, Msg: fmt.Sprintf("the run has %d phases, workflow %s has %d (it changed since the run started)", len(st.Phases), w.Name, len(w.Phases))}
	}
	for i, p := range w.Phases {
		if st.Phases[i].Name != p.Name {
			return nil, &RunError{RunID: runID, Msg: fmt.Sprintf("phase %d is %q in the run, %q in workflow %s", i+1, st.Phases[i].Name, p.Name, w.Name)}
		}
	}
	if st.Status == StatusDone {
		r := &runner{w: w, st: st, root: root, opts: opts}
		res := r.result(true)
		return res, &RunError{RunID: runID, Msg: "the run is done; start a new run", Err: ErrRunFinished}
	}
	r := &runner{w: w, st: st, root: root, opts: opts}
	return r.execute(ctx, true)
}

// Status reads a run's state through fsys (nil: the trusted layer) and
// returns it as a Result, without running anything. Extra workflows (see
// Options.Workflows) may be given.
func Status(fsys *safefs.FS, root, runID string, extra ...*Workflow) (*Result, error) {
	root, err := rootDir(root)
	if err != nil {
		return nil, err
	}
	st, err := LoadState(fsys, root, runID)
	if err != nil {
		return nil, err
	}
	w, err := Options{Workflows: extra}.lookup(st.Workflow)
	if err != nil {
		return nil, &RunError{RunID: runID, Msg: "the run's workflow is unknown", Err: err}
	}
	r := &runner{w: w, st: st, root: root, opts: Options{FS: fsys}}
	return r.result(true), nil
}

func rootDir(root string) (string, error) {
	if root == "" {
		root = "."
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("workflow: project root %q: %w", root, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

// newRunDir creates the run folder: the given id, or the next free
// "<workflow>-NNN".
func newRunDir(fsys *safefs.FS, root, workflow, id string) (string, error) {
	parent := filepath.Join(root, runs.Dir)
	if err := fsys.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("workflow: create %s: %w", parent, err)
	}
	if id != "" {
		if err := checkRunID(id); err != nil {
			return "", err
		}
		if err := fsys.Mkdir(RunDir(root, id), 0o755); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return "", &RunError{RunID: id, Msg: "the run folder exists; resume it or choose another id"}
			}
			return "", &RunError{RunID: id, Msg: "cannot create the run folder", Err: err}
		}
		return id, nil
	}
	n := 1
	if entries, err := fsys.ReadDir(parent); err == nil {
		for _, e := range entries {
			if rest, ok := strings.CutPrefix(e.Name(), workflow+"-"); ok {
				if k, err := strconv.Atoi(rest); err == nil && k >= n {
					n = k + 1
				}
			}
		}
	}
	for ; ; n++ {
		id := fmt.Sprintf("%s-%03d", workflow, n)
		err := fsys.Mkdir(RunDir(root, id), 0o755)
		if err == nil {
			return id, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", &RunError{RunID: id, Msg: "cannot create the run folder", Err: err}
		}
	}
}

type runner struct {
	w    *Workflow
	st   *State
	root string
	opts Options
	ran  map[string]bool
	warn []string
}

func (r *runner) emit(e Event) {
	if r.opts.Observer == nil {
		return
	}
	e.RunID, e.Workflow, e.Total = r.st.RunID, r.w.Name, len(r.w.Phases)
	r.opts.Observer(e)
}

func (r *runner) save() error {
	if err := saveState(r.opts.FS, r.root, r.st); err != nil {
		return &RunError{RunID: r.st.RunID, Msg: "cannot write the run state", Err: err}
	}
	return nil
}

// verify checks the output artifacts of every passed phase, in order; the
// first phase with a missing or changed artifact, and every phase after it,
// go back to pending.
func (r *runner) verify() {
	for i := range r.st.Phases {
		ps := &r.st.Phases[i]
		if ps.Status != PhasePassed {
			continue
		}
		if problem := r.checkArtifacts(ps); problem != "" {
			r.emit(Event{Kind: "changed", Phase: ps.Name, Index: i + 1, Message: problem + "; the phase runs again"})
			for j := i; j < len(r.st.Phases); j++ {
				if r.st.Phases[j].Status == PhasePassed {
					r.st.Phases[j].Status = PhasePending
					r.st.Phases[j].Message = "reset: " + problem
				}
			}
			return
		}
		r.emit(Event{Kind: "verified", Phase: ps.Name, Index: i + 1, Message: fmt.Sprintf("%d artifact(s) unchanged", len(ps.Artifacts))})
	}
}

func (r *runner) checkArtifacts(ps *PhaseState) string {
	for _, a := range ps.Artifacts {
		abs := filepath.Join(r.root, filepath.FromSlash(a.Path))
		switch a.Kind {
		case ArtifactAbsent:
			if _, err := r.opts.FS.Stat(abs); err == nil {
				return fmt.Sprintf("answer file %s was written since the phase passed", a.Path)
			}
			continue
		case ArtifactHandoff:
			// Only its existence counts: no need to read it.
			if _, err := r.opts.FS.Stat(abs); err != nil {
				return fmt.Sprintf("artifact %s is missing", a.Path)
			}
			continue
		}
		b, err := r.opts.FS.ReadFile(abs, safefs.KindDocument)
		if err != nil {
			return fmt.Sprintf("artifact %s is missing", a.Path)
		}
		if hashBytes(b) != a.SHA256 {
			return fmt.Sprintf("artifact %s changed since the phase passed", a.Path)
		}
	}
	return ""
}

func hashBytes(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func (r *runner) execute(ctx context.Context, resumed bool) (*Result, error) {
	r.ran = map[string]bool{}
	st := r.st
	if resumed {
		r.verify()
		if st.Status == StatusIncomplete {
			for i, p := range r.w.Phases {
				if p.Reassess && st.Phases[i].Status == PhasePassed {
					st.Phases[i].Status, st.Phases[i].Message = PhasePending, "reassessed: the run was incomplete"
				}
			}
		}
	}
	st.Status = StatusRunning
	st.Halt, st.Outputs = Halt{}, nil
	if err := r.save(); err != nil {
		return nil, err
	}
	for i, p := range r.w.Phases {
		ps := &st.Phases[i]
		if ps.Status == PhasePassed {
			continue
		}
		if err := ctx.Err(); err != nil {
			return r.cancelled(i, err)
		}
		ps.Status, ps.Message = PhaseRunning, ""
		ps.Attempts++
		ps.Calls, ps.Artifacts, ps.Summary, ps.Warnings = nil, nil, nil, nil
		st.Status = StatusRunning
		if err := r.save(); err != nil {
			return nil, err
		}
		r.ran[p.Name] = true
		r.emit(Event{Kind: "start", Phase: p.Name, Index: i + 1, Message: p.Title})
		began := time.Now()
		step := &Step{r: r, phase: p, ps: ps}
		err := runPhase(ctx, p, step)
		elapsed := time.Since(began)
		r.warn = append(r.warn, ps.Warnings...)
		var gate *GateFailure
		var judg *Judgment
		switch {
		case err == nil:
			ps.Status = PhasePassed
			if err := r.save(); err != nil {
				return nil, err
			}
			r.emit(Event{Kind: "passed", Phase: p.Name, Index: i + 1, Elapsed: elapsed})
		case isCancel(ctx, err):
			return r.cancelled(i, ctx.Err())
		case errors.As(err, &judg):
			ps.Status, ps.Message = PhaseStopped, judg.Reason
			st.Status, st.StoppedAt, st.Reason = StatusStopped, p.Name, judg.Reason
			st.ActionItems, st.ToolCalls, st.Files = judg.ActionItems, judg.ToolCalls, judg.Files
			if err := r.save(); err != nil {
				return nil, err
			}
			r.emit(Event{Kind: "stopped", Phase: p.Name, Index: i + 1, Message: judg.Reason, Elapsed: elapsed})
			return r.result(resumed), nil
		default:
			if !errors.As(err, &gate) {
				gate = &GateFailure{Code: envelope.CodeInternalError, Message: err.Error()}
				slog.Debug("workflow phase error", "run", st.RunID, "phase", p.Name, "error", err)
			}
			ps.Status, ps.Message = PhaseFailed, gate.Error()
			st.Status, st.FailedAt, st.Reason = StatusFailed, p.Name, gate.Error()
			st.FailedTool, st.Envelope, st.Remedy = gate.Tool, gate.Envelope, gate.Remedy
			if err := r.save(); err != nil {
				return nil, err
			}
			r.emit(Event{Kind: "failed", Phase: p.Name, Index: i + 1, Message: gate.Error(), Elapsed: elapsed})
			return r.result(resumed), nil
		}
	}
	st.Status = StatusDone
	if r.w.Result != nil {
		st.Outputs = r.w.Result(st.Vars)
	}
	if r.w.Ready != nil {
		if ready, why := r.w.Ready(st.Vars); !ready {
			st.Status, st.Reason = StatusIncomplete, why
		}
	}
	if err := r.save(); err != nil {
		return nil, err
	}
	if st.Status == StatusIncomplete {
		r.emit(Event{Kind: "incomplete", Message: st.Reason})
	} else {
		r.emit(Event{Kind: "done", Message: "every phase passed"})
	}
	return r.result(resumed), nil
}

// runPhase runs one phase, turning a panic into a failure.
func runPhase(ctx context.Context, p Phase, s *Step) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("phase %s panicked: %v", p.Name, v)
		}
	}()
	return p.Run(ctx, s)
}

func isCancel(ctx context.Context, err error) bool {
	if ctx.Err() == nil {
		return false
	}
	var g *GateFailure
	if errors.As(err, &g) && g.Code == envelope.CodeCancelled {
		return true
	}
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

func (r *runner) cancelled(i int, cause error) (*Result, error) {
	ps := &r.st.Phases[i]
	if ps.Status == PhaseRunning {
		ps.Status = PhaseCancelled
	}
	ps.Message = "cancelled: " + cause.Error()
	r.st.Status = StatusCancelled
	r.st.Reason = fmt.Sprintf("cancelled during phase %s", ps.Name)
	if err := r.save(); err != nil {
		return nil, err
	}
	r.emit(Event{Kind: "cancelled", Phase: ps.Name, Index: i + 1, Message: cause.Error()})
	return r.result(true), cause
}

func (r *runner) result(resumed bool) *Result {
	st := r.st
	rel := filepath.ToSlash(runs.Join("", st.RunID))
	res := &Result{
		RunID: st.RunID, Workflow: st.Workflow, Status: st.Status, RunDir: rel, StateFile: rel + "/" + StateFile,
		Resumed: resumed, Halt: st.Halt, Outputs: st.Outputs, Warnings: r.warn,
	}
	for _, ps := range st.Phases {
		res.Phases = append(res.Phases, PhaseOutcome{Name: ps.Name, Status: ps.Status, Ran: r.ran[ps.Name], Attempts: ps.Attempts, Message: ps.Message})
	}
	if st.Status != StatusDone {
		res.Resume = fmt.Sprintf("cursus workflow run %s --resume %s", st.Workflow, st.RunID)
	}
	return res
}
