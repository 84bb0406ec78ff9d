package safefs

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// WriteFile writes data to path atomically (see the package doc): a
// temporary file in the target's directory, synced and renamed over the
// target; missing parent directories are created for a write that
// succeeds and removed again on failure.
func (f *FS) WriteFile(path string, data []byte, perm fs.FileMode) error {
	return f.WriteFrom(path, bytes.NewReader(data), perm)
}

// WriteFrom is WriteFile with the content streamed from r (a copy of a
// large file is never held in memory whole).
func (f *FS) WriteFrom(path string, r io.Reader, perm fs.FileMode) error {
	f = f.self()
	t, err := f.resolve("write", path, true)
	if err != nil {
		return err
	}
	if f.main != nil && t.name == "." {
		return &PathError{Op: "write", Path: path, Err: ErrIsRoot}
	}
	dir, base := filepath.Dir(t.name), filepath.Base(t.name)
	if base == string(filepath.Separator) || base == "." {
		return &PathError{Op: "write", Path: path, Err: ErrIsDir}
	}
	created, err := mkdirs(t.b, dir)
	if err == nil {
		err = writeIn(t.b, dir, base, r, perm)
	}
	if err != nil {
		removeCreated(t.b, created)
		return &PathError{Op: "write", Path: path, Err: writeCause(err)}
	}
	return nil
}

// WriteJSON writes v as indented JSON with a trailing newline (WriteFile,
// mode 0644).
func (f *FS) WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return &PathError{Op: "encode", Path: path, Err: err}
	}
	return f.WriteFile(path, append(b, '\n'), 0o644)
}

// writeCause is cause for writes: an escape through a symbolic link is
// ErrOutside (a write reveals what it can reach anyway).
func writeCause(err error) error {
	if isEscape(err) {
		return ErrOutside
	}
	if errors.Is(err, ErrIsDir) || errors.Is(err, ErrOutside) {
		return err
	}
	return unwrapPath(err)
}

