package validation

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/dag"
)

// producerStep writes a CSV; DemoScoring (customStep) consumes it.
const producerStep = `step: DemoProducer
verb: Processing
kind: source
description: Produce rows for the tests of engine/validation.
framework: generic
compute:
  kind: sklearn
contract:
  entry_point: demo_producer.py
  env:
    - {name: ROWS, field: rows, description: "Rows to write."}
outputs:
  - name: processed_data
    type: processing_output
    path: /opt/ml/processing/output/data
    aliases: [input_data]
    description: Rows.
fields:
  - {name: processing_entry_point, default: demo_producer.py}
  - {name: rows, type: int, tier: system, default: 3, description: "Rows."}
`

const producerScript = `import os
OUT = "/opt/ml/processing/output/data"
n = int(os.environ.get("ROWS", "1"))
os.makedirs(OUT, exist_ok=True)
with open(os.path.join(OUT, "rows.csv"), "w") as f:
    f.write("id,label\n" + "".join("%d,%d\n" % (i, i % 2) for i in range(n)))
`

const scoringScript = `import argparse, os, sys
IN = "/opt/ml/processing/input/data"
OUT = "/opt/ml/processing/output/scores"
p = argparse.ArgumentParser(); p.add_argument("--job_type", required=True); a = p.parse_args()
label = os.environ.get("LABEL_FIELD", "label")
rows = open(os.path.join(IN, "rows.csv")).read().splitlines()
if os.environ.get("FAIL_ME"):
    sys.exit("asked to fail")
os.makedirs(OUT, exist_ok=True)
open(os.path.join(OUT, "scores.csv"), "w").write("\n".join(rows) + "\n" + a.job_type + "\n" + label + "\n")
`

type runFixture struct {
	cat     *catalog.Catalog
	dag     *dag.PipelineDAG
	configs *config.Set
	scripts string
}

func newRunFixture(t *testing.T, scoring string) runFixture {
	t.Helper()
	return newRunFixtureWith(t, scoring, customStep)
}

