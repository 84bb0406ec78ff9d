package cursus_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

// A guided session starts in the orchestrator stage and sees only the
// workflow and help tools; a tool of another stage is refused with the
// stage that offers it.
func ExampleNewSession() {
	s, err := cursus.NewSession(cursus.SessionOptions{})
	if err != nil {
		panic(err)
	}
	res := s.CallTool(context.Background(), "compile.definition", map[string]any{})
	fmt.Println(s.Stage(), res.Code, res.Details()["offered_in"])
	// Output: orchestrator tool_not_in_stage [compile]
}

func TestSessionPublicAPI(t *testing.T) {
	if _, err := cursus.NewSession(cursus.SessionOptions{Stage: "nope"}); err == nil {
		t.Error("unknown stage accepted")
	}
	root := t.TempDir()
	s, err := cursus.NewSession(cursus.SessionOptions{Policy: &registry.Policy{ProjectRoot: root, AllowDestructive: true}})
	if err != nil {
		t.Fatal(err)
	}
	var changes []string
	s.OnStageChange(func(from, to string) { changes = append(changes, from+">"+to) })
	hub := toolNames(s.ListTools())
	if !slices.Contains(hub, "workflow.start_stage") || slices.Contains(hub, "dag.construct") || len(hub) >= len(cursus.ListTools("")) {
		t.Errorf("orchestrator lists %v", hub)
	}
	ctx := context.Background()
	if res := s.CallTool(ctx, "workflow.new_run", map[string]any{"run_id": "r"}); !res.OK {
		t.Fatal(res.Error)
	}
	res := s.CallTool(ctx, "workflow__start_stage", map[string]any{"run_id": "r"})
	if !res.OK || s.Stage() != "plan" || s.RunID() != "r" || s.Pinned() {
		t.Fatalf("start_stage: %+v (stage %s)", res, s.Stage())
	}
	plan := toolNames(s.ListTools())
	if !slices.Contains(plan, "dag.construct") || slices.Contains(plan, "compile.definition") {
		t.Errorf("plan lists %v", plan)
	}
	if res := s.CallTool(ctx, "compile.definition", nil); res.Code != envelope.CodeToolNotInStage {
		t.Errorf("compile.definition in plan: %+v", res)
	}
	if len(changes) != 1 || changes[0] != "orchestrator>plan" {
		t.Errorf("changes %v", changes)
	}
	if _, err := os.Stat(root + "/runs/r/run.json"); err != nil {
		t.Error(err)
	}
	p, err := cursus.NewSession(cursus.SessionOptions{Stage: "compile"})
	if err != nil || !p.Pinned() || p.Stage() != "compile" {
		t.Fatalf("pinned: %v", err)
	}
	st := cursus.Stages()
	if len(st) != 6 || st[0].Name != "orchestrator" || st[len(st)-1].Name != "compile" || st[1].ModelTier != "strong" {
		t.Errorf("Stages() = %+v", st)
	}
}

func toolNames(ts []cursus.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}
