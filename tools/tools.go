// Package tools holds every Cursus tool, one file per namespace. Each
// namespace's file exports its constructor (CatalogNamespace,
// CompileNamespace, ...), which returns the namespace's description and
// tools, built anew; DefaultNamespaces lists them all, and Registry builds
// the default registry once from that list. Nothing registers itself: a
// program that wants fewer tools builds its own registry from the
// constructors it picks (registry.Build). Tool handlers are thin: they take
// a typed argument struct, call the engine, shape the data (a typed output
// struct for the converted namespaces) and map engine errors onto envelope
// codes (toolError and the kind table in errors.go).
package tools

import (
	"fmt"
	"sync"

	"github.com/cursus-go/cursus/registry"
)

// DefaultNamespaces returns every namespace of the default registry, each
// built anew, in a fixed order. It is the one list of the tools Cursus
// serves: add a namespace's constructor here.
func DefaultNamespaces() []registry.Namespace {
	return []registry.Namespace{
		ToolsNamespace(),
		CatalogNamespace(),
		StepsNamespace(),
		DAGNamespace(),
		PipelineCatalogNamespace(),
		ConfigNamespace(),
		ValidateNamespace(),
		CompileNamespace(),
		ExecdocNamespace(),
		ExecutionNamespace(),
		StrategiesNamespace(),
		AuthorNamespace(),
		ProjectNamespace(),
		WorkflowNamespace(),
	}
}

// namespace is a namespace of tools, as the constructors return it.
func namespace(name, description string, defs ...*registry.ToolDef) registry.Namespace {
	return registry.Namespace{Name: name, Description: description, Tools: defs}
}

// mergeNamespaces adds the tools of the other parts of a namespace (kept in
// files of their own) to its first part, which has the description. A part
// of another namespace, or one described differently, panics: a
// programming error the package tests catch.
func mergeNamespaces(first registry.Namespace, more ...registry.Namespace) registry.Namespace {
	for _, m := range more {
		if m.Name != first.Name || (m.Description != "" && m.Description != first.Description) {
			panic(fmt.Sprintf("tools: namespace %q: a part named %q described %q", first.Name, m.Name, m.Description))
		}
		first.Tools = append(first.Tools, m.Tools...)
	}
	return first
}

var (
	buildOnce sync.Once
	built     *registry.Registry
	buildErr  error
)

// Build builds the default registry (DefaultNamespaces, with the markdown
// views) once and returns it with any build error.
func Build() (*registry.Registry, error) {
	buildOnce.Do(func() {
		built, buildErr = registry.Build(withMarkdownViews(DefaultNamespaces()))
	})
	return built, buildErr
}

// Registry returns the default registry, built once. It panics if the
// registry cannot be built: a duplicate or malformed tool is a programming
// error that the package tests catch.
func Registry() *registry.Registry {
	r, err := Build()
	if err != nil {
		panic(fmt.Sprintf("tools: %v", err))
	}
	return r
}
