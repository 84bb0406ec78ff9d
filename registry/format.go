package registry

import (
	"encoding/json"
	"fmt"

	"github.com/cursus-go/cursus/envelope"
)

// FormatMarkdown is the value of the "format" argument that asks for a
// markdown view of a tool's result.
const FormatMarkdown = "markdown"

// formatProperty is the schema of the "format" argument WithMarkdown adds.
var formatProperty = map[string]any{
	"type":        "string",
	"enum":        []any{"json", FormatMarkdown},
	"description": "json (default) returns data; markdown returns a compact summary for a model to read.",
}

// WithMarkdown returns a copy of t whose result data can be asked for as a
// markdown view: with format "markdown", a successful result whose data is
// not already a string gets render(data) as its data and meta.format
// "markdown". When t's argument struct has no "format" field, the copy's
// schema adds one (enum json, markdown), which t's decoding ignores; when
// it has one, t receives it as before and may render the view itself. The
// data schema of the copy's output allows the view (a string) too. A
// render error keeps the JSON data and adds a warning. Use it on tools
// before Build.
func (t *ToolDef) WithMarkdown(render func(data any) (string, error)) *ToolDef {
	return &ToolDef{Spec: t.Spec, Name: t.Name, argType: t.argType, outType: t.outType, argFields: t.argFields, wire: t.wire,
		invoke: t.invoke, markdown: render, outputFrom: t.outputFrom}
}

// markdownView replaces the data of a success by its markdown view when
// the call asked for format "markdown" (raw: the validated arguments).
func (t *ToolDef) markdownView(raw []byte, res *envelope.ToolResult) {
	if t.markdown == nil || res == nil || !res.OK {
		return
	}
	var format string
	topMembers(raw, func(key string, val []byte) {
		if key == "format" {
			_ = json.Unmarshal(val, &format)
		}
	})
	if format != FormatMarkdown {
		return
	}
	if _, done := res.Data.(string); done {
		res.SetMeta("format", FormatMarkdown)
		return
	}
	md, err := t.markdown(res.Data)
	if err != nil {
		res.WithWarnings(fmt.Sprintf("markdown view unavailable (%v); data is JSON", err))
		return
	}
	res.Data = md
	res.SetMeta("format", FormatMarkdown)
}
