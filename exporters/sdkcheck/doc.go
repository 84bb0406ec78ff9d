// Package sdkcheck proves the exporters' JSON against the providers' own Go
// SDK types: openai-go (Chat Completions and Responses), anthropic-sdk-go,
// aws-sdk-go-v2/service/bedrockruntime, google.golang.org/genai and the MCP
// go-sdk. It is a nested module, so those SDKs never become dependencies of
// github.com/cursus-go/cursus; it has tests only. Run it from this
// directory:
//
//	cd exporters/sdkcheck && go test ./...
//
// Each test loads every exported tool of the real registry (plus a tool
// whose schema uses every construct the exporters must rewrite) into the
// SDK's type, marshals it back and compares the two as decoded JSON, so a
// field the SDK does not know, or one in the wrong place, fails the test.
// Negative controls show that each comparison does catch such a field.
package sdkcheck
