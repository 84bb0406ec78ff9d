package workflow

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/runs"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/stages"
)

// namespaceDescription is the one description of the workflow namespace.
const namespaceDescription = "Runs and guided stages: create a run folder, let the server pick the next stage from the run's artifacts (with its prompt, checklist, model tier and tools), complete stages, see a run's status, and run whole workflows."

// Namespace returns the workflow namespace: its description and tools
// (the guided-stage tools of this file and the workflow runner's of
// tools_run.go), built anew on each call. The namespace sits above the
// tools layer: its tools call the others through the registry of the call.
// The facade's default registry lists it after the namespaces of package
// tools.
func Namespace() registry.Namespace {
	return registry.Namespace{Name: "workflow", Description: namespaceDescription, Tools: append(stageTools(), runTools()...)}
}

// stageTools are the tools of a run's guided stages.
func stageTools() []*registry.ToolDef {
	return []*registry.ToolDef{
		registry.New("workflow.new_run", registry.Spec{
			Description: "Creates a run folder under the project root (runs/<run_id>/) that will hold the pipeline's dag.json, config.json, reports and pipeline.definition.json, and returns its id and the paths of its artifacts.",
			When:        "at the start of a guided run, before workflow.start_stage",
			Examples: []string{
				`workflow.new_run {}  # a generated run id`,
				`workflow.new_run {"run_id": "churn-xgb-1"}  # a chosen id`,
			},
			Tags:   []string{registry.PhasePlanner},
			Writes: true,
		}, workflowNewRun),
		registry.New("workflow.start_stage", registry.Spec{
			Description: "Picks a run's next stage (the first whose completion test fails), makes it the session's active stage and returns its prompt, checklist, model tier and visible tools.",
			When:        "in the orchestrator stage, to hand a worker the next stage",
			Examples: []string{
				`workflow.start_stage {"run_id": "churn-xgb-1"}`,
				`workflow.start_stage {"run_id": "churn-xgb-1", "host": "claude-code"}  # with the model alias to dispatch with`,
			},
			Tags: []string{registry.PhasePlanner},
		}, workflowStartStage),
		registry.New("workflow.complete_stage", registry.Spec{
			Description: "Ends a run's active stage: records it completed when its completion test passes (else lists what is missing) and returns to the orchestrator stage.",
			When:        "the worker of a stage says it is done, or gives up",
			Examples: []string{
				`workflow.complete_stage {"run_id": "churn-xgb-1"}`,
				`workflow.complete_stage {"run_id": "churn-xgb-1", "stage": "configure"}  # outside a guided session`,
			},
			Tags:           []string{registry.PhaseValidator},
			WritesWhenOpen: true,
		}, workflowCompleteStage),
		registry.New("workflow.status", registry.Spec{
			Description: "A run's state: artifacts, each stage's completion test and what is missing, the history, the active and the next stage.",
			When:        "to see where a run stands, or why a stage is not complete",
			Examples: []string{
				`workflow.status {"run_id": "churn-xgb-1"}`,
				`workflow.status {"run_id": "churn-xgb-1", "format": "markdown"}  # a compact summary`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhasePlanner},
		}, workflowStatus),
	}
}

type newRunArgs struct {
	RunID string `json:"run_id,omitempty" jsonschema:"maxLength=64" jsonschema_description:"Run id (1-64 letters, digits, '.', '_' or '-'); generated when empty."`
}

type runArgs struct {
	RunID string `json:"run_id" jsonschema:"required,minLength=1,maxLength=64" jsonschema_description:"The run id (workflow.new_run returns it)."`
}

type startArgs struct {
	RunID string `json:"run_id" jsonschema:"required,minLength=1,maxLength=64" jsonschema_description:"The run id (workflow.new_run returns it)."`
	Host  string `json:"host,omitempty" jsonschema:"maxLength=64" jsonschema_description:"The host that dispatches the stage's worker (claude-code): adds model_hint, the literal model its dispatch passes."`
}

type completeArgs struct {
	RunID string `json:"run_id" jsonschema:"required,minLength=1,maxLength=64" jsonschema_description:"The run id."`
	Stage string `json:"stage,omitempty" jsonschema:"enum=plan,enum=author_step,enum=configure,enum=validate,enum=compile" jsonschema_description:"The stage to complete; default: the session's active stage (required outside a guided session)."`
}

