package cursus_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/internal/safefs"
)

// TestToolsDocUpToDate fails when docs/tools.md no longer matches the
// registry: run `go generate ./...` (which runs this test with -update)
// and commit the result.
func TestToolsDocUpToDate(t *testing.T) {
	want := cursus.Registry().ToolsMarkdown()
	if *update {
		if err := safefs.Trusted().WriteFile("docs/tools.md", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile("docs/tools.md")
	if err != nil {
		t.Fatalf("%v (run `go generate ./...`)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("docs/tools.md is stale: run `go generate ./...` and commit it")
	}
}

// TestReadmeGoExampleBuilds builds the README's Go example as pasted: the
// first ```go block is compiled as a main package of this module.
func TestReadmeGoExampleBuilds(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the README's example: %v", err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "\n```go\n")
	code, _, closed := strings.Cut(rest, "\n```\n")
	if !ok || !closed {
		t.Fatal("README.md has no ```go block")
	}
	// The example is laid over a package directory that does not exist,
	// so it builds against this checkout without writing into it.
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte(code+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(wd, "internal", "readmeexample", "main.go"): src}})
	if err := os.WriteFile(filepath.Join(dir, "overlay.json"), overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goBin, "build", "-overlay", filepath.Join(dir, "overlay.json"), "-o", filepath.Join(dir, "example"), "./internal/readmeexample")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the README's Go example does not build as pasted: %v\n%s\n%s", err, out, code)
	}
}
