//go:build linux

package localrun

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// staging binds the sources of a job's mounts, for a bwrap that runs as
// an unprivileged user under a root runner, into a directory that user can
// reach: the runner's own paths (its run directory below a private
// directory, an interpreter under /root) are not. The binds are made in a
// mount namespace of the thread that starts bwrap alone (proc.Cmd.Setup):
// the host's mount table never holds them, and they end with the thread.
// Every source is opened through its hostPath (what a job shaped is
// resolved inside its directory) in that namespace, then bound from its
// descriptor.
type staging struct {
	dir  string // on the host: an empty directory, a tmpfs in the namespace
	srcs []hostPath
}

// newStaging makes the directory the binds are made in.
func newStaging() (*staging, error) {
	dir, err := os.MkdirTemp("", "cursus-stage-")
	if err != nil {
		return nil, err
	}
	return &staging{dir: dir}, nil
}

// add stages a source and returns where bwrap finds it.
func (s *staging) add(src hostPath) string {
	s.srcs = append(s.srcs, src)
	return filepath.Join(s.dir, strconv.Itoa(len(s.srcs)-1))
}

// remove removes the (empty) directory on the host.
func (s *staging) remove() { os.Remove(s.dir) }

// setup runs on the thread that starts bwrap: a private mount namespace,
// a small tmpfs on the directory, and each source bound at its place.
func (s *staging) setup() (func(), error) {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return nil, &SandboxError{Reason: fmt.Sprintf("a root runner needs a mount namespace of its own to hand the job's files to the sandbox user: unshare: %v", err)}
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return nil, fmt.Errorf("stage: make the mount namespace private: %w", err)
	}
	files := make([]*os.File, len(s.srcs))
	defer func() {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}()
	dirs := make([]bool, len(s.srcs))
	for i, src := range s.srcs {
		f, st, err := src.openMount()
		if err != nil {
			return nil, fmt.Errorf("stage %s: %w", src, err)
		}
		files[i], dirs[i] = f, st.IsDir()
	}
	if err := unix.Mount("tmpfs", s.dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0755,size=1m"); err != nil {
		return nil, fmt.Errorf("stage: %w", err)
	}
	for i, f := range files {
		target := filepath.Join(s.dir, strconv.Itoa(i))
		var err error
		if dirs[i] {
			err = os.Mkdir(target, 0o755)
		} else {
			err = os.WriteFile(target, nil, 0o644)
		}
		if err != nil {
			return nil, fmt.Errorf("stage %s: %w", s.srcs[i], err)
		}
		if err := unix.Mount("/proc/thread-self/fd/"+strconv.Itoa(int(f.Fd())), target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return nil, fmt.Errorf("stage %s: bind: %w", s.srcs[i], err)
		}
	}
	return func() { _ = unix.Unmount(s.dir, unix.MNT_DETACH) }, nil
}
