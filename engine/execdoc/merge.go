package execdoc

import (
	"fmt"

	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
)

// InvalidDocumentError is returned by Merge when an argument is not a
// structurally valid document.
type InvalidDocumentError struct {
	Arg    string  // "base_doc" or "additional_doc"
	Issues []Issue // the error-severity issues
}

// Error implements error.
func (e *InvalidDocumentError) Error() string {
	msg := fmt.Sprintf("%s is not a valid execution document", e.Arg)
	if len(e.Issues) > 0 {
		msg += ": " + e.Issues[0].Message
		if len(e.Issues) > 1 {
			msg += fmt.Sprintf(" (and %d more)", len(e.Issues)-1)
		}
	}
	return msg
}

// Kind implements errkind.Kinded: InvalidInput.
func (e *InvalidDocumentError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: the argument and its issues (path,
// kind and message of each).
func (e *InvalidDocumentError) Details() map[string]any {
	issues := make([]map[string]any, len(e.Issues))
	for i, is := range e.Issues {
		issues[i] = map[string]any{"path": is.Path, "kind": is.Kind, "message": is.Message}
	}
	return map[string]any{"argument": e.Arg, "issues": issues}
}

// MergeStats says what a merge changed.
type MergeStats struct {
	Added   []string `json:"added"`   // steps only in the additional document
	Updated []string `json:"updated"` // steps in both
}

// Merge returns base merged with additional, neither of which is modified.
// Both must be structurally valid (a JSON object whose
// PIPELINE_STEP_CONFIGS is an object of objects; see structuralErrors),
// else an *InvalidDocumentError. Step entries need not carry both STEP_TYPE
// and STEP_CONFIG: a partial entry in additional is how one step's settings
// are overridden. The result is a deep copy of base where,
// for each step of additional in name order, a new step is added and an
// existing one has its STEP_CONFIG updated key by key (when both are
// objects) and every other key replaced. PIPELINE_ADDITIONAL_PARAMS objects
// are merged key by key as well.
func Merge(base, additional any) (map[string]any, *MergeStats, error) {
	for _, a := range []struct {
		name string
		doc  any
	}{{"base_doc", base}, {"additional_doc", additional}} {
		if errs := structuralErrors(a.doc); len(errs) > 0 {
			return nil, nil, &InvalidDocumentError{Arg: a.name, Issues: errs}
		}
	}
	out := Clone(base).(map[string]any)
	add := additional.(map[string]any)
	steps := out[KeyStepConfigs].(map[string]any)
	stats := &MergeStats{Added: []string{}, Updated: []string{}}
	addSteps := add[KeyStepConfigs].(map[string]any)
	for _, name := range mapkeys.Sorted(addSteps) {
		newEntry := addSteps[name].(map[string]any)
		cur, exists := steps[name].(map[string]any)
		if !exists {
			steps[name] = Clone(newEntry)
			stats.Added = append(stats.Added, name)
			continue
		}
		stats.Updated = append(stats.Updated, name)
		for _, k := range mapkeys.Sorted(newEntry) {
			nv := newEntry[k]
			if k == KeyStepConfig {
				curCfg, ok1 := cur[k].(map[string]any)
				newCfg, ok2 := nv.(map[string]any)
				if ok1 && ok2 {
					for ck, cv := range newCfg {
						curCfg[ck] = Clone(cv)
					}
					continue
				}
			}
			cur[k] = Clone(nv)
		}
	}
	if p, ok := add[KeyAdditionalParams].(map[string]any); ok {
		cur, ok := out[KeyAdditionalParams].(map[string]any)
		if !ok {
			cur = map[string]any{}
			out[KeyAdditionalParams] = cur
		}
		for k, v := range p {
			cur[k] = Clone(v)
		}
	}
	return out, stats, nil
}

// structuralKinds are the issue kinds that make a document unusable by
// Merge and Generate (a missing or mistyped top-level key, and step
// entries that are not objects).
var structuralKinds = map[string]bool{KindNotObject: true, KindMissingKey: true, KindWrongType: true, KindBadStep: true}

// structuralErrors returns the structural errors of a document.
func structuralErrors(doc any) []Issue {
	var out []Issue
	for _, is := range Validate(doc, Options{}).Issues {
		if is.Severity == SeverityError && structuralKinds[is.Kind] {
			out = append(out, is)
		}
	}
	return out
}
