package exporters_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/exporters"
	"github.com/cursus-go/cursus/registry"
)

type greetArgs struct {
	Who  string `json:"who" jsonschema:"required" jsonschema_description:"Whom to greet."`
	Loud bool   `json:"loud,omitempty" jsonschema:"default=false"`
}

// greetTool is a small tool for the examples; real callers export
// cursus.Registry().List(namespace).
var greetTool = registry.New("demo.greet", registry.Spec{
	Description: "Greets someone.",
	When:        "you want to say hello",
	Examples:    []string{`demo.greet {"who": "Ada"}`},
	Tags:        []string{registry.PhasePlanner},
}, func(ctx context.Context, a greetArgs) (*envelope.ToolResult, error) {
	return envelope.OK("hello " + a.Who), nil
})

// Export renders tools in any format by name, e.g. for a --format flag.
func ExampleExport() {
	f, err := exporters.ParseFormat("anthropic")
	if err != nil {
		panic(err)
	}
	out, err := exporters.Export(f, []*registry.ToolDef{greetTool})
	if err != nil {
		panic(err)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(out)
	// Output:
	// [
	//   {
	//     "name": "demo__greet",
	//     "description": "Greets someone.\n\nWhen: you want to say hello\n\nExamples:\n- {\"who\": \"Ada\"}",
	//     "input_schema": {
	//       "additionalProperties": false,
	//       "properties": {
	//         "loud": {
	//           "default": false,
	//           "type": "boolean"
	//         },
	//         "who": {
	//           "description": "Whom to greet.",
	//           "type": "string"
	//         }
	//       },
	//       "required": [
	//         "who"
	//       ],
	//       "type": "object"
	//     }
	//   }
	// ]
}

// Export takes the tools to render, so a namespace filter is the
// registry's List.
func ExampleExport_namespace() {
	reg := cursus.Registry()
	out, err := exporters.Export(exporters.FormatMCP, reg.List("tools"))
	if err != nil {
		panic(err)
	}
	tool := out[0].(exporters.MCPTool)
	fmt.Println(tool.Name, tool.Title, tool.Annotations.ReadOnlyHint)
	// Output: tools__by_phase tools.by_phase true
}

// The typed functions give Go values to inspect or adjust before sending.
func ExampleOpenAI() {
	tools := exporters.OpenAI([]*registry.ToolDef{greetTool})
	fn := tools[0].Function
	fmt.Println(tools[0].Type, fn.Name, fn.Metadata.Tags, fn.Parameters["required"])
	// Output: function demo__greet [planner] [who]
}

// Gemini rewrites the schema into the subset Gemini accepts: upper-case
// types, no additionalProperties, defaults folded into descriptions.
func ExampleGemini() {
	decl := exporters.Gemini([]*registry.ToolDef{greetTool})[0]
	b, _ := json.Marshal(decl.Parameters)
	fmt.Println(decl.Name)
	fmt.Println(string(b))
	// Output:
	// demo__greet
	// {"type":"OBJECT","properties":{"loud":{"type":"BOOLEAN","description":"(default: false)"},"who":{"type":"STRING","description":"Whom to greet."}},"required":["who"]}
}

// Annotations gives the MCP hints of a tool from its capability flags.
func ExampleAnnotations() {
	upsert := registry.New("demo.upsert", registry.Spec{
		Description: "Upserts a pipeline.", Destructive: true, Network: true,
	}, func(ctx context.Context, a struct{}) (*envelope.ToolResult, error) { return envelope.OK(nil), nil })
	fmt.Printf("%+v\n", exporters.Annotations(upsert))
	// Output: {ReadOnlyHint:false DestructiveHint:true IdempotentHint:false OpenWorldHint:true}
}

func ExampleParseFormat() {
	_, err := exporters.ParseFormat("claude")
	fmt.Println(err)
	// Output: unknown export format "claude" (valid: openai, openai-responses, anthropic, bedrock, gemini, mcp)
}

// ExportWith with DeferLoading puts the provider's tool search first and
// defers every tool outside the core toolset.
func ExampleExportWith() {
	core := registry.New("demo.start", registry.Spec{Description: "Where to start.", Core: true},
		func(ctx context.Context, a struct{}) (*envelope.ToolResult, error) { return envelope.OK(nil), nil })
	out, err := exporters.ExportWith(exporters.FormatAnthropic, []*registry.ToolDef{core, greetTool}, exporters.Options{DeferLoading: true})
	if err != nil {
		panic(err)
	}
	for _, t := range out {
		switch t := t.(type) {
		case exporters.AnthropicToolSearchTool:
			fmt.Println(t.Type)
		case exporters.AnthropicTool:
			fmt.Println(t.Name, t.DeferLoading)
		}
	}
	_, err = exporters.ExportWith(exporters.FormatGemini, []*registry.ToolDef{greetTool}, exporters.Options{DeferLoading: true})
	fmt.Println(err != nil)
	// Output:
	// tool_search_tool_bm25_20251119
	// demo__start false
	// demo__greet true
	// true
}
