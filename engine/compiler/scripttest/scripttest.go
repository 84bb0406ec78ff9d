// Package scripttest runs one catalog step's processing script for real,
// for tests: the step is compiled alone (compiler.CompileSingleNode) from a
// config, its code and config-file inputs are materialized from the upload
// manifest, the test's input files are laid out at the container paths the
// definition names, and the script runs with the definition's entry point,
// job arguments and environment in a bubblewrap sandbox that mounts a
// temporary directory at /opt/ml/processing (no network unless asked, an
// empty environment besides the job's). RunTraining does the same for a
// Training step (or one trial of a Tuning step) as SageMaker's training
// toolkit runs it: /opt/ml/input, /opt/ml/model, /opt/ml/output and
// /opt/ml/code mounted, hyperparameters.json written, the toolkit's SM_*
// environment and --key value arguments, model.tar.gz packed afterwards.
//
// A test that needs an absent interpreter, Python module or bwrap skips
// with the reason, except under CI (CI set to any non-empty value), where
// it fails. The interpreter is CURSUS_PYTHON, else /usr/bin/python3.
package scripttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/sagemaker"
	"github.com/cursus-go/cursus/internal/testenv"
)

// ProcessingRoot is the container directory the sandbox mounts.
const ProcessingRoot = "/opt/ml/processing"

func skipOrFail(t testing.TB, format string, args ...any) {
	t.Helper()
	testenv.Missing(t, fmt.Sprintf(format, args...))
}

// Interpreter describes the Python a script runs with.
type Interpreter struct {
	Path   string   // the executable (sys.executable)
	Mounts []string // directories the sandbox must see besides /usr and /etc
}

// Python returns the interpreter for step scripts (CURSUS_PYTHON, else
// /usr/bin/python3) after checking it imports every module; it skips (or
// fails under CI) when it cannot.
func Python(t testing.TB, modules ...string) Interpreter {
	t.Helper()
	py := os.Getenv("CURSUS_PYTHON")
	if py == "" {
		py = "/usr/bin/python3"
	}
	ip, err := probe(py, modules)
	if err != nil {
		skipOrFail(t, "scripttest: %v", err)
	}
	return ip
}

var (
	probeMu    sync.Mutex
	probeCache = map[string]probeResult{}
	bwrapOnce  sync.Once
	bwrapPath  string
	bwrapErr   error
)

type probeResult struct {
	ip  Interpreter
	err error
}

// probe checks that py imports the modules and finds its executable and
// the directories it needs; the answer is kept for the test binary's life
// (importing pandas and sklearn takes seconds).
func probe(py string, modules []string) (Interpreter, error) {
	key := py + "\x00" + strings.Join(modules, ",")
	probeMu.Lock()
	defer probeMu.Unlock()
	if r, ok := probeCache[key]; ok {
		return r.ip, r.err
	}
	ip, err := runProbe(py, modules)
	probeCache[key] = probeResult{ip, err}
	return ip, err
}

func runProbe(py string, modules []string) (Interpreter, error) {
	code := "import json, sys\n"
	for _, m := range modules {
		code += "import " + m + "\n"
	}
	code += "print(json.dumps([sys.executable, sys.prefix, sys.base_prefix]))"
	out, err := exec.Command(py, "-I", "-c", code).CombinedOutput()
	if err != nil {
		return Interpreter{}, fmt.Errorf("%s cannot import %s: %v: %s", py, strings.Join(modules, ", "), err, lastLine(string(out)))
	}
	var info []string
	if err := json.Unmarshal(lastLineBytes(out), &info); err != nil || len(info) != 3 {
		return Interpreter{}, fmt.Errorf("%s: unreadable interpreter probe %q", py, out)
	}
	ip := Interpreter{Path: info[0]}
	for _, d := range info[1:] {
		if d != "" && !underAny(d, "/usr", "/etc") && !contains(ip.Mounts, d) {
			ip.Mounts = append(ip.Mounts, d)
		}
	}
	if !underAny(ip.Path, "/usr") && !underAny(ip.Path, ip.Mounts...) {
		ip.Mounts = append(ip.Mounts, filepath.Dir(ip.Path))
	}
	return ip, nil
}

