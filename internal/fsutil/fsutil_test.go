package fsutil

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "b", "f.json")
	if err := WriteJSONAtomic(p, map[string]int{"x": 1}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "{\n  \"x\": 1\n}\n" {
		t.Fatalf("%q %v", b, err)
	}
	if err := WriteFileAtomic(p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "new" {
		t.Fatalf("replaced file holds %q (%v), want \"new\"", b, err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("perm %v", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("temp files left behind: %v", entries)
	}
	// A path whose parent is a file cannot be written, and nothing is left.
	if err := WriteFileAtomic(filepath.Join(p, "child"), []byte("x"), 0o644); err == nil {
		t.Error("write under a file succeeded")
	}
	if err := WriteJSONAtomic(filepath.Join(dir, "bad.json"), func() {}); err == nil {
		t.Error("unencodable value written")
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.json")); !os.IsNotExist(err) {
		t.Error("a failed encode left a file")
	}
}
