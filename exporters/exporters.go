package exporters

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/registry"
)

// Format names an export format, as given to ParseFormat and on the command
// line (cursus mcp export --format NAME).
type Format string

// The export formats.
const (
	// FormatOpenAI is OpenAI Chat Completions function tools.
	FormatOpenAI Format = "openai"
	// FormatOpenAIResponses is OpenAI Responses function tools (flat).
	FormatOpenAIResponses Format = "openai-responses"
	// FormatAnthropic is Anthropic Messages tools.
	FormatAnthropic Format = "anthropic"
	// FormatBedrock is AWS Bedrock Converse tools (toolSpec).
	FormatBedrock Format = "bedrock"
	// FormatGemini is Gemini function declarations.
	FormatGemini Format = "gemini"
	// FormatMCP is the MCP tools/list tool shape.
	FormatMCP Format = "mcp"
)

// Formats lists every format, in the order help texts show them. Do not
// modify it.
var Formats = []Format{FormatOpenAI, FormatOpenAIResponses, FormatAnthropic, FormatBedrock, FormatGemini, FormatMCP}

// String returns the format's name.
func (f Format) String() string { return string(f) }

// ParseFormat returns the format named s (exactly, e.g. "openai-responses").
// An unknown name is an error that lists the valid ones.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown export format %q (valid: %s)", s, formatNames())
}

func formatNames() string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// Export renders tools in format f. The result holds one typed value per
// tool (OpenAITool, OpenAIResponsesTool, AnthropicTool, BedrockTool,
// GeminiFunctionDeclaration or MCPTool), in the order given, and marshals to
// the JSON array the host expects; it is empty, never nil, for no tools. An
// unknown format or a nil tool is an error.
func Export(f Format, tools []*registry.ToolDef) ([]any, error) {
	for i, t := range tools {
		if t == nil {
			return nil, fmt.Errorf("exporters: tool %d is nil", i)
		}
	}
	switch f {
	case FormatOpenAI:
		return anys(OpenAI(tools)), nil
	case FormatOpenAIResponses:
		return anys(OpenAIResponses(tools)), nil
	case FormatAnthropic:
		return anys(Anthropic(tools)), nil
	case FormatBedrock:
		return anys(Bedrock(tools)), nil
	case FormatGemini:
		return anys(Gemini(tools)), nil
	case FormatMCP:
		return anys(MCP(tools)), nil
	}
	return nil, fmt.Errorf("exporters: unknown export format %q (valid: %s)", string(f), formatNames())
}

// ExportJSON is Export marshalled: a JSON array, indented by two spaces when
// indent is true, without a trailing newline.
func ExportJSON(f Format, tools []*registry.ToolDef, indent bool) ([]byte, error) {
	return ExportJSONWith(f, tools, Options{}, indent)
}

// Options configures ExportWith.
type Options struct {
	// DeferLoading uses the provider's tool search: every tool but those of
	// the core toolset (registry.Spec.Core) is marked for deferred loading,
	// so the model starts with the core tools' definitions and the others'
	// names, and loads a definition when its search finds the tool; the
	// provider's tool search tool comes first in the export. Two formats
	// have it: FormatAnthropic (Messages API: "defer_loading": true on the
	// tool, and the tool_search_tool_bm25_20251119 server tool) and
	// FormatOpenAIResponses (Responses API: "defer_loading": true on the
	// function, and {"type": "tool_search"}). The others refuse it: OpenAI
	// Chat Completions, Bedrock Converse (Anthropic's tool search runs
	// through InvokeModel there), Gemini and MCP have no such field.
	DeferLoading bool
}

// DeferFormats lists the formats that take Options.DeferLoading.
var DeferFormats = []Format{FormatAnthropic, FormatOpenAIResponses}

