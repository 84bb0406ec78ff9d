package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/localrun"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/testenv"
	"github.com/cursus-go/cursus/registry"
)

// knownBroken lists example steps that fail today for a reason outside the
// runner, with the text their error carries. Every other step of every
// example must succeed (or be substituted); a listed step that runs is
// reported so that its entry is dropped.
var knownBroken = map[string]map[string]string{}

// TestRunLocalExamples runs every example (a folder with dag.json and
// config.json) locally with its local-data.json, as a user would: one
// execution.run_local call each.
func TestRunLocalExamples(t *testing.T) {
	testenv.Need(t, localrun.Ready("pandas", "sklearn", "xgboost", "torch"))
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "examples", "*", "dag.json"))
	if len(dirs) < 3 {
		t.Fatalf("want the examples, found %v", dirs)
	}
	ctx := registry.WithPolicy(context.Background(), registry.Policy{AllowDestructive: true, AllowScriptExec: true, ProjectRoot: root})
	work, err := os.MkdirTemp(filepath.Join(root, "testdata"), "run-local-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	for _, dagFile := range dirs {
		ex := filepath.Dir(dagFile)
		name := filepath.Base(ex)
		t.Run(name, func(t *testing.T) {
			rel := func(p string) string { r, _ := filepath.Rel(root, p); return r }
			args := map[string]any{"dag_file": rel(dagFile), "config_file": rel(filepath.Join(ex, "config.json")), "work_dir": rel(filepath.Join(work, name))}
			if b, err := os.ReadFile(filepath.Join(ex, "local-data.json")); err == nil {
				var data map[string]string
				if err := json.Unmarshal(b, &data); err != nil {
					t.Fatalf("local-data.json: %v", err)
				}
				args["data"] = data
			}
			env := callTool(t, ctx, "execution.run_local", args)
			var rep localrun.Report
			switch env["ok"] {
			case true:
				remarshalT(t, env["data"], &rep)
			default:
				if env["code"] != string(envelope.CodeRunFailed) {
					t.Fatalf("run_local: %v", env)
				}
				remarshalT(t, details(env)["report"], &rep)
			}
			checkRunAnswer(t, env, rep)
			if len(rep.Steps) < 2 || rep.Sandbox != localrun.Bubblewrap {
				t.Fatalf("report: %d steps in %s", len(rep.Steps), rep.Sandbox)
			}
			byType := map[catalog.StepType][]localrun.StepResult{}
			for _, s := range rep.Steps {
				byType[s.StepType] = append(byType[s.StepType], s)
				want, broken := knownBroken[name][s.Name]
				switch {
				case broken && s.Status == localrun.StatusFailed && strings.Contains(s.Error, want):
					t.Logf("%s fails as known: %s", s.Name, s.Error)
				case broken && s.Status == localrun.StatusSucceeded:
					t.Logf("%s runs now: drop it from knownBroken", s.Name)
				case s.Status == localrun.StatusSkipped && rep.Failed != nil && knownBroken[name][rep.Failed.Step] != "":
				case s.Status != localrun.StatusSucceeded && s.Status != localrun.StatusSubstituted:
					t.Errorf("%s (%s) %s: %s\n%s", s.Name, s.Type, s.Status, s.Error, s.LogTail)
				}
				for o, p := range s.Outputs {
					if _, err := os.Stat(p); err != nil || !filepath.IsAbs(p) {
						t.Errorf("%s output %s: %s is not an existing absolute path", s.Name, o, p)
					}
				}
			}
			for _, s := range rep.Steps {
				if s.Status != localrun.StatusSucceeded {
					continue
				}
				switch {
				case s.Type == "Training":
					if !strings.HasSuffix(s.Outputs["model_artifacts"], "/output/model.tar.gz") {
						t.Errorf("%s: no model.tar.gz among %v", s.Name, s.Outputs)
					}
				case strings.HasSuffix(string(s.StepType), "ModelEval"):
					if !anyFile(s.Outputs, "metric") {
						t.Errorf("%s writes no metrics: %v", s.Name, s.Outputs)
					}
					if name == "pytorch-multiclass" { // three learnable classes: a real model, not a guess
						var m map[string]any
						b, err := os.ReadFile(filepath.Join(s.Outputs["metrics_output"], "metrics.json"))
						if err != nil || json.Unmarshal(b, &m) != nil {
							t.Fatalf("%s: metrics.json: %v", s.Name, err)
						}
						if auc, _ := m["auc"].(float64); m["num_classes"] != float64(3) || auc < 0.8 {
							t.Errorf("%s: macro auc %v over %v classes", s.Name, m["auc"], m["num_classes"])
						}
					}
				case s.StepType == "ModelCalibration", s.StepType == "Package", s.StepType == "Payload":
					if !anyFile(s.Outputs, "") {
						t.Errorf("%s writes nothing: %v", s.Name, s.Outputs)
					}
				case s.Type == "RegisterModel", s.Type == "Model":
					if len(s.Checks) < 2 {
						t.Errorf("%s: checks %v", s.Name, s.Checks)
					}
				}
			}
			if name == "xgboost-gated" { // the shipped data passes the gate: the if-branch ran
				if len(rep.Branches) != 1 || rep.Branches[0].Branch != localrun.BranchIf || len(rep.Branches[0].NotRun) != 1 || len(byType["Registration"]) != 1 {
					t.Errorf("gate: branches %+v, registered %d", rep.Branches, len(byType["Registration"]))
				}
			}
		})
	}
}

