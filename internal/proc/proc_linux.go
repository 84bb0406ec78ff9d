//go:build linux

package proc

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// MemoryLimitSupported reports whether Cmd.MemoryBytes is applied here.
const MemoryLimitSupported = true

// memoryScript sets the address-space limit ($1, in KiB) and replaces the
// shell with the program: the limit holds from the program's first
// instruction, and the shell is gone (the pid and group stay the child's).
const memoryScript = `ulimit -v "$1" || exit 126; shift; exec "$@"`

func withMemoryLimit(bytes int64, path string, args []string) (string, []string) {
	kib := bytes >> 10
	if kib < 1 {
		kib = 1
	}
	out := append([]string{"-c", memoryScript, "sh", strconv.FormatInt(kib, 10), path}, args...)
	return "/bin/sh", out
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
