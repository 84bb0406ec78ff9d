package tools_test

import (
	"encoding/json"
	"slices"
	"testing"
)

// answerBudget is the most a tool's answer to one of its examples may be,
// in bytes of compact JSON (the whole envelope): more detail is asked for
// with a detail or paging argument, never given by default.
const answerBudget = 16 << 10

// overBudget are the tools with an example whose answer is still larger
// than answerBudget. The list only shrinks: give the tool a detail or
// paging argument (default small) and take it out.
var overBudget = []string{}

// budgetCheck measures the answers of TestExampleAnswers against
// answerBudget and holds overBudget to what it sees.
type budgetCheck struct {
	over map[string]int // tool -> its largest answer over the budget
}

// measure checks one example's answer (its wire form). The definition a
// compile.definition answer carries is the artifact the tool exists to
// return (output_file writes it instead), so it is not counted.
func (b *budgetCheck) measure(t *testing.T, tool, example string, wire []byte) {
	t.Helper()
	if tool == "compile.definition" {
		var env map[string]any
		if err := json.Unmarshal(wire, &env); err != nil {
			t.Fatalf("%s: %v", example, err)
		}
		if d, ok := env["data"].(map[string]any); ok {
			delete(d, "definition")
		}
		var err error
		if wire, err = json.Marshal(env); err != nil {
			t.Fatal(err)
		}
	}
	if len(wire) <= answerBudget {
		return
	}
	if b.over == nil {
		b.over = map[string]int{}
	}
	b.over[tool] = max(b.over[tool], len(wire))
	if !slices.Contains(overBudget, tool) {
		t.Errorf("%s: the answer is %d bytes, over the %d-byte budget: give the tool a detail or paging argument (default small)", example, len(wire), answerBudget)
	}
}

// done fails for a tool listed in overBudget whose examples all answer
// within the budget now.
func (b *budgetCheck) done(t *testing.T) {
	t.Helper()
	for _, n := range overBudget {
		if _, ok := b.over[n]; !ok {
			t.Errorf("%s answers every example within %d bytes now: take it out of overBudget", n, answerBudget)
		}
	}
	for n, size := range b.over {
		t.Logf("over budget: %s (%d bytes)", n, size)
	}
}
