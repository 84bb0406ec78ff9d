package safefs

import (
	"os"
	"syscall"
)

// virtualMagic maps the f_type of Linux's virtual file systems to their
// names: their files claim sizes they do not have, and some hand out the
// process's own descriptors or kernel state.
var virtualMagic = map[uint32]string{
	0x9fa0:     "proc",
	0x62656572: "sysfs",
	0x64626720: "debugfs",
	0x74726163: "tracefs",
	0x73636673: "securityfs",
	0x27e0eb:   "cgroup",
	0x63677270: "cgroup2",
	0xcafe4a11: "bpf",
	0x62656570: "configfs",
	0xde5e81e4: "efivarfs",
	0x6165676c: "pstore",
	0x65735543: "fusectl",
	0x1cd1:     "devpts",
}

// virtualFS names the virtual file system an open file lives on, or "".
func virtualFS(f *os.File) string {
	sc, err := f.SyscallConn()
	if err != nil {
		return ""
	}
	var st syscall.Statfs_t
	var serr error
	if err := sc.Control(func(fd uintptr) { serr = syscall.Fstatfs(int(fd), &st) }); err != nil || serr != nil {
		return ""
	}
	return virtualMagic[uint32(st.Type)]
}
