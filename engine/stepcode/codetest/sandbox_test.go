package codetest

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler/scripttest"
)

// scriptSandbox runs step scripts under bwrap with a chosen interpreter.
type scriptSandbox struct {
	python, bwrap string
	mounts        []string // directories the interpreter needs besides /usr and /etc
}

// needSandbox returns a sandbox whose Python imports modules, or skips the test with the reason
// (fails under CI, where the packages are installed): scripttest finds both.
func needSandbox(t *testing.T, modules ...string) *scriptSandbox {
	t.Helper()
	bw := scripttest.Bwrap(t)
	py := scripttest.Python(t, modules...)
	return &scriptSandbox{python: py.Path, bwrap: bw, mounts: py.Mounts}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// job is one sandboxed run of a script.
type job struct {
	script  string            // embedded code file (catalog.Code, slash-separated)
	codeDir string            // container directory the script is mounted in
	extra   map[string]string // more files for the code directory: name -> content
	entry   string            // the file run (default: the script's)
	binds   map[string]string // container path -> host directory (read-write)
	env     map[string]string
	args    []string
}

// run executes the job and returns its combined output and error.
func (s *scriptSandbox) run(t *testing.T, j job) (string, error) {
	t.Helper()
	code := t.TempDir()
	// The embedded bytes the compiler uploads: the script, and beside it the steplib modules it
	// imports (catalog.Bundle, as the compiler ships a script).
	bundle := catalog.Bundle(catalog.StepCode{Path: j.script, Origin: catalog.CodeEmbedded, Files: []string{j.script}, FS: catalog.Code()})
	for _, f := range bundle.Files {
		data, err := fs.ReadFile(catalog.Code(), f)
		if err != nil {
			t.Fatalf("embedded %s: %v", f, err)
		}
		rel := path.Base(f)
		if strings.HasPrefix(f, catalog.CodeLibDir+"/") {
			rel = f
		}
		mkdir(t, filepath.Dir(filepath.Join(code, filepath.FromSlash(rel))))
		must(t, os.WriteFile(filepath.Join(code, filepath.FromSlash(rel)), data, 0o644))
	}
	name := path.Base(j.script)
	for n, content := range j.extra {
		must(t, os.WriteFile(filepath.Join(code, n), []byte(content), 0o644))
	}
	if j.entry != "" {
		name = j.entry
	}
	args := []string{"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/opt",
		"--unshare-net", "--unshare-pid", "--die-with-parent", "--clearenv",
		"--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "HOME", "/tmp", "--setenv", "LANG", "C.UTF-8",
		"--setenv", "MPLCONFIGDIR", "/tmp/matplotlib"}
	var dirs []string
	for c := range j.binds {
		dirs = append(dirs, c)
	}
	sort.Strings(dirs) // parents before children
	for _, c := range dirs {
		args = append(args, "--bind", j.binds[c], c)
	}
	args = append(args, "--ro-bind", code, j.codeDir, "--chdir", j.codeDir)
	for _, m := range s.mounts {
		args = append(args, "--ro-bind", m, m)
	}
	if pp := os.Getenv("PYTHONPATH"); pp != "" { // an interpreter's extra packages (a lightgbm build)
		for _, dir := range filepath.SplitList(pp) {
			if st, err := os.Stat(dir); err == nil && st.IsDir() && filepath.IsAbs(dir) {
				args = append(args, "--ro-bind", dir, dir) // visible under the sandbox's own /tmp too
			}
		}
		args = append(args, "--setenv", "PYTHONPATH", pp)
	}
	var keys []string
	for k := range j.env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "--setenv", k, j.env[k])
	}
	args = append(args, s.python, name)
	args = append(args, j.args...)
	out, err := exec.Command(s.bwrap, args...).CombinedOutput()
	return string(out), err
}

// mustRun runs the job and fails the test when it fails.
func (s *scriptSandbox) mustRun(t *testing.T, j job) string {
	t.Helper()
	out, err := s.run(t, j)
	if err != nil {
		t.Fatalf("%s failed: %v\n%s", j.script, err, out)
	}
	return out
}

// trainingDirs lays out a training job's container paths on the host.
type trainingDirs struct{ input, model, output string }

func newTrainingDirs(t *testing.T) trainingDirs {
	root := t.TempDir()
	d := trainingDirs{filepath.Join(root, "input"), filepath.Join(root, "model"), filepath.Join(root, "output")}
	for _, p := range []string{filepath.Join(d.input, "config"), filepath.Join(d.input, "data"), d.model, d.output} {
		mkdir(t, p)
	}
	return d
}

func (d trainingDirs) binds() map[string]string {
	return map[string]string{"/opt/ml/input": d.input, "/opt/ml/model": d.model, "/opt/ml/output": d.output}
}

// writeHyperparameters writes the job's hyperparameters.json as SageMaker does: every value
// JSON-encoded as a string.
func (d trainingDirs) writeHyperparameters(t *testing.T, hp map[string]any) {
	t.Helper()
	enc := map[string]string{"sagemaker_program": `"train.py"`, "sagemaker_submit_directory": `"s3://bucket/code/sourcedir.tar.gz"`}
	for k, v := range hp {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		enc[k] = string(b)
	}
	writeJSON(t, filepath.Join(d.input, "config", "hyperparameters.json"), enc)
}

