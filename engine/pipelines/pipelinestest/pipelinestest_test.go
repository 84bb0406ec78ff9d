package pipelinestest

import (
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/config"
)

// TestEveryEssentialFieldGetsAValidValue covers every essential field of
// every step type of the catalog, so Configs works for any DAG of them.
func TestEveryEssentialFieldGetsAValidValue(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	schema, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range cat.Steps() {
		for _, f := range st.FieldsByTier(catalog.TierEssential) {
			v, ok := Value(f, []catalog.NodeName{catalog.NodeName(st.Type)})
			if !ok {
				t.Errorf("%s.%s: no example value", st.Type, f.Name)
				continue
			}
			if why := f.CheckValue(v); why != "" {
				t.Errorf("%s.%s: %v rejected: %s", st.Type, f.Name, v, why)
			}
		}
		node := string(st.Type)
		if len(st.JobTypes) > 0 {
			node += "_" + st.JobTypes[0]
		}
		if _, err := Configs(schema, []string{node}); err != nil {
			t.Errorf("%s: %v", node, err)
		}
	}
}

func TestFrameworkFollowsTheNodes(t *testing.T) {
	f := catalog.ConfigField{Name: "framework", Type: catalog.FieldString, Tier: catalog.TierEssential, Allowed: []any{"xgboost", "pytorch", "sklearn"}}
	if v, _ := Value(f, []catalog.NodeName{"LightGBMTraining", "Registration"}); v != "pytorch" {
		t.Fatalf("LightGBM DAG registers with pytorch, got %v", v)
	}
	if v, _ := Value(f, []catalog.NodeName{"XGBoostTraining"}); v != "xgboost" {
		t.Fatalf("got %v", v)
	}
	if _, ok := Value(catalog.ConfigField{Name: "odd", Type: catalog.FieldString, Pattern: "^zzz$"}, nil); ok {
		t.Fatal("a value that fails the pattern must not be returned")
	}
}
