package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
	"github.com/invopop/jsonschema"
)

// runTools are the tools of the workflow runner: run a workflow, describe
// the workflows and their runs.
func runTools() []*registry.ToolDef {
	return []*registry.ToolDef{
		registry.New("workflow.run", registry.Spec{
			Description: "Runs a workflow (new-project, configure-pipeline, author-step, init-project) as gated phases that call the other tools, " +
				"keeping its DAG, config, reports and compiled definition in runs/<run_id>/ under the project root, or resumes a run at the first phase not passed. " +
				"Done (ready to deploy: the readiness gate passed and execution.run_local ran it) or incomplete (every phase passed; outputs.blockers say what is left) answers the workflow's outputs; " +
				"a failed gate or a stop for judgment answers workflow_stopped with the run's result in meta.details " +
				"(failed_at and the failing tool's envelope, or stopped_at, the reason, action items and the exact tool calls to make).",
			When: "you want a whole procedure (a new project from an empty folder, a config for a DAG, a new step type) done with every gate enforced, or to continue a stopped run",
			Examples: []string{
				`workflow.run {"workflow": "new-project", "args": {"name": "demo", "framework": "xgboost"}}  # empty folder to a compiled definition`,
				`workflow.run {"workflow": "configure-pipeline", "args": {"dag_file": "pipeline_config/dag.json", "values": {"base": {"author": "alice"}}}}`,
				`workflow.run {"workflow": "author-step", "args": {"producer": "TabularPreprocessing_training", "consumer": "XGBoostTraining", "step_name": "OutlierClipping"}}`,
				`workflow.run {"resume": "author-step-001"}  # after writing what the stop asked for`,
			},
			Tags:       []string{registry.PhaseProgrammer},
			Writes:     true,
			CallsTools: true,
		}, workflowRun),
		registry.New("workflow.describe", registry.Spec{
			Description: "The workflows as data: without workflow, each one's name, description and phase count; with one, its arguments, phases, tools and outcomes; with run_id, that run's state.",
			When:        "before running or following a workflow, or to inspect a run",
			Examples: []string{
				`workflow.describe {}  # every workflow`,
				`workflow.describe {"workflow": "new-project"}`,
				`workflow.describe {"run_id": "new-project-001"}  # a run's phases and outcome`,
			},
			Tags: []string{registry.PhasePlanner},
		}, workflowDescribe),
	}
}

type workflowRunArgs struct {
	Workflow string         `json:"workflow,omitempty" jsonschema:"enum=new-project,enum=configure-pipeline,enum=author-step,enum=init-project" jsonschema_description:"Workflow to start (see workflow.describe). Omit when resuming."`
	Args     map[string]any `json:"args,omitempty" jsonschema_description:"The workflow's arguments (workflow.describe lists them)."`
	Resume   string         `json:"resume,omitempty" jsonschema_description:"Run id to resume (runs/<run_id>/): it continues at the first phase not passed, re-verifying the passed ones."`
	RunID    string         `json:"run_id,omitempty" jsonschema_description:"Id of a new run (letters, digits, '.', '_' and '-'); default <workflow>-NNN."`
}

type workflowDescribeArgs struct {
	Workflow string `json:"workflow,omitempty" jsonschema_description:"Workflow to describe (as workflow.run names it); omit to list every workflow."`
	RunID    string `json:"run_id,omitempty" jsonschema_description:"A run to report on (runs/<run_id>/workflow.json) instead of a workflow."`
	Name     string `json:"name,omitempty" deprecated:"workflow"`
}

