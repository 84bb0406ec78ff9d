package errkind_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/cursus-go/cursus/engine/errkind"
)

type stepErr struct{ node string }

func (e *stepErr) Error() string           { return "bad step " + e.node }
func (e *stepErr) Kind() errkind.Kind      { return errkind.InvalidInput }
func (e *stepErr) Details() map[string]any { return map[string]any{"node": e.node} }

func TestOf(t *testing.T) {
	sentinel := errkind.New(errkind.NotFound, "no such run")
	for _, c := range []struct {
		err  error
		want errkind.Kind
	}{
		{nil, errkind.Unknown},
		{errors.New("plain"), errkind.Unknown},
		{&stepErr{"a"}, errkind.InvalidInput},
		{fmt.Errorf("compile: %w", &stepErr{"a"}), errkind.InvalidInput},
		{sentinel, errkind.NotFound},
		{fmt.Errorf("resume: %w", sentinel), errkind.NotFound},
		{context.Canceled, errkind.Cancelled},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), errkind.Cancelled},
		{fs.ErrNotExist, errkind.NotFound},
		{errkind.Wrap(errkind.TooLarge, fs.ErrNotExist), errkind.TooLarge},
		{errkind.Errorf(errkind.Unsupported, "no %s: %w", "gpu", &stepErr{"b"}), errkind.Unsupported},
	} {
		if got := errkind.Of(c.err); got != c.want {
			t.Errorf("Of(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	if !errors.Is(fmt.Errorf("x: %w", sentinel), sentinel) {
		t.Error("a sentinel made with New is matched by errors.Is")
	}
	e := errkind.Errorf(errkind.Unsupported, "no %s: %w", "gpu", &stepErr{"b"})
	if e.Error() != "no gpu: bad step b" {
		t.Errorf("Errorf message %q", e.Error())
	}
	var se *stepErr
	if !errors.As(e, &se) {
		t.Error("Errorf wraps with %w")
	}
	if d := errkind.DetailsOf(fmt.Errorf("x: %w", &stepErr{"c"})); d["node"] != "c" {
		t.Errorf("DetailsOf = %v", d)
	}
	if errkind.Wrap(errkind.NotFound, nil) != nil {
		t.Error("Wrap(nil) is nil")
	}
}
