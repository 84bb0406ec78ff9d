package safefs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// layout makes root/ and outside/ in a temp dir: root/ok.json, root/sub/in.json,
// outside/secret.json, root/link -> outside, root/inlink -> sub.
func layout(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(root, "ok.json"), `{"ok": true}`)
	write(t, filepath.Join(root, "sub", "in.json"), `{"in": true}`)
	write(t, filepath.Join(outside, "secret.json"), `{"role": "TopSecretRole"}`)
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(root, "inlink")); err != nil {
		t.Fatal(err)
	}
	return root, outside
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func confined(t *testing.T, root string, readRoots ...string) *FS {
	t.Helper()
	f, err := New(Options{Root: root, ReadRoots: readRoots})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestConfinedReads(t *testing.T) {
	root, outside := layout(t)
	f := confined(t, root)
	for _, p := range []string{"ok.json", filepath.Join(root, "ok.json"), "sub/in.json", "inlink/in.json", "sub/../ok.json", "./ok.json"} {
		if b, err := f.ReadFile(p, KindConfig); err != nil || len(b) == 0 {
			t.Errorf("ReadFile(%q) = %q, %v; want the file", p, b, err)
		}
	}
	// Outside as written: ErrOutside, whether or not the file exists.
	for _, p := range []string{filepath.Join(outside, "secret.json"), filepath.Join(outside, "nope.json"), "../outside/secret.json", "sub/../../outside/secret.json", "/etc/passwd"} {
		_, err := f.ReadFile(p, KindConfig)
		if !errors.Is(err, ErrOutside) {
			t.Errorf("ReadFile(%q) = %v, want ErrOutside", p, err)
		}
		if err != nil && strings.Contains(err.Error(), "TopSecret") {
			t.Errorf("error echoes content: %v", err)
		}
	}
	// Through a symbolic link out of the root: exactly like an absent file.
	_, escErr := f.ReadFile("link/secret.json", KindConfig)
	_, absErr := f.ReadFile("nolink/secret.json", KindConfig)
	if !errors.Is(escErr, fs.ErrNotExist) || !errors.Is(absErr, fs.ErrNotExist) {
		t.Fatalf("escape %v, absent %v: both must be fs.ErrNotExist", escErr, absErr)
	}
	if strings.Replace(escErr.Error(), "link/", "nolink/", 1) != absErr.Error() {
		t.Errorf("an escape reads differently from an absent file:\n%v\n%v", escErr, absErr)
	}
	if _, err := f.Stat("link/secret.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat through the link = %v, want not exist", err)
	}
	if f.Exists("link/secret.json") || f.Exists(filepath.Join(outside, "secret.json")) {
		t.Error("Exists sees outside the root")
	}
	if _, err := f.ReadDir("link"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadDir(link) = %v, want not exist", err)
	}
	if _, err := f.ReadFile("", KindConfig); !errors.Is(err, ErrInvalidPath) {
		t.Errorf("empty path: %v", err)
	}
	// An absolute symbolic link inside the root to a file inside it is refused too (os.Root rule).
	if err := os.Symlink(filepath.Join(root, "ok.json"), filepath.Join(root, "abs.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadFile("abs.json", KindConfig); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absolute link: %v", err)
	}
}

func TestReadRoots(t *testing.T) {
	root, outside := layout(t)
	f := confined(t, root, outside)
	if _, err := f.ReadFile(filepath.Join(outside, "secret.json"), KindConfig); err != nil {
		t.Errorf("read-only root not readable: %v", err)
	}
	if err := f.WriteFile(filepath.Join(outside, "x.json"), []byte("{}"), 0o644); !errors.Is(err, ErrOutside) {
		t.Errorf("write to a read-only root = %v, want ErrOutside", err)
	}
	if got := f.ReadRoots(); len(got) != 1 {
		t.Errorf("ReadRoots = %v", got)
	}
}

func TestSpecialFilesRefused(t *testing.T) {
	root, _ := layout(t)
	fifo := filepath.Join(root, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	for _, f := range []*FS{confined(t, root), Trusted()} {
		done := make(chan error, 1)
		go func() { _, err := f.ReadFile(fifo, KindConfig); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "FIFO") {
				t.Errorf("FIFO: %v, want a not-regular error naming it", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("reading a FIFO blocked")
		}
		if _, err := f.ReadFile(root, KindConfig); !errors.Is(err, ErrNotRegular) {
			t.Errorf("directory: %v", err)
		}
	}
	tr := Trusted()
	for _, p := range []string{"/dev/zero", "/dev/null", "/dev/stdin", "/proc/self/fd/1", "/proc/self/status", "/proc/self/environ", "/sys/kernel/mm/transparent_hugepage/enabled"} {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		_, err := tr.ReadFile(p, KindConfig)
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile(%s) = %v, want ErrNotRegular", p, err)
		}
		if _, err := tr.Open(p, KindData); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Open(%s) = %v, want ErrNotRegular", p, err)
		}
	}
}

