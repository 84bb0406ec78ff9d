package cursus_test

import "github.com/cursus-go/cursus/registry"

func buildRegistry(ns []registry.Namespace) (*registry.Registry, error) { return registry.Build(ns) }
