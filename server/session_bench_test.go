package server

import (
	"testing"

	"github.com/cursus-go/cursus"
)

// BenchmarkSessionServer: making one server of a built core from the real
// registry: the static server (once per New) and a guided session's (once
// per guided HTTP session): mostly the SDK's AddTool of each tool, which
// decodes the tool's schemas again to check them.
func BenchmarkSessionServer(b *testing.B) {
	for _, mode := range []struct {
		name string
		opts Options
	}{{"static", Options{}}, {"guided", Options{Guided: true}}} {
		_, c, err := build(cursus.Registry(), mode.opts)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(mode.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.server()
			}
		})
	}
}
