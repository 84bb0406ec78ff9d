package localrun

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/errkind"
)

func testEvaluator(t *testing.T) *evaluator {
	dir := t.TempDir()
	pf := filepath.Join(dir, "eval.json")
	if err := os.WriteFile(pf, []byte(`{"metrics": {"auc": {"value": 0.91}}, "list": [{"x": "first"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return &evaluator{
		params: map[string]any{"PREFIX": "s3://b/p", "COUNT": float64(3), "RATE": 0.25, "ON": true},
		noDef:  map[string]bool{"SUBNET": true},
		exec:   map[string]string{"PipelineExecutionId": "local-1"},
		steps: map[string]*stepState{
			"Pre.Process": {name: "Pre.Process", status: StatusSucceeded, job: "pre-1",
				props: map[string]any{"ProcessingOutputConfig.Outputs['data'].S3Output.S3Uri": "s3://b/p/data"}, propFiles: map[string]hostPath{"Eval": below(dir, "eval.json")}},
			"Later": {name: "Later", props: map[string]any{}},
		},
	}
}

func TestEvaluator(t *testing.T) {
	e := testEvaluator(t)
	for _, c := range []struct {
		expr string
		want string
	}{
		{`{"Get": "Parameters.PREFIX"}`, "s3://b/p"},
		{`{"Get": "Parameters.COUNT"}`, "3"},
		{`{"Get": "Parameters.RATE"}`, "0.25"},
		{`{"Get": "Parameters.ON"}`, "true"},
		{`{"Get": "Execution.PipelineExecutionId"}`, "local-1"},
		{`{"Std:Join": {"On": "/", "Values": [{"Get": "Parameters.PREFIX"}, "x", {"Get": "Parameters.COUNT"}]}}`, "s3://b/p/x/3"},
		{`{"Get": "Steps.Pre.Process.ProcessingOutputConfig.Outputs[\"data\"].S3Output.S3Uri"}`, "s3://b/p/data"},
		{`{"Std:JsonGet": {"PropertyFile": {"Get": "Steps.Pre.Process.PropertyFiles.Eval"}, "Path": "metrics.auc.value"}}`, "0.91"},
		{`{"Std:JsonGet": {"PropertyFile": {"Get": "Steps.Pre.Process.PropertyFiles.Eval"}, "Path": "list[0].x"}}`, "first"},
		{`"plain"`, "plain"},
	} {
		var v any
		if err := json.Unmarshal([]byte(c.expr), &v); err != nil {
			t.Fatal(err)
		}
		got, err := e.str(v)
		if err != nil || got != c.want {
			t.Errorf("%s = %q, %v; want %q", c.expr, got, err, c.want)
		}
	}
	for _, c := range []struct{ expr, want string }{
		{`{"Get": "Parameters.SUBNET"}`, "pipeline parameter SUBNET has no default value and none was given"},
		{`{"Get": "Parameters.NOPE"}`, "pipeline parameter NOPE is not declared"},
		{`{"Get": "Execution.Nope"}`, "Execution.Nope is not an execution variable (known: PipelineExecutionId)"},
		{`{"Get": "Steps.Later.X"}`, "step Later has not run (it is not started)"},
		{`{"Get": "Steps.Ghost.X"}`, "no step of that name"},
		{`{"Get": "Steps.Pre.Process.ModelName"}`, "has no property ModelName here"},
		{`{"Get": "Bogus.X"}`, "a Get names Parameters., Execution. or Steps."},
		{`{"Std:JsonGet": {"PropertyFile": {"Get": "Steps.Pre.Process.PropertyFiles.Eval"}, "Path": "metrics.f1"}}`, "no key f1"},
	} {
		var v any
		if err := json.Unmarshal([]byte(c.expr), &v); err != nil {
			t.Fatal(err)
		}
		if _, err := e.str(v); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.expr, err, c.want)
		}
	}
	e.current = e.steps["Pre.Process"]
	if got, _ := e.str(map[string]any{"Get": "Execution.ProcessingJobName"}); got != "pre-1" {
		t.Errorf("ProcessingJobName = %q", got)
	}
}

func TestStore(t *testing.T) {
	root := t.TempDir()
	s := &store{root: root}
	p, b, err := s.resolve("s3://bucket/a/b/")
	if err != nil || b != nil || p != below(root, "bucket/a/b") {
		t.Fatalf("store path %s %v %v", p, b, err)
	}
	if err := s.bind("s3://bucket/a", trusted("/data/a"), "k1"); err != nil {
		t.Fatal(err)
	}
	if err := s.bind("s3://bucket/a/b/c/", trusted("/data/c"), "k2"); err != nil {
		t.Fatal(err)
	}
	for uri, want := range map[string]string{
		"s3://bucket/a":         "/data/a",
		"s3://bucket/a/":        "/data/a",
		"s3://bucket/a/x/y.csv": "/data/a/x/y.csv",
		"s3://bucket/a/b/c":     "/data/c",
		"s3://bucket/a/b/c/d":   "/data/c/d",
		"s3://bucket/ab":        filepath.Join(root, "bucket", "ab"),
	} {
		if got, _, err := s.resolve(uri); err != nil || got.String() != want {
			t.Errorf("resolve %s = %s, %v; want %s", uri, got, err, want)
		}
	}
	for _, bad := range []string{"https://x/y", "s3:///key", "s3://b/../x", "s3://b/./x", "/local"} {
		if _, _, err := s.resolve(bad); err == nil {
			t.Errorf("%s must be refused", bad)
		}
	}
	if objectName("s3://b/k/train.csv") != "train.csv" || objectName("s3://b") != "" {
		t.Error("objectName")
	}
}

func TestArchives(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "model")
	for name, body := range map[string]string{"model.bin": "m", "code/inference.py": "x = 1\n"} {
		f := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tgz := below(dir, "out/model.tar.gz")
	if err := packTarGz(trusted(src), tgz); err != nil {
		t.Fatal(err)
	}
	ents, err := listTarGz(tgz)
	if err != nil || len(ents) != 2 || ents[0].Name != "code/inference.py" || ents[1].Name != "model.bin" {
		t.Fatalf("entries %v %v", ents, err)
	}
	back := filepath.Join(dir, "back")
	if err := extractTarGz(tgz, back); err != nil {
		t.Fatal(err)
	}
	if readFile(t, filepath.Join(back, "code", "inference.py")) != "x = 1\n" {
		t.Fatal("round trip")
	}
	if _, err := listTarGz(trusted(filepath.Join(src, "model.bin"))); err == nil || !strings.Contains(err.Error(), "not a gzip compressed tar archive") {
		t.Fatalf("a plain file is not an archive: %v", err)
	}
	for _, evil := range []tar.Header{
		{Name: "../escape", Typeflag: tar.TypeReg, Size: 1, Mode: 0o644},
		{Name: "/abs", Typeflag: tar.TypeReg, Size: 1, Mode: 0o644},
		{Name: "link", Typeflag: tar.TypeSymlink, Linkname: "../../etc/passwd"},
	} {
		f := filepath.Join(dir, "evil.tar.gz")
		writeEvil(t, f, evil)
		if err := extractTarGz(trusted(f), filepath.Join(dir, "evil")); err == nil {
			t.Errorf("entry %s -> %s must be refused", evil.Name, evil.Linkname)
		}
	}
}

func writeEvil(t *testing.T, path string, h tar.Header) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&h); err != nil {
		t.Fatal(err)
	}
	if h.Size > 0 {
		_, _ = tw.Write([]byte("x"))
	}
	tw.Close()
	gz.Close()
	f.Close()
}

func TestJobNames(t *testing.T) {
	if got := jobName("XGBoostModelEval-Calibration", "local-20260101-000000-abc123"); got != "xgboostmodeleval-calibration-abc123" {
		t.Errorf("jobName = %q", got)
	}
	if got := jobName(strings.Repeat("Long", 30), "x-1"); len(got) > 63 || strings.HasPrefix(got, "-") {
		t.Errorf("jobName too long or badly cut: %q", got)
	}
}

func TestMountsMustNotNest(t *testing.T) {
	if err := checkMounts([]Mount{{Container: "/opt/ml/a", Host: "/x"}, {Container: "/opt/ml/a/b", Host: "/y"}}); err == nil {
		t.Error("nested container paths must be refused")
	}
	if err := checkMounts([]Mount{{Container: "/opt/ml/a", Host: "/x"}, {Container: "/opt/ml/ab", Host: "/y"}}); err != nil {
		t.Error(err)
	}
	if err := checkMounts([]Mount{{Container: "opt/ml/a", Host: "/x"}}); err == nil {
		t.Error("relative container paths must be refused")
	}
}

// No interpreter is Unsupported: the run cannot start on this machine.
func TestNoPythonIsUnsupported(t *testing.T) {
	t.Setenv(EnvPython, filepath.Join(t.TempDir(), "no-such-python3"))
	_, err := RequirePython()
	if !errors.Is(err, ErrNoPython) || errkind.Of(err) != errkind.Unsupported {
		t.Fatalf("err = %v (kind %q), want ErrNoPython of kind unsupported", err, errkind.Of(err))
	}
}