type statusArgs struct {
	RunID  string `json:"run_id" jsonschema:"required,minLength=1,maxLength=64" jsonschema_description:"The run id."`
	Format string `json:"format,omitempty" jsonschema:"enum=json,enum=markdown" jsonschema_description:"json (default) returns data; markdown returns a compact summary for a model to read."`
}

// projectRoot is where runs live, for the workflow and the stage tools
// alike: the root of the call's file-access layer (registry.ProjectRoot:
// the policy's or CURSUS_MCP_PROJECT_ROOT), else the working directory.
func projectRoot(ctx context.Context) (string, error) {
	if r := registry.ProjectRoot(ctx); r != "" {
		return filepath.Abs(r)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", envelope.Errorf(envelope.CodeInternalError, "no project root: %v", err)
	}
	return wd, nil
}

// runError maps the errors of the run folder and the stages onto envelope codes.
func runError(fsys *safefs.FS, err error, id string, root string) error {
	var idErr *runs.IDError
	switch {
	case errors.As(err, &idErr):
		return envelope.InvalidInput("%s", idErr.Error()).WithDetails("run_id", id).
			WithRemedy("use 1-64 letters, digits, '.', '_' or '-', or omit run_id to get a generated one", "workflow.new_run")
	case errors.Is(err, stages.ErrRunExists):
		return envelope.Errorf(envelope.CodeAlreadyExists, "run %q already exists", id).WithDetails("run_id", id).
			WithRemedy("continue it with workflow.start_stage, or pick another run_id", "workflow.start_stage", "workflow.status")
	case errors.Is(err, stages.ErrRunNotFound):
		ids, _ := runs.List(fsys, root)
		return envelope.NotFound("no run %q under %s", id, filepath.Join(root, runs.Dir)).WithDetails("run_id", id, "runs", ids).
			WithRemedy("create it with workflow.new_run, or use one of meta.details.runs", "workflow.new_run")
	case errors.Is(err, stages.ErrUnknownStage):
		return envelope.InvalidInput("%v", err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return envelope.Errorf(envelope.CodeCancelled, "cancelled: %v", err)
	}
	return err
}

// stageRun is a run opened for the stage tools, with the caller's guided
// session (nil outside one) and the stage set that judges the run.
type stageRun struct {
	run  *stages.Run
	sess *Session
	set  *stages.Set
}

// openStageRun opens the run under the project root and picks the
// session's stage set.
func openStageRun(ctx context.Context, id string) (*stageRun, error) {
	root, err := projectRoot(ctx)
	if err != nil {
		return nil, err
	}
	id = strings.TrimSpace(id)
	run, err := stages.OpenRun(safefs.From(ctx), root, id)
	if err != nil {
		return nil, runError(safefs.From(ctx), err, id, root)
	}
	sess := SessionFrom(ctx)
	return &stageRun{run: run, sess: sess, set: sessionStages(sess)}, nil
}

// inspect runs every stage's completion test over the run's artifacts.
func (r *stageRun) inspect(ctx context.Context) (*stages.Status, error) {
	status, err := r.set.Inspect(ctx, r.run)
	if err != nil {
		return nil, runError(r.run.FS(), err, r.run.ID, r.run.Root)
	}
	return status, nil
}

// toHub returns the session to the orchestrator stage and reports the
// session's active stage (the hub outside a session).
func (r *stageRun) toHub() string {
	if r.sess == nil {
		return r.set.Hub()
	}
	r.sess.setStage(r.set.Hub(), r.run)
	return r.sess.Stage()
}

// RunArtifacts are the paths of a run's artifacts, as an agent passes them
// to the tools of the run.
type RunArtifacts struct {
	RunDir         string `json:"run_dir"`
	DAGFile        string `json:"dag_file"`
	ConfigFile     string `json:"config_file"`
	DefinitionFile string `json:"definition_file"`
	ReportsDir     string `json:"reports_dir"`
	StepsDir       string `json:"steps_dir"`
}

// runPaths are the paths an agent passes to the tools of a run.
func runPaths(r *stages.Run) RunArtifacts {
	return RunArtifacts{
		RunDir: r.Dir, DAGFile: r.DAGPath(), ConfigFile: r.ConfigPath(),
		DefinitionFile: r.DefinitionPath(), ReportsDir: r.ReportsPath(), StepsDir: r.StepsPath(),
	}
}

// NewRunData is the data of workflow.new_run: the new run's id and the
// paths of its artifacts.
type NewRunData struct {
	RunID     string       `json:"run_id"`
	Artifacts RunArtifacts `json:"artifacts"`
}

// StartStageData is the data of workflow.start_stage: the stage the run
// needs next, with what its worker needs; or, when every stage is complete
// (Done), the hub stage and a message naming the compiled definition.
type StartStageData struct {
	RunID string `json:"run_id"`
	// Done reports that every stage of the run is complete: Stage is then
	// the hub (orchestrator) and the stage fields below are absent.
	Done  bool   `json:"done"`
	Stage string `json:"stage"`
	// Message says where the compiled definition is (when Done).
	Message     string `json:"message,omitempty"`
	Description string `json:"description,omitempty"`
	// ModelTier is the stage's model tier (strong or fast).
	ModelTier string `json:"model_tier,omitempty"`
	// ModelHint is the literal model value the named host's dispatch
	// passes (only with the host argument).
	ModelHint *stages.ModelHint `json:"model_hint,omitempty"`
	// Prompt and Checklist are the stage's, with the run's paths in place
	// of their placeholders.
	Prompt    string   `json:"prompt,omitempty"`
	Checklist []string `json:"checklist,omitempty"`
	// Tools are the tools visible in the stage (in this session, under its
	// policy).
	Tools []string `json:"tools,omitempty"`
	// Missing lists what the stage's completion test still misses.
	Missing []string `json:"missing"`
	// UnknownSteps are DAG nodes whose step type the catalog does not know.
	UnknownSteps []catalog.NodeName `json:"unknown_steps,omitempty"`
	Artifacts    RunArtifacts       `json:"artifacts"`
	// ActiveStage is the session's active stage after the call (the hub
	// outside a guided session); PreviousStage the one before it.
	ActiveStage   string `json:"active_stage"`
	PreviousStage string `json:"previous_stage,omitempty"`
}

// CompleteStageData is the data of workflow.complete_stage: the stage's
// completion checks, whether it is complete and recorded so in run.json,
// and where the run goes next.
type CompleteStageData struct {
	RunID     string               `json:"run_id"`
	Stage     string               `json:"stage"`
	Completed bool                 `json:"completed"`
	Recorded  bool                 `json:"recorded"`
	Checks    []stages.CheckResult `json:"checks"`
	// Missing lists the details of the failing checks.
	Missing     []string `json:"missing"`
	ActiveStage string   `json:"active_stage"`
	// NextStage is the first stage whose completion test fails ("" when Done).
	NextStage string `json:"next_stage"`
	Done      bool   `json:"done"`
}

// StatusData is the data of workflow.status: the run's inspection (its
// artifacts, each stage's completion test, the completion history, the
// next stage) and, in a guided session, the session's active stage.
type StatusData struct {
	stages.Status
	// ActiveStage and Pinned are the guided session's (absent outside one).
	ActiveStage string `json:"active_stage,omitempty"`
	Pinned      *bool  `json:"pinned,omitempty"`
}

func workflowNewRun(ctx context.Context, a newRunArgs) (*envelope.Result[NewRunData], error) {
	root, err := projectRoot(ctx)
	if err != nil {
		return nil, err
	}
	id := strings.TrimSpace(a.RunID)
	if id == "" {
		id = stages.NewRunID(time.Now())
	}
	fsys := safefs.From(ctx)
	dir, err := runs.Path(fsys, root, id)
	if err != nil {
		return nil, runError(fsys, err, id, root)
	}
	if _, err := registry.ResolveWritePath(ctx, "run_id", dir); err != nil {
		return nil, err
	}
	r, err := stages.CreateRun(fsys, root, id, time.Now())
	if err != nil {
		if ferr := registry.FileError("run_id", id, err); ferr != err {
			return nil, ferr
		}
		return nil, runError(fsys, err, id, root)
	}
	return envelope.Success(NewRunData{RunID: r.ID, Artifacts: runPaths(r)}).WithMeta("run_id", r.ID).WithNextSteps(envelope.NextStep{
		Tool: "workflow.start_stage", When: "now", Why: "the server picks the first stage (plan) and lists its tools",
		ArgsHint: map[string]any{"run_id": r.ID},
	}), nil
}

func workflowStartStage(ctx context.Context, a startArgs) (*envelope.Result[StartStageData], error) {
	host := strings.TrimSpace(a.Host)
	if host != "" {
		if _, ok := stages.HintFor(host, stages.TierFast); !ok {
			return nil, envelope.InvalidInput("host: no model binding for %q; known hosts: %s", host, strings.Join(stages.HostNames(), ", ")).
				WithDetails("field", "host", "hosts", stages.HostNames()).
				WithRemedy("name one of meta.details.hosts, or leave host out and map model_tier to your own models")
		}
	}
	sr, err := openStageRun(ctx, a.RunID)
	if err != nil {
		return nil, err
	}
	run, sess, set := sr.run, sr.sess, sr.set
	status, err := sr.inspect(ctx)
	if err != nil {
		return nil, err
	}
	if status.Done {
		active := sr.toHub()
		return envelope.Success(StartStageData{
			RunID: run.ID, Done: true, Stage: set.Hub(), ActiveStage: active,
			Message:   "every stage of the run is complete: the compiled definition is " + run.DefinitionPath(),
			Missing:   []string{},
			Artifacts: runPaths(run),
		}).WithMeta("run_id", run.ID).WithNextSteps(envelope.NextStep{
			Tool: "workflow.status", When: "to review the run", Why: "lists the artifacts and the completion history", ArgsHint: map[string]any{"run_id": run.ID},
		}), nil
	}
	st, _ := set.Stage(status.Next)
	var warnings []string
	previous, active := set.Hub(), st.Name
	var visible []string
	if sess != nil {
		previous, _ = sess.setStage(st.Name, run)
		active = sess.Stage()
		if sess.Pinned() && active != st.Name {
			warnings = append(warnings, fmt.Sprintf("this session is pinned to stage %s (--stage); the run needs stage %s, whose tools stay hidden here", active, st.Name))
		}
		visible = sess.stageToolNames(st.Name)
	} else {
		visible = stageToolNames(ctx, set, st.Name)
		warnings = append(warnings, "no guided session: the tool list is not scoped; use the tools named in data.tools")
	}
	ss, _ := status.Stage(st.Name)
	checklist := make([]string, len(st.Checklist))
	for i, c := range st.Checklist {
		checklist[i] = stages.Expand(c, run)
	}
	data := StartStageData{
		RunID:         run.ID,
		Stage:         st.Name,
		Description:   st.Description,
		ModelTier:     string(st.ModelTier),
		Prompt:        stages.Expand(st.Prompt, run),
		Checklist:     checklist,
		Tools:         visible,
		Missing:       nonNilStrings(ss.Missing),
		UnknownSteps:  status.UnknownSteps,
		Artifacts:     runPaths(run),
		ActiveStage:   active,
		PreviousStage: previous,
	}
	if host != "" {
		hint, _ := stages.HintFor(host, st.ModelTier)
		data.ModelHint = &hint
	}
	return envelope.Success(data).WithWarnings(warnings...).WithMeta("run_id", run.ID).WithMeta("stage", st.Name).
		WithNextSteps(envelope.NextStep{
			Tool: "workflow.complete_stage", When: "the stage's checklist is done", Why: "checks the stage's artifacts and returns to the orchestrator",
			ArgsHint: map[string]any{"run_id": run.ID},
		}), nil
}

func sessionStages(sess *Session) *stages.Set {
	if sess != nil {
		return sess.Stages()
	}
	set, err := stages.Default()
	if err != nil {
		panic(fmt.Sprintf("workflow: embedded stages: %v", err)) // caught by the stages tests
	}
	return set
}

// stageToolNames lists a stage's tools without a session: every tool of
// the registry visible in the stage and allowed by the caller's policy.
func stageToolNames(ctx context.Context, set *stages.Set, stage string) []string {
	r := registry.FromContext(ctx)
	p := registry.PolicyFrom(ctx)
	out := []string{}
	for _, t := range r.List("") {
		if !set.Visible(stage, t.Name) || t.NamespaceHelp() {
			continue
		}
		if p != nil {
			if ok, _ := p.Allows(t); !ok {
				continue
			}
		}
		out = append(out, t.Name)
	}
	return out
}

func workflowCompleteStage(ctx context.Context, a completeArgs) (*envelope.Result[CompleteStageData], error) {
	sr, err := openStageRun(ctx, a.RunID)
	if err != nil {
		return nil, err
	}
	run, sess, set := sr.run, sr.sess, sr.set
	stage := a.Stage
	if sess != nil {
		active := sess.Stage()
		switch {
		case stage == "" && active == set.Hub():
			return nil, envelope.InvalidInput("no stage is active in this session: the orchestrator has nothing to complete").
				WithDetails("active_stage", active).
				WithRemedy("call workflow.start_stage to start the next stage, or name the stage to check", "workflow.start_stage", "workflow.status")
		case stage == "":
			stage = active
		case stage != active && active != set.Hub():
			return nil, envelope.InvalidInput("stage %q is not the active stage %q", stage, active).
				WithDetails("active_stage", active).
				WithRemedy("complete the active stage (omit stage)", "workflow.complete_stage")
		}
	} else if stage == "" {
		return nil, envelope.InvalidInput("outside a guided session, name the stage to complete").
			WithRemedy("pass stage (plan, author_step, configure, validate or compile); workflow.status shows the next one", "workflow.status")
	}
	// One inspection judges the stage and picks the next one: recording the
	// completion below only writes run.json, which the checks do not read.
	status, err := sr.inspect(ctx)
	if err != nil {
		return nil, err
	}
	checks, ok, err := stageChecks(ctx, set, run, status, stage)
	if err != nil {
		return nil, runError(run.FS(), err, run.ID, run.Root)
	}
	var warnings, missing []string
	for _, c := range checks {
		if !c.Passed {
			missing = append(missing, c.Detail)
		}
	}
	recorded := false
	if ok {
		p := registry.PolicyFrom(ctx)
		if p == nil || p.AllowDestructive {
			if err := run.MarkCompleted(stage, time.Now()); err != nil {
				return nil, err
			}
			recorded = true
		} else {
			warnings = append(warnings, "the completion is not written to run.json: writes are disabled ("+registry.EnvEnableDestructive+"); the artifacts still show the stage complete")
		}
	} else {
		warnings = append(warnings, fmt.Sprintf("stage %s is not complete: %s", stage, strings.Join(missing, "; ")))
	}
	active := sr.toHub()
	data := CompleteStageData{
		RunID: run.ID, Stage: stage, Completed: ok, Recorded: recorded, Checks: checks,
		Missing: nonNilStrings(missing), ActiveStage: active, NextStage: status.Next, Done: status.Done,
	}
	res := envelope.Success(data).WithWarnings(warnings...).WithMeta("run_id", run.ID).WithMeta("completed", ok)
	if status.Done {
		return res.WithNextSteps(envelope.NextStep{Tool: "workflow.status", When: "the run is complete", Why: "review its artifacts", ArgsHint: map[string]any{"run_id": run.ID}}), nil
	}
	why := "the server picks the next stage: " + status.Next
	if !ok && status.Next == stage {
		why = "the stage is not complete: starting it again hands it back with what is missing"
	}
	return res.WithNextSteps(envelope.NextStep{Tool: "workflow.start_stage", When: "now", Why: why, ArgsHint: map[string]any{"run_id": run.ID}}), nil
}

// stageChecks returns the completion checks of stage from an inspection of
// the run, or evaluates them when the stage is not in the sequence
// (Evaluate passes the hub vacuously and rejects an unknown stage).
func stageChecks(ctx context.Context, set *stages.Set, run *stages.Run, status *stages.Status, stage string) ([]stages.CheckResult, bool, error) {
	ss, found := status.Stage(stage)
	if !found {
		return set.Evaluate(ctx, run, stage)
	}
	if ss.Checks == nil {
		ss.Checks = []stages.CheckResult{}
	}
	return ss.Checks, ss.Complete, nil
}

func workflowStatus(ctx context.Context, a statusArgs) (*envelope.Result[StatusData], error) {
	sr, err := openStageRun(ctx, a.RunID)
	if err != nil {
		return nil, err
	}
	run, sess := sr.run, sr.sess
	status, err := sr.inspect(ctx)
	if err != nil {
		return nil, err
	}
	data := StatusData{Status: *status}
	if sess != nil {
		pinned := sess.Pinned()
		data.ActiveStage, data.Pinned = sess.Stage(), &pinned
	}
	res := envelope.Success(data).WithMeta("run_id", run.ID).WithMeta("next_stage", status.Next)
	if !status.Done {
		res.WithNextSteps(envelope.NextStep{Tool: "workflow.start_stage", When: "to work on the next stage", Why: "next stage: " + status.Next, ArgsHint: map[string]any{"run_id": run.ID}})
	}
	return res, nil
}
