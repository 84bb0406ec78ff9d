package safefs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Sentinel errors, wrapped in a *PathError.
var (
	// ErrOutside: the path, as written, names a place outside the root (an
	// absolute path elsewhere, or one that climbs out with ".."), or a write
	// resolves outside it through a symbolic link.
	ErrOutside = errors.New("outside the project root")
	// ErrNotRegular: the path names a directory, device, FIFO, socket or a
	// file of a virtual file system, which are never read.
	ErrNotRegular = errors.New("not a regular file")
	// ErrIsRoot: a write names the root directory itself.
	ErrIsRoot = errors.New("is the project root itself, not a file in it")
	// ErrIsDir: a write names an existing directory.
	ErrIsDir = errors.New("is a directory")
	// ErrInvalidPath: the path is empty or holds a NUL byte.
	ErrInvalidPath = errors.New("invalid path")
)

// PathError is the error of every FS operation: the operation, the path as
// the caller gave it and the cause. It never carries file content.
type PathError struct {
	Op   string
	Path string
	Err  error
}

// Error renders "op path: cause".
func (e *PathError) Error() string { return e.Op + " " + e.Path + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *PathError) Unwrap() error { return e.Err }

// TooLargeError is the cause of a read refused for its size.
type TooLargeError struct {
	// Kind is the kind of file read.
	Kind Kind
	// Limit is the cap of that kind, in bytes.
	Limit int64
	// Size is the file's size when known before reading, else 0.
	Size int64
}

// Error names the limit and how to raise it.
func (e *TooLargeError) Error() string {
	size := "larger than"
	if e.Size > 0 {
		size = FormatSize(e.Size) + ", over"
	}
	return fmt.Sprintf("%s the %s limit for %s files (%s=%s=<size> raises it)", size, FormatSize(e.Limit), e.Kind, EnvLimits, e.Kind)
}

// Options configures New.
type Options struct {
	// Root, when set, confines every read and write to this directory
	// (relative paths are taken from it). Empty makes a trusted FS.
	Root string
	// ReadRoots are further directories a confined FS may read from (not
	// write to). Ignored without Root.
	ReadRoots []string
	// Limits overrides read size caps per kind (DefaultLimits for the rest).
	Limits Limits
}

// FS is a file-access layer; see the package doc. It is safe for
// concurrent use. The nil *FS is the trusted FS with the default limits.
type FS struct {
	limits Limits
	main   *tree   // the root, or nil for a trusted FS
	read   []*tree // read-only roots
	closer sync.Once
}

// tree is one root directory.
type tree struct {
	root  *os.Root
	paths []string // absolute forms of the root directory: as given (cleaned) and with symbolic links resolved
}

// New returns an FS. With a root, the root and every read-only root must be
// existing directories; they are opened now and stay open until Close, so
// a root moved meanwhile is still the one used.
func New(opts Options) (*FS, error) {
	f := &FS{limits: DefaultLimits.Merge(opts.Limits)}
	if strings.TrimSpace(opts.Root) == "" {
		return f, nil
	}
	t, err := openTree(opts.Root)
	if err != nil {
		return nil, err
	}
	f.main = t
	for _, r := range opts.ReadRoots {
		if strings.TrimSpace(r) == "" {
			continue
		}
		rt, err := openTree(r)
		if err != nil {
			f.Close()
			return nil, err
		}
		f.read = append(f.read, rt)
	}
	return f, nil
}

func openTree(dir string) (*tree, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, &PathError{Op: "open root", Path: dir, Err: err}
	}
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, &PathError{Op: "open root", Path: dir, Err: unwrapPath(err)}
	}
	t := &tree{root: r, paths: []string{abs}}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		t.paths = append(t.paths, real)
	}
	return t, nil
}

var (
	trustedOnce sync.Once
	trustedFS   *FS
)

// Trusted returns the process-wide trusted FS: no confinement, the default
// limits overridden by CURSUS_FILE_LIMITS (a malformed variable is ignored
// here; front ends report it).
func Trusted() *FS {
	trustedOnce.Do(func() {
		l, err := LimitsFromEnv()
		if err != nil {
			l = nil
		}
		trustedFS = &FS{limits: DefaultLimits.Merge(l)}
	})
	return trustedFS
}

func (f *FS) self() *FS {
	if f == nil {
		return Trusted()
	}
	return f
}

// Close releases the roots. Operations after Close fail.
func (f *FS) Close() error {
	if f == nil || f == trustedFS {
		return nil
	}
	f.closer.Do(func() {
		if f.main != nil {
			f.main.root.Close()
		}
		for _, t := range f.read {
			t.root.Close()
		}
	})
	return nil
}

// Confined reports whether the FS is confined to a root.
func (f *FS) Confined() bool { return f != nil && f.main != nil }

// Root returns the absolute root directory (symbolic links resolved), or ""
// for a trusted FS.
func (f *FS) Root() string {
	if !f.Confined() {
		return ""
	}
	return f.main.paths[len(f.main.paths)-1]
}

// ReadRoots returns the read-only roots (absolute, symbolic links resolved).
func (f *FS) ReadRoots() []string {
	if f == nil {
		return nil
	}
	out := make([]string, len(f.read))
	for i, t := range f.read {
		out[i] = t.paths[len(t.paths)-1]
	}
	return out
}

