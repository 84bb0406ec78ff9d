package catalog

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWorkspaceCacheIsBounded loads more workspace directory sets than the
// cache keeps: the cache stays bounded, and the most recently used set is
// still served from it.
func TestWorkspaceCacheIsBounded(t *testing.T) {
	step, err := os.ReadFile(filepath.Join("steps", "DummyDataLoading.step.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for i := 0; i < maxCachedWorkspaces+8; i++ {
		d := t.TempDir()
		if err := os.WriteFile(filepath.Join(d, "DummyDataLoading.step.yaml"), step, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(nil, d); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	cacheMu.Lock()
	n := len(cache)
	cacheMu.Unlock()
	if n > maxCachedWorkspaces {
		t.Fatalf("cache holds %d catalogs, the bound is %d", n, maxCachedWorkspaces)
	}
	last := dirs[len(dirs)-1]
	a, _ := Load(nil, last)
	b, _ := Load(nil, last)
	if a != b {
		t.Error("the most recent workspace was evicted")
	}
	first, _ := Load(nil, dirs[0])
	again, _ := Load(nil, dirs[0])
	if first != again {
		t.Error("a reloaded workspace is not cached again")
	}
}