func TestSizeCaps(t *testing.T) {
	root, _ := layout(t)
	write(t, filepath.Join(root, "big.py"), strings.Repeat("x", 3000))
	f, err := New(Options{Root: root, Limits: Limits{KindScript: 2000}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = f.ReadFile("big.py", KindScript)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Limit != 2000 || tl.Kind != KindScript {
		t.Fatalf("err = %v, want a TooLargeError of 2000 bytes for scripts", err)
	}
	if !strings.Contains(err.Error(), "2000B limit for script files") || !strings.Contains(err.Error(), EnvLimits) {
		t.Errorf("the error does not name the limit: %v", err)
	}
	if _, err := f.ReadFile("big.py", KindConfig); err != nil {
		t.Errorf("the config cap applies to a script: %v", err)
	}
	r, err := f.Open("big.py", KindConfig)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(r); err != nil || len(b) != 3000 {
		t.Errorf("Open+ReadAll = %d bytes, %v", len(b), err)
	}
	r.Close()
	// A file that grows after the size check is still cut at the cap.
	g, _ := New(Options{Root: root, Limits: Limits{KindData: 10}})
	defer g.Close()
	write(t, filepath.Join(root, "grow.bin"), "12345")
	r, err = g.Open("grow.bin", KindData)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "grow.bin"), strings.Repeat("y", 100))
	if _, err := io.ReadAll(r); !errors.As(err, &tl) {
		t.Errorf("reading past the cap: %v, want TooLargeError", err)
	}
	r.Close()
}

func TestParseLimits(t *testing.T) {
	l, err := ParseLimits("config=16MiB, script=2000,dag=1GB")
	if err != nil {
		t.Fatal(err)
	}
	if l[KindConfig] != 16<<20 || l[KindScript] != 2000 || l[KindDAG] != 1e9 {
		t.Errorf("limits %v", l)
	}
	for _, bad := range []string{"nope=1MiB", "config", "config=-1", "config=abc", "config=0"} {
		if _, err := ParseLimits(bad); err == nil {
			t.Errorf("ParseLimits(%q) accepted", bad)
		}
	}
	if s := (Limits{KindConfig: 8 << 20, KindScript: 1500}).String(); s != "config=8MiB,script=1500B" {
		t.Errorf("String = %q", s)
	}
}

