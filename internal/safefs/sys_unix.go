//go:build unix

package safefs

import (
	"os"
	"syscall"
)

// readFlags open a file for reading without blocking on a FIFO or device
// and without making a terminal the controlling one.
const readFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY
