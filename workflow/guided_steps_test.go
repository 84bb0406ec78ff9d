package workflow_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/workflow"
)

// inStage reports whether every next step of res names a tool the
// session's active stage offers.
func stepsInStage(t *testing.T, s *workflow.Session, res *envelope.ToolResult) {
	t.Helper()
	visible := names(s.Tools())
	for _, ns := range res.NextSteps {
		if !slices.Contains(visible, ns.Tool) {
			t.Errorf("stage %s: next step %s is not a tool of the stage (%v)", s.Stage(), ns.Tool, visible)
		}
	}
}

// TestGuidedNextStepsStayInStage: in a guided session, the next steps of
// an answer name tools of the active stage, and a step that led out of it
// becomes the move to the stage that offers it, naming that stage and the
// tools: workflow.complete_stage from a stage, workflow.status in a pinned
// session; a step to a tool no stage offers is dropped.
func TestGuidedNextStepsStayInStage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	s := newSession(t, workflow.SessionOptions{Policy: &registry.Policy{ProjectRoot: root, AllowDestructive: true}})
	r := &sessionRun{t: t, s: s, ctx: ctx, id: "steps"}
	r.call("workflow.new_run", map[string]any{"run_id": "steps"})
	r.start("plan")

	// The recommender hands on to config.template (the configure stage).
	res := r.call("pipeline_catalog.recommend", map[string]any{"framework": "xgboost", "need": "train and evaluate"})
	stepsInStage(t, s, res)
	var move *envelope.NextStep
	for i, ns := range res.NextSteps {
		if ns.Tool == "workflow.complete_stage" {
			move = &res.NextSteps[i]
		}
	}
	if move == nil || !strings.Contains(move.When, "stage configure") || !strings.Contains(move.When, "config.template") {
		t.Fatalf("plan: no move naming stage configure and config.template: %+v", res.NextSteps)
	}
	if hint, _ := move.ArgsHint.(map[string]any); hint["run_id"] != "steps" {
		t.Errorf("the move does not carry the run: %+v", move)
	}

	// Scaffolding is reachable in plan.
	if res := s.Call(ctx, "project.init", map[string]any{"name": "demo", "framework": "xgboost"}); !res.OK {
		t.Fatalf("project.init in plan: %s %s", res.Code, res.Error)
	} else {
		stepsInStage(t, s, res)
	}

	// From the hub, the move is workflow.start_stage; a step to a tool no
	// stage offers (workflow.run) is dropped.
	hub := newSession(t, workflow.SessionOptions{Policy: &registry.Policy{ProjectRoot: root}})
	res = hub.Call(ctx, "workflow.describe", map[string]any{"workflow": "new-project"})
	stepsInStage(t, hub, res)
	for _, ns := range res.NextSteps {
		if strings.Contains(ns.When, "workflow.run") {
			t.Errorf("hub: a step leads to workflow.run, which no stage offers: %+v", ns)
		}
	}

	// A pinned session cannot move: workflow.status, naming the stage.
	pinned := newSession(t, workflow.SessionOptions{Stage: "plan", Policy: &registry.Policy{ProjectRoot: root}})
	res = pinned.Call(ctx, "pipeline_catalog.recommend", map[string]any{"framework": "xgboost", "need": "train and evaluate"})
	stepsInStage(t, pinned, res)
	if !slices.ContainsFunc(res.NextSteps, func(ns envelope.NextStep) bool {
		return ns.Tool == "workflow.status" && strings.Contains(ns.When, "stage configure") && strings.Contains(ns.Why, "--stage configure")
	}) {
		t.Errorf("pinned: %+v", res.NextSteps)
	}
}

// TestGuidedLocalRunInCompile: the compile stage offers the local run
// (with the exec gate open) and records it; no stage offers workflow.run,
// whose phases would run the tools of every stage.
func TestGuidedLocalRunInCompile(t *testing.T) {
	t.Parallel()
	open := newSession(t, workflow.SessionOptions{Stage: "compile", Policy: &registry.Policy{ProjectRoot: t.TempDir(), AllowScriptExec: true, AllowDestructive: true}})
	if !slices.Contains(names(open.Tools()), "execution.run_local") {
		t.Errorf("compile with script execution allowed does not list execution.run_local: %v", names(open.Tools()))
	}
	closed := newSession(t, workflow.SessionOptions{Stage: "compile", Policy: &registry.Policy{ProjectRoot: t.TempDir()}})
	if slices.Contains(names(closed.Tools()), "execution.run_local") {
		t.Error("compile with the exec gate closed lists execution.run_local")
	}
	plan := newSession(t, workflow.SessionOptions{Stage: "plan", Policy: &registry.Policy{ProjectRoot: t.TempDir(), AllowDestructive: true}})
	if !slices.Contains(names(plan.Tools()), "project.init") {
		t.Errorf("plan with writes open does not list project.init: %v", names(plan.Tools()))
	}
	res := open.Call(context.Background(), "workflow.run", map[string]any{"workflow": "init-project", "args": map[string]any{"name": "x", "framework": "xgboost"}})
	if res.Code != envelope.CodeToolNotInStage {
		t.Errorf("workflow.run in compile: %s %s", res.Code, res.Error)
	}
}
