//go:build unix && !linux

package proc

import (
	"os/exec"
	"syscall"
)

// MemoryLimitSupported reports whether Cmd.MemoryBytes is applied here:
// not on this system, whose kernel does not enforce RLIMIT_AS.
const MemoryLimitSupported = false

func withMemoryLimit(_ int64, path string, args []string) (string, []string) { return path, args }

// isolate puts the child in its own process group and makes cancellation
// kill the whole group.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroupOf(cmd) }
}

func killGroup(cmd *exec.Cmd) { _ = killGroupOf(cmd) }

func killGroupOf(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err == syscall.ESRCH {
		return nil
	}
	return err
}
