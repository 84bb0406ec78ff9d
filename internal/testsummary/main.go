// Command testsummary reads `go test -json` and prints what plain `go test`
// prints (each package's result, the output of the tests that failed),
// then one line that says how many tests skipped and why, grouped by
// reason. Plain `go test` does not show skips, and a test that skips for
// want of a tool (moto_server, bubblewrap, the SageMaker schemas) looks
// the same as one that passed:
//
//	go test -race -json ./... | go run ./internal/testsummary
//
// It exits 1 when a test or a package failed, or when the input was not
// `go test -json` output.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

func main() {
	failed, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(1)
	}
	if failed {
		os.Exit(1)
	}
}

// location is the "file_test.go:12: " a test's log line starts with.
var location = regexp.MustCompile(`^\s*[\w./-]+\.go:\d+: `)

// summarize copies the plain output of the events read from r to w and
// ends with the skip summary; failed says whether anything failed.
func summarize(r io.Reader, w io.Writer) (failed bool, err error) {
	type key struct{ pkg, test string }
	output := map[key][]string{} // a running test's output, kept until it ends
	reasons := map[string]int{}
	skipped, tests := 0, 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			// Not an event (go test's own messages when stderr is merged):
			// shown as it is.
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		k := key{e.Package, e.Test}
		switch {
		case e.Action == "output" && e.Test != "":
			output[k] = append(output[k], e.Output)
		case e.Action == "output":
			// A package's own lines: its result ("ok ..." or "FAIL ..."),
			// a build failure, a panic outside a test; not the bare
			// PASS/FAIL line the test binary ends with.
			if s := strings.TrimSpace(e.Output); s != "PASS" && s != "FAIL" && !strings.HasPrefix(s, "=== ") {
				fmt.Fprint(w, e.Output)
			}
		case e.Test != "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
			tests++
			switch e.Action {
			case "fail":
				failed = true
				for _, o := range output[k] {
					if !strings.HasPrefix(o, "=== ") { // RUN, PAUSE, CONT: -v's lines
						fmt.Fprint(w, o)
					}
				}
			case "skip":
				skipped++
				reasons[skipReason(output[k])]++
			}
			delete(output, k)
		case e.Test == "" && e.Action == "fail":
			failed = true
		}
	}
	if err := sc.Err(); err != nil {
		return true, err
	}
	if tests == 0 && !failed {
		return true, fmt.Errorf("no test results read: pipe `go test -json` into it")
	}
	fmt.Fprintln(w, skipLine(tests, skipped, reasons))
	return failed, nil
}

// skipReason is the last line a skipped test logged, without its file and
// line: t.Skip's message.
func skipReason(out []string) string {
	reason := "no reason given"
	for _, o := range out {
		s := strings.TrimSpace(o)
		if s == "" || strings.HasPrefix(s, "=== ") || strings.HasPrefix(s, "--- ") {
			continue
		}
		if loc := location.FindString(o); loc != "" {
			s = strings.TrimSpace(o[len(loc):])
		}
		reason = s
	}
	return reason
}

// skipLine is the one-line summary: how many tests ran and skipped, and
// the reasons, most frequent first.
func skipLine(tests, skipped int, reasons map[string]int) string {
	if skipped == 0 {
		return fmt.Sprintf("%d tests, none skipped", tests)
	}
	type reason struct {
		text string
		n    int
	}
	var rs []reason
	for t, n := range reasons {
		rs = append(rs, reason{t, n})
	}
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].n != rs[j].n {
			return rs[i].n > rs[j].n
		}
		return rs[i].text < rs[j].text
	})
	parts := make([]string, len(rs))
	for i, r := range rs {
		text := r.text
		if len(text) > 100 {
			text = text[:97] + "..."
		}
		parts[i] = fmt.Sprintf("%d: %s", r.n, text)
	}
	return fmt.Sprintf("%d tests, %d skipped (%s)", tests, skipped, strings.Join(parts, "; "))
}
