package strlist

import (
	"slices"
	"testing"
)

func TestUnique(t *testing.T) {
	if got := Unique([]string{"b", "", "a", "b", "a", "c"}); !slices.Equal(got, []string{"b", "a", "c"}) {
		t.Errorf("Unique = %v", got)
	}
	if got := Unique([]string{"", ""}); got != nil {
		t.Errorf("Unique of empties = %v, want nil", got)
	}
}

func TestJoin(t *testing.T) {
	type name string
	for _, c := range []struct {
		in   []name
		want string
	}{
		{nil, ""},
		{[]name{"a"}, "a"},
		{[]name{"a", "", "b"}, "a, , b"},
	} {
		if got := Join(c.in, ", "); got != c.want {
			t.Errorf("Join(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
