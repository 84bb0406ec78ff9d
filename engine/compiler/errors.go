package compiler

import (
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/internal/strlist"
)

// ErrEmptyDAG is returned when the DAG has no nodes.
var ErrEmptyDAG = errkind.New(errkind.InvalidInput, "the DAG has no nodes")

// ErrNoConfig is returned when a compile gets neither a config file nor
// config values.
var ErrNoConfig = errkind.New(errkind.InvalidInput, "no config: pass a config file or config values")

// FileError is returned when an input file cannot be read or parsed.
type FileError struct {
	Path    string
	What    string // "config file", "DAG file", "script"
	Missing bool   // the file does not exist
	Err     error
}

// Error implements the error interface.
func (e *FileError) Error() string {
	if e.Missing {
		return fmt.Sprintf("%s %s does not exist", e.What, e.Path)
	}
	return fmt.Sprintf("cannot read %s %s: %v", e.What, e.Path, e.Err)
}

// Unwrap returns the underlying error, for errors.Is and errors.As.
func (e *FileError) Unwrap() error { return e.Err }

// Kind implements errkind.Kinded: NotFound for a missing file, else
// InvalidInput.
func (e *FileError) Kind() errkind.Kind {
	if e.Missing {
		return errkind.NotFound
	}
	return errkind.InvalidInput
}

// Details implements errkind.Detailer: the path.
func (e *FileError) Details() map[string]any { return map[string]any{"path": e.Path} }

// CycleError is returned when the DAG has a cycle (no topological order).
type CycleError struct {
	Nodes []catalog.NodeName // nodes left after every acyclic node was ordered, or a cycle path
	Err   error
}

