package stages

import (
	"strings"
	"testing"
)

// TestHosts: the embedded bindings load; every host maps both tiers; a
// malformed file is refused with the reason.
func TestHosts(t *testing.T) {
	hs, err := Hosts()
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) == 0 {
		t.Fatal("no host binding")
	}
	h, ok := HintFor("claude-code", TierStrong)
	if !ok || h.Parameter != "model" || h.Value == "" || h.Tier != TierStrong {
		t.Errorf("claude-code strong: %+v", h)
	}
	if f, _ := HintFor("claude-code", TierFast); f.Value == h.Value {
		t.Errorf("claude-code maps both tiers to %q", h.Value)
	}
	if _, ok := HintFor("nowhere", TierFast); ok {
		t.Error("an unknown host has a binding")
	}
	for _, c := range []struct{ yaml, want string }{
		{"hosts:\n  - name: x\n    description: d\n    parameter: model\n    models: {strong: a}\n", "no model for tier fast"},
		{"hosts:\n  - name: X\n    description: d\n    parameter: model\n    models: {strong: a, fast: b}\n", "name"},
		{"hosts:\n  - name: x\n    description: d\n    parameter: model\n    models: {strong: a, fast: b, slow: c}\n", "exactly the tiers"},
		{"hosts:\n  - name: x\n    colour: red\n", "colour"},
	} {
		if _, err := parseHosts([]byte(c.yaml)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.yaml, err, c.want)
		}
	}
}
