package config

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"weak"

	"github.com/cursus-go/cursus/engine/catalog"
)

// schemas caches FromCatalog per catalog. A *catalog.Catalog is immutable and
// catalog.Load returns the same one while a workspace is unchanged, so the
// pointer is a stable key. The key is weak and the entry is removed once its
// catalog is garbage collected, so a long-running server that sees many
// workspace edits does not keep every old catalog's schema.
var schemas sync.Map // weak.Pointer[catalog.Catalog] -> *schemaEntry

type schemaEntry struct {
	once   sync.Once
	schema *Schema
	err    error
}

// FromCatalog returns the schema of a loaded step catalog: every step's
// config class plus the "base" and "processing" field sets. It is built once
// per catalog; later calls with the same catalog return the same *Schema.
func FromCatalog(c *catalog.Catalog) (*Schema, error) {
	if c == nil {
		return nil, errors.New("config: no step catalog")
	}
	key := weak.Make(c)
	v, ok := schemas.Load(key)
	if !ok {
		var loaded bool
		if v, loaded = schemas.LoadOrStore(key, new(schemaEntry)); !loaded {
			runtime.AddCleanup(c, func(k weak.Pointer[catalog.Catalog]) { schemas.Delete(k) }, key)
		}
	}
	e := v.(*schemaEntry)
	e.once.Do(func() { e.schema, e.err = buildSchema(c) })
	return e.schema, e.err
}

// buildSchema is FromCatalog without the cache.
func buildSchema(c *catalog.Catalog) (*Schema, error) {
	base, ok := c.FieldSet(FieldSetBase)
	if !ok {
		return nil, fmt.Errorf("config: the step catalog has no %q field set", FieldSetBase)
	}
	processing, ok := c.FieldSet(FieldSetProcessing)
	if !ok {
		return nil, fmt.Errorf("config: the step catalog has no %q field set", FieldSetProcessing)
	}
	return NewSchema(c.Steps(), base, processing)
}

// Default returns the schema of the embedded step catalog (catalog.Default),
// built once.
func Default() (*Schema, error) {
	c, err := catalog.Default()
	if err != nil {
		return nil, fmt.Errorf("config: load step catalog: %w", err)
	}
	return FromCatalog(c)
}
