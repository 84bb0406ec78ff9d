package sagemaker

import (
	"regexp"
	"strings"
	"testing"
)

// TestHasNameShapeMatchesTheAPIPattern checks the hand-written rule against
// the API's own pattern (without its length bound) on tricky inputs.
func TestHasNameShapeMatchesTheAPIPattern(t *testing.T) {
	re := regexp.MustCompile(`^[a-zA-Z0-9](-*[a-zA-Z0-9])*$`)
	for _, s := range []string{"", "a", "-", "a-", "-a", "a-b", "a--b", "a_b", "A9", "9-Z", "a b", "é", strings.Repeat("a-", 10) + "z", "ab-", "a.b"} {
		if got, want := HasNameShape(s), re.MatchString(s); got != want {
			t.Errorf("HasNameShape(%q) = %v, the API pattern says %v", s, got, want)
		}
	}
}
