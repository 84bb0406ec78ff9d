// Package exporters turns registry tools into the tool-definition JSON that
// model providers and agent hosts expect, so one registry feeds every host:
//
//   - FormatOpenAI: OpenAI Chat Completions,
//     {"type":"function","function":{"name","description","parameters"}},
//     with the phase tags under function.metadata.tags when there are any;
//   - FormatOpenAIResponses: OpenAI Responses, the flat
//     {"type":"function","name","description","parameters","strict":false};
//   - FormatAnthropic: Anthropic Messages, {"name","description","input_schema"};
//   - FormatBedrock: AWS Bedrock Converse,
//     {"toolSpec":{"name","description","inputSchema":{"json":schema}}};
//   - FormatGemini: Gemini function declarations {"name","description","parameters"}
//     whose parameters are the OpenAPI-3.0 subset Gemini accepts (see Gemini);
//   - FormatMCP: the MCP tools/list shape {"name","title","description",
//     "inputSchema","annotations"} plus "tags" when there are any.
//
// Every format uses the tool's wire name ("compile__dag": host APIs reject
// dots) and its rendered description (registry.ToolDef.RenderDescription:
// the description, "When: ..." and the examples, which keep their dotted
// names). Schemas are deep copies, so a caller may edit an export freely
// without touching the registry.
//
// The functions take the tools to export, so filtering is the caller's:
// pass reg.List("") for every listed tool or reg.List("compile") for one
// namespace. The output keeps the order of the input (List sorts by name).
//
// ExportWith with Options.DeferLoading uses the provider's tool search
// for FormatAnthropic and FormatOpenAIResponses: "defer_loading": true on
// every tool outside the core toolset (registry.Spec.Core), the provider's
// tool search tool first; the other formats refuse it.
//
// Each format is proved against the provider's own Go SDK types by the
// tests of the nested module exporters/sdkcheck (run there with go test
// ./...), which keeps those SDKs out of this module's dependencies.
package exporters
