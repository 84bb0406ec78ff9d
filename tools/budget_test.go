package tools_test

import (
	"encoding/json"
	"slices"
	"testing"
)

// answerBudget is the most a tool's answer to one of its examples may be,
// in bytes of compact JSON (the whole envelope): more detail is asked for
// with a detail or paging argument, never given by default. Every tool
// answers its examples within it; a tool that does not fails
// TestExampleAnswers until it gets a detail or paging argument (default
// small).
const answerBudget = 16 << 10

// budgetCheck measures the answers of TestExampleAnswers against
// answerBudget.
type budgetCheck struct {
	measured int    // answers measured
	largest  int    // the largest answer seen, in bytes
	tool     string // the tool that gave it
	// byTool is each tool's largest answer, and where the call that gave it.
	byTool map[string]int
	where  map[string]string
}

// measure checks one example's answer (its wire form). The definition a
// compile.definition answer carries is the artifact the tool exists to
// return (output_file writes it instead), so it is not counted; a success
// of compile.definition with neither the definition nor its file (or with
// both) means the exception is stale.
func (b *budgetCheck) measure(t *testing.T, tool, example string, wire []byte) {
	t.Helper()
	if tool == "compile.definition" {
		var env map[string]any
		if err := json.Unmarshal(wire, &env); err != nil {
			t.Fatalf("%s: %v", example, err)
		}
		if d, ok := env["data"].(map[string]any); ok {
			_, inline := d["definition"]
			_, written := d["definition_file"]
			if inline == written && env["ok"] == true {
				t.Errorf("%s: the answer carries a definition %v and a definition_file %v: one of them, exactly", example, inline, written)
			}
			delete(d, "definition")
		}
		var err error
		if wire, err = json.Marshal(env); err != nil {
			t.Fatal(err)
		}
	}
	b.measured++
	if len(wire) > b.largest {
		b.largest, b.tool = len(wire), tool
	}
	if b.byTool == nil {
		b.byTool, b.where = map[string]int{}, map[string]string{}
	}
	if len(wire) > b.byTool[tool] {
		b.byTool[tool], b.where[tool] = len(wire), example
	}
	if len(wire) > answerBudget {
		t.Errorf("%s: the answer is %d bytes, over the %d-byte budget: give the tool a detail or paging argument (default small)", example, len(wire), answerBudget)
	}
}

// done fails when no answer was measured (the budget then held nothing)
// and logs the largest answer.
func (b *budgetCheck) done(t *testing.T) {
	t.Helper()
	if b.measured == 0 {
		t.Error("no answer was measured against the budget")
		return
	}
	names := make([]string, 0, len(b.byTool))
	for tool := range b.byTool {
		names = append(names, tool)
	}
	slices.Sort(names)
	for _, tool := range names {
		t.Logf("largest %-36s %6d B  %s", tool, b.byTool[tool], b.where[tool])
	}
	t.Logf("%d answers measured; the largest: %s, %d of %d bytes", b.measured, b.tool, b.largest, answerBudget)
}
