package tools

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/localrun"
	"github.com/cursus-go/cursus/internal/testenv"
	"github.com/cursus-go/cursus/registry"
)

// The attacks of "a sandbox that holds as root", through
// execution.run_local as an agent calls it: a project whose training
// script (or archive) is hostile, under a confined project root with
// writes and script execution open. A canary file outside the root holds
// a secret that must never come back.

// attackProject copies the simple-training example into a fresh project
// root (as p/) with script as its training script, and returns the root,
// the canary file outside it and the canary's secret.
func attackProject(t *testing.T, script string) (root, canaryFile, secret string) {
	t.Helper()
	testenv.Need(t, localrun.Ready())
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	secret = "canary-" + strings.ReplaceAll(t.Name(), "/", "-")
	canaryFile = filepath.Join(outside, "credentials")
	if err := os.WriteFile(canaryFile, []byte("[default]\naws_secret_access_key = "+secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ex, err := filepath.Abs(filepath.Join("..", "examples", "simple-training"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(root, "p"), os.DirFS(ex)); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "p", "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if script != "" {
		if err := os.WriteFile(filepath.Join(root, "p", "scripts", "xgboost_training.py"), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The steps before training are given as data: only the training job
	// runs.
	for _, d := range []string{"dd/DATA", "dd/METADATA", "dd/SIGNATURE", "pp/train", "pp/val", "pp/test"} {
		if err := os.MkdirAll(filepath.Join(root, "p", "given", d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "p", "given", d, "part.csv"), []byte("f1,f2,f3,label\n1,2,3,0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, canaryFile, secret
}

// runLocalAttack runs the project's pipeline through execution.run_local
// and returns the envelope and its whole text.
func runLocalAttack(t *testing.T, root string, extra map[string]string) (map[string]any, string) {
	t.Helper()
	ctx := registry.WithPolicy(context.Background(), registry.Policy{AllowDestructive: true, AllowScriptExec: true, ProjectRoot: root})
	data := map[string]string{
		"DummyDataLoading-Training.DATA": "p/given/dd/DATA", "DummyDataLoading-Training.METADATA": "p/given/dd/METADATA",
		"DummyDataLoading-Training.SIGNATURE": "p/given/dd/SIGNATURE", "TabularPreprocessing-Training.processed_data": "p/given/pp",
	}
	for k, v := range extra {
		data[k] = v
	}
	env := callTool(t, ctx, "execution.run_local", map[string]any{"dag_file": "p/dag.json", "config_file": "p/config.json",
		"work_dir": "runs/" + strings.ReplaceAll(t.Name(), "/", "-"), "data": data})
	b, _ := json.Marshal(env)
	return env, string(b)
}

// A training job that links /opt/ml/output/failure to a host file and
// fails: the failure reason is not read through the link, the secret is
// nowhere in the answer.
func TestSandboxFailureFileLinkedToAHostFile(t *testing.T) {
	script := "import os, sys\nos.symlink(%q, '/opt/ml/output/failure')\nsys.exit(1)\n"
	root, canaryFile, secret := attackProject(t, "")
	if err := os.WriteFile(filepath.Join(root, "p", "scripts", "xgboost_training.py"), []byte(strings.Replace(script, "%q", pyString(canaryFile), 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	env, text := runLocalAttack(t, root, nil)
	if env["ok"] != false || !strings.Contains(text, "XGBoostTraining") {
		t.Fatalf("the failed job fails the call, naming the step: %.600s", text)
	}
	if strings.Contains(text, secret) {
		t.Fatalf("the host file a job linked its failure file to came back in the answer: %.2000s", text)
	}
}

// A submitted source archive whose links climb out of its destination
// (a -> ., b -> a/a/.../../..) cannot carry a later entry outside it: the
// call fails naming the entry, and nothing is written outside the root.
func TestSandboxArchiveCannotWriteOutside(t *testing.T) {
	root, canaryFile, _ := attackProject(t, "print('hi')\n")
	outside := filepath.Dir(canaryFile)
	ctx := registry.WithPolicy(context.Background(), registry.Policy{AllowDestructive: true, AllowScriptExec: true, ProjectRoot: root})
	def := callTool(t, ctx, "compile.definition", map[string]any{"dag_file": "p/dag.json", "config_file": "p/config.json"})
	b, _ := json.Marshal(def)
	uri := regexp.MustCompile(`s3://[^"\\]+sourcedir\.tar\.gz`).FindString(string(b))
	if uri == "" {
		t.Fatalf("no sourcedir.tar.gz in the definition: %.500s", b)
	}
	target, _ := filepath.Rel("/", filepath.Join(outside, "PWN_tar"))
	evil := filepath.Join(root, "evil.tar.gz")
	f, err := os.Create(evil)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for _, h := range []*tar.Header{
		{Name: "a", Typeflag: tar.TypeSymlink, Linkname: "."},
		{Name: "b", Typeflag: tar.TypeSymlink, Linkname: strings.Repeat("a/", 24) + strings.Repeat("../", 24)},
		{Name: "b/" + target, Typeflag: tar.TypeReg, Size: 8, Mode: 0o644},
	} {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			_, _ = tw.Write([]byte("escaped\n"))
		}
	}
	tw.Close()
	gz.Close()
	f.Close()
	env, text := runLocalAttack(t, root, map[string]string{uri: "evil.tar.gz"})
	if _, err := os.Stat(filepath.Join(outside, "PWN_tar")); err == nil {
		t.Fatal("an archive's entry was written outside its destination through its links")
	}
	if env["ok"] != false || !strings.Contains(text, "entry b/") {
		t.Fatalf("the call fails, naming the entry: %.1500s", text)
	}
}

func pyString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
