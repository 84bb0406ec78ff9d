// Package markdown renders compact markdown views of large tool results,
// for a model to read instead of the JSON data.
//
// One view per tool (Views lists them): tools.help, dag.resolve_plan,
// compile.with_report, compile.preview, validate.alignment,
// pipeline_catalog.recommend, execdoc.generate and workflow.status. Render
// takes the tool's result data as any Go value (a struct, a map, a
// json.RawMessage), normalises it through JSON and renders from the keys it
// knows; a key that is absent is skipped, so a view degrades instead of
// failing when a tool adds or drops a field. Long lists are cut with a
// line saying how many were left out. Views are plain CommonMark (headings,
// lists, pipe tables), ASCII only, and deterministic: map keys are sorted.
//
// The tools layer applies the views through registry.ToolDef.WithMarkdown,
// so a tool returns its view when called with format "markdown" and its
// JSON data otherwise. Golden files for every view are in testdata
// (go test ./tools/markdown -update rewrites them).
package markdown
