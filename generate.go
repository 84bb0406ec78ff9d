package cursus

//go:generate go run ./internal/schemagen/gen precomputed_schemas.txt
//go:generate go run ./internal/docgen/gen docs/tools.md
