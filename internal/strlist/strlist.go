// Package strlist holds small helpers over string lists that several
// packages need alike.
package strlist

// Unique returns in without empty strings and repeats, in first-seen order
// (nil when nothing is left).
func Unique(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
