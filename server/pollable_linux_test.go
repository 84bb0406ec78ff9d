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

// TestStdinReadByThePoller: a blocking pipe, as an MCP host hands a server
// its stdin, is read through a description of its own that the poller
// serves (pollable): it reads what the pipe carries, a read waiting on it
// ends when it is closed (a blocking read(2) would not), and the pipe's
// own description stays blocking. A regular file is left alone.
func TestStdinReadByThePoller(t *testing.T) {
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "client")
	defer r.Close()
	defer w.Close()
	p := pollable(r)
	if p == nil {
		t.Fatal("pollable refused a blocking pipe")
	}
	if flags, err := unix.FcntlInt(uintptr(fds[0]), unix.F_GETFL, 0); err != nil || flags&unix.O_NONBLOCK != 0 {
		t.Fatalf("the pipe's own description was changed: flags %#x, %v", flags, err)
	}
	if _, err := w.WriteString("ping\n"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n, err := p.Read(buf); err != nil || string(buf[:n]) != "ping\n" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := p.Read(buf)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrClosed) {
			t.Fatalf("the waiting read ended with %v, want os.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("closing did not end the waiting read: it blocks in the kernel, not in the poller")
	}
	// The pipe itself is still open and blocking for whoever else holds it.
	if _, err := w.WriteString("x"); err != nil {
		t.Fatal(err)
	}
	if n, err := io.ReadFull(r, buf[:1]); err != nil || n != 1 {
		t.Fatalf("the pipe after the poller's file closed: %d, %v", n, err)
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
	if got := pollable(f); got != nil {
		got.Close()
		t.Fatal("pollable reopened a regular file, whose reads never wait")
	}
}
