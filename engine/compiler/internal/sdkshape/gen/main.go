// Command gen writes the compiler's table of step property paths (sdkshape.Generate) to the file
// named by -o.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/cursus-go/cursus/engine/compiler/internal/sdkshape"
	"github.com/cursus-go/cursus/internal/safefs"
)

func main() {
	out := flag.String("o", "", "output file")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gen: -o is required")
		os.Exit(2)
	}
	b, err := sdkshape.Generate()
	if err == nil {
		err = safefs.Trusted().WriteFile(*out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
