package cli_test

import (
	"encoding/json"
	"os"
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
	if len(lines) != 3 || !strings.HasPrefix(lines[2], "[3/3] XGBoostTraining (Training) succeeded in ") {
		t.Fatalf("one progress line per step on stderr: %q", errb)
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
