//go:build linux

package startpages

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// smapsFixture: a static binary's text and read-only data (released), its
// data (writable: kept), a read-only segment with relocated (anonymous)
// pages as in a position-independent build (kept), a library's read-only
// segment (released), the vDSO and the heap (no file: kept). The text's
// Private_Dirty pages are those of a binary just built, not yet written
// back: no copy-on-write page.
const smapsFixture = `00400000-011b2000 r-xp 00000000 fe:00 9978129                            /opt/cursus bin/cursus
Size:              14024 kB
Rss:                9632 kB
Private_Clean:      8632 kB
Private_Dirty:      1000 kB
Anonymous:             0 kB
VmFlags: rd ex mr mw me
011b2000-0203b000 r--p 00db2000 fe:00 9978129                            /opt/cursus bin/cursus
Size:              14884 kB
Rss:                9700 kB
Private_Dirty:         0 kB
Anonymous:             0 kB
VmFlags: rd mr mw me
0203b000-0211e000 rw-p 01c3b000 fe:00 9978129                            /opt/cursus bin/cursus
Size:                908 kB
Rss:                 844 kB
Private_Dirty:       112 kB
Anonymous:           112 kB
VmFlags: rd wr mr mw me ac
0211e000-0212e000 r--p 01d1e000 fe:00 9978129                            /opt/cursus bin/cursus
Size:                 64 kB
Rss:                  64 kB
Private_Dirty:        64 kB
Anonymous:            64 kB
VmFlags: rd mr mw me ac
7f5cb9ce9000-7f5cb9d0f000 r--p 00000000 fe:00 12                         /usr/lib/x86_64-linux-gnu/libc.so.6
Size:                152 kB
Rss:                 148 kB
Anonymous:             0 kB
VmFlags: rd mr mw me
7ffd3e5f4000-7ffd3e5f6000 r-xp 00000000 00:00 0                          [vdso]
Size:                  8 kB
Rss:                   8 kB
Anonymous:             0 kB
VmFlags: rd ex mr mw me de sd
28f7eac00000-28f7eb800000 rw-p 00000000 00:00 0 
Size:              12288 kB
Rss:                7444 kB
Anonymous:          7444 kB
VmFlags: rd wr mr mw me ac
`

func TestReleasable(t *testing.T) {
	spans, err := releasable(strings.NewReader(smapsFixture))
	if err != nil {
		t.Fatal(err)
	}
	want := []span{{0x400000, 0x11b2000, 9632 << 10}, {0x11b2000, 0x203b000, 9700 << 10}, {0x7f5cb9ce9000, 0x7f5cb9d0f000, 148 << 10}}
	if len(spans) != len(want) {
		t.Fatalf("spans %+v, want %+v", spans, want)
	}
	for i := range want {
		if spans[i] != want[i] {
			t.Errorf("span %d: %+v, want %+v", i, spans[i], want[i])
		}
	}
}

// rssFile is the process's resident file pages in KiB (VmRSS's RssFile).
func rssFile(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "RssFile:"); ok {
			return kib(v) >> 10
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}

// TestRelease releases the test binary's own pages: most of its resident
// file pages, which shrink, and the program, which refaults them, goes on.
func TestRelease(t *testing.T) {
	t.Setenv(EnvKeep, "")
	if traced() {
		t.Skip("a tracer is attached: Release leaves a traced process alone")
	}
	// The fixture is a constant: its bytes are in the binary's read-only
	// data, which Release drops.
	sum := sha256.Sum256([]byte(smapsFixture))
	before := rssFile(t)
	n, err := Release()
	if err != nil {
		t.Fatal(err)
	}
	after := rssFile(t)
	if n < 1<<20 {
		t.Fatalf("Release reported %d bytes resident; a Go test binary has more than 1 MiB of its file mapped", n)
	}
	// Nearly all of a test binary's resident file pages are released; what
	// runs after Release (reading the status) refaults some of them.
	if n>>10 < before/2 || after >= before {
		t.Errorf("resident file pages %d KiB -> %d KiB; Release reported %d KiB of them", before, after, n>>10)
	}
	// The data it dropped comes back on use, the same bytes.
	if sha256.Sum256([]byte(smapsFixture)) != sum {
		t.Fatal("the binary's read-only data reads other bytes after Release")
	}
}

// TestReleaseKeepsWrittenPages maps a file twice, privately: one mapping
// written to (a copy-on-write page) and then made read-only, as a
// relocated segment is, and one only read. Release leaves the first alone
// (dropping its page would bring the file's byte back in place of the one
// written) and releases the second, which reads the file's bytes after.
func TestReleaseKeepsWrittenPages(t *testing.T) {
	t.Setenv(EnvKeep, "")
	if traced() {
		t.Skip("a tracer is attached: Release leaves a traced process alone")
	}
	page := os.Getpagesize()
	content := bytes.Repeat([]byte("cursus-"), 4*page/7+1)[:4*page]
	path := filepath.Join(t.TempDir(), "pages")
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mapFile := func(prot int) []byte {
		b, err := unix.Mmap(int(f.Fd()), 0, len(content), prot, unix.MAP_PRIVATE)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Munmap(b) })
		return b
	}
	written := mapFile(unix.PROT_READ | unix.PROT_WRITE)
	written[page] = 'X'
	if err := unix.Mprotect(written, unix.PROT_READ); err != nil {
		t.Fatal(err)
	}
	clean := mapFile(unix.PROT_READ)
	if !bytes.Equal(clean, content) {
		t.Fatal("the clean mapping does not read the file")
	}

	smaps, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	spans, err := releasable(smaps)
	smaps.Close()
	if err != nil {
		t.Fatal(err)
	}
	addr := func(b []byte) uintptr { return uintptr(unsafe.Pointer(&b[0])) }
	found := map[uintptr]bool{}
	for _, s := range spans {
		found[s.start] = true
	}
	if found[addr(written)] || !found[addr(clean)] {
		t.Fatalf("releasable: the written mapping %t (want false), the clean one %t (want true)", found[addr(written)], found[addr(clean)])
	}

	if _, err := Release(); err != nil {
		t.Fatal(err)
	}
	if written[page] != 'X' {
		t.Errorf("the written page reads %q after Release: its copy was dropped", written[page])
	}
	if !bytes.Equal(clean, content) {
		t.Error("the clean mapping reads other bytes after Release")
	}
}

func TestKeep(t *testing.T) {
	t.Setenv(EnvKeep, "1")
	n, err := Release()
	if n != 0 || err != nil {
		t.Fatalf("Release with %s=1: %d, %v", EnvKeep, n, err)
	}
}