// PythonWith returns the first interpreter that imports every module:
// CURSUS_PYTHON, /usr/bin/python3, then python3 on PATH (a data-loading
// script needs boto3, which Debian's interpreter may lack). It skips (or
// fails under CI) when none does.
func PythonWith(t testing.TB, modules ...string) Interpreter {
	t.Helper()
	var tried []string
	for _, py := range []string{os.Getenv("CURSUS_PYTHON"), "/usr/bin/python3", "python3"} {
		if py == "" || contains(tried, py) {
			continue
		}
		tried = append(tried, py)
		if ip, err := probe(py, modules); err == nil {
			return ip
		}
	}
	skipOrFail(t, "scripttest: none of %s imports %s", strings.Join(tried, ", "), strings.Join(modules, ", "))
	return Interpreter{}
}

// Bwrap returns the bubblewrap executable, or skips (fails under CI).
func Bwrap(t testing.TB) string {
	t.Helper()
	bwrapOnce.Do(func() {
		p, err := exec.LookPath("bwrap")
		if err != nil {
			bwrapErr = errors.New("bwrap (Debian package bubblewrap) is not installed")
			return
		}
		if out, err := exec.Command(p, "--ro-bind", "/", "/", "--unshare-net", "true").CombinedOutput(); err != nil {
			bwrapErr = fmt.Errorf("bwrap cannot create a sandbox here: %v: %s", err, out)
			return
		}
		bwrapPath = p
	})
	if bwrapErr != nil {
		skipOrFail(t, "scripttest: %v", bwrapErr)
	}
	return bwrapPath
}

// Run is one script run.
type Run struct {
	// Node is the config key and node name: "TabularPreprocessing_training"
	// (the job type comes from the config's job_type).
	Node string
	// Config holds the node's config values; BaseConfig fills the rest.
	Config map[string]any
	// Inputs maps a logical input name to a local file or directory,
	// copied to the input's container path (a file keeps its name).
	Inputs map[string]string
	// Catalog is the step catalog; nil: catalog.Default().
	Catalog *catalog.Catalog
	// Python is the interpreter; zero: Python(t, "pandas", "sklearn").
	Python Interpreter
	// Network keeps the host network (to reach a local moto_server).
	Network bool
	// ExtraEnv is added to the job's environment (AWS endpoints for moto).
	ExtraEnv map[string]string
	// Timeout bounds the run; 0: two minutes.
	Timeout time.Duration
}

// Result is a finished run.
type Result struct {
	Root     string            // host directory mounted at /opt/ml/processing
	Outputs  map[string]string // logical output -> host directory
	Env      map[string]string // the job's environment from the definition
	Args     []string          // the command run inside the sandbox
	Log      string            // stdout and stderr
	ExitCode int
}

// BaseConfig is the shared part of every config a run compiles.
func BaseConfig() map[string]any {
	return map[string]any{
		"author": "tester", "bucket": "scripttest-bucket", "region": "NA", "service_name": "ScriptTest",
		"pipeline_version": "0.0.1", "project_root_folder": "scripttest", "model_class": "xgboost",
		"role": "arn:aws:iam::123456789012:role/ScriptTestRole",
	}
}

// RunProcessing runs the script and fails the test when it exits non-zero
// (the log is in the message).
func RunProcessing(t testing.TB, r Run) *Result {
	t.Helper()
	res, err := RunProcessingErr(t, r)
	if err != nil {
		t.Fatalf("%s: %v\n%s", r.Node, err, res.Log)
	}
	return res
}

// ExitError is a script that exited non-zero.
type ExitError struct{ Code int }

// Error implements error.
func (e *ExitError) Error() string { return fmt.Sprintf("script exited with status %d", e.Code) }