// ExportWith is Export with options. With Options.DeferLoading, a format
// without deferred loading is an error naming those with it.
func ExportWith(f Format, tools []*registry.ToolDef, o Options) ([]any, error) {
	if !o.DeferLoading {
		return Export(f, tools)
	}
	for i, t := range tools {
		if t == nil {
			return nil, fmt.Errorf("exporters: tool %d is nil", i)
		}
	}
	switch f {
	case FormatAnthropic:
		out := []any{AnthropicToolSearch()}
		for i, t := range Anthropic(tools) {
			t.DeferLoading = !tools[i].Core
			out = append(out, t)
		}
		return out, nil
	case FormatOpenAIResponses:
		out := []any{OpenAIToolSearch()}
		for i, t := range OpenAIResponses(tools) {
			t.DeferLoading = !tools[i].Core
			out = append(out, t)
		}
		return out, nil
	}
	if _, err := ParseFormat(string(f)); err != nil {
		return nil, fmt.Errorf("exporters: %w", err)
	}
	return nil, fmt.Errorf("exporters: format %q has no deferred loading (the provider's API has no defer_loading field for it); formats with it: %s, %s",
		string(f), FormatAnthropic, FormatOpenAIResponses)
}

// ExportJSONWith is ExportWith marshalled, as ExportJSON.
func ExportJSONWith(f Format, tools []*registry.ToolDef, o Options, indent bool) ([]byte, error) {
	out, err := ExportWith(f, tools, o)
	if err != nil {
		return nil, err
	}
	if indent {
		return json.MarshalIndent(out, "", "  ")
	}
	return json.Marshal(out)
}

func anys[T any](in []T) []any {
	out := make([]any, len(in))
	for i := range in {
		out[i] = in[i]
	}
	return out
}

// tags returns a copy of the tool's tags, or nil when it has none.
func tags(t *registry.ToolDef) []string {
	if len(t.Tags) == 0 {
		return nil
	}
	return append([]string(nil), t.Tags...)
}

// OpenAITool is one OpenAI Chat Completions tool:
// {"type":"function","function":{...}}.
type OpenAITool struct {
	// Type is always "function".
	Type string `json:"type"`
	// Function is the function definition.
	Function OpenAIFunction `json:"function"`
}

// OpenAIFunction is the function definition of an OpenAITool.
type OpenAIFunction struct {
	// Name is the tool's wire name.
	Name string `json:"name"`
	// Description is the rendered description.
	Description string `json:"description"`
	// Parameters is the JSON Schema of the arguments (a deep copy).
	Parameters map[string]any `json:"parameters"`
	// Metadata carries the phase tags; nil (and absent from the JSON) for a
	// tool without tags. It is a Cursus extension that
	// hosts can route on: the openai-go SDK types load the tool and drop it
	// (proved in exporters/sdkcheck), so SDK users send only the standard
	// fields. A caller posting this JSON to the API by hand can set it to
	// nil to do the same.
	Metadata *OpenAIMetadata `json:"metadata,omitempty"`
}

// OpenAIMetadata is the metadata object of an OpenAIFunction.
type OpenAIMetadata struct {
	// Tags are the tool's phase tags (planner, validator, programmer).
	Tags []string `json:"tags"`
}

// OpenAI renders tools as OpenAI Chat Completions function tools. Every tool
// must be non-nil.
func OpenAI(tools []*registry.ToolDef) []OpenAITool {
	out := make([]OpenAITool, len(tools))
	for i, t := range tools {
		out[i] = OpenAITool{Type: "function", Function: OpenAIFunction{
			Name:        t.WireName(),
			Description: t.RenderDescription(),
			Parameters:  copySchema(t.Schema()),
		}}
		if tg := tags(t); tg != nil {
			out[i].Function.Metadata = &OpenAIMetadata{Tags: tg}
		}
	}
	return out
}

