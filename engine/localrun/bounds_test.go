package localrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cursus-go/cursus/internal/testenv"
)

// boundsRunner is a bubblewrap runner and a writable output directory
// mounted at /opt/ml/output.
func boundsRunner(t *testing.T) (*Runner, Mount) {
	t.Helper()
	needPython(t)
	needSandbox(t, Bubblewrap)
	r, err := NewRunner(t.TempDir(), Bubblewrap, "")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "output")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	return r, Mount{Container: "/opt/ml/output", Host: out, Writable: true}
}

// A job started as many processes as it liked (400 forks); now no more
// than its allowance beyond what its user has.
func TestJobProcessLimit(t *testing.T) {
	testenv.AlsoUnprivileged(t)
	r, out := boundsRunner(t)
	res, err := r.Run(context.Background(), Job{Command: []string{"python3", "-c", `import os, time
ok = 0
for i in range(200):
    try:
        pid = os.fork()
    except OSError as e:
        print("refused after", ok, e.strerror)
        break
    if pid == 0:
        time.sleep(5)
        os._exit(0)
    ok += 1
else:
    print("forked", ok)
`}, Mounts: []Mount{out}, Processes: 50, Scratch: t.TempDir(), Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if log := string(res.Stdout); !strings.Contains(log, "refused after") {
		t.Errorf("200 forks with an allowance of 50: %s", log)
	}
}

// A job wrote as much as the disk would hold to its outputs; now past its
// quota (files written one after the other, each under the file size
// limit) it is stopped with a *DiskQuotaError, and no file passes the
// quota (RLIMIT_FSIZE).
func TestJobDiskQuota(t *testing.T) {
	testenv.AlsoUnprivileged(t)
	r, out := boundsRunner(t)
	start := time.Now()
	_, err := r.Run(context.Background(), Job{Command: []string{"python3", "-c", `import time
for i in range(64):
    with open("/opt/ml/output/part-%d" % i, "wb") as f:
        f.write(b"x" * (1 << 20))
time.sleep(60)
`}, Mounts: []Mount{out}, DiskBytes: 8 << 20, Scratch: t.TempDir(), Timeout: 2 * time.Minute})
	var q *DiskQuotaError
	if !errors.As(err, &q) || q.Quota != 8<<20 {
		t.Fatalf("a job writing 64 MiB under an 8 MiB quota: %v", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the job was stopped after %s", d)
	}
	_, err = r.Run(context.Background(), Job{Command: []string{"python3", "-c", `f = open("/opt/ml/output/one", "wb")
f.write(b"x" * (16 << 20))
`}, Mounts: []Mount{out}, DiskBytes: 8 << 20, Scratch: t.TempDir(), Timeout: time.Minute})
	if err == nil {
		t.Error("one 16 MiB file under an 8 MiB quota was written")
	}
	if st, err := os.Stat(filepath.Join(out.Host, "one")); err == nil && st.Size() > 8<<20 {
		t.Errorf("the file is %d bytes, over the quota", st.Size())
	}
}

// A job stopped the sandbox's init with ptrace and held the call until
// the step's time limit (one hour); ptrace is refused now, and a job that
// stops itself is ended at its time limit all the same. The test logs how
// long past the limit the job took to end.
func TestJobStoppedIsEndedAtItsTimeLimit(t *testing.T) {
	testenv.AlsoUnprivileged(t)
	r, out := boundsRunner(t)
	const limit = 2 * time.Second
	start := time.Now()
	res, err := r.Run(context.Background(), Job{Command: []string{"python3", "-c", `import ctypes, os, signal
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
rc = libc.ptrace(0x4206, 1, None, None)   # PTRACE_SEIZE the sandbox's init
print("seize", rc, os.strerror(ctypes.get_errno()), flush=True)
rc = libc.ptrace(0x4207, 1, None, None)   # PTRACE_INTERRUPT it
print("interrupt", rc, os.strerror(ctypes.get_errno()), flush=True)
os.kill(os.getpid(), signal.SIGSTOP)
`}, Mounts: []Mount{out}, Scratch: t.TempDir(), Timeout: limit})
	took := time.Since(start)
	if err == nil {
		t.Fatal("a stopped job succeeded")
	}
	if res == nil || !strings.Contains(string(res.Stdout), "seize -1 Operation not permitted") {
		t.Errorf("ptrace of the sandbox's init was not refused: %v", res)
	}
	if took > limit+10*time.Second {
		t.Errorf("a stopped job with a %s limit ended after %s", limit, took)
	}
	t.Logf("a stopped job with a %s time limit ended after %s (%s past the limit)", limit, took.Round(time.Millisecond), (took - limit).Round(time.Millisecond))
}

// A job of validate.run_scripts ran with no memory limit (20 GiB mapped),
// and a tmpfs of up to half the RAM each; every job now has the default
// memory limit, and its tmpfs mounts are shares of it.
func TestJobDefaultBounds(t *testing.T) {
	r, out := boundsRunner(t)
	res, err := r.Run(context.Background(), Job{Command: []string{"python3", "-c", `import os, resource
st = os.statvfs("/tmp")
print("as", resource.getrlimit(resource.RLIMIT_AS)[0], "tmp", st.f_blocks * st.f_frsize)
`}, Mounts: []Mount{out}, Scratch: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("as %d tmp %d", int64(DefaultMemoryBytes), tmpfsSize(DefaultMemoryBytes, tmpShare))
	if got := strings.TrimSpace(string(res.Stdout)); got != want {
		t.Errorf("a job without bounds of its own: %q, want %q", got, want)
	}
}

// Jobs reached host unix sockets outside /run, /tmp and the homes; a job
// now sees no directory of the host that holds them, and no socket at
// all. (/root may be there, holding only the interpreter's installation
// when it lies below it.)
func TestJobSeesNoHostSockets(t *testing.T) {
	testenv.AlsoUnprivileged(t)
	r, out := boundsRunner(t)
	res, err := r.Run(context.Background(), Job{Command: []string{"python3", "-c", `import os, stat
for d in ("/run", "/var", "/home", "/srv", "/mnt", "/media"):
    if os.path.exists(d):
        print("SEES", d)
for top, dirs, files in os.walk("/"):
    if top in ("/proc", "/sys", "/usr"):  # no socket there; /usr is only slow to walk
        dirs[:] = []
        continue
    for f in files:
        p = os.path.join(top, f)
        try:
            if stat.S_ISSOCK(os.lstat(p).st_mode):
                print("SOCKET", p)
        except OSError:
            pass
print("done")
`}, Mounts: []Mount{out}, Scratch: t.TempDir(), Timeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if log := string(res.Stdout); strings.Contains(log, "SEES") || strings.Contains(log, "SOCKET") || !strings.Contains(log, "done") {
		t.Errorf("a job sees host sockets or their directories: %s", log)
	}
}
