package localrun

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cursus-go/cursus/internal/lazyre"
	"github.com/cursus-go/cursus/internal/proc"
)

// Sandbox is how a job's container paths exist on this machine.
type Sandbox string

// The sandboxes. Bubblewrap is the real one; PathRewrite is the fallback
// where bubblewrap is missing or cannot create namespaces.
const (
	// Bubblewrap runs each job in a bubblewrap (bwrap) sandbox: the host
	// file system read-only, /tmp and /opt/ml fresh tmpfs, home
	// directories hidden, the job's inputs bound read-only and its outputs
	// read-write at their container paths, no network, its own PID, IPC
	// and UTS namespaces (hostname algo-1), killed with the runner.
	Bubblewrap Sandbox = "bubblewrap"
	// PathRewrite runs each job on the host: the container paths are
	// symbolic links under a per-job root, and the string constants of the
	// script (and of the modules it imports from its code) that name a
	// container path are rewritten to the same path under that root. The
	// network and the rest of the file system stay reachable.
	PathRewrite Sandbox = "path-rewrite"
)

// EnvSandbox names an environment variable that forces a sandbox
// ("bubblewrap" or "path-rewrite") instead of detecting one.
const EnvSandbox = "CURSUS_SANDBOX"

//go:embed harness/*.py
var harnessFS embed.FS

// harnessContainerDir is where the harness scripts are mounted in a
// bubblewrap sandbox.
const harnessContainerDir = "/cursus"

var (
	sandboxOnce   sync.Once
	sandboxFound  Sandbox
	sandboxReason string
)

// DetectSandbox returns the sandbox jobs run in here: $CURSUS_SANDBOX when
// set, else Bubblewrap when bwrap is on PATH and can start a sandbox, else
// PathRewrite, with the reason bubblewrap is not used.
func DetectSandbox() (Sandbox, string) {
	switch s := Sandbox(strings.TrimSpace(os.Getenv(EnvSandbox))); s {
	case Bubblewrap, PathRewrite:
		return s, "set by " + EnvSandbox
	}
	sandboxOnce.Do(func() { sandboxFound, sandboxReason = probeBubblewrap() })
	return sandboxFound, sandboxReason
}

func probeBubblewrap() (Sandbox, string) {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return PathRewrite, "bwrap (bubblewrap) is not on PATH"
	}
	trueBin, err := exec.LookPath("true")
	if err != nil {
		return PathRewrite, "no `true` program to probe bwrap with"
	}
	l := hostLayout()
	args := append(l.args(), "--remount-ro", "/", "--", trueBin)
	_, err = proc.Run(context.Background(), proc.Cmd{Path: bwrap, Args: args, Timeout: 20 * time.Second, MaxOutput: 4096})
	if err != nil {
		return PathRewrite, fmt.Sprintf("bwrap cannot start a sandbox here: %v", err)
	}
	return Bubblewrap, ""
}

// layout is the read-only view of the host a bubblewrap sandbox gets.
type layout struct {
	top     []hostEntry // entries of / to bind
	opt     []hostEntry // entries of /opt to bind (the sandbox's /opt is rebuilt around /opt/ml)
	hasOpt  bool
	hidden  []string // home directories replaced by an empty tmpfs
	rebinds []string // interpreter prefixes under a hidden directory, bound back
}

type hostEntry struct {
	name   string
	link   string // symbolic link target, or ""
	isFile bool
}

var (
	layoutOnce sync.Once
	hostView   layout
)

// skipTop are entries of / a sandbox gets fresh (proc, dev, tmp, opt) or
// not at all (run: daemon sockets).
var skipTop = map[string]bool{"proc": true, "dev": true, "tmp": true, "opt": true, "run": true, "cursus": true}

func hostLayout() layout {
	layoutOnce.Do(func() {
		hostView.top = listEntries("/", skipTop)
		if st, err := os.Stat("/opt"); err == nil && st.IsDir() {
			hostView.hasOpt = true
			hostView.opt = listEntries("/opt", map[string]bool{"ml": true})
		}
		for _, h := range []string{"/root", "/home"} {
			if st, err := os.Stat(h); err == nil && st.IsDir() {
				hostView.hidden = append(hostView.hidden, h)
			}
		}
		if home, err := os.UserHomeDir(); err == nil && home != "/" && !underAny(home, hostView.hidden) {
			if st, err := os.Stat(home); err == nil && st.IsDir() {
				hostView.hidden = append(hostView.hidden, home)
			}
		}
	})
	return hostView
}

