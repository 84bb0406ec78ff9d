package catalog

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/engine/errkind"
)

// ErrUnknownStep is matched (errors.Is) by every *NotFoundError.
var ErrUnknownStep = errors.New("unknown step type")

// FileError is one problem found while loading a step or field-set file.
// Error() renders it as "<file>: <field path>: <message>", for example
// "XGBoostTraining.step.yaml: inputs[0].path: must start with
// /opt/ml/input/data for a Training step".
type FileError struct {
	File    string // file name (embedded) or path (workspace)
	Line    int    // 1-based line when known (decode errors), else 0
	Field   string // field path inside the file, e.g. "inputs[0].path"
	Message string
}

// Error implements error.
func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ": line %d", e.Line)
	}
	if e.Field != "" && e.Line == 0 {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Message)
	return b.String()
}

// LoadErrors collects every problem found while loading a catalog. A
// catalog with any problem is not returned; fix all of them at once.
type LoadErrors []*FileError

// Error implements error: one problem per line.
func (l LoadErrors) Error() string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return fmt.Sprintf("%d problems:\n%s", len(parts), strings.Join(parts, "\n"))
}

// Unwrap exposes the individual problems to errors.Is / errors.As.
func (l LoadErrors) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// Problems flattens an error returned by Load/ParseStepFile into its
// individual *FileError values (nil when err holds none).
func Problems(err error) []*FileError {
	var l LoadErrors
	if errors.As(err, &l) {
		return l
	}
	var f *FileError
	if errors.As(err, &f) {
		return []*FileError{f}
	}
	return nil
}

// NotFoundError reports a step name the catalog does not know, with the
// closest known names.
type NotFoundError struct {
	Name        string
	Suggestions []StepType
}

// Error implements error.
func (e *NotFoundError) Error() string {
	if len(e.Suggestions) == 0 {
		return fmt.Sprintf("unknown step type %q", e.Name)
	}
	s := make([]string, len(e.Suggestions))
	for i, x := range e.Suggestions {
		s[i] = string(x)
	}
	return fmt.Sprintf("unknown step type %q (closest: %s)", e.Name, strings.Join(s, ", "))
}

// Is makes errors.Is(err, ErrUnknownStep) true.
func (e *NotFoundError) Is(target error) bool { return target == ErrUnknownStep }

// collector accumulates FileErrors for one file.
type collector struct {
	file string
	errs LoadErrors
}

func (c *collector) add(field, format string, args ...any) {
	c.errs = append(c.errs, &FileError{File: c.file, Field: field, Message: fmt.Sprintf(format, args...)})
}

// Kind implements errkind.Kinded: a problem in a step or field-set file is
// invalid input.
func (e *FileError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer.
func (e *FileError) Details() map[string]any { return LoadErrors{e}.Details() }

// Kind implements errkind.Kinded.
func (l LoadErrors) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: every problem as {file, message,
// field, line} (field and line when known).
func (l LoadErrors) Details() map[string]any {
	list := make([]map[string]any, len(l))
	for i, p := range l {
		m := map[string]any{"file": p.File, "message": p.Message}
		if p.Field != "" {
			m["field"] = p.Field
		}
		if p.Line > 0 {
			m["line"] = p.Line
		}
		list[i] = m
	}
	return map[string]any{"problems": list}
}

// Kind implements errkind.Kinded.
func (e *NotFoundError) Kind() errkind.Kind { return errkind.NotFound }

// Details implements errkind.Detailer.
func (e *NotFoundError) Details() map[string]any {
	close := make([]string, len(e.Suggestions))
	for i, s := range e.Suggestions {
		close[i] = string(s)
	}
	return map[string]any{"step_name": e.Name, "close_matches": close}
}
