package cursus_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/tools"
)

// Call a tool and read its envelope.
func ExampleCallTool() {
	res := cursus.CallTool(context.Background(), "tools.by_phase", map[string]any{"phase": "validator"})
	fmt.Println(res.OK, res.Meta["tool"])
	// Output: true tools.by_phase
}

// Call a tool and read its data as the Go type it answers.
func ExampleCall() {
	data, res, err := cursus.Call[tools.ToolsByPhaseData](context.Background(), "tools.by_phase", map[string]any{"phase": "validator"})
	fmt.Println(err, res.OK, data.Phase, data.Count == len(data.Tools))
	// Output: <nil> true validator true
}

// A failure is an error carrying the envelope's code, details and remedy.
func ExampleCall_failure() {
	_, _, err := cursus.Call[tools.ToolInfo](context.Background(), "tools.describe_tool", map[string]any{"name": "catalog.serch"})
	var te *envelope.ToolError
	if errors.As(err, &te) {
		fmt.Println(te.Code, te.Remedy.SuggestedTools[0])
	}
	// Output: unknown_tool catalog.search
}

// A failing call never panics: it answers with a code and often a remedy.
func ExampleCallTool_unknownTool() {
	res := cursus.CallTool(context.Background(), "no.such_tool", nil)
	fmt.Println(res.OK, res.Code, res.Remedy.SuggestedTools[0])
	// Output: false unknown_tool tools.help
}

// Arguments are validated in full before the tool runs; every problem names its field.
func ExampleCallTool_invalidInput() {
	res := cursus.CallTool(context.Background(), "tools.by_phase", `{"phase": "design"}`)
	fmt.Println(res.Code)
	// Output: invalid_input
}

// Under a policy (as the MCP server applies it) a gated tool answers
// tool_disabled, naming the variable that opens its gate, and nothing is
// written; the read-only tools answer as before.
func ExampleWithPolicy() {
	ctx := cursus.WithPolicy(context.Background(), registry.Policy{})
	res := cursus.CallTool(ctx, "dag.serialize", map[string]any{
		"dag":         map[string]any{"nodes": []string{"a", "b"}, "edges": [][]string{{"a", "b"}}},
		"output_file": "dag.json",
	})
	fmt.Println(res.OK, res.Code, strings.Contains(res.Error, registry.EnvEnableDestructive))
	fmt.Println(cursus.CallTool(ctx, "tools.help", nil).OK)
	// Output:
	// false tool_disabled true
	// true
}

// List the tools of one namespace.
func ExampleListTools() {
	for _, t := range cursus.ListTools("tools") {
		fmt.Println(t.Name, t.WireName)
	}
	// Output:
	// tools.by_phase tools__by_phase
	// tools.describe_tool tools__describe_tool
	// tools.help tools__help
	// tools.toolsets tools__toolsets
}

// Look a tool up by either name form.
func ExampleLookupTool() {
	t, ok := cursus.LookupTool("tools__describe_tool")
	fmt.Println(ok, t.Name, t.Schema["required"])
	// Output: true tools.describe_tool [name]
}

// Namespaces carry one-line descriptions.
func ExampleNamespaces() {
	_, ok := cursus.Namespaces()["tools"]
	fmt.Println(ok)
	// Output: true
}

// Export the tools in a provider's format, ready to hand to its API.
func ExampleExport() {
	raw, err := cursus.Export("anthropic", "tools")
	if err != nil {
		panic(err)
	}
	var tools []map[string]any
	_ = json.Unmarshal(raw, &tools)
	fmt.Println(len(tools), tools[0]["name"])
	// Output: 4 tools__by_phase
}

// List names, descriptions and flags without paying for schemas.
func ExampleListToolSummaries() {
	t := cursus.ListToolSummaries("tools")[0]
	fmt.Println(t.Name, t.Schema == nil)
	// Output: tools.by_phase true
}