// Error implements the error interface.
func (e *CycleError) Error() string {
	msg := "the DAG has a cycle"
	if len(e.Nodes) > 0 {
		msg += " among nodes " + strlist.Join(e.Nodes, ", ")
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the underlying error, for errors.Is and errors.As.
func (e *CycleError) Unwrap() error { return e.Err }

// Kind implements errkind.Kinded: InvalidInput.
func (e *CycleError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: the nodes of the cycle.
func (e *CycleError) Details() map[string]any { return map[string]any{"cycle": nonNil(e.Nodes)} }

// nonNil is names, or an empty list for nil.
func nonNil[S any](names []S) []S {
	if names == nil {
		return []S{}
	}
	return names
}

// MissingConfigError is returned when DAG nodes resolve to no config.
type MissingConfigError struct {
	Nodes     []catalog.NodeName  // the unresolved nodes, in DAG order
	Available []catalog.ConfigKey // config keys the file holds
	Err       error               // the resolver's own error, if any
}

// Error implements the error interface.
func (e *MissingConfigError) Error() string {
	msg := fmt.Sprintf("no config for DAG node(s) %s", strlist.Join(e.Nodes, ", "))
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	} else if len(e.Available) > 0 {
		msg += fmt.Sprintf(" (config keys: %s)", strlist.Join(e.Available, ", "))
	}
	return msg
}

// Unwrap returns the underlying error, for errors.Is and errors.As.
func (e *MissingConfigError) Unwrap() error { return e.Err }

// Kind implements errkind.Kinded: InvalidInput.
func (e *MissingConfigError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: the unresolved nodes and the config
// keys there are.
func (e *MissingConfigError) Details() map[string]any {
	return map[string]any{"missing_nodes": nonNil(e.Nodes), "config_keys": nonNil(e.Available)}
}

// UnknownStepError is returned when a node's config names a step type the
// catalog does not know, or a step whose verb has no builder.
type UnknownStepError struct {
	Node     catalog.NodeName
	StepType catalog.StepType
	Reason   string
}

// Error implements the error interface.
func (e *UnknownStepError) Error() string {
	return fmt.Sprintf("node %s: step type %q: %s", e.Node, e.StepType, e.Reason)
}

// Kind implements errkind.Kinded: NotFound (the step type or its builder).
func (e *UnknownStepError) Kind() errkind.Kind { return errkind.NotFound }

// Details implements errkind.Detailer: the node and its step type.
func (e *UnknownStepError) Details() map[string]any {
	return map[string]any{"node": e.Node, "step_type": e.StepType}
}

// UnboundInputError is returned when a required input of a step is bound
// neither to an upstream output nor to a config value.
type UnboundInputError struct {
	Node      catalog.NodeName
	StepName  catalog.SageMakerStepName
	Input     string  // logical name
	Candidate string  // best rejected candidate "Provider.output", if any
	Score     float64 // its score
	Detail    string  // why nothing was bound, or how to fix it
}

// Error implements the error interface.
func (e *UnboundInputError) Error() string {
	msg := fmt.Sprintf("step %s (node %s): required input %q is not bound to any upstream output", e.StepName, e.Node, e.Input)
	switch {
	case e.Detail != "":
		msg += ": " + e.Detail
	case e.Candidate != "":
		msg += fmt.Sprintf(": its best candidate %s scored %.4f", e.Candidate, e.Score)
	}
	return msg
}

// UnboundInputsError groups every unbound required input of a compile.
type UnboundInputsError struct {
	Inputs []*UnboundInputError
}

// Error implements the error interface.
func (e *UnboundInputsError) Error() string {
	if len(e.Inputs) == 1 {
		return e.Inputs[0].Error()
	}
	parts := make([]string, len(e.Inputs))
	for i, u := range e.Inputs {
		parts[i] = u.Error()
	}
	return fmt.Sprintf("%d required inputs are not bound: %s", len(e.Inputs), strings.Join(parts, "; "))
}

// Kind implements errkind.Kinded: InvalidInput.
func (e *UnboundInputsError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: each unbound input (node, step,
// input, detail, and its best rejected candidate with its score).
func (e *UnboundInputsError) Details() map[string]any {
	items := make([]map[string]any, len(e.Inputs))
	for i, u := range e.Inputs {
		items[i] = map[string]any{"node": u.Node, "step": u.StepName, "input": u.Input, "detail": u.Detail}
		if u.Candidate != "" {
			items[i]["best_candidate"], items[i]["score"] = u.Candidate, u.Score
		}
	}
	return map[string]any{"unbound_inputs": items}
}

// InvalidPipelineNameError is returned when a pipeline name breaks the
// SageMaker naming rule.
type InvalidPipelineNameError struct {
	Name       string
	Reason     string
	Suggestion string // a sanitized name, when one exists
}

// Error implements the error interface.
func (e *InvalidPipelineNameError) Error() string {
	msg := fmt.Sprintf("invalid pipeline name %q: %s", e.Name, e.Reason)
	if e.Suggestion != "" && e.Suggestion != e.Name {
		msg += fmt.Sprintf(" (sanitized: %q)", e.Suggestion)
	}
	return msg
}

// Kind implements errkind.Kinded: InvalidInput.
func (e *InvalidPipelineNameError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: the name and its sanitized form.
func (e *InvalidPipelineNameError) Details() map[string]any {
	return map[string]any{"pipeline_name": e.Name, "sanitized": e.Suggestion}
}

// StepBuildError is returned when one step cannot be built: a config value
// is missing or malformed, an image cannot be found, and so on.
type StepBuildError struct {
	Node     catalog.NodeName
	StepName catalog.SageMakerStepName
	Field    string // the config field at fault, if one is
	Err      error
}

// Error implements the error interface.
func (e *StepBuildError) Error() string {
	msg := fmt.Sprintf("step %s (node %s)", e.StepName, e.Node)
	if e.Field != "" {
		msg += fmt.Sprintf(", config field %q", e.Field)
	}
	return msg + ": " + e.Err.Error()
}

// Unwrap returns the underlying error, for errors.Is and errors.As.
func (e *StepBuildError) Unwrap() error { return e.Err }

// Kind implements errkind.Kinded: the kind of the error it wraps (a
// missing file, a cancelled build), else InvalidInput (the config).
func (e *StepBuildError) Kind() errkind.Kind {
	if k := errkind.Of(e.Err); k != errkind.Unknown {
		return k
	}
	return errkind.InvalidInput
}

// Details implements errkind.Detailer: the node, its step and the config
// field at fault.
func (e *StepBuildError) Details() map[string]any {
	return map[string]any{"node": e.Node, "step": e.StepName, "field": e.Field}
}

// NodeNotFoundError is returned by single-node compiles when the target is
// not a node of the DAG or a config key.
type NodeNotFoundError struct {
	Node      string
	Available []catalog.NodeName
}

// Error implements the error interface.
func (e *NodeNotFoundError) Error() string {
	return fmt.Sprintf("node %q not found (available: %s)", e.Node, strlist.Join(e.Available, ", "))
}

// Kind implements errkind.Kinded: NotFound.
func (e *NodeNotFoundError) Kind() errkind.Kind { return errkind.NotFound }

// Details implements errkind.Detailer: the node and the ones there are.
func (e *NodeNotFoundError) Details() map[string]any {
	return map[string]any{"target_node": e.Node, "available": nonNil(e.Available)}
}

// ManualInputError is returned by single-node compiles for a manual input
// that is not a valid S3 URI or names no input of the step.
type ManualInputError struct {
	Input  string
	Value  string
	Reason string
}

// Error implements the error interface.
func (e *ManualInputError) Error() string {
	return fmt.Sprintf("manual input %q = %q: %s", e.Input, e.Value, e.Reason)
}

// Kind implements errkind.Kinded: InvalidInput.
func (e *ManualInputError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: the input and its value.
func (e *ManualInputError) Details() map[string]any {
	return map[string]any{"input": e.Input, "value": e.Value}
}

// RegionError reports a compile's region (Input.Region) that names no AWS
// region.
type RegionError struct{ Region string }

// Error implements error.
func (e *RegionError) Error() string {
	return fmt.Sprintf("region %q is not an AWS region: give one such as us-east-1 or eu-west-1 (NA, EU and FE are aliases of us-east-1, eu-west-1 and us-west-2)", e.Region)
}

// Kind implements errkind.Kinded: InvalidInput.
func (e *RegionError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: the field and the value.
func (e *RegionError) Details() map[string]any {
	return map[string]any{"field": "region", "value": e.Region}
}
