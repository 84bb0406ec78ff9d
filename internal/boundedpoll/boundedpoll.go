//go:build unix

// Package boundedpoll waits for a file descriptor to become readable in
// poll(2) calls of bounded length, never in a system call that can block
// for long.
//
// The reason is a race in the Go runtime (seen with 1.26.8): a goroutine
// entering a blocking system call can slip past a stop-the-world that is
// starting, and the stop then waits for that call to return, with every
// other goroutine of the program standing still meanwhile. Blocked in
// read(2) on an MCP server's stdin, that is until the client writes again,
// which it does not do before the answer the stopped server owes it: the
// runtime's monitor ends the stall 60 s later. Blocked in waitid(2) on a
// child process, it is until the child exits (a step script can run for
// minutes) or the monitor steps in. Blocked in a poll(2) of at most Max,
// the stop goes on within Max.
//
// A minimal reproducer: this program answers each line of its stdin (a
// blocking pipe) after a collection, which stops the world while the
// reading goroutine goes back into read(2).
//
//	package main
//
//	import (
//		"bufio"
//		"os"
//		"runtime"
//	)
//
//	func main() {
//		lines := make(chan []byte)
//		go func() {
//			r := bufio.NewReader(os.Stdin)
//			for {
//				line, err := r.ReadBytes('\n') // blocks in read(2)
//				if err != nil {
//					close(lines)
//					return
//				}
//				lines <- line
//			}
//		}()
//		for line := range lines {
//			runtime.GC()
//			os.Stdout.Write(line)
//		}
//	}
//
// Driven by a client that writes one line and waits for its answer before
// the next (as an MCP host does), built with Go 1.26.8 on a 2-core Linux
// virtual machine, it answered line 18,355 after 60.0 s within two
// minutes of lines; built with Go 1.25.5, it answered 12,156 lines in the
// same two minutes, none slower than 0.35 s. The driver:
//
//	import subprocess, sys, time
//	p = subprocess.Popen([sys.argv[1]], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
//	n, start = 0, time.time()
//	while time.time() - start < 120:
//	    t = time.perf_counter()
//	    p.stdin.write(b"x\n"); p.stdin.flush()
//	    p.stdout.readline()
//	    n += 1
//	    if time.perf_counter() - t > 1:
//	        print(f"line {n}: answered after {time.perf_counter() - t:.1f} s")
//
// Its users: the server's stdin (waitingReader in package server) and the
// wait for a child's exit (package proc, on a pidfd).
package boundedpoll

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// Max bounds each wait: the longest a stop-the-world can be held up by it.
const Max = 100 * time.Millisecond

// Readable waits at most max for fd to become readable (input, its end,
// an error, or for a pidfd, the process's exit) and reports whether it
// is. An interrupted poll is reported as not readable. An error of
// poll(2) itself is returned: the caller's next system call on fd will
// report what is wrong with it.
func Readable(fd uintptr, max time.Duration) (bool, error) {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, int(max/time.Millisecond))
	if errors.Is(err, unix.EINTR) {
		return false, nil
	}
	return n > 0, err
}
