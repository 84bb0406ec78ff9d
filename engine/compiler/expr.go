package compiler

import (
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
)

// Get is a SageMaker pipeline property or parameter reference:
// {"Get": "Parameters.X"}, {"Get": "Steps.<name>.<path>"} or
// {"Get": "Execution.<var>"}. SageMaker resolves it when the step runs.
type Get struct {
	Get string `json:"Get"`
}

// Join is the Std:Join function: the string values joined with On.
// {"Std:Join": {"On": "/", "Values": [...]}}.
type Join struct {
	Join JoinArgs `json:"Std:Join"`
}

// JoinArgs holds the separator and the values of a Std:Join. A value is a
// string, a number, a Get or another Join.
type JoinArgs struct {
	On     string `json:"On"`
	Values []any  `json:"Values"`
}

// JSONGet is the Std:JsonGet function: the value at Path in the JSON
// property file a step declared ({"Get": "Steps.<step>.PropertyFiles.<name>"}).
type JSONGet struct {
	JSONGet JSONGetArgs `json:"Std:JsonGet"`
}

// JSONGetArgs holds where a Std:JsonGet reads (a property file, else an
// S3 URI: a literal or an expression) and the path.
type JSONGetArgs struct {
	PropertyFile *Get   `json:"PropertyFile,omitempty"`
	S3Uri        any    `json:"S3Uri,omitempty"`
	Path         string `json:"Path"`
}

// JSONGetOf reads path from a property file.
func JSONGetOf(file Get, path string) JSONGet {
	return JSONGet{JSONGet: JSONGetArgs{PropertyFile: &file, Path: path}}
}

// JSONGetS3 reads path from the JSON object at an S3 URI.
func JSONGetS3(uri any, path string) JSONGet {
	return JSONGet{JSONGet: JSONGetArgs{S3Uri: uri, Path: path}}
}

// jsonGetString renders a Std:JsonGet for ExprString.
func jsonGetString(a JSONGetArgs) string {
	from := ExprString(a.S3Uri)
	if a.PropertyFile != nil {
		from = a.PropertyFile.Get
	}
	return "jsonget(" + from + ", " + a.Path + ")"
}

// Param returns the reference to a pipeline parameter.
func Param(name string) Get { return Get{Get: "Parameters." + name} }

// ExecutionVar returns the reference to an execution variable such as
// PipelineName or PipelineExecutionId.
func ExecutionVar(name string) Get { return Get{Get: "Execution." + name} }

// StepProperty returns the reference to a property of another step. The
// property path is the catalog's (it starts with "properties."); the
// SageMaker form drops that segment:
// StepProperty("XGBoostTraining", "properties.ModelArtifacts.S3ModelArtifacts")
// is {"Get": "Steps.XGBoostTraining.ModelArtifacts.S3ModelArtifacts"}.
func StepProperty(step catalog.SageMakerStepName, propertyPath string) Get {
	p := strings.TrimPrefix(propertyPath, "properties.")
	return Get{Get: "Steps." + string(step) + "." + p}
}

// JoinOn builds a Std:Join of values with the separator on.
func JoinOn(on string, values ...any) Join {
	return Join{Join: JoinArgs{On: on, Values: values}}
}

// IsExpression reports whether v is a pipeline expression (Get, Join or
// JsonGet) rather than a literal.
func IsExpression(v any) bool {
	switch v.(type) {
	case Get, *Get, Join, *Join, JSONGet, *JSONGet:
		return true
	}
	return false
}

// ExprString renders a value for people: literals as they are, Get as its
// path, Join as "join(/, a, b)", JsonGet as "jsonget(<file>, <path>)". It is used in reports and error messages,
// never in the definition.
func ExprString(v any) string {
	switch e := v.(type) {
	case string:
		return e
	case Get:
		return e.Get
	case *Get:
		return e.Get
	case Join:
		return joinString(e.Join)
	case *Join:
		return joinString(e.Join)
	case JSONGet:
		return jsonGetString(e.JSONGet)
	case *JSONGet:
		return jsonGetString(e.JSONGet)
	}
	return ""
}

func joinString(j JoinArgs) string {
	var b strings.Builder
	b.WriteString("join(")
	b.WriteString(j.On)
	for _, v := range j.Values {
		b.WriteString(", ")
		b.WriteString(ExprString(v))
	}
	b.WriteString(")")
	return b.String()
}
