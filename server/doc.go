// Package server mounts the Cursus tool registry on a Model Context Protocol
// server (github.com/modelcontextprotocol/go-sdk), the engine behind
// `cursus mcp serve`.
//
// New builds one *mcp.Server from a *registry.Registry: every listed tool
// that the safety policy and the selection options allow, under its wire
// name ("compile__dag"), with its rendered description, its precomputed
// input schema (registered through the SDK's raw AddTool, so the SDK neither
// infers nor re-validates schemas: the registry validates), a title
// (exporters.MCPTitle: the tool's Title, else its dotted name) and the
// annotations exporters.Annotations derives from the capability flags, every
// hint set explicitly, so tools/list and `cursus mcp export --format mcp`
// agree.
//
// Every tools/call goes through (*registry.Registry).Call under the
// policy (registry.WithPolicy). The result carries the envelope JSON once as
// a text content block and once as structuredContent; isError is true
// exactly when the envelope's ok is false. A tool failure is never a
// JSON-RPC error. Names the server does not list are answered with an
// envelope too (the SDK alone would answer a JSON-RPC error): a tool whose
// gate is closed answers the registry's tool_disabled naming the variable
// that opens it; a tool the selection options leave out answers
// tool_disabled with meta.details.reason "not_selected"; an unknown name
// answers unknown_tool; a deprecated tool and a dotted name run.
//
// Safety: with the zero Policy, tools that are destructive, write files or
// execute code are neither listed nor callable; the selection options
// (Namespaces, Tools, ExcludeTools) can only narrow what the policy allows.
// Reads and writes are confined to Policy.ProjectRoot (and reads also to
// Policy.ReadRoots) by the registry's file-access layer, which the server
// opens once and hands to every call.
//
// ServeStdio speaks newline-delimited JSON-RPC over a reader and a writer
// (stdin and stdout in the CLI). No line ends its session: a line the SDK
// would not decode is answered with a JSON-RPC error (frameFilter), and a
// stuck call never holds up its return (ShutdownGrace). ServeHTTP serves the
// Streamable HTTP transport, on 127.0.0.1 unless the address names another
// host, which it refuses without Options.HTTP.AuthToken; with a token every
// request must carry it. Sessions are bounded in number and closed when
// idle, and a shutdown drains the calls in flight (HTTPDrainTimeout). Nothing
// in this package writes to os.Stdout: logs go to Options.Logger, without
// session ids.
package server
