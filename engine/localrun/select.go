package localrun

import (
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/engine/internal/mapkeys"
)

// A run of selected steps (Options.Steps) runs those steps only, as a SageMaker selective
// execution does: the steps they depend on and do not select give their outputs from data (they
// are substituted, and every output a selected step reads must be given), and the other steps do
// not run (Report.NotSelected lists them). It is how a step that failed on SageMaker is run alone
// on the data it failed on (execution.failure names that data, execution.download fetches it).

// loadSelection checks Options.Steps against the definition and works out what the selected
// steps read of the steps they do not select.
func (r *run) loadSelection() error {
	if len(r.opts.Steps) == 0 {
		return nil
	}
	r.sel = map[string]bool{}
	for _, name := range r.opts.Steps {
		if _, ok := r.byName[name]; !ok {
			return &InputError{Field: "steps", Problem: fmt.Sprintf("no step is named %q (steps: %s)", name, strings.Join(mapkeys.Sorted(r.byName), ", "))}
		}
		r.sel[name] = true
	}
	// What the selected steps read: consumedOutputs records into r.consumed.
	all := r.consumed
	r.consumed = map[string]map[string]bool{}
	for _, s := range r.steps {
		if r.sel[s.Name] {
			r.consumedOutputs(ownArguments(s))
		}
	}
	r.selReads, r.consumed = r.consumed, all
	r.selUpstream = map[string]bool{}
	for name := range r.sel {
		for _, d := range r.deps[name] {
			if !r.sel[d] {
				r.selUpstream[d] = true
			}
		}
	}
	return nil
}

// notSelected reports whether a step is left out of a run of selected steps altogether: neither
// selected nor read by a selected step. It is then listed in Report.NotSelected.
func (r *run) notSelected(s *defStep) bool {
	if r.sel == nil || r.sel[s.Name] || r.selUpstream[s.Name] {
		return false
	}
	r.ev.steps[s.Name].status = statusNotRun
	r.report.NotSelected = append(r.report.NotSelected, s.Name)
	return true
}

// upstreamOfSelection reports whether a step is not selected but read by a selected step: it is
// substituted from data.
func (r *run) upstreamOfSelection(s *defStep) bool {
	return r.sel != nil && !r.sel[s.Name] && r.selUpstream[s.Name]
}

// reads are the outputs of a step that later steps read: in a run of selected steps, those the
// selected steps read.
func (r *run) reads(step string) map[string]bool {
	if r.sel != nil && !r.sel[step] {
		return r.selReads[step]
	}
	return r.consumed[step]
}
