package markdown

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// ErrNoView is returned (wrapped) by Render for a tool without a view.
var ErrNoView = errors.New("no markdown view")

type view func(w *writer, data map[string]any) error

var views = map[string]view{
	"tools.help":                 helpView,
	"dag.resolve_plan":           planView,
	"compile.with_report":        reportView,
	"compile.preview":            previewView,
	"validate.alignment":         alignmentView,
	"pipeline_catalog.recommend": recommendView,
	"execdoc.generate":           execdocView,
	"workflow.status":            statusView,
}

// Views returns the dotted names of the tools that have a view, sorted.
func Views() []string {
	out := make([]string, 0, len(views))
	for k := range views {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Has reports whether a tool has a view of its own (RenderAny gives every
// other tool the generic one).
func Has(tool string) bool {
	_, ok := views[tool]
	return ok
}

// Render returns the markdown view of a tool's result data.
func Render(tool string, data any) (string, error) {
	v, ok := views[tool]
	if !ok {
		return "", fmt.Errorf("%w for %s", ErrNoView, tool)
	}
	return render(tool, v, data)
}

// RenderAny returns the tool's own markdown view of its data, or the
// generic view (nested key: value lines, tables for lists of flat objects)
// for a tool without one.
func RenderAny(tool string, data any) (string, error) {
	v, ok := views[tool]
	if !ok {
		v = genericView
	}
	return render(tool, v, data)
}

func render(tool string, v view, data any) (string, error) {
	m, err := normalize(data)
	if err != nil {
		return "", fmt.Errorf("%s: %w", tool, err)
	}
	w := &writer{}
	if err := v(w, m); err != nil {
		return "", fmt.Errorf("%s: %w", tool, err)
	}
	return w.String(), nil
}

// normalize turns data into a JSON object with numbers kept as written.
func normalize(data any) (map[string]any, error) {
	var b []byte
	switch d := data.(type) {
	case json.RawMessage:
		b = d
	case []byte:
		b = d
	default:
		var err error
		if b, err = json.Marshal(data); err != nil {
			return nil, fmt.Errorf("data is not JSON: %v", err)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("data is not JSON: %v", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("data is a JSON %s, not an object", kind(v))
	}
	return m, nil
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return "value"
}

// writer accumulates markdown, keeping at most one blank line between blocks.
type writer struct{ b strings.Builder }

func (w *writer) String() string { return strings.TrimRight(w.b.String(), "\n") + "\n" }

func (w *writer) line(format string, a ...any) {
	fmt.Fprintf(&w.b, format, a...)
	w.b.WriteByte('\n')
}

// block starts a new block (a blank line unless at the start).
func (w *writer) block() {
	s := w.b.String()
	if s != "" && !strings.HasSuffix(s, "\n\n") {
		w.b.WriteByte('\n')
	}
}

func (w *writer) heading(level int, format string, a ...any) {
	w.block()
	w.line(strings.Repeat("#", level)+" "+format, a...)
	w.block()
}

func (w *writer) para(format string, a ...any) {
	w.block()
	w.line(format, a...)
}

// table writes a pipe table; cells are escaped and flattened to one line.
func (w *writer) table(header []string, rows [][]string) {
	w.block()
	esc := make([]string, len(header))
	for i, h := range header {
		esc[i] = cell(h)
	}
	w.line("| %s |", strings.Join(esc, " | "))
	seps := make([]string, len(header))
	for i := range seps {
		seps[i] = "---"
	}
	w.line("| %s |", strings.Join(seps, " | "))
	for _, r := range rows {
		c := make([]string, len(header))
		for i := range c {
			if i < len(r) {
				c[i] = cell(r[i])
			}
		}
		w.line("| %s |", strings.Join(c, " | "))
	}
}

func cell(s string) string {
	s = strings.ReplaceAll(s, "\r", " ")
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "|", `\|`)
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

// more returns "... and N more" for a list cut at limit, or "".
func more(total, limit int, what string) string {
	if total <= limit {
		return ""
	}
	return fmt.Sprintf("... and %d more %s", total-limit, what)
}

// Accessors over normalized JSON. Each returns the zero value when the key
// is absent or of another type.

func str(m map[string]any, key string) string {
	switch v := m[key].(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

func obj(m map[string]any, key string) map[string]any {
	v, _ := m[key].(map[string]any)
	return v
}

func list(m map[string]any, key string) []any {
	v, _ := m[key].([]any)
	return v
}

func strs(m map[string]any, key string) []string {
	var out []string
	for _, v := range list(m, key) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case json.Number:
			out = append(out, x.String())
		}
	}
	return out
}

func num(m map[string]any, key string) (float64, bool) {
	n, ok := m[key].(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

func integer(m map[string]any, key string) (int, bool) {
	f, ok := num(m, key)
	if !ok || f != math.Trunc(f) {
		return 0, false
	}
	return int(f), true
}

func boolean(m map[string]any, key string) (bool, bool) {
	b, ok := m[key].(bool)
	return b, ok
}

// fixed formats a number with two decimals ("-" when absent).
func fixed(m map[string]any, key string) string {
	f, ok := num(m, key)
	if !ok {
		return "-"
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}

// percent formats a 0..1 rate as a percentage.
func percent(f float64) string {
	return strconv.FormatFloat(f*100, 'f', 0, 64) + "%"
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func code(s string) string {
	if s == "" {
		return "-"
	}
	return "`" + s + "`"
}

func joinOr(items []string, sep, empty string) string {
	if len(items) == 0 {
		return empty
	}
	return strings.Join(items, sep)
}

// scalar renders a JSON value briefly: strings as is, numbers as written,
// lists and objects by their size.
func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			switch e.(type) {
			case string, json.Number, bool:
				parts = append(parts, scalar(e))
			default:
				return fmt.Sprintf("[%d items]", len(x))
			}
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		return fmt.Sprintf("{%d keys}", len(x))
	}
	return fmt.Sprint(v)
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-3]) + "..."
}
