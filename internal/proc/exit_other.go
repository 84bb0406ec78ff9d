//go:build !linux

package proc

import "os"

// awaitExit returns at once here: Wait blocks in the system's wait call.
// (On Linux it waits for the exit in bounded polls; see exit_linux.go.)
func awaitExit(*os.Process) int { return 0 }
