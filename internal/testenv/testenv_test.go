package testenv

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
)

// Under CI a missing tool fails the test; elsewhere it skips it; a nil
// error lets it go on.
func TestMissing(t *testing.T) {
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		var skipped, failed bool
		done := make(chan struct{})
		ft := &fakeT{skip: &skipped, fail: &failed}
		go func() { // Skip and Fatal end their goroutine, as in a test
			defer close(done)
			Need(ft, errors.New("bwrap is not installed"))
		}()
		<-done
		if skipped != (ci == "") || failed != (ci != "") {
			t.Errorf("CI=%q: skipped %v, failed %v", ci, skipped, failed)
		}
		if !strings.Contains(ft.msg, "bwrap is not installed") {
			t.Errorf("CI=%q: the reason is not given: %q", ci, ft.msg)
		}
	}
	ft := &fakeT{skip: new(bool), fail: new(bool)}
	Need(ft, nil)
	if *ft.skip || *ft.fail {
		t.Error("Need(nil) ended the test")
	}
}

// fakeT records how a test would have ended.
type fakeT struct {
	testing.TB
	skip, fail *bool
	msg        string
}

func (f *fakeT) Helper() {}

func (f *fakeT) Skip(args ...any) {
	*f.skip, f.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}

func (f *fakeT) Fatalf(format string, args ...any) {
	*f.fail, f.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// The interpreter every test uses is CURSUS_PYTHON, which the package's
// init sets to Debian's python3 where it exists and nothing set it.
func TestOnePythonForEveryTest(t *testing.T) {
	if _, err := os.Stat(DebianPython); err == nil && os.Getenv(EnvPython) == "" {
		t.Fatalf("%s is not set though %s exists", EnvPython, DebianPython)
	}
	t.Setenv(EnvPython, "/nonexistent/python3")
	if got := Python(); got != "" {
		t.Errorf("Python() = %q for a missing interpreter, want \"\"", got)
	}
	t.Setenv(EnvPython, DebianPython)
	if _, err := os.Stat(DebianPython); err == nil {
		if got := Python(); got != DebianPython {
			t.Errorf("Python() = %q, want %s", got, DebianPython)
		}
	}
}
