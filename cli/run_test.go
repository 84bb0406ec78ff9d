package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/localrun"
	"github.com/cursus-go/cursus/internal/testenv"
)

func TestRunLocal(t *testing.T) {
	for _, c := range [][]string{
		{"run", "local"},
		{"run", "local", "--dag-file", "d.json", "--config-file", "c.json"},
		{"run", "local", "--dag-file", "d.json", "--config-file", "c.json", "--work-dir", "w", "--param", "novalue"},
		{"run", "local", "--dag-file", "d.json", "--config-file", "c.json", "--work-dir", "w", "--data", "/nonexistent.json"},
		{"run", "local", "--dag-file", "d.json", "--config-file", "c.json", "--work-dir", "w", "extra"},
	} {
		if code, out, errb := run(t, "", c...); code != 2 || out != "" || errb == "" {
			t.Errorf("%v: want a usage error (exit 2, nothing on stdout), got %d %q %q", c, code, out, errb)
		}
	}

	testenv.Need(t, localrun.Ready("pandas", "xgboost"))
	ex := "../examples/simple-training"
	data := filepath.Join(t.TempDir(), "data.json")
	abs, _ := filepath.Abs(filepath.Join(ex, "data", "train.csv"))
	b, _ := json.Marshal(map[string]string{"s3://example-bucket/raw/train/": abs})
	if err := os.WriteFile(data, b, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "local", "--dag-file", ex + "/dag.json", "--config-file", ex + "/config.json", "--work-dir", t.TempDir()}
	code, out, errb := run(t, "", append(args, "--data", data)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errb, out)
	}
	var rep localrun.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || !rep.Succeeded || len(rep.Steps) != 3 {
		t.Fatalf("stdout is the report: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(errb), "\n")
	if len(lines) != 6 || lines[0] != "[1/3] DummyDataLoading-Training (Processing) started" ||
		lines[4] != "[3/3] XGBoostTraining (Training) started" || !strings.HasPrefix(lines[5], "[3/3] XGBoostTraining (Training) succeeded in ") {
		t.Fatalf("a line on stderr as each step starts and ends: %q", errb)
	}
	// without the data the first step fails: exit 1, the report on stdout
	code, out, errb = run(t, "", args...)
	if code != 1 || !strings.Contains(errb, "step DummyDataLoading-Training failed") {
		t.Fatalf("exit %d, stderr %q", code, errb)
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Succeeded || rep.Failed == nil {
		t.Fatalf("stdout is the failed run's report: %v\n%s", err, out)
	}
	// generated data in its place: the run goes through
	code, out, errb = run(t, "", append(args, "--generate-data", "s3://example-bucket/raw/train/")...)
	rep = localrun.Report{}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || !rep.Succeeded || len(rep.Generated) != 1 {
		t.Fatalf("--generate-data: exit %d, %v\n%s\n%s", code, err, errb, out)
	}
}

// Ctrl-C during a run: the running job is stopped, the report (on stdout
// and in the run folder) says what ran, and stderr names the step that was
// running and where the report and the run are.
func TestRunLocalInterrupted(t *testing.T) {
	testenv.Need(t, localrun.Ready("pandas", "xgboost"))
	bin := buildBinary(t)
	ex, _ := filepath.Abs("../examples/simple-training")
	work := t.TempDir()
	data := filepath.Join(work, "data.json")
	b, _ := json.Marshal(map[string]string{"s3://example-bucket/raw/train/": filepath.Join(ex, "data", "train.csv")})
	if err := os.WriteFile(data, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "local", "--dag-file", ex+"/dag.json", "--config-file", ex+"/config.json", "--work-dir", work, "--data", data)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if sc.Text() == "[3/3] XGBoostTraining (Training) started" {
			_ = cmd.Process.Signal(os.Interrupt)
		}
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v\n%s", err, strings.Join(lines, "\n"))
	}
	last := lines[len(lines)-1]
	var rep localrun.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || rep.Cancelled == nil || rep.Succeeded {
		t.Fatalf("stdout is the interrupted run's report: %v\n%s", err, stdout.String())
	}
	want := fmt.Sprintf("interrupted: stopped while XGBoostTraining ran; the run's report is %s, its folder %s", filepath.Join(rep.RunDir, "report.json"), rep.RunDir)
	if last != want {
		t.Fatalf("last line %q, want %q", last, want)
	}
	if _, err := os.Stat(filepath.Join(rep.RunDir, "report.json")); err != nil {
		t.Fatal(err)
	}
	if s := rep.Steps[2]; s.Name != "XGBoostTraining" || s.Status != localrun.StatusCancelled {
		t.Fatalf("the training step: %+v", s)
	}
}