// RunProcessingErr runs the script; a non-zero exit is an *ExitError (the
// result is returned too). Setup problems end the test.
func RunProcessingErr(t testing.TB, r Run) (*Result, error) {
	t.Helper()
	bwrap := Bwrap(t)
	if r.Python.Path == "" {
		r.Python = Python(t, "pandas", "sklearn")
	}
	_, typ, raw, items := compileAlone(t, r)
	if typ != "Processing" {
		t.Fatalf("scripttest: %s is a %s step, not a processing step", r.Node, typ)
	}
	var args compiler.ProcessingArguments
	if err := json.Unmarshal(raw, &args); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	out := &Result{Root: root, Outputs: map[string]string{}, Env: map[string]string{}}
	hostPath := func(container string) string {
		rel, err := filepath.Rel(ProcessingRoot, container)
		if err != nil || strings.HasPrefix(rel, "..") {
			t.Fatalf("scripttest: container path %s is not under %s", container, ProcessingRoot)
		}
		return filepath.Join(root, rel)
	}
	for _, in := range args.ProcessingInputs {
		uri, _ := in.S3Input.S3Uri.(string)
		dst := hostPath(in.S3Input.LocalPath)
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		if src, ok := r.Inputs[in.InputName]; ok { // a test input replaces whatever the definition names
			CopyInto(t, src, dst)
			continue
		}
		n := 0
		for _, it := range items {
			switch {
			case it.S3URI == uri:
				copyFile(t, it.LocalPath, filepath.Join(dst, uriBase(it.S3URI)))
				n++
			case strings.HasSuffix(uri, "/") && strings.HasPrefix(it.S3URI, uri):
				copyFile(t, it.LocalPath, filepath.Join(dst, filepath.FromSlash(strings.TrimPrefix(it.S3URI, uri))))
				n++
			}
		}
		if n == 0 {
			t.Fatalf("scripttest: input %s (%s) is neither a test input nor uploaded code", in.InputName, uri)
		}
	}
	if args.ProcessingOutputConfig != nil {
		for _, o := range args.ProcessingOutputConfig.Outputs {
			p := hostPath(o.S3Output.LocalPath)
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			out.Outputs[o.OutputName] = p
		}
	}
	for k, v := range args.Environment {
		s, ok := v.(string)
		if !ok {
			t.Fatalf("scripttest: environment %s is not a literal: %v", k, v)
		}
		out.Env[k] = s
	}
	entry := args.AppSpecification.ContainerEntrypoint
	if len(entry) < 2 || entry[0] != "python3" {
		t.Fatalf("scripttest: entry point %v is not python3 <script>", entry)
	}
	cmd := append([]string{r.Python.Path}, entry[1:]...)
	for _, a := range args.AppSpecification.ContainerArguments {
		s, ok := a.(string)
		if !ok {
			t.Fatalf("scripttest: job argument is not a literal: %v", a)
		}
		cmd = append(cmd, s)
	}
	out.Args = cmd

	env := map[string]string{}
	for k, v := range out.Env {
		env[k] = v
	}
	for k, v := range r.ExtraEnv {
		env[k] = v
	}
	sb := sandbox{bwrap: bwrap, python: r.Python, network: r.Network, binds: [][2]string{{root, ProcessingRoot}},
		chdir: "/tmp", env: env, cmd: cmd, timeout: r.Timeout}
	code, log, err := sb.run(context.Background())
	out.Log = log
	if err != nil {
		t.Fatalf("scripttest: run %s: %v", r.Node, err)
	}
	if code != 0 {
		out.ExitCode = code
		return out, &ExitError{Code: code}
	}
	return out, nil
}

// sandbox is one bubblewrap run: /usr, /etc and the interpreter's
// directories read-only, a private /tmp, the binds (host directory,
// container path) writable, no network unless asked, and an empty
// environment besides env.
type sandbox struct {
	bwrap   string
	python  Interpreter
	network bool
	binds   [][2]string
	chdir   string
	env     map[string]string
	cmd     []string
	timeout time.Duration
}

