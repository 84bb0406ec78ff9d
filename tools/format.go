package tools

import (
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/tools/markdown"
)

// withMarkdownViews gives every tool its format argument (the shared
// vocabulary the server's instructions name): with format "markdown" the
// tool's result data is replaced by its view (see package markdown), the
// generic one for a tool without a view of its own. It runs once, when the registry is built,
// so the tools' own files need no change.
func withMarkdownViews(nss []registry.Namespace) []registry.Namespace {
	out := make([]registry.Namespace, len(nss))
	for i, ns := range nss {
		ns.Tools = append([]*registry.ToolDef(nil), ns.Tools...)
		for j, t := range ns.Tools {
			name := t.Name
			ns.Tools[j] = t.WithMarkdown(func(data any) (string, error) { return markdown.RenderAny(name, data) })
		}
		out[i] = ns
	}
	return out
}