func workflowRun(ctx context.Context, a workflowRunArgs) (*envelope.Result[Result], error) {
	r := registry.FromContext(ctx)
	if r == nil {
		return nil, envelope.Errorf(envelope.CodeInternalError, "workflow.run: no registry in context")
	}
	resume := strings.TrimSpace(a.Resume)
	if resume == "" && a.Workflow == "" {
		return nil, envelope.InvalidInput("give workflow (to start a run) or resume (a run id)").
			WithRemedy("call workflow.describe to see the workflows", "workflow.describe")
	}
	if resume != "" && (a.Args != nil || a.RunID != "") {
		return nil, envelope.InvalidInput("resume continues a run with its recorded arguments: give neither args nor run_id with it").
			WithDetails("resume", resume).
			WithRemedy("write the answers the stop asked for into the run folder, then resume; or start a new run", "workflow.describe")
	}
	root, err := projectRoot(ctx)
	if err != nil {
		return nil, err
	}
	observe := ObserverFrom(ctx)
	if observe == nil {
		observe = func(e Event) {
			slog.Debug("workflow", "run", e.RunID, "event", e.Kind, "phase", e.Phase, "index", e.Index, "total", e.Total, "message", e.Message, "elapsed", e.Elapsed)
		}
	}
	var caller Caller = RegistryCaller(r)
	if s := SessionFrom(ctx); s != nil {
		caller = sessionCaller{registryCaller{r}, s}
	}
	opts := Options{Root: root, Caller: caller, RunID: a.RunID, Observer: observe, FS: safefs.From(ctx)}
	var res *Result
	if resume != "" {
		if a.Workflow != "" {
			if st, err := Status(safefs.From(ctx), root, resume); err == nil && st.Workflow != a.Workflow {
				return nil, envelope.InvalidInput("run %s is a %s run, not %s", resume, st.Workflow, a.Workflow).WithDetails("run_id", resume, "workflow", st.Workflow)
			}
		}
		res, err = Resume(ctx, resume, opts)
	} else {
		w, gerr := Get(a.Workflow)
		if gerr != nil {
			return nil, workflowError(gerr)
		}
		args := a.Args
		if args == nil {
			args = map[string]any{}
		}
		res, err = Start(ctx, w, args, opts)
	}
	if err != nil && res == nil {
		return nil, workflowError(err)
	}
	if err != nil && errors.Is(err, ErrRunFinished) {
		return envelope.Success(*res).WithWarnings("run " + res.RunID + " was already done; nothing ran"), nil
	}
	return workflowResult(res)
}

