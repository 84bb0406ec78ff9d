package config

import (
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
)

// Kinds of field problems (FieldError.Kind).
const (
	KindMissing      = "missing"       // an essential field has no value
	KindType         = "type"          // the value has the wrong JSON type
	KindAllowed      = "allowed"       // the value is not one of the allowed values
	KindRange        = "range"         // a number is below min or above max
	KindPattern      = "pattern"       // a string does not match the pattern
	KindParameter    = "parameter"     // a {{Parameters.X}} reference where the value must be known at build time
	KindUnknownClass = "unknown_class" // config class not known to the catalog
	KindUnknownStep  = "unknown_step"  // a DAG node names no known step type
	KindUnknownNode  = "unknown_node"  // values given for a name that is not a DAG node
	KindDuplicateKey = "duplicate_key" // two configs would get the same config key
	KindResolution   = "resolution"    // a node would not resolve to its own config
	KindMalformed    = "malformed"     // the config file's structure is wrong
	KindConflict     = "conflict"      // a legacy hyperparameters key and the top-level field disagree
	KindUnknownField = "unknown_field" // a value for a field no config class of the DAG declares
	KindRule         = "rule"          // the value breaks a rule that involves another field (an ordering comparison needs a number)
)

// FieldError is one problem with one field (or one config).
type FieldError struct {
	Path    string `json:"path"`              // "<config key or node>.<field>", "base.<field>" or "<key>"
	Field   string `json:"field,omitempty"`   // the field name, when the problem is about a field
	Kind    string `json:"kind"`              // one of the Kind* constants
	Message string `json:"message"`           // what is wrong, in one sentence
	Allowed []any  `json:"allowed,omitempty"` // allowed values, when constrained
	Value   any    `json:"value,omitempty"`   // the offending value, when there is one
}

// String renders the problem as "<path>: <message>", with the allowed values when constrained.
func (e FieldError) String() string {
	s := e.Path + ": " + e.Message
	if len(e.Allowed) > 0 {
		s += fmt.Sprintf(" (allowed: %v)", e.Allowed)
	}
	return s
}

// ValidationError lists every problem found in a set of config values. It is
// never returned with an empty list.
type ValidationError struct {
	Errors []FieldError
}

// Error implements error: the count and every problem, separated by semicolons.
func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Errors))
	for i, fe := range e.Errors {
		parts[i] = fe.String()
	}
	return fmt.Sprintf("%d invalid config value(s): %s", len(e.Errors), strings.Join(parts, "; "))
}

