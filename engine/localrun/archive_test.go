package localrun

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// tarEntry is an entry of a test archive: a regular file with body (or
// size bytes of zeros), a directory, or a link.
type tarEntry struct {
	name, body, link string
	typ              byte
	size             int64
}

func testTarGz(t *testing.T, path string, ents ...tarEntry) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for _, e := range ents {
		h := &tar.Header{Name: e.name, Linkname: e.link, Typeflag: e.typ, Mode: 0o644}
		if e.typ == 0 {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.body))+e.size
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
			zeros := make([]byte, 1<<20)
			for left := e.size; left > 0; left -= int64(len(zeros)) {
				if _, err := tw.Write(zeros[:min(left, int64(len(zeros)))]); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// An archive whose links climb out of the destination through a chain
// that looks lexically inside (a -> ., b -> a/a/.../../..) cannot carry a
// later entry outside it: the extraction fails, naming the entry, and
// nothing is written outside.
func TestExtractionStaysInItsDestination(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "a", "b", "dst")
	depth := strings.Count(strings.TrimPrefix(dst, "/"), "/") + 1
	climb := strings.Repeat("a/", depth+2) + strings.Repeat("../", depth+2)
	target, _ := filepath.Rel("/", filepath.Join(outside, "PWN"))
	for name, ents := range map[string][]tarEntry{
		"chain": {{name: "a", link: ".", typ: tar.TypeSymlink}, {name: "b", link: climb, typ: tar.TypeSymlink},
			{name: "b/" + target, body: "escaped"}},
		"dir link":  {{name: "d", link: "..", typ: tar.TypeSymlink}, {name: "d/PWN", body: "escaped"}},
		"hard link": {{name: "h", link: "../outside/x", typ: tar.TypeLink}},
		"absolute":  {{name: "abs", link: outside, typ: tar.TypeSymlink}, {name: "abs/PWN", body: "escaped"}},
	} {
		t.Run(name, func(t *testing.T) {
			src := filepath.Join(dir, name+".tar.gz")
			testTarGz(t, src, ents...)
			err := extractTarGz(trusted(src), dst)
			var ae *ArchiveError
			if !errors.As(err, &ae) {
				t.Fatalf("want an ArchiveError, got %v", err)
			}
			if ae.Archive != name+".tar.gz" || ae.Entry == "" || !strings.Contains(err.Error(), "entry "+ae.Entry) {
				t.Errorf("the error names the archive and the entry: %v", err)
			}
			if ents, _ := os.ReadDir(outside); len(ents) != 0 {
				t.Fatalf("the extraction wrote outside its destination: %v", ents)
			}
			if _, err := os.Stat(filepath.Join(dir, "a", "b", "PWN")); err == nil {
				t.Fatal("the extraction wrote beside its destination")
			}
		})
	}
}

// Links that stay inside work as links, and later entries through them
// land inside.
func TestExtractionKeepsLinksInside(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "ok.tar.gz")
	testTarGz(t, src, tarEntry{name: "real/", typ: tar.TypeDir}, tarEntry{name: "alias", link: "real", typ: tar.TypeSymlink},
		tarEntry{name: "alias/f.txt", body: "through the link"}, tarEntry{name: "hard", link: "real/f.txt", typ: tar.TypeLink},
		tarEntry{name: "real/f.txt", body: "replaced"})
	dst := filepath.Join(dir, "dst")
	if err := extractTarGz(trusted(src), dst); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dst, "alias", "f.txt")); got != "replaced" {
		t.Errorf("real/f.txt = %q", got)
	}
	if got := readFile(t, filepath.Join(dst, "hard")); got != "through the link" {
		t.Errorf("the hard link keeps the first content: %q", got)
	}
}

// The bounds of extraction: the entry count, the unpacked size and the
// ratio to the compressed size, each failing at the entry that passes it.
func TestExtractionBounds(t *testing.T) {
	dir := t.TempDir()
	// FIFO entries are skipped (never created) but count.
	many := make([]tarEntry, MaxArchiveEntries+1)
	for i := range many {
		many[i] = tarEntry{name: "d/" + strconv.Itoa(i), typ: tar.TypeFifo}
	}
	for name, c := range map[string]struct {
		ents  []tarEntry
		entry string
		want  string
	}{
		"entries": {many, "d/" + strconv.Itoa(MaxArchiveEntries), "more than 50000 entries"},
		"ratio":   {[]tarEntry{{name: "small.txt", body: "x"}, {name: "zeros.bin", size: 64 << 20}}, "zeros.bin", "more than 100 times its compressed size"},
	} {
		t.Run(name, func(t *testing.T) {
			src := filepath.Join(dir, name+".tar.gz")
			testTarGz(t, src, c.ents...)
			err := extractTarGz(trusted(src), filepath.Join(dir, name))
			var ae *ArchiveError
			if !errors.As(err, &ae) || ae.Entry != c.entry || !strings.Contains(ae.Problem, c.want) {
				t.Fatalf("want entry %s refused with %q, got %v", c.entry, c.want, err)
			}
		})
	}
}

// An entry whose header claims more than MaxArchiveBytes is refused
// before anything of it is written.
func TestExtractionRefusesAHugeEntry(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "huge.tar.gz")
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: "huge.bin", Typeflag: tar.TypeReg, Size: MaxArchiveBytes + 1, Mode: 0o644}); err != nil {
		t.Fatal(err)
	}
	gz.Close() // the content is never written: the header alone must be refused
	f.Close()
	err = extractTarGz(trusted(src), filepath.Join(dir, "dst"))
	var ae *ArchiveError
	if !errors.As(err, &ae) || ae.Entry != "huge.bin" || !strings.Contains(ae.Problem, "unpacks to more than 2GiB") {
		t.Fatalf("want huge.bin refused for its size, got %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "dst", "huge.bin")); err == nil {
		t.Fatal("the huge entry was created")
	}
}
