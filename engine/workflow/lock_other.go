//go:build !unix

package workflow

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// lockRun takes an exclusive lock on dir by creating dir/.lock exclusively;
// it is removed when the run ends. A process killed mid-run leaves it
// behind: delete it by hand.
func lockRun(dir string) (func(), error) {
	p := filepath.Join(dir, ".lock")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, ErrRunBusy
	}
	if err != nil {
		return nil, err
	}
	_ = f.Close()
	return func() { _ = os.Remove(p) }, nil
}
