package envelope

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// NextStep names a tool an agent would typically call after a success.
type NextStep struct {
	Tool     string `json:"tool"`
	When     string `json:"when"`
	Why      string `json:"why"`
	ArgsHint any    `json:"args_hint,omitempty"`
}

// Remedy tells an agent how to recover from a failure.
type Remedy struct {
	SuggestedTools []string `json:"suggested_tools"`
	FixAction      string   `json:"fix_action"`
}

// ToolResult is the uniform outcome of every tool call.
//
// Build one with OK or Fail and the With* methods; marshal it with
// encoding/json to get the wire form described in the package doc.
type ToolResult struct {
	OK        bool
	Data      any
	Error     string
	Code      Code
	Warnings  []string
	NextSteps []NextStep
	Remedy    *Remedy
	Meta      map[string]any
}

// OK returns a success carrying data.
func OK(data any) *ToolResult { return &ToolResult{OK: true, Data: data} }

// Fail returns a failure with the message and code (CodeToolError when code is empty).
func Fail(message string, code Code) *ToolResult {
	if code == "" {
		code = CodeToolError
	}
	return &ToolResult{Error: message, Code: code}
}

// Partial returns the failure of an operation that took effect in part: ok is false, with the
// message and code, and data says what took effect (the only failure that carries data).
func Partial(message string, code Code, data any) *ToolResult {
	r := Fail(message, code)
	r.Data = data
	return r
}

// FromError turns a *ToolError into a failure result, keeping its code,
// details and remedy.
func FromError(e *ToolError) *ToolResult {
	r := Fail(e.Message, e.Code)
	if len(e.Details) > 0 {
		r.SetMeta("details", e.Details)
	}
	r.Remedy = e.Remedy
	return r
}

// WithWarnings appends warnings and returns r.
func (r *ToolResult) WithWarnings(w ...string) *ToolResult {
	r.Warnings = append(r.Warnings, w...)
	return r
}

// WithNextSteps appends next steps and returns r. They are dropped from the
// wire form of a failure.
func (r *ToolResult) WithNextSteps(s ...NextStep) *ToolResult {
	r.NextSteps = append(r.NextSteps, s...)
	return r
}

// WithRemedy sets the remedy and returns r. It is dropped from the wire form
// of a success.
func (r *ToolResult) WithRemedy(fixAction string, tools ...string) *ToolResult {
	r.Remedy = &Remedy{SuggestedTools: nonNil(tools), FixAction: fixAction}
	return r
}

// WithMeta sets one meta key and returns r.
func (r *ToolResult) WithMeta(key string, value any) *ToolResult {
	r.SetMeta(key, value)
	return r
}

// SetMeta sets one meta key.
func (r *ToolResult) SetMeta(key string, value any) {
	if r.Meta == nil {
		r.Meta = make(map[string]any, 4)
	}
	r.Meta[key] = value
}

// MetaVerdict is the meta key of a check's verdict on its subject:
// VerdictPass or VerdictFail. A tool whose purpose is to judge the
// caller's pipeline (is it valid, deployable, aligned) answers ok with the
// judgement in data and sets the verdict too, so a caller that only looks
// at the outcome (the CLI's exit status) sees a failed check as a failure.
const MetaVerdict = "verdict"

// Verdicts.
const (
	VerdictPass = "pass"
	VerdictFail = "fail"
)

// WithVerdict sets meta.verdict (VerdictPass when pass, else VerdictFail)
// and returns r.
func (r *ToolResult) WithVerdict(pass bool) *ToolResult {
	if pass {
		return r.WithMeta(MetaVerdict, VerdictPass)
	}
	return r.WithMeta(MetaVerdict, VerdictFail)
}

// FailedCheck reports whether r is a success whose verdict is VerdictFail.
func (r *ToolResult) FailedCheck() bool {
	v, _ := r.Meta[MetaVerdict].(string)
	return r.OK && v == VerdictFail
}

// Details returns meta.details of a failure as a map, or nil.
func (r *ToolResult) Details() map[string]any {
	d, _ := r.Meta["details"].(map[string]any)
	return d
}

// MarshalJSON writes the wire form: empty optional fields are dropped and
// keys come in the order ok, data, next_steps, error, code, remedy,
// warnings, meta.
func (r ToolResult) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.Grow(128)
	put := func(key string, v any, first bool) error {
		if !first {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(key)
		b.WriteString(`":`)
		enc, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("envelope: %s: %w", key, err)
		}
		b.Write(enc)
		return nil
	}
	b.WriteByte('{')
	if r.OK {
		b.WriteString(`"ok":true`)
		if err := put("data", r.Data, false); err != nil {
			return nil, err
		}
		if len(r.NextSteps) > 0 {
			if err := put("next_steps", r.NextSteps, false); err != nil {
				return nil, err
			}
		}
	} else {
		b.WriteString(`"ok":false`)
		if r.Data != nil {
			if err := put("data", r.Data, false); err != nil {
				return nil, err
			}
		}
		code := r.Code
		if code == "" {
			code = CodeToolError
		}
		if err := put("error", r.Error, false); err != nil {
			return nil, err
		}
		if err := put("code", code, false); err != nil {
			return nil, err
		}
		if r.Remedy != nil {
			if err := put("remedy", r.Remedy, false); err != nil {
				return nil, err
			}
		}
	}
	if len(r.Warnings) > 0 {
		if err := put("warnings", r.Warnings, false); err != nil {
			return nil, err
		}
	}
	if len(r.Meta) > 0 {
		if err := put("meta", r.Meta, false); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the wire form back.
func (r *ToolResult) UnmarshalJSON(data []byte) error {
	var w struct {
		OK        bool           `json:"ok"`
		Data      any            `json:"data"`
		Error     string         `json:"error"`
		Code      string         `json:"code"`
		Warnings  []string       `json:"warnings"`
		NextSteps []NextStep     `json:"next_steps"`
		Remedy    *Remedy        `json:"remedy"`
		Meta      map[string]any `json:"meta"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = ToolResult{OK: w.OK, Data: w.Data, Error: w.Error, Code: w.Code, Warnings: w.Warnings, NextSteps: w.NextSteps, Remedy: w.Remedy, Meta: w.Meta}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
