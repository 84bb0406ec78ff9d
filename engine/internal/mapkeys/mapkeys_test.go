package mapkeys

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestSorted(t *testing.T) {
	if got := Sorted(map[string]int{"b": 2, "a": 1, "c": 3}); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("Sorted = %v, want [a b c]", got)
	}
	for _, m := range []map[string]any{nil, {}} {
		got := Sorted(m)
		if got == nil || len(got) != 0 {
			t.Errorf("Sorted(%#v) = %#v, want an empty non-nil slice", m, got)
		}
		if b, _ := json.Marshal(got); string(b) != "[]" {
			t.Errorf("Sorted(%#v) encodes as %s, want []", m, b)
		}
	}
}