func listEntries(dir string, skip map[string]bool) []hostEntry {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []hostEntry
	for _, e := range ents {
		if skip[e.Name()] {
			continue
		}
		p := filepath.Join(dir, e.Name())
		he := hostEntry{name: e.Name()}
		if e.Type()&os.ModeSymlink != 0 {
			t, err := os.Readlink(p)
			if err != nil {
				continue
			}
			he.link = t
		} else if !e.IsDir() {
			if !e.Type().IsRegular() {
				continue
			}
			he.isFile = true
		}
		out = append(out, he)
	}
	return out
}

func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// args is the bwrap command line of the layout, before the job's mounts.
func (l layout) args() []string {
	a := []string{"--die-with-parent", "--new-session", "--unshare-all", "--hostname", "algo-1"}
	for _, e := range l.top {
		if e.link != "" {
			a = append(a, "--symlink", e.link, "/"+e.name)
		} else {
			a = append(a, "--ro-bind", "/"+e.name, "/"+e.name)
		}
	}
	for _, h := range l.hidden {
		a = append(a, "--tmpfs", h)
	}
	for _, p := range l.rebinds {
		a = append(a, "--ro-bind", p, p)
	}
	a = append(a, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/run")
	if l.hasOpt {
		a = append(a, "--dir", "/opt")
		for _, e := range l.opt {
			if e.link != "" {
				a = append(a, "--symlink", e.link, "/opt/"+e.name)
			} else {
				a = append(a, "--ro-bind", "/opt/"+e.name, "/opt/"+e.name)
			}
		}
	}
	return append(a, "--tmpfs", "/opt/ml")
}

// Mount makes a host file or directory appear at a container path. Host
// is taken as it is (a path the caller made or named); the runner's own
// mounts of what earlier jobs wrote are opened through a root on the
// directory they lie in instead, so that a link a job made never leads a
// mount out of it.
type Mount struct {
	Container string `json:"container"`
	Host      string `json:"host"`
	Writable  bool   `json:"writable,omitempty"`
	at        *hostPath
}

// mountAt mounts what at names at a container path.
func mountAt(container string, at hostPath, writable bool) Mount {
	return Mount{Container: container, Host: at.String(), Writable: writable, at: &at}
}

// source is where the mount's content is on the host.
func (m Mount) source() hostPath {
	if m.at != nil {
		return *m.at
	}
	return trusted(m.Host)
}

// Job is one container run.
type Job struct {
	// Command is the container command line; a python program first
	// (python, python3, python3.x) runs with the runner's interpreter.
	Command []string
	Env     map[string]string // the job's environment, on top of a minimal base
	Dir     string            // container working directory (default /opt/ml)
	Mounts  []Mount           // host paths at container paths (under /opt/ml)
	// Timeout and MemoryBytes bound the job (0: no time limit beyond the
	// context; no memory limit).
	Timeout     time.Duration
	MemoryBytes int64
	// Scratch is a host directory of the job's own (the path-rewrite
	// root and its temp directory live there).
	Scratch string
}

// Runner runs container jobs in one sandbox with one interpreter.
type Runner struct {
	ex   *executor
	note string
}

// NewRunner prepares a runner whose harness scripts live in dir: sandbox
// "" detects one (DetectSandbox), python "" finds the interpreter
// (FindPython; the error wraps ErrNoPython when there is none).
func NewRunner(dir string, sandbox Sandbox, python string) (*Runner, error) {
	note := ""
	switch sandbox {
	case "":
		sandbox, note = DetectSandbox()
	case Bubblewrap, PathRewrite:
	default:
		return nil, &InputError{Field: "sandbox", Problem: fmt.Sprintf("%q: want %s or %s", sandbox, Bubblewrap, PathRewrite)}
	}
	var prefixes []string
	if python == "" {
		p := FindPython()
		if !p.Available {
			return nil, fmt.Errorf("%w: %s", ErrNoPython, p.Reason)
		}
		python, prefixes = p.Path, p.Prefixes
	}
	ex, err := newExecutor(sandbox, python, prefixes, dir)
	if err != nil {
		return nil, err
	}
	return &Runner{ex: ex, note: note}, nil
}

// Sandbox returns the runner's sandbox and, for the fallback, why.
func (r *Runner) Sandbox() (Sandbox, string) { return r.ex.sandbox, r.note }

// Python returns the interpreter's path.
func (r *Runner) Python() string { return r.ex.python }

// Run runs a job: its output (stdout and stderr as one log, the newest 4
// MiB) and status as internal/proc reports them (a non-zero exit is a
// *proc.ExitError, a time-out wraps proc.ErrTimeout, a cancelled
// context is the context's error).
func (r *Runner) Run(ctx context.Context, j Job) (*proc.Result, error) { return r.ex.run(ctx, j) }

// executor runs jobs in one sandbox with one interpreter.
type executor struct {
	sandbox Sandbox
	python  string
	bwrap   string
	harness string // host directory holding the harness scripts
	layout  layout
}

var pythonName = lazyre.New(`^python(3(\.[0-9]+)?)?$`)

// newExecutor writes the harness scripts under dir and prepares the
// sandbox. pythonPrefixes are the interpreter's installation prefixes
// (bound back when they lie under a hidden home directory).
func newExecutor(kind Sandbox, python string, pythonPrefixes []string, dir string) (*executor, error) {
	ex := &executor{sandbox: kind, python: python, harness: filepath.Join(dir, "harness")}
	if err := os.MkdirAll(ex.harness, 0o755); err != nil {
		return nil, err
	}
	ents, err := harnessFS.ReadDir("harness")
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		b, err := harnessFS.ReadFile("harness/" + e.Name())
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(ex.harness, e.Name()), b, 0o644); err != nil {
			return nil, err
		}
	}
	if kind == Bubblewrap {
		if ex.bwrap, err = exec.LookPath("bwrap"); err != nil {
			return nil, fmt.Errorf("sandbox %s: %w", kind, err)
		}
		ex.layout = hostLayout()
		seen := map[string]bool{}
		for _, p := range append([]string{filepath.Dir(filepath.Dir(python))}, pythonPrefixes...) {
			if p != "" && p != "/" && underAny(p, ex.layout.hidden) && !seen[p] {
				seen[p] = true
				ex.layout.rebinds = append(ex.layout.rebinds, p)
			}
		}
	}
	return ex, nil
}

