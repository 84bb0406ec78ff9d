package workflow

import "context"

type observerKey struct{}

// WithObserver returns a context that carries a progress observer. The
// tools layer passes it on as Options.Observer, so a front end (the CLI)
// that calls the workflow.run tool still sees each phase start and end.
func WithObserver(ctx context.Context, fn func(Event)) context.Context {
	return context.WithValue(ctx, observerKey{}, fn)
}

// ObserverFrom returns the context's progress observer, or nil.
func ObserverFrom(ctx context.Context) func(Event) {
	fn, _ := ctx.Value(observerKey{}).(func(Event))
	return fn
}
