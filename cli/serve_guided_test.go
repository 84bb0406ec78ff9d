package cli_test

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/registry"
)

// TestServeGuidedFlags: --guided starts every session in the orchestrator
// stage, --stage pins one stage, an unknown stage is a usage error.
func TestServeGuidedFlags(t *testing.T) {
	code, msgs, stderr := serveRun(t, session, "--guided")
	if code != 0 {
		t.Fatalf("--guided exit %d: %s", code, stderr)
	}
	got := listedNames(t, msgs)
	if !slices.Contains(got, "workflow__start_stage") || slices.Contains(got, "compile__definition") || len(got) > 20 {
		t.Errorf("--guided lists %v", got)
	}
	init := msgs["1"]["result"].(map[string]any)
	if !strings.Contains(init["instructions"].(string), "Guided mode") {
		t.Errorf("instructions: %v", init["instructions"])
	}
	caps, _ := json.Marshal(init["capabilities"])
	if !strings.Contains(string(caps), `"listChanged":true`) {
		t.Errorf("capabilities %s", caps)
	}

	code, msgs, stderr = serveRun(t, session, "--stage", "compile")
	if code != 0 {
		t.Fatalf("--stage exit %d: %s", code, stderr)
	}
	got = listedNames(t, msgs)
	s, err := cursus.NewSession(cursus.SessionOptions{Stage: "compile", Policy: &registry.Policy{}})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, tl := range s.ListTools() {
		want = append(want, tl.WireName)
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("--stage compile lists %v, want %v", got, want)
	}

	code, _, stderr = serveRun(t, session, "--stage", "deploy")
	if code != 2 || !strings.Contains(stderr, "--stage must be one of orchestrator, plan") {
		t.Errorf("unknown stage: exit %d, %s", code, stderr)
	}
}
