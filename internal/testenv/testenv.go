package testenv

import (
	"os"
	"testing"
)

// CI reports whether the tests run under CI, where a missing tool fails a
// test instead of skipping it.
func CI() bool { return os.Getenv("CI") != "" }

// Missing ends t because something it needs is absent: a skip with why,
// or under CI a failure with why.
func Missing(t testing.TB, why string) {
	t.Helper()
	if CI() {
		t.Fatalf("%s (CI is set, so this test may not skip)", why)
	}
	t.Skip(why)
}

// Need ends t through Missing when err (a readiness check's answer, such
// as localrun.Ready's) is not nil; its text is the reason.
func Need(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		Missing(t, err.Error())
	}
}
