package validation

import (
	"errors"
	"strings"
	"testing"
)

func TestEveryEmbeddedStepPassesTheInterfaceGate(t *testing.T) {
	rep, err := CheckInterfaces(InterfaceOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	cat := defaultCatalog(t)
	if rep.Validated != cat.Len() || rep.Blocking() {
		for _, r := range rep.Results {
			if !r.OK {
				t.Errorf("%s: %v", r.Step, r.Errors)
			}
		}
		t.Fatalf("validated %d of %d steps, %d errors", rep.Validated, cat.Len(), rep.Errors)
	}
	for _, r := range rep.Results {
		if r.JobType != nil || r.File == "" || r.Errors == nil || r.Warnings == nil {
			t.Errorf("result shape: %+v", r)
		}
	}
}

func TestInterfaceSelection(t *testing.T) {
	if _, err := CheckInterfaces(InterfaceOptions{}); !errors.Is(err, ErrNoSelection) {
		t.Fatalf("no selection: %v", err)
	}
	rep, err := CheckInterfaces(InterfaceOptions{StepName: "NoSuchStepXyz"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 || rep.Results[0].OK || !strings.Contains(rep.Results[0].Errors[0], "not found") {
		t.Fatalf("unknown step: %+v", rep.Results)
	}
	// File-style and node names resolve; the node's suffix is the job type.
	rep, err = CheckInterfaces(InterfaceOptions{StepName: "TabularPreprocessing_calibration"})
	if err != nil || len(rep.Results) != 1 || !rep.Results[0].OK || rep.Results[0].Step != "TabularPreprocessing" || *rep.Results[0].JobType != "calibration" {
		t.Fatalf("node name: %+v %v", rep.Results, err)
	}
	rep, err = CheckInterfaces(InterfaceOptions{StepName: "tabular_preprocessing"})
	if err != nil || len(rep.Results) != 1 || rep.Results[0].Step != "TabularPreprocessing" {
		t.Fatalf("file-style name: %+v %v", rep.Results, err)
	}
}

func TestInterfaceJobType(t *testing.T) {
	// A job type that violates the step's job_type pattern is an error.
	rep, err := CheckInterfaces(InterfaceOptions{StepName: "TabularPreprocessing", JobType: "Not-Valid"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Results[0].OK || !strings.Contains(strings.Join(rep.Results[0].Errors, " "), "job_type") {
		t.Fatalf("bad job type: %+v", rep.Results[0])
	}
	// A step without a job_type field warns.
	cat := defaultCatalog(t)
	for _, st := range cat.Steps() {
		if _, ok := st.Field("job_type"); ok {
			continue
		}
		rep, err := CheckInterfaces(InterfaceOptions{StepName: string(st.Type), JobType: "training"})
		if err != nil || !rep.Results[0].OK || len(rep.Results[0].Warnings) == 0 {
			t.Fatalf("%s with a job type: %+v %v", st.Type, rep.Results[0], err)
		}
		break
	}
}

func TestInterfaceWorkspace(t *testing.T) {
	good := workspace(t, map[string]string{"DemoScoring.step.yaml": customStep})
	rep, err := CheckInterfaces(InterfaceOptions{StepName: "DemoScoring", WorkspaceDirs: []string{good}})
	if err != nil || len(rep.Results) != 1 || !rep.Results[0].OK {
		t.Fatalf("good workspace step: %+v %v", rep, err)
	}
	broken := strings.Replace(customStep, "path: /opt/ml/processing/input/data", "path: /tmp/data", 1)
	broken = strings.Replace(broken, "verb: Processing", "verb: Processing\nbogus_key: 1", 1)
	bad := workspace(t, map[string]string{"DemoScoring.step.yaml": broken})
	rep, err = CheckInterfaces(InterfaceOptions{StepName: "DemoScoring", WorkspaceDirs: []string{bad}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 || rep.Results[0].OK || !strings.HasSuffix(rep.Results[0].File, "DemoScoring.step.yaml") {
		t.Fatalf("broken workspace step: %+v", rep.Results)
	}
	if !strings.Contains(strings.Join(rep.Results[0].Errors, "\n"), "bogus_key") {
		t.Errorf("the error does not name the field: %v", rep.Results[0].Errors)
	}
	// An embedded step still validates while the workspace is broken, with a warning.
	rep, err = CheckInterfaces(InterfaceOptions{StepName: "TabularPreprocessing", WorkspaceDirs: []string{bad}})
	if err != nil || !rep.Results[0].OK || len(rep.Results[0].Warnings) == 0 {
		t.Fatalf("embedded step with a broken workspace: %+v %v", rep.Results, err)
	}
	// All-mode reports the broken file among the results.
	rep, err = CheckInterfaces(InterfaceOptions{All: true, WorkspaceDirs: []string{bad}})
	if err != nil || !rep.Blocking() || rep.Validated != defaultCatalog(t).Len()+1 {
		t.Fatalf("all with a broken workspace: validated %d, blocking %v, %v", rep.Validated, rep.Blocking(), err)
	}
}
