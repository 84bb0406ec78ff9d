package compiler

import (
	"regexp"
	"strings"
	"testing"
)

// isNameToken accepts what the bounded expressions it replaces match, and
// paramRefName what its {1,64} expression did.
func TestIsNameTokenMatchesTheExpressions(t *testing.T) {
	step := regexp.MustCompile(`^[A-Za-z0-9\-_]{1,64}$`)
	channel := regexp.MustCompile(`^[A-Za-z0-9.\-_]{1,64}$`)
	ref := regexp.MustCompile(`^\{\{\s*Parameters\.([A-Za-z0-9\-_]{1,64})\s*\}\}$`)
	inputs := []string{"", "a", "A-b_9", "x.y", "a b", "é", "a\x00", "-", "_", ".", "a/b", "a+b", "ÿ",
		strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 65), strings.Repeat("a.", 32), strings.Repeat("a.", 33)}
	for _, in := range inputs {
		if got, want := isNameToken(in, "-_"), step.MatchString(in); got != want {
			t.Errorf("isNameToken(%q, \"-_\") = %v, the expression says %v", in, got, want)
		}
		if got, want := isNameToken(in, ".-_"), channel.MatchString(in); got != want {
			t.Errorf("isNameToken(%q, \".-_\") = %v, the expression says %v", in, got, want)
		}
		for _, s := range []string{"{{Parameters." + in + "}}", "{{ Parameters." + in + " }}", "{{Parameters." + in + "}"} {
			name, ok := paramRefName(s)
			m := ref.FindStringSubmatch(s)
			if ok != (m != nil) || (ok && name != m[1]) {
				t.Errorf("paramRefName(%q) = %q, %v; the expression says %q", s, name, ok, m)
			}
		}
	}
}
