package testfs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCopyTree(t *testing.T) {
	src := t.TempDir()
	for name, content := range map[string]string{"a.py": "a", "sub/b.txt": "b", "sub/__pycache__/b.pyc": "x"} {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(t.TempDir(), "copy")
	CopyTree(t, src, dst)
	for name, want := range map[string]string{"a.py": "a", "sub/b.txt": "b"} {
		b, err := os.ReadFile(filepath.Join(dst, filepath.FromSlash(name)))
		if err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", name, b, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dst, "sub", "__pycache__")); !os.IsNotExist(err) {
		t.Errorf("__pycache__ was copied: %v", err)
	}
}
