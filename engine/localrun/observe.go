package localrun

import "context"

type progressKey struct{}

// WithProgress returns a context that carries a progress callback. The
// tools layer passes it on as Options.Progress, so a front end (the CLI's
// `run local`) sees each step start and end while the call runs.
func WithProgress(ctx context.Context, fn func(Event)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// ProgressFrom returns the context's progress callback, or nil.
func ProgressFrom(ctx context.Context) func(Event) {
	fn, _ := ctx.Value(progressKey{}).(func(Event))
	return fn
}
