package main

import (
	"io"
	"os"
	"strings"
	"testing"
)

// TestMainRuns runs the example from the repository root, as the README
// says, and checks what it prints (a failing tool would exit the test binary).
func TestMainRuns(t *testing.T) {
	t.Chdir("../..")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	main()
	os.Stdout = stdout
	w.Close()
	out, _ := io.ReadAll(r)
	for _, want := range []string{"recommended DAG: xgboost_complete_e2e", "valid: true", ": 10 steps", "Registration-NA"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
