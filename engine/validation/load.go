package validation

import (
	"sync"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/config"
)

// schemas caches the config schema of each loaded catalog. catalog.Load
// returns the same *Catalog while a workspace is unchanged, so the key is
// stable; entries are written once per catalog and read-only afterwards.
var schemas sync.Map // *catalog.Catalog -> schemaEntry

type schemaEntry struct {
	once   *sync.Once
	schema *config.Schema
	err    error
}

// SchemaFor returns the config schema of a catalog, built once per catalog.
func SchemaFor(cat *catalog.Catalog) (*config.Schema, error) {
	v, _ := schemas.LoadOrStore(cat, &schemaEntry{once: new(sync.Once)})
	e := v.(*schemaEntry)
	e.once.Do(func() { e.schema, e.err = config.FromCatalog(cat) })
	return e.schema, e.err
}
