package workflow

import (
	"context"
	"encoding/json"
	"fmt"
)

// Caller calls one tool by its dotted name. The tools layer implements it
// over the registry (registry.Call), so a workflow reaches the engine only
// through the same tools, gates and confinement as any other caller.
//
// A Caller never panics and always answers: a failure of the tool is a
// Response with OK false, not a Go error.
type Caller interface {
	CallTool(ctx context.Context, tool string, args any) Response
}

// CallerFunc adapts a function to Caller.
type CallerFunc func(ctx context.Context, tool string, args any) Response

// CallTool calls f.
func (f CallerFunc) CallTool(ctx context.Context, tool string, args any) Response {
	return f(ctx, tool, args)
}

// Response is a tool's answer as a workflow sees it: the fields of the
// envelope it needs, and the whole envelope as the tool wrote it (kept so a
// failed gate can hand back the failing tool's envelope unchanged).
type Response struct {
	// OK is the envelope's ok.
	OK bool
	// Code is the failure code ("" on success).
	Code string
	// Error is the failure message ("" on success).
	Error string
	// Data is the envelope's data as raw JSON (null when absent).
	Data json.RawMessage
	// Warnings are the envelope's warnings.
	Warnings []string
	// Envelope is the whole envelope in its wire form.
	Envelope json.RawMessage
}

// ResponseFromEnvelope builds a Response from an envelope's wire form
// ({"ok": ..., "data": ..., "error": ..., "code": ..., ...}).
func ResponseFromEnvelope(raw []byte) (Response, error) {
	var w struct {
		OK       bool            `json:"ok"`
		Data     json.RawMessage `json:"data"`
		Error    string          `json:"error"`
		Code     string          `json:"code"`
		Warnings []string        `json:"warnings"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return Response{}, fmt.Errorf("workflow: malformed envelope: %w", err)
	}
	return Response{OK: w.OK, Code: w.Code, Error: w.Error, Data: w.Data, Warnings: w.Warnings,
		Envelope: append(json.RawMessage(nil), raw...)}, nil
}

// Decode unmarshals the response's data into v.
func (r Response) Decode(v any) error {
	if len(r.Data) == 0 {
		return fmt.Errorf("workflow: the tool answered no data")
	}
	return json.Unmarshal(r.Data, v)
}

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
