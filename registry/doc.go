// Package registry is the single source of truth for Cursus's tools: each
// tool is a ToolDef built from a typed Go argument struct, a data type and
// a handler (New), collected into a Registry (Build) that lists, describes
// and calls them.
//
// Schemas: the argument struct is reflected into the tool's input schema
// (Schema) and the data type into its output schema (OutputSchema: the
// whole envelope, its data typed; see OutputSchemaFor), each once, on
// first use, and marshalled once (SchemaJSON, OutputSchemaJSON). A tool
// whose handler still returns *envelope.ToolResult is untyped (Typed is
// false): its data schema is {}. Each schema is cached in its tool: the
// registry holds no other copy of it.
//
// Call is the one invoker every front end uses (the Go API, the CLI and the
// MCP server). It never panics and always returns an *envelope.ToolResult:
//
//   - an unknown name answers unknown_tool (UnknownTool; tools.describe_tool
//     answers the same) with a did-you-mean: the few closest names by edit
//     distance in the message and meta.details.available, never the whole
//     list, and a remedy naming them and tools.help;
//   - arguments that are not JSON answer invalid_input with the position of
//     the error (line, column and byte offset);
//   - deprecated argument names (Alias: a field tagged `deprecated:"<new>"`)
//     are moved to their replacement, and the result warns about each;
//   - arguments are validated in full against the tool's JSON Schema
//     (types, nested values, required keys, enums, bounds, patterns,
//     unknown keys; a top-level null counts as absent, so a null for a
//     required key is "missing") and answer invalid_input with every
//     problem in meta.details.errors, each naming its field path; an
//     unknown argument names the closest known ones ("did you mean
//     'query'?"). The validator reads the raw JSON (validate.go): the
//     arguments are never decoded into generic Go values;
//   - schema defaults are applied, then the JSON is decoded once, into the
//     argument struct, and the handler runs;
//   - with format "markdown", a tool that has a markdown view
//     (WithMarkdown) answers the view as its data;
//   - a *envelope.ToolError keeps its code, details and remedy; any other
//     error or a panic becomes internal_error with the Go type in
//     meta.details;
//   - meta.tool is the canonical dotted name of the tool called and
//     meta.duration_ms the time the call took;
//   - the answer is encoded once, to measure it against the answer cap;
//     CallJSON hands those bytes to a front end, which sends them as they
//     are instead of marshalling the result again.
//
// Names: a tool's dotted name ("compile.dag") is canonical; its wire name
// ("compile__dag") is what host APIs see, since they reject dots. Lookup
// accepts both.
//
// Safety: a Policy in the context (WithPolicy) gates tools that are
// destructive or write files (CURSUS_MCP_ENABLE_DESTRUCTIVE) and tools that
// execute code (CURSUS_MCP_ALLOW_SCRIPT_EXEC). Without a policy the caller
// is trusted: in-process Go callers and the CLI see every tool.
//
// Files: every call gets one file-access layer (internal/safefs), which the
// handler, the engine code it calls, nested calls and the call's observer
// all read and write through. Under a policy it is confined to the policy's
// ProjectRoot (the working directory when empty) for reads and writes, plus
// its ReadRoots for reads; a trusted caller's is unconfined, unless
// CURSUS_MCP_PROJECT_ROOT names a root. Either way only regular files are
// read, within a size cap per kind of file (Policy.FileLimits,
// CURSUS_FILE_LIMITS), and writes are atomic. FileError maps the layer's
// errors to envelopes (a path outside the root is invalid_input, a file
// over its cap too_large, an absent file and one behind a symbolic link out
// of the root alike not_found).
//
// Limits: arguments over MaxArgBytes and answers over the answer cap
// (Policy.MaxResultBytes, CURSUS_MAX_RESULT_BYTES, else
// DefaultMaxResultBytes) answer too_large; the remedy names the arguments
// that narrow the answer (Spec.NarrowBy, NarrowingArgs).
//
// Differences from cursus (Python)'s registry, on purpose: validation
// is full JSON Schema rather than a light required/unknown/enum check;
// meta.tool is always the canonical dotted name (not the name as called,
// nor "tools.help" on <ns>.help results); invalid_input
// results carry meta.tool too; a duplicate tool name fails Build instead of
// "first wins".
package registry
