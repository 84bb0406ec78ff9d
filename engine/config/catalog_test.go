package config

import (
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
)

// TestDefaultSchema builds the schema of the embedded step catalog: every
// step gets a config class and the shared sets have the original's sizes.
func TestDefaultSchema(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatalf("Default: %v", err)
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range cat.Steps() {
		c, ok := s.ClassForStep(st.Type)
		if !ok || c.Name != st.ConfigClass {
			t.Errorf("%s: class %v", st.Type, c)
		}
	}
	var nodes []catalog.NodeName
	for _, st := range cat.Steps() {
		nodes = append(nodes, catalog.NodeName(st.Type))
	}
	r := s.Requirements(nodes)
	if len(r.Base) != 19 || len(r.BaseProcessing) != 10 {
		t.Errorf("base %d and processing %d requirements; the original has 19 and 10", len(r.Base), len(r.BaseProcessing))
	}
	if len(r.Pending) != 0 {
		t.Errorf("catalog steps pending: %v", r.Pending)
	}
	if again, _ := Default(); again != s {
		t.Error("Default built twice")
	}
}
