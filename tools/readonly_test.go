package tools_test

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

// TestReadOnlyToolsWriteNothing: every tool the registry calls read-only
// (and the MCP server annotates readOnlyHint) runs each of its examples
// in the example project (exampleProject: writes open) and leaves the
// tree exactly as it was: no file added, removed or changed. An example
// that gives the argument with which the tool writes on request
// (Spec.WriteArg) runs with writes closed and must be refused.
func TestReadOnlyToolsWriteNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every read-only tool's examples")
	}
	root, ctx := exampleProject(t)
	r := cursus.Registry()
	ran := 0
	for _, tl := range r.List("") {
		if !tl.ReadOnly() {
			continue
		}
		for _, e := range tl.Examples {
			name, args, _, err := registry.ParseExample(e)
			if err != nil {
				t.Fatal(err)
			}
			before := treeState(t, root)
			if _, writes := args[tl.WriteArg]; tl.WriteArg != "" && writes {
				// The argument that makes the tool write: refused where
				// writes are closed, and nothing is written.
				p := *registry.PolicyFrom(ctx)
				p.AllowDestructive = false
				if res := r.Call(registry.WithPolicy(ctx, p), name, args); res.Code != envelope.CodeToolDisabled {
					t.Errorf("%s with writes closed: %s %s, want %s", e, res.Code, res.Error, envelope.CodeToolDisabled)
				}
			} else {
				r.Call(ctx, name, args)
			}
			ran++
			after := treeState(t, root)
			for p, st := range after {
				if was, ok := before[p]; !ok {
					t.Errorf("%s (read-only) created %s", e, p)
				} else if was != st {
					t.Errorf("%s (read-only) changed %s", e, p)
				}
			}
			for p := range before {
				if _, ok := after[p]; !ok {
					t.Errorf("%s (read-only) removed %s", e, p)
				}
			}
		}
	}
	if ran < 40 {
		t.Errorf("only %d examples of read-only tools ran", ran)
	}
	// The check sees a write: a writing tool changes the tree.
	before := treeState(t, root)
	if res := r.Call(ctx, "dag.serialize", map[string]any{"dag": map[string]any{"nodes": []string{"a"}}, "output_file": "out/dag.json"}); !res.OK {
		t.Fatalf("dag.serialize: %s", res.Error)
	}
	if after := treeState(t, root); len(after) == len(before) {
		t.Error("a write went unseen by the tree comparison")
	}
}

// fileState is what a write would change about a path.
type fileState struct {
	size  int64
	mtime time.Time
	mode  fs.FileMode
}

func treeState(t *testing.T, root string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, root)
		st := fileState{size: info.Size(), mtime: info.ModTime(), mode: info.Mode()}
		if d.IsDir() {
			st.size, st.mtime = 0, time.Time{} // a directory's entries are checked themselves
		}
		out[rel] = st
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
