package tools

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/registry"
)

// Every namespace's constructor gives its description and tools, the
// default list builds, and each namespace appears in it once.
func TestDefaultNamespaces(t *testing.T) {
	if _, err := Build(DefaultNamespaces()); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, ns := range DefaultNamespaces() {
		if ns.Description == "" || len(ns.Tools) == 0 {
			t.Errorf("namespace %s: description %q, %d tools", ns.Name, ns.Description, len(ns.Tools))
		}
		if seen[ns.Name] {
			t.Errorf("namespace %s listed twice", ns.Name)
		}
		seen[ns.Name] = true
	}
	// constructors build anew: two calls share no tool
	a, b := CatalogNamespace(), CatalogNamespace()
	if a.Tools[0] == b.Tools[0] {
		t.Error("a constructor returned the same tool twice")
	}
	// a registry of a chosen namespace builds on its own
	r, err := registry.Build([]registry.Namespace{CatalogNamespace()})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Get("catalog.search"); !ok {
		t.Error("catalog.search missing from a catalog-only registry")
	}
}

func TestMergeNamespacesRefusesOtherParts(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a part of another namespace was merged")
		}
	}()
	mergeNamespaces(namespace("a", "A."), namespace("b", ""))
}

// No file registers tools from an init function: the one list is
// DefaultNamespaces.
func TestNoInitRegistration(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	initRE := regexp.MustCompile(`(?m)^func init\(\)`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if initRE.Match(b) {
			t.Errorf("%s has an init function: export a namespace constructor and list it in DefaultNamespaces", f)
		}
	}
}
