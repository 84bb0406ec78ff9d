package localrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/internal/testenv"
)

// producer writes a file into its output and records what it saw of its
// container: arguments, environment, input folders, the sandbox's walls.
const producer = `
import json, os, socket, sys
out = "/opt/ml/processing/output/data"
seen = {
    "argv": sys.argv[1:],
    "greeting": os.environ.get("GREETING"),
    "secret": os.environ.get("CURSUS_TEST_SECRET"),
    "raw": sorted(os.listdir("/opt/ml/processing/input/raw")),
    "cwd": os.getcwd(),
}
try:
    socket.create_connection(("192.0.2.1", 80), timeout=2)
    seen["network"] = "reachable"
except OSError as e:
    seen["network"] = str(e)
try:
    open("/usr/cursus-test-write", "w")
    seen["root"] = "writable"
except OSError as e:
    seen["root"] = e.strerror
with open(os.path.join(out, "part-0.csv"), "w") as f:
    f.write("a,b\n1,2\n")
with open(os.path.join(out, "seen.json"), "w") as f:
    json.dump(seen, f)
print("producer done")
`

// consumer checks that the producer's output arrived at its input.
const consumer = `
import os, sys
src = "/opt/ml/processing/input/data"
rows = open(os.path.join(src, "part-0.csv")).read().splitlines()
assert rows == ["a,b", "1,2"], rows
os.makedirs("/opt/ml/processing/output/result", exist_ok=True)
open("/opt/ml/processing/output/result/count.txt", "w").write(str(len(rows) - 1))
print("consumer read", len(rows) - 1, "row(s) from", sys.argv[1:])
`

