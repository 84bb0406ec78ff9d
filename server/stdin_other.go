//go:build !unix

package server

import (
	"io"
	"os"
)

// waitingStdin returns nil: outside Unix stdin is read as it is (see the
// Unix waitingReader for why it is not there).
func waitingStdin(*os.File) io.ReadCloser { return nil }
