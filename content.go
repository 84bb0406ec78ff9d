package cursus

import (
	"context"
	"errors"

	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/tools"
	"github.com/cursus-go/cursus/workflow"
)

// What an MCP server offers besides tools, for the front ends: the
// resources (the step catalog, the pipeline catalog, the tool reference,
// a project's files) and the prompts (the guided stages' prompts, the
// workflows' briefs). Everything is read through the registry and the
// caller's file-access layer, so a resource is confined as a tool is.

// Resource is one resource a server lists.
type Resource = tools.Resource

// ResourceTemplate is a family of resources named by a URI template.
type ResourceTemplate = tools.ResourceTemplate

// Prompt is one prompt a server lists; its arguments are an optional
// run_id (and, for a stage, an optional host).
type Prompt = workflow.Prompt

// Resources lists the fixed resources: one per step type of the embedded
// catalog, one per shared DAG, and the tool reference.
func Resources(ctx context.Context) ([]Resource, error) { return tools.Resources(ctx) }

// ResourceTemplates lists the resource templates.
func ResourceTemplates() []ResourceTemplate { return tools.ResourceTemplates() }

// ReadResource reads one resource as text with its MIME type; ctx is the
// context a tool call of the caller gets (policy and file-access layer).
// An unknown URI satisfies IsNotFound; a tool's failure is an
// *envelope.ToolError.
func ReadResource(ctx context.Context, reg *registry.Registry, uri string) (text, mimeType string, err error) {
	return tools.ReadResource(ctx, reg, uri)
}

// Prompts lists the prompts: one per guided stage, one per workflow.
func Prompts() ([]Prompt, error) { return workflow.Prompts() }

// GetPrompt renders a prompt for a run (runID may be empty) and, for a
// stage, a host's model binding (host may be empty). An unknown name
// satisfies IsNotFound; an unknown run or host is an *envelope.ToolError.
func GetPrompt(ctx context.Context, reg *registry.Registry, name, runID, host string) (description, text string, err error) {
	return workflow.GetPrompt(ctx, reg, name, runID, host)
}

// IsNotFound reports whether err says a resource or prompt does not exist.
func IsNotFound(err error) bool {
	var r *tools.ResourceNotFoundError
	var p *workflow.PromptNotFoundError
	return errors.As(err, &r) || errors.As(err, &p)
}
