package localrun

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/stepcode"
	"github.com/cursus-go/cursus/internal/lazyre"
	"github.com/cursus-go/cursus/internal/proc"
)

// Sandbox is how a job's container paths exist on this machine.
type Sandbox string

// The sandboxes. Bubblewrap is the sandbox; PathRewrite runs jobs without
// one, and only where the operator asks for it (EnvSandbox).
const (
	// Bubblewrap runs each job in a bubblewrap (bwrap) sandbox that the job
	// has no power over: an unprivileged user in user, mount, PID, IPC,
	// UTS, network and cgroup namespaces of its own, every capability
	// dropped, no new user namespaces, a seccomp filter that refuses
	// mount, umount, unshare, setns, pivot_root, ptrace and the kernel's
	// more exposed interfaces, and a view of the host that holds only what
	// a job needs (bwrap.go lists it: /usr, a few files of /etc, the
	// interpreter, its inputs read-only and its outputs read-write at
	// their container paths), killed with the runner.
	Bubblewrap Sandbox = "bubblewrap"
	// PathRewrite runs each job on the host, unsandboxed: the container
	// paths are symbolic links under a per-job root, and the string
	// constants of the script (and of the modules it imports from its
	// code) that name a container path are rewritten to the same path
	// under that root. The network, the caller's files and processes stay
	// reachable. It runs only when the operator sets EnvSandbox to
	// "unsandboxed" (or "path-rewrite"), and every report of such a run
	// says so.
	PathRewrite Sandbox = "path-rewrite"
)

// EnvSandbox names the environment variable with which the operator
// chooses the sandbox: "bubblewrap" (the default: it must work, or jobs do
// not run), or "unsandboxed" (also "path-rewrite") to run jobs on the host
// without a sandbox.
const EnvSandbox = "CURSUS_SANDBOX"

// EnvSandboxUser names the environment variable giving the user
// ("uid:gid") jobs run as when the runner runs as root (default
// 65534:65534, nobody). Under any other user jobs run as that user.
const EnvSandboxUser = "CURSUS_SANDBOX_USER"

// ErrSandboxUnavailable is wrapped by the error of a run that cannot start
// because no sandbox works here and the operator did not choose to run
// unsandboxed.
var ErrSandboxUnavailable = errkind.New(errkind.SandboxUnavailable, "no sandbox can run jobs here")

// SandboxRemedy says how to get a working sandbox.
const SandboxRemedy = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora/RHEL: dnf install bubblewrap; Arch: pacman -S bubblewrap; Alpine: apk add bubblewrap) on a Linux kernel that allows unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 where the kernel has it; on Ubuntu 24.04 and later also kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap), or, knowing that jobs then run on the host with your files, network and credentials, set " + EnvSandbox + "=unsandboxed"

// SandboxError is a run refused for want of a sandbox: why bubblewrap
// cannot run here.
type SandboxError struct{ Reason string }

// Error says why and what to do.
func (e *SandboxError) Error() string {
	return "no sandbox can run jobs here: " + e.Reason + "; " + SandboxRemedy
}

// Unwrap makes errors.Is(err, ErrSandboxUnavailable) hold.
func (e *SandboxError) Unwrap() error { return ErrSandboxUnavailable }

// Kind implements errkind.Kinded: SandboxUnavailable.
func (e *SandboxError) Kind() errkind.Kind { return errkind.SandboxUnavailable }

// Details implements errkind.Detailer: the reason.
func (e *SandboxError) Details() map[string]any { return map[string]any{"reason": e.Reason} }

// UnsandboxedNote is what every report of an unsandboxed run says.
const UnsandboxedNote = "no sandbox: the jobs ran on the host (" + EnvSandbox + "=unsandboxed), with the network, the caller's files and its processes within their reach"

//go:embed harness/*.py
var harnessFS embed.FS

// harnessLauncher is engine/stepcode's processing launcher, written beside
// the harness scripts.
const harnessLauncher = "runproc.py"

// harnessContainerDir is where the harness scripts are mounted in a
// bubblewrap sandbox.
const harnessContainerDir = "/cursus"

// probes holds the outcome of probing each bwrap program (by path).
var probes sync.Map // path -> *probe

type probe struct {
	once   sync.Once
	kind   Sandbox
	reason string
}

// DetectSandbox returns the sandbox jobs run in here, or "" and why none
// can: PathRewrite when $CURSUS_SANDBOX chooses to run unsandboxed, else
// Bubblewrap when bwrap is on PATH and a probe job runs in it with every
// protection this package gives a job (probed once per bwrap program).
func DetectSandbox() (Sandbox, string) {
	switch s := strings.TrimSpace(os.Getenv(EnvSandbox)); s {
	case "unsandboxed", "none", string(PathRewrite):
		return PathRewrite, UnsandboxedNote
	case "", string(Bubblewrap):
	default:
		return "", fmt.Sprintf("%s=%q is not a sandbox (bubblewrap, or unsandboxed to run jobs on the host)", EnvSandbox, s)
	}
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return "", "bwrap (bubblewrap) is not on PATH"
	}
	v, _ := probes.LoadOrStore(bwrap, &probe{})
	p := v.(*probe)
	p.once.Do(func() { p.kind, p.reason = probeBubblewrap() })
	return p.kind, p.reason
}

