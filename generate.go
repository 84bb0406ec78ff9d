package cursus

// docs/tools.md, the tool reference, is rendered from the registry
// (registry.Registry.ToolsMarkdown) by its staleness test.
//go:generate go test -run ^TestToolsDocUpToDate$ -args -update
