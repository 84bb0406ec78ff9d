package localrun

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler"
)

// fanOut is a pipeline of two independent steps (Slow sleeps, Fast does
// not) and a third that reads both.
func fanOut(t *testing.T) *pipeline {
	p := newPipeline(t)
	p.params = []compiler.Parameter{prefixParam()}
	p.script("s3://bucket/code/slow.py", "slow.py", "import time\ntime.sleep(1.5)\nopen('/opt/ml/processing/output/o/x', 'w').write('slow')\n")
	p.script("s3://bucket/code/fast.py", "fast.py", "open('/opt/ml/processing/output/o/x', 'w').write('fast')\n")
	p.script("s3://bucket/code/join.py", "join.py", "print(open('/opt/ml/processing/input/a/x').read(), open('/opt/ml/processing/input/b/x').read())\n")
	p.step(processing("Slow", "slow.py", nil, []string{"o"}, nil, nil))
	p.step(processing("Fast", "fast.py", nil, []string{"o"}, nil, nil))
	p.step(processing("Join", "join.py", [][3]string{{"a", outGet("Slow", "o"), "/opt/ml/processing/input/a"}, {"b", outGet("Fast", "o"), "/opt/ml/processing/input/b"}}, nil, nil, nil))
	return p
}

// recorder keeps the progress events of a run.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) record(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e.Step+" "+e.Status)
}

// Independent steps run at the same time: both start before either ends;
// the step that reads both starts after both ended; the report keeps the
// definition's order although Fast ended first.
func TestIndependentStepsRunTogether(t *testing.T) {
	needPython(t)
	p := fanOut(t)
	var rec recorder
	rep := p.run(Options{Progress: rec.record, tune: tuning{maxParallel: 2}})
	if !rep.Succeeded {
		t.Fatalf("run failed: %+v", rep.Failed)
	}
	if len(rec.events) != 6 || rec.events[0] != "Slow running" || rec.events[1] != "Fast running" ||
		rec.events[4] != "Join running" || rec.events[5] != "Join succeeded" {
		t.Fatalf("events %v: Slow and Fast start together, Join after both", rec.events)
	}
	if got := strings.Join(stepList(rep), ","); got != "Slow,Fast,Join" {
		t.Fatalf("report order %s, want the definition's", got)
	}
	if !strings.Contains(wantStatus(t, rep, "Join", StatusSucceeded).LogTail, "slow fast") {
		t.Fatalf("Join read %q", stepOf(t, rep, "Join").LogTail)
	}
	// the jobs overlapped: the run's busy time is less than their sum
	if rep.OverheadSeconds < 0 || rep.DurationSeconds-rep.OverheadSeconds > rep.JobSeconds-0.05 {
		t.Errorf("times: run %.2fs, jobs %.2fs, overhead %.2fs", rep.DurationSeconds, rep.JobSeconds, rep.OverheadSeconds)
	}
}

// The pipeline's ParallelismConfiguration bounds the steps at once: with
// MaxParallelExecutionSteps 1 they run one after the other.
func TestParallelismConfigurationBoundsTheRun(t *testing.T) {
	needPython(t)
	p := fanOut(t)
	res := p.result()
	res.Parallelism = &compiler.ParallelismConfiguration{MaxParallelExecutionSteps: 1}
	var rec recorder
	rep, err := Run(context.Background(), res, Options{WorkDir: filepath.Join(p.dir, "work"), Progress: rec.record})
	if err != nil || !rep.Succeeded {
		t.Fatalf("run: %v %+v", err, rep)
	}
	want := []string{"Slow running", "Slow succeeded", "Fast running", "Fast succeeded", "Join running", "Join succeeded"}
	if strings.Join(rec.events, "; ") != strings.Join(want, "; ") {
		t.Fatalf("events %v, want %v", rec.events, want)
	}
}

// A failed step skips what depends on it while its independent sibling
// still runs to its end.
func TestFailureBesideARunningStep(t *testing.T) {
	needPython(t)
	p := fanOut(t)
	p.script("s3://bucket/code/fast.py", "fast.py", "raise SystemExit('fast broke')\n")
	p.manifest = p.manifest[:len(p.manifest)-1]
	var rec recorder
	rep := p.run(Options{Progress: rec.record, tune: tuning{maxParallel: 2}})
	wantStatus(t, rep, "Slow", StatusSucceeded)
	wantStatus(t, rep, "Fast", StatusFailed)
	wantStatus(t, rep, "Join", StatusSkipped)
	if rep.Failed == nil || rep.Failed.Step != "Fast" || rep.Succeeded {
		t.Fatalf("failed: %+v", rep.Failed)
	}
}

// A cancelled run stops its running jobs, writes its report and says
// which steps were running.
func TestCancelledRunKeepsItsReport(t *testing.T) {
	needPython(t)
	p := fanOut(t)
	p.script("s3://bucket/code/slow.py", "slow.py", "import time\nwhile True:\n    time.sleep(1)\n")
	p.manifest = p.manifest[:len(p.manifest)-1]
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var rec recorder
	var mu sync.Mutex
	fastDone, slowRunning := false, false
	progress := func(e Event) {
		rec.record(e)
		mu.Lock()
		defer mu.Unlock()
		fastDone = fastDone || (e.Step == "Fast" && e.Status == StatusSucceeded)
		slowRunning = slowRunning || (e.Step == "Slow" && e.Status == StatusRunning)
		if fastDone && slowRunning {
			cancel() // Fast is done and Slow, which never ends, runs
		}
	}
	rep, err := Run(ctx, p.result(), Options{WorkDir: filepath.Join(p.dir, "work"), Progress: progress, tune: tuning{maxParallel: 2}})
	var ce *CancelledError
	if !errors.As(err, &ce) || !errors.Is(err, context.Canceled) || rep == nil {
		t.Fatalf("want a *CancelledError and the report, got %v, %v", err, rep)
	}
	if strings.Join(ce.Running, ",") != "Slow" || rep.Cancelled == nil || strings.Join(rep.Cancelled.Running, ",") != "Slow" {
		t.Fatalf("running: %v / %+v", ce.Running, rep.Cancelled)
	}
	if !strings.Contains(err.Error(), "running: Slow") || !strings.Contains(err.Error(), filepath.Join(rep.RunDir, "report.json")) {
		t.Fatalf("error: %v", err)
	}
	wantStatus(t, rep, "Slow", StatusCancelled)
	wantStatus(t, rep, "Fast", StatusSucceeded)
	wantStatus(t, rep, "Join", StatusCancelled)
	var written Report
	b, err := os.ReadFile(filepath.Join(rep.RunDir, "report.json"))
	if err != nil || json.Unmarshal(b, &written) != nil || written.Cancelled == nil || len(written.Steps) != 3 {
		t.Fatalf("report.json: %v %s", err, b)
	}
}

