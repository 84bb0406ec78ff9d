// Package schemagen makes the precomputed schemas of the default registry
// (registry.Precomputed): every tool's input and listed output schema, and
// the listing a server makes under each combination of its two gates. The
// root package embeds them, so `cursus mcp serve` answers tools/list
// without reflecting a schema; `go generate ./...` rewrites them, and a
// test fails when they are stale.
package schemagen

import (
	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/server"
	"github.com/cursus-go/cursus/tools"
)

// File is where the root package keeps the precomputed schemas, relative
// to the module root.
const File = "precomputed_schemas.txt"

// Policies are the policies whose listings are precomputed: each
// combination of the write and script-execution gates (a server's
// listing does not depend on the rest of its policy).
var Policies = []registry.Policy{
	{},
	{AllowDestructive: true},
	{AllowScriptExec: true},
	{AllowDestructive: true, AllowScriptExec: true},
}

// Generate reflects the default registry's schemas anew and returns the
// precomputed schemas file.
func Generate() ([]byte, error) {
	reg, err := tools.Build(cursus.DefaultNamespaces())
	if err != nil {
		return nil, err
	}
	var listings [][]*registry.ToolDef
	for _, p := range Policies {
		l, err := server.ListedTools(reg, server.Options{Policy: p})
		if err != nil {
			return nil, err
		}
		listings = append(listings, l)
	}
	return reg.Precompute(listings...)
}
