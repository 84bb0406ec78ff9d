package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

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
// "markdown". When t's schema has no "format" property, the copy adds one
// (enum json, markdown) and removes it from the arguments before t's own
// decoding, so t never sees it; when it has one, t receives it as before
// and may render the view itself. A render error keeps the JSON data and
// adds a warning. Use it on tools before Build.
func (t *ToolDef) WithMarkdown(render func(data any) (string, error)) *ToolDef {
	base := t.Schema()
	props, _ := base["properties"].(map[string]any)
	_, own := props["format"]
	schema := base
	if !own {
		schema = maps.Clone(base)
		p := maps.Clone(props)
		if p == nil {
			p = map[string]any{}
		}
		p["format"] = maps.Clone(formatProperty)
		schema["properties"] = p
	}
	c := &ToolDef{Spec: t.Spec, Name: t.Name, argType: t.argType, wire: t.wire, aliases: t.aliases}
	c.schemaOnce.Do(func() { c.schema = schema })
	c.prepare = func() (*argSchema, error) { return compileSchema(schema) }
	c.invoke = func(ctx context.Context, raw []byte) (*envelope.ToolResult, error) {
		format, inner, err := takeFormat(raw, !own)
		if err != nil {
			return nil, envelope.InvalidInput("invalid arguments for '%s': %v", t.Name, err)
		}
		t.once.Do(func() { t.compiled, t.prepErr = t.prepare() })
		if t.prepErr != nil {
			return nil, fmt.Errorf("tool '%s' has a broken schema: %w", t.Name, t.prepErr)
		}
		res, err := t.invoke(ctx, inner)
		if err != nil || res == nil || !res.OK || format != FormatMarkdown {
			return res, err
		}
		if _, done := res.Data.(string); done {
			res.SetMeta("format", FormatMarkdown)
			return res, nil
		}
		md, rerr := render(res.Data)
		if rerr != nil {
			return res.WithWarnings(fmt.Sprintf("markdown view unavailable (%v); data is JSON", rerr)), nil
		}
		res.Data = md
		res.SetMeta("format", FormatMarkdown)
		return res, nil
	}
	return c
}

// takeFormat reads the "format" argument and, when strip, returns the
// arguments without it.
func takeFormat(raw []byte, strip bool) (string, []byte, error) {
	if len(raw) == 0 || isEmptyObject(raw) {
		return "", raw, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", nil, err
	}
	f, ok := m["format"]
	if !ok {
		return "", raw, nil
	}
	var format string
	if string(f) != "null" {
		if err := json.Unmarshal(f, &format); err != nil {
			return "", nil, fmt.Errorf("format: %v", err)
		}
	}
	if !strip {
		return format, raw, nil
	}
	delete(m, "format")
	out, err := json.Marshal(m)
	return format, out, err
}
