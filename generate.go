package cursus

//go:generate go run ./internal/docgen/gen docs/tools.md
