//go:build linux

package proc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// Setup runs on a thread of its own, not the main one; what it changes of
// that thread (here its working directory, unshared from the process's)
// the child inherits and the rest of the program never sees.
func TestSetupChangesOnlyItsOwnThread(t *testing.T) {
	before, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var onMain bool
	for i := 0; i < 20; i++ { // many runs: one would land on the main thread by chance
		c := sh("pwd")
		cleaned := false
		c.Setup = func() (func(), error) {
			onMain = onMain || syscall.Gettid() == os.Getpid()
			if err := unix.Unshare(unix.CLONE_FS); err != nil {
				return nil, err
			}
			if err := unix.Chdir(dir); err != nil {
				return nil, err
			}
			return func() { cleaned = true }, nil
		}
		res, err := Run(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(res.Stdout)); got != dir {
			t.Fatalf("the child runs in %s, want the directory Setup chose (%s)", got, dir)
		}
		if !cleaned {
			t.Fatal("the cleanup did not run")
		}
		if now, _ := os.Getwd(); now != before {
			t.Fatalf("Setup's change leaked to the program: the working directory is %s, was %s", now, before)
		}
	}
	if onMain {
		t.Fatal("Setup ran on the main thread")
	}
}
