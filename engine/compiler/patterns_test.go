package compiler

import (
	"slices"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
)

func TestPatternsOf(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	step := func(name string) *catalog.Step {
		t.Helper()
		s, _, err := cat.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	p, deps := PatternsOf(step("XGBoostTraining"))
	if p.CreateStep.Handler != "TrainingStepBuilder" || p.Compute.Kind != "estimator" || p.Compute.SDKClass == nil || *p.Compute.SDKClass != "XGBoost" ||
		p.Compute.InstanceSizeMode != "fixed" || p.Outputs.OutputPathToken != "xgboost_training" || p.Outputs.Sink {
		t.Errorf("XGBoostTraining: %+v", p)
	}
	if p.Inputs.Pattern != "one training channel per channel of each input (input_path -> train/val/test)" ||
		p.Outputs.Pattern != "estimator output path Join(base, xgboost_training)" {
		t.Errorf("XGBoostTraining inputs %q, outputs %q", p.Inputs.Pattern, p.Outputs.Pattern)
	}
	if p, _ := PatternsOf(step("XGBoostModel")); p.CreateStep.Handler != "CreateModelStepBuilder" ||
		p.Inputs.Pattern != "model_data becomes the container's ModelDataUrl" || p.Outputs.Pattern != "none (SageMaker names the model)" {
		t.Errorf("XGBoostModel: %+v", p)
	}
	if len(deps.Runtime) == 0 || deps.Native || deps.BuildTime == nil {
		t.Errorf("XGBoostTraining dependencies %+v", deps)
	}
	p, _ = PatternsOf(step("TabularPreprocessing"))
	if p.CreateStep.StepAssembly == nil || *p.CreateStep.StepAssembly != "code" || p.Compute.InstanceSizeMode != "large_or_small" ||
		p.EnvVars.Sources["LABEL_FIELD"] == nil || *p.EnvVars.Sources["LABEL_FIELD"] != "label_name" || !slices.IsSorted(p.EnvVars.DeclaredOptional) {
		t.Errorf("TabularPreprocessing: %+v", p)
	}
	if len(p.JobArguments.Declared) != 1 || p.JobArguments.Declared[0].Flag != "--job_type" {
		t.Errorf("job arguments %+v", p.JobArguments)
	}
	p, _ = PatternsOf(step("Registration"))
	if !p.Outputs.Sink || p.Outputs.Pattern != "sink (no outputs)" || p.EnvVars.DeclaredRequired == nil || p.Inputs.Deviations == nil {
		t.Errorf("Registration: %+v", p)
	}
}

// The catalog says, per verb, the property roots an output's property path
// may start with (catalog.VerbInfo.PropertyRoots, checked when a step file
// loads); each must be a property of the verb's step Type in the table
// CheckReferences reads, or a step file the catalog accepts would compile
// to a reference CheckReferences refuses.
func TestCatalogPropertyRootsAreProperties(t *testing.T) {
	shapes, err := stepShapes()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range catalog.Verbs {
		k := kindOfVerb(v)
		if k == nil {
			continue
		}
		sh := shapes[k.info.DefinitionType]
		if sh == nil {
			t.Errorf("%s: no %s entry in sdk_properties.json", v, k.info.DefinitionType)
			continue
		}
		info, _ := catalog.VerbInfoOf(v)
		for _, root := range info.PropertyRoots {
			if !sh.set[root] {
				t.Errorf("%s: property root %s is no property of a %s step (%s)", v, root, k.info.DefinitionType, strings.Join(sh.From, ", "))
			}
		}
	}
}
