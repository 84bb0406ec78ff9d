package cursus_test

import (
	"bytes"
	"os"
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