// Limit returns the read size cap of a kind.
func (f *FS) Limit(k Kind) int64 { return f.self().limits.Of(k) }

// Limits returns a copy of every cap in force.
func (f *FS) Limits() Limits { return DefaultLimits.Merge(f.self().limits) }

// target is a resolved path: the backend that reaches it and its name there.
type target struct {
	b    backend
	name string // root-relative for a root backend, absolute for the OS
	abs  string // the absolute path, for display and for child processes
}

// resolve maps a caller's path to a backend. A write resolves only against
// the main root; a read also against the read-only roots.
func (f *FS) resolve(op, path string, write bool) (target, error) {
	if strings.TrimSpace(path) == "" || strings.IndexByte(path, 0) >= 0 {
		return target{}, &PathError{Op: op, Path: path, Err: ErrInvalidPath}
	}
	if f.main == nil {
		abs, err := filepath.Abs(path)
		if err != nil {
			return target{}, &PathError{Op: op, Path: path, Err: err}
		}
		return target{b: osBackend{}, name: abs, abs: abs}, nil
	}
	if !filepath.IsAbs(path) {
		rel := filepath.Clean(path)
		if climbs(rel) {
			return target{}, &PathError{Op: op, Path: path, Err: ErrOutside}
		}
		return f.main.target(rel), nil
	}
	clean := filepath.Clean(path)
	if rel, ok := f.main.under(clean); ok {
		return f.main.target(rel), nil
	}
	if !write {
		for _, t := range f.read {
			if rel, ok := t.under(clean); ok {
				return t.target(rel), nil
			}
		}
	}
	return target{}, &PathError{Op: op, Path: path, Err: ErrOutside}
}

func (t *tree) target(rel string) target {
	return target{b: rootBackend{t.root}, name: rel, abs: filepath.Join(t.paths[len(t.paths)-1], rel)}
}

// under reports whether the absolute, clean path p lies in the tree, and
// its name relative to the root.
func (t *tree) under(p string) (string, bool) {
	for _, base := range t.paths {
		rel, err := filepath.Rel(base, p)
		if err == nil && !climbs(rel) {
			return rel, true
		}
	}
	return "", false
}

func climbs(rel string) bool {
	return rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel)
}

// Abs returns the absolute path a caller's path names, checked against the
// confinement as written (not through symbolic links: the operations do
// that). It is for messages and for handing a path to a child process.
func (f *FS) Abs(path string) (string, error) {
	t, err := f.self().resolve("resolve", path, false)
	if err != nil {
		return "", err
	}
	return t.abs, nil
}

// AbsWrite is Abs for a path to be written: only the root (not the
// read-only roots) may hold it, and a path that reaches outside the root
// through an existing symbolic link, or that names the root itself, is
// refused now, so a tool can refuse before doing any work. The write
// itself checks again, race-free.
func (f *FS) AbsWrite(path string) (string, error) {
	f = f.self()
	t, err := f.resolve("write", path, true)
	if err != nil {
		return "", err
	}
	if f.main != nil {
		if t.name == "." {
			return "", &PathError{Op: "write", Path: path, Err: ErrIsRoot}
		}
		if err := f.checkInside(t); err != nil {
			return "", &PathError{Op: "write", Path: path, Err: err}
		}
	}
	return t.abs, nil
}

// checkInside walks the longest existing prefix of a root-relative name
// through the root: an escape through a symbolic link is ErrOutside.
func (f *FS) checkInside(t target) error {
	name := t.name
	for {
		_, err := t.b.stat(name)
		if err == nil {
			return nil
		}
		if isEscape(err) {
			return ErrOutside
		}
		parent := filepath.Dir(name)
		if parent == name || name == "." {
			return nil
		}
		name = parent
	}
}

// isEscape reports an os.Root error that is not an errno: a path that
// leaves the root (os.Root reports it with an unexported error).
func isEscape(err error) bool {
	if err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrClosed) {
		return false
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return false
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return strings.Contains(pe.Err.Error(), "escapes")
	}
	return false
}

// cause turns a backend error into the cause a *PathError carries: an
// escape reads as absent, anything else keeps its errno (never a path, so
// an absolute path resolved through a link never shows).
func cause(err error) error {
	if isEscape(err) {
		return syscall.ENOENT // the very error of an absent file
	}
	return unwrapPath(err)
}

func unwrapPath(err error) error {
	for {
		var pe *fs.PathError
		var le *os.LinkError
		switch {
		case errors.As(err, &pe):
			err = pe.Err
		case errors.As(err, &le):
			err = le.Err
		default:
			return err
		}
	}
}

type ctxKey struct{}

// WithFS returns a context carrying f.
func WithFS(ctx context.Context, f *FS) context.Context {
	return context.WithValue(ctx, ctxKey{}, f)
}

// From returns the context's FS, or Trusted when it carries none.
func From(ctx context.Context) *FS {
	if ctx != nil {
		if f, ok := ctx.Value(ctxKey{}).(*FS); ok && f != nil {
			return f
		}
	}
	return Trusted()
}

// InContext reports whether the context carries an FS.
func InContext(ctx context.Context) bool {
	f, ok := ctx.Value(ctxKey{}).(*FS)
	return ok && f != nil
}
