// Package strlist holds small helpers over string lists that several
// packages need alike. They take any string type, so a list of typed names
// (catalog.NodeName, catalog.StepType) needs no conversion first.
package strlist

import "strings"

// Unique returns in without empty strings and repeats, in first-seen order
// (nil when nothing is left).
func Unique[S ~string](in []S) []S {
	seen := map[S]bool{}
	var out []S
	for _, s := range in {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// Join is strings.Join over a list of any string type.
func Join[S ~string](elems []S, sep string) string {
	var b strings.Builder
	for i, s := range elems {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(string(s))
	}
	return b.String()
}
