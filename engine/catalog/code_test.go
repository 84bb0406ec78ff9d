package catalog

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestEmbeddedScript(t *testing.T) {
	cat := mustDefault(t)
	st, _ := cat.Step("DummyDataGeneration")
	code, ok := st.Script()
	if !ok {
		t.Fatal("DummyDataGeneration ships no embedded script")
	}
	if !code.Embedded() || code.Dir || code.LocalPath != "" || code.Path != "dummy_data_generation.py" ||
		code.Source() != "embedded:scripts/dummy_data_generation.py" || !reflect.DeepEqual(code.Files, []string{"dummy_data_generation.py"}) {
		t.Fatalf("code %+v (source %s)", code, code.Source())
	}
	got, err := code.ReadFile(code.Files[0])
	if err != nil {
		t.Fatal(err)
	}
	want, err := fs.ReadFile(Code(), "dummy_data_generation.py")
	if err != nil || !bytes.Equal(got, want) || !bytes.Contains(got, []byte("/opt/ml/processing/output/data")) {
		t.Fatalf("read %d bytes (%v), Code() has %d", len(got), err, len(want))
	}
	if _, ok := st.InferenceCode("no-such-framework"); ok {
		t.Error("InferenceCode found a framework that does not exist")
	}
	for _, bad := range []string{"", ".", "..", "../steps/Package.step.yaml", "/etc/passwd", "inference/../../load.go", "steps"} {
		if c, ok := st.LookupCode(bad); ok {
			t.Errorf("LookupCode(%q) = %+v", bad, c)
		}
	}
	if _, ok := st.LookupCode("./dummy_data_generation.py"); !ok {
		t.Error("LookupCode does not clean ./")
	}
}

// TestWorkspaceCode: a workspace step's scripts/ directory comes before the
// embedded code, caches and dot files are not code, and a step without a
// file of its own falls back to the embedded one.
func TestWorkspaceCode(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "Dedup.step.yaml", validExtraStep("Dedup"))
	scripts := filepath.Join(dir, CodeDir)
	for _, f := range []string{"dedup.py", "dummy_data_generation.py", "inference/xgboost/inference.py", "inference/xgboost/helpers/__init__.py",
		"inference/xgboost/__pycache__/inference.cpython-311.pyc", "inference/xgboost/.hidden", "inference/xgboost/x.pyc", "inference/pytorch/helper.py"} {
		p := filepath.Join(scripts, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Dir(p), filepath.Base(p), "# "+f+"\n")
	}
	writeFile(t, scripts, "uses_lib.py", "from steplib import splits\n")
	cat, err := Load(nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := cat.Step("Dedup")
	code, ok := st.Script()
	if !ok || code.Embedded() || code.Origin != scripts || code.LocalPath != filepath.Join(scripts, "dedup.py") || code.Source() != code.LocalPath {
		t.Fatalf("workspace script %+v", code)
	}
	if b, err := code.ReadFile("dedup.py"); err != nil || string(b) != "# dedup.py\n" {
		t.Fatalf("read %q %v", b, err)
	}
	inf, ok := st.InferenceCode("xgboost")
	if !ok || !inf.Dir || !reflect.DeepEqual(inf.Files, []string{"helpers/__init__.py", "inference.py"}) || !inf.Has("inference.py") || inf.Has("x.pyc") {
		t.Fatalf("inference code %+v", inf)
	}
	if _, ok := st.InferenceCode("pytorch"); ok {
		t.Error("an inference directory without inference.py counts")
	}
	if c, ok := st.LookupConfigCode("inference", "xgboost", true); !ok || c.Path != "inference/xgboost" {
		t.Errorf("LookupConfigCode(inference, xgboost) = %+v %v", c, ok)
	}
	if c, ok := st.LookupConfigCode("inference/xgboost", "", true); !ok || c.Path != "inference/xgboost" {
		t.Errorf("LookupConfigCode(inference/xgboost) = %+v %v", c, ok)
	}
	if c, ok := st.LookupConfigCode("inference", "mxnet", true); ok {
		t.Errorf("another framework's serving root stood in for mxnet: %+v", c)
	}
	// Workspace code is uploaded as it is, steplib imports or not.
	if c, ok := st.LookupCode("uses_lib.py"); !ok || !reflect.DeepEqual(Bundle(c), c) {
		t.Errorf("workspace script importing steplib: %+v %v", c, ok)
	}
	if _, ok := st.LookupConfigCode("dedup.py", "", false); !ok {
		t.Error("LookupConfigCode misses a file")
	}
	if _, ok := st.LookupConfigCode("dedup.py", "", true); ok {
		t.Error("LookupConfigCode returned a file for a directory")
	}
	if c, ok := st.LookupCode("dummy_data_generation.py"); !ok || c.Embedded() {
		t.Errorf("workspace copy should win: %+v", c)
	}
	if c, ok := st.LookupCode("README.md"); !ok || !c.Embedded() {
		t.Errorf("embedded fallback: %+v", c)
	}
	// An embedded step is not affected by the workspace's scripts/.
	gen, _ := cat.Step("DummyDataGeneration")
	if c, ok := gen.Script(); !ok || !c.Embedded() {
		t.Errorf("embedded step took workspace code: %+v", c)
	}
	if strings.Contains(InferenceCodePath("xgboost"), "..") || InferenceCodePath("xgboost") != "inference/xgboost" {
		t.Error(InferenceCodePath("xgboost"))
	}
}

