package localrun

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/dag"
)

// exampleRun compiles an example (examples/<name>) and reads its
// local-data.json, as execution.run_local does.
func exampleRun(b testing.TB, name string) (*compiler.Result, map[string]string) {
	b.Helper()
	root, err := filepath.Abs(filepath.Join("../../examples", name))
	if err != nil {
		b.Fatal(err)
	}
	d, _, err := dag.ReadFile(nil, filepath.Join(root, "dag.json"))
	if err != nil {
		b.Fatal(err)
	}
	res, err := compiler.Compile(context.Background(), compiler.Input{DAG: d, ConfigFile: filepath.Join(root, "config.json")})
	if err != nil {
		b.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "local-data.json"))
	if err != nil {
		b.Fatal(err)
	}
	data := map[string]string{}
	if err := json.Unmarshal(raw, &data); err != nil {
		b.Fatal(err)
	}
	repo := filepath.Dir(filepath.Dir(root))
	for k, v := range data {
		data[k] = filepath.Join(repo, v)
	}
	return res, data
}

// benchVariants are the runner's settings a benchmark run compares side
// by side: plain (no speed setting, one step at a time), each speed
// setting of the job environment alone, all of them, and all of them with
// independent steps in parallel (the default).
var benchVariants = []struct {
	name string
	tune tuning
}{
	{"plain", tuning{noOMPPassive: true, noThreads: true, noDistutils: true, noMPLCache: true, maxParallel: 1}},
	{"omp", tuning{noDistutils: true, noMPLCache: true, maxParallel: 1}},
	{"distutils", tuning{noOMPPassive: true, noThreads: true, noMPLCache: true, maxParallel: 1}},
	{"mpl", tuning{noOMPPassive: true, noThreads: true, noDistutils: true, maxParallel: 1}},
	{"env", tuning{maxParallel: 1}},
	{"default", tuning{}},
}

// BenchmarkRunLocalExamples runs examples/xgboost-end-to-end and
// examples/simple-training locally on their sample data, each iteration
// once in every variant of benchVariants (interleaved, so that the load of
// a shared machine weighs on each alike), and reports per variant the
// run's time (s-<variant>) and its ratio to the run's floor
// (x-floor-<variant>). The floor (floor-s) is each step's own compute
// plus one bare python3 start (in the sandbox) per step: a run with every
// speed setting, one step at a time, with python -X importtime, gives
// each job's time, its interpreters and the time their imports took; a
// step's compute is its job's time less its imports and its interpreters'
// bare starts. The goal of issue 33 is x-floor <= 2.
func BenchmarkRunLocalExamples(b *testing.B) {
	needLibraries(b, "pandas", "sklearn", "xgboost", "matplotlib")
	needSandbox(b, Bubblewrap)
	for _, name := range []string{"xgboost-end-to-end", "simple-training"} {
		b.Run(name, func(b *testing.B) {
			res, data := exampleRun(b, name)
			work := b.TempDir()
			run := func(t tuning) *Report {
				rep, err := Run(context.Background(), res, Options{WorkDir: work, Data: data, tune: t})
				if err != nil {
					b.Fatal(err)
				}
				if !rep.Succeeded {
					b.Fatalf("the run failed: %+v", rep.Failed)
				}
				return rep
			}
			b.StopTimer()
			floor, perStep := runFloor(b, run)
			b.StartTimer()
			took := make([]float64, len(benchVariants))
			for i := 0; i < b.N; i++ {
				for v, variant := range benchVariants {
					took[v] += run(variant.tune).DurationSeconds
				}
			}
			n := float64(b.N)
			b.ReportMetric(floor, "floor-s")
			for v, variant := range benchVariants {
				b.ReportMetric(took[v]/n, "s-"+variant.name)
				b.ReportMetric(took[v]/n/floor, "x-floor-"+variant.name)
			}
			b.Logf("%s floor %.2fs: %s", name, floor, strings.Join(perStep, ", "))
		})
	}
}

