//go:build !unix

package validation

import "os/exec"

// setProcessGroup is a no-op where process groups are not available;
// cancellation kills the script process only.
func setProcessGroup(cmd *exec.Cmd) {}
