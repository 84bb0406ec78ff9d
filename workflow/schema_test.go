package workflow_test

import (
	"encoding/json"
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/envelope"
	"github.com/xeipuuv/gojsonschema"
)

// checkOutput validates a tool's answer, as it goes on the wire, against
// the tool's published output schema.
func checkOutput(t testing.TB, tool string, res *envelope.ToolResult) {
	t.Helper()
	def, ok := cursus.Registry().Get(tool)
	if !ok {
		t.Fatalf("no tool %s", tool)
	}
	sb, err := json.Marshal(def.OutputSchema())
	if err != nil {
		t.Fatal(err)
	}
	wire, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("%s: the answer does not encode: %v", tool, err)
	}
	v, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(sb), gojsonschema.NewBytesLoader(wire))
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	for _, e := range v.Errors() {
		t.Errorf("%s: the answer breaks the output schema: %s\n%.600s", tool, e, wire)
	}
}

// TestCheckOutputFails: the check fails on data its schema does not
// allow (a stage answer whose run_id is a number), so the calls that pass
// it prove something.
func TestCheckOutputFails(t *testing.T) {
	ft := &failT{TB: t}
	checkOutput(ft, "workflow.complete_stage", envelope.OK(map[string]any{"run_id": 1}))
	if !ft.failed {
		t.Error("an answer that breaks the schema passed the check")
	}
}

// failT records a failure instead of failing the test.
type failT struct {
	testing.TB
	failed bool
}

func (f *failT) Errorf(string, ...any) { f.failed = true }
func (f *failT) Fatalf(string, ...any) { f.failed = true }
func (f *failT) Helper()               {}
