package safefs

import (
	"io"
	"io/fs"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// oTmpfile is Linux's O_TMPFILE (__O_TMPFILE | O_DIRECTORY); the syscall
// package does not define it.
const oTmpfile = 0x400000 | syscall.O_DIRECTORY

const atSymlinkFollow = 0x400

// writeUnnamed writes data to an unnamed file in d (O_TMPFILE) and gives it
// the name tmp only once it is complete, so a process killed while writing
// leaves nothing behind. It reports done=false, with nothing created, when
// the file system cannot make unnamed files; the caller then writes a named
// temporary file, from rest when it is not nil (the content, already
// written to the unnamed file and read back from it: r is spent).
func writeUnnamed(d *os.Root, tmp string, r io.Reader, perm fs.FileMode) (done bool, rest io.Reader, err error) {
	dirf, err := d.Open(".")
	if err != nil {
		return false, nil, nil
	}
	defer dirf.Close()
	sc, err := dirf.SyscallConn()
	if err != nil {
		return false, nil, nil
	}
	var dirfd int
	if err := sc.Control(func(fd uintptr) { dirfd = int(fd) }); err != nil {
		return false, nil, nil
	}
	fd, err := syscall.Openat(dirfd, ".", oTmpfile|syscall.O_RDWR|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return false, nil, nil
	}
	file := os.NewFile(uintptr(fd), tmp)
	if err := fill(file, r, perm); err != nil {
		file.Close()
		return true, nil, err
	}
	var lerr error
	if err := sc.Control(func(dfd uintptr) {
		lerr = linkat(-100 /* AT_FDCWD */, "/proc/self/fd/"+strconv.Itoa(fd), int(dfd), tmp, atSymlinkFollow)
	}); err == nil && lerr == nil {
		file.Close()
		return true, nil, nil
	}
	// No /proc, or a file system that refuses: the caller writes a named
	// file from what this one holds (closed once read: see spentFile).
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		file.Close()
		return true, nil, err
	}
	return false, &spentFile{file}, nil
}

// spentFile reads an unnamed temporary file to its end, then closes it.
type spentFile struct{ f *os.File }

func (s *spentFile) Read(p []byte) (int, error) {
	n, err := s.f.Read(p)
	if err == io.EOF {
		s.f.Close()
	}
	return n, err
}

func linkat(olddirfd int, oldpath string, newdirfd int, newpath string, flags int) error {
	o, err := syscall.BytePtrFromString(oldpath)
	if err != nil {
		return err
	}
	n, err := syscall.BytePtrFromString(newpath)
	if err != nil {
		return err
	}
	_, _, errno := syscall.Syscall6(syscall.SYS_LINKAT, uintptr(olddirfd), uintptr(unsafe.Pointer(o)), uintptr(newdirfd), uintptr(unsafe.Pointer(n)), uintptr(flags), 0)
	if errno != 0 {
		return errno
	}
	return nil
}