// mkdirs creates the missing directories of dir, top down, and returns
// those it created (deepest last).
func mkdirs(b backend, dir string) ([]string, error) {
	var missing []string
	for d := dir; ; {
		st, err := b.stat(d)
		if err == nil {
			if !st.IsDir() {
				return nil, &fs.PathError{Op: "mkdir", Path: d, Err: syscall.ENOTDIR}
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, d)
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	var created []string
	for i := len(missing) - 1; i >= 0; i-- {
		if err := b.mkdir(missing[i], 0o755); err != nil {
			if errors.Is(err, fs.ErrExist) {
				if st, serr := b.stat(missing[i]); serr == nil && st.IsDir() {
					continue // made meanwhile by someone else: not ours to remove
				}
			}
			return created, err
		}
		created = append(created, missing[i])
	}
	return created, nil
}

// removeCreated removes the directories a failed write created, deepest
// first; a directory someone else filled meanwhile stays.
func removeCreated(b backend, created []string) {
	for i := len(created) - 1; i >= 0; i-- {
		_ = b.remove(created[i])
	}
}

// writeIn writes base in dir through the directory opened once, so the
// temporary file, the rename and the cleanup all happen in the same
// directory even if the path above it is swapped meanwhile.
func writeIn(b backend, dir, base string, r io.Reader, perm fs.FileMode) error {
	d, err := b.openDir(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if st, err := d.Lstat(base); err == nil && st.IsDir() {
		return ErrIsDir
	}
	tmp := tempName(base)
	done, rest, err := writeUnnamed(d, tmp, r, perm)
	if !done {
		if rest != nil {
			r = rest
		}
		err = writeNamed(d, tmp, r, perm)
	}
	if err != nil {
		return err
	}
	if err := d.Rename(tmp, base); err != nil {
		_ = d.Remove(tmp)
		return err
	}
	return nil
}

// writeNamed writes data to a new temporary file named tmp.
func writeNamed(d *os.Root, tmp string, r io.Reader, perm fs.FileMode) (err error) {
	file, err := d.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = d.Remove(tmp)
		}
	}()
	if err = fill(file, r, perm); err != nil {
		_ = file.Close()
		return err
	}
	return file.Close()
}

// fill writes, syncs and sets the mode of an open temporary file.
func fill(file *os.File, r io.Reader, perm fs.FileMode) error {
	if _, err := io.Copy(file, r); err != nil {
		return err
	}
	if err := file.Sync(); err != nil {
		return err
	}
	return file.Chmod(perm)
}

// tempName is a fresh hidden name next to base, short enough for any
// file system.
func tempName(base string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	if len(base) > 200 {
		base = base[:200]
	}
	return "." + base + ".tmp-" + hex.EncodeToString(b[:])
}

// Mkdir creates one directory; it fails when it exists.
func (f *FS) Mkdir(path string, perm fs.FileMode) error {
	t, err := f.writeTarget("mkdir", path)
	if err != nil {
		return err
	}
	if err := t.b.mkdir(t.name, perm); err != nil {
		return &PathError{Op: "mkdir", Path: path, Err: writeCause(err)}
	}
	return nil
}

// MkdirAll creates a directory and its missing parents.
func (f *FS) MkdirAll(path string, perm fs.FileMode) error {
	t, err := f.self().resolve("mkdir", path, true)
	if err != nil {
		return err
	}
	if _, err := mkdirs(t.b, t.name); err != nil {
		return &PathError{Op: "mkdir", Path: path, Err: writeCause(err)}
	}
	return nil
}

// MkdirTemp creates a new directory with mode perm (before the umask) in
// dir, which must exist, named pattern with a random part in place of the
// last "*" (appended when there is none), and returns its path (dir joined
// with the name).
func (f *FS) MkdirTemp(dir, pattern string, perm fs.FileMode) (string, error) {
	t, err := f.self().resolve("mkdirtemp", dir, true)
	if err != nil {
		return "", err
	}
	for range 100 {
		var b [6]byte
		_, _ = rand.Read(b[:])
		name := expandPattern(pattern, hex.EncodeToString(b[:]))
		err := t.b.mkdir(filepath.Join(t.name, name), perm)
		if err == nil {
			return filepath.Join(dir, name), nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", &PathError{Op: "mkdirtemp", Path: dir, Err: writeCause(err)}
		}
	}
	return "", &PathError{Op: "mkdirtemp", Path: dir, Err: fmt.Errorf("no free name for %q", pattern)}
}

func expandPattern(pattern, random string) string {
	for i := len(pattern) - 1; i >= 0; i-- {
		if pattern[i] == '*' {
			return pattern[:i] + random + pattern[i+1:]
		}
	}
	return pattern + random
}

// Remove removes a file or an empty directory.
func (f *FS) Remove(path string) error {
	t, err := f.writeTarget("remove", path)
	if err != nil {
		return err
	}
	if err := t.b.remove(t.name); err != nil {
		return &PathError{Op: "remove", Path: path, Err: cause(err)}
	}
	return nil
}

// RemoveAll removes a path and everything under it; a path that does not
// exist is no error.
func (f *FS) RemoveAll(path string) error {
	t, err := f.writeTarget("remove", path)
	if err != nil {
		return err
	}
	if err := t.b.removeAll(t.name); err != nil {
		return &PathError{Op: "remove", Path: path, Err: cause(err)}
	}
	return nil
}

// Rename renames (moves) a file or directory; both paths must be writable.
func (f *FS) Rename(oldpath, newpath string) error {
	o, err := f.writeTarget("rename", oldpath)
	if err != nil {
		return err
	}
	n, err := f.writeTarget("rename", newpath)
	if err != nil {
		return err
	}
	if err := o.b.rename(o.name, n.name); err != nil {
		return &PathError{Op: "rename", Path: oldpath, Err: writeCause(err)}
	}
	return nil
}

// OpenLock opens (creating it when missing) a file to hold a lock on, such
// as a run's .lock file. The caller closes it.
func (f *FS) OpenLock(path string) (*os.File, error) {
	t, err := f.writeTarget("lock", path)
	if err != nil {
		return nil, err
	}
	file, err := t.b.openFile(t.name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, &PathError{Op: "lock", Path: path, Err: writeCause(err)}
	}
	return file, nil
}

// writeTarget resolves a path that will be modified (never the root).
func (f *FS) writeTarget(op, path string) (target, error) {
	f = f.self()
	t, err := f.resolve(op, path, true)
	if err != nil {
		return target{}, err
	}
	if f.main != nil && t.name == "." {
		return target{}, &PathError{Op: op, Path: path, Err: ErrIsRoot}
	}
	return t, nil
}
