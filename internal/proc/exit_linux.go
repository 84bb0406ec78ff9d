//go:build linux

package proc

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// exitPoll bounds each wait of awaitExit: the longest a stop-the-world can
// be held up by it.
var exitPoll = 100 * time.Millisecond

// awaitExit returns once the child p has exited (it is not reaped: Wait
// still collects its status, at once), waiting in poll(2) calls of at most
// exitPoll each on a pidfd of the child. It returns how many of those
// calls ended without the exit. Where no pidfd can be opened (a kernel
// before 5.3, a seccomp filter), it returns at once and Wait blocks as
// before.
//
// The reason is a race in the Go runtime (1.26 and 1.27): a goroutine
// entering a blocking system call can slip past a stop-the-world that is
// starting, and the stop then waits for that call to return. Blocked in
// waitid(2) (what exec.Cmd.Wait does), that is until the child exits (a
// step script can run for minutes) or the runtime's monitor steps in (60 s
// in the stdin case), and every goroutine of the program stands still
// meanwhile: an MCP server answers nothing. Blocked in a bounded poll(2),
// the collection goes on within exitPoll. The server's stdin has the same
// remedy (waitingReader in package server).
func awaitExit(p *os.Process) (wakes int) {
	fd, err := unix.PidfdOpen(p.Pid, 0)
	if err != nil {
		return 0
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(exitPoll/time.Millisecond))
		switch {
		case n > 0:
			return wakes
		case errors.Is(err, unix.EINTR):
		case err != nil:
			return wakes
		default:
			wakes++
		}
	}
}
