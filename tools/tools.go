// Package tools holds every Cursus tool, one file per namespace. Each file
// registers its namespace in an init function (addNamespace); Registry
// builds the registry once from all of them. Tool handlers are thin: they
// take a typed argument struct, call the engine, shape the data and map
// engine errors onto envelope codes.
package tools

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/cursus-go/cursus/registry"
)

var (
	nsMu      sync.Mutex
	nsOrder   []string
	nsEntries = map[string]*registry.Namespace{}
	nsErrs    []string // conflicting namespace descriptions, reported by Build

	buildOnce sync.Once
	built     *registry.Registry
	buildErr  error
)

// addNamespace registers tools under a namespace. Several files may add to
// the same namespace; the first non-empty description wins and a
// conflicting one fails the build.
func addNamespace(name, description string, defs ...*registry.ToolDef) {
	nsMu.Lock()
	defer nsMu.Unlock()
	ns, ok := nsEntries[name]
	if !ok {
		ns = &registry.Namespace{Name: name}
		nsEntries[name] = ns
		nsOrder = append(nsOrder, name)
	}
	if err := describeNamespace(ns, description); err != nil {
		nsErrs = append(nsErrs, err.Error())
	}
	ns.Tools = append(ns.Tools, defs...)
}

// describeNamespace gives ns the description when it has none yet; a
// different non-empty description is a conflict.
func describeNamespace(ns *registry.Namespace, description string) error {
	switch {
	case ns.Description == "":
		ns.Description = description
	case description != "" && description != ns.Description:
		return fmt.Errorf("namespace %q described twice: %q and %q", ns.Name, ns.Description, description)
	}
	return nil
}

// Namespaces returns the registered namespaces in registration order.
func Namespaces() []registry.Namespace {
	nsMu.Lock()
	defer nsMu.Unlock()
	out := make([]registry.Namespace, 0, len(nsOrder))
	for _, n := range nsOrder {
		out = append(out, *nsEntries[n])
	}
	return out
}

// Build builds the registry of every tool in this package (once) and
// returns it with any build error.
func Build() (*registry.Registry, error) {
	buildOnce.Do(func() {
		nsMu.Lock()
		conflicts := strings.Join(nsErrs, "; ")
		nsMu.Unlock()
		if conflicts != "" {
			buildErr = errors.New(conflicts)
			return
		}
		built, buildErr = registry.Build(withMarkdownViews(Namespaces()))
	})
	return built, buildErr
}

// Registry returns the registry of every tool in this package, built once.
// It panics if the registry cannot be built: a duplicate or malformed tool is
// a programming error that the package tests catch.
func Registry() *registry.Registry {
	r, err := Build()
	if err != nil {
		panic(fmt.Sprintf("tools: %v", err))
	}
	return r
}