// newRunFixtureWith is newRunFixture with the scoring step's own step file.
func newRunFixtureWith(t *testing.T, scoring, scoringStep string) runFixture {
	t.Helper()
	ws := workspace(t, map[string]string{"DemoScoring.step.yaml": scoringStep, "DemoProducer.step.yaml": producerStep})
	cat, err := catalog.Load(nil, ws)
	if err != nil {
		t.Fatal(err)
	}
	scripts := t.TempDir()
	writeFile(t, filepath.Join(scripts, "demo_producer.py"), producerScript)
	writeFile(t, filepath.Join(scripts, "demo_scoring.py"), scoring)
	schema, err := config.FromCatalog(cat)
	if err != nil {
		t.Fatal(err)
	}
	nodes := []catalog.NodeName{"DemoProducer", "DemoScoring_training"}
	base := map[string]any{"author": "a", "bucket": "bucket-a", "role": PlaceholderRole, "region": "NA", "service_name": "svc",
		"pipeline_version": "1.0.0", "project_root_folder": "p"}
	set, err := schema.Build(config.BuildInput{Nodes: nodes, Base: base, Steps: map[catalog.NodeName]map[string]any{"DemoProducer": {"rows": 5}}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := dag.FromPairs([]catalog.NodeName{"DemoProducer", "DemoScoring_training"}, [][]catalog.NodeName{{"DemoProducer", "DemoScoring_training"}})
	if err != nil {
		t.Fatal(err)
	}
	return runFixture{cat: cat, dag: d, configs: set, scripts: scripts}
}

func TestRunScriptsFeedsOutputsToInputs(t *testing.T) {
	needPython(t)
	for _, useDeps := range []bool{true, false} {
		f := newRunFixture(t, scoringScript)
		rep, err := RunScripts(context.Background(), RunOptions{Catalog: f.cat, DAG: f.dag, Configs: f.configs, Workspace: t.TempDir(),
			UseDependencyResolution: useDeps, ScriptDirs: []string{f.scripts}})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.PipelineSuccess || rep.TotalScripts != 2 || rep.SuccessfulScripts != 2 {
			for n, r := range rep.ScriptResults {
				t.Logf("%s: %+v", n, r)
			}
			t.Fatalf("deps %v: success %v %d/%d", useDeps, rep.PipelineSuccess, rep.SuccessfulScripts, rep.TotalScripts)
		}
		r := rep.ScriptResults["DemoScoring_training"]
		if len(r.OutputFiles) != 1 || r.OutputFiles[0] != "scores/scores.csv" || r.Inputs["input_data"] != "DemoProducer.processed_data" {
			t.Fatalf("scoring result: %+v", r)
		}
		out, err := os.ReadFile(filepath.Join(r.Outputs["scores"], "scores.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); len(lines) != 8 || lines[6] != "training" || lines[7] != "label" {
			t.Errorf("scores.csv = %q (5 rows + header from ROWS=5, then --job_type and LABEL_FIELD)", out)
		}
		if len(rep.MessagePassingHistory) != 1 || r.ExecutionTime <= 0 || r.Args[0] != "--job_type" {
			t.Errorf("history %+v, time %v, args %v", rep.MessagePassingHistory, r.ExecutionTime, r.Args)
		}
	}
}

func TestRunScriptsFailureSkipsDependants(t *testing.T) {
	needPython(t)
	f := newRunFixture(t, scoringScript)
	writeFile(t, filepath.Join(f.scripts, "demo_producer.py"), "raise RuntimeError('producer broke')\n")
	rep, err := RunScripts(context.Background(), RunOptions{Catalog: f.cat, DAG: f.dag, Configs: f.configs, Workspace: t.TempDir(),
		UseDependencyResolution: true, ScriptDirs: []string{f.scripts}})
	if err != nil {
		t.Fatal(err)
	}
	p, s := rep.ScriptResults["DemoProducer"], rep.ScriptResults["DemoScoring_training"]
	if rep.PipelineSuccess || p.Status != RunFailed || !strings.Contains(p.ErrorMessage, "producer broke") || p.ExitCode != 1 {
		t.Fatalf("producer: %+v", p)
	}
	if s.Status != RunSkipped || !strings.Contains(s.ErrorMessage, "DemoProducer") {
		t.Fatalf("dependant: %+v", s)
	}
	// A missing script fails its node.
	os.Remove(filepath.Join(f.scripts, "demo_producer.py"))
	rep, err = RunScripts(context.Background(), RunOptions{Catalog: f.cat, DAG: f.dag, Configs: f.configs, Workspace: t.TempDir(), ScriptDirs: []string{f.scripts}})
	if err != nil || rep.ScriptResults["DemoProducer"].Status != RunFailed || !strings.Contains(rep.ScriptResults["DemoProducer"].ErrorMessage, "not found") {
		t.Fatalf("missing script: %+v %v", rep.ScriptResults["DemoProducer"], err)
	}
}

func TestRunScriptsCancelAndTimeout(t *testing.T) {
	needPython(t)
	f := newRunFixture(t, scoringScript)
	// The script never ends by itself: RunScripts returning shows the
	// cancellation, and then the timeout, stopped it.
	writeFile(t, filepath.Join(f.scripts, "demo_producer.py"), "import time\nwhile True:\n    time.sleep(1)\n")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err := RunScripts(ctx, RunOptions{Catalog: f.cat, DAG: f.dag, Configs: f.configs, Workspace: t.TempDir(), ScriptDirs: []string{f.scripts}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled run: %v", err)
	}
	rep, err := RunScripts(context.Background(), RunOptions{Catalog: f.cat, DAG: f.dag, Configs: f.configs, Workspace: t.TempDir(),
		ScriptDirs: []string{f.scripts}, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.ScriptResults["DemoProducer"]; r.Status != RunFailed || !strings.Contains(r.ErrorMessage, "timed out") {
		t.Fatalf("timeout: %+v", r)
	}
}

func TestRunScriptsEnvironmentIsMinimal(t *testing.T) {
	needPython(t)
	t.Setenv("CURSUS_TEST_SECRET", "do-not-leak")
	f := newRunFixture(t, scoringScript)
	writeFile(t, filepath.Join(f.scripts, "demo_producer.py"), `import os, sys
OUT = "/opt/ml/processing/output/data"
if "CURSUS_TEST_SECRET" in os.environ: sys.exit("leaked")
assert os.getcwd() == "/opt/ml/processing" or os.environ.get("CURSUS_REWRITE"), os.getcwd()
os.makedirs(OUT, exist_ok=True)
open(os.path.join(OUT, "rows.csv"), "w").write("id,label\n1,0\n")
print(os.environ.get("ROWS"))
`)
	rep, err := RunScripts(context.Background(), RunOptions{Catalog: f.cat, DAG: f.dag, Configs: f.configs, Workspace: t.TempDir(), ScriptDirs: []string{f.scripts}})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.ScriptResults["DemoProducer"]; !r.Success || r.Stdout != "5" {
		t.Fatalf("producer: %+v", r)
	}
	if rep.Sandbox == "" {
		t.Error("the report names the sandbox")
	}
}