// Kind implements errkind.Kinded: the values break the fields' declarations,
// which the caller fixes.
func (e *ValidationError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: every problem and their count.
func (e *ValidationError) Details() map[string]any {
	return map[string]any{"errors": e.Errors, "error_count": len(e.Errors)}
}

// Paths returns the path of every problem, in order.
func (e *ValidationError) Paths() []string {
	out := make([]string, len(e.Errors))
	for i, fe := range e.Errors {
		out[i] = fe.Path
	}
	return out
}

// UnknownClassError is returned when config.json names config classes the
// schema does not know.
type UnknownClassError struct {
	Classes   map[string]string // config key -> unknown class name
	Available []string          // known class names, sorted
}

// Error implements error: each config key with its unknown class.
func (e *UnknownClassError) Error() string {
	var parts []string
	for _, k := range mapkeys.Sorted(e.Classes) {
		parts = append(parts, fmt.Sprintf("%s: %s", k, e.Classes[k]))
	}
	return fmt.Sprintf("unknown config class(es): %s", strings.Join(parts, ", "))
}

// Kind implements errkind.Kinded.
func (e *UnknownClassError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: the unknown class of each config key
// and the classes the schema knows.
func (e *UnknownClassError) Details() map[string]any {
	return map[string]any{"unknown_classes": e.Classes, "available": e.Available}
}

// FormatError is returned when a config.json is not valid JSON or does not
// have the expected structure.
type FormatError struct {
	Path string // file path, when known
	Msg  string
	Err  error
}

// Error implements error.
func (e *FormatError) Error() string {
	where := "config.json"
	if e.Path != "" {
		where = e.Path
	}
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", where, e.Msg, e.Err)
	}
	return fmt.Sprintf("%s: %s", where, e.Msg)
}

// Unwrap returns the underlying decoding error, if any.
func (e *FormatError) Unwrap() error { return e.Err }

// Kind implements errkind.Kinded: the file is not a config.json.
func (e *FormatError) Kind() errkind.Kind { return errkind.InvalidInput }

// Candidate is one config a node could resolve to.
type Candidate struct {
	Key        catalog.ConfigKey `json:"config_key"`
	Class      string            `json:"config_class"`
	Confidence float64           `json:"confidence"`
	Method     string            `json:"method"`
}

// AmbiguousNodeError is returned when the best-scoring candidates of a node
// are different configs with the same score.
type AmbiguousNodeError struct {
	Node       catalog.NodeName
	Candidates []Candidate // the tied candidates, in config order
}

// Error implements error: the node and its tied candidates.
func (e *AmbiguousNodeError) Error() string {
	keys := make([]string, len(e.Candidates))
	for i, c := range e.Candidates {
		keys[i] = fmt.Sprintf("%s (%s %.2f)", c.Key, c.Method, c.Confidence)
	}
	return fmt.Sprintf("node %q is ambiguous: %s; add a config key %q or map it in metadata.config_types",
		e.Node, strings.Join(keys, ", "), e.Node)
}

// NoConfigError is returned when nothing matches a node.
type NoConfigError struct {
	Node      catalog.NodeName
	Available []catalog.ConfigKey // every config key, in order
}

// Error implements error.
func (e *NoConfigError) Error() string {
	return fmt.Sprintf("no configuration found for node %q (config keys: %v)", e.Node, e.Available)
}

// NodeFailure is one node that could not be resolved.
type NodeFailure struct {
	Node       catalog.NodeName `json:"node"`
	Reason     string           `json:"reason"` // "no_match" or "ambiguous"
	Candidates []Candidate      `json:"candidates,omitempty"`
	Err        error            `json:"-"`
}

// ResolutionError lists every DAG node that could not be resolved.
type ResolutionError struct {
	Total     int // DAG nodes
	Failures  []NodeFailure
	Available []catalog.ConfigKey
}

// Error implements error: every node that did not resolve.
func (e *ResolutionError) Error() string {
	nodes := make([]string, len(e.Failures))
	for i, f := range e.Failures {
		nodes[i] = string(f.Node)
	}
	msg := fmt.Sprintf("could not resolve %d of %d DAG nodes to a configuration: [%s]",
		len(e.Failures), e.Total, strings.Join(nodes, ", "))
	for _, f := range e.Failures {
		if f.Reason == "ambiguous" {
			msg += "; " + f.Err.Error()
		}
	}
	return msg
}

// Kind implements errkind.Kinded: the configs do not cover the DAG's nodes.
func (e *ResolutionError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: each node that did not resolve (why,
// and the tied candidates of an ambiguous one) and the config keys there are.
func (e *ResolutionError) Details() map[string]any {
	return map[string]any{"failures": e.Failures, "config_keys": e.Available}
}

// Nodes returns the failed node names.
func (e *ResolutionError) Nodes() []catalog.NodeName {
	out := make([]catalog.NodeName, len(e.Failures))
	for i, f := range e.Failures {
		out[i] = f.Node
	}
	return out
}

// StepNameCollision is one SageMaker step name that several nodes would produce.
type StepNameCollision struct {
	StepName catalog.SageMakerStepName `json:"step_name"`
	Nodes    []catalog.NodeName        `json:"nodes"`
	Keys     []catalog.ConfigKey       `json:"config_keys"`
}

// DuplicateStepNameError is returned when two or more nodes resolve to
// configs that yield the same `<StepType>[-<Jobtype>]` step name.
type DuplicateStepNameError struct {
	Collisions []StepNameCollision
}

// Error implements error: the step name and the configs that share it.
func (e *DuplicateStepNameError) Error() string {
	parts := make([]string, len(e.Collisions))
	for i, c := range e.Collisions {
		parts[i] = fmt.Sprintf("nodes %v -> step name '%s'", c.Nodes, c.StepName)
	}
	return "duplicate step-name collision(s): " + strings.Join(parts, "; ")
}

// Kind implements errkind.Kinded.
func (e *DuplicateStepNameError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: each step name and the nodes and
// config keys that share it.
func (e *DuplicateStepNameError) Details() map[string]any {
	return map[string]any{"collisions": e.Collisions}
}
