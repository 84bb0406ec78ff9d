package safefs

import (
	"io/fs"
	"os"
)

// backend reaches files by name: root-relative names through an os.Root
// (confined), absolute paths through the os package (trusted).
type backend interface {
	stat(name string) (fs.FileInfo, error)
	lstat(name string) (fs.FileInfo, error)
	openFile(name string, flag int, perm fs.FileMode) (*os.File, error)
	// openDir opens a directory as a root of its own, so the operations of
	// a write all happen in one directory however the path above it changes.
	openDir(name string) (*os.Root, error)
	mkdir(name string, perm fs.FileMode) error
	remove(name string) error
	removeAll(name string) error
	rename(oldname, newname string) error
}

type rootBackend struct{ r *os.Root }

func (b rootBackend) stat(name string) (fs.FileInfo, error)  { return b.r.Stat(name) }
func (b rootBackend) lstat(name string) (fs.FileInfo, error) { return b.r.Lstat(name) }
func (b rootBackend) openFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return b.r.OpenFile(name, flag, perm)
}
func (b rootBackend) openDir(name string) (*os.Root, error)     { return b.r.OpenRoot(name) }
func (b rootBackend) mkdir(name string, perm fs.FileMode) error { return b.r.Mkdir(name, perm) }
func (b rootBackend) remove(name string) error                  { return b.r.Remove(name) }
func (b rootBackend) removeAll(name string) error               { return b.r.RemoveAll(name) }
func (b rootBackend) rename(o, n string) error                  { return b.r.Rename(o, n) }

type osBackend struct{}

func (osBackend) stat(name string) (fs.FileInfo, error)  { return os.Stat(name) }
func (osBackend) lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }
func (osBackend) openFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}
func (osBackend) openDir(name string) (*os.Root, error)     { return os.OpenRoot(name) }
func (osBackend) mkdir(name string, perm fs.FileMode) error { return os.Mkdir(name, perm) }
func (osBackend) remove(name string) error                  { return os.Remove(name) }
func (osBackend) removeAll(name string) error               { return os.RemoveAll(name) }
func (osBackend) rename(o, n string) error                  { return os.Rename(o, n) }
