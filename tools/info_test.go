package tools

import (
	"bytes"
	"encoding/json"
	"testing"
)

// jsonOf is encoding/json's JSON of v, HTML characters not escaped (as
// the envelope encodes).
func jsonOf(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// A ToolInfo writes itself (envelope.JSONWriter) as encoding/json encodes
// it: every tool's describe answer, its summary without schemas, its
// brief entry, and a deprecated tool's.
func TestToolInfoWriteJSON(t *testing.T) {
	for _, d := range testRegistry().List("") {
		full := ToolSummary(d, true)
		full.DataSchema = d.DataSchemaJSON()
		dep := *cachedBrief(d)
		dep.DeprecatedBy = "other.tool <new>"
		for _, info := range []ToolInfo{full, ToolSummary(d, false), *cachedBrief(d), dep} {
			var b bytes.Buffer
			b.WriteString("prefix:")
			if err := info.WriteJSON(&b); err != nil {
				t.Fatalf("%s: %v", d.Name, err)
			}
			if got, want := b.Bytes(), append([]byte("prefix:"), jsonOf(t, info)...); !bytes.Equal(got, want) {
				t.Fatalf("%s:\n got %s\nwant %s", d.Name, got, want)
			}
		}
	}
}