// probeBubblewrap runs a shell's exit in a sandbox set up exactly as a
// job's is; "" and why when that fails.
func probeBubblewrap() (Sandbox, string) {
	dir, err := os.MkdirTemp("", "cursus-probe-")
	if err != nil {
		return "", err.Error()
	}
	defer os.RemoveAll(dir)
	python := ""
	var prefixes []string
	if p := FindPython(); p.Available {
		python, prefixes = p.Path, p.Prefixes
	}
	ex, err := newExecutor(Bubblewrap, python, prefixes, dir)
	if err != nil {
		return "", err.Error()
	}
	res, err := ex.run(context.Background(), Job{Command: []string{"/bin/sh", "-c", "exit 0"}, Timeout: 30 * time.Second, Scratch: dir})
	if err != nil {
		why := err.Error()
		if res != nil {
			if l := proc.LastLine(string(res.Stdout)); l != "" && !strings.Contains(why, l) {
				why += ": " + l
			}
		}
		return "", "bwrap cannot start a sandbox here: " + why
	}
	return Bubblewrap, ""
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
	// Timeout, MemoryBytes, Processes and DiskBytes bound the job (0:
	// DefaultStepTimeout, DefaultMemoryBytes, DefaultJobProcesses,
	// DefaultDiskBytes). MemoryBytes is its address space; its tmpfs
	// mounts are sized as shares of it. Processes counts the processes
	// and threads it may start; DiskBytes what it may write to its
	// writable mounts.
	Timeout     time.Duration
	MemoryBytes int64
	Processes   int
	DiskBytes   int64
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
// "" detects one (DetectSandbox; when none works the error is a
// *SandboxError wrapping ErrSandboxUnavailable), python "" finds the
// interpreter (FindPython; the error wraps ErrNoPython when there is
// none).
func NewRunner(dir string, sandbox Sandbox, python string) (*Runner, error) {
	note := ""
	switch sandbox {
	case "":
		sandbox, note = DetectSandbox()
		if sandbox == "" {
			return nil, &SandboxError{Reason: note}
		}
	case Bubblewrap:
	case PathRewrite:
		note = UnsandboxedNote
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
	} else {
		p := pythonAt(python)
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

// Sandbox returns the runner's sandbox and, for an unsandboxed runner,
// the note every report of its runs carries.
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
	box     *bwrapBox
}

var pythonName = lazyre.New(`^python(3(\.[0-9]+)?)?$`)

// newExecutor writes the harness scripts under dir and prepares the
// sandbox. pythonPrefixes are the interpreter's installation prefixes
// (sys.prefix and sys.base_prefix), bound into the sandbox with it.
func newExecutor(kind Sandbox, python string, pythonPrefixes []string, dir string) (*executor, error) {
	ex := &executor{sandbox: kind, python: python, harness: filepath.Join(dir, "harness")}
	if err := os.MkdirAll(ex.harness, 0o755); err != nil {
		return nil, err
	}
	ents, err := harnessFS.ReadDir("harness")
	if err != nil {
		return nil, err
	}
	files := map[string]func() ([]byte, error){
		// The processing launcher the compiler ships: the harness's
		// requirements check imports it (reqcheck.py), so the local run
		// judges a requirements.txt as the shipped launcher does.
		harnessLauncher: func() ([]byte, error) { return fs.ReadFile(stepcode.FS(), harnessLauncher) },
	}
	for _, e := range ents {
		files[e.Name()] = func() ([]byte, error) { return harnessFS.ReadFile("harness/" + e.Name()) }
	}
	for name, read := range files {
		b, err := read()
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(ex.harness, name), b, 0o644); err != nil {
			return nil, err
		}
	}
	if kind == Bubblewrap {
		if ex.bwrap, err = exec.LookPath("bwrap"); err != nil {
			return nil, &SandboxError{Reason: "bwrap (bubblewrap) is not on PATH"}
		}
		if ex.box, err = newBwrapBox(python, pythonPrefixes, ex.harness); err != nil {
			return nil, err
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
	j = bounded(j)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := watchDisk(ctx, cancel, j)
	defer stop()
	var (
		res *proc.Result
		err error
	)
	if ex.sandbox == Bubblewrap {
		res, err = ex.runBwrap(ctx, j, argv)
	} else {
		res, err = ex.runRewrite(ctx, j, argv)
	}
	return res, quotaError(ctx, err)
}

// limits are the proc bounds of a job.
func (ex *executor) limits(c proc.Cmd, j Job) proc.Cmd {
	c.Timeout, c.MemoryBytes, c.FileBytes = j.Timeout, j.MemoryBytes, j.DiskBytes
	c.Processes = processLimit(ex.jobUID(), j.Processes)
	return c
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
	return proc.Run(ctx, ex.limits(proc.Cmd{Path: argv[0], Args: cmdArgs, Env: environ(env), Dir: dir,
		CombinedOutput: true, MaxOutput: maxLog}, j))
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
