package server_test

import (
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/server"
)

// TestWriteArgAnnotations: a read-only tool that writes on request
// (compile.definition's output_file) is listed read-only where writes are
// closed and not read-only where they are open.
func TestWriteArgAnnotations(t *testing.T) {
	if def, ok := cursus.Registry().Get("compile.definition"); !ok || def.WriteArg != "output_file" || !def.ReadOnly() {
		t.Fatalf("compile.definition: want a read-only tool writing with output_file")
	}
	for _, open := range []bool{false, true} {
		cs := connect(t, newServer(t, cursus.Registry(), server.Options{Policy: registry.Policy{AllowDestructive: open, ProjectRoot: t.TempDir()}}), "2025-06-18")
		tl := listTools(t, cs)["compile__definition"]
		if tl == nil {
			t.Fatalf("writes open %v: compile__definition not listed", open)
		}
		if tl.Annotations.ReadOnlyHint == open {
			t.Errorf("writes open %v: readOnlyHint %v", open, tl.Annotations.ReadOnlyHint)
		}
	}
}
