package validation

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
)

// goodDemoScript reads exactly what customStep declares.
const goodDemoScript = `import argparse, os
IN = "/opt/ml/processing/input/data"
OUT = os.path.join("/opt/ml/processing/output", "scores")
def main(input_paths, output_paths, environ_vars, job_args):
    print(input_paths["input_data"], output_paths["scores"], environ_vars["LABEL_FIELD"], job_args.job_type)
if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--job_type", default="")
    main({"input_data": IN}, {"scores": OUT}, {"LABEL_FIELD": os.environ.get("LABEL_FIELD", "label")}, p.parse_args())
`

func TestAnalyzeScriptsExtractsEverything(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	p := writeFile(t, filepath.Join(dir, "s.py"), `import os, argparse
from os import environ, getenv
BASE = "/opt/ml/processing"
DATA = os.path.join(BASE, "input", "data")
OUT = f"{BASE}/output/x"
def main(input_paths, output_paths, environ_vars, job_args):
    a = input_paths["DATA"]; b = output_paths.get("out")
    c = environ_vars.get("FROM_MAIN", "d")
    return job_args.job_type
if __name__ == "__main__":
    x = os.environ["A"]; y = os.environ.get("B", "1"); z = os.getenv("C"); w = environ["D"]; v = getenv("E")
    if "F" in os.environ: pass
    os.environ["WRITTEN"] = "1"
    ap = argparse.ArgumentParser()
    ap.add_argument("--job_type", "-j", required=True)
    ap.add_argument("--flag-two", dest="two")
`)
	bad := writeFile(t, filepath.Join(dir, "bad.py"), "def broken(:\n")
	as, err := AnalyzeScripts(context.Background(), p, bad, filepath.Join(dir, "missing.py"))
	if err != nil {
		t.Fatal(err)
	}
	a := as[0]
	if !a.OK {
		t.Fatalf("analysis failed: %+v", a)
	}
	paths := map[string]bool{}
	for _, s := range a.ContainerPaths {
		paths[s.Value] = true
	}
	for _, want := range []string{"/opt/ml/processing", "/opt/ml/processing/input/data", "/opt/ml/processing/output/x"} {
		if !paths[want] {
			t.Errorf("container path %s not found in %v", want, a.ContainerPaths)
		}
	}
	env := map[string]EnvRead{}
	for _, r := range a.EnvReads {
		env[r.Name] = r
	}
	for _, want := range []string{"A", "B", "C", "D", "E", "F", "FROM_MAIN"} {
		if _, ok := env[want]; !ok {
			t.Errorf("env read %s not found in %v", want, a.EnvReads)
		}
	}
	if _, ok := env["WRITTEN"]; ok {
		t.Errorf("a write was reported as a read")
	}
	if !env["B"].HasDefault || env["A"].HasDefault {
		t.Errorf("defaults wrong: %+v %+v", env["A"], env["B"])
	}
	if len(a.Argparse) != 2 || a.Argparse[0].Dest != "job_type" || !a.Argparse[0].Required || a.Argparse[1].Dest != "two" {
		t.Errorf("argparse = %+v", a.Argparse)
	}
	if len(a.InputKeys) != 1 || a.InputKeys[0].Name != "DATA" || len(a.OutputKeys) != 1 || a.OutputKeys[0].Name != "out" {
		t.Errorf("keys = %+v %+v", a.InputKeys, a.OutputKeys)
	}
	if len(a.JobArgAttrs) != 1 || a.JobArgAttrs[0].Name != "job_type" || !a.HasMain {
		t.Errorf("job args = %+v, has main %v", a.JobArgAttrs, a.HasMain)
	}
	if as[1].OK || as[1].ErrorKind != "syntax" {
		t.Errorf("syntax error not reported: %+v", as[1])
	}
	if as[2].OK || as[2].ErrorKind != "read" {
		t.Errorf("missing file not reported: %+v", as[2])
	}
}

