package localrun

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/cursus-go/cursus/internal/proc"
)

// Bounds of every job beyond its time and memory limits (docs/sandbox.md,
// "What a job may use").
const (
	// DefaultJobProcesses is how many processes and threads a job may
	// start beyond those its user already has (RLIMIT_NPROC, which the
	// kernel counts per user): a fork bomb stops there.
	DefaultJobProcesses = 512
	// DefaultDiskBytes bounds what a job writes to its writable mounts
	// (its outputs, model and code directories) together, and so the
	// largest file it may write (RLIMIT_FSIZE). Its tmpfs mounts are
	// bounded by their size instead.
	DefaultDiskBytes = 16 << 30
	// diskPoll is how often the runner measures a job's writable mounts
	// against its disk quota.
	diskPoll = 500 * time.Millisecond
)

// DiskQuotaError is a job stopped because it wrote more than its disk
// quota to its writable mounts.
type DiskQuotaError struct {
	Quota int64
	Wrote int64
}

// Error says the quota and what the job wrote.
func (e *DiskQuotaError) Error() string {
	return fmt.Sprintf("the job wrote more than its disk quota of %d MiB to its outputs (at least %d MiB); it was stopped", e.Quota>>20, e.Wrote>>20)
}

// bounded is the job with every bound set: the defaults where it sets
// none.
func bounded(j Job) Job {
	if j.Timeout <= 0 {
		j.Timeout = DefaultStepTimeout
	}
	if j.MemoryBytes <= 0 {
		j.MemoryBytes = DefaultMemoryBytes
	}
	if j.Processes <= 0 {
		j.Processes = DefaultJobProcesses
	}
	if j.DiskBytes <= 0 {
		j.DiskBytes = DefaultDiskBytes
	}
	return j
}

// processLimit is the RLIMIT_NPROC of a job of user uid: what the user
// has now plus the job's own allowance (the kernel counts every process
// of the user, the runner's own threads too when the job runs as the
// runner's user). 0 (no limit) where the count is not known.
func processLimit(uid uint32, allowance int) int {
	n := proc.UserTasks(uid)
	if n < 0 {
		return 0
	}
	return n + allowance
}

// watchDisk measures the job's writable mounts every diskPoll while it
// runs and, once they hold more than the quota, cancels the job's
// context with a *DiskQuotaError as its cause. stop ends the watch.
func watchDisk(ctx context.Context, cancel context.CancelCauseFunc, j Job) (stop func()) {
	var dirs []hostPath
	for _, m := range j.Mounts {
		if m.Writable {
			dirs = append(dirs, m.source())
		}
	}
	if len(dirs) == 0 || j.DiskBytes <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(diskPoll)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			var used int64
			for _, d := range dirs {
				used += diskUsage(d, j.DiskBytes-used)
			}
			if used > j.DiskBytes {
				cancel(&DiskQuotaError{Quota: j.DiskBytes, Wrote: used})
				return
			}
		}
	}()
	return func() { close(done) }
}

// diskUsage sums the sizes of what lies below h (through a root on it:
// no link is followed), each entry counted as at least one block, and
// stops once past limit.
func diskUsage(h hostPath, limit int64) int64 {
	r, name, err := h.root()
	if err != nil {
		return 0
	}
	defer r.Close()
	var used int64
	_ = fs.WalkDir(r.FS(), name, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // gone meanwhile, or unreadable: the next poll sees it
		}
		used += 4096
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				used += info.Size()
			}
		}
		if used > limit {
			return fs.SkipAll
		}
		return nil
	})
	return used
}

// quotaError is the error of a job whose context the disk watch
// cancelled, or err.
func quotaError(ctx context.Context, err error) error {
	var q *DiskQuotaError
	if errors.As(context.Cause(ctx), &q) {
		return q
	}
	return err
}

// jobUID is the user a job runs as.
func (ex *executor) jobUID() uint32 {
	if ex.box != nil && ex.box.user != nil {
		return ex.box.user.UID
	}
	return uint32(os.Getuid())
}