// harnessPath is the container path of a harness script.
func (ex *executor) harnessPath(name string) string {
	return harnessContainerDir + "/" + name
}

// baseEnv is the environment every job starts from: a container-like PATH
// with the interpreter's directory first, a home and temp directory, UTF-8
// and unbuffered Python output. Nothing of the caller's environment is
// passed on.
func (ex *executor) baseEnv(tmp string) map[string]string {
	return map[string]string{
		"PATH":                    filepath.Dir(ex.python) + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOME":                    tmp,
		"TMPDIR":                  tmp,
		"LANG":                    "C.UTF-8",
		"PYTHONUNBUFFERED":        "1",
		"PYTHONDONTWRITEBYTECODE": "1",
	}
}

// run runs a job and returns what it printed (stdout and stderr as one
// log) and how it ended (see proc.Run).
func (ex *executor) run(ctx context.Context, j Job) (*proc.Result, error) {
	if len(j.Command) == 0 {
		return nil, fmt.Errorf("the job has no command")
	}
	if err := checkMounts(j.Mounts); err != nil {
		return nil, err
	}
	argv := append([]string(nil), j.Command...)
	if pythonName().MatchString(path.Base(argv[0])) {
		argv[0] = ex.python
	}
	if ex.sandbox == Bubblewrap {
		return ex.runBwrap(ctx, j, argv)
	}
	return ex.runRewrite(ctx, j, argv)
}