func TestCheckScriptAnalysisBothWays(t *testing.T) {
	cat := defaultCatalog(t)
	st := step(t, cat, "TabularPreprocessing")
	var good ScriptAnalysis
	good.OK = true
	good.HasMain = true
	for _, in := range st.Inputs {
		good.ContainerPaths = append(good.ContainerPaths, StringRef{Value: in.ContainerPath, Line: 1})
	}
	for _, o := range st.Outputs {
		good.ContainerPaths = append(good.ContainerPaths, StringRef{Value: o.ContainerPath + "/train", Line: 2})
	}
	good.ContainerPaths = append(good.ContainerPaths, StringRef{Value: "/opt/ml/processing", Line: 3}, StringRef{Value: "/opt/ml/input/config/hyperparameters.json", Line: 4})
	for _, e := range st.Contract.Env {
		good.EnvReads = append(good.EnvReads, EnvRead{Name: e.Name, Line: 5})
	}
	good.EnvReads = append(good.EnvReads, EnvRead{Name: "SM_CURRENT_HOST", Line: 6})
	for _, ja := range st.Contract.JobArguments {
		good.Argparse = append(good.Argparse, ArgFlag{Flags: []string{ja.Flag}, Dest: strings.TrimLeft(ja.Flag, "-")})
	}
	issues := CheckScriptAnalysis(st, &good)
	if HasBlocking(issues) {
		t.Fatalf("a script reading exactly the contract has blocking issues: %+v", issues)
	}
	if len(issues) != 1 || issues[0].Category != CatPlatformPath {
		t.Errorf("want one platform-path INFO, got %+v", issues)
	}

	bad := good
	bad.ContainerPaths = append(append([]StringRef(nil), good.ContainerPaths[1:]...), StringRef{Value: "/opt/ml/processing/input/elsewhere", Line: 9})
	bad.EnvReads = append(append([]EnvRead(nil), good.EnvReads[1:]...), EnvRead{Name: "SECRET_KNOB", Line: 10})
	bad.Argparse = []ArgFlag{{Flags: []string{"--mode"}, Dest: "mode", Required: true}}
	bad.InputKeys = []NameRef{{Name: "NOPE", Line: 11}}
	bad.OutputKeys = []NameRef{{Name: "processed_data", Line: 12}}
	issues = CheckScriptAnalysis(st, &bad)
	cats := map[string]Severity{}
	for _, i := range issues {
		if _, seen := cats[i.Category]; !seen || i.Severity.Blocking() {
			cats[i.Category] = i.Severity
		}
	}
	for cat, sev := range map[string]Severity{
		CatUndeclaredContainerPath: SeverityError, // /opt/ml/processing/input/elsewhere
		CatMissingContainerPath:    SeverityError, // DATA's path dropped (required)
		CatUndeclaredEnvVar:        SeverityError,
		CatUnusedEnvVar:            SeverityWarning, // LABEL_FIELD dropped (optional)
		CatMissingJobArg:           SeverityError,   // --job_type not parsed
		CatUndeclaredJobArg:        SeverityError,   // required --mode
		CatUndeclaredInputPath:     SeverityError,
	} {
		if cats[cat] != sev {
			t.Errorf("category %s: severity %q, want %s (issues %+v)", cat, cats[cat], sev, issues)
		}
	}
	if issues[0].Severity != SeverityError {
		t.Errorf("issues are not sorted by severity: %+v", issues[0])
	}
}

func TestCheckScript(t *testing.T) {
	needPython(t)
	ws := workspace(t, map[string]string{"DemoScoring.step.yaml": customStep})
	cat, err := catalog.Load(nil, ws)
	if err != nil {
		t.Fatal(err)
	}
	st := step(t, cat, "DemoScoring")
	ctx := context.Background()

	// Not on disk: skipped, passed.
	res, err := CheckScript(ctx, st, "", ScriptDirs(cat))
	if err != nil || res.Status != ScriptSkipped || !res.Passed || len(res.Searched) == 0 {
		t.Fatalf("missing script: %+v %v", res, err)
	}
	// Found next to the workspace (W/scripts).
	writeFile(t, filepath.Join(ws, "scripts", "demo_scoring.py"), goodDemoScript)
	res, err = CheckScript(ctx, st, "", ScriptDirs(cat))
	if err != nil || res.Status != ScriptChecked || !res.Passed {
		t.Fatalf("good script: %+v %v", res, err)
	}
	// A script reading an undeclared variable fails.
	p := writeFile(t, filepath.Join(t.TempDir(), "demo_scoring.py"), goodDemoScript+"\nprint(os.environ['EXTRA'])\n")
	res, err = CheckScript(ctx, st, p, nil)
	if err != nil || res.Passed || res.Issues[0].Category != CatUndeclaredEnvVar {
		t.Fatalf("bad script: %+v %v", res, err)
	}
	// An unparsable one is an analysis error.
	p = writeFile(t, filepath.Join(t.TempDir(), "demo_scoring.py"), "def (\n")
	_, err = CheckScript(ctx, st, p, nil)
	var ae *ScriptAnalysisError
	if !errors.As(err, &ae) || ae.Failure != "syntax" {
		t.Fatalf("want a syntax ScriptAnalysisError, got %v", err)
	}
	// A step without a script of its own is skipped.
	res, err = CheckScript(ctx, step(t, cat, "XGBoostModel"), "", nil)
	if err != nil || res.Status != ScriptSkipped || !res.Passed {
		t.Fatalf("CreateModel step: %+v %v", res, err)
	}
}
