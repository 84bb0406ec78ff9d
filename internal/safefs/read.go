package safefs

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// NotRegularError is the cause of a read refused because the path is not a
// regular file; it matches ErrNotRegular.
type NotRegularError struct {
	// What the path names: "a directory", "a FIFO", "a device", ...
	What string
}

// Error says what the path is.
func (e *NotRegularError) Error() string { return "not a regular file (" + e.What + ")" }

// Is matches ErrNotRegular.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

func describeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return "not a plain file"
}

// ReadFile reads a whole regular file of the given kind, refusing anything
// else and anything over the kind's cap (see the package doc).
func (f *FS) ReadFile(path string, kind Kind) ([]byte, error) {
	f = f.self()
	file, size, err := f.open("read", path, kind)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	limit := f.limits.Of(kind)
	// The size is a hint (the file may change); the cap is enforced on the
	// bytes actually read.
	buf := make([]byte, 0, min(size, limit)+1)
	r := io.LimitReader(file, limit+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &PathError{Op: "read", Path: path, Err: unwrapPath(err)}
		}
	}
	if int64(len(buf)) > limit {
		return nil, &PathError{Op: "read", Path: path, Err: &TooLargeError{Kind: kind, Limit: limit}}
	}
	return buf, nil
}

// File is a regular file opened for reading by Open. Reading past the
// kind's cap fails with a *TooLargeError.
type File struct {
	f     *os.File
	path  string
	kind  Kind
	limit int64
	pos   int64
	size  int64
}

// Open opens a regular file of the given kind for streaming (an upload, a
// hash). The checks are those of ReadFile; the cap holds while reading.
func (f *FS) Open(path string, kind Kind) (*File, error) {
	f = f.self()
	file, size, err := f.open("open", path, kind)
	if err != nil {
		return nil, err
	}
	return &File{f: file, path: path, kind: kind, limit: f.limits.Of(kind), size: size}, nil
}

// Size is the file's size when it was opened.
func (r *File) Size() int64 { return r.size }

// Read implements io.Reader.
func (r *File) Read(p []byte) (int, error) {
	if r.pos > r.limit {
		return 0, &PathError{Op: "read", Path: r.path, Err: &TooLargeError{Kind: r.kind, Limit: r.limit}}
	}
	if room := r.limit + 1 - r.pos; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := r.f.Read(p)
	r.pos += int64(n)
	if r.pos > r.limit {
		return n - int(r.pos-r.limit), &PathError{Op: "read", Path: r.path, Err: &TooLargeError{Kind: r.kind, Limit: r.limit}}
	}
	return n, err
}

// Seek implements io.Seeker.
func (r *File) Seek(offset int64, whence int) (int64, error) {
	pos, err := r.f.Seek(offset, whence)
	if err == nil {
		r.pos = pos
	}
	return pos, err
}

// Close closes the file.
func (r *File) Close() error { return r.f.Close() }

// open resolves, checks and opens a regular file for reading.
func (f *FS) open(op, path string, kind Kind) (*os.File, int64, error) {
	t, err := f.resolve(op, path, false)
	if err != nil {
		return nil, 0, err
	}
	limit := f.limits.Of(kind)
	// Refuse from the metadata first: a device or FIFO is never opened.
	st, err := t.b.stat(t.name)
	if err != nil {
		return nil, 0, &PathError{Op: op, Path: path, Err: cause(err)}
	}
	if !st.Mode().IsRegular() {
		return nil, 0, &PathError{Op: op, Path: path, Err: &NotRegularError{What: describeMode(st.Mode())}}
	}
	if st.Size() > limit {
		return nil, 0, &PathError{Op: op, Path: path, Err: &TooLargeError{Kind: kind, Limit: limit, Size: st.Size()}}
	}
	file, err := t.b.openFile(t.name, readFlags, 0)
	if err != nil {
		return nil, 0, &PathError{Op: op, Path: path, Err: cause(err)}
	}
	// Check again on the descriptor: the path may have changed since.
	fst, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, 0, &PathError{Op: op, Path: path, Err: unwrapPath(err)}
	}
	if !fst.Mode().IsRegular() {
		file.Close()
		return nil, 0, &PathError{Op: op, Path: path, Err: &NotRegularError{What: describeMode(fst.Mode())}}
	}
	if what := virtualFS(file); what != "" {
		file.Close()
		return nil, 0, &PathError{Op: op, Path: path, Err: &NotRegularError{What: "a file of the " + what + " virtual file system"}}
	}
	if fst.Size() > limit {
		file.Close()
		return nil, 0, &PathError{Op: op, Path: path, Err: &TooLargeError{Kind: kind, Limit: limit, Size: fst.Size()}}
	}
	return file, fst.Size(), nil
}

// Stat returns a file's metadata (symbolic links followed, within the root).
func (f *FS) Stat(path string) (fs.FileInfo, error) {
	t, err := f.self().resolve("stat", path, false)
	if err != nil {
		return nil, err
	}
	st, err := t.b.stat(t.name)
	if err != nil {
		return nil, &PathError{Op: "stat", Path: path, Err: cause(err)}
	}
	return st, nil
}

// Lstat returns a file's metadata without following a final symbolic link.
func (f *FS) Lstat(path string) (fs.FileInfo, error) {
	t, err := f.self().resolve("lstat", path, false)
	if err != nil {
		return nil, err
	}
	st, err := t.b.lstat(t.name)
	if err != nil {
		return nil, &PathError{Op: "lstat", Path: path, Err: cause(err)}
	}
	return st, nil
}

// Exists reports whether a path names something (following symbolic links
// within the root); a path outside the root does not exist.
func (f *FS) Exists(path string) bool {
	_, err := f.Stat(path)
	return err == nil
}

// IsDir reports whether a path names a directory.
func (f *FS) IsDir(path string) bool {
	st, err := f.Stat(path)
	return err == nil && st.IsDir()
}

// IsFile reports whether a path names a regular file.
func (f *FS) IsFile(path string) bool {
	st, err := f.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// ReadDir lists a directory, sorted by name.
func (f *FS) ReadDir(path string) ([]fs.DirEntry, error) {
	t, err := f.self().resolve("readdir", path, false)
	if err != nil {
		return nil, err
	}
	r, err := t.b.openDir(t.name)
	if err != nil {
		return nil, &PathError{Op: "readdir", Path: path, Err: cause(err)}
	}
	defer r.Close()
	entries, err := fs.ReadDir(r.FS(), ".")
	if err != nil {
		return nil, &PathError{Op: "readdir", Path: path, Err: cause(err)}
	}
	return entries, nil
}

// WalkDir walks the tree at path like filepath.WalkDir, without following
// symbolic links to directories; fn gets paths under path as given.
func (f *FS) WalkDir(path string, fn fs.WalkDirFunc) error {
	t, err := f.self().resolve("walk", path, false)
	if err != nil {
		return err
	}
	r, err := t.b.openDir(t.name)
	if err != nil {
		return fn(path, nil, &PathError{Op: "walk", Path: path, Err: cause(err)})
	}
	defer r.Close()
	return fs.WalkDir(r.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			err = &PathError{Op: "walk", Path: filepath.Join(path, filepath.FromSlash(p)), Err: cause(err)}
		}
		return fn(filepath.Join(path, filepath.FromSlash(p)), d, err)
	})
}
