package codetest

import (
	"io/fs"
	"os/exec"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
)

// TestEmbeddedCodeParsesAsPython38: the oldest Python of the images the code runs in (the
// scikit-learn 1.2-1 processing image) is 3.8, so no embedded script may use newer syntax.
func TestEmbeddedCodeParsesAsPython38(t *testing.T) {
	sb := needSandbox(t)
	var files []string
	must(t, fs.WalkDir(catalog.Code(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".py") {
			files = append(files, p)
		}
		return err
	}))
	if len(files) == 0 {
		t.Fatal("no embedded Python code")
	}
	for _, f := range files {
		src, err := fs.ReadFile(catalog.Code(), f)
		must(t, err)
		cmd := exec.Command(sb.python, "-c", "import ast, sys; ast.parse(sys.stdin.read(), sys.argv[1], feature_version=(3, 8))", f)
		cmd.Stdin = strings.NewReader(string(src))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s is not Python 3.8: %s", f, lastLine(string(out)))
		}
	}
}
