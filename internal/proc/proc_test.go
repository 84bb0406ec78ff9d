//go:build unix

package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cursus-go/cursus/internal/testenv"
)

// helperEnv makes the test binary act as a parent that starts a long child
// through Run and prints the child's pid (TestParentDeathKillsChild).
const helperEnv = "CURSUS_PROC_TEST_PARENT"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		pidFile := os.Getenv("PID_FILE")
		_, err := Run(context.Background(), Cmd{Path: "/bin/sh", Args: []string{"-c", "echo $$ > " + pidFile + "; exec sleep 60"}})
		fmt.Fprintln(os.Stderr, "helper: child ended:", err)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func sh(script string) Cmd { return Cmd{Path: "/bin/sh", Args: []string{"-c", script}} }

func TestExitStatusAndOutput(t *testing.T) {
	t.Parallel()
	res, err := Run(context.Background(), sh("echo out; echo err >&2; exit 3"))
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 3 || res.ExitCode != 3 {
		t.Fatalf("want exit 3, got %v (%+v)", err, res)
	}
	if string(res.Stdout) != "out\n" || string(res.Stderr) != "err\n" {
		t.Fatalf("stdout %q stderr %q", res.Stdout, res.Stderr)
	}
	if !strings.Contains(err.Error(), "exit status 3: err") {
		t.Fatalf("error %q should give the status and the last stderr line", err)
	}
	res, err = Run(context.Background(), sh("echo ok"))
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("want success, got %v", err)
	}
}

func TestNoInheritedStdioOrEnvironment(t *testing.T) {
	t.Setenv("CURSUS_PROC_SECRET", "s3cr3t")
	c := sh(`cat; echo "[$CURSUS_PROC_SECRET]"; echo "$FOO"`)
	c.Env = []string{"FOO=bar"}
	res, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	// cat reads /dev/null: it ends at once and prints nothing.
	if got := string(res.Stdout); got != "[]\nbar\n" {
		t.Fatalf("stdout %q: stdin must be empty and only Env must reach the child", got)
	}
}

func TestStdinIsHandedOver(t *testing.T) {
	t.Parallel()
	c := sh("cat")
	c.Stdin = []byte("given\n")
	res, err := Run(context.Background(), c)
	if err != nil || string(res.Stdout) != "given\n" {
		t.Fatalf("stdout %q, %v", res.Stdout, err)
	}
}

func TestCombinedOutputKeepsOrder(t *testing.T) {
	t.Parallel()
	c := sh("echo a; echo b >&2; echo c")
	c.CombinedOutput = true
	res, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Stdout) != "a\nb\nc\n" || len(res.Stderr) != 0 {
		t.Fatalf("combined %q, stderr %q", res.Stdout, res.Stderr)
	}
}

func TestOutputCapKeepsTheTail(t *testing.T) {
	t.Parallel()
	c := sh(`i=0; while [ $i -lt 2000 ]; do echo "line $i"; i=$((i+1)); done`)
	c.MaxOutput = 100
	res, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stdout) != 100 || !strings.HasSuffix(string(res.Stdout), "line 1999\n") || res.StdoutDropped == 0 {
		t.Fatalf("want the last 100 bytes kept, got %d bytes (dropped %d): %q", len(res.Stdout), res.StdoutDropped, res.Stdout)
	}
}

func TestOutputCapFailsForData(t *testing.T) {
	t.Parallel()
	c := sh(`while :; do echo xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; done`)
	c.MaxOutput = 1 << 16
	c.FailOnOverflow = true
	// The writer never stops by itself: Run returning shows it was stopped.
	_, err := Run(context.Background(), c)
	if !errors.Is(err, ErrOutputLimit) {
		t.Fatalf("want ErrOutputLimit, got %v", err)
	}
}

// A time-out kills the whole group: a grandchild started in the background
// does not survive.
func TestTimeoutKillsTheGroup(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	c := sh("sleep 60 & echo $! > " + pidFile + "; wait")
	c.Timeout = 300 * time.Millisecond
	res, err := Run(context.Background(), c)
	if !errors.Is(err, ErrTimeout) || res == nil || !res.TimedOut {
		t.Fatalf("want ErrTimeout, got %v", err)
	}
	waitGone(t, readPid(t, pidFile))
}

