package author

import (
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
)

func TestRenderStepFileLoadsInTheCatalog(t *testing.T) {
	no := false
	spec := ScaffoldSpec{Step: "OutlierClipping", JobType: "calibration", Header: "line one\nline two",
		Inputs:  []ScaffoldPort{{Name: "input_data", CompatibleSources: []string{"TabularPreprocessing"}}, {Name: "extra", Required: &no}},
		Outputs: []ScaffoldPort{{Name: "processed_data", Aliases: []string{"input_path", "input_path"}}}}
	b, err := RenderStepFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "# line one\n# line two\n") {
		t.Fatalf("header:\n%s", b)
	}
	st, err := catalog.ParseStepFile("OutlierClipping.step.yaml", b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if st.Contract.EntryPoint != "outlier_clipping.py" || EntryPoint("XGBoostOutlier") != "xgboost_outlier.py" {
		t.Fatalf("entry point %s", st.Contract.EntryPoint)
	}
	if len(st.Inputs) != 2 || st.Inputs[0].ContainerPath != "/opt/ml/processing/input/input_data" || st.Inputs[1].Required {
		t.Fatalf("inputs %+v", st.Inputs)
	}
	if len(st.Outputs) != 1 || st.Outputs[0].ContainerPath != "/opt/ml/processing/output/processed_data" || len(st.Outputs[0].Aliases) != 1 {
		t.Fatalf("outputs %+v", st.Outputs)
	}
	for _, bad := range []ScaffoldSpec{
		{Step: "X", Inputs: []ScaffoldPort{{Name: "a"}}},
		{Step: "X", Inputs: []ScaffoldPort{{Name: "a"}}, Outputs: []ScaffoldPort{{Name: "a"}}},
		{Step: "X", Inputs: []ScaffoldPort{{Name: ""}}, Outputs: []ScaffoldPort{{Name: "b"}}},
	} {
		if _, err := RenderStepFile(bad); err == nil {
			t.Errorf("%+v rendered", bad)
		}
	}
}
