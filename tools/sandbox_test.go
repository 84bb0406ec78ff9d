package tools

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/localrun"
	"github.com/cursus-go/cursus/envelope"
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
	testenv.AlsoUnprivileged(t)
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
	testenv.AlsoUnprivileged(t)
	root, canaryFile, _ := attackProject(t, "print('hi')\n")
	outside := filepath.Dir(canaryFile)
	ctx := registry.WithPolicy(context.Background(), registry.Policy{AllowDestructive: true, AllowScriptExec: true, ProjectRoot: root})
	def := callTool(t, ctx, "compile.definition", map[string]any{"dag_file": "p/dag.json", "config_file": "p/config.json"})
	b, _ := json.Marshal(def)
	// The training job's source (a processing step's code is an archive too).
	uri := ""
	if m := regexp.MustCompile(`sagemaker_submit_directory":"\\"(s3://[^"\\]+sourcedir\.tar\.gz)`).FindStringSubmatch(string(b)); m != nil {
		uri = m[1]
	}
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

// A job cannot undo its sandbox, as root too: it cannot remount the
// read-only host writable and write there, lift the mounts that hide the
// host's files, read /etc/shadow or a host file outside what it is given,
// make a namespace, or trace its sandbox's init.
func TestSandboxJobCannotUndoItsSandbox(t *testing.T) {
	testenv.AlsoUnprivileged(t)
	root, canaryFile, secret := attackProject(t, "")
	flag := filepath.Join("/var/tmp", "cursus-remount-"+strings.ReplaceAll(t.Name(), "/", "-"))
	os.Remove(flag)
	t.Cleanup(func() { os.Remove(flag) })
	script := `import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def report(what, r):
    print(what, "ok" if r == 0 else "refused errno %d" % ctypes.get_errno())
for target in ("/", "/var", "/var/tmp", "/usr"):
    report("remount " + target, libc.mount(None, target.encode(), None, 32 | 4096, None))  # MS_REMOUNT|MS_BIND
for target in ("/tmp", "/opt/ml", "/usr", OUTSIDE_DIR, os.path.dirname(OUTSIDE_DIR)):
    report("umount " + target, libc.umount2(target.encode(), 2))  # MNT_DETACH
report("unshare user", libc.unshare(0x10000000))
report("unshare mount", libc.unshare(0x00020000))
report("ptrace init", libc.ptrace(16, 1, None, None))  # PTRACE_ATTACH
for path in (FLAG,):
    try:
        open(path, "w").write("x"); print("WROTE", path)
    except Exception as e:
        print("write refused:", e)
for path in ("/etc/shadow", "/etc/gshadow", CANARY, "/root/.aws/credentials", "/proc/1/root/etc/shadow"):
    try:
        print("READ " + path + ": " + open(path).read()[:200])
    except Exception as e:
        print("read refused:", path, e)
print("uid", os.getuid(), "caps", [l for l in open("/proc/self/status") if l.startswith("CapEff")])
sys.exit(1)
`
	script = strings.NewReplacer("OUTSIDE_DIR", pyString(filepath.Dir(canaryFile)), "FLAG", pyString(flag), "CANARY", pyString(canaryFile)).Replace(script)
	if err := os.WriteFile(filepath.Join(root, "p", "scripts", "xgboost_training.py"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	_, text := runLocalAttack(t, root, nil)
	if _, err := os.Stat(flag); err == nil {
		t.Errorf("a job remounted the host writable and wrote %s (as uid %d)", flag, os.Getuid())
	}
	for _, leak := range []string{"READ /etc/shadow", "READ /etc/gshadow", secret, "READ /proc/1/root"} {
		if strings.Contains(text, leak) {
			t.Errorf("a job read what its sandbox hides (%s): %.3000s", leak, text)
		}
	}
	for _, call := range []string{"remount /", "umount /tmp", "unshare user", "unshare mount", "ptrace init"} {
		if strings.Contains(text, call+" ok") {
			t.Errorf("a job could %s: %.3000s", call, text)
		}
	}
	if !regexp.MustCompile(`CapEff:[\\t]+0{16}\b`).MatchString(text) {
		t.Errorf("a job has no capability: %.3000s", text)
	}
}

// Without a working sandbox nothing runs: the call is refused with
// sandbox_unavailable, naming how to install bubblewrap, before any
// script ran. Only the operator's CURSUS_SANDBOX=unsandboxed runs jobs on
// the host, and then every answer says so, the failed ones too.
func TestSandboxUnavailableRefusesUnlessTheOperatorOptsIn(t *testing.T) {
	testenv.AlsoUnprivileged(t)
	root, _, _ := attackProject(t, "import sys\nprint('hello from an unsandboxed job')\nsys.exit(int(open('/opt/ml/input/config/hyperparameters.json').read().count('fail_me')))\n")
	bare := t.TempDir()
	for _, tool := range []string{"sh", "env"} {
		if p, err := exec.LookPath(tool); err == nil {
			if err := os.Symlink(p, filepath.Join(bare, tool)); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Setenv("PATH", bare)
	t.Setenv(localrun.EnvSandbox, "")
	env, text := runLocalAttack(t, root, nil)
	if env["code"] != string(envelope.CodeSandboxUnavailable) || strings.Contains(text, "hello from") {
		t.Fatalf("without bubblewrap the run is refused with sandbox_unavailable before any script runs: %.1500s", text)
	}
	if rem, _ := env["remedy"].(map[string]any); rem == nil || !strings.Contains(fmt.Sprint(rem["fix_action"]), "apt-get install bubblewrap") {
		t.Errorf("the remedy says how to install bubblewrap: %v", env["remedy"])
	}

	t.Setenv(localrun.EnvSandbox, "unsandboxed")
	env, text = runLocalAttack(t, root, nil)
	if env["ok"] != true || !strings.Contains(text, localrun.UnsandboxedNote) {
		t.Fatalf("an opted-in unsandboxed run runs, and its answer says so: %.2000s", text)
	}
	if err := os.WriteFile(filepath.Join(root, "p", "scripts", "xgboost_training.py"), []byte("import sys\nsys.exit(3)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env, _ = runLocalAttack(t, root, nil)
	if env["ok"] != false || !strings.Contains(fmt.Sprint(env["error"]), localrun.UnsandboxedNote) {
		t.Fatalf("a failed unsandboxed run says so in its error: %v", env["error"])
	}
}

func pyString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
