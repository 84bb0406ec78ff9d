package tools_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus"
)

var update = flag.Bool("update", false, "rewrite the schema snapshots under testdata/schemas")

const snapshotDir = "testdata/schemas"

// snapshot is what testdata/schemas/<tool>.json holds: the schemas a host
// sees in tools/list.
type snapshot struct {
	Name         string         `json:"name"`
	InputSchema  map[string]any `json:"input_schema"`
	OutputSchema map[string]any `json:"output_schema"`
}

// TestSchemaSnapshots compares every tool's input and output schema with
// its snapshot, so a change of what hosts see is reviewed in the diff.
// After a deliberate change: go test ./tools -run TestSchemaSnapshots -args -update
func TestSchemaSnapshots(t *testing.T) {
	const how = "review the change, then rewrite the snapshots: go test ./tools -run TestSchemaSnapshots -args -update"
	want := map[string]bool{}
	for _, tl := range cursus.Registry().All() {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(snapshot{Name: tl.Name, InputSchema: tl.Schema(), OutputSchema: tl.OutputSchema()}); err != nil {
			t.Fatal(err)
		}
		b := buf.Bytes()
		file := filepath.Join(snapshotDir, tl.Name+".json")
		want[filepath.Base(file)] = true
		if *update {
			if err := os.MkdirAll(snapshotDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(file)
		switch {
		case os.IsNotExist(err):
			t.Errorf("%s has no schema snapshot (%s): %s", tl.Name, file, how)
		case err != nil:
			t.Fatal(err)
		case !bytes.Equal(got, b):
			t.Errorf("the schemas of %s differ from %s: %s", tl.Name, file, how)
		}
	}
	files, err := filepath.Glob(filepath.Join(snapshotDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if want[filepath.Base(f)] {
			continue
		}
		if *update {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s is the snapshot of no tool (%s): %s", f, strings.TrimSuffix(filepath.Base(f), ".json"), how)
	}
}
