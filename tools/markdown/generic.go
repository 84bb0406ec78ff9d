package markdown

import (
	"sort"
	"strings"
)

// genericView renders any tool's data, for the tools without a view of
// their own: scalars as "key: value" lines, lists of scalars joined on one
// line, lists of objects with the same scalar keys as a table, anything
// else as nested bullets. Object keys keep the data's sorted order.
func genericView(w *writer, d map[string]any) error {
	w.block()
	genericObject(w, d, 0)
	return nil
}

func genericObject(w *writer, m map[string]any, depth int) {
	indent := strings.Repeat("  ", depth)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		genericValue(w, indent, k, m[k], depth)
	}
}

func genericValue(w *writer, indent, key string, v any, depth int) {
	label := indent + "- " + key + ":"
	if key == "" {
		label = indent + "-"
	}
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			w.line("%s {}", label)
			return
		}
		w.line("%s", label)
		genericObject(w, x, depth+1)
	case []any:
		if len(x) == 0 {
			w.line("%s []", label)
			return
		}
		if s, ok := scalarList(x); ok {
			w.line("%s %s", label, s)
			return
		}
		if header, ok := sameScalarKeys(x); ok && depth == 0 {
			w.line("%s", label)
			rows := make([][]string, len(x))
			for i, it := range x {
				o := it.(map[string]any)
				rows[i] = make([]string, len(header))
				for j, h := range header {
					rows[i][j] = genericScalar(o[h])
				}
			}
			w.table(header, rows)
			w.block()
			return
		}
		w.line("%s", label)
		for _, it := range x {
			genericValue(w, indent+"  ", "", it, depth+1)
		}
	default:
		w.line("%s %s", label, genericScalar(v))
	}
}

// scalarList joins a list of scalars with ", " (ok false when an element
// is an object or a list).
func scalarList(l []any) (string, bool) {
	parts := make([]string, len(l))
	for i, v := range l {
		switch v.(type) {
		case map[string]any, []any:
			return "", false
		}
		parts[i] = genericScalar(v)
	}
	return strings.Join(parts, ", "), true
}

// sameScalarKeys is the sorted key set shared by every element of a list
// of objects whose values are all scalars.
func sameScalarKeys(l []any) ([]string, bool) {
	var header []string
	for i, v := range l {
		o, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		keys := make([]string, 0, len(o))
		for k, x := range o {
			switch x.(type) {
			case map[string]any, []any:
				return nil, false
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if i == 0 {
			header = keys
		} else if strings.Join(keys, "\x00") != strings.Join(header, "\x00") {
			return nil, false
		}
	}
	return header, len(header) > 0
}

// genericScalar is the text of a scalar value (null for a JSON null).
func genericScalar(v any) string {
	if v == nil {
		return "null"
	}
	return scalar(v)
}