func TestCancelKillsTheGroup(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			if _, err := os.Stat(pidFile); err == nil {
				time.Sleep(50 * time.Millisecond)
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	_, err := Run(ctx, sh("sleep 60 & echo $! > "+pidFile+"; wait"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	waitGone(t, readPid(t, pidFile))
}

// A child the script left running in the background ends with the script.
func TestGrandchildEndsWithTheChild(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	if _, err := Run(context.Background(), sh("sleep 60 & echo $! > "+pidFile)); err != nil {
		t.Fatal(err)
	}
	waitGone(t, readPid(t, pidFile))
}

func TestMemoryLimit(t *testing.T) {
	t.Parallel()
	if !MemoryLimitSupported {
		t.Skip("RLIMIT_AS is not applied on this system")
	}
	c := sh("ulimit -v")
	c.MemoryBytes = 512 << 20
	res, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(res.Stdout)); got != strconv.Itoa(512<<10) {
		t.Fatalf("the child's limit is %q KiB, want %d", got, 512<<10)
	}
	py := testenv.Python()
	if py == "" {
		testenv.Missing(t, "python3 is needed for the allocation check: not found")
	}
	c = Cmd{Path: py, Args: []string{"-c", "b = bytearray(1 << 30); print('allocated')"}, MemoryBytes: 256 << 20}
	res, err = Run(context.Background(), c)
	var ee *ExitError
	if !errors.As(err, &ee) || strings.Contains(string(res.Stdout), "allocated") {
		t.Fatalf("a 1 GiB allocation under a 256 MiB limit must fail, got %v, stdout %q", err, res.Stdout)
	}
	if !strings.Contains(err.Error(), "memory limit is 256 MiB") || !strings.Contains(err.Error(), "MemoryError") {
		t.Fatalf("the error should name the limit and the MemoryError: %v", err)
	}
}

// Killing the parent kills the child (Pdeathsig), even though nothing
// cancels a context.
func TestParentDeathKillsChild(t *testing.T) {
	t.Parallel()
	if os.Getenv(helperEnv) != "" {
		t.Skip("helper")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	parent := exec.Command(exe, "-test.run=^$")
	parent.Env = append(os.Environ(), helperEnv+"=1", "PID_FILE="+pidFile)
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(pidFile); err == nil && len(strings.TrimSpace(string(b))) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the helper's child never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	child := readPid(t, pidFile)
	_ = parent.Process.Kill()
	_ = parent.Wait()
	waitGone(t, child)
}

func TestStartFailure(t *testing.T) {
	t.Parallel()
	if _, err := Run(context.Background(), Cmd{Path: "/nonexistent/program"}); err == nil {
		t.Fatal("want an error for a missing program")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, sh("true")); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled context must not start anything: %v", err)
	}
}

func TestTail(t *testing.T) {
	t.Parallel()
	if got := Tail([]byte("one\ntwo\nthree\n"), 8); got != "three" {
		t.Fatalf("Tail = %q", got)
	}
	if got := LastLine("a\nb\n\n  "); got != "b" {
		t.Fatalf("LastLine = %q", got)
	}
}

func readPid(t *testing.T, file string) int {
	t.Helper()
	var b []byte
	var err error
	for i := 0; i < 100; i++ {
		if b, err = os.ReadFile(file); err == nil && len(strings.TrimSpace(string(b))) > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %s: %q", file, b)
	}
	return pid
}

// waitGone waits until pid no longer runs (a zombie counts as gone: it is
// dead, waiting for its reaper).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // a limit: a killed process goes at once
	for time.Now().Before(deadline) {
		if syscall.Kill(pid, 0) != nil || isZombie(pid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("process %d still runs", pid)
}

func isZombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z'
	}
	return false
}

func TestExtraFilesAreInherited(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := w.WriteString("from the parent"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	c := sh("cat <&3")
	c.ExtraFiles = []*os.File{r}
	res, err := Run(context.Background(), c)
	if err != nil || string(res.Stdout) != "from the parent" {
		t.Fatalf("the child read %q from descriptor 3 (%v)", res.Stdout, err)
	}
}

func TestUserSwitchesTheChildsIDs(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("only root can start a child as another user")
	}
	c := sh("id -u; id -g; id -G")
	c.User = &User{UID: 65534, GID: 65534}
	res, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(res.Stdout)); strings.Join(got, " ") != "65534 65534 65534" {
		t.Fatalf("the child runs as %q, want uid and gid 65534 and no other group", got)
	}
}

func TestStopIsCalledOnTimeoutAndAfterExit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		script  string
		timeout time.Duration
	}{{"timeout", "sleep 30", 200 * time.Millisecond}, {"exit", "true", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			var stops atomic.Int32
			c := sh(tc.script)
			c.Timeout, c.Stop = tc.timeout, func() { stops.Add(1) }
			_, err := Run(context.Background(), c)
			if tc.timeout > 0 && !errors.Is(err, ErrTimeout) {
				t.Fatalf("want a time-out, got %v", err)
			}
			if stops.Load() == 0 {
				t.Fatal("Stop was not called")
			}
		})
	}
}

// TestFileAndProcessLimits: a child writes no file past Cmd.FileBytes and
// its user gets no more processes than Cmd.Processes (the kernel does not
// hold root to RLIMIT_NPROC, so a root test runs the child as nobody).
func TestFileAndProcessLimits(t *testing.T) {
	if !MemoryLimitSupported {
		t.Skip("rlimits are not applied on this system")
	}
	big := filepath.Join(t.TempDir(), "big")
	c := sh("head -c 1048576 /dev/zero > " + big)
	c.FileBytes = 64 << 10
	if _, err := Run(context.Background(), c); err == nil {
		t.Error("a 1 MiB write under a 64 KiB file limit succeeded")
	}
	if st, err := os.Stat(big); err != nil || st.Size() > 64<<10 {
		t.Errorf("the file under a 64 KiB limit: %v %v", st, err)
	}
	py, err := exec.LookPath("/usr/bin/python3") // readable by nobody, unlike a pyenv shim
	if err != nil {
		testenv.Missing(t, "python3 is needed for the fork check: not found")
	}
	uid := uint32(os.Getuid())
	c = Cmd{Path: py, Args: []string{"-c", `import os, time
ok = 0
for i in range(40):
    try:
        pid = os.fork()
    except OSError as e:
        print("refused after", ok, e.strerror)
        break
    if pid == 0:
        time.sleep(3)
        os._exit(0)
    ok += 1
else:
    print("forked", ok)
`}}
	if uid == 0 {
		if !UserSupported {
			t.Skip("running as another user is not supported here")
		}
		uid = 65534
		c.User = &User{UID: uid, GID: 65534}
	}
	c.Processes = UserTasks(uid) + 10
	res, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if out := string(res.Stdout); !strings.Contains(out, "refused after") {
		t.Errorf("40 forks under a limit of 10 more: %s", out)
	}
}
