package envelope

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// NextStep names a tool an agent would typically call after a success.
type NextStep struct {
	// Tool is the dotted name of the tool to call next.
	Tool string `json:"tool"`
	// When says in which case to call it.
	When string `json:"when"`
	// Why says what it gives.
	Why string `json:"why"`
	// ArgsHint, when set, is an arguments object to start from.
	ArgsHint any `json:"args_hint,omitempty"`
}

// Remedy tells an agent how to recover from a failure.
type Remedy struct {
	// SuggestedTools are the dotted names of the tools that help, best first.
	SuggestedTools []string `json:"suggested_tools"`
	// FixAction says what to do, in one sentence.
	FixAction string `json:"fix_action"`
}

// Result is the outcome of one tool call whose data is a T. Its wire form
// is the envelope of the package doc; the fields, in wire order:
//
//   - OK ("ok"): whether the call succeeded. A check that ran and found
//     problems is a success (see MetaVerdict).
//   - Data ("data"): the payload of a success; of a failure only when the
//     operation took effect in part (Partial), saying what did.
//   - NextSteps ("next_steps"): the tools an agent typically calls after
//     a success (dropped from a failure).
//   - Error and Code ("error", "code"): the message and the machine code
//     of a failure (dropped from a success).
//   - Remedy ("remedy"): how to recover from a failure (dropped from a
//     success).
//   - Warnings ("warnings"): what the caller should know either way (a
//     deprecated argument name, an ignored input).
//   - Meta ("meta"): side-band: "tool" (the dotted name called),
//     "duration_ms", "details" (the particulars of a failure),
//     "verdict" (a check's), "format" ("markdown" when data is the
//     markdown view), and what a tool adds (the query it answered, ...).
//
// A tool handler returns a *Result of its own data type (Success); every
// front end sees the untyped ToolResult (Untyped), whose Data holds the
// same Go value, so an in-process caller reads it back with As.
type Result[T any] struct {
	OK        bool
	Data      T
	Error     string
	Code      Code
	Warnings  []string
	NextSteps []NextStep
	Remedy    *Remedy
	Meta      map[string]any
}

// ToolResult is the untyped outcome of a tool call: what Call and every
// front end return, and what the handlers of tools whose data is not yet
// typed still build (OK, Fail).
//
// Build one with OK or Fail and the With* methods; marshal it with
// encoding/json (or MarshalJSON, which skips encoding/json's second pass)
// to get the wire form described in the package doc.
type ToolResult = Result[any]

// OK returns an untyped success carrying data. A tool with a typed output
// answers with Success instead.
func OK(data any) *ToolResult { return &ToolResult{OK: true, Data: data} }

// Success returns a success carrying data of the tool's output type.
func Success[T any](data T) *Result[T] { return &Result[T]{OK: true, Data: data} }

// Fail returns a failure with the message and code (CodeToolError when code is empty).
func Fail(message string, code Code) *ToolResult {
	if code == "" {
		code = CodeToolError
	}
	return &ToolResult{Error: message, Code: code}
}