// The job environment for speed: OpenMP's threads wait passively, the
// standard library's distutils, a matplotlib cache that a later job of the
// run finds; a variable the job sets itself is kept.
func TestSpeedEnvironment(t *testing.T) {
	python := needPython(t)
	needSandbox(t, Bubblewrap)
	p := newPipeline(t)
	p.params = []compiler.Parameter{prefixParam()}
	p.script("s3://bucket/code/env.py", "env.py", `
import json, os, sys
cache = os.path.join(os.environ["HOME"], ".cache", "matplotlib")
os.makedirs(cache, exist_ok=True)
seen = {k: os.environ.get(k) for k in ("OMP_WAIT_POLICY", "SETUPTOOLS_USE_DISTUTILS", "MPLCONFIGDIR", "OMP_NUM_THREADS")}
seen["cached"] = sorted(os.listdir(cache))
open(os.path.join(cache, sys.argv[1]), "w").write("x")
print(json.dumps(seen))
`)
	p.step(processing("First", "env.py", nil, nil, []string{"first"}, nil))
	p.step(processing("Second", "env.py", nil, nil, []string{"second"}, map[string]string{"OMP_WAIT_POLICY": "ACTIVE"}, "First"))
	rep := p.run(Options{Sandbox: Bubblewrap})
	seen := func(step string) map[string]any {
		var m map[string]any
		tail := wantStatus(t, rep, step, StatusSucceeded).LogTail
		if err := json.Unmarshal([]byte(strings.TrimSpace(tail)), &m); err != nil {
			t.Fatalf("%s printed %q", step, tail)
		}
		return m
	}
	first, second := seen("First"), seen("Second")
	distutils := any(nil)
	if m := pythonMinor(pythonVersion(python)); m > 0 && m < 12 {
		distutils = "stdlib"
	}
	if first["OMP_WAIT_POLICY"] != "PASSIVE" || first["SETUPTOOLS_USE_DISTUTILS"] != distutils || first["MPLCONFIGDIR"] != nil {
		t.Errorf("first job's environment: %v", first)
	}
	if n, own := jobCPUs(); (n < own) != (first["OMP_NUM_THREADS"] != nil) {
		t.Errorf("OMP_NUM_THREADS %v with %d of %d CPUs", first["OMP_NUM_THREADS"], n, own)
	}
	if second["OMP_WAIT_POLICY"] != "ACTIVE" {
		t.Errorf("the job's own OMP_WAIT_POLICY is kept: %v", second)
	}
	if c, _ := second["cached"].([]any); len(c) != 1 || c[0] != "first" {
		t.Errorf("the second job finds the first's matplotlib cache: %v", second["cached"])
	}
	if _, err := os.Stat(filepath.Join(rep.RunDir, ".cursus", "matplotlib", "second")); err != nil {
		t.Errorf("the cache lives in the run folder: %v", err)
	}
}

func TestPythonMinor(t *testing.T) {
	for v, want := range map[string]int{"3.11.2": 11, "3.12.0": 12, "3.9": 9, "2.7.18": 0, "": 0, "3.x": 0} {
		if got := pythonMinor(v); got != want {
			t.Errorf("pythonMinor(%q) = %d, want %d", v, got, want)
		}
	}
}

// The plots a step draws into its outputs are listed in the report:
// regular image files, by output and path; a link the job made is not.
func TestReportListsPlots(t *testing.T) {
	needPython(t)
	p := newPipeline(t)
	p.params = []compiler.Parameter{prefixParam()}
	p.script("s3://bucket/code/draw.py", "draw.py", `
import os
o = "/opt/ml/processing/output/metrics"
os.makedirs(o + "/plots", exist_ok=True)
for name in ("roc_curve.png", "plots/reliability.JPG", "metrics.json"):
    open(os.path.join(o, name), "w").write("x")
os.symlink("/etc/hostname", o + "/linked.png")
`)
	p.step(processing("Eval", "draw.py", nil, []string{"metrics"}, nil, nil))
	rep := p.run(Options{})
	s := wantStatus(t, rep, "Eval", StatusSucceeded)
	dir := s.Outputs["metrics"]
	want := []Plot{
		{Step: "Eval", Output: "metrics", Name: "plots/reliability.JPG", Path: filepath.Join(dir, "plots", "reliability.JPG")},
		{Step: "Eval", Output: "metrics", Name: "roc_curve.png", Path: filepath.Join(dir, "roc_curve.png")},
	}
	got, _ := json.Marshal(rep.Plots)
	wantJSON, _ := json.Marshal(want)
	if string(got) != string(wantJSON) {
		t.Fatalf("plots %s, want %s", got, wantJSON)
	}
}
