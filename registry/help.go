package registry

import (
	"context"
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/envelope"
)

type nsHelpArgs struct {
	Phase         string `json:"phase,omitempty" jsonschema:"enum=planner,enum=validator,enum=programmer" jsonschema_description:"Only tools tagged with this phase."`
	IncludeSchema bool   `json:"include_schema,omitempty" jsonschema_description:"Include each tool's input schema."`
	Format        string `json:"format,omitempty" jsonschema:"enum=json,enum=markdown" jsonschema_description:"json (default) returns data; markdown returns a compact summary for a model to read."`
}

// NamespaceHelp reports whether t is a generated <ns>.help tool: tools.help
// pinned to one namespace, which a host's tool list can leave out
// (tools.help {"namespace": ...} answers the same).
func (t *ToolDef) NamespaceHelp() bool { return t.outputFrom == "tools.help" }

// newNamespaceHelp builds the generated <ns>.help tool: tools.help pinned to
// one namespace (a namespace argument is rejected as unknown). It answers
// what tools.help answers, so its output schema and type are tools.help's.
func newNamespaceHelp(ns, desc string) *ToolDef {
	name := ns + ".help"
	t := New(name, Spec{
		Description: fmt.Sprintf("The %s tools, each with its description, when to call it and examples (include_schema: with input schemas): %s", ns, strings.TrimSuffix(desc, ".")+"."),
		When:        "starting on the " + ns + " tools",
		// The second example filters by phase: the include_schema answer of a
		// large namespace exceeds the 16 KB default-answer budget, and
		// tools.describe_tool gives one tool's schema.
		Examples: []string{name + " {}", name + ` {"phase": "validator"}  # only the checking tools`},
		Tags:     []string{PhasePlanner},
	}, func(ctx context.Context, a nsHelpArgs) (*envelope.ToolResult, error) {
		args := map[string]any{"namespace": ns}
		if a.Phase != "" {
			args["phase"] = a.Phase
		}
		if a.IncludeSchema {
			args["include_schema"] = true
		}
		if a.Format != "" {
			args["format"] = a.Format
		}
		res := Call(ctx, "tools.help", args)
		delete(res.Meta, "tool")
		delete(res.Meta, "duration_ms")
		return res, nil
	})
	t.outputFrom = "tools.help"
	return t
}
