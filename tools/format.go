package tools

import (
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/tools/markdown"
)

// withMarkdownViews gives every tool that has a markdown view (see package
// markdown) its format argument: with format "markdown" the tool's result
// data is replaced by the view. It runs once, when the registry is built,
// so the tools' own files need no change.
func withMarkdownViews(nss []registry.Namespace) []registry.Namespace {
	out := make([]registry.Namespace, len(nss))
	for i, ns := range nss {
		ns.Tools = append([]*registry.ToolDef(nil), ns.Tools...)
		for j, t := range ns.Tools {
			if markdown.Has(t.Name) {
				name := t.Name
				ns.Tools[j] = t.WithMarkdown(func(data any) (string, error) { return markdown.Render(name, data) })
			}
		}
		out[i] = ns
	}
	return out
}