// The gated example with a threshold no model meets: the run ends failed
// at the Fail step, with its message (the model's AUC and the threshold),
// and nothing after the gate ran.
func TestRunLocalGatedFailBranch(t *testing.T) {
	testenv.Need(t, localrun.Ready("pandas", "sklearn", "xgboost"))
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	ctx := registry.WithPolicy(context.Background(), registry.Policy{AllowDestructive: true, AllowScriptExec: true, ProjectRoot: root})
	work, err := os.MkdirTemp(filepath.Join(root, "testdata"), "run-local-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	var data map[string]string
	b, err := os.ReadFile(filepath.Join(root, "examples", "xgboost-gated", "local-data.json"))
	if err != nil || json.Unmarshal(b, &data) != nil {
		t.Fatalf("local-data.json: %v", err)
	}
	rel, _ := filepath.Rel(root, work)
	env := callTool(t, ctx, "execution.run_local", map[string]any{"dag_file": "examples/xgboost-gated/dag.json", "config_file": "examples/xgboost-gated/config.json",
		"work_dir": rel, "data": data, "parameters": map[string]string{"AucThreshold": "1.01"}})
	det := wantFail(t, env, envelope.CodeRunFailed)
	var rep localrun.Report
	remarshalT(t, det["report"], &rep)
	if rep.Failed == nil || rep.Failed.Step != "ModelQualityGate-Fail" || !rep.Failed.FailStep ||
		!strings.Contains(rep.Failed.Error, "The model's AUC 0.") || !strings.HasSuffix(rep.Failed.Error, "below the threshold 1.01: not registered") {
		t.Fatalf("failed: %+v", rep.Failed)
	}
	if !strings.Contains(env["error"].(string), "below the threshold 1.01") {
		t.Errorf("the error carries the Fail step's message: %v", env["error"])
	}
	var names []string
	for _, s := range rep.Steps {
		names = append(names, s.Name)
	}
	if len(names) != 8 || names[6] != "ModelQualityGate" || names[7] != "ModelQualityGate-Fail" {
		t.Errorf("steps %v", names)
	}
	if len(rep.Branches) != 1 || rep.Branches[0].Branch != localrun.BranchElse || len(rep.Branches[0].NotRun) != 5 {
		t.Errorf("branches %+v", rep.Branches)
	}
}

// runAnswerBudget is the most a run_local answer may take (compact JSON,
// the whole envelope), as every answer.
const runAnswerBudget = 16 << 10

// checkRunAnswer holds a run_local answer to its compact shape: within
// runAnswerBudget, no container command, no log tail but the failed
// step's (in failed), every step's whole log in its log_file, and the
// whole report (every tail) in report_file.
func checkRunAnswer(t *testing.T, env map[string]any, rep localrun.Report) {
	t.Helper()
	wire, _ := json.Marshal(env)
	if len(wire) > runAnswerBudget {
		t.Errorf("the run_local answer is %d bytes, over %d", len(wire), runAnswerBudget)
	}
	t.Logf("run_local answer: %d bytes for %d steps", len(wire), len(rep.Steps))
	for _, s := range rep.Steps {
		if len(s.Command) > 0 || (s.LogTail != "" && s.Status != localrun.StatusFailed) {
			t.Errorf("%s (%s) carries its command or log tail in the compact answer", s.Name, s.Status)
		}
		if s.LogFile != "" {
			if _, err := os.Stat(s.LogFile); err != nil {
				t.Errorf("%s: log_file %v", s.Name, err)
			}
		}
	}
	file, _ := env["data"].(map[string]any)["report_file"].(string)
	if env["ok"] != true {
		file, _ = details(env)["report_file"].(string)
	}
	var whole localrun.Report
	b, err := os.ReadFile(file)
	if err != nil || json.Unmarshal(b, &whole) != nil || len(whole.Steps) != len(rep.Steps) {
		t.Fatalf("report_file %q: %v", file, err)
	}
	tails := 0
	for _, s := range whole.Steps {
		if s.LogTail != "" {
			tails++
		}
	}
	if tails == 0 {
		t.Error("report_file holds no log tail")
	}
}

// anyFile reports whether an output directory holds a file whose path
// contains sub.
func anyFile(outputs map[string]string, sub string) bool {
	for _, p := range outputs {
		found := false
		_ = filepath.Walk(p, func(f string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() && strings.Contains(strings.ToLower(f[len(p):]), sub) {
				found = true
			}
			return nil
		})
		if found {
			return true
		}
	}
	return false
}

func remarshalT(t *testing.T, from, to any) {
	t.Helper()
	b, err := json.Marshal(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, to); err != nil {
		t.Fatal(err)
	}
}

func TestRunLocalContract(t *testing.T) {
	ctx := context.Background()
	args := func(extra map[string]any) map[string]any {
		a := map[string]any{"dag_file": "../examples/simple-training/dag.json", "config_file": "../examples/simple-training/config.json", "work_dir": t.TempDir()}
		for k, v := range extra {
			a[k] = v
		}
		return a
	}
	wantFail(t, callTool(t, ctx, "execution.run_local", args(map[string]any{"work_dir": " "})), envelope.CodeInvalidInput)
	det := wantFail(t, callTool(t, ctx, "execution.run_local", args(map[string]any{"data": map[string]string{"Nope.DATA": "."}})), envelope.CodeInvalidInput)
	if det["field"] != "data.Nope.DATA" {
		t.Errorf("the error names the data key: %v", det)
	}
	det = wantFail(t, callTool(t, ctx, "execution.run_local", args(map[string]any{"parameters": map[string]string{"NOPE": "1"}})), envelope.CodeInvalidInput)
	if det["field"] != "parameters.NOPE" {
		t.Errorf("the error names the parameter: %v", det)
	}
	wantFail(t, callTool(t, ctx, "execution.run_local", args(map[string]any{"config_file": "../examples/missing.json"})), envelope.CodeNotFound)
	// python names an interpreter, checked before the first step; a
	// program that is no python is refused by the schema
	env := callTool(t, ctx, "execution.run_local", args(map[string]any{"python": "/nonexistent/python3"}))
	wantFail(t, env, envelope.CodeUnsupported, "execution.run_local")
	if msg, _ := env["error"].(string); !strings.Contains(msg, "/nonexistent/python3") {
		t.Errorf("the error names the interpreter: %s", msg)
	}
	det = wantFail(t, callTool(t, ctx, "execution.run_local", args(map[string]any{"python": "/bin/sh"})), envelope.CodeInvalidInput)
	if !strings.Contains(fmt.Sprint(det), "python") {
		t.Errorf("a program that is no interpreter: %v", det)
	}

	// gated: executes code and writes
	root := t.TempDir()
	wantFail(t, callTool(t, registry.WithPolicy(ctx, registry.Policy{ProjectRoot: root}), "execution.run_local", args(nil)), envelope.CodeToolDisabled)
	open := registry.WithPolicy(ctx, registry.Policy{ProjectRoot: root, AllowDestructive: true, AllowScriptExec: true})
	wantFail(t, callTool(t, open, "execution.run_local", args(map[string]any{"work_dir": "../outside"})), envelope.CodeInvalidInput)

	// a run whose first step finds no data fails with run_failed, naming
	// the step and the data key, with every step's result in details
	testenv.Need(t, localrun.Ready("pandas", "xgboost"))
	det = wantFail(t, callTool(t, ctx, "execution.run_local", args(nil)), envelope.CodeRunFailed, "compile.definition")
	var rep localrun.Report
	remarshalT(t, det["report"], &rep)
	if rep.Failed == nil || rep.Failed.Step != "DummyDataLoading-Training" || !strings.Contains(rep.Failed.Error, `data {"s3://example-bucket/raw/train/": "<local path>"}`) {
		t.Fatalf("failure: %+v", rep.Failed)
	}
	if len(rep.Steps) != 3 || rep.Steps[2].Status != localrun.StatusSkipped {
		t.Fatalf("steps: %+v", rep.Steps)
	}
	if _, err := os.Stat(det["report_file"].(string)); err != nil {
		t.Errorf("report_file: %v", err)
	}
}
