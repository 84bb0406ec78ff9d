package mapkeys

import "slices"

// Sorted returns the keys of m in increasing order. The result is never
// nil: an empty map gives an empty slice (which encodes as [] in JSON).
// The keys may be of any string type (a map keyed by catalog.NodeName gives
// catalog.NodeName keys).
func Sorted[K ~string, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
