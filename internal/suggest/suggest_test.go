package suggest

import (
	"slices"
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		k    int
		want int
	}{
		{"", "", -1, 0},
		{"abc", "", -1, 3},
		{"kitten", "sitting", -1, 3},
		{"kitten", "sitting", 1, 2}, // bounded: k+1 once past k
		{"catalog.serch", "catalog.search", 2, 1},
		{"qeury", "query", -1, 2},
		{strings.Repeat("a", 100), strings.Repeat("a", 99) + "b", -1, 1}, // longer than the stack buffers
		{"abc", "abcdefgh", 2, 3},
		{"abc", "abd", 1, 1},
		{"abcdef", "zzzzzz", 2, 3}, // capped at k+1
		{"", "abc", 3, 3},
	} {
		if got := Distance(c.a, c.b, c.k); got != c.want {
			t.Errorf("Distance(%q, %q, %d) = %d, want %d", c.a, c.b, c.k, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	names := []string{"catalog.list_steps", "catalog.search", "catalog.step_info", "compile.dag", "config.load", "dag.construct"}
	if got := Closest("catalog.serch", names, 3); len(got) == 0 || got[0] != "catalog.search" {
		t.Errorf("catalog.serch: %v", got)
	}
	if got := Closest("CATALOG.SEARCH", names, 3); len(got) == 0 || got[0] != "catalog.search" {
		t.Errorf("case-insensitive: %v", got)
	}
	if got := Closest("qeury", []string{"query", "job_type", "workspace_dirs"}, 3); !slices.Equal(got, []string{"query"}) {
		t.Errorf("qeury: %v", got)
	}
	if got := Closest("zzzzzzzz", names, 3); len(got) != 0 {
		t.Errorf("nothing close: %v", got)
	}
	if got := Closest("search", names, 3); len(got) == 0 || got[0] != "catalog.search" {
		t.Errorf("substring: %v", got)
	}
	if got := Closest("catalog.x", names, 2); len(got) > 2 {
		t.Errorf("more than n: %v", got)
	}
	if got := Closest("", names, 3); got != nil {
		t.Errorf("blank: %v", got)
	}
}
