package sagemaker

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHashFile(t *testing.T) {
	dir := t.TempDir()
	p := writeTestFile(t, dir, "hello.txt", "hello")
	sum, size, err := HashFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if sum != "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824" || size != 5 {
		t.Errorf("HashFile = %s %d", sum, size)
	}
	empty := writeTestFile(t, dir, "empty", "")
	if sum, size, err := HashFile(empty); err != nil || size != 0 || sum != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("HashFile(empty) = %s %d %v", sum, size, err)
	}
	if _, _, err := HashFile(dir); err == nil {
		t.Error("HashFile(directory) succeeded")
	}
	if _, _, err := HashFile(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("HashFile(missing) = %v, want ErrNotExist", err)
	}
}

func TestManifestJSON(t *testing.T) {
	m := Manifest{{LocalPath: "scripts/a.py", S3URI: "s3://b/k/a.py", SHA256: strings.Repeat("0", 64), Size: 12}}
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"local_path":"scripts/a.py","s3_uri":"s3://b/k/a.py","sha256":"` + strings.Repeat("0", 64) + `","size":12}]`
	if string(raw) != want {
		t.Errorf("JSON = %s\nwant %s", raw, want)
	}
	var back Manifest
	if err := json.Unmarshal(raw, &back); err != nil || len(back) != 1 || back[0] != m[0] {
		t.Errorf("round trip = %+v, %v", back, err)
	}
}

// writeTestFile writes content to name under dir and returns the path.
func writeTestFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
