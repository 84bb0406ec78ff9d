package tools_test

import (
	"testing"

	"github.com/cursus-go/cursus"
)

// TestEveryToolIsTyped: every tool of the default registry (the workflow
// namespace included) answers a Go data type, so its output schema types
// its data; a handler that returns *envelope.ToolResult (data schema {})
// fails here.
func TestEveryToolIsTyped(t *testing.T) {
	n := 0
	for _, tl := range cursus.Registry().All() {
		n++
		d := tl.DataSchema()
		if !tl.Typed() {
			t.Errorf("%s has no typed output: give its handler a data type (CONTRIBUTING.md, Adding a tool)", tl.Name)
		} else if len(d) == 0 {
			t.Errorf("%s: typed, but its data schema is empty", tl.Name)
		}
		if o := tl.OutputSchema(); o["type"] != "object" || d == nil {
			t.Errorf("%s: output schema %v", tl.Name, o)
		}
	}
	if n == 0 {
		t.Fatal("the registry has no tools: the check checks nothing")
	}
}
