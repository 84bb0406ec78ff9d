package cursus_test

import (
	"github.com/cursus-go/cursus/registry"
	"github.com/cursus-go/cursus/tools"
)

func toolsNamespaces() []registry.Namespace { return tools.DefaultNamespaces() }

func buildRegistry(ns []registry.Namespace) (*registry.Registry, error) { return registry.Build(ns) }
