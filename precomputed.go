package cursus

import (
	_ "embed"
	"log/slog"
	"sync"

	"github.com/cursus-go/cursus/registry"
)

// precomputedSchemas are the default registry's schemas, computed ahead
// of time by `go generate ./...` (package internal/schemagen): Build uses
// them for every tool they still match, so a server answers tools/list
// without reflecting a schema at start-up.
//
//go:embed precomputed_schemas.txt
var precomputedSchemas []byte

// precomputed parses precomputedSchemas once; a file that does not parse
// (a test catches it) leaves every schema to reflection.
var precomputed = sync.OnceValue(func() *registry.Precomputed {
	p, err := registry.ParsePrecomputed(precomputedSchemas)
	if err != nil {
		slog.Warn("precomputed schemas unusable; reflecting every schema", "err", err)
		return nil
	}
	return p
})
