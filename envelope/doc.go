// Package envelope is the whole tool contract of Cursus: every tool returns
// one ToolResult, a small JSON-serializable record that says whether the
// call succeeded (ok), carries the payload (data) or the failure (error and
// a machine code), and may add warnings, next_steps (the golden path after a
// success), a remedy (how to recover from a failure) and side-band meta.
//
// The wire form drops empty optional fields: a minimal success is
// {"ok":true,"data":...}; a failure carries "error" and "code" and never
// "next_steps", and no "data" unless it took effect in part (Partial: data
// says what took effect); a success never carries "error", "code" or
// "remedy"; failure details live in meta.details. Keys are emitted in a
// fixed order: ok, data, next_steps, error, code, remedy, warnings, meta.
//
// A check (a tool that judges the caller's pipeline: compile.validate,
// compile.definition, dag.validate_integrity, ...) answers ok with its
// judgement in data and the verdict in meta.verdict, "pass" or "fail"
// (WithVerdict, FailedCheck): the call worked, the subject did not pass.
//
// Result[T] is the envelope of a tool whose data is a T: a handler builds
// one with Success and the With* methods, the registry hands every front
// end its untyped form (ToolResult = Result[any], Untyped) whose Data is
// still the handler's Go value, and As reads it back as a T (or decodes
// JSON data read from the wire into one).
//
// Handlers report handled failures with a *ToolError (see Errorf), whose code
// is one of the Code constants in this package.
package envelope
