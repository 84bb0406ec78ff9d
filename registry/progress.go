package registry

import (
	"context"
	"log/slog"
)

// ProgressFunc receives a running tool's progress: progress grows with every report; total is the
// amount progress counts towards (0 when unknown); message says what is happening.
type ProgressFunc func(progress, total float64, message string)

type progressKey struct{}

// WithProgress returns a context whose tool calls report progress to fn: the MCP server passes one
// that sends notifications/progress when the client asked for them (a progress token), the CLI one
// that prints to stderr.
func WithProgress(ctx context.Context, fn ProgressFunc) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// ReportProgress tells the caller of a long tool how far it got; without a receiver in ctx it does
// nothing. A receiver's panic is contained: progress never changes a result.
func ReportProgress(ctx context.Context, progress, total float64, message string) {
	fn, _ := ctx.Value(progressKey{}).(ProgressFunc)
	if fn == nil {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			slog.Error("progress receiver panicked", "panic", p)
		}
	}()
	fn(progress, total, message)
}
