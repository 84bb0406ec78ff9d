//go:build unix

package workflow

import (
	"errors"
	"fmt"
	"github.com/cursus-go/cursus/internal/safefs"
	"path/filepath"
	"syscall"
)

// lockRun takes an exclusive, non-blocking lock on dir/.lock (flock), so two
// processes never run the same run at once. The lock dies with the process.
func lockRun(fsys *safefs.FS, dir string) (func(), error) {
	f, err := fsys.OpenLock(filepath.Join(dir, ".lock"))
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrRunBusy
		}
		return nil, fmt.Errorf("flock: %w", err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}
