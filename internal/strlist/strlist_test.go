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
