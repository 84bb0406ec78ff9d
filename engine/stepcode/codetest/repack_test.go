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
