//go:build !linux

package safefs

import (
	"io"
	"io/fs"
	"os"
)

// writeUnnamed is Linux-only (O_TMPFILE); elsewhere the caller writes a
// named temporary file.
func writeUnnamed(*os.Root, string, io.Reader, fs.FileMode) (bool, io.Reader, error) {
	return false, nil, nil
}
