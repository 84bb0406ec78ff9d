package markdown

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden .md files from the .json inputs")

// TestGolden renders every view from testdata/<tool>.json (real tool or
// engine output) and compares it with testdata/<tool>.md.
func TestGolden(t *testing.T) {
	for _, tool := range Views() {
		t.Run(tool, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", tool+".json"))
			if err != nil {
				t.Fatalf("every view needs a golden input: %v", err)
			}
			got, err := Render(tool, json.RawMessage(in))
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tool+".md")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./tools/markdown -update)", err)
			}
			if got != string(want) {
				t.Errorf("view differs from %s (run with -update and review the diff):\n%s", golden, got)
			}
			checkShape(t, got)
			if len(got) >= len(in) {
				t.Errorf("the view (%d bytes) is not smaller than the JSON (%d bytes)", len(got), len(in))
			}
		})
	}
}

// checkShape holds for every view: a level-1 heading first, ASCII only,
// tables with as many cells per row as header cells.
func checkShape(t *testing.T, md string) {
	t.Helper()
	if !strings.HasPrefix(md, "# ") {
		t.Errorf("view does not start with a level-1 heading: %q", firstLine(md))
	}
	for i, r := range md {
		if r > 127 {
			t.Errorf("non-ASCII %q at %d", r, i)
			break
		}
	}
	cols := -1
	for _, l := range strings.Split(md, "\n") {
		if !strings.HasPrefix(l, "| ") {
			cols = -1
			continue
		}
		n := strings.Count(strings.ReplaceAll(l, `\|`, ""), "|") - 1
		if cols == -1 {
			cols = n
		} else if n != cols {
			t.Errorf("table row has %d cells, header %d: %s", n, cols, l)
		}
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func TestRenderAcceptsGoValues(t *testing.T) {
	type plan struct {
		Order []string                     `json:"execution_order"`
		Deps  map[string][]string          `json:"dependencies"`
		Flow  map[string]map[string]string `json:"data_flow_map"`
	}
	got, err := Render("dag.resolve_plan", plan{
		Order: []string{"a", "b"},
		Deps:  map[string][]string{"a": {}, "b": {"a"}},
		Flow:  map[string]map[string]string{"a": {}, "b": {}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Execution plan (2 steps)", "| 2 | `b` | a | - |", "1 step(s) have parents but no resolved input"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

func TestRenderErrors(t *testing.T) {
	if _, err := Render("catalog.search", map[string]any{}); !errors.Is(err, ErrNoView) {
		t.Errorf("unknown tool: %v", err)
	}
	if _, err := Render("tools.help", "text"); err == nil || !strings.Contains(err.Error(), "not an object") {
		t.Errorf("string data: %v", err)
	}
	if _, err := Render("tools.help", make(chan int)); err == nil {
		t.Error("unmarshalable data accepted")
	}
	if _, err := Render("dag.resolve_plan", map[string]any{"x": 1}); err == nil {
		t.Error("plan without execution_order rendered")
	}
	if _, err := Render("execdoc.generate", map[string]any{"x": 1}); err == nil {
		t.Error("document without PIPELINE_STEP_CONFIGS rendered")
	}
	if !Has("workflow.status") || Has("nope.nope") {
		t.Error("Has")
	}
}

func TestCellsAreEscaped(t *testing.T) {
	got, err := Render("compile.preview", map[string]any{
		"node_config_map":       map[string]any{"a|b": "X\nY"},
		"resolution_confidence": map[string]any{"a|b": 0.5},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "`a\\|b` | X Y |") || !strings.Contains(got, "0.50 (low)") {
		t.Errorf("escaping:\n%s", got)
	}
	checkShape(t, got)
}

func TestLongListsAreCut(t *testing.T) {
	var issues []any
	for i := 0; i < 25; i++ {
		issues = append(issues, map[string]any{"step_name": "S", "level": 1, "message": "m"})
	}
	got, err := Render("validate.alignment", map[string]any{"total_steps": 25, "passed_steps": 0, "failed_steps": 25, "critical_issues": issues})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(got, "- `S` level 1: m") != 20 || !strings.Contains(got, "... and 5 more issues") {
		t.Errorf("cut:\n%s", got)
	}
}

// TestGenericView: a tool without a view of its own renders its data as
// nested key: value lines, lists of scalars on one line and lists of flat
// objects as a table, smaller than the JSON.
func TestGenericView(t *testing.T) {
	in := `{"path": "c.json", "valid": true, "count": 2, "shared_fields": ["author", "bucket"],
		"steps": {"B": {"fields": ["x"], "n": 1}, "A": {"fields": [], "n": 0}},
		"errors": [{"path": "a.x", "kind": "type"}, {"path": "b|y", "kind": "range"}], "nested": [{"a": {"b": 1}}], "none": null}`
	if Has("some.tool") {
		t.Fatal("some.tool has a view")
	}
	if _, err := Render("some.tool", json.RawMessage(in)); !errors.Is(err, ErrNoView) {
		t.Fatalf("Render of a tool without a view: %v", err)
	}
	got, err := RenderAny("some.tool", json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"- path: c.json\n", "- shared_fields: author, bucket\n", "  - A:\n    - fields: []\n    - n: 0\n",
		"| kind | path |\n| --- | --- |\n| type | a.x |\n| range | b\\|y |\n", "- nested:\n  -\n    - a:\n      - b: 1\n", "- none: null\n", "- valid: true\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("the generic view lacks %q:\n%s", want, got)
		}
	}
	if len(got) >= len(in) {
		t.Errorf("the view (%d bytes) is not smaller than the JSON (%d)", len(got), len(in))
	}
	// a tool with a view keeps it
	view, err := RenderAny("tools.help", json.RawMessage(`{"overview": "o", "total_tools": 1, "shown": 1, "namespaces": []}`))
	if err != nil || !strings.HasPrefix(view, "# ") {
		t.Errorf("tools.help through RenderAny: %v %q", err, view)
	}
}