// workflowResult turns a run's result into the envelope: done is a success,
// a failed gate or a stop is workflow_stopped, a cancellation cancelled;
// the run's result is the data or meta.details.
func workflowResult(res *Result) (*envelope.Result[Result], error) {
	data := resultData(res)
	switch res.Status {
	case StatusIncomplete:
		out := envelope.Success(*res).WithMeta("run_id", res.RunID).WithMeta("status", res.Status).WithWarnings(res.Warnings...).
			WithWarnings("the run is incomplete: " + res.Reason)
		seen := map[string]bool{}
		outputs, _ := data["outputs"].(map[string]any)
		blockers, _ := outputs["blockers"].([]any)
		for _, x := range blockers {
			b, _ := x.(map[string]any)
			tool, _ := b["tool"].(string)
			if tool == "" || seen[tool] || len(seen) == 3 {
				continue
			}
			seen[tool] = true
			fix, _ := b["fix"].(string)
			out = out.WithNextSteps(envelope.NextStep{Tool: tool, When: fmt.Sprintf("outputs.blockers lists a %v blocker", b["kind"]), Why: fix})
		}
		return out.WithNextSteps(envelope.NextStep{Tool: "workflow.run", When: "after fixing what outputs.blockers (or outputs.not_ready) names",
			Why: "resuming runs the readiness check again", ArgsHint: map[string]any{"resume": res.RunID}}), nil
	case StatusDone:
		out := envelope.Success(*res).WithMeta("run_id", res.RunID).WithMeta("status", res.Status).WithWarnings(res.Warnings...)
		if def, _ := res.Outputs["definition_file"].(string); def != "" && res.Outputs["ready_to_deploy"] == true {
			out = out.WithNextSteps(envelope.NextStep{Tool: "compile.dag", When: "the pipeline is deployable and ran locally",
				Why: "deploy the pipeline (upsert)", ArgsHint: res.Outputs["deploy"]})
		}
		if cfg, _ := res.Outputs["config_file"].(string); cfg != "" {
			out = out.WithNextSteps(envelope.NextStep{Tool: "compile.with_report", When: "to review how every node compiles",
				Why: "per-node resolution and bindings", ArgsHint: map[string]any{"dag_file": res.Outputs["dag_file"], "config_file": cfg}})
		}
		return out, nil
	case StatusStopped:
		return nil, envelope.Errorf(envelope.CodeWorkflowStopped, "workflow %s stopped at phase %s for judgment: %s", res.Workflow, res.StoppedAt, res.Reason).
			WithDetailsMap(data).
			WithRemedy("do the action_items (the tool_calls are exact), write the files listed, then call workflow.run {\"resume\": \""+res.RunID+"\"}", "workflow.run", "workflow.describe")
	case StatusCancelled:
		return nil, envelope.Errorf(envelope.CodeCancelled, "workflow %s was cancelled: %s", res.Workflow, res.Reason).
			WithDetailsMap(data).
			WithRemedy("call workflow.run {\"resume\": \""+res.RunID+"\"} to continue without redoing the phases that passed", "workflow.run")
	default:
		msg := fmt.Sprintf("workflow %s failed the gate of phase %s: %s", res.Workflow, res.FailedAt, res.Reason)
		fix := "fix what the envelope in meta.details.envelope names, then call workflow.run {\"resume\": \"" + res.RunID + "\"}"
		if res.Remedy != "" {
			fix = res.Remedy + "; then call workflow.run {\"resume\": \"" + res.RunID + "\"}"
		}
		tools := []string{"workflow.run"}
		if res.FailedTool != "" {
			tools = append([]string{res.FailedTool}, tools...)
		}
		return nil, envelope.Errorf(envelope.CodeWorkflowStopped, "%s", msg).WithDetailsMap(data).WithRemedy(fix, tools...)
	}
}

// resultData is the run's result as a JSON object (a failure's
// meta.details; outputs.blockers read as JSON).
func resultData(res *Result) map[string]any {
	if m := objectOf(res); m != nil {
		return m
	}
	return map[string]any{"run_id": res.RunID, "status": res.Status}
}

// objectOf is v's JSON encoding decoded into a map, or nil when v does not
// encode to a JSON object.
func objectOf(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// workflowError maps the engine's typed errors to envelope codes.
func workflowError(err error) error {
	var ae *ArgsError
	var uw *UnknownWorkflowError
	var re *RunError
	switch {
	case errors.As(err, &ae):
		return envelope.InvalidInput("%v", err).WithDetails("workflow", ae.Workflow, "errors", ae.Problems).
			WithRemedy("fix the arguments; workflow.describe lists each workflow's arguments", "workflow.describe")
	case errors.As(err, &uw):
		return envelope.NotFound("%v", err).WithDetails("available", uw.Available).WithRemedy("call workflow.describe", "workflow.describe")
	case errors.Is(err, ErrRunNotFound):
		return envelope.NotFound("%v", err).WithRemedy("start a run with workflow.run {\"workflow\": ...}", "workflow.run")
	case errors.Is(err, ErrRunBusy):
		return envelope.Errorf(envelope.CodeToolError, "%v: another process is running it", err).WithRemedy("wait for it to end, then resume", "workflow.run")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.As(err, &re):
		return envelope.InvalidInput("%v", err).WithDetails("run_id", re.RunID)
	}
	return err
}

// DescribeData is the data of workflow.describe, one of three answers:
// every workflow (List), one workflow with its command line (Workflow), or
// a run's state (Run, as workflow.run answers it). Exactly one is set; it
// encodes as that one's fields, and its schema is the three shapes'.
type DescribeData struct {
	List     *WorkflowList
	Workflow *WorkflowDetail
	Run      *Result
}

// WorkflowList lists the workflows.
type WorkflowList struct {
	Count     int               `json:"count"`
	Workflows []WorkflowSummary `json:"workflows"`
}

// WorkflowSummary is one workflow of a WorkflowList.
type WorkflowSummary struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	PhaseCount  int    `json:"phase_count"`
	// Composes names the workflows whose phases this one includes.
	Composes []string `json:"composes,omitempty"`
	// CLI is the command that runs it.
	CLI string `json:"cli"`
}

