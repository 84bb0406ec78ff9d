package runs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckID(t *testing.T) {
	for _, ok := range []string{"r1", "run-20260101-120000-ab12", "new-project-001", "A.b_c-d", strings.Repeat("a", 64)} {
		if err := CheckID(ok); err != nil {
			t.Errorf("CheckID(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "../evil", "a/b", `a\b`, ".hidden", "-x", "a..b", strings.Repeat("a", 65), "sp ace"} {
		var ie *IDError
		if err := CheckID(bad); !errors.As(err, &ie) || ie.ID != bad {
			t.Errorf("CheckID(%q) = %v, want *IDError", bad, err)
		}
	}
}

func TestPathAndList(t *testing.T) {
	root := t.TempDir()
	ids, err := List(nil, root)
	if err != nil || ids == nil || len(ids) != 0 {
		t.Fatalf("List(no runs folder) = %#v, %v; want an empty list", ids, err)
	}
	if _, err := Path(nil, root, "../x"); err == nil {
		t.Error("Path accepted ../x")
	}
	for _, id := range []string{"b", "a", ".not-a-run"} {
		if err := os.MkdirAll(filepath.Join(root, Dir, id), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, Dir, "c"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dir, err := Path(nil, root, "a")
	if err != nil || dir != Join(root, "a") || dir != filepath.Join(root, "runs", "a") {
		t.Errorf("Path(a) = %s, %v", dir, err)
	}
	ids, err = List(nil, root)
	if err != nil || strings.Join(ids, ",") != "a,b" {
		t.Errorf("List = %v, %v; want the folders with a run id, sorted (a,b)", ids, err)
	}
}
