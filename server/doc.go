// Package server mounts the Cursus tool registry on a Model Context Protocol
// server (github.com/modelcontextprotocol/go-sdk), the engine behind
// `cursus mcp serve`.
//
// New builds one *mcp.Server from a *registry.Registry. There is one
// server path: the static server is the guided one without a scope. Both
// are made from one core, computed once: every tool the safety policy and
// the selection options allow, under its wire name ("compile__dag"), with
// its rendered description (when and examples folded in), its listed
// input schema (registry.Listing: no deprecated aliases, no descriptions
// that restate a name, the descriptions and object shapes several tools
// share given once in the instructions), its outputSchema
// (registry.ToolDef.ListedOutputSchema: the envelope's data, outlined; ok
// is said once in the instructions), a title only where the tool has one,
// and the annotations exporters.Annotations derives from the capability
// flags, every hint set explicitly. Each server registers these
// descriptors with the SDK (mcp.Server.AddTool), which lists them; the
// SDK validates no call: the registry validates every call against the
// full schema. The generated <namespace>.help tools are not listed
// (tools.help {"namespace": ...} answers the same) but stay callable. A
// static server lists the whole set and never changes; a guided one
// (Options.Guided, Options.Stage) gets one session scope per MCP session
// and lists the active stage's tools.
//
// Every tools/call goes through the SDK's session to the tool's handler,
// which runs the registry under the policy and the server's file-access
// layer (registry.CallJSON, or the session's scope); the registry encodes
// the envelope once, and those bytes go as structuredContent and, as the
// MCP spec advises for structured results, in one text block (toResult).
// isError is true exactly when the envelope's ok is false. A tool failure
// is never a JSON-RPC error. Names the server does not list are answered
// with an envelope too (the SDK alone would answer a JSON-RPC error): a
// tool whose gate is closed answers the registry's tool_disabled naming
// the variable that opens it; a tool the selection options leave out
// answers tool_disabled with meta.details.reason "not_selected"; an
// unknown name answers unknown_tool; a deprecated tool, a generated help
// tool and a dotted name run.
//
// Resources and prompts: the step catalog (one resource per step type:
// its interface, config fields and script), the pipeline catalog (one per
// shared DAG), the generated tool reference, and templates for a step
// variant, a shared DAG and a project file; resources/read runs through
// the registry and the same file-access layer as the tools, so a project
// file outside the root is refused as a tool's read is. The prompts are
// each guided stage's prompt and each workflow's brief, with an optional
// run_id (and, for a stage, the host whose model binding to add).
//
// Safety: with the zero Policy, tools that are destructive, write files or
// execute code are neither listed nor callable; the selection options
// (Namespaces, Tools, ExcludeTools) can only narrow what the policy allows.
// Reads and writes are confined to Policy.ProjectRoot (and reads also to
// Policy.ReadRoots) by the registry's file-access layer, which the server
// opens once and hands to every call.
//
// ServeStdio speaks newline-delimited JSON-RPC over a reader and a writer
// (stdin and stdout in the CLI) with the SDK's own stdio transport
// (mcp.IOTransport). No line ends its session: a line the SDK would not
// decode is answered with a JSON-RPC error (frameFilter, frameConn); the
// requests read before the end of input are answered; a stuck call never
// holds up its return (ShutdownGrace); stdin is never read in a system
// call that can block for long (waitingReader). ServeHTTP serves the
// Streamable HTTP transport, on 127.0.0.1 unless the address names another
// host, which it refuses without Options.HTTP.AuthToken; with a token every
// request must carry it. Sessions are bounded in number and closed when
// idle, and a shutdown drains the calls in flight (HTTPDrainTimeout). Nothing
// in this package writes to os.Stdout: logs go to Options.Logger, without
// session ids.
package server
