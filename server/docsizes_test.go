package server_test

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// update rewrites the tool counts and sizes the docs show from what the
// tests measured: go test ./server -run 'TestGuidedListPerStage|TestGuidedWholeRun' -args -update
// (go generate ./... runs it).
var update = flag.Bool("update", false, "rewrite the tool counts and list sizes in docs/guided-mode.md and README.md")

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
	t.Errorf("%s shows tool counts or list sizes the server no longer has: %s", file, howToUpdate)
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

var listSize = regexp.MustCompile(`tools/list: (\d+) tools, (\d+) bytes`)

// replaceListSizes rewrites, in order, every "tools/list: N tools, B bytes"
// of doc with sizes; their number must match.
func replaceListSizes(t *testing.T, doc string, sizes [][2]int) string {
	t.Helper()
	if n := len(listSize.FindAllStringIndex(doc, -1)); n != len(sizes) {
		t.Errorf("the transcript shows %d tools/list answers, the run had %d", n, len(sizes))
		return doc
	}
	i := 0
	return listSize.ReplaceAllStringFunc(doc, func(string) string {
		s := sizes[i]
		i++
		return fmt.Sprintf("tools/list: %d tools, %d bytes", s[0], s[1])
	})
}

var stageCount = regexp.MustCompile(`tools/list: (\d+) tools \(([a-z_]+)\)`)

// replaceStageCounts rewrites every "tools/list: N tools (stage)" of doc
// with the stage's count.
func replaceStageCounts(t *testing.T, doc string, counts map[string]int) string {
	t.Helper()
	if len(stageCount.FindAllString(doc, -1)) == 0 {
		t.Error(`the doc shows no "tools/list: N tools (stage)"`)
	}
	return stageCount.ReplaceAllStringFunc(doc, func(m string) string {
		stage := stageCount.FindStringSubmatch(m)[2]
		n, ok := counts[stage]
		if !ok {
			t.Errorf("%q names a stage the run did not list", m)
			return m
		}
		return "tools/list: " + strconv.Itoa(n) + " tools (" + stage + ")"
	})
}
