package config

import (
	"slices"
	"testing"
)

// Required names once what a user must fill: the base fields, then each
// node's own, without a job_type the node name gives; its count is the
// template's essential fields.
func TestRequiredFields(t *testing.T) {
	s := testSchema(t)
	in := e2eInput()
	rf := s.Requirements(in.Nodes).Required()
	if !slices.Contains(rf.Base, "author") || !slices.Contains(rf.Base, "role") {
		t.Errorf("base %v", rf.Base)
	}
	for n, fs := range rf.Steps {
		for _, f := range fs {
			if slices.Contains(rf.Base, f) {
				t.Errorf("%s: base field %s asked for again", n, f)
			}
			if f == "job_type" {
				t.Errorf("%s: job_type asked for though the node name gives it", n)
			}
		}
	}
	if !slices.Contains(rf.Steps["Payload"], "expected_tps") {
		t.Errorf("Payload %v", rf.Steps["Payload"])
	}
	if tpl := s.Template(in.Nodes); rf.Count != len(tpl.EssentialFields) {
		t.Errorf("count %d, template essentials %d: %v", rf.Count, len(tpl.EssentialFields), tpl.EssentialFields)
	}
}
