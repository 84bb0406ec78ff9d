// Package proc runs the child processes of Cursus (the script analyzer,
// step scripts, sandboxed jobs) with bounds, so that no child can hang,
// exhaust or outlive the program that started it:
//
//   - a time limit (Cmd.Timeout) on top of the caller's context; on either
//     the whole process group is killed;
//   - a memory limit (Cmd.MemoryBytes): the address-space limit RLIMIT_AS,
//     a file size limit (Cmd.FileBytes, RLIMIT_FSIZE) and a process limit
//     (Cmd.Processes, RLIMIT_NPROC), set in the child before the program
//     starts (on Linux through `/bin/sh -c 'ulimit -v N ...; exec "$@"'`,
//     so the limits are in place before the first instruction and no
//     cgroup is needed);
//   - its own process group, killed when the context ends, after the child
//     exits (a background grandchild does not survive it) and, on Linux,
//     when the parent dies (Pdeathsig SIGKILL);
//   - no inherited stdio: stdin is /dev/null (or bytes the caller hands
//     over, Cmd.Stdin), stdout and stderr are
//     captured in memory with a size cap (Cmd.MaxOutput). A log keeps its
//     newest bytes; a data stream (Cmd.FailOnOverflow) stops the child with
//     ErrOutputLimit instead of being cut;
//   - the environment is exactly Cmd.Env: nothing of the caller's
//     environment (credentials included) leaks in unless passed;
//   - on Linux, the wait for the child's exit never blocks in waitid(2),
//     which a race of the Go runtime can let hold up a stop-the-world, and
//     so the whole program, until the child exits or the runtime's
//     monitor steps in: the exit is awaited in poll(2) calls of at most
//     100 ms on a pidfd (awaitExit).
//
// Run returns the captured output and exit status in a *Result; a non-zero
// exit is an *ExitError, a time-out ErrTimeout (wrapped), a cancelled
// context the context's error.
package proc
