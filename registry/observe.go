package registry

import (
	"context"
	"log/slog"
	"runtime/debug"

	"github.com/cursus-go/cursus/envelope"
)

// CallObserver is implemented by a Scope that wants to see the outcome of
// the calls it allowed (the guided stages record some results as run
// reports). ObserveCall runs after the call finished, with the arguments as
// sent (JSON) and the final result (meta included). It may add meta keys
// and warnings to the result (it runs last) but must not change its outcome.
// Calls a tool makes through Call (nested calls) are not observed.
type CallObserver interface {
	ObserveCall(ctx context.Context, t *ToolDef, args []byte, res *envelope.ToolResult)
}

// observe runs an observer, containing its panics: an observer's failure
// never changes the result the caller gets.
func observe(ctx context.Context, o CallObserver, t *ToolDef, args []byte, res *envelope.ToolResult) {
	defer func() {
		if p := recover(); p != nil {
			slog.Error("call observer panicked", "tool", t.Name, "panic", p, "stack", string(debug.Stack()))
		}
	}()
	o.ObserveCall(ctx, t, args, res)
}
