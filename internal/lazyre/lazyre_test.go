package lazyre_test

import (
	"testing"

	"github.com/cursus-go/cursus/internal/lazyre"
)

func TestNew(t *testing.T) {
	re := lazyre.New(`^a+b$`)
	if re() != re() {
		t.Error("a second call compiled the pattern again")
	}
	if !re().MatchString("aab") || re().MatchString("ba") {
		t.Error("the pattern matches wrongly")
	}
	bad := lazyre.New(`(`)
	defer func() {
		if recover() == nil {
			t.Error("a pattern that does not compile did not panic on first use")
		}
	}()
	bad()
}
