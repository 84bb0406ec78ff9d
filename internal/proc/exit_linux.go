//go:build linux

package proc

import (
	"os"

	"golang.org/x/sys/unix"

	"github.com/cursus-go/cursus/internal/boundedpoll"
)

// exitPoll bounds each wait of awaitExit (a variable for the tests).
var exitPoll = boundedpoll.Max

// pollEnded, when set (by a test), is called after each wait of awaitExit
// that ended without the exit.
var pollEnded func()

// awaitExit returns once the child p has exited (it is not reaped: Wait
// still collects its status, at once), waiting in poll(2) calls of at most
// exitPoll each on a pidfd of the child, so that Wait does not block in
// waitid(2) for the child's whole run, where a race of the Go runtime can
// hold up a stop-the-world, and so the whole program (boundedpoll says
// how). It returns how many of those calls ended without the exit. Where
// no pidfd can be opened (a kernel before 5.3, a seccomp filter), it
// returns at once and Wait blocks as before.
func awaitExit(p *os.Process) (wakes int) {
	fd, err := unix.PidfdOpen(p.Pid, 0)
	if err != nil {
		return 0
	}
	defer unix.Close(fd)
	for {
		exited, err := boundedpoll.Readable(uintptr(fd), exitPoll)
		if exited || err != nil {
			return wakes
		}
		wakes++
		if pollEnded != nil {
			pollEnded()
		}
	}
}
