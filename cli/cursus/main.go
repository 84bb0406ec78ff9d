// Command cursus compiles ML pipeline DAGs into Amazon SageMaker Pipelines
// definitions and serves Cursus's tools to agents (`cursus mcp serve`).
// Run `cursus mcp help` to start.
package main

import (
	"os"

	"github.com/cursus-go/cursus/cli"
)

func main() { os.Exit(cli.Main()) }
