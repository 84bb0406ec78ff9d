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
	t.Parallel()
	if def, ok := cursus.Registry().Get("compile.definition"); !ok || def.WriteArg != "output_file" || !def.ReadOnly() {
		t.Fatalf("compile.definition: want a read-only tool writing with output_file")
	}
	for _, open := range []bool{false, true} {
		cs := connect(t, newServer(t, cursus.Registry(), server.Options{Policy: registry.Policy{AllowDestructive: open, ProjectRoot: t.TempDir()}, Toolsets: []string{registry.AllToolsets}}), "2025-06-18")
		tl := listTools(t, cs)["compile__definition"]
		if tl == nil {
			t.Fatalf("writes open %v: compile__definition not listed", open)
		}
		if tl.Annotations.ReadOnlyHint == open {
			t.Errorf("writes open %v: readOnlyHint %v", open, tl.Annotations.ReadOnlyHint)
		}
	}
}

// TestWritesWhenOpenAnnotations: workflow.complete_stage records a
// completion when writes are open and answers without writing while they
// are closed: listed read-only where writes are closed, not where they
// are open. workflow.run, which runs other tools (code among them), is
// never read-only nor closed to the world.
func TestWritesWhenOpenAnnotations(t *testing.T) {
	for _, open := range []bool{false, true} {
		cs := connect(t, newServer(t, cursus.Registry(), server.Options{Policy: registry.Policy{AllowDestructive: open, ProjectRoot: t.TempDir()}, Toolsets: []string{registry.AllToolsets}}), "2025-06-18")
		listed := listTools(t, cs)
		tl := listed["workflow__complete_stage"]
		if tl == nil {
			t.Fatalf("writes open %v: workflow__complete_stage not listed", open)
		}
		if tl.Annotations.ReadOnlyHint == open {
			t.Errorf("writes open %v: workflow__complete_stage readOnlyHint %v", open, tl.Annotations.ReadOnlyHint)
		}
		if run := listed["workflow__run"]; open && (run == nil || run.Annotations.ReadOnlyHint || run.Annotations.OpenWorldHint == nil || !*run.Annotations.OpenWorldHint) {
			t.Errorf("workflow__run is annotated as running code and reaching out: %+v", run)
		}
	}
}
