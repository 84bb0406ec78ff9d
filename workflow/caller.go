package workflow

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

// Caller calls one tool by its dotted name and answers its envelope.
// RegistryCaller implements it over a registry, so a workflow reaches the
// engine only through the same tools, schemas, gates and confinement as any
// other caller.
//
// A Caller never panics and always answers: a failure of the tool is an
// envelope with OK false, not a Go error.
type Caller interface {
	CallTool(ctx context.Context, tool string, args any) *envelope.ToolResult
}

// CallerFunc adapts a function to Caller.
type CallerFunc func(ctx context.Context, tool string, args any) *envelope.ToolResult

// CallTool calls f.
func (f CallerFunc) CallTool(ctx context.Context, tool string, args any) *envelope.ToolResult {
	return f(ctx, tool, args)
}

// RegistryCaller returns a Caller that calls tools through r with the
// policy of the context each call is made with (gates, write confinement).
// A guided-stage scope is not applied to the nested calls: the workflow is
// the unit the stage allowed. It also implements ArgChecker from the tools'
// schemas.
func RegistryCaller(r *registry.Registry) Caller { return registryCaller{r} }

type registryCaller struct{ r *registry.Registry }

func (c registryCaller) CallTool(ctx context.Context, tool string, args any) *envelope.ToolResult {
	return c.r.Call(registry.WithScope(ctx, nil), tool, args)
}

// sessionCaller is a registryCaller inside a guided session: a tool the
// session's active stage does not offer answers tool_not_in_stage, as it
// would if the agent called it itself.
type sessionCaller struct {
	registryCaller
	s *Session
}

func (c sessionCaller) CallTool(ctx context.Context, tool string, args any) *envelope.ToolResult {
	if t, ok := c.r.Get(tool); ok {
		if allowed, terr := c.s.Allows(t); !allowed {
			return envelope.FromError(terr)
		}
	}
	return c.registryCaller.CallTool(ctx, tool, args)
}

// AcceptsArg reports whether the tool's schema declares the argument.
func (c registryCaller) AcceptsArg(tool, arg string) bool {
	t, ok := c.r.Get(tool)
	if !ok {
		return false
	}
	props, _ := t.Schema()["properties"].(map[string]any)
	_, ok = props[arg]
	return ok
}

// Response is a tool's answer as a phase works with it: the envelope the
// Caller returned, and its wire form (kept so a failed gate hands back the
// failing tool's envelope unchanged and a report stores it as written).
type Response struct {
	envelope.ToolResult
	// Envelope is the whole envelope in its wire form.
	Envelope json.RawMessage
}

// newResponse wraps a tool's envelope; an envelope that does not encode
// becomes an internal_error naming the tool.
func newResponse(tool string, res *envelope.ToolResult) Response {
	if res == nil {
		res = envelope.Fail(fmt.Sprintf("tool '%s' answered no envelope", tool), envelope.CodeInternalError)
	}
	b, err := json.Marshal(res)
	if err != nil {
		res = envelope.Fail(fmt.Sprintf("tool '%s' answered an envelope that is not JSON: %v", tool, err), envelope.CodeInternalError)
		b, _ = json.Marshal(res)
	}
	return Response{ToolResult: *res, Envelope: b}
}

// ResponseFromEnvelope builds a Response from an envelope's wire form
// ({"ok": ..., "data": ..., "error": ..., "code": ..., ...}).
func ResponseFromEnvelope(raw []byte) (Response, error) {
	var res envelope.ToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return Response{}, fmt.Errorf("workflow: malformed envelope: %w", err)
	}
	return Response{ToolResult: res, Envelope: append(json.RawMessage(nil), raw...)}, nil
}

// Decode converts the response's data into v through its JSON: the way to
// read the answer of a tool whose data type is declared in package tools
// (a layer below, which this package does not import). The data of a tool
// typed with an engine type is read with dataAs.
func (r Response) Decode(v any) error {
	if r.Data == nil {
		return fmt.Errorf("workflow: the tool answered no data")
	}
	b, err := json.Marshal(r.Data)
	if err != nil {
		return fmt.Errorf("workflow: data: %w", err)
	}
	return json.Unmarshal(b, v)
}

// dataAs returns the data of a successful response as a T (envelope.As):
// the Go value a typed tool answered, without a trip through JSON, or, for
// an envelope decoded from the wire, its JSON decoded into a T.
func dataAs[T any](r Response) (T, error) { return envelope.As[T](&r.ToolResult) }

// ArgChecker is implemented by callers that know the tools' argument
// schemas; phases use it to pass an optional argument (workspace_dirs)
// only to tools that take it.
type ArgChecker interface {
	AcceptsArg(tool, arg string) bool
}

// acceptsArg reports whether the tool takes the argument; callers that
// cannot tell are assumed to accept it.
func acceptsArg(s *Step, tool, arg string) bool {
	if c, ok := s.r.opts.Caller.(ArgChecker); ok {
		return c.AcceptsArg(tool, arg)
	}
	return true
}
