package exporters_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/exporters"
)

// TestDeferLoading: with Options.DeferLoading, Anthropic tools carry
// "defer_loading": true except the core toolset's, behind the
// tool_search_tool_bm25_20251119 server tool; OpenAI Responses functions
// the same behind {"type": "tool_search"}; the other formats refuse it,
// naming the two that have it; without the option no tool carries the
// field.
func TestDeferLoading(t *testing.T) {
	t.Parallel()
	defs := cursus.Registry().List("")
	core := map[string]bool{}
	for _, d := range cursus.Registry().Core() {
		core[d.WireName()] = true
	}
	if len(core) < 5 {
		t.Fatalf("core toolset: %v", core)
	}
	for _, c := range []struct {
		f      exporters.Format
		search map[string]any
		name   string // the key of a tool's name
	}{
		{exporters.FormatAnthropic, map[string]any{"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}, "name"},
		{exporters.FormatOpenAIResponses, map[string]any{"type": "tool_search"}, "name"},
	} {
		b, err := exporters.ExportJSONWith(c.f, defs, exporters.Options{DeferLoading: true}, false)
		if err != nil {
			t.Fatalf("%s: %v", c.f, err)
		}
		var out []map[string]any
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		if len(out) != len(defs)+1 {
			t.Fatalf("%s: %d entries for %d tools, want the tool search tool and every tool", c.f, len(out), len(defs))
		}
		if b, _ := json.Marshal(out[0]); string(b) != mustJSON(t, c.search) {
			t.Errorf("%s: first entry %s, want the tool search tool %s", c.f, b, mustJSON(t, c.search))
		}
		deferred := 0
		for _, tool := range out[1:] {
			name := tool[c.name].(string)
			d, has := tool["defer_loading"]
			switch {
			case core[name] && has:
				t.Errorf("%s: core tool %s deferred", c.f, name)
			case !core[name] && d != true:
				t.Errorf("%s: %s not deferred: defer_loading %v", c.f, name, d)
			case !core[name]:
				deferred++
			}
		}
		if deferred != len(defs)-len(core) {
			t.Errorf("%s: %d deferred, want %d", c.f, deferred, len(defs)-len(core))
		}
		// Without the option: the plain export, no field.
		plain, _ := exporters.ExportJSON(c.f, defs, false)
		if strings.Contains(string(plain), "defer_loading") || strings.Contains(string(plain), "tool_search") {
			t.Errorf("%s: a plain export speaks of deferred loading", c.f)
		}
	}
	for _, f := range []exporters.Format{exporters.FormatOpenAI, exporters.FormatBedrock, exporters.FormatGemini, exporters.FormatMCP} {
		_, err := exporters.ExportWith(f, defs, exporters.Options{DeferLoading: true})
		if err == nil || !strings.Contains(err.Error(), "anthropic") || !strings.Contains(err.Error(), "openai-responses") {
			t.Errorf("%s with deferred loading: %v, want a refusal naming anthropic and openai-responses", f, err)
		}
	}
	if _, err := exporters.ExportWith("nope", defs, exporters.Options{DeferLoading: true}); err == nil || !strings.Contains(err.Error(), "unknown export format") {
		t.Errorf("unknown format: %v", err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
