package codetest

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// repackJob lays out the repack job of a model: the trained archive in channel model, the
// inference code's sourcedir.tar.gz in channel inference_code.
func repackJob(t *testing.T, model, code map[string]string) trainingDirs {
	t.Helper()
	d := newTrainingDirs(t)
	writeArchive(t, filepath.Join(d.input, "data", "model", "model.tar.gz"), model)
	writeArchive(t, filepath.Join(d.input, "data", "inference_code", "sourcedir.tar.gz"), code)
	return d
}

func filesUnder(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	must(t, err)
	return out
}

// The repack job the compiler adds before a PyTorch model writes the trained model's files and the
// inference code under code/ into /opt/ml/model, replacing a code/ the trained archive held; it
// fails, naming the program, when the code lacks the program the model's SAGEMAKER_PROGRAM names,
// and refuses an archive member that would land outside its folder.
func TestRepackModel(t *testing.T) {
	sb := needSandbox(t)
	model := map[string]string{"model.pt": "weights", "model_config.json": `{"a": 1}`, "code/stale.py": "old"}
	code := map[string]string{"inference.py": "def model_fn(d):\n    return d\n", "helper.py": "X = 1\n", "requirements.txt": "lightgbm\n"}
	d := repackJob(t, model, code)
	out := sb.mustRun(t, job{script: "repack_model.py", codeDir: "/opt/ml/code", binds: d.binds(), args: []string{"--inference_program", "inference.py"}})
	got := filesUnder(t, d.model)
	want := map[string]string{"model.pt": "weights", "model_config.json": `{"a": 1}`,
		"code/inference.py": code["inference.py"], "code/helper.py": "X = 1\n", "code/requirements.txt": "lightgbm\n"}
	if !reflect.DeepEqual(got, want) {
		var names []string
		for k := range got {
			names = append(names, k)
		}
		sort.Strings(names)
		t.Fatalf("the repacked model holds %v, want the model's files and the code under code/\n%s", names, out)
	}
	if !strings.Contains(out, "requirements.txt is installed by the serving container") {
		t.Errorf("the log does not mention the requirements:\n%s", out)
	}

	d = repackJob(t, model, map[string]string{"serve.py": "pass\n"})
	out, err := sb.run(t, job{script: "repack_model.py", codeDir: "/opt/ml/code", binds: d.binds(), args: []string{"--inference_program", "inference.py"}})
	if err == nil || !strings.Contains(out, "the inference code has no inference.py (it holds: serve.py)") {
		t.Errorf("code without the program: err %v\n%s", err, out)
	}

	d = repackJob(t, map[string]string{"model.pt": "w", "../escape.txt": "x"}, code)
	out, err = sb.run(t, job{script: "repack_model.py", codeDir: "/opt/ml/code", binds: d.binds()})
	if err == nil || !strings.Contains(out, "would unpack outside its folder") {
		t.Errorf("an escaping member: err %v\n%s", err, out)
	}
	if _, statErr := os.Stat(filepath.Join(filepath.Dir(d.model), "escape.txt")); statErr == nil {
		t.Error("a member was written outside the model folder")
	}
}

// The launcher of archived processing code unpacks sourcedir.tar.gz from the code input, runs the
// entry point from the unpacked folder (its helper modules import) with the job's arguments, and
// passes the entry point's exit status on; it fails, naming it, when the archive lacks the entry
// point.
func TestRunprocLauncher(t *testing.T) {
	sb := needSandbox(t)
	proc := t.TempDir()
	out := filepath.Join(proc, "output")
	mkdir(t, out)
	writeArchive(t, filepath.Join(proc, "input", "code", "sourcedir.tar.gz"), map[string]string{
		"job.py":              "import sys, helpers\nopen('/opt/ml/processing/output/args.txt', 'w').write(helpers.GREETING + ' ' + ' '.join(sys.argv[1:]))\nsys.exit(int(sys.argv[-1]))\n",
		"helpers/__init__.py": "GREETING = 'hello'\n",
	})
	run := func(args ...string) (string, error) {
		return sb.run(t, job{script: "runproc.py", codeDir: "/opt/ml/processing/input/entrypoint", binds: map[string]string{"/opt/ml/processing": proc}, args: args})
	}
	if log, err := run("job.py", "--flag", "v", "0"); err != nil {
		t.Fatalf("the launcher failed: %v\n%s", err, log)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "args.txt")); string(b) != "hello --flag v 0" {
		t.Errorf("the entry point wrote %q", b)
	}
	if log, err := run("job.py", "3"); err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("the entry point's exit status 3 is lost: %v\n%s", err, log)
	}
	if log, err := run("missing.py"); err == nil || !strings.Contains(log, "the entry point missing.py is not in the code archive") {
		t.Errorf("a missing entry point: %v\n%s", err, log)
	}
}

// The launcher installs a requirements.txt of the archive only where the image lacks something it
// lists (an image that has the packages needs no package index, so an isolated job runs too), and
// a failed install names what is missing and why it failed.
func TestRunprocRequirements(t *testing.T) {
	sb := needSandbox(t, "pandas")
	run := func(reqs string) (string, error) {
		proc := t.TempDir()
		mkdir(t, filepath.Join(proc, "output"))
		writeArchive(t, filepath.Join(proc, "input", "code", "sourcedir.tar.gz"), map[string]string{
			"job.py":           "open('/opt/ml/processing/output/ran', 'w').write('yes')\n",
			"requirements.txt": reqs,
		})
		return sb.run(t, job{script: "runproc.py", codeDir: "/opt/ml/processing/input/entrypoint", binds: map[string]string{"/opt/ml/processing": proc}, args: []string{"job.py"}})
	}
	log, err := run("# the image has these\npandas>=0.1\nnumpy\n")
	if err != nil || !strings.Contains(log, "requirements.txt is satisfied by the image") || strings.Contains(log, "installing requirements.txt") {
		t.Fatalf("satisfied requirements: %v\n%s", err, log)
	}
	// The sandbox has no network: pip cannot reach an index, as in an isolated job.
	log, err = run("pandas>=0.1\ncursus-no-such-package>=1.0\n")
	if err == nil || !strings.Contains(log, "missing: cursus-no-such-package>=1.0 (not installed)") || !strings.Contains(log, "package index") {
		t.Fatalf("an unmet requirement: %v\n%s", err, log)
	}
}
