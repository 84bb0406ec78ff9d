package validation

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
)

func TestEveryEmbeddedStepAligns(t *testing.T) {
	cat := defaultCatalog(t)
	rep, err := Align(context.Background(), AlignOptions{Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	if rep.TotalSteps != cat.Len() {
		t.Fatalf("total %d, want %d", rep.TotalSteps, cat.Len())
	}
	for _, c := range rep.CriticalIssues {
		t.Errorf("%s level %d: %s", c.StepName, c.Level, c.Message)
	}
	if rep.FailedSteps != 0 || rep.PassRate != 1 {
		t.Fatalf("failed %d, pass rate %v", rep.FailedSteps, rep.PassRate)
	}
	total := 0
	for _, tb := range rep.StepTypeBreakdown {
		total += tb.Total
	}
	if total != rep.TotalSteps {
		t.Errorf("breakdown totals %d, want %d", total, rep.TotalSteps)
	}
	// A step whose script the catalog ships is checked against it (and
	// passes); level 1 is NO_SCRIPT exactly for the others.
	checked := 0
	for _, s := range rep.Steps {
		st, _ := cat.Step(catalog.StepType(s.StepName))
		code, embedded := st.Script()
		if l1, ok := s.Levels["level_1"]; ok {
			switch {
			case embedded && (l1.Status != StatusPassed || l1.Script != code.Source()):
				t.Errorf("%s level 1 = %s on %q, want PASSED on %s (%s)", s.StepName, l1.Status, l1.Script, code.Source(), l1.Reason)
			case !embedded && l1.Status != StatusNoScript:
				t.Errorf("%s level 1 = %s, want NO_SCRIPT", s.StepName, l1.Status)
			case embedded:
				checked++
			}
		}
		if _, ok := s.Levels["level_1"]; ok != HasScriptVerb(catalog.Verb(s.SageMakerStepType)) {
			t.Errorf("%s: level 1 enabled %v for %s", s.StepName, ok, s.SageMakerStepType)
		}
	}
	if checked == 0 || rep.ScriptsChecked != checked {
		t.Errorf("scripts checked %d, embedded scripts passing %d", rep.ScriptsChecked, checked)
	}
	// The catalog ships every script (catalog's TestEveryScriptStepShipsItsCode).
	if n := rep.LevelSummary["level_1"].NoScript; n != 0 {
		t.Errorf("%d script-running steps are NO_SCRIPT", n)
	}
}

// HasScriptVerb reports whether level 1 is enabled for the verb.
func HasScriptVerb(v catalog.Verb) bool { return EnabledLevels(v)[0] == LevelScriptContract }

func TestAlignSubsetAndUnknown(t *testing.T) {
	cat := defaultCatalog(t)
	rep, err := Align(context.Background(), AlignOptions{Catalog: cat, Steps: []catalog.StepType{"xgboost_training", "TabularPreprocessing_training"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.TotalSteps != 2 || rep.Steps[0].StepName != "XGBoostTraining" || rep.Steps[1].StepName != "TabularPreprocessing" {
		t.Fatalf("subset: %d steps %v", rep.TotalSteps, rep.Steps)
	}
	_, err = Align(context.Background(), AlignOptions{Catalog: cat, Steps: []catalog.StepType{"NoSuchStepXyz"}})
	var ue *UnknownStepsError
	if !errors.As(err, &ue) || !errors.Is(err, catalog.ErrUnknownStep) || ue.Names[0] != "NoSuchStepXyz" {
		t.Fatalf("unknown: %v", err)
	}
}

func TestAlignLevelFailures(t *testing.T) {
	// Level 3: a required input nothing in the catalog provides.
	orphan := strings.NewReplacer(
		"step: DemoScoring", "step: DemoOrphan",
		"demo_scoring.py", "demo_orphan.py",
		"name: input_data", "name: quantum_flux_tensor",
		"type: processing_output\n    path: /opt/ml/processing/input/data", "type: hyperparameters\n    path: /opt/ml/processing/input/data",
		"compatible_sources: [TabularPreprocessing]", "compatible_sources: [UserProvided]",
		"keywords: [processed, data]", "keywords: [zzz]",
	).Replace(customStep)
	// Level 4: an essential field no placeholder can satisfy breaks the dry build.
	unbuildable := strings.NewReplacer("step: DemoScoring", "step: DemoUnbuildable", "demo_scoring.py", "demo_unbuildable.py").Replace(customStep) +
		"  - {name: secret_code, type: string, tier: essential, pattern: \"^zz[0-9]{9}q$\", description: \"Impossible to guess.\"}\n"
	ws := workspace(t, map[string]string{
		"DemoScoring.step.yaml": customStep, "DemoOrphan.step.yaml": orphan, "DemoUnbuildable.step.yaml": unbuildable,
	})
	cat, err := catalog.Load(nil, ws)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Align(context.Background(), AlignOptions{Catalog: cat, Steps: []catalog.StepType{"DemoScoring", "DemoOrphan", "DemoUnbuildable"}})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*StepAlignment{}
	for _, s := range rep.Steps {
		byName[s.StepName] = s
	}
	if !byName["DemoScoring"].Passed() {
		t.Errorf("DemoScoring fails: %+v", byName["DemoScoring"].Issues())
	}
	if l3 := byName["DemoOrphan"].Levels["level_3"]; l3.Status != StatusFailed || l3.Issues[0].Severity != SeverityCritical || l3.Issues[0].Category != CatDependencyResolution {
		t.Errorf("orphan level 3: %+v", l3)
	}
	if l4 := byName["DemoUnbuildable"].Levels["level_4"]; l4.Status != StatusFailed || l4.Issues[0].Category != CatBuild {
		t.Errorf("unbuildable level 4: %+v", l4)
	}
	if rep.FailedSteps != 2 || rep.PassedSteps != 1 || rep.PassRate != 0.3333 {
		t.Errorf("counts: passed %d failed %d rate %v", rep.PassedSteps, rep.FailedSteps, rep.PassRate)
	}
	if rep.LevelSummary["level_3"].Failed != 1 || rep.LevelSummary["level_4"].Failed != 1 {
		t.Errorf("level summary: %+v %+v", rep.LevelSummary["level_3"], rep.LevelSummary["level_4"])
	}
}

func TestAlignLevel1WithScripts(t *testing.T) {
	needPython(t)
	ws := workspace(t, map[string]string{"DemoScoring.step.yaml": customStep})
	scripts := t.TempDir()
	writeFile(t, filepath.Join(scripts, "demo_scoring.py"), goodDemoScript)
	writeFile(t, filepath.Join(scripts, "tabular_preprocessing.py"), "import os\nprint(os.environ['NOT_DECLARED'])\n")
	cat, err := catalog.Load(nil, ws)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Align(context.Background(), AlignOptions{Catalog: cat, Steps: []catalog.StepType{"DemoScoring", "TabularPreprocessing"}, ScriptDirs: []string{scripts}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ScriptsChecked != 2 {
		t.Fatalf("scripts checked %d", rep.ScriptsChecked)
	}
	if l1 := rep.Steps[0].Levels["level_1"]; l1.Status != StatusPassed || l1.Script == "" {
		t.Errorf("good script: %+v", l1)
	}
	if l1 := rep.Steps[1].Levels["level_1"]; l1.Status != StatusFailed {
		t.Errorf("bad script: %+v", l1)
	}
}

func TestFieldsRead(t *testing.T) {
	cat := defaultCatalog(t)
	st := step(t, cat, "TabularPreprocessing")
	got := map[string]bool{}
	for _, f := range FieldsRead(st) {
		got[f.Field] = true
	}
	for _, want := range []string{"job_type", "processing_entry_point", "role", "region", "label_name"} {
		if !got[want] {
			t.Errorf("FieldsRead misses %s: %v", want, FieldsRead(st))
		}
	}
}

func TestAlignSharedEntryPoint(t *testing.T) {
	needPython(t)
	// DemoScoring2 runs the same script as DemoScoring with another contract.
	other := strings.NewReplacer("step: DemoScoring", "step: DemoScoringTwo", "name: LABEL_FIELD", "name: OTHER_FIELD").Replace(customStep)
	ws := workspace(t, map[string]string{"DemoScoring.step.yaml": customStep, "DemoScoringTwo.step.yaml": other})
	writeFile(t, filepath.Join(ws, "scripts", "demo_scoring.py"), goodDemoScript)
	cat, err := catalog.Load(nil, ws)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Align(context.Background(), AlignOptions{Catalog: cat, Steps: []catalog.StepType{"DemoScoring", "DemoScoringTwo"}})
	if err != nil {
		t.Fatal(err)
	}
	one, two := rep.Steps[0], rep.Steps[1]
	if one.Levels["level_1"].Status != StatusPassed || two.Levels["level_1"].Status != StatusSkipped || !strings.Contains(two.Levels["level_1"].Reason, "DemoScoring") {
		t.Fatalf("level 1: %+v / %+v", one.Levels["level_1"], two.Levels["level_1"])
	}
	for _, s := range rep.Steps {
		l2 := s.Levels["level_2"]
		if l2.Status != StatusPassed || len(l2.Issues) == 0 || l2.Issues[0].Severity != SeverityWarning {
			t.Errorf("%s level 2 should warn about the shared entry point: %+v", s.StepName, l2)
		}
	}
	if rep.FailedSteps != 0 {
		t.Errorf("failed %d", rep.FailedSteps)
	}
}