// OpenAIResponsesTool is one OpenAI Responses function tool (flat: no
// "function" wrapper).
type OpenAIResponsesTool struct {
	// Type is always "function".
	Type string `json:"type"`
	// Name is the tool's wire name.
	Name string `json:"name"`
	// Description is the rendered description.
	Description string `json:"description"`
	// Parameters is the JSON Schema of the arguments (a deep copy).
	Parameters map[string]any `json:"parameters"`
	// Strict is always false: the registry's schemas mark optional keys by
	// leaving them out of "required", which OpenAI's strict mode forbids.
	Strict bool `json:"strict"`
	// DeferLoading marks a function the Responses API's tool search loads
	// on demand (ExportWith with Options.DeferLoading); absent when false.
	DeferLoading bool `json:"defer_loading,omitempty"`
}

// OpenAIToolSearchTool is the Responses API's hosted tool search,
// {"type": "tool_search"}: it loads the deferred functions the model
// searches for.
type OpenAIToolSearchTool struct {
	// Type is always "tool_search".
	Type string `json:"type"`
}

// OpenAIToolSearch returns the Responses API's tool search tool.
func OpenAIToolSearch() OpenAIToolSearchTool { return OpenAIToolSearchTool{Type: "tool_search"} }

// OpenAIResponses renders tools as OpenAI Responses function tools. Every
// tool must be non-nil.
func OpenAIResponses(tools []*registry.ToolDef) []OpenAIResponsesTool {
	out := make([]OpenAIResponsesTool, len(tools))
	for i, t := range tools {
		out[i] = OpenAIResponsesTool{
			Type:        "function",
			Name:        t.WireName(),
			Description: t.RenderDescription(),
			Parameters:  copySchema(t.Schema()),
		}
	}
	return out
}

// AnthropicTool is one Anthropic Messages tool.
type AnthropicTool struct {
	// Name is the tool's wire name.
	Name string `json:"name"`
	// Description is the rendered description.
	Description string `json:"description"`
	// InputSchema is the JSON Schema of the arguments (a deep copy).
	InputSchema map[string]any `json:"input_schema"`
	// DeferLoading keeps the tool's definition out of the model's context
	// until the tool search finds it (ExportWith with
	// Options.DeferLoading); absent when false.
	DeferLoading bool `json:"defer_loading,omitempty"`
}

// AnthropicToolSearchTool is one of Anthropic's tool search server tools:
// {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}
// searches the deferred tools with natural-language queries.
type AnthropicToolSearchTool struct {
	// Type is the server tool's versioned type.
	Type string `json:"type"`
	// Name is the name the model calls it by.
	Name string `json:"name"`
}

// AnthropicToolSearch returns Anthropic's BM25 tool search tool (natural
// language queries; the regex variant is tool_search_tool_regex_20251119).
func AnthropicToolSearch() AnthropicToolSearchTool {
	return AnthropicToolSearchTool{Type: "tool_search_tool_bm25_20251119", Name: "tool_search_tool_bm25"}
}

// Anthropic renders tools as Anthropic Messages tools. Every tool must be
// non-nil.
func Anthropic(tools []*registry.ToolDef) []AnthropicTool {
	out := make([]AnthropicTool, len(tools))
	for i, t := range tools {
		out[i] = AnthropicTool{Name: t.WireName(), Description: t.RenderDescription(), InputSchema: copySchema(t.Schema())}
	}
	return out
}

// BedrockTool is one AWS Bedrock Converse tool (an element of
// toolConfig.tools).
type BedrockTool struct {
	// ToolSpec is the tool specification.
	ToolSpec BedrockToolSpec `json:"toolSpec"`
}

// BedrockToolSpec is the toolSpec of a BedrockTool.
type BedrockToolSpec struct {
	// Name is the tool's wire name.
	Name string `json:"name"`
	// Description is the rendered description.
	Description string `json:"description"`
	// InputSchema wraps the JSON Schema of the arguments.
	InputSchema BedrockInputSchema `json:"inputSchema"`
}

// BedrockInputSchema is the inputSchema of a BedrockToolSpec.
type BedrockInputSchema struct {
	// JSON is the JSON Schema of the arguments (a deep copy).
	JSON map[string]any `json:"json"`
}

