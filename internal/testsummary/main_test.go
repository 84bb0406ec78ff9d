package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A real `go test -json` run of a package with a pass, two skips for one
// reason, one for another and a failure: the plain output is kept, the
// failure's output shown, and the last line counts the skips by reason.
func TestSummarizeRealRun(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed: %v", err)
	}
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(dir+"/"+name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/p\n\ngo 1.22\n")
	write("p_test.go", `package p

import "testing"

func TestPass(t *testing.T)  {}
func TestMoto(t *testing.T)  { t.Skip("moto_server is not installed") }
func TestMoto2(t *testing.T) { t.Log("starting"); t.Skip("moto_server is not installed") }
func TestSchema(t *testing.T) {
	t.Run("strict", func(t *testing.T) { t.Skipf("set %s", "CURSUS_SAGEMAKER_SCHEMA_DIR") })
}
func TestBroken(t *testing.T) { t.Log("what went wrong"); t.Fail() }
`)
	cmd := exec.Command(goBin, "test", "-json", "./...")
	cmd.Dir = dir
	in, _ := cmd.Output() // the package fails: exit 1
	var out bytes.Buffer
	failed, err := summarize(bytes.NewReader(in), &out)
	if err != nil || !failed {
		t.Fatalf("failed %v, err %v\n%s", failed, err, in)
	}
	got := out.String()
	for _, want := range []string{"--- FAIL: TestBroken", "what went wrong", "FAIL\texample.com/p",
		"\n6 tests, 3 skipped (2: moto_server is not installed; 1: set CURSUS_SAGEMAKER_SCHEMA_DIR)\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("the summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "TestPass") || strings.Contains(got, "=== RUN") {
		t.Errorf("a passing test is shown, unlike plain go test:\n%s", got)
	}
	if !strings.HasSuffix(got, ")\n") {
		t.Errorf("the skip line is not last:\n%s", got)
	}
}

func TestSummarizeRefusesWhatIsNotGoTestJSON(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if failed, err := summarize(strings.NewReader("ok  \tpkg\t0.1s\n"), &out); err == nil || !failed {
		t.Errorf("plain output: failed %v, err %v", failed, err)
	}
}