func (ex *executor) runBwrap(ctx context.Context, j Job, argv []string) (*proc.Result, error) {
	env := ex.baseEnv("/tmp")
	for k, v := range j.Env {
		env[k] = v
	}
	a := ex.layout.args()
	a = append(a, "--ro-bind", ex.harness, harnessContainerDir)
	mounts := append([]Mount(nil), j.Mounts...)
	sort.SliceStable(mounts, func(i, k int) bool { return mounts[i].Container < mounts[k].Container })
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for _, m := range mounts {
		flag := "--ro-bind"
		if m.Writable {
			flag = "--bind"
		}
		if m.at == nil {
			a = append(a, flag, m.Host, m.Container)
			continue
		}
		// What an earlier job shaped is opened through a root on the
		// directory it lies in and handed over as a descriptor (bwrap
		// checks that it mounts that very file).
		f, _, err := m.at.openMount()
		if err != nil {
			return nil, fmt.Errorf("mount %s: %w", m.Container, err)
		}
		files = append(files, f)
		a = append(a, flag+"-fd", strconv.Itoa(2+len(files)), m.Container)
	}
	dir := j.Dir
	if dir == "" {
		dir = "/opt/ml"
	}
	a = append(a, "--remount-ro", "/", "--chdir", dir, "--")
	a = append(a, argv...)
	return proc.Run(ctx, proc.Cmd{Path: ex.bwrap, Args: a, Env: environ(env), Timeout: j.Timeout, MemoryBytes: j.MemoryBytes,
		CombinedOutput: true, MaxOutput: maxLog, ExtraFiles: files})
}

func (ex *executor) runRewrite(ctx context.Context, j Job, argv []string) (*proc.Result, error) {
	root := filepath.Join(j.Scratch, "root")
	table := [][2]string{{"/opt/ml", root + "/opt/ml"}, {harnessContainerDir, ex.harness}}
	rebase := func(s string) string {
		for _, t := range table {
			if s == t[0] || strings.HasPrefix(s, t[0]+"/") {
				return t[1] + s[len(t[0]):]
			}
		}
		return s
	}
	if err := os.MkdirAll(root+"/opt/ml", 0o755); err != nil {
		return nil, err
	}
	for _, m := range j.Mounts {
		if !strings.HasPrefix(m.Container, "/opt/ml/") {
			return nil, fmt.Errorf("container path %s: without a sandbox only paths under /opt/ml can be mapped", m.Container)
		}
		target := rebase(m.Container)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return nil, err
		}
		if err := os.Symlink(m.source().String(), target); err != nil {
			return nil, fmt.Errorf("map %s: %w", m.Container, err)
		}
	}
	tmp := filepath.Join(j.Scratch, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, err
	}
	env := ex.baseEnv(tmp)
	for k, v := range j.Env {
		env[k] = rebase(v)
	}
	tableJSON, err := json.Marshal(table)
	if err != nil {
		return nil, err
	}
	launcher := filepath.Join(ex.harness, "rewrite.py")
	rw, err := json.Marshal([]string{launcher, string(tableJSON)})
	if err != nil {
		return nil, err
	}
	env["CURSUS_REWRITE"] = string(rw)
	var cmdArgs []string
	if argv[0] == ex.python {
		if len(argv) < 2 || strings.HasPrefix(argv[1], "-") {
			return nil, fmt.Errorf("without a sandbox a Python job must run a script file (got %q)", strings.Join(argv, " "))
		}
		cmdArgs = []string{launcher, string(tableJSON)}
		for _, x := range argv[1:] {
			cmdArgs = append(cmdArgs, rebase(x))
		}
	} else {
		for _, x := range argv[1:] {
			cmdArgs = append(cmdArgs, rebase(x))
		}
	}
	dir := rebase(j.Dir)
	if j.Dir == "" {
		dir = root + "/opt/ml"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return proc.Run(ctx, proc.Cmd{Path: argv[0], Args: cmdArgs, Env: environ(env), Dir: dir, Timeout: j.Timeout,
		MemoryBytes: j.MemoryBytes, CombinedOutput: true, MaxOutput: maxLog})
}

// checkMounts refuses a mount inside another one (its mount point would
// have to be made inside the other's host directory) and relative paths.
func checkMounts(ms []Mount) error {
	for i, a := range ms {
		if !path.IsAbs(a.Container) || !filepath.IsAbs(a.Host) {
			return fmt.Errorf("mount %s <- %s: both paths must be absolute", a.Container, a.Host)
		}
		for k, b := range ms {
			if i != k && (a.Container == b.Container || strings.HasPrefix(b.Container, strings.TrimSuffix(a.Container, "/")+"/")) {
				return fmt.Errorf("container paths %s and %s overlap: one is inside the other", a.Container, b.Container)
			}
		}
	}
	return nil
}

func environ(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, k+"="+m[k])
	}
	return out
}
