package validation

import (
	"context"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/config"
)

func TestPlaceholdersSatisfyEveryStep(t *testing.T) {
	cat := defaultCatalog(t)
	schema, err := config.FromCatalog(cat)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range cat.Steps() {
		class, ok := schema.ClassForStep(st.Type)
		if !ok {
			t.Fatalf("no class for %s", st.Type)
		}
		for name, v := range PlaceholderValues(class, st, "") {
			f, _ := class.Field(name)
			if msg := f.CheckValue(v); msg != "" {
				t.Errorf("%s.%s placeholder %v: %s", st.Type, name, v, msg)
			}
		}
		if _, _, err := DefaultConfig(cat, st, ""); err != nil {
			t.Errorf("%s: default config: %v", st.Type, err)
		}
	}
	if !IsPlaceholder(PlaceholderRole) || !IsPlaceholder([]any{"x", "replace-me"}) || IsPlaceholder("label") {
		t.Error("IsPlaceholder")
	}
	f := catalog.ConfigField{Name: "impossible", Type: catalog.FieldString, Pattern: "^zz[0-9]{9}q$"}
	if _, ok := PlaceholderValue(f, nil); ok {
		t.Error("a placeholder claims to satisfy an impossible pattern")
	}
}

func TestBuilderEveryEmbeddedStepBuilds(t *testing.T) {
	cat := defaultCatalog(t)
	for _, st := range cat.Steps() {
		rep, err := TestBuilder(context.Background(), cat, st, "", true)
		if err != nil {
			t.Fatalf("%s: %v", st.Type, err)
		}
		if !rep.Build.Built || !rep.Passed || rep.Score.Overall != 100 || rep.Score.Rating != "Excellent" {
			var failed []string
			for c, ts := range rep.Tests {
				for _, x := range ts {
					if !x.Passed {
						failed = append(failed, c+"/"+x.Name+": "+x.Message)
					}
				}
			}
			t.Errorf("%s: built %v score %v: %s %v", st.Type, rep.Build.Built, rep.Score.Overall, rep.Build.Error, failed)
		}
		if rep.Build.Built && rep.Build.Fragment["Type"] != rep.DefinitionType {
			t.Errorf("%s: fragment type %v", st.Type, rep.Build.Fragment["Type"])
		}
	}
}

func TestBuilderScoresAFailure(t *testing.T) {
	unbuildable := customStep + "  - {name: secret_code, type: string, tier: essential, pattern: \"^zz[0-9]{9}q$\", description: \"Impossible.\"}\n"
	cat, err := catalog.Load(nil, workspace(t, map[string]string{"DemoScoring.step.yaml": unbuildable}))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := TestBuilder(context.Background(), cat, step(t, cat, "DemoScoring"), "", true)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Build.Built || rep.Passed || !strings.Contains(rep.Build.Error, "secret_code") {
		t.Fatalf("build: %+v", rep.Build)
	}
	if rep.Score.Overall >= 60 || rep.Score.Rating != Rating(rep.Score.Overall) || rep.Score.Components[ComponentCreation].Passed != 1 {
		t.Errorf("score %+v", rep.Score)
	}
	for s, want := range map[float64]string{95: "Excellent", 85: "Good", 75: "Satisfactory", 65: "Needs Work", 10: "Poor"} {
		if Rating(s) != want {
			t.Errorf("Rating(%v) = %s", s, Rating(s))
		}
	}
}