// Bedrock renders tools as AWS Bedrock Converse tools. Every tool must be
// non-nil.
func Bedrock(tools []*registry.ToolDef) []BedrockTool {
	out := make([]BedrockTool, len(tools))
	for i, t := range tools {
		out[i] = BedrockTool{ToolSpec: BedrockToolSpec{
			Name:        t.WireName(),
			Description: t.RenderDescription(),
			InputSchema: BedrockInputSchema{JSON: copySchema(t.Schema())},
		}}
	}
	return out
}

// MCPTool is one tool as MCP tools/list lists it.
type MCPTool struct {
	// Name is the tool's wire name.
	Name string `json:"name"`
	// Title is the tool's Title, or its dotted name when it has none.
	Title string `json:"title"`
	// Description is the rendered description.
	Description string `json:"description"`
	// InputSchema is the JSON Schema of the arguments (a deep copy).
	InputSchema map[string]any `json:"inputSchema"`
	// Annotations are the behaviour hints (see Annotations).
	Annotations MCPAnnotations `json:"annotations"`
	// Tags are the phase tags; absent from the JSON when there are none.
	// Not part of the MCP Tool type: MCP client SDKs ignore it.
	Tags []string `json:"tags,omitempty"`
}

// MCPAnnotations are the MCP tool annotations (hints). Every hint is
// written out, false included, because the MCP defaults are not the safe
// ones (destructiveHint and openWorldHint default to true when absent).
type MCPAnnotations struct {
	// ReadOnlyHint: the tool does not modify its environment.
	ReadOnlyHint bool `json:"readOnlyHint"`
	// DestructiveHint: the tool may perform destructive updates.
	DestructiveHint bool `json:"destructiveHint"`
	// IdempotentHint: calling it again with the same arguments has no
	// further effect.
	IdempotentHint bool `json:"idempotentHint"`
	// OpenWorldHint: the tool may interact with an open world of external
	// entities.
	OpenWorldHint bool `json:"openWorldHint"`
}

// Annotations derives a tool's MCP annotations from its capability flags:
//
//   - readOnlyHint = t.ReadOnly(): neither destructive, nor writing files,
//     nor executing code;
//   - destructiveHint = t.Destructive: it mutates external state (e.g.
//     upserts a pipeline);
//   - idempotentHint = t.ReadOnly(): a read-only tool has no side effects,
//     so repeating a call cannot change anything more. For a tool that
//     writes, mutates or executes code the registry has no flag saying a
//     repeat is harmless, so it is not claimed (false is also the MCP
//     default);
//   - openWorldHint = t.Network || t.ExecCode || t.CallsTools: the tool
//     reaches the network or AWS, runs code that may reach anything, or
//     calls tools that may; the other tools only see the embedded catalogs
//     and the local project.
//
// The MCP server uses the same function, so tools/list and this export
// agree.
func Annotations(t *registry.ToolDef) MCPAnnotations {
	return MCPAnnotations{
		ReadOnlyHint:    t.ReadOnly(),
		DestructiveHint: t.Destructive,
		IdempotentHint:  t.ReadOnly(),
		OpenWorldHint:   t.Network || t.ExecCode || t.CallsTools,
	}
}

// MCPTitle is the title a tool shows in MCP: its Title, or its dotted name.
func MCPTitle(t *registry.ToolDef) string {
	if t.Title != "" {
		return t.Title
	}
	return t.Name
}

// MCP renders tools in the MCP tools/list shape. Every tool must be non-nil.
func MCP(tools []*registry.ToolDef) []MCPTool {
	out := make([]MCPTool, len(tools))
	for i, t := range tools {
		out[i] = MCPTool{
			Name:        t.WireName(),
			Title:       MCPTitle(t),
			Description: t.RenderDescription(),
			InputSchema: copySchema(t.Schema()),
			Annotations: Annotations(t),
			Tags:        tags(t),
		}
	}
	return out
}