func TestWrites(t *testing.T) {
	root, outside := layout(t)
	f := confined(t, root)
	if err := f.WriteFile("a/b/c/out.json", []byte("1"), 0o640); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a/b/c/out.json")); string(b) != "1" {
		t.Errorf("content %q", b)
	}
	if st, _ := os.Stat(filepath.Join(root, "a/b/c/out.json")); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", st.Mode())
	}
	if err := f.WriteJSON(filepath.Join(root, "a/b/c/out.json"), map[string]int{"x": 2}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a/b/c/out.json")); string(b) != "{\n  \"x\": 2\n}\n" {
		t.Errorf("replaced content %q", b)
	}
	noTemps(t, root)

	// Refusals create nothing, anywhere.
	before := snapshot(t, filepath.Dir(root))
	for _, p := range []string{"link/evil.json", "link/deeper/evil.json", "../outside/evil.json", filepath.Join(outside, "evil.json"), ".", root, "sub", "ok.json/child"} {
		if err := f.WriteFile(p, []byte("x"), 0o644); err == nil {
			t.Errorf("WriteFile(%q) succeeded", p)
		}
	}
	if err := f.WriteFile("link/evil.json", nil, 0o644); !errors.Is(err, ErrOutside) {
		t.Errorf("through a link out: %v, want ErrOutside", err)
	}
	if err := f.WriteFile(".", nil, 0o644); !errors.Is(err, ErrIsRoot) {
		t.Errorf("the root itself: %v, want ErrIsRoot", err)
	}
	if err := f.WriteFile("sub", nil, 0o644); !errors.Is(err, ErrIsDir) {
		t.Errorf("over a directory: %v, want ErrIsDir", err)
	}
	if after := snapshot(t, filepath.Dir(root)); after != before {
		t.Errorf("refused writes changed the tree:\nbefore %s\nafter  %s", before, after)
	}
	if _, err := f.AbsWrite("link/x.json"); !errors.Is(err, ErrOutside) {
		t.Errorf("AbsWrite through a link: %v", err)
	}
	if p, err := f.AbsWrite("new/x.json"); err != nil || p != filepath.Join(f.Root(), "new/x.json") {
		t.Errorf("AbsWrite = %q, %v", p, err)
	}

	// A deep path that fails at its end leaves no directory behind.
	deep := strings.Repeat("d/", 300) + strings.Repeat("n", 300) + "/f.json"
	if err := f.WriteFile(deep, []byte("x"), 0o644); err == nil {
		t.Fatal("a name over NAME_MAX was written")
	}
	if _, err := os.Stat(filepath.Join(root, "d")); !os.IsNotExist(err) {
		t.Errorf("a failed deep write left directories (%v)", err)
	}
}

func TestTrustedWrites(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "proj")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	tr := Trusted()
	// Writing over a directory puts nothing in its parent, not even briefly a temp file that stays.
	if err := tr.WriteFile(target, []byte("content"), 0o644); !errors.Is(err, ErrIsDir) {
		t.Errorf("over a directory: %v", err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("parent holds %v", es)
	}
	if err := tr.WriteFile(filepath.Join(dir, "x", "y.json"), []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := tr.WriteFile(filepath.Join(dir, "x", "y.json", "z"), []byte("1"), 0o644); err == nil {
		t.Error("a write under a file succeeded")
	}
	noTemps(t, dir)
	if err := tr.WriteJSON(filepath.Join(dir, "bad.json"), func() {}); err == nil {
		t.Error("an unencodable value was written")
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.json")); !os.IsNotExist(err) {
		t.Error("a failed encode left a file")
	}
}

func TestDirOps(t *testing.T) {
	root, _ := layout(t)
	f := confined(t, root)
	if err := f.MkdirAll("m/n", 0o755); err != nil || !f.IsDir("m/n") {
		t.Fatalf("MkdirAll: %v", err)
	}
	if err := f.Mkdir("m/n", 0o755); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Mkdir of an existing dir: %v", err)
	}
	if err := f.MkdirAll("link/m", 0o755); !errors.Is(err, ErrOutside) {
		t.Errorf("MkdirAll through a link: %v", err)
	}
	tmp, err := f.MkdirTemp("m", ".scaffold-*", 0o755)
	if err != nil || !strings.HasPrefix(filepath.Base(tmp), ".scaffold-") || !f.IsDir(tmp) {
		t.Fatalf("MkdirTemp = %q, %v", tmp, err)
	}
	if err := f.Rename(tmp, "m/final"); err != nil || !f.IsDir("m/final") {
		t.Fatalf("Rename: %v", err)
	}
	if err := f.Rename("m/final", "link/final"); err == nil {
		t.Error("rename out of the root succeeded")
	}
	var seen []string
	if err := f.WalkDir("sub", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		seen = append(seen, p)
		return nil
	}); err != nil || len(seen) != 2 || seen[1] != filepath.Join("sub", "in.json") {
		t.Errorf("WalkDir = %v, %v", seen, err)
	}
	es, err := f.ReadDir(".")
	if err != nil || len(es) < 4 {
		t.Errorf("ReadDir = %v, %v", es, err)
	}
	if err := f.RemoveAll("m"); err != nil || f.Exists("m") {
		t.Errorf("RemoveAll: %v", err)
	}
	if err := f.RemoveAll("."); !errors.Is(err, ErrIsRoot) {
		t.Errorf("RemoveAll(.) = %v", err)
	}
	lock, err := f.OpenLock("sub/.lock")
	if err != nil {
		t.Fatal(err)
	}
	lock.Close()
	if _, err := f.OpenLock("link/.lock"); err == nil {
		t.Error("a lock file outside the root was opened")
	}
}

func noTemps(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("temp file left: %s", p)
		}
		return nil
	})
}

// snapshot lists every path under dir with its size.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		info, _ := d.Info()
		b.WriteString(p)
		if info != nil && info.Mode().IsRegular() {
			b.WriteString(":" + strings.Repeat("#", int(min(info.Size(), 3))))
		}
		b.WriteString(" ")
		return nil
	})
	return b.String()
}
