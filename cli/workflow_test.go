package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/cli"
)

func runWF(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(append([]string{"cursus", "workflow"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func jsonOut(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, s)
	}
	return m
}

func TestWorkflowListAndDescribe(t *testing.T) {
	code, out, errOut := runWF(t, "list")
	if code != 0 || errOut != "" {
		t.Fatalf("list: %d %q", code, errOut)
	}
	for _, w := range []string{"new-project", "configure-pipeline", "author-step", "init-project"} {
		if !strings.Contains(out, w) {
			t.Errorf("list lacks %s:\n%s", w, out)
		}
	}
	code, out, _ = runWF(t, "list", "--format", "json")
	if code != 0 || jsonOut(t, out)["count"].(float64) != 4 {
		t.Fatalf("list json: %d %s", code, out)
	}
	code, out, _ = runWF(t, "describe", "new-project")
	d := jsonOut(t, out)
	if code != 0 || d["name"] != "new-project" || len(d["phases"].([]any)) == 0 {
		t.Fatalf("describe: %d %v", code, d)
	}
	for _, c := range [][]string{{"describe"}, {"describe", "nope"}, {"run"}, {"run", "nope"}, {"run", "init-project", "--args", "[1]"},
		{"run", "init-project", "--args", `{"name": "x"}`, "extra"}, {"run", "init-project", "--resume", "r", "--args", "{}"}, {"list", "x"}} {
		if code, _, errOut := runWF(t, c...); code != 2 || errOut == "" {
			t.Errorf("%v: want usage error (2) with a message, got %d %q", c, code, errOut)
		}
	}
}

// TestWorkflowRunExitStatuses runs the CLI in a temporary project root:
// new-project ends done (0), author-step stops for judgment (3) and passes
// once resumed after the script is written, a bad config value fails a gate (1).
func TestWorkflowRunExitStatuses(t *testing.T) {
	root := t.TempDir()
	t.Setenv("CURSUS_MCP_PROJECT_ROOT", root)
	wd, _ := os.Getwd()
	if err := os.Chdir(root); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)

	// With placeholder values the run ends incomplete (exit 0: every phase
	// passed), and the terminal says which fields block it.
	code, out, errOut := runWF(t, "run", "new-project", "--args", `{"name": "demo", "framework": "xgboost"}`)
	res := jsonOut(t, out)
	if code != 0 || res["status"] != "incomplete" {
		t.Fatalf("new-project: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "[1/15] init-project/scaffold") || !strings.Contains(errOut, "[15/15] ready passed") ||
		!strings.Contains(errOut, ": incomplete: not ready to deploy") || !strings.Contains(errOut, "shared.author: author is a placeholder") {
		t.Fatalf("progress on stderr:\n%s", errOut)
	}
	def := filepath.Join(root, res["outputs"].(map[string]any)["definition_file"].(string))
	if b, err := os.ReadFile(def); err != nil || !bytes.Contains(b, []byte(`"Steps"`)) {
		t.Fatalf("definition %s: %v", def, err)
	}

	code, out, errOut = runWF(t, "run", "author-step", "--quiet", "--args",
		`{"producer": "TabularPreprocessing_training", "consumer": "XGBoostTraining", "step_name": "OutlierClipping"}`)
	res = jsonOut(t, out)
	if code != cli.ExitStopped || res["stopped_at"] != "script-logic" || errOut != "" {
		t.Fatalf("author-step: exit %d, stopped_at %v, stderr %q", code, res["stopped_at"], errOut)
	}
	runID := res["run_id"].(string)
	// The step's logic, written where the stop said.
	script := filepath.Join(root, "scripts", "outlier_clipping.py")
	if _, err := os.Stat(script); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte(passThroughScript), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runWF(t, "run", "author-step", "--resume", runID)
	if code != 0 || jsonOut(t, out)["status"] != "done" || !strings.Contains(errOut, "resolve verified") {
		t.Fatalf("resume: exit %d\n%s\n%s", code, out, errOut)
	}
	// Resuming a run as another workflow is refused.
	if code, _, _ := runWF(t, "run", "new-project", "--resume", runID); code != 2 {
		t.Fatalf("resume under the wrong name: exit %d", code)
	}

	code, out, _ = runWF(t, "run", "configure-pipeline", "--compact", "--args", `{"project_dir": "projects/demo_xgboost", "placeholders": true,
		"values": {"base": {"region": "XX"}}}`)
	res = jsonOut(t, out)
	if code != 1 || res["status"] != "failed" || res["failed_at"] != "preflight" || strings.Count(out, "\n") != 1 {
		t.Fatalf("bad value: exit %d %v %v", code, res["status"], res["failed_at"])
	}
	if env, _ := res["envelope"].(map[string]any); env["code"] != "config_invalid" {
		t.Fatalf("envelope %v", res["envelope"])
	}
}

const passThroughScript = `#!/usr/bin/env python3
"""OutlierClipping: drop rows whose numeric values are not finite."""
import argparse
import csv
import math
import os

INPUT_DATA = "/opt/ml/processing/input/data"
OUTPUT = "/opt/ml/processing/output"


def finite(row):
    for k, v in row.items():
        try:
            if not math.isfinite(float(v)):
                return False
        except ValueError:
            pass
    return True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_type", default="")
    parser.parse_args()
    for root, _dirs, files in os.walk(INPUT_DATA):
        for name in files:
            src = os.path.join(root, name)
            dst = os.path.join(OUTPUT, os.path.relpath(src, INPUT_DATA))
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(src, newline="") as f, open(dst, "w", newline="") as g:
                rows = list(csv.DictReader(f))
                if rows:
                    w = csv.DictWriter(g, fieldnames=list(rows[0]))
                    w.writeheader()
                    w.writerows(r for r in rows if finite(r))


if __name__ == "__main__":
    main()
`