// runFloor measures a run's floor (see BenchmarkRunLocalExamples): the
// seconds, and each step's floor as text.
func runFloor(b *testing.B, run func(tuning) *Report) (float64, []string) {
	bare, bareImports := bareStart(b)
	rep := run(tuning{maxParallel: 1, jobEnv: map[string]string{"PYTHONPROFILEIMPORTTIME": "1"}})
	var floor float64
	var per []string
	for _, s := range rep.Steps {
		if s.JobSeconds == 0 || s.LogFile == "" {
			continue
		}
		log, err := os.ReadFile(s.LogFile)
		if err != nil {
			b.Fatal(err)
		}
		interps, imports := importProfile(log)
		compute := s.JobSeconds - imports.Seconds() - float64(interps)*(bare-bareImports)
		compute = max(compute, 0)
		floor += compute + bare
		per = append(per, s.Name+" "+strconv.FormatFloat(compute+bare, 'f', 2, 64)+"s (job "+strconv.FormatFloat(s.JobSeconds, 'f', 2, 64)+"s)")
	}
	return floor, per
}

// bareStart is the median time of a bare `python3 -c pass` job in the
// sandbox, and the time its own (start-up) imports took.
func bareStart(b *testing.B) (float64, float64) {
	r, err := NewRunner(b.TempDir(), Bubblewrap, "")
	if err != nil {
		b.Fatal(err)
	}
	var total, imports []float64
	for i := 0; i < 7; i++ {
		res, err := r.Run(context.Background(), Job{Command: []string{"python3", "-c", "pass"}, Env: map[string]string{"PYTHONPROFILEIMPORTTIME": "1"}, Scratch: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		_, imp := importProfile(res.Stdout)
		total = append(total, res.Duration.Seconds())
		imports = append(imports, imp.Seconds())
	}
	slices.Sort(total)
	slices.Sort(imports)
	return total[len(total)/2], imports[len(imports)/2]
}

// importProfile reads what python -X importtime printed: the interpreters
// that printed (one header line each) and the time their top-level
// imports took (the cumulative time of each import at nesting level 0).
func importProfile(log []byte) (int, time.Duration) {
	interps := 0
	var total time.Duration
	for _, line := range bytes.Split(log, []byte("\n")) {
		rest, ok := bytes.CutPrefix(line, []byte("import time:"))
		if !ok {
			continue
		}
		parts := strings.SplitN(string(rest), "|", 3)
		if len(parts) != 3 {
			continue
		}
		if strings.TrimSpace(parts[0]) == "self [us]" {
			interps++
			continue
		}
		name := strings.TrimPrefix(parts[2], " ")
		if strings.HasPrefix(name, " ") {
			continue // nested: counted in its parent's cumulative time
		}
		us, err := strconv.ParseInt(strings.TrimSpace(parts[1]), 10, 64)
		if err == nil {
			total += time.Duration(us) * time.Microsecond
		}
	}
	return interps, total
}

// importProfile reads -X importtime's lines: the header starts an
// interpreter, nested imports count in their parent's time.
func TestImportProfile(t *testing.T) {
	log := "import time: self [us] | cumulative | imported package\n" +
		"import time:       100 |        100 | _io\n" +
		"import time:        50 |         50 |   nested\n" +
		"import time:       200 |        250 | pandas\n" +
		"some output\n" +
		"import time: self [us] | cumulative | imported package\n" +
		"import time:      1000 |       1000 | json\n"
	n, d := importProfile([]byte(log))
	if n != 2 || d != 1350*time.Microsecond {
		t.Fatalf("importProfile: %d interpreters, %v", n, d)
	}
}

// forkModules are the modules the examples' steps import (their scripts
// and steplib): what a fork server would import once a run.
const forkModules = "numpy,pandas,scipy.stats,sklearn,sklearn.metrics,sklearn.model_selection,sklearn.preprocessing,sklearn.pipeline," +
	"sklearn.isotonic,sklearn.linear_model,xgboost,matplotlib,matplotlib.pyplot"

// BenchmarkRunLocalForkServer is the study of issue 33's fork server: a
// pre-imported interpreter forked per job inside the job's sandbox,
// against plain starts. Each iteration runs an example twice, one step at
// a time with every speed setting: plainly (s-plain), and with every
// Python job run through testdata/forkprobe.py, which imports the
// examples' modules, forks, runs the job's script in the child and prints
// the child's time. A fork server would pay the imports once a run and
// each job would cost the sandbox's start plus the child's time, so its
// run (s-forkserver) is the probe run less, for each job, its time above
// that, plus the imports once; gain-% is 1 - s-forkserver/s-plain, and
// x-floor-forkserver its ratio to the floor. What it would cost in the
// sandbox's properties is in docs/local-run.md.
func BenchmarkRunLocalForkServer(b *testing.B) {
	needLibraries(b, "pandas", "sklearn", "xgboost", "matplotlib")
	needSandbox(b, Bubblewrap)
	probe, err := filepath.Abs("testdata/forkprobe.py")
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"xgboost-end-to-end", "simple-training"} {
		b.Run(name, func(b *testing.B) {
			res, data := exampleRun(b, name)
			work := b.TempDir()
			run := func(t tuning) *Report {
				rep, err := Run(context.Background(), res, Options{WorkDir: work, Data: data, tune: t})
				if err != nil {
					b.Fatal(err)
				}
				if !rep.Succeeded {
					b.Fatalf("the run failed: %+v", rep.Failed)
				}
				return rep
			}
			b.StopTimer()
			floor, _ := runFloor(b, run)
			sandbox := sandboxStart(b)
			b.StartTimer()
			var plain, server float64
			for i := 0; i < b.N; i++ {
				plain += run(tuning{maxParallel: 1}).DurationSeconds
				rep := run(tuning{maxParallel: 1, forkProbe: probe, jobEnv: map[string]string{"CURSUS_FORKPROBE_MODULES": forkModules}})
				est, imports := rep.DurationSeconds, 0.0
				for _, s := range rep.Steps {
					if s.JobSeconds == 0 || s.LogFile == "" {
						continue
					}
					log, err := os.ReadFile(s.LogFile)
					if err != nil {
						b.Fatal(err)
					}
					child, pre, ok := forkProbeTimes(log)
					if !ok {
						b.Fatalf("%s printed no FORKPROBE line:\n%s", s.Name, s.LogTail)
					}
					est -= s.JobSeconds - (child + sandbox)
					imports = max(imports, pre)
				}
				server += est + imports
			}
			n := float64(b.N)
			b.ReportMetric(floor, "floor-s")
			b.ReportMetric(plain/n, "s-plain")
			b.ReportMetric(server/n, "s-forkserver")
			b.ReportMetric(100*(1-server/plain), "gain-%")
			b.ReportMetric(plain/n/floor, "x-floor-plain")
			b.ReportMetric(server/n/floor, "x-floor-forkserver")
		})
	}
}

// forkProbeTimes reads forkprobe.py's line: the child's seconds and the
// imports' (the last line, for a job that ran more than one).
func forkProbeTimes(log []byte) (child, preimport float64, ok bool) {
	for _, line := range strings.Split(string(log), "\n") {
		rest, found := strings.CutPrefix(line, "FORKPROBE ")
		if !found {
			continue
		}
		for _, f := range strings.Fields(rest) {
			k, v, _ := strings.Cut(f, "=")
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				continue
			}
			switch k {
			case "child":
				child = x
			case "preimport":
				preimport = x
			}
		}
		ok = true
	}
	return child, preimport, ok
}

// sandboxStart is the median time of an empty job (/bin/true) in the
// sandbox: what a fork server's job would still pay to get its sandbox.
func sandboxStart(b *testing.B) float64 {
	r, err := NewRunner(b.TempDir(), Bubblewrap, "")
	if err != nil {
		b.Fatal(err)
	}
	var took []float64
	for i := 0; i < 7; i++ {
		res, err := r.Run(context.Background(), Job{Command: []string{"/bin/true"}, Scratch: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		took = append(took, res.Duration.Seconds())
	}
	slices.Sort(took)
	return took[len(took)/2]
}
