// Command gen writes the precomputed schemas of the default registry
// (package schemagen); `go generate ./...` runs it from the module root.
package main

import (
	"fmt"
	"os"

	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/internal/schemagen"
)

func main() {
	out := schemagen.File
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	b, err := schemagen.Generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := safefs.Trusted().WriteFile(out, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
