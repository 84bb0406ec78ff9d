package config_test

import (
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/pipelines"
	"github.com/cursus-go/cursus/engine/pipelines/pipelinestest"
)

// TestRequiredFieldsAloneBuild: for every catalog DAG, the values
// Requirements lists to collect (RequiredFields, what config.requirements
// and pipeline_catalog.config_guidance answer), and nothing else, build.
// What Requirements stops asking for because the DAG decides it (a
// Registration's framework and image version follow the DAG's framework)
// Build must fill itself: an agent that collects exactly the listed fields
// and calls config.merge_save was refused for fields it was never asked.
func TestRequiredFieldsAloneBuild(t *testing.T) {
	t.Parallel()
	schema, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	cat, err := pipelines.Default()
	if err != nil {
		t.Fatal(err)
	}
	value := func(f catalog.ConfigField, ok bool, nodes []catalog.NodeName, path string) any {
		if !ok {
			t.Fatalf("%s: no declaration", path)
		}
		v, ok := pipelinestest.Value(f, nodes)
		if !ok {
			t.Fatalf("%s: no example value passes its checks", path)
		}
		return v
	}
	baseField := func(name string) (catalog.ConfigField, bool) {
		for _, set := range [][]catalog.ConfigField{schema.BaseFields(), schema.ProcessingFields()} {
			for _, f := range set {
				if f.Name == name {
					return f, true
				}
			}
		}
		return catalog.ConfigField{}, false
	}
	for _, e := range cat.Entries() {
		nodes := make([]catalog.NodeName, len(e.Nodes))
		for i, n := range e.Nodes {
			nodes[i] = catalog.NodeName(n)
		}
		reqs := schema.Requirements(nodes)
		need := reqs.Required()
		in := config.BuildInput{Nodes: nodes, Base: map[string]any{}, Steps: map[catalog.NodeName]map[string]any{}}
		for _, name := range need.Base {
			f, ok := baseField(name)
			in.Base[name] = value(f, ok, nodes, "base."+name)
		}
		for node, fields := range need.Steps {
			cls, ok := schema.Class(reqs.ConfigClassMap[node])
			if !ok {
				t.Fatalf("%s: node %s has no class", e.ID, node)
			}
			in.Steps[node] = map[string]any{}
			for _, name := range fields {
				f, ok := cls.Field(name)
				in.Steps[node][name] = value(f, ok, nodes, string(node)+"."+name)
			}
		}
		if _, err := schema.Build(in); err != nil {
			t.Errorf("%s: the %d required fields alone do not build: %v", e.ID, need.Count, err)
		}
	}
}
