// Package suggest answers "did you mean": the edit distance of two strings
// and the few candidates closest to a misspelled name. The registry uses it
// for unknown tools and unknown arguments, the step and pipeline catalogs
// for unknown names.
package suggest

import (
	"sort"
	"strings"
)

// Distance returns the Levenshtein edit distance of a and b (bytes), or
// k+1 as soon as it is known to exceed k; a negative k means no bound.
func Distance(a, b string, k int) int {
	if k < 0 {
		k = len(a) + len(b)
	}
	if abs(len(a)-len(b)) > k {
		return k + 1
	}
	var prevBuf, curBuf [65]int
	prev, cur := prevBuf[:0], curBuf[:0]
	if len(b)+1 <= len(prevBuf) {
		prev, cur = prevBuf[:len(b)+1], curBuf[:len(b)+1]
	} else {
		prev, cur = make([]int, len(b)+1), make([]int, len(b)+1)
	}
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > k {
			return k + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Closest returns up to n of candidates closest to name, best first: the
// candidates within an edit distance of a third of the longer string (at
// least 2), compared case-insensitively, and those that contain name or
// that name contains when both are at least three characters long. Ties
// keep the candidates' order. It never returns more than n names, and none
// when nothing is close. The candidates may be of any string type (node
// names, step types); the result has their type.
func Closest[S ~string](name string, candidates []S, n int) []S {
	key := strings.ToLower(strings.TrimSpace(name))
	if n <= 0 || key == "" {
		return nil
	}
	type cand struct {
		s S
		d float64
	}
	var cs []cand
	for _, c := range candidates {
		lc := strings.ToLower(string(c))
		longest := max(len(key), len(lc))
		k := max(2, longest/3)
		d := float64(Distance(key, lc, k))
		if int(d) > k {
			if len(key) < 3 || len(lc) < 3 || !(strings.Contains(lc, key) || strings.Contains(key, lc)) {
				continue
			}
			d = float64(k) + 0.5 // a substring ranks after every close spelling
		}
		cs = append(cs, cand{c, d})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	out := make([]S, 0, min(n, len(cs)))
	for i := 0; i < len(cs) && len(out) < n; i++ {
		out = append(out, cs[i].s)
	}
	return out
}
