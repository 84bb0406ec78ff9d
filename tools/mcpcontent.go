package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/pipelines"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/docgen"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/stages"
	"github.com/cursus-go/cursus/workflow"
)

// This file holds what an MCP server offers besides tools: the resources
// (the step catalog, the pipeline catalog, the tool reference, the files
// of the project) and the prompts (each guided stage's prompt, each
// workflow's brief). Everything is read through the registry and the
// caller's file-access layer (the context a server gives a tool call), so
// a resource is confined exactly as a tool is.

// The URIs of the resources.
const (
	// StepURIPrefix + a step type is one step of the catalog.
	StepURIPrefix = "cursus://steps/"
	// PipelineURIPrefix + a DAG id is one shared DAG of the pipeline catalog.
	PipelineURIPrefix = "cursus://pipelines/"
	// ToolReferenceURI is the generated tool reference (docs/tools.md).
	ToolReferenceURI = "cursus://docs/tools.md"
	// ProjectURIPrefix + a relative path is a file of the project root.
	ProjectURIPrefix = "cursus://project/"
)

// Resource is one resource a server lists.
type Resource struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
}

// ResourceTemplate is a family of resources named by an RFC 6570 URI
// template.
type ResourceTemplate struct {
	URITemplate string
	Name        string
	Title       string
	Description string
	MIMEType    string
}

// ResourceNotFoundError is the error of ReadResource for a URI that names
// no resource.
type ResourceNotFoundError struct{ URI string }

// Error names the URI.
func (e *ResourceNotFoundError) Error() string { return "no resource " + e.URI }

// Resources lists the fixed resources: one per step type of the embedded
// catalog, one per shared DAG, and the tool reference of reg.
func Resources(ctx context.Context) ([]Resource, error) {
	cat, err := loadCatalog(ctx, nil)
	if err != nil {
		return nil, err
	}
	var out []Resource
	for _, s := range cat.Steps() {
		out = append(out, Resource{
			URI: StepURIPrefix + string(s.Type), Name: "step " + string(s.Type), Title: string(s.Type) + " step",
			Description: firstSentence(s.Description) + " Its interface, config fields and script.",
			MIMEType:    "text/markdown",
		})
	}
	pc, err := pipelines.Default()
	if err != nil {
		return nil, err
	}
	for _, e := range pc.Entries() {
		out = append(out, Resource{
			URI: PipelineURIPrefix + e.ID, Name: "pipeline " + e.ID, Title: e.ID + " pipeline",
			Description: firstSentence(e.Description) + " The shared DAG with its nodes, edges and features.",
			MIMEType:    "application/json",
		})
	}
	out = append(out, Resource{
		URI: ToolReferenceURI, Name: "tool reference", Title: "Tool reference",
		Description: "Every tool with its arguments and examples, generated from the registry.", MIMEType: "text/markdown",
	})
	return out, nil
}

// ResourceTemplates lists the resource templates: a step (also a project's
// own, or a job-type variant), a shared DAG, and a file of the project.
func ResourceTemplates() []ResourceTemplate {
	return []ResourceTemplate{
		{URITemplate: StepURIPrefix + "{step_name}{?job_type,workspace_dirs*}", Name: "step", Title: "A step type",
			Description: "A step type's interface, config fields and script; workspace_dirs adds a project's own step files.", MIMEType: "text/markdown"},
		{URITemplate: PipelineURIPrefix + "{dag_id}", Name: "pipeline", Title: "A shared DAG",
			Description: "A shared DAG of the pipeline catalog.", MIMEType: "application/json"},
		{URITemplate: ProjectURIPrefix + "{+path}", Name: "project file", Title: "A project file",
			Description: "A text file under the project root (the tools' read confinement and size caps apply).", MIMEType: "text/plain"},
	}
}

