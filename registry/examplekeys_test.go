package registry_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/registry"
)

// exampleKeys finds the same top-level argument names as decoding every
// example of every default tool does, and refuses what is not an object.
func TestKeysOfExampleMatchDecoding(t *testing.T) {
	n := 0
	for _, tl := range cursus.Registry().List("") {
		for _, ex := range tl.Examples {
			args, err := registry.DecodeExampleArgs(ex)
			if err != nil {
				t.Fatalf("%s: %v", tl.Name, err)
			}
			keys, ok := registry.KeysOfExample(ex)
			slices.Sort(keys)
			if want := slices.Sorted(maps.Keys(args)); !ok || !slices.Equal(keys, want) {
				t.Errorf("%s: exampleKeys(%q) = %v, %v; decoding finds %v", tl.Name, ex, keys, ok, want)
			}
			n++
		}
	}
	if n < 100 {
		t.Errorf("only %d examples checked", n)
	}
	for ex, want := range map[string][]string{
		`t {"a": {"b": [1, {"c": 2}]}, "d": "x\",{}[", "e": [ ] }  # note`: {"a", "d", "e"},
		`t`:             nil,
		`t {}`:          nil,
		`t {"k":"v\\"}`: {"k"},
	} {
		if got, ok := registry.KeysOfExample(ex); !ok || !slices.Equal(got, want) {
			t.Errorf("exampleKeys(%q) = %v, %v; want %v", ex, got, ok, want)
		}
	}
	for _, bad := range []string{`t [1]`, `t {"a": 1`, `t {"a`, `t x`} {
		if _, ok := registry.KeysOfExample(bad); ok {
			t.Errorf("exampleKeys(%q) is ok", bad)
		}
	}
}
