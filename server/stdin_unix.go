//go:build unix

package server

import (
	"errors"
	"io"
	"os"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// stdinWait bounds each wait of a waitingReader for input: the longest a
// stop-the-world can be held up by it.
const stdinWait = 100 // milliseconds

// waitingReader reads a blocking pipe, socket or terminal (stdin, as an
// MCP host hands it to a server) without ever blocking in read(2): it
// waits for input in poll(2) calls of at most stdinWait each, and reads
// only once input is there.
//
// The reason is a race in the Go runtime (1.26 and 1.27; 1.25 does not
// have it): a goroutine entering a blocking system call can slip past a
// stop-the-world that is starting, and the stop then waits for that call
// to return. A server blocked in read(2) on stdin waits for the client,
// the client waits for the answer, and the answer waits for the
// collector's stop-the-world, until the runtime's monitor takes the
// reader's processor away: 60 s later when nothing else is scheduled.
// Blocked in a bounded poll(2) instead, the call returns within stdinWait
// and the collection goes on (TestStdinWaitsAreBounded).
//
// The runtime's network poller would avoid the wait altogether, but it
// needs a non-blocking description of stdin that is ours alone, which
// only Linux can make (by opening /proc/self/fd/0), and each message then
// costs two more system calls and a thread hand-off: 30 µs more per call
// on a small virtual machine, against a 100 ms wait about once in 100,000
// calls here.
type waitingReader struct {
	f      *os.File
	rc     syscall.RawConn
	closed atomic.Bool
}

// waitingStdin returns a waitingReader of f when f is a blocking pipe,
// socket or terminal, and nil for anything else (a regular file's reads
// never wait; a non-blocking file is served by the runtime's poller).
func waitingStdin(f *os.File) io.ReadCloser {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket|os.ModeCharDevice) == 0 {
		return nil
	}
	rc, err := f.SyscallConn() // not f.Fd(), which would make f blocking
	if err != nil {
		return nil
	}
	blocking := false
	if rc.Control(func(fd uintptr) {
		flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		blocking = err == nil && flags&unix.O_NONBLOCK == 0
	}) != nil || !blocking {
		return nil
	}
	return &waitingReader{f: f, rc: rc}
}

// Read implements io.Reader: it waits until f has input (or its end, or
// an error to report), then reads it. After Close it returns os.ErrClosed
// within stdinWait.
func (r *waitingReader) Read(p []byte) (int, error) {
	for {
		if r.closed.Load() {
			return 0, os.ErrClosed
		}
		ready := false
		var perr error
		if err := r.rc.Control(func(fd uintptr) {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			n, err := unix.Poll(fds, stdinWait)
			ready, perr = n > 0, err
		}); err != nil {
			return 0, err
		}
		if perr != nil && !errors.Is(perr, unix.EINTR) {
			break // let the read report what is wrong
		}
		if ready {
			break
		}
	}
	return r.f.Read(p) // input (or its end) is there: this does not wait; closed, it says so
}

// Close implements io.Closer: it closes f; a Read waiting for input
// returns os.ErrClosed within stdinWait.
func (r *waitingReader) Close() error {
	r.closed.Store(true)
	return r.f.Close()
}