// WorkflowDetail is one workflow as data (its arguments, phases, tools
// and outcomes) with the command that runs it.
type WorkflowDetail struct {
	Description
	CLI string `json:"cli"`
}

// MarshalJSON encodes the answer that is set; none is an error.
func (d DescribeData) MarshalJSON() ([]byte, error) {
	switch {
	case d.List != nil:
		return json.Marshal(d.List)
	case d.Workflow != nil:
		return json.Marshal(d.Workflow)
	case d.Run != nil:
		return json.Marshal(d.Run)
	}
	return nil, errors.New("workflow.describe: no answer set")
}

// JSONSchema is anyOf the three answers' schemas, each reflected as the
// registry reflects a tool's data: every field without omitempty required,
// objects closed.
func (DescribeData) JSONSchema() *jsonschema.Schema {
	r := &jsonschema.Reflector{Anonymous: true, DoNotReference: true, ExpandedStruct: true}
	strip := func(s *jsonschema.Schema) *jsonschema.Schema {
		s.Version, s.ID = "", ""
		return s
	}
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{
		strip(r.Reflect(&WorkflowList{})),
		strip(r.Reflect(&WorkflowDetail{})),
		strip(r.Reflect(&Result{})),
	}}
}

// cliLine is the command line that runs a workflow.
func cliLine(name string) string { return "cursus workflow run " + name + " --args '<json>'" }

func workflowDescribe(ctx context.Context, a workflowDescribeArgs) (*envelope.Result[DescribeData], error) {
	if id := strings.TrimSpace(a.RunID); id != "" {
		root, err := projectRoot(ctx)
		if err != nil {
			return nil, err
		}
		res, err := Status(safefs.From(ctx), root, id)
		if err != nil {
			return nil, workflowError(err)
		}
		return envelope.Success(DescribeData{Run: res}).WithMeta("run_id", id), nil
	}
	name := strings.TrimSpace(a.Workflow)
	if name == "" {
		list := &WorkflowList{Workflows: []WorkflowSummary{}}
		for _, w := range List() {
			d := w.Describe()
			list.Workflows = append(list.Workflows, WorkflowSummary{Name: d.Name, Description: d.Description, PhaseCount: len(d.Phases),
				Composes: d.Composes, CLI: cliLine(d.Name)})
		}
		list.Count = len(list.Workflows)
		return envelope.Success(DescribeData{List: list}).WithMeta("count", list.Count).
			WithNextSteps(envelope.NextStep{Tool: "workflow.describe", When: "to see one workflow's phases", Why: "phases, gates, tools and arguments",
				ArgsHint: map[string]any{"workflow": "new-project"}}), nil
	}
	w, err := Get(name)
	if err != nil {
		return nil, workflowError(err)
	}
	d := w.Describe()
	return envelope.Success(DescribeData{Workflow: &WorkflowDetail{Description: d, CLI: cliLine(d.Name)}}).WithMeta("phase_count", len(d.Phases)).
		WithNextSteps(envelope.NextStep{Tool: "workflow.run", When: "to run it with every gate enforced", Why: "runs the phases in order in a run folder",
			ArgsHint: map[string]any{"workflow": d.Name, "args": "<see data.args>"}}), nil
}
