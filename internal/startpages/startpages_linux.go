//go:build linux

package startpages

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Release unmaps the resident pages of the process's read-only file
// mappings that hold no private page (the executable's and its shared
// libraries', see the package doc) and returns how many bytes of them
// were resident. It does nothing, and returns 0 and no error, when EnvKeep
// is set or a tracer is attached.
func Release() (int64, error) {
	if keep() {
		return 0, nil
	}
	if traced() {
		return 0, nil
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	spans, err := releasable(f)
	f.Close()
	if err != nil {
		return 0, err
	}
	var resident int64
	var errs []error
	for _, s := range spans {
		// The range is not Go memory: a raw system call, not unix.Madvise,
		// which takes a slice.
		if _, _, e := unix.Syscall(unix.SYS_MADVISE, s.start, s.end-s.start, unix.MADV_DONTNEED); e != 0 {
			errs = append(errs, fmt.Errorf("madvise %#x-%#x: %w", s.start, s.end, e))
			continue
		}
		resident += s.rss
	}
	return resident, errors.Join(errs...)
}

// span is one mapping that Release may drop: its address range and how
// many bytes of it were resident.
type span struct {
	start, end uintptr
	rss        int64
}

// releasable reads a smaps listing and returns the mappings of a file
// that are readable, neither writable nor shared, and hold no anonymous
// (copy-on-write) page: their every page reads the file's bytes, so a
// page dropped reads the same when it is faulted in again. Private_Dirty
// says nothing of that: it also counts file pages not yet written back (a
// binary just built).
func releasable(r io.Reader) ([]span, error) {
	var out []span
	var cur *span
	var anon int64
	flush := func() {
		if cur != nil && anon == 0 {
			out = append(out, *cur)
		}
		cur, anon = nil, 0
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if h, ok := header(line); ok {
			flush()
			if strings.HasPrefix(h.path, "/") && h.perms[0] == 'r' && h.perms[1] == '-' && h.perms[3] == 'p' {
				cur = &span{start: h.start, end: h.end}
			}
			continue
		}
		if cur == nil {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch key {
		case "Rss":
			cur.rss = kib(val)
		case "Anonymous":
			anon += kib(val)
		}
	}
	flush()
	return out, sc.Err()
}

// mapping is the header line of a smaps entry.
type mapping struct {
	start, end uintptr
	perms      string
	path       string
}

// header parses "start-end perms offset dev inode [path]"; ok is false
// for a field line ("Rss:   12 kB").
func header(line string) (mapping, bool) {
	// A field line starts with its capitalised key, a header with the
	// mapping's start address in lower-case hex: only a header is split.
	if line == "" || !('0' <= line[0] && line[0] <= '9' || 'a' <= line[0] && line[0] <= 'f') {
		return mapping{}, false
	}
	fields := strings.Fields(line)
	if len(fields) < 5 {
		return mapping{}, false
	}
	lo, hi, ok := strings.Cut(fields[0], "-")
	if !ok || len(fields[1]) != 4 {
		return mapping{}, false
	}
	start, err1 := strconv.ParseUint(lo, 16, 64)
	end, err2 := strconv.ParseUint(hi, 16, 64)
	if err1 != nil || err2 != nil || end <= start {
		return mapping{}, false
	}
	m := mapping{start: uintptr(start), end: uintptr(end), perms: fields[1]}
	if len(fields) >= 6 {
		// A path may hold spaces: it is the rest of the line.
		m.path = strings.Join(fields[5:], " ")
	}
	return m, true
}

// kib parses a smaps value ("  1234 kB") into bytes; 0 when it cannot.
func kib(val string) int64 {
	n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
	if err != nil {
		return 0
	}
	return n << 10
}

// keep reports whether EnvKeep asks to keep the pages.
func keep() bool {
	v, err := strconv.ParseBool(os.Getenv(EnvKeep))
	return err == nil && v
}

// traced reports whether a tracer (a debugger) is attached, whose
// breakpoints live in private copies of text pages.
func traced() bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return true
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "TracerPid:"); ok {
			return strings.TrimSpace(v) != "0"
		}
	}
	return false
}
