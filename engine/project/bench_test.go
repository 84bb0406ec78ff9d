package project

import (
	"context"
	"testing"
)

// BenchmarkInit: render and write a whole project.
func BenchmarkInit(b *testing.B) {
	parent := b.TempDir()
	for b.Loop() {
		if _, err := Init(context.Background(), InitOptions{Name: "bench", Framework: "xgboost", Parent: parent, Overwrite: true}); err != nil {
			b.Fatal(err)
		}
	}
}
