package config

import (
	"fmt"
	"sync"

	"github.com/cursus-go/cursus/engine/catalog"
)

// FromCatalog builds the schema of a loaded step catalog: every step's
// config class plus the "base" and "processing" field sets.
func FromCatalog(c *catalog.Catalog) (*Schema, error) {
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

var (
	defaultOnce   sync.Once
	defaultSchema *Schema
	defaultErr    error
)

// Default returns the schema of the embedded step catalog (catalog.Default),
// built once.
func Default() (*Schema, error) {
	defaultOnce.Do(func() {
		c, err := catalog.Default()
		if err != nil {
			defaultErr = fmt.Errorf("config: load step catalog: %w", err)
			return
		}
		defaultSchema, defaultErr = FromCatalog(c)
	})
	return defaultSchema, defaultErr
}