// Partial returns the failure of an operation that took effect in part: ok is false, with the
// message and code, and data says what took effect (the only failure that carries data).
func Partial[T any](message string, code Code, data T) *Result[T] {
	if code == "" {
		code = CodeToolError
	}
	return &Result[T]{Error: message, Code: code, Data: data}
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
func (r *Result[T]) WithWarnings(w ...string) *Result[T] {
	r.Warnings = append(r.Warnings, w...)
	return r
}

// WithNextSteps appends next steps and returns r. They are dropped from the
// wire form of a failure.
func (r *Result[T]) WithNextSteps(s ...NextStep) *Result[T] {
	r.NextSteps = append(r.NextSteps, s...)
	return r
}

// WithRemedy sets the remedy and returns r. It is dropped from the wire form
// of a success.
func (r *Result[T]) WithRemedy(fixAction string, tools ...string) *Result[T] {
	r.Remedy = &Remedy{SuggestedTools: nonNil(tools), FixAction: fixAction}
	return r
}

// WithMeta sets one meta key and returns r.
func (r *Result[T]) WithMeta(key string, value any) *Result[T] {
	r.SetMeta(key, value)
	return r
}

// SetMeta sets one meta key.
func (r *Result[T]) SetMeta(key string, value any) {
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
func (r *Result[T]) WithVerdict(pass bool) *Result[T] {
	if pass {
		return r.WithMeta(MetaVerdict, VerdictPass)
	}
	return r.WithMeta(MetaVerdict, VerdictFail)
}

// FailedCheck reports whether r is a success whose verdict is VerdictFail.
func (r *Result[T]) FailedCheck() bool {
	v, _ := r.Meta[MetaVerdict].(string)
	return r.OK && v == VerdictFail
}

// Details returns meta.details of a failure as a map, or nil.
func (r *Result[T]) Details() map[string]any {
	d, _ := r.Meta["details"].(map[string]any)
	return d
}

// Err returns the failure as a *ToolError (message, code, details and
// remedy), or nil for a success.
func (r *Result[T]) Err() error {
	if r == nil || r.OK {
		return nil
	}
	code := r.Code
	if code == "" {
		code = CodeToolError
	}
	return &ToolError{Message: r.Error, Code: code, Details: r.Details(), Remedy: r.Remedy}
}

// Untyped returns r as a ToolResult, its data boxed (r itself when T is
// any). Nil stays nil.
func (r *Result[T]) Untyped() *ToolResult {
	if r == nil {
		return nil
	}
	if u, ok := any(r).(*ToolResult); ok {
		return u
	}
	return &ToolResult{OK: r.OK, Data: r.Data, Error: r.Error, Code: r.Code, Warnings: r.Warnings,
		NextSteps: r.NextSteps, Remedy: r.Remedy, Meta: r.Meta}
}

// As returns the data of a success as a T: the Go value a typed tool
// answered (T may also be a pointer to it), or, for a result decoded from
// the wire, its JSON decoded into a T. A failure returns its Err; data of
// another Go type, or the markdown view (meta.format "markdown") when T is
// not a string, is an error naming both types. A check that failed
// (FailedCheck) is a success: its data is returned.
func As[T any](r *ToolResult) (T, error) {
	return as[T](r, false)
}

// Decode is As for data of any Go type: what is not a T is converted
// through its JSON (the data of a tool whose output is not typed yet).
func Decode[T any](r *ToolResult) (T, error) {
	return as[T](r, true)
}

func as[T any](r *ToolResult, anyType bool) (T, error) {
	var zero T
	if r == nil {
		return zero, errors.New("envelope: no result")
	}
	if !r.OK {
		return zero, r.Err()
	}
	switch v := r.Data.(type) {
	case T:
		return v, nil
	case *T:
		if v != nil {
			return *v, nil
		}
	}
	if f, _ := r.Meta["format"].(string); f == "markdown" {
		return zero, fmt.Errorf("envelope: data is the markdown view, not %v: call without format markdown", reflect.TypeFor[T]())
	}
	if !anyType && !isJSONValue(r.Data) {
		return zero, fmt.Errorf("envelope: data is %T, not %v", r.Data, reflect.TypeFor[T]())
	}
	b, err := json.Marshal(r.Data)
	if err != nil {
		return zero, fmt.Errorf("envelope: data: %w", err)
	}
	if err := json.Unmarshal(b, &zero); err != nil {
		return zero, fmt.Errorf("envelope: data does not decode into %v: %w", reflect.TypeFor[T](), err)
	}
	return zero, nil
}

// isJSONValue reports whether v is a generic JSON value, as decoding into
// an any makes it, rather than a value of a named Go type.
func isJSONValue(v any) bool {
	switch v.(type) {
	case nil, map[string]any, []any, string, float64, bool, json.Number, json.RawMessage:
		return true
	}
	return false
}

// JSONWriter is implemented by data that encodes itself: WriteJSON
// writes its JSON to b, compact and valid, with HTML characters not
// escaped, exactly as encoding/json would encode the value. The envelope
// takes those bytes as they are; encoding/json would check and compact a
// json.Marshaler's output again, which for data holding JSON encoded
// once (a tool's schemas) costs more than the rest of the call.
type JSONWriter interface {
	WriteJSON(b *bytes.Buffer) error
}

// MarshalJSON writes the wire form: empty optional fields are dropped and
// keys come in the order ok, data, next_steps, error, code, remedy,
// warnings, meta. HTML characters are not escaped (as MCP's wire
// encoding does not). Calling it directly, rather than json.Marshal,
// saves encoding/json's pass that re-checks and compacts its output. Data
// that is a JSONWriter writes itself.
func (r Result[T]) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.Grow(256)
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	put := func(key string, v any) error {
		b.WriteString(`,"`)
		b.WriteString(key)
		b.WriteString(`":`)
		if w, ok := v.(JSONWriter); ok {
			if err := w.WriteJSON(&b); err != nil {
				return fmt.Errorf("envelope: %s: %w", key, err)
			}
			return nil
		}
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("envelope: %s: %w", key, err)
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		return nil
	}
	if r.OK {
		b.WriteString(`{"ok":true`)
		if err := put("data", r.Data); err != nil {
			return nil, err
		}
		if len(r.NextSteps) > 0 {
			if err := put("next_steps", r.NextSteps); err != nil {
				return nil, err
			}
		}
	} else {
		b.WriteString(`{"ok":false`)
		if !isNil(r.Data) {
			if err := put("data", r.Data); err != nil {
				return nil, err
			}
		}
		code := r.Code
		if code == "" {
			code = CodeToolError
		}
		if err := put("error", r.Error); err != nil {
			return nil, err
		}
		if err := put("code", code); err != nil {
			return nil, err
		}
		if r.Remedy != nil {
			if err := put("remedy", r.Remedy); err != nil {
				return nil, err
			}
		}
	}
	if len(r.Warnings) > 0 {
		if err := put("warnings", r.Warnings); err != nil {
			return nil, err
		}
	}
	if len(r.Meta) > 0 {
		if err := put("meta", r.Meta); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// isNil reports whether v is nil or a nil pointer, map, slice or
// interface: no data to send.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// UnmarshalJSON reads the wire form back, data into a T.
func (r *Result[T]) UnmarshalJSON(data []byte) error {
	var w struct {
		OK        bool           `json:"ok"`
		Data      T              `json:"data"`
		Error     string         `json:"error"`
		Code      Code           `json:"code"`
		Warnings  []string       `json:"warnings"`
		NextSteps []NextStep     `json:"next_steps"`
		Remedy    *Remedy        `json:"remedy"`
		Meta      map[string]any `json:"meta"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = Result[T]{OK: w.OK, Data: w.Data, Error: w.Error, Code: w.Code, Warnings: w.Warnings, NextSteps: w.NextSteps, Remedy: w.Remedy, Meta: w.Meta}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
