//go:build unix && !linux

package proc

import (
	"os/exec"
	"syscall"
)

// MemoryLimitSupported reports whether Cmd.MemoryBytes is applied here:
// not on this system, whose kernel does not enforce RLIMIT_AS.
const MemoryLimitSupported = false

func withLimits(_ Cmd, path string, args []string) (string, []string) { return path, args }

// UserTasks counts the processes of a user: -1, not known here.
func UserTasks(uint32) int { return -1 }

// isolate puts the child in its own process group, killed on cancellation.
func isolate(cmd *exec.Cmd) { isolateGroup(cmd, &syscall.SysProcAttr{Setpgid: true}) }

// onMainThread reports whether the calling goroutine runs on the main
// thread: never here, where no setup changes a thread.
func onMainThread() bool { return false }
