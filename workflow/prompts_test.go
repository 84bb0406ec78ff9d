package workflow_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/stages"
	"github.com/cursus-go/cursus/workflow"
)

// TestPrompts: every stage and workflow has a prompt; a stage prompt
// expands the run's paths; an unknown run is not_found.
func TestPrompts(t *testing.T) {
	root := t.TempDir()
	reg := cursus.Registry()
	ctx := registry.WithPolicy(context.Background(), registry.Policy{ProjectRoot: root, AllowDestructive: true})
	fsys, err := safefs.New(safefs.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	ctx = safefs.WithFS(ctx, fsys)
	list, err := workflow.Prompts()
	if err != nil {
		t.Fatal(err)
	}
	stagesN, workflows := 0, 0
	for _, p := range list {
		_, text, err := workflow.GetPrompt(ctx, reg, p.Name, "", "")
		if err != nil || text == "" {
			t.Errorf("%s: %v", p.Name, err)
		}
		if strings.HasPrefix(p.Name, workflow.StagePromptPrefix) {
			stagesN++
		} else {
			workflows++
		}
	}
	if stagesN < 3 || workflows < 1 {
		t.Errorf("%d stage and %d workflow prompts", stagesN, workflows)
	}
	if res := reg.Call(ctx, "workflow.new_run", map[string]any{"run_id": "demo"}); !res.OK {
		t.Fatal(res.Error)
	}
	_, text, err := workflow.GetPrompt(ctx, reg, workflow.StagePromptPrefix+"plan", "demo", "")
	if err != nil || !strings.Contains(text, filepath.Join(root, "runs", "demo")) || strings.Contains(text, "{run_dir}") {
		t.Errorf("plan prompt for run demo: %v\n%s", err, text)
	}
	var te *envelope.ToolError
	if _, _, err := workflow.GetPrompt(ctx, reg, workflow.StagePromptPrefix+"plan", "nope", ""); !errors.As(err, &te) || te.Code != envelope.CodeNotFound {
		t.Errorf("unknown run: %v", err)
	}
	hint, _ := stages.HintFor("claude-code", stages.TierStrong)
	if _, text, err := workflow.GetPrompt(ctx, reg, workflow.StagePromptPrefix+"plan", "", "claude-code"); err != nil || !strings.Contains(text, fmt.Sprintf("%s: %q", hint.Parameter, hint.Value)) {
		t.Errorf("plan prompt on claude-code: %v\n%s", err, text)
	}
	if _, _, err := workflow.GetPrompt(ctx, reg, "stage_nope", "", ""); !cursus.IsNotFound(err) {
		t.Errorf("unknown prompt: %v", err)
	}
	// A workflow's brief with a run's state; an unknown run is not_found.
	brief := workflow.WorkflowPromptPrefix + "init_project"
	if _, _, err := workflow.GetPrompt(ctx, reg, brief, "nope", ""); !errors.As(err, &te) || te.Code != envelope.CodeNotFound {
		t.Errorf("brief of an unknown run: %v", err)
	}
	if res := reg.Call(ctx, "workflow.run", map[string]any{"workflow": "init-project", "args": map[string]any{"name": "demo", "framework": "xgboost"}}); !res.OK {
		t.Fatalf("init-project: %s %s", res.Code, res.Error)
	}
	if _, text, err := workflow.GetPrompt(ctx, reg, brief, "init-project-001", ""); err != nil || !strings.Contains(text, "Run init-project-001:") || !strings.Contains(text, `"status": "done"`) {
		t.Errorf("brief of run init-project-001: %v\n%s", err, text)
	}
}
