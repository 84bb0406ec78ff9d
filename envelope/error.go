package envelope

import "fmt"

// ToolError is a handled failure raised by a tool handler. The invoker turns
// it into a failure result that keeps its code, details (under meta.details)
// and remedy.
type ToolError struct {
	Message string
	Code    Code
	Details map[string]any
	Remedy  *Remedy
}

// Errorf returns a *ToolError with the code (CodeToolError when empty) and a
// formatted message.
func Errorf(code Code, format string, args ...any) *ToolError {
	if code == "" {
		code = CodeToolError
	}
	return &ToolError{Message: fmt.Sprintf(format, args...), Code: code}
}

// Error implements error.
func (e *ToolError) Error() string { return string(e.Code) + ": " + e.Message }

// WithDetails adds key/value pairs to the details and returns e. Arguments
// alternate key (string) and value.
func (e *ToolError) WithDetails(kv ...any) *ToolError {
	if e.Details == nil {
		e.Details = make(map[string]any, len(kv)/2)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		k, ok := kv[i].(string)
		if !ok {
			k = fmt.Sprint(kv[i])
		}
		e.Details[k] = kv[i+1]
	}
	return e
}

// WithDetailsMap merges a map into the details and returns e.
func (e *ToolError) WithDetailsMap(m map[string]any) *ToolError {
	if e.Details == nil {
		e.Details = make(map[string]any, len(m))
	}
	for k, v := range m {
		e.Details[k] = v
	}
	return e
}

// WithRemedy sets the remedy and returns e.
func (e *ToolError) WithRemedy(fixAction string, tools ...string) *ToolError {
	e.Remedy = &Remedy{SuggestedTools: nonNil(tools), FixAction: fixAction}
	return e
}

// InvalidInput is shorthand for Errorf(CodeInvalidInput, ...).
func InvalidInput(format string, args ...any) *ToolError {
	return Errorf(CodeInvalidInput, format, args...)
}

// NotFound is shorthand for Errorf(CodeNotFound, ...).
func NotFound(format string, args ...any) *ToolError {
	return Errorf(CodeNotFound, format, args...)
}
