package cursus

// docs/tools.md, the tool reference, is rendered from the registry
// (registry.Registry.ToolsMarkdown) by its staleness test.
//go:generate go test -run ^TestToolsDocUpToDate$ -args -update
//
// The tool counts, list sizes and guided transcripts docs/guided-mode.md
// and README.md show are measured by the server's guided tests.
//go:generate go test ./server -run ^(TestGuidedListPerStage|TestGuidedWholeRun)$ -args -update
