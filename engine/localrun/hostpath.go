package localrun

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/cursus-go/cursus/internal/safefs"
)

// A hostPath is a place on this machine that a job may have shaped: a
// directory the runner trusts (one it made, or one the operator named) and
// a path below it. Every host-side access to what a job wrote goes through
// one (a failure file, a property file, an archive, an input it hands to
// the next job, a directory made under an earlier output): the part below
// the directory is resolved inside it through an os.Root, so that no
// symbolic link a job wrote, no ".." and no directory swapped meanwhile
// leads out of it, and only regular files of bounded size are read (the
// checks of a confined safefs.FS: no FIFO, device or virtual file, a cap
// per kind of file).
type hostPath struct {
	dir string // trusted: made by the runner or named by the operator
	rel string // below dir (OS separators, clean); "" is dir itself
}

// below is the path rel (slash or OS separated) inside dir.
func below(dir, rel string) hostPath {
	rel = filepath.Clean(filepath.FromSlash(rel))
	if rel == "." || rel == string(filepath.Separator) {
		rel = ""
	}
	return hostPath{dir: dir, rel: rel}
}

// trusted is a path the runner made or the operator named, taken as it is.
func trusted(p string) hostPath { return hostPath{dir: p} }

// String is the path, for reports and messages.
func (h hostPath) String() string {
	if h.rel == "" {
		return h.dir
	}
	return filepath.Join(h.dir, h.rel)
}

// join is the path elem below h, still resolved inside h's directory.
func (h hostPath) join(elem ...string) hostPath {
	return below(h.dir, filepath.Join(append([]string{h.rel}, elem...)...))
}

// fs is the access layer that reaches h: a confined FS on h's directory
// (rel is the name in it), or the trusted one for a path taken as it is
// (rel is then the path). The caller closes it.
func (h hostPath) fs() (*safefs.FS, string, error) {
	if h.rel == "" {
		return safefs.Trusted(), h.dir, nil
	}
	fsys, err := safefs.New(safefs.Options{Root: h.dir})
	if err != nil {
		return nil, "", err
	}
	return fsys, h.rel, nil
}

// readFile reads a regular file of the kind's size at most.
func (h hostPath) readFile(kind safefs.Kind) ([]byte, error) {
	fsys, name, err := h.fs()
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	b, err := fsys.ReadFile(name, kind)
	return b, h.pathError(err)
}

// open opens a regular file for reading (the kind's cap holds while it is
// read).
func (h hostPath) open(kind safefs.Kind) (*safefs.File, error) {
	fsys, name, err := h.fs()
	if err != nil {
		return nil, err
	}
	defer fsys.Close() // an open file outlives its root
	f, err := fsys.Open(name, kind)
	return f, h.pathError(err)
}

// stat returns the metadata of what h names (links followed inside the
// directory).
func (h hostPath) stat() (fs.FileInfo, error) {
	fsys, name, err := h.fs()
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	st, err := fsys.Stat(name)
	return st, h.pathError(err)
}

// exists reports whether h names a file or directory.
func (h hostPath) exists() bool {
	_, err := h.stat()
	return err == nil
}

// hasObjects reports whether h is a file or a directory holding at least
// one file (an S3 prefix with objects under it). Links are not followed
// below h.
func (h hostPath) hasObjects() bool {
	fsys, name, err := h.fs()
	if err != nil {
		return false
	}
	defer fsys.Close()
	st, err := fsys.Stat(name)
	if err != nil {
		return false
	}
	if !st.IsDir() {
		return true
	}
	found := false
	_ = fsys.WalkDir(name, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || found {
			return filepath.SkipAll
		}
		if !d.IsDir() {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// names lists the entries of the directory h names (at most n, and a
// "... k more" line past them; "nothing" for none).
func (h hostPath) names(n int) []string {
	fsys, name, err := h.fs()
	if err != nil {
		return []string{"nothing"}
	}
	defer fsys.Close()
	ents, err := fsys.ReadDir(name)
	if err != nil || len(ents) == 0 {
		return []string{"nothing"}
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return first(out, n)
}

// root opens h's directory as an os.Root, and returns the name of h in it
// ("." for the directory itself).
func (h hostPath) root() (*os.Root, string, error) {
	r, err := os.OpenRoot(h.dir)
	if err != nil {
		return nil, "", err
	}
	if h.rel == "" {
		return r, ".", nil
	}
	return r, h.rel, nil
}

// mkdirAll makes the directory h names and its missing parents, inside
// h's directory.
func (h hostPath) mkdirAll(perm os.FileMode) error {
	if err := os.MkdirAll(h.dir, perm); err != nil {
		return err
	}
	if h.rel == "" {
		return nil
	}
	r, name, err := h.root()
	if err != nil {
		return err
	}
	defer r.Close()
	return h.pathError(r.MkdirAll(name, perm))
}

// writeFrom writes what r gives to the file h names, atomically (a
// temporary file renamed over it), its parents made inside h's directory.
func (h hostPath) writeFrom(r io.Reader, perm os.FileMode) error {
	if h.rel == "" {
		return safefs.Trusted().WriteFrom(h.dir, r, perm)
	}
	if err := os.MkdirAll(h.dir, 0o755); err != nil {
		return err
	}
	fsys, name, err := h.fs()
	if err != nil {
		return err
	}
	defer fsys.Close()
	return h.pathError(fsys.WriteFrom(name, r, perm))
}

// openMount opens what h names for a bind mount: a directory or a regular
// file, never anything else (a FIFO, a device, a socket), opened without
// blocking and without following a link out of h's directory.
func (h hostPath) openMount() (*os.File, fs.FileInfo, error) {
	const flags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY
	var (
		f   *os.File
		err error
	)
	if h.rel == "" {
		f, err = os.OpenFile(h.dir, flags, 0)
	} else {
		var r *os.Root
		var name string
		if r, name, err = h.root(); err != nil {
			return nil, nil, err
		}
		f, err = r.OpenFile(name, flags, 0)
		r.Close()
	}
	if err != nil {
		return nil, nil, h.pathError(err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.IsDir() && !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is neither a directory nor a regular file (%s)", h, st.Mode().Type())
	}
	return f, st, nil
}

// pathError makes an error of an access below h name h's whole path (never
// where a link led); a path that leads out of h's directory reads as
// absent, like a file that does not exist.
func (h hostPath) pathError(err error) error {
	if err == nil {
		return nil
	}
	var sp *safefs.PathError
	var pe *fs.PathError
	op := "open"
	switch {
	case errors.As(err, &sp):
		op, err = sp.Op, sp.Err
		if errors.Is(err, safefs.ErrOutside) {
			err = fs.ErrNotExist
		}
	case errors.As(err, &pe):
		op, err = pe.Op, pe.Err
		var errno syscall.Errno
		if !errors.As(err, &errno) && !errors.Is(err, fs.ErrNotExist) && strings.Contains(err.Error(), "escapes") {
			err = fs.ErrNotExist // os.Root's own (unexported) error for a path that leaves it
		}
	default:
		return err
	}
	return &fs.PathError{Op: op, Path: h.String(), Err: err}
}
