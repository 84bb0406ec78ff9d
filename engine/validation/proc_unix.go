//go:build unix

package validation

import (
	"os/exec"
	"syscall"
)

// setProcessGroup runs the script in its own process group and makes
// cancellation kill the whole group (the script and anything it started).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
