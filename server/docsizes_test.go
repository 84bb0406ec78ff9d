package server_test

import (
	"flag"
	"os"
	"strings"
	"sync"
	"testing"
)

// update rewrites the tool counts, sizes and transcripts the docs show from what the
// tests measured: go test ./server -run 'TestGuidedListPerStage|TestGuidedWholeRun' -args -update
// (go generate ./... runs it).
var update = flag.Bool("update", false, "rewrite the tool counts, list sizes and guided transcripts in docs/guided-mode.md and README.md")

const howToUpdate = "run `go generate ./...` (go test ./server -run 'TestGuidedListPerStage|TestGuidedWholeRun' -args -update) and commit the result"

var docsMu sync.Mutex // the tests that check a doc read and rewrite it one at a time

// checkDoc compares the text fix makes of file (a path from the module
// root) with the file, or with -update writes it.
func checkDoc(t *testing.T, file string, fix func(t *testing.T, doc string) string) {
	t.Helper()
	docsMu.Lock()
	defer docsMu.Unlock()
	path := "../" + file
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	want := fix(t, got)
	if want == got {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s shows tool counts, list sizes or a transcript the server no longer has: %s", file, howToUpdate)
}

// replaceBlock puts body between the lines <!-- begin name --> and
// <!-- end name --> of doc.
func replaceBlock(t *testing.T, doc, name, body string) string {
	t.Helper()
	begin, end := "<!-- begin "+name+" -->\n", "<!-- end "+name+" -->"
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("the doc has no %q ... %q block", begin, end)
	}
	return doc[:i+len(begin)] + body + doc[j:]
}
