package validation

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A node's job that makes its output a link to a host file does not make
// the runner copy the host file into the next node's input (here an input
// that is one file, copied by its name from the producer's folder): the
// copy goes through a root on the producer's container root, and the
// secret never reaches the next job or the report.
func TestAttackOutputLinkedToAHostFileIsNotCopied(t *testing.T) {
	needPython(t)
	secret := "canary-validation-output-link"
	host := filepath.Join(t.TempDir(), "credentials")
	writeFile(t, host, secret+"\n")
	producer := "import os\nOUT = '/opt/ml/processing/output/data'\nos.makedirs(OUT, exist_ok=True)\nos.symlink(" + jsonString(host) + ", os.path.join(OUT, 'rows.csv'))\n"
	fileInput := strings.Replace(customStep, "path: /opt/ml/processing/input/data\n", "path: /opt/ml/processing/input/data/rows.csv\n", 1)
	reader := "import os\nfor r, _, fs in os.walk('/opt/ml/processing/input'):\n    for n in fs:\n        p = os.path.join(r, n)\n        print(p, open(p).read() if os.path.isfile(p) else 'absent')\n"
	f := newRunFixtureWith(t, reader, fileInput)
	writeFile(t, filepath.Join(f.scripts, "demo_producer.py"), producer)
	rep, err := RunScripts(context.Background(), RunOptions{Catalog: f.cat, DAG: f.dag, Configs: f.configs, Workspace: t.TempDir(),
		UseDependencyResolution: true, ScriptDirs: []string{f.scripts}})
	if err == nil {
		b, _ := json.Marshal(rep)
		if strings.Contains(string(b), secret) {
			t.Fatalf("the host file a job linked to was copied into the next job's input: %s", b)
		}
		return
	}
	if strings.Contains(err.Error(), secret) {
		t.Fatalf("the error carries the host file's content: %v", err)
	}
	if _, statErr := os.Stat(host); statErr != nil {
		t.Fatal(statErr)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
