//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

// isolateGroup gives the child attr (its own process group, at least) and
// makes cancellation kill the whole group.
func isolateGroup(cmd *exec.Cmd, attr *syscall.SysProcAttr) {
	cmd.SysProcAttr = attr
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

// UserSupported reports whether Cmd.User is applied here.
const UserSupported = true

// setUser makes the child run as u, without supplementary groups (nil: as
// the caller).
func setUser(cmd *exec.Cmd, u *User) {
	if u != nil {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: u.UID, Gid: u.GID, Groups: []uint32{}}
	}
}
