package mapkeys

import "sort"

// Sorted returns the keys of m in increasing order. The result is never
// nil: an empty map gives an empty slice (which encodes as [] in JSON).
func Sorted[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
