//go:build !unix

package workflow

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/cursus-go/cursus/internal/safefs"
)

// lockRun takes an exclusive lock on dir by creating the directory
// dir/.lock (creation is atomic and exclusive) through fsys; it is removed
// when the run ends. A process killed mid-run leaves it behind: delete it by
// hand.
func lockRun(fsys *safefs.FS, dir string) (func(), error) {
	p := filepath.Join(dir, ".lock")
	err := fsys.Mkdir(p, 0o755)
	if errors.Is(err, fs.ErrExist) {
		return nil, ErrRunBusy
	}
	if err != nil {
		return nil, err
	}
	return func() { _ = fsys.Remove(p) }, nil
}
