// Package tools holds the Cursus tools over the engine, one file per
// namespace. Each namespace's file exports its constructor
// (CatalogNamespace, CompileNamespace, ...), which returns the namespace's
// description and tools, built anew; DefaultNamespaces lists them, and
// Build makes a registry of namespaces with the markdown views. The
// workflow namespace sits above this layer (package workflow, whose tools
// call these through the registry); the facade's default registry
// (cursus.Registry) is DefaultNamespaces followed by it. Nothing registers
// itself: a program that wants fewer tools builds its own registry from
// the constructors it picks. Tool handlers are thin: they take
// a typed argument struct, call the engine, shape the data (a typed output
// struct for the converted namespaces) and map engine errors onto envelope
// codes (toolError and the kind table in errors.go).
package tools

import (
	"fmt"

	"github.com/cursus-go/cursus/registry"
)

// DefaultNamespaces returns every namespace of this package, each built
// anew, in a fixed order: the default registry's namespaces below the
// workflow layer. Add a namespace's constructor here.
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
		PipelineNamespace(),
		ModelPackageNamespace(),
		StrategiesNamespace(),
		AuthorNamespace(),
		ProjectNamespace(),
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

// Build builds a registry of the namespaces, giving every tool that has a
// markdown view its format argument (see package markdown).
func Build(nss []registry.Namespace) (*registry.Registry, error) {
	return registry.Build(withMarkdownViews(nss))
}

// nonNilList returns s, or an empty list for nil (a list in typed data is
// never null).
func nonNilList[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
