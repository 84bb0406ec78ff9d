package server

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// pollable returns a new file reading what f reads, served by the Go
// runtime's network poller, when f is a pipe or a terminal; nil otherwise,
// and on any failure.
//
// The reason is a deadlock in the Go runtime (1.26 and 1.27; 1.25 does
// not have it): a goroutine entering a blocking system call can slip past
// a stop-the-world that is starting, which then waits for that call to
// return. A server blocked in read(2) on stdin waits for the client, the
// client waits for the answer, and the answer waits for the collector's
// stop-the-world: the session hangs for good. A read served by the poller
// parks its goroutine instead of blocking its thread in the kernel, so no
// stop-the-world waits on it (TestStdinReadByThePoller).
//
// Opening /proc/self/fd/N of a pipe or a terminal makes a new open file
// description of it, so the non-blocking mode is ours alone: the process
// that handed us stdin, or shares it, reads and writes it as before.
// Closing the new file also ends a read in progress, which closing a
// blocking stdin does not.
func pollable(f *os.File) *os.File {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeCharDevice) == 0 {
		return nil
	}
	rc, err := f.SyscallConn() // not f.Fd(), which would make f blocking
	if err != nil {
		return nil
	}
	var path string
	if rc.Control(func(fd uintptr) {
		if flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0); err == nil && flags&unix.O_NONBLOCK == 0 {
			path = "/proc/self/fd/" + strconv.Itoa(int(fd))
		}
	}) != nil || path == "" {
		return nil // already non-blocking: the poller serves it if it can
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	return os.NewFile(uintptr(fd), f.Name())
}
