//go:build !unix

package proc

import "os/exec"

// MemoryLimitSupported reports whether Cmd.MemoryBytes is applied here: not
// on this system.
const MemoryLimitSupported = false

func withLimits(_ Cmd, path string, args []string) (string, []string) { return path, args }

// UserTasks counts the processes of a user: -1, not known here.
func UserTasks(uint32) int { return -1 }

// isolate has no process groups to use here: cancellation kills the child
// only.
func isolate(*exec.Cmd) {}

func killGroup(*exec.Cmd) {}

// UserSupported reports whether Cmd.User is applied here: not on this
// system.
const UserSupported = false

func setUser(*exec.Cmd, *User) {}

// onMainThread reports whether the calling goroutine runs on the main
// thread: never here, where no setup changes a thread.
func onMainThread() bool { return false }
