package codetest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler/scripttest"
)

// writeArchive writes a .tar.gz of the given members (name -> content; a "->" content makes a
// symbolic link).
func writeArchive(t *testing.T, path string, members map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, content := range members {
		h := &tar.Header{Name: name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			h = &tar.Header{Name: name, Linkname: target, Typeflag: tar.TypeSymlink, Mode: 0o777}
		}
		must(t, tw.WriteHeader(h))
		if h.Typeflag == tar.TypeReg {
			_, err := tw.Write([]byte(content))
			must(t, err)
		}
	}
	must(t, tw.Close())
	must(t, gz.Close())
	mkdir(t, filepath.Dir(path))
	must(t, os.WriteFile(path, buf.Bytes(), 0o644))
}

func TestDummyTraining(t *testing.T) {
	sb := needSandbox(t)
	run := func(t *testing.T, setup func(p processingDirs)) (processingDirs, string, error) {
		p := newProcessingDirs(t)
		setup(p)
		out, err := sb.run(t, job{script: "dummy_training.py", codeDir: "/opt/ml/processing/input/code", binds: p.binds()})
		return p, out, err
	}
	hp := `{"label_name": "label", "tab_field_list": ["x1"]}`

	t.Run("model with hyperparameters is published unchanged", func(t *testing.T) {
		p, out, err := run(t, func(p processingDirs) {
			writeArchive(t, p.path("input/model/model.tar.gz"), map[string]string{"xgboost_model.json": "{}", "hyperparameters.json": `{"label_name": "y"}`})
			writeJSON(t, p.path("input/config/hyperparameters.json"), map[string]any{"label_name": "other"})
		})
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		in, _ := os.ReadFile(p.path("input/model/model.tar.gz"))
		got, _ := os.ReadFile(p.path("output/model/model.tar.gz"))
		if !bytes.Equal(in, got) || !strings.Contains(out, "is not used") {
			t.Errorf("archive changed (%d -> %d bytes) or the unused input not reported:\n%s", len(in), len(got), out)
		}
	})
	t.Run("hyperparameters are added", func(t *testing.T) {
		p, out, err := run(t, func(p processingDirs) {
			writeArchive(t, p.path("input/model/model.tar.gz"), map[string]string{"model.pt": "weights", "code/inference.py": "# serve"})
			must(t, os.MkdirAll(p.path("input/config"), 0o755))
			must(t, os.WriteFile(p.path("input/config/hyperparameters.json"), []byte(hp), 0o644))
		})
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		files := scripttest.TarContents(t, p.path("output/model/model.tar.gz"))
		if string(files["hyperparameters.json"]) != hp || string(files["model.pt"]) != "weights" || string(files["code/inference.py"]) != "# serve" {
			t.Errorf("archive members %v", files)
		}
	})
	t.Run("a folder of model files is packed", func(t *testing.T) {
		p, out, err := run(t, func(p processingDirs) {
			mkdir(t, p.path("input/model"))
			must(t, os.WriteFile(p.path("input/model/lightgbm_model.txt"), []byte("tree"), 0o644))
			must(t, os.WriteFile(p.path("input/model/hyperparameters.json"), []byte(hp), 0o644))
		})
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if files := scripttest.TarContents(t, p.path("output/model/model.tar.gz")); string(files["lightgbm_model.txt"]) != "tree" || string(files["hyperparameters.json"]) != hp {
			t.Errorf("archive members %v", files)
		}
	})
	for name, c := range map[string]struct {
		members map[string]string
		want    string
	}{
		"no hyperparameters anywhere": {map[string]string{"model.pt": "w"}, "has no hyperparameters.json"},
		"member outside the archive":  {map[string]string{"../evil": "x", "hyperparameters.json": hp}, "outside the archive"},
		"symbolic link":               {map[string]string{"link": "->/etc/passwd", "hyperparameters.json": hp}, "link"},
	} {
		t.Run(name, func(t *testing.T) {
			p, out, err := run(t, func(p processingDirs) { writeArchive(t, p.path("input/model/model.tar.gz"), c.members) })
			if err == nil || !strings.Contains(out, c.want) {
				t.Fatalf("want a failure naming %q, got %v:\n%s", c.want, err, out)
			}
			if _, err := os.Stat(p.path("output/model/model.tar.gz")); err == nil {
				t.Error("a refused model was published")
			}
		})
	}
	t.Run("not an archive", func(t *testing.T) {
		_, out, err := run(t, func(p processingDirs) {
			mkdir(t, p.path("input/model"))
			must(t, os.WriteFile(p.path("input/model/model.tar.gz"), []byte("not gzip"), 0o644))
		})
		if err == nil || !strings.Contains(out, "not a readable tar archive") {
			t.Fatalf("want a failure, got %v:\n%s", err, out)
		}
	})
}