// ReadResource reads one resource (a fixed one or one a template names)
// as text with its MIME type. ctx is the context a tool call of the
// caller would get: its policy, and its file-access layer
// (safefs.WithFS), which a project file is read through. A URI that names no resource is a
// *ResourceNotFoundError; a tool's failure (an unknown step, a path
// outside the root) is an *envelope.ToolError.
func ReadResource(ctx context.Context, reg *registry.Registry, uri string) (text, mimeType string, err error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "cursus" {
		return "", "", &ResourceNotFoundError{URI: uri}
	}
	name := strings.TrimPrefix(u.Path, "/")
	switch {
	case uri == ToolReferenceURI:
		return string(docgen.ToolsMarkdown(reg)), "text/markdown", nil
	case u.Host == "steps" && name != "" && !strings.Contains(name, "/"):
		text, err := stepResource(ctx, reg, name, u.Query())
		return text, "text/markdown", err
	case u.Host == "pipelines" && name != "" && !strings.Contains(name, "/"):
		data, err := toolData(ctx, reg, "pipeline_catalog.get_dag", map[string]any{"dag_id": name})
		if err != nil {
			return "", "", err
		}
		return string(data), "application/json", nil
	case u.Host == "project" && name != "":
		if !safefs.InContext(ctx) && registry.PolicyFrom(ctx) != nil {
			return "", "", envelope.Errorf(envelope.CodeInternalError, "project files are read through the caller's file-access layer, and the context carries none")
		}
		p, err := registry.ResolveReadPath(ctx, name)
		if err != nil {
			return "", "", err
		}
		b, err := safefs.From(ctx).ReadFile(p, safefs.KindDocument)
		if err != nil {
			return "", "", registry.FileError("path", name, err)
		}
		return string(b), "text/plain", nil
	}
	return "", "", &ResourceNotFoundError{URI: uri}
}

// stepResource renders one step: its interface (catalog.step_info), its
// config fields (catalog.config_fields) and its script.
func stepResource(ctx context.Context, reg *registry.Registry, name string, q url.Values) (string, error) {
	args := map[string]any{"step_name": name}
	if jt := q.Get("job_type"); jt != "" {
		args["job_type"] = jt
	}
	dirs := q["workspace_dirs"]
	if len(dirs) > 0 {
		args["workspace_dirs"] = dirs
	}
	info, err := toolData(ctx, reg, "catalog.step_info", args)
	if err != nil {
		return "", err
	}
	fieldArgs := map[string]any{"step_name": name}
	if len(dirs) > 0 {
		fieldArgs["workspace_dirs"] = dirs
	}
	fields, err := toolData(ctx, reg, "catalog.config_fields", fieldArgs)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Step %s\n\n## Interface (catalog.step_info)\n\n```json\n%s\n```\n\n## Config fields (catalog.config_fields)\n\n```json\n%s\n```\n",
		name, indented(info), indented(fields))
	cat, err := loadCatalog(ctx, dirs)
	if err != nil {
		return "", err
	}
	step, _, err := cat.Lookup(name)
	if err != nil {
		return "", toolError(err)
	}
	if code, ok := step.Script(); ok {
		src, err := code.ReadFile(path.Base(code.Path))
		if err != nil {
			return "", fmt.Errorf("read the script of %s: %w", name, err)
		}
		fmt.Fprintf(&b, "\n## Script (%s)\n\n```python\n%s\n```\n", code.Source(), strings.TrimRight(string(src), "\n"))
	} else {
		b.WriteString("\n## Script\n\nThe catalog ships no script of its own for this step.\n")
	}
	return b.String(), nil
}

// toolData calls a tool through reg with the caller's context and returns
// its data as JSON, or its failure as an *envelope.ToolError.
func toolData(ctx context.Context, reg *registry.Registry, name string, args map[string]any) (json.RawMessage, error) {
	res, wire := reg.CallJSON(ctx, name, args)
	if !res.OK {
		return nil, &envelope.ToolError{Message: res.Error, Code: res.Code, Remedy: res.Remedy}
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(wire, &env); err != nil {
		return nil, err
	}
	return env.Data, nil
}

// indented is raw indented, or raw as it is when it is not JSON.
func indented(raw []byte) string {
	b, err := indentJSON(raw)
	if err != nil {
		return string(raw)
	}
	return strings.TrimRight(string(b), "\n")
}

func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	if s != "" && !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

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
	for _, w := range workflow.List() {
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
		w, err := workflow.Get(strings.ReplaceAll(wn, "_", "-"))
		if err != nil {
			return "", "", &PromptNotFoundError{Name: name}
		}
		brief, err := json.MarshalIndent(w.Describe(), "", "  ")
		if err != nil {
			return "", "", err
		}
		text := fmt.Sprintf("Brief of the %s workflow: follow its phases in order, each with its tools, and stop where a phase needs judgment.\n\n```json\n%s\n```\n", w.Name, brief)
		if runID != "" {
			state, err := toolData(ctx, reg, "workflow.describe", map[string]any{"run_id": runID})
			if err != nil {
				return "", "", err
			}
			text += fmt.Sprintf("\nRun %s:\n\n```json\n%s\n```\n", runID, indented(state))
		}
		return w.Description, text, nil
	}
	return "", "", &PromptNotFoundError{Name: name}
}

// IsNotFound reports whether err says a resource or prompt does not exist.
func IsNotFound(err error) bool {
	var r *ResourceNotFoundError
	var p *PromptNotFoundError
	return errors.As(err, &r) || errors.As(err, &p)
}
