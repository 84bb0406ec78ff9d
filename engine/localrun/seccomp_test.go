//go:build linux

package localrun

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The job filter, run in a BPF interpreter on system calls as the kernel
// hands them to it: what it refuses, with which errno, and that a foreign
// architecture (the i386 entry of an x86-64 kernel, int 0x80) or the x32
// ABI is refused whatever the call.
func TestSeccompFilterDecisions(t *testing.T) {
	prog, err := seccompProgram()
	if err != nil {
		t.Fatal(err)
	}
	var raw []bpf.RawInstruction
	for r := bytes.NewReader(prog); r.Len() > 0; {
		var in struct {
			Code   uint16
			Jt, Jf uint8
			K      uint32
		}
		if err := binary.Read(r, binary.NativeEndian, &in); err != nil {
			t.Fatal(err)
		}
		raw = append(raw, bpf.RawInstruction{Op: in.Code, Jt: in.Jt, Jf: in.Jf, K: in.K})
	}
	insts, ok := bpf.Disassemble(raw)
	if !ok {
		t.Fatal("the program does not disassemble")
	}
	vm, err := bpf.NewVM(insts)
	if err != nil {
		t.Fatal(err)
	}
	native, err := arch.GetInfo("")
	if err != nil {
		t.Fatal(err)
	}
	// seccomp_data as the interpreter loads it: each 32-bit word in network
	// order (its loads are big-endian), the 64-bit arguments as the
	// library's native-endian loads split them.
	call := func(archID uint32, nr uint32, args ...uint64) uint32 {
		buf := make([]byte, 64)
		binary.BigEndian.PutUint32(buf[0:], nr)
		binary.BigEndian.PutUint32(buf[4:], archID)
		for i, a := range args {
			lo, hi := 16+8*i, 16+8*i+4
			if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 { // big-endian machine
				lo, hi = hi, lo
			}
			binary.BigEndian.PutUint32(buf[lo:], uint32(a))
			binary.BigEndian.PutUint32(buf[hi:], uint32(a>>32))
		}
		n, err := vm.Run(buf)
		if err != nil {
			t.Fatal(err)
		}
		return uint32(n)
	}
	const allow = unix.SECCOMP_RET_ALLOW
	eperm, enosys := uint32(unix.SECCOMP_RET_ERRNO|unix.EPERM), uint32(unix.SECCOMP_RET_ERRNO|unix.ENOSYS)
	nr := func(name string) uint32 {
		n, ok := native.SyscallNames[name]
		if !ok {
			t.Fatalf("no %s on %s", name, native.Name)
		}
		return uint32(n)
	}
	id := uint32(native.ID)
	for _, c := range []struct {
		what string
		got  uint32
		want uint32
	}{
		{"mount", call(id, nr("mount")), eperm},
		{"umount2", call(id, nr("umount2")), eperm},
		{"unshare", call(id, nr("unshare"), unix.CLONE_NEWNS), eperm},
		{"setns", call(id, nr("setns")), eperm},
		{"pivot_root", call(id, nr("pivot_root")), eperm},
		{"ptrace", call(id, nr("ptrace"), unix.PTRACE_ATTACH, 1), eperm},
		{"open_tree", call(id, nr("open_tree")), eperm},
		{"clone with CLONE_NEWUSER", call(id, nr("clone"), unix.CLONE_NEWUSER|uint64(unix.SIGCHLD)), eperm},
		{"clone with CLONE_NEWNS", call(id, nr("clone"), unix.CLONE_NEWNS), eperm},
		{"clone of a thread", call(id, nr("clone"), unix.CLONE_VM|unix.CLONE_FS|unix.CLONE_FILES|unix.CLONE_SIGHAND|unix.CLONE_THREAD), allow},
		{"fork (clone with SIGCHLD)", call(id, nr("clone"), uint64(unix.SIGCHLD)), allow},
		{"clone3", call(id, nr("clone3")), enosys},
		{"getpid", call(id, nr("getpid")), allow},
		{"openat", call(id, nr("openat")), allow},
		{"a foreign architecture's getpid (i386 entry)", call(uint32(arch.I386.ID), 20), enosys},
		{"a foreign architecture's mount (i386 entry)", call(uint32(arch.I386.ID), 21), enosys},
	} {
		if c.got != c.want {
			t.Errorf("%s: the filter answers %#x, want %#x", c.what, c.got, c.want)
		}
	}
	if native.ID == arch.X86_64.ID {
		if got := call(id, uint32(arch.X32.SyscallNames["mount"]|arch.X32.SeccompMask)); got != enosys {
			t.Errorf("an x32 mount: the filter answers %#x, want ENOSYS", got)
		}
	}
}
