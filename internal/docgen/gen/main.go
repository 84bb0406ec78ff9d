// Command gen writes docs/tools.md from the registry; `go generate ./...`
// runs it from the module root.
package main

import (
	"fmt"
	"os"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/internal/docgen"
	"github.com/cursus-go/cursus/internal/safefs"
)

func main() {
	out := "docs/tools.md"
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	r, err := cursus.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := safefs.Trusted().WriteFile(out, docgen.ToolsMarkdown(r), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
