// Command baresdk is a bare go-sdk MCP server over stdio: the floor the
// server's subprocess benchmarks compare `cursus mcp serve` with. It
// registers the tool descriptors of the file named by -tools (the tools
// array of a tools/list answer, schemas kept as they are) and answers every
// tools/call with the envelope of the file named by -answer, shaped as
// Cursus shapes a result (the envelope as structuredContent and as one text
// block), with nothing of Cursus: no registry, no policy, no frame filter.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	toolsFile := flag.String("tools", "", "`FILE` holding the tools array to register")
	answerFile := flag.String("answer", "", "`FILE` holding the envelope every tools/call answers")
	flag.Parse()
	if err := run(*toolsFile, *answerFile); err != nil {
		fmt.Fprintln(os.Stderr, "baresdk:", err)
		os.Exit(1)
	}
}

func run(toolsFile, answerFile string) error {
	answer, err := os.ReadFile(answerFile)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(toolsFile)
	if err != nil {
		return err
	}
	var tools []*mcp.Tool
	if err := json.Unmarshal(b, &tools); err != nil {
		return err
	}
	var schemas []struct {
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(b, &schemas); err != nil {
		return err
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "baresdk", Version: "0"}, nil)
	handler := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(answer)}}, StructuredContent: json.RawMessage(answer)}, nil
	}
	for i, t := range tools {
		t.InputSchema = schemas[i].InputSchema
		if len(schemas[i].OutputSchema) > 0 {
			t.OutputSchema = schemas[i].OutputSchema
		}
		s.AddTool(t, handler)
	}
	return s.Run(context.Background(), &mcp.StdioTransport{})
}
