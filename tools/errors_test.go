package tools

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/envelope"
)

// Every kind has its code, and every code of the table is a known one.
func TestKindTableComplete(t *testing.T) {
	for _, k := range errkind.All {
		code, ok := kindCodes[k]
		if !ok {
			t.Errorf("kind %q has no envelope code", k)
		} else if !code.Known() {
			t.Errorf("kind %q maps to unknown code %q", k, code)
		}
	}
	if len(kindCodes) != len(errkind.All) {
		t.Errorf("%d codes for %d kinds", len(kindCodes), len(errkind.All))
	}
}

func TestToolError(t *testing.T) {
	if toolError(nil) != nil {
		t.Error("nil became an error")
	}
	te := envelope.NotFound("x")
	if toolError(fmt.Errorf("wrapped: %w", te)) != te {
		t.Error("a ToolError in the chain passes as it is")
	}
	plain := errors.New("disk on fire")
	if toolError(plain) != plain {
		t.Error("an error without a kind passes unchanged (internal_error)")
	}
	err := toolError(fmt.Errorf("cannot load the step catalog: %w", catalog.LoadErrors{{File: "a.step.yaml", Field: "inputs[0].path", Message: "bad"}}))
	var got *envelope.ToolError
	if !errors.As(err, &got) || got.Code != envelope.CodeInvalidInput || got.Remedy == nil || got.Details["problems"] == nil {
		t.Fatalf("a kinded error: %#v", err)
	}
	if got.Message != "cannot load the step catalog: a.step.yaml: inputs[0].path: bad" {
		t.Errorf("message %q", got.Message)
	}
	err = toolError(fmt.Errorf("x: %w", context.Canceled))
	if !errors.As(err, &got) || got.Code != envelope.CodeCancelled {
		t.Errorf("a cancelled context: %#v", err)
	}
}
