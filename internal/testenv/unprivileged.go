package testenv

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// EnvUnprivileged is set in a test binary that AlsoUnprivileged started
// as an unprivileged user.
const EnvUnprivileged = "CURSUS_TEST_UNPRIVILEGED"

// unprivilegedUser is the user AlsoUnprivileged runs a test as.
const unprivilegedUser = "65534"

// AlsoUnprivileged runs the calling test a second time as an unprivileged
// user (uid and gid 65534, no supplementary groups) when the tests run as
// root, as a subtest "unprivileged" that fails with the second run's
// output when it fails; the test then goes on as root. It uses setpriv
// (util-linux) on a copy of the test binary that user can run, in the
// package's directory, with the environment's PATH, CI and CURSUS_*
// variables (and CURSUS_PYTHON pointed at /usr/bin/python3 when the
// interpreter is where that user cannot reach it). Run by a user other
// than root, or in the second run itself, it does nothing: the test runs
// once, as that user.
func AlsoUnprivileged(t *testing.T) {
	t.Helper()
	if os.Getenv(EnvUnprivileged) != "" || runtime.GOOS != "linux" || os.Geteuid() != 0 {
		return
	}
	t.Run("unprivileged", func(t *testing.T) {
		setpriv, err := exec.LookPath("setpriv")
		if err != nil {
			Missing(t, "setpriv (util-linux) is needed to run the test again as an unprivileged user")
		}
		bin := copyTestBinary(t)
		wd, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		name := strings.SplitN(t.Name(), "/", 2)[0]
		cmd := exec.Command(setpriv, "--reuid="+unprivilegedUser, "--regid="+unprivilegedUser, "--clear-groups", "--",
			bin, "-test.run=^"+name+"$", "-test.count=1", "-test.v")
		cmd.Dir = wd
		cmd.Env = []string{EnvUnprivileged + "=1", "HOME=" + os.TempDir(), "TMPDIR=" + os.TempDir(), "LANG=C.UTF-8"}
		for _, kv := range os.Environ() {
			k, _, _ := strings.Cut(kv, "=")
			if k == "PATH" || k == "CI" || strings.HasPrefix(k, "CURSUS_") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		if py := os.Getenv("CURSUS_PYTHON"); (py == "" || !reachable(py)) && reachable("/usr/bin/python3") {
			cmd.Env = append(cmd.Env, "CURSUS_PYTHON=/usr/bin/python3")
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("as uid %s: %v\n%s", unprivilegedUser, err, out)
		}
		if strings.Contains(string(out), "--- SKIP: "+name) {
			t.Logf("as uid %s the test skipped:\n%s", unprivilegedUser, out)
		}
	})
}

// copyTestBinary copies the running test binary where any user can run it.
func copyTestBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "cursus-unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	bin := filepath.Join(dir, filepath.Base(self))
	out, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return bin
}

// reachable reports whether every directory above p lets anyone through
// and p itself lets anyone read and run it.
func reachable(p string) bool {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	st, err := os.Stat(real)
	if err != nil || st.Mode().Perm()&0o005 != 0o005 {
		return false
	}
	for d := filepath.Dir(real); ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil || st.Mode().Perm()&0o001 == 0 {
			return false
		}
		if d == "/" {
			return true
		}
	}
}
