//go:build unix

package server

import (
	"io"
	"os"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/cursus-go/cursus/internal/boundedpoll"
)

// stdinWait bounds each wait of a waitingReader for input: the longest a
// stop-the-world can be held up by it.
const stdinWait = boundedpoll.Max

// waitingReader reads a blocking pipe, socket or terminal (stdin, as an
// MCP host hands it to a server) without ever blocking in read(2): it
// waits for input in poll(2) calls of at most stdinWait each
// (boundedpoll, which says why), and reads only once input is there.
// TestStdinWaitsAreBounded is the stall it prevents.
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
		var ready bool
		var perr error
		if err := r.rc.Control(func(fd uintptr) { ready, perr = boundedpoll.Readable(fd, stdinWait) }); err != nil {
			return 0, err
		}
		if ready || perr != nil {
			break // input, its end, or something wrong for the read to report
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
