package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/stages"
)

// This file holds the prompts an MCP server offers: each guided stage's
// prompt and each workflow's brief, with a run's paths or state when a run
// id is given. A run is read with the caller's context (its policy's
// project root and its file-access layer), as the workflow tools read it.

// Prompt is one prompt a server lists: a guided stage's prompt or a
// workflow's brief. Both take an optional run_id.
type Prompt struct {
	Name        string
	Title       string
	Description string
	// RunArg describes the run_id argument.
	RunArg string
	// HostArg, for a stage, describes the host argument (the host layer
	// of the model hint, given only when asked for).
	HostArg string
}

// StagePromptPrefix + a stage name is the prompt of a guided stage;
// WorkflowPromptPrefix + a workflow name is its brief.
const (
	StagePromptPrefix    = "stage_"
	WorkflowPromptPrefix = "workflow_"
)

// Prompts lists the prompts: one per guided stage (the orchestrator
// included), one per workflow.
func Prompts() ([]Prompt, error) {
	set, err := stages.Default()
	if err != nil {
		return nil, err
	}
	var out []Prompt
	for _, st := range set.Stages() {
		out = append(out, Prompt{
			Name: StagePromptPrefix + st.Name, Title: "Stage " + st.Name,
			Description: st.Description + " (model tier: " + string(st.ModelTier) + ")",
			RunArg:      "The run the stage works on (workflow.new_run makes one); its paths replace the placeholders of the prompt.",
			HostArg:     "The host that dispatches the worker (" + strings.Join(stages.HostNames(), ", ") + "): adds the literal model value its dispatch passes.",
		})
	}
	for _, w := range List() {
		out = append(out, Prompt{
			Name: WorkflowPromptPrefix + strings.ReplaceAll(w.Name, "-", "_"), Title: "Workflow " + w.Name,
			Description: "The brief of the " + w.Name + " workflow: " + w.Description,
			RunArg:      "A run of the workflow: its state is added to the brief.",
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// PromptNotFoundError is the error of GetPrompt for a name that names no
// prompt.
type PromptNotFoundError struct{ Name string }

// Error names the prompt.
func (e *PromptNotFoundError) Error() string { return "no prompt " + e.Name }

// GetPrompt renders a prompt: a stage's prompt and checklist with the
// run's paths in place of the placeholders (unexpanded without a run id),
// with the model tier and the stage's tools; a workflow's brief (its
// description, arguments, phases and outcomes), with the run's state when a
// run id is given. host, for a stage, adds the host layer of the model hint. An unknown run is the tools' not_found.
func GetPrompt(ctx context.Context, reg *registry.Registry, name, runID, host string) (description, text string, err error) {
	runID = strings.TrimSpace(runID)
	if st, ok := strings.CutPrefix(name, StagePromptPrefix); ok {
		set, err := stages.Default()
		if err != nil {
			return "", "", err
		}
		stage, ok := set.Stage(st)
		if !ok {
			return "", "", &PromptNotFoundError{Name: name}
		}
		var run *stages.Run
		if runID != "" {
			root, err := projectRoot(ctx)
			if err != nil {
				return "", "", err
			}
			if run, err = stages.OpenRun(safefs.From(ctx), root, runID); err != nil {
				return "", "", runError(safefs.From(ctx), err, runID, root)
			}
		}
		var hint stages.ModelHint
		if host = strings.TrimSpace(host); host != "" {
			var ok bool
			if hint, ok = stages.HintFor(host, stage.ModelTier); !ok {
				return "", "", envelope.InvalidInput("host: no model binding for %q; known hosts: %s", host, strings.Join(stages.HostNames(), ", "))
			}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s\n\nChecklist:\n", stages.Expand(stage.Prompt, run))
		for _, c := range stage.Checklist {
			fmt.Fprintf(&b, "- %s\n", stages.Expand(c, run))
		}
		fmt.Fprintf(&b, "\nModel tier: %s. Tools of the stage: %s.", stage.ModelTier, strings.Join(stageToolNames(registry.WithRegistry(ctx, reg), set, stage.Name), ", "))
		if run == nil {
			b.WriteString(" Without a run_id the {placeholders} stay as written: pass run_id (workflow.new_run makes a run).")
		} else {
			fmt.Fprintf(&b, " Run %s; when the checklist is done: workflow.complete_stage {\"run_id\": %q}.", run.ID, run.ID)
		}
		if hint.Host != "" {
			fmt.Fprintf(&b, "\n\nOn %s: dispatch the worker with %s: %q. %s", hint.Host, hint.Parameter, hint.Value, hint.Note)
		}
		return stage.Description, b.String(), nil
	}
	if wn, ok := strings.CutPrefix(name, WorkflowPromptPrefix); ok {
		w, err := Get(strings.ReplaceAll(wn, "_", "-"))
		if err != nil {
			return "", "", &PromptNotFoundError{Name: name}
		}
		brief, err := json.MarshalIndent(w.Describe(), "", "  ")
		if err != nil {
			return "", "", err
		}
		text := fmt.Sprintf("Brief of the %s workflow: follow its phases in order, each with its tools, and stop where a phase needs judgment.\n\n```json\n%s\n```\n", w.Name, brief)
		if runID != "" {
			res, err := workflowDescribe(ctx, workflowDescribeArgs{RunID: runID})
			if err != nil {
				return "", "", err
			}
			state, err := json.MarshalIndent(res.Data, "", "  ")
			if err != nil {
				return "", "", err
			}
			text += fmt.Sprintf("\nRun %s:\n\n```json\n%s\n```\n", runID, state)
		}
		return w.Description, text, nil
	}
	return "", "", &PromptNotFoundError{Name: name}
}
