//go:build unix

package server

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
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

// TestStdinWaitsAreBounded: the client-and-server exchange that stalls the
// Go runtime when the server reads stdin in a blocking read(2) (a
// stop-the-world starting right as the reader goes back to wait for the
// next line waits for that read, and the read for the client, until the
// runtime's monitor takes the reader's processor away: 60 s later when
// nothing else is scheduled, here when the test's timer fires) runs
// through a waitingReader with no exchange waiting more than its bounded
// poll. With a plain *os.File it fails within a few thousand exchanges on
// Go 1.26 and 1.27.
func TestStdinWaitsAreBounded(t *testing.T) {
	r, w := blockingPipe(t)
	in := waitingStdin(r)
	if in == nil {
		t.Fatal("waitingStdin refused a blocking pipe")
	}
	lines := make(chan []byte)
	go func() {
		br := bufio.NewReader(in)
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- line
		}
	}()
	exchanges := 6000
	if testing.Short() {
		exchanges = 300
	}
	const slow = 3 * time.Second // a bounded wait is stdinWait, and a collection
	for i := range exchanges {
		start := time.Now()
		if _, err := w.WriteString("ping\n"); err != nil {
			t.Fatal(err)
		}
		select {
		case <-lines:
		case <-time.After(30 * time.Second):
			t.Fatalf("exchange %d: no line within 30 s", i)
		}
		runtime.GC() // stops the world while the reader goes back to wait
		if took := time.Since(start); took > slow {
			t.Fatalf("exchange %d took %v: the reader and a stop-the-world waited on each other", i, took.Round(time.Millisecond))
		}
	}
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestWaitingStdin: what waitingStdin takes, and how its reader ends. It
// reads what the pipe carries and reports the pipe's end; Close ends a
// Read that waits for input within stdinWait, with os.ErrClosed; the
// pipe stays blocking for whoever else holds it. Regular files and
// non-blocking pipes are left alone.
func TestWaitingStdin(t *testing.T) {
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
	time.Sleep(30 * time.Millisecond)
	start := time.Now()
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrClosed) {
			t.Fatalf("the waiting read ended with %v, want os.ErrClosed", err)
		}
		if took := time.Since(start); took > 5*stdinWait {
			t.Errorf("the waiting read ended %v after Close", took)
		}
	case <-time.After(10 * time.Second):
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