// train runs a training script on ds's channels with hp as the job's hyperparameters (and the
// toolkit's --key value arguments) and returns the job's directories and log.
func train(t *testing.T, sb *scriptSandbox, script string, ds dataset, hp map[string]any, env map[string]string) (trainingDirs, string) {
	t.Helper()
	d := newTrainingDirs(t)
	ds.writeChannels(t, filepath.Join(d.input, "data"))
	d.writeHyperparameters(t, hp)
	e := trainingEnv()
	for k, v := range env {
		e[k] = v
	}
	out := sb.mustRun(t, job{script: script, codeDir: "/opt/ml/code", binds: d.binds(), env: e, args: toolkitArgs(hp)})
	return d, out
}

// toolkitArgs are the command-line arguments the SageMaker training toolkit passes.
func toolkitArgs(hp map[string]any) []string {
	var keys []string
	for k := range hp {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		b, _ := json.Marshal(hp[k])
		out = append(out, "--"+k, string(b))
	}
	return out
}

func trainingEnv() map[string]string {
	return map[string]string{"SM_MODEL_DIR": "/opt/ml/model", "SM_CHANNEL_TRAIN": "/opt/ml/input/data/train",
		"SM_CHANNEL_VAL": "/opt/ml/input/data/val", "SM_CHANNEL_TEST": "/opt/ml/input/data/test",
		"SM_OUTPUT_DATA_DIR": "/opt/ml/output/data", "SM_NUM_GPUS": "0", "SM_HOSTS": `["algo-1"]`, "SM_CURRENT_HOST": "algo-1"}
}

// processingDirs lays out a processing job's /opt/ml/processing on the host.
type processingDirs struct{ root string }

func newProcessingDirs(t *testing.T) processingDirs {
	d := processingDirs{t.TempDir()}
	mkdir(t, filepath.Join(d.root, "input"))
	mkdir(t, filepath.Join(d.root, "output"))
	return d
}

func (d processingDirs) path(rel string) string {
	return filepath.Join(d.root, filepath.FromSlash(rel))
}

func (d processingDirs) binds() map[string]string {
	return map[string]string{"/opt/ml/processing": d.root}
}

// dataset describes generated tabular data: numeric x1..x3 (x1 5% missing), categorical c1 and
// a label driven by x1, x2 and c1.
type dataset struct {
	classes int      // 2 or 3
	labels  []string // label spelling per class; nil: 0..classes-1
	extra   func(r *rand.Rand, label int) (string, string)
}

var splitSizes = map[string]int{"train": 600, "val": 150, "test": 150, "calibration": 150}

func (ds dataset) write(t *testing.T, path string, split string, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	mkdir(t, filepath.Dir(path))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := csv.NewWriter(f)
	header := []string{"id", "x1", "x2", "x3", "c1", "label"}
	var extraName string
	if ds.extra != nil {
		extraName, _ = ds.extra(rand.New(rand.NewPCG(0, 0)), 0)
		header = append(header, extraName)
	}
	must(t, w.Write(header))
	effect := map[string]float64{"a": 1.0, "b": -1.0, "c": 0.2, "d": -0.2}
	cats := []string{"a", "b", "c", "d"}
	for i := 0; i < splitSizes[split]; i++ {
		x1, x2, x3 := r.NormFloat64(), r.NormFloat64(), r.NormFloat64()
		c := cats[r.IntN(len(cats))]
		s := 1.5*x1 - x2 + effect[c] + 0.4*r.NormFloat64()
		label := 0
		if ds.classes == 2 {
			if s > 0 {
				label = 1
			}
		} else if s > 0.8 {
			label = 2
		} else if s > -0.8 {
			label = 1
		}
		x1s := strconv.FormatFloat(x1, 'f', 5, 64)
		if r.Float64() < 0.05 {
			x1s = ""
		}
		ls := strconv.Itoa(label)
		if ds.labels != nil {
			ls = ds.labels[label]
		}
		row := []string{fmt.Sprintf("%s-%d", split, i), x1s, strconv.FormatFloat(x2, 'f', 5, 64), strconv.FormatFloat(x3, 'f', 5, 64), c, ls}
		if ds.extra != nil {
			_, v := ds.extra(r, label)
			row = append(row, v)
		}
		must(t, w.Write(row))
	}
	w.Flush()
	must(t, w.Error())
}

// writeChannels writes train/, val/ and test/ under a training job's data directory.
func (ds dataset) writeChannels(t *testing.T, dataDir string) {
	for i, split := range []string{"train", "val", "test"} {
		ds.write(t, filepath.Join(dataDir, split, split+".csv"), split, uint64(i+1))
	}
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	mkdir(t, filepath.Dir(path))
	must(t, os.WriteFile(path, b, 0o644))
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func readCSV(t *testing.T, path string) (header []string, rows [][]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(all) == 0 {
		t.Fatalf("%s is empty", path)
	}
	return all[0], all[1:]
}

func metric(t *testing.T, m map[string]any, name string) float64 {
	t.Helper()
	v, ok := m[name].(float64)
	if !ok {
		t.Fatalf("metric %s missing or not a number in %v", name, m)
	}
	return v
}

func column(t *testing.T, header []string, name string) int {
	t.Helper()
	for i, h := range header {
		if h == name {
			return i
		}
	}
	t.Fatalf("column %s not in %v", name, header)
	return -1
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }
