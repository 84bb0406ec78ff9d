package cursus_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/cursus-go/cursus"
	"github.com/cursus-go/cursus/internal/schemagen"
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/server"
)

// TestPrecomputedSchemasUpToDate fails when the precomputed schemas no
// longer match the registry's types: run `go generate ./...` and commit
// the result.
func TestPrecomputedSchemasUpToDate(t *testing.T) {
	want, err := schemagen.Generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(schemagen.File)
	if err != nil {
		t.Fatalf("%v (run `go generate ./...`)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run `go generate ./...` and commit it", schemagen.File)
	}
}

// TestPrecomputedSchemasUsed: the default registry takes every tool's
// schemas from the precomputed ones, and a server under each
// precomputed policy its listing, so start-up reflects nothing.
func TestPrecomputedSchemasUsed(t *testing.T) {
	reg := cursus.Registry()
	for _, td := range reg.All() {
		if !td.Precomputed() {
			t.Errorf("%s: schemas reflected at start-up, not precomputed", td.Name)
		}
	}
	for _, p := range schemagen.Policies {
		tools, err := server.ListedTools(reg, server.Options{Policy: p})
		if err != nil {
			t.Fatal(err)
		}
		l, err := registry.NewListing(tools)
		if err != nil {
			t.Fatal(err)
		}
		if !l.Precomputed() {
			t.Errorf("policy %+v: the listing is computed, not precomputed", p)
		}
	}
}
