// Package cursus is the public Go API of Cursus: an ML-pipeline engine that
// turns a DAG of step types and a config.json into an Amazon SageMaker
// Pipelines definition, with every capability exposed as a small, typed,
// JSON-in/JSON-out tool.
//
// One registry of tools feeds three front ends: this package (CallTool,
// ListTools, Export), the `cursus` CLI and the MCP server (`cursus mcp
// serve`). All of them call the same invoker, so a tool behaves the same
// everywhere: it never panics and always answers with an
// *envelope.ToolResult.
//
// Every answer is an envelope (see package envelope for its fields): ok,
// data or error and code, warnings, next_steps, remedy, meta. CallTool
// returns it untyped; Call returns the data as the Go type the tool
// answers (tools.CatalogSearchData for catalog.search, ...):
//
//	data, res, err := cursus.Call[tools.CatalogSearchData](ctx, "catalog.search", map[string]any{"query": "xgb"})
//
// In-process callers are trusted: they see and may call every tool. Pass a
// policy with WithPolicy to get the gates and the file confinement the MCP
// server applies.
package cursus

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/exporters"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/tools"
	"github.com/cursus-go/cursus/workflow"
)

// Version is the version of this module, reported by `cursus version` and as
// the MCP server's serverInfo.version.
const Version = "0.1.0"

// Tool describes one tool.
type Tool struct {
	Name         string         `json:"name"`      // canonical dotted name, e.g. "compile.dag"
	WireName     string         `json:"wire_name"` // host-safe name, e.g. "compile__dag"
	Namespace    string         `json:"namespace"`
	Description  string         `json:"description"`
	When         string         `json:"when,omitempty"`
	Examples     []string       `json:"examples,omitempty"`
	Tags         []string       `json:"tags"`
	Destructive  bool           `json:"destructive"`
	Writes       bool           `json:"writes"`
	ExecCode     bool           `json:"exec_code"`
	Network      bool           `json:"network"`
	DeprecatedBy string         `json:"deprecated_by,omitempty"`
	Schema       map[string]any `json:"input_schema,omitempty"`
	// OutputSchema is the schema of the tool's answer (the envelope, its
	// data typed); with the input schema only.
	OutputSchema map[string]any `json:"output_schema,omitempty"`
	// Typed reports whether the tool's data has a Go type (Call's Out).
	Typed bool `json:"typed"`
}

// DefaultNamespaces returns the namespaces of the default registry, each
// built anew, in a fixed order: those of package tools (the tools over the
// engine), then the workflow namespace (package workflow: the guided
// stages and the workflow runner, which call the other tools through the
// registry). It is the one list of the tools Cursus serves.
func DefaultNamespaces() []registry.Namespace {
	return append(tools.DefaultNamespaces(), workflow.Namespace())
}

var (
	buildOnce sync.Once
	built     *registry.Registry
	buildErr  error
)

// Build builds the default registry (DefaultNamespaces, with the tools'
// markdown views) once and returns it with any build error. Each tool's
// schemas are reflected on first use, once.
func Build() (*registry.Registry, error) {
	buildOnce.Do(func() {
		built, buildErr = tools.Build(DefaultNamespaces())
	})
	return built, buildErr
}

// Registry returns the registry of every tool, built once. It panics if
// the registry cannot be built: a duplicate or malformed tool is a
// programming error that the package tests catch.
func Registry() *registry.Registry {
	r, err := Build()
	if err != nil {
		panic(fmt.Sprintf("cursus: %v", err))
	}
	return r
}

// CallTool calls a tool by dotted ("catalog.search") or wire
// ("catalog__search") name. args may be nil, a JSON object as []byte,
// json.RawMessage or string, or any value that marshals to a JSON object
// (a map or a struct).
func CallTool(ctx context.Context, name string, args any) *envelope.ToolResult {
	return Registry().Call(ctx, name, args)
}

// Call calls a tool (CallTool) and returns its data as an Out, with the
// result. Out is the tool's data type (registry.ToolDef.OutputType; each
// tool's doc names it: tools.CatalogSearchData, workflow.StatusData, ...);
// every tool of the default registry has one. A failure returns the
// zero Out, the result and its error, a *envelope.ToolError with the code,
// details and remedy; data of another Go type, or the markdown view, is an
// error too. A check that ran and failed (res.FailedCheck) is a success:
// its judgement is the data.
func Call[Out any](ctx context.Context, name string, args any) (Out, *envelope.ToolResult, error) {
	res := CallTool(ctx, name, args)
	out, err := envelope.As[Out](res)
	return out, res, err
}

// WithPolicy returns a context under which CallTool applies the policy: its
// closed gates answer tool_disabled, and reads and writes are confined to
// its project root (reads also to its read-only roots).
func WithPolicy(ctx context.Context, p registry.Policy) context.Context {
	return registry.WithPolicy(ctx, p)
}

// PolicyFromEnv reads the policy the MCP server uses from
// CURSUS_MCP_ENABLE_DESTRUCTIVE, CURSUS_MCP_ALLOW_SCRIPT_EXEC and
// CURSUS_MCP_PROJECT_ROOT (defaulting the root to defaultRoot).
func PolicyFromEnv(defaultRoot string) registry.Policy { return registry.PolicyFromEnv(defaultRoot) }

// ListTools lists the tools, sorted by name, optionally of one namespace
// ("" for all). Deprecated tools are not listed.
func ListTools(namespace string) []Tool { return listTools(namespace, true) }

// ListToolSummaries is ListTools without the input schemas. Schemas are
// reflected from the argument structs on first use, so a caller that only
// needs names, descriptions and flags (`cursus mcp list-tools`) never pays
// for them.
func ListToolSummaries(namespace string) []Tool { return listTools(namespace, false) }

func listTools(namespace string, withSchema bool) []Tool {
	defs := Registry().List(namespace)
	out := make([]Tool, 0, len(defs))
	for _, t := range defs {
		out = append(out, toTool(t, withSchema))
	}
	return out
}

// LookupTool describes one tool by dotted or wire name.
func LookupTool(name string) (Tool, bool) {
	t, ok := Registry().Get(name)
	if !ok {
		return Tool{}, false
	}
	return toTool(t, true), true
}

// Namespaces returns every namespace with its one-line description.
func Namespaces() map[string]string { return Registry().Namespaces() }

// Export renders the tools (optionally of one namespace) in a provider's
// tool format: "openai", "openai-responses", "anthropic", "bedrock",
// "gemini" or "mcp". The result is a JSON array.
func Export(format, namespace string) (json.RawMessage, error) {
	f, err := exporters.ParseFormat(format)
	if err != nil {
		return nil, err
	}
	return exporters.ExportJSON(f, Registry().List(namespace), false)
}

func toTool(t *registry.ToolDef, withSchema bool) Tool {
	out := Tool{
		Name: t.Name, WireName: t.WireName(), Namespace: t.Namespace(), Description: t.Description,
		When: t.When, Examples: t.Examples, Tags: append([]string{}, t.Tags...),
		Destructive: t.Destructive, Writes: t.Writes, ExecCode: t.ExecCode, Network: t.Network,
		DeprecatedBy: t.DeprecatedBy, Typed: t.Typed(),
	}
	if withSchema {
		out.Schema = t.Schema()
		out.OutputSchema = t.OutputSchema()
	}
	return out
}
