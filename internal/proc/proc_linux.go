//go:build linux

package proc

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// MemoryLimitSupported reports whether Cmd.MemoryBytes is applied here.
const MemoryLimitSupported = true

// withLimits runs the program under a shell that sets the child's
// limits ($1 address space in KiB, $2 file size in 512-byte blocks, $3
// processes; "-" leaves one as it is) and replaces itself with the
// program: the limits hold from the program's first instruction, and the
// shell is gone (the pid and group stay the child's). The process limit
// is -u in bash and busybox, -p in dash.
func withLimits(c Cmd, path string, args []string) (string, []string) {
	num := func(n int64, unit int64) string {
		if n <= 0 {
			return "-"
		}
		return strconv.FormatInt(max(n/unit, 1), 10)
	}
	out := append([]string{"-c", limitScript, "sh", num(c.MemoryBytes, 1024), num(c.FileBytes, 512), num(int64(c.Processes), 1), path}, args...)
	return "/bin/sh", out
}

const limitScript = `{ [ "$1" = - ] || ulimit -v "$1"; } && { [ "$2" = - ] || ulimit -f "$2"; } && ` +
	`{ [ "$3" = - ] || ulimit -u "$3" 2>/dev/null || ulimit -p "$3"; } || exit 126; shift 3; exec "$@"`

// UserTasks counts the processes and threads of the user with this uid
// (real uid), as RLIMIT_NPROC counts them; -1 when /proc cannot say.
func UserTasks(uid uint32) int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return -1
	}
	n := 0
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue // gone meanwhile
		}
		var ruid, threads = -1, 0
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 {
				switch f[0] {
				case "Uid:":
					ruid, _ = strconv.Atoi(f[1])
				case "Threads:":
					threads, _ = strconv.Atoi(f[1])
				}
			}
		}
		if ruid == int(uid) {
			n += max(threads, 1)
		}
	}
	return n
}

// isolate puts the child in its own process group, makes cancellation kill
// the whole group and has the kernel kill the child when the thread that
// started it (locked by Run) dies with the parent.
func isolate(cmd *exec.Cmd) {
	isolateGroup(cmd, &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL})
}

// onMainThread reports whether the calling goroutine runs on the
// program's main thread (whose thread id is the process id).
func onMainThread() bool { return syscall.Gettid() == os.Getpid() }