func chain(t *testing.T) (*pipeline, string) {
	p := newPipeline(t)
	p.params = []compiler.Parameter{prefixParam(), {Name: "GREETING", Type: "String", DefaultValue: "hello"}}
	p.script("s3://bucket/code/producer.py", "producer.py", producer)
	p.script("s3://bucket/code/consumer.py", "consumer.py", consumer)
	raw := filepath.Join(p.dir, "raw")
	if err := os.MkdirAll(raw, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(raw, "input.csv"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.step(processing("Produce", "producer.py", [][3]string{{"raw", `"s3://bucket/raw/"`, "/opt/ml/processing/input/raw"}}, []string{"data"},
		[]string{"--job_type", "training"}, map[string]string{"GREETING": "set"}))
	// the greeting comes from a parameter here, to see it resolved
	p.steps[0].Arguments.(map[string]any)["Environment"] = map[string]any{"GREETING": map[string]any{"Get": "Parameters.GREETING"}}
	p.step(processing("Consume", "consumer.py", [][3]string{{"data", outGet("Produce", "data"), "/opt/ml/processing/input/data"}}, []string{"result"},
		[]string{"--exec", `x`}, nil))
	p.steps[1].Arguments.(map[string]any)["AppSpecification"].(map[string]any)["ContainerArguments"] = []any{"--exec", map[string]any{"Get": "Execution.PipelineExecutionId"}}
	return p, raw
}

func TestProcessingChain(t *testing.T) {
	needPython(t)
	for _, kind := range []Sandbox{Bubblewrap, PathRewrite} {
		t.Run(string(kind), func(t *testing.T) {
			needSandbox(t, kind)
			t.Setenv("CURSUS_TEST_SECRET", "s3cr3t")
			p, raw := chain(t)
			rep := p.run(Options{Sandbox: kind, Data: map[string]string{"s3://bucket/raw/": raw}, Parameters: map[string]string{"GREETING": "bonjour"}, ExecutionID: "local-test-1"})
			if !rep.Succeeded || rep.Sandbox != kind {
				t.Fatalf("run: succeeded %v in %s, failed %+v", rep.Succeeded, rep.Sandbox, rep.Failed)
			}
			prod := wantStatus(t, rep, "Produce", StatusSucceeded)
			cons := wantStatus(t, rep, "Consume", StatusSucceeded)
			data := prod.Outputs["data"]
			if data != filepath.Join(rep.RunDir, "s3", "bucket", "run", "produce", "data") || !filepath.IsAbs(data) {
				t.Fatalf("the output lives at its S3 URI's place in the run's store: %s", data)
			}
			seen := readFile(t, filepath.Join(data, "seen.json"))
			for _, want := range []string{`"argv": ["--job_type", "training"]`, `"greeting": "bonjour"`, `"secret": null`, `"raw": ["input.csv"]`} {
				if !strings.Contains(seen, want) {
					t.Errorf("the producer saw %s; want %s", seen, want)
				}
			}
			if kind == Bubblewrap {
				if !strings.Contains(seen, `"root": "Read-only file system"`) || strings.Contains(seen, `"network": "reachable"`) || !strings.Contains(seen, `"cwd": "/opt/ml/processing"`) {
					t.Errorf("in the sandbox the root is read-only, the network is unreachable and the job runs in /opt/ml/processing: %s", seen)
				}
			}
			if got := readFile(t, filepath.Join(cons.Outputs["result"], "count.txt")); got != "1" {
				t.Errorf("consumer counted %q rows", got)
			}
			if !strings.Contains(cons.LogTail, "['--exec', 'local-test-1']") {
				t.Errorf("the execution id reaches the arguments: %q", cons.LogTail)
			}
			if cons.ExitCode == nil || *cons.ExitCode != 0 || cons.JobSeconds <= 0 || cons.LogFile == "" {
				t.Errorf("result: exit %v, job %.3fs, log %q", cons.ExitCode, cons.JobSeconds, cons.LogFile)
			}
			if rep.Parameters["GREETING"] != "bonjour" || rep.OverheadSeconds < 0 || rep.JobSeconds <= 0 {
				t.Errorf("report: parameters %v, job %.3f, overhead %.3f", rep.Parameters, rep.JobSeconds, rep.OverheadSeconds)
			}
			if _, err := os.Stat(filepath.Join(rep.RunDir, "report.json")); err != nil {
				t.Error("report.json is written:", err)
			}
		})
	}
}

// A failed step names its exit code and log; what depends on it is
// skipped; an independent step still runs.
func TestFailureStopsDependants(t *testing.T) {
	needPython(t)
	p := newPipeline(t)
	p.params = []compiler.Parameter{prefixParam()}
	p.script("s3://bucket/code/fail.py", "fail.py", "import sys\nprint('about to fail')\nsys.stderr.write('ValueError: label column is_fraud is missing\\n')\nsys.exit(3)\n")
	p.script("s3://bucket/code/ok.py", "ok.py", "import os\nopen('/opt/ml/processing/output/o/x', 'w').write('1')\n")
	p.step(processing("Broken", "fail.py", nil, []string{"o"}, nil, nil))
	p.step(processing("After", "ok.py", [][3]string{{"in", outGet("Broken", "o"), "/opt/ml/processing/input/in"}}, []string{"o"}, nil, nil))
	p.step(processing("AfterAfter", "ok.py", nil, []string{"o"}, nil, nil, "After"))
	p.step(processing("Alone", "ok.py", nil, []string{"o"}, nil, nil))
	rep := p.run(Options{})
	if rep.Succeeded || rep.Failed == nil || rep.Failed.Step != "Broken" || rep.Failed.ExitCode == nil || *rep.Failed.ExitCode != 3 {
		t.Fatalf("the report names the failed step and its exit code: %+v", rep.Failed)
	}
	if !strings.Contains(rep.Failed.Error, "exit status 3: ValueError: label column is_fraud is missing") || !strings.Contains(rep.Failed.LogTail, "about to fail") {
		t.Fatalf("the failure carries the error line and the log tail: %+v", rep.Failed)
	}
	for _, n := range []string{"After", "AfterAfter"} {
		s := wantStatus(t, rep, n, StatusSkipped)
		if !strings.Contains(s.Error, "depends on") {
			t.Errorf("%s: %s", n, s.Error)
		}
	}
	wantStatus(t, rep, "Alone", StatusSucceeded)
}

// An input that nothing wrote fails the step with the data key to add.
func TestMissingInputNamesTheDataKey(t *testing.T) {
	needPython(t)
	p := newPipeline(t)
	p.params = []compiler.Parameter{prefixParam()}
	p.script("s3://bucket/code/ok.py", "ok.py", "print(1)\n")
	p.step(processing("Load", "ok.py", [][3]string{{"raw", `"s3://bucket/raw/train/"`, "/opt/ml/processing/input/data"}}, nil, nil, nil))
	rep := p.run(Options{})
	s := wantStatus(t, rep, "Load", StatusFailed)
	if !strings.Contains(s.Error, `no objects under s3://bucket/raw/train/`) || !strings.Contains(s.Error, `data {"s3://bucket/raw/train/": "<local path>"}`) {
		t.Fatalf("error: %s", s.Error)
	}
}

// A managed data-loading step is substituted by data; without the data a
// later step reads, the error names the key.
func TestManagedDataStepIsSubstituted(t *testing.T) {
	needPython(t)
	build := func() *pipeline {
		p := newPipeline(t)
		p.params = []compiler.Parameter{prefixParam()}
		p.script("s3://bucket/code/cradle.py", "cradle.py", "raise SystemExit('a managed service job must not run locally')\n")
		p.script("s3://bucket/code/consumer.py", "consumer.py", consumer)
		p.step(processing("CradleDataLoading-Training", "cradle.py", nil, []string{"DATA", "METADATA"}, nil, nil))
		p.step(processing("Consume", "consumer.py", [][3]string{{"data", outGet("CradleDataLoading-Training", "DATA"), "/opt/ml/processing/input/data"}}, []string{"result"}, nil, nil))
		p.node("CradleDataLoading-Training", "CradleDataLoading")
		return p
	}
	local := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(local, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(local, "part-0.csv"), []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := build().run(Options{Data: map[string]string{"CradleDataLoading-Training.DATA": local}})
	s := wantStatus(t, rep, "CradleDataLoading-Training", StatusSubstituted)
	if s.Outputs["DATA"] != local || s.Outputs["METADATA"] != "" || len(s.Warnings) != 1 {
		t.Fatalf("substituted outputs %v, warnings %v", s.Outputs, s.Warnings)
	}
	wantStatus(t, rep, "Consume", StatusSucceeded)
	if !rep.Succeeded {
		t.Fatalf("a substituted step does not fail the run: %+v", rep.Failed)
	}

	// Data giving one output but not another a later step reads: the
	// error names the missing key.
	p := build()
	p.step(processing("Meta", "consumer.py", [][3]string{{"data", outGet("CradleDataLoading-Training", "METADATA"), "/opt/ml/processing/input/data"}}, nil, nil, nil))
	rep = p.run(Options{Data: map[string]string{"CradleDataLoading-Training.DATA": local}})
	s = wantStatus(t, rep, "CradleDataLoading-Training", StatusFailed)
	if !strings.Contains(s.Error, `add "CradleDataLoading-Training.METADATA" to data`) || strings.Contains(s.Error, ".DATA\"") {
		t.Fatalf("the error names the missing key of the output another step reads: %s", s.Error)
	}

	// Without data the step's own script runs; when it cannot reach the
	// service, the error says which data keys would stand in for it.
	rep = build().run(Options{})
	s = wantStatus(t, rep, "CradleDataLoading-Training", StatusFailed)
	if !strings.Contains(s.Error, "a managed service job must not run locally") ||
		!strings.Contains(s.Error, `which a local run may not reach: give its outputs in data ("CradleDataLoading-Training.DATA")`) {
		t.Fatalf("the error names the data key of the output another step reads: %s", s.Error)
	}
	wantStatus(t, rep, "Consume", StatusSkipped)

	// When no later step reads its outputs, the error names them all.
	p = newPipeline(t)
	p.params = []compiler.Parameter{prefixParam()}
	p.script("s3://bucket/code/cradle.py", "cradle.py", "raise SystemExit('a managed service job must not run locally')\n")
	p.step(processing("CradleDataLoading-Training", "cradle.py", nil, []string{"DATA", "METADATA"}, nil, nil))
	p.node("CradleDataLoading-Training", "CradleDataLoading")
	s = wantStatus(t, p.run(Options{}), "CradleDataLoading-Training", StatusFailed)
	if !strings.Contains(s.Error, `give its outputs in data ("CradleDataLoading-Training.DATA", "CradleDataLoading-Training.METADATA")`) {
		t.Fatalf("the error names every output's data key: %s", s.Error)
	}

	// A Condition reading a property file of one output reads that output.
	p = newPipeline(t)
	p.params = []compiler.Parameter{prefixParam()}
	p.script("s3://bucket/code/cradle.py", "cradle.py", "raise SystemExit('a managed service job must not run locally')\n")
	p.step(strings.TrimSuffix(processing("CradleDataLoading-Training", "cradle.py", nil, []string{"DATA", "METADATA"}, nil, nil), "}") +
		`, "PropertyFiles": [{"PropertyFileName": "Meta", "OutputName": "METADATA", "FilePath": "meta.json"}]}`)
	p.step(`{"Name": "Gate", "Type": "Condition", "Arguments": {"Conditions": [{"Type": "Equals", "RightValue": 1,
		"LeftValue": {"Std:JsonGet": {"PropertyFile": {"Get": "Steps.CradleDataLoading-Training.PropertyFiles.Meta"}, "Path": "rows"}}}], "IfSteps": [], "ElseSteps": []}}`)
	p.node("CradleDataLoading-Training", "CradleDataLoading")
	s = wantStatus(t, p.run(Options{}), "CradleDataLoading-Training", StatusFailed)
	if !strings.Contains(s.Error, `give its outputs in data ("CradleDataLoading-Training.METADATA")`) {
		t.Fatalf("the error names the data key of the output the Condition reads: %s", s.Error)
	}

	// A script that works without the service (synthetic data) runs.
	p = build()
	p.script("s3://bucket/code/cradle.py", "cradle.py", "open('/opt/ml/processing/output/DATA/part-0.csv', 'w').write('a,b\\n1,2\\n')\n")
	p.manifest = append(p.manifest[1:2], p.manifest[2])
	rep = p.run(Options{})
	wantStatus(t, rep, "CradleDataLoading-Training", StatusSucceeded)
	wantStatus(t, rep, "Consume", StatusSucceeded)
}

// Data giving every output of an ordinary step substitutes it too.
func TestDataSubstitutesAStep(t *testing.T) {
	needPython(t)
	p, _ := chain(t)
	dir := filepath.Join(t.TempDir(), "given")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "part-0.csv"), []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := p.run(Options{Data: map[string]string{"Produce.data": dir}})
	wantStatus(t, rep, "Produce", StatusSubstituted)
	wantStatus(t, rep, "Consume", StatusSucceeded)
}

func TestOptionErrors(t *testing.T) {
	p, raw := chain(t)
	for _, c := range []struct {
		opts  Options
		field string
	}{
		{Options{}, "work_dir"},
		{Options{WorkDir: t.TempDir(), Data: map[string]string{"Nope.data": raw}}, "data.Nope.data"},
		{Options{WorkDir: t.TempDir(), Data: map[string]string{"Produce.nope": raw}}, "data.Produce.nope"},
		{Options{WorkDir: t.TempDir(), Data: map[string]string{"s3://bucket/raw/": filepath.Join(raw, "absent")}}, "data.s3://bucket/raw/"},
		{Options{WorkDir: t.TempDir(), Data: map[string]string{"s3://bucket/../x": raw}}, "data.s3://bucket/../x"},
		{Options{WorkDir: t.TempDir(), Parameters: map[string]string{"NOPE": "1"}}, "parameters.NOPE"},
		{Options{WorkDir: t.TempDir(), Sandbox: "docker"}, "sandbox"},
	} {
		_, err := Run(context.Background(), p.result(), c.opts)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != c.field {
			t.Errorf("%+v: want an InputError on %s, got %v", c.opts, c.field, err)
		}
		if errkind.Of(err) != errkind.InvalidInput || errkind.DetailsOf(err)["field"] != c.field {
			t.Errorf("%+v: kind %q, details %v", c.opts, errkind.Of(err), errkind.DetailsOf(err))
		}
	}
	// a parameter with no default and no value fails the step that uses it
	needPython(t)
	p.params = []compiler.Parameter{prefixParam(), {Name: "GREETING", Type: "String"}}
	rep := p.run(Options{Data: map[string]string{"s3://bucket/raw/": raw}})
	s := wantStatus(t, rep, "Produce", StatusFailed)
	if !strings.Contains(s.Error, "Environment: GREETING: pipeline parameter GREETING has no default value and none was given: pass it in parameters") {
		t.Fatalf("error: %s", s.Error)
	}
}

func TestTimeoutFailsTheStep(t *testing.T) {
	needPython(t)
	p := newPipeline(t)
	p.params = []compiler.Parameter{prefixParam()}
	// The script never ends by itself: the run returning shows the
	// stopping condition ended it.
	p.script("s3://bucket/code/slow.py", "slow.py", "import time\nprint('sleeping', flush=True)\nwhile True:\n    time.sleep(1)\n")
	p.step(processing("Slow", "slow.py", nil, nil, nil, nil))
	p.steps[0].Arguments.(map[string]any)["StoppingCondition"] = map[string]any{"MaxRuntimeInSeconds": 1}
	rep := p.run(Options{})
	s := wantStatus(t, rep, "Slow", StatusFailed)
	if !strings.Contains(s.Error, "ran longer than 1s") || !strings.Contains(s.LogTail, "sleeping") {
		t.Fatalf("error %q, log %q", s.Error, s.LogTail)
	}
}

func TestCancelStopsTheRun(t *testing.T) {
	needPython(t)
	p := newPipeline(t)
	p.params = []compiler.Parameter{prefixParam()}
	// The script never ends by itself: the run returning shows the
	// cancellation, made once the step runs, stopped it.
	p.script("s3://bucket/code/slow.py", "slow.py", "import time\nwhile True:\n    time.sleep(1)\n")
	p.step(processing("Slow", "slow.py", nil, nil, nil, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var started atomic.Bool
	_, err := Run(ctx, p.result(), Options{WorkDir: t.TempDir(), Progress: func(e Event) {
		if e.Status == StatusRunning {
			started.Store(true)
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || !started.Load() {
		t.Fatalf("want context.Canceled after the cancel of a running step, got %v (started %v)", err, started.Load())
	}
}

func TestDefinitionErrors(t *testing.T) {
	p := newPipeline(t)
	p.params = []compiler.Parameter{prefixParam()}
	p.step(processing("A", "a.py", nil, []string{"o"}, nil, nil, "B"))
	p.step(processing("B", "a.py", [][3]string{{"in", outGet("A", "o"), "/opt/ml/processing/input/in"}}, nil, nil, nil))
	_, err := Run(context.Background(), p.result(), Options{WorkDir: t.TempDir()})
	var de *DefinitionError
	if !errors.As(err, &de) || !strings.Contains(de.Error(), "cycle: A, B") || errkind.Of(err) != errkind.InvalidInput {
		t.Fatalf("want a cycle error of kind invalid_input, got %v (%q)", err, errkind.Of(err))
	}
	p = newPipeline(t)
	p.step(processing("A", "a.py", nil, nil, nil, nil, "Ghost"))
	if _, err := Run(context.Background(), p.result(), Options{WorkDir: t.TempDir()}); !errors.As(err, &de) || !strings.Contains(err.Error(), "depends on Ghost") {
		t.Fatalf("want an unknown-dependency error, got %v", err)
	}
}

func TestUnsupportedStepType(t *testing.T) {
	needPython(t)
	p := newPipeline(t)
	p.step(`{"Name": "Tune", "Type": "Tuning", "Arguments": {}}`)
	rep := p.run(Options{})
	s := wantStatus(t, rep, "Tune", StatusFailed)
	if !strings.Contains(s.Error, "a Tuning step does not run locally") {
		t.Fatalf("error: %s", s.Error)
	}
}

// A step that calls a hosted model (Bedrock) runs with the answers data
// records for it mounted where its job replays them, and says so; without
// them it is refused before it runs, naming the data key.
func TestModelCallingStepReplaysRecordedAnswers(t *testing.T) {
	needPython(t)
	const llm = `import os
p = "/opt/ml/processing/input/model_responses"
assert os.path.isfile(p), "no recorded answers at " + p
os.makedirs("/opt/ml/processing/output/processed_data", exist_ok=True)
open("/opt/ml/processing/output/processed_data/out.jsonl", "w").write(open(p).read())
`
	build := func() *pipeline {
		p := newPipeline(t)
		p.params = []compiler.Parameter{prefixParam()}
		p.script("s3://bucket/code/llm.py", "llm.py", llm)
		p.step(processing("BedrockProcessing-Training", "llm.py", nil, []string{"processed_data"}, nil, nil))
		p.node("BedrockProcessing-Training", "BedrockProcessing")
		return p
	}
	answers := filepath.Join(t.TempDir(), "answers.jsonl")
	if err := os.WriteFile(answers, []byte(`{"id": "1", "text": "{\"category\": \"bug\"}"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := build().run(Options{Data: map[string]string{"BedrockProcessing-Training.model_responses": answers}})
	s := wantStatus(t, rep, "BedrockProcessing-Training", StatusSucceeded)
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "model calls substituted: Amazon Bedrock (Converse API) is not called") ||
		!strings.Contains(strings.Join(s.Checks, "\n"), answers) {
		t.Fatalf("the substitution is not in the step's report: warnings %v, checks %v", s.Warnings, s.Checks)
	}
	if b, err := os.ReadFile(filepath.Join(s.Outputs["processed_data"], "out.jsonl")); err != nil || !strings.Contains(string(b), "bug") {
		t.Fatalf("the job did not read the recorded answers: %v %q", err, b)
	}

	rep = build().run(Options{})
	s = wantStatus(t, rep, "BedrockProcessing-Training", StatusFailed)
	if !strings.Contains(s.Error, `give the model's answers recorded beforehand as data "BedrockProcessing-Training.model_responses"`) {
		t.Fatalf("the refusal does not name the data key: %s", s.Error)
	}

	// the key is only for model-calling steps
	p, _ := chain(t)
	_, err := Run(context.Background(), p.result(), Options{WorkDir: t.TempDir(), Data: map[string]string{"Produce.model_responses": answers}})
	var ie *InputError
	if !errors.As(err, &ie) || ie.Field != "data.Produce.model_responses" || !strings.Contains(err.Error(), "calls no hosted model") {
		t.Fatalf("model_responses for a step that calls no model: %v", err)
	}
}

// The interpreter a run is given must exist, and must import what the
// run's catalog steps import, before the first step runs.
func TestInterpreterCheckedBeforeTheFirstStep(t *testing.T) {
	py := needPython(t)
	p := newPipeline(t)
	p.params = []compiler.Parameter{prefixParam()}
	p.script("s3://bucket/code/ok.py", "ok.py", "open('/opt/ml/processing/output/o/x', 'w').write('1')\n")
	p.step(processing("Prep", "ok.py", nil, []string{"o"}, nil, nil))
	p.node("Prep", "TabularPreprocessing")
	work := filepath.Join(p.dir, "work")
	_, err := Run(context.Background(), p.result(), Options{WorkDir: work, Python: "/nonexistent/python3", ExecutionID: "nopy"})
	if !errors.Is(err, ErrNoPython) || !strings.Contains(err.Error(), "/nonexistent/python3") {
		t.Fatalf("a missing interpreter: %v", err)
	}
	if _, statErr := os.Stat(filepath.Join(work, "nopy", "steps", "Prep")); !os.IsNotExist(statErr) {
		t.Errorf("a step ran without an interpreter: %v", statErr)
	}
	// a virtual environment without the system's packages lacks pandas
	venv := filepath.Join(t.TempDir(), "venv")
	if out, err := exec.Command(py, "-m", "venv", "--without-pip", venv).CombinedOutput(); err != nil {
		testenv.Missing(t, fmt.Sprintf("python3 -m venv: %v: %s", err, out))
	}
	_, err = Run(context.Background(), p.result(), Options{WorkDir: work, Python: filepath.Join(venv, "bin", "python"), ExecutionID: "nopandas"})
	var mm *MissingModulesError
	if !errors.As(err, &mm) || !slices.Contains(mm.Missing, "pandas") || mm.Steps["pandas"] != "Prep" {
		t.Fatalf("an interpreter without pandas: %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "pip install pandas") || strings.Contains(msg, "image") {
		t.Errorf("the error says how to install what is missing, not an image: %s", msg)
	}
	if errkind.Of(err) != errkind.Unsupported {
		t.Errorf("kind %q", errkind.Of(err))
	}
	// a step of no catalog type brings its own imports: nothing is asked
	q := newPipeline(t)
	q.params = []compiler.Parameter{prefixParam()}
	q.script("s3://bucket/code/ok.py", "ok.py", "open('/opt/ml/processing/output/o/x', 'w').write('1')\n")
	q.step(processing("Own", "ok.py", nil, []string{"o"}, nil, nil))
	if _, err := Run(context.Background(), q.result(), Options{WorkDir: filepath.Join(q.dir, "work"), Python: filepath.Join(venv, "bin", "python"), ExecutionID: "own"}); err != nil {
		t.Errorf("a project's own step with a bare interpreter: %v", err)
	}
}
