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

func TestValidatePipelineName(t *testing.T) {
	good := []string{"a", "A1", "cursus-xgboost-e2e", "a--b", "x" + strings.Repeat("-y", 127), strings.Repeat("a", 256)}
	bad := []string{"", "-a", "a-", "a_b", "a b", "bad_name!!", "pipeline.v1", strings.Repeat("a", 257), "é"}
	for _, n := range good {
		if err := ValidatePipelineName(n); err != nil {
			t.Errorf("ValidatePipelineName(%q) = %v, want ok", n, err)
		}
	}
	for _, n := range bad {
		if err := ValidatePipelineName(n); err == nil {
			t.Errorf("ValidatePipelineName(%q) accepted", n)
		}
	}
}
