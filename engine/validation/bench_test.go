package validation

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkAlignAll: every catalog step at every level, dry builds included.
func BenchmarkAlignAll(b *testing.B) {
	cat := defaultCatalog(b)
	for b.Loop() {
		if _, err := Align(context.Background(), AlignOptions{Catalog: cat}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckInterfacesAll: validate.step_interface {"all": true}.
func BenchmarkCheckInterfacesAll(b *testing.B) {
	for b.Loop() {
		if _, err := CheckInterfaces(InterfaceOptions{All: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAnalyzeScripts10: one python3 run analysing ten scripts.
func BenchmarkAnalyzeScripts10(b *testing.B) {
	needPython(b)
	dir := b.TempDir()
	var paths []string
	for i := 0; i < 10; i++ {
		p := filepath.Join(dir, "s"+string(rune('a'+i))+".py")
		if err := os.WriteFile(p, []byte(goodDemoScript), 0o644); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, p)
	}
	for b.Loop() {
		if _, err := AnalyzeScripts(context.Background(), paths...); err != nil {
			b.Fatal(err)
		}
	}
}