// run runs the command and returns its exit code and combined output; err
// is a failure to run it at all.
func (s sandbox) run(ctx context.Context) (int, string, error) {
	bw := []string{"--die-with-parent", "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"}
	if !s.network {
		bw = append(bw, "--unshare-net")
	}
	for _, d := range []string{"/bin", "/lib", "/lib64", "/sbin"} {
		if target, err := os.Readlink(d); err == nil {
			bw = append(bw, "--symlink", target, d)
		} else if st, err := os.Stat(d); err == nil && st.IsDir() {
			bw = append(bw, "--ro-bind", d, d)
		}
	}
	for _, m := range s.python.Mounts {
		bw = append(bw, "--ro-bind", m, m)
	}
	for _, b := range s.binds {
		bw = append(bw, "--bind", b[0], b[1])
	}
	bw = append(bw, "--chdir", s.chdir, "--clearenv",
		"--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "HOME", "/tmp", "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
		"--setenv", "LANG", "C.UTF-8")
	keys := make([]string, 0, len(s.env))
	for k := range s.env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		bw = append(bw, "--setenv", k, s.env[k])
	}
	bw = append(bw, s.cmd...)
	timeout := s.timeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := exec.CommandContext(rctx, s.bwrap, bw...)
	var log bytes.Buffer
	c.Stdout, c.Stderr = &log, &log
	runErr := c.Run()
	if runErr != nil {
		var ee *exec.ExitError
		if errors.As(runErr, &ee) {
			return ee.ExitCode(), log.String(), nil
		}
		return 0, log.String(), runErr
	}
	return 0, log.String(), nil
}

// compileAlone compiles the run's node alone (its config over
// BaseConfig, every test input a manual S3 input) and returns its step
// type, the definition's step type and arguments, and the materialized
// upload manifest (its code and config files on disk).
func compileAlone(t testing.TB, r Run) (*catalog.Step, string, json.RawMessage, sagemaker.Manifest) {
	t.Helper()
	cat := r.Catalog
	if cat == nil {
		var err error
		if cat, err = catalog.Default(); err != nil {
			t.Fatal(err)
		}
	}
	schema, err := config.FromCatalog(cat)
	if err != nil {
		t.Fatal(err)
	}
	step, jobType, err := cat.Lookup(r.Node)
	if err != nil {
		t.Fatalf("scripttest: %v", err)
	}
	vals := BaseConfig()
	if jobType != "" {
		vals["job_type"] = jobType
	}
	for k, v := range r.Config {
		vals[k] = v
	}
	cfg, err := schema.NewConfig(step.ConfigClass, catalog.ConfigKey(r.Node), vals)
	if err != nil {
		t.Fatalf("scripttest: config %s: %v", r.Node, err)
	}
	set, err := config.NewSet(cfg)
	if err != nil {
		t.Fatal(err)
	}
	manual := map[string]string{}
	for name := range r.Inputs {
		manual[name] = "s3://scripttest-bucket/inputs/" + name + "/"
	}
	res, err := compiler.CompileSingleNode(context.Background(), compiler.SingleNodeInput{
		Input:  compiler.Input{Configs: set, Catalog: cat, Schema: schema, BaseDir: t.TempDir()},
		Target: r.Node, ManualInputs: manual,
	})
	if err != nil {
		t.Fatalf("scripttest: compile %s: %v", r.Node, err)
	}
	if missing := res.Manifest.MissingFiles(); len(missing) > 0 {
		t.Fatalf("scripttest: %s has no code: %v", r.Node, missing)
	}
	var def struct {
		Steps []struct {
			Type      string
			Arguments json.RawMessage
		}
	}
	b, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &def); err != nil || len(def.Steps) != 1 {
		t.Fatalf("scripttest: %s does not compile to one step: %v", r.Node, err)
	}
	items, err := res.Manifest.Materialize(nil, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return step, def.Steps[0].Type, def.Steps[0].Arguments, items
}

func uriBase(uri string) string {
	return uri[strings.LastIndex(uri, "/")+1:]
}

// CopyInto copies a file into dir (keeping its name) or a directory's
// contents into dir.
func CopyInto(t testing.TB, src, dir string) {
	t.Helper()
	st, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	if !st.IsDir() {
		copyFile(t, src, filepath.Join(dir, filepath.Base(src)))
		return
	}
	err = filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || info.IsDir() {
			return err
		}
		copyFile(t, p, filepath.Join(dir, rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func copyFile(t testing.TB, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func underAny(p string, roots ...string) bool {
	for _, r := range roots {
		if p == r || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func lastLineBytes(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		return b[i+1:]
	}
	return b
}

func lastLine(s string) string { return string(lastLineBytes([]byte(s))) }
