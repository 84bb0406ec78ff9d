//go:build unix

package server

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// blockingPipe is a pipe whose ends are in blocking mode, as an MCP host
// hands a server its stdin (os.Pipe makes non-blocking ones).
func blockingPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	var fds [2]int
	if err := unix.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	unix.CloseOnExec(fds[0])
	unix.CloseOnExec(fds[1])
	r, w = os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "client")
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// TestWaitingStdin: what waitingStdin takes, and how its reader ends. It
// reads what the pipe carries and reports the pipe's end; Close ends a
// Read that waits for input within stdinWait, with os.ErrClosed; the
// pipe stays blocking for whoever else holds it. Regular files and
// non-blocking pipes are left alone.
func TestWaitingStdin(t *testing.T) {
	t.Parallel()
	r, w := blockingPipe(t)
	in := waitingStdin(r)
	if in == nil {
		t.Fatal("waitingStdin refused a blocking pipe")
	}
	if flags, err := unix.FcntlInt(r.Fd(), unix.F_GETFL, 0); err != nil || flags&unix.O_NONBLOCK != 0 {
		t.Fatalf("the pipe was made non-blocking: flags %#x, %v", flags, err)
	}
	if _, err := w.WriteString("ping\n"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n, err := in.Read(buf); err != nil || string(buf[:n]) != "ping\n" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := in.Read(buf)
		done <- err
	}()
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
	// The read ends whether it was already waiting or starts after Close;
	// the limit turns a read that never ends into a failure.
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrClosed) {
			t.Fatalf("the waiting read ended with %v, want os.ErrClosed", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Close did not end the waiting read")
	}

	r2, w2 := blockingPipe(t)
	in2 := waitingStdin(r2)
	w2.WriteString("last")
	w2.Close()
	if b, err := io.ReadAll(in2); err != nil || string(b) != "last" {
		t.Fatalf("to the pipe's end: %q, %v", b, err)
	}

	file := filepath.Join(t.TempDir(), "requests.jsonl")
	if err := os.WriteFile(file, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if waitingStdin(f) != nil {
		t.Error("waitingStdin took a regular file, whose reads never wait")
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	if waitingStdin(pr) != nil {
		t.Error("waitingStdin took a non-blocking pipe, which the runtime's poller serves")
	}
}