// TestBundle: a script importing steplib is bundled with the modules it
// imports; one that does not, and workspace code, stay as they are.
func TestBundle(t *testing.T) {
	cat := mustDefault(t)
	tp, _ := cat.Step("TabularPreprocessing")
	code, _ := tp.Script()
	b := Bundle(code)
	if !b.Dir || b.Path != "tabular_preprocessing.py" || !b.Has("tabular_preprocessing.py") || !b.Has("steplib/frames.py") || !b.Has("steplib/__init__.py") {
		t.Fatalf("bundle %+v", b)
	}
	for _, f := range b.Files {
		if _, err := b.ReadFile(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	// Only the modules a script imports, with their own imports.
	if b.Has("steplib/splits.py") || b.Has("steplib/xgbmodel.py") {
		t.Errorf("tabular_preprocessing's bundle holds modules it does not import: %v", b.Files)
	}
	ev, _ := cat.Step("XGBoostModelEval")
	code, _ = ev.Script()
	if b := Bundle(code); strings.Join(b.Files, ",") != "steplib/__init__.py,steplib/metrics.py,steplib/tables.py,steplib/xgbmodel.py,xgboost_model_eval.py" {
		t.Errorf("XGBoostModelEval bundle %v (xgbmodel imports tables)", b.Files)
	}
	for src, want := range map[string]string{
		"from steplib import (splits,\n    frames as fr)\n":                                   "frames,splits",
		"import steplib.metrics\nfrom steplib.tables import read_tables\n":                    "metrics,tables",
		"x = 1  # steplib is not imported\n":                                                  "",
		"try:\n    from steplib import splits  # the splits\nexcept ImportError:\n    pass\n": "splits",
		"from steplib import metrics, \\\n    tables\n":                                       "metrics,tables",
		"from steplib import(frames)\nimport os, steplib.splits as sp\n":                      "frames,splits",
		"from steplibx import y\nimport steplibx\nfrom other import steplib\n":                "",
		"s = 'from steplib'\n": "",
	} {
		mods, whole := libImports([]byte(src))
		sort.Strings(mods)
		if strings.Join(mods, ",") != want || whole {
			t.Errorf("libImports(%q) = %v, %v; want %s", src, mods, whole, want)
		}
	}
	for _, src := range []string{"import steplib\n", "import steplib as sl\n", "from steplib import *\n", "import os, steplib\n"} {
		if _, whole := libImports([]byte(src)); !whole {
			t.Errorf("%q does not take the whole package", src)
		}
	}
	gen, _ := cat.Step("DummyDataGeneration")
	c, ok := gen.Script()
	if !ok {
		t.Fatal("DummyDataGeneration ships no script")
	}
	if b := Bundle(c); !reflect.DeepEqual(b, c) {
		t.Errorf("a script without steplib was bundled: %+v", b)
	}
	c, ok = tp.InferenceCode("pytorch")
	if !ok || !c.Dir {
		t.Fatalf("no embedded pytorch serving code: %+v %v", c, ok)
	}
	if !reflect.DeepEqual(Bundle(c), c) {
		t.Error("a directory changed")
	}
}

// TestEveryScriptStepShipsItsCode: every step whose job runs a script of
// ours has it embedded: a Processing, Training or Tuning step its entry
// point, a CreateModel step the serving code of its framework, and a
// config-sourced code directory (Package's inference_scripts_dir) the
// serving code of every framework a model may be.
func TestEveryScriptStepShipsItsCode(t *testing.T) {
	cat := mustDefault(t)
	var missing []string
	for _, st := range cat.Steps() {
		switch st.Verb {
		case VerbProcessing, VerbTraining, VerbTuning:
			if c, ok := st.Script(); !ok || !c.Embedded() {
				missing = append(missing, string(st.Type)+": "+st.Contract.EntryPoint)
			}
		case VerbCreateModel:
			if c, ok := st.InferenceCode(""); !ok || !c.Embedded() {
				missing = append(missing, string(st.Type)+": "+InferenceCodePath(st.Framework))
			}
		}
		for i := range st.Inputs {
			in := &st.Inputs[i]
			f, ok := st.Field(in.ConfigSource)
			if !ok || f.Type != FieldString || in.Type != DepCustomProperty {
				continue
			}
			def, _ := f.Default.(string)
			if def == "" {
				continue
			}
			for _, fw := range []string{"xgboost", "pytorch", "lightgbm"} {
				if c, ok := st.LookupConfigCode(def, fw, true); !ok || !c.Has(InferenceEntryPoint) {
					missing = append(missing, string(st.Type)+"."+in.ConfigSource+": "+def+"/"+fw)
				}
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("no embedded code for:\n  %s", strings.Join(missing, "\n  "))
	}
}

// Every requirements file a step installs is embedded, lists requirements, and is packed as
// requirements.txt at the top of its script's code, beside the script and its helpers; code that
// has its own requirements.txt keeps it.
func TestWithRequirements(t *testing.T) {
	cat := mustDefault(t)
	n := 0
	for _, st := range cat.Steps() {
		f := st.Contract.RequirementsFile
		if f == "" {
			continue
		}
		n++
		req, ok := EmbeddedCode(f)
		if !ok || req.Dir {
			t.Errorf("%s: contract.requirements_file %s is not embedded", st.Type, f)
			continue
		}
		want, _ := req.ReadFile(req.Files[0])
		if !bytes.Contains(want, []byte("lightgbm")) {
			t.Errorf("%s: %s lists no lightgbm:\n%s", st.Type, f, want)
		}
		code, ok := st.Script()
		if !ok {
			code, ok = st.InferenceCode("")
		}
		if !ok {
			t.Errorf("%s: no code", st.Type)
			continue
		}
		got, ok := WithRequirements(Bundle(code), f)
		if !ok || !got.Dir || !got.Has(RequirementsTxt) || got.Requirements != f || got.Path != code.Path {
			t.Errorf("%s: WithRequirements = %+v, %v", st.Type, got, ok)
			continue
		}
		for _, rel := range Bundle(code).Files {
			if !got.Has(rel) {
				t.Errorf("%s: %s lost from the code", st.Type, rel)
			}
		}
		if b, err := got.ReadFile(RequirementsTxt); err != nil || !bytes.Equal(b, want) {
			t.Errorf("%s: requirements.txt = %q, %v", st.Type, b, err)
		}
		if !strings.Contains(got.Source(), f) {
			t.Errorf("%s: source %s does not name %s (the compiler keys uploads by it)", st.Type, got.Source(), f)
		}
	}
	if n < 7 {
		t.Errorf("%d steps install a requirements file; the seven LightGBM steps should", n)
	}
	own := StepCode{Path: "inference/x", Dir: true, Origin: CodeEmbedded, Files: []string{"inference.py", RequirementsTxt}}
	if got, ok := WithRequirements(own, "requirements/lightgbm.txt"); !ok || got.Requirements != "" {
		t.Errorf("code with its own requirements.txt was given another: %+v", got)
	}
	if _, ok := WithRequirements(own, "requirements/none.txt"); ok {
		t.Error("a requirements file that does not exist was accepted")
	}
}
