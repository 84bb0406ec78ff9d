package config

import (
	"slices"

	"github.com/cursus-go/cursus/engine/catalog"
)

// RequiredFields are the names of the fields a user must supply for a DAG:
// the base (and processing-base) fields once, then each node's own required
// fields beyond the base.
type RequiredFields struct {
	Base []string `json:"base"`
	// Steps holds, per node with any, its own required fields; a job_type
	// taken from the node name is not asked for.
	Steps map[catalog.NodeName][]string `json:"steps"`
	// Count is the number of values to collect: the base fields plus every
	// node's.
	Count int `json:"count"`
}

// Required sums up the required fields of r (see RequiredFields).
func (r *Requirements) Required() RequiredFields {
	out := RequiredFields{Base: []string{}, Steps: map[catalog.NodeName][]string{}}
	for _, q := range append(slices.Clip(r.Base), r.BaseProcessing...) {
		if q.Required && !slices.Contains(out.Base, q.Name) {
			out.Base = append(out.Base, q.Name)
		}
	}
	out.Count = len(out.Base)
	for n, reqs := range r.Steps {
		var own []string
		for _, q := range reqs {
			if q.Name == "job_type" && r.JobTypes[n] != "" {
				continue // filled from the node name
			}
			if q.Required && !slices.Contains(out.Base, q.Name) {
				own = append(own, q.Name)
			}
		}
		if len(own) > 0 {
			out.Steps[n] = own
			out.Count += len(own)
		}
	}
	return out
}
