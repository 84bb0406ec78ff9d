package author

// Naming patterns the catalog loader enforces. The catalog does not
// export them yet (requested in .team/requests-catalog.md); a test feeds
// sample names through catalog.ParseStepFile so a drift fails the build.
const (
	// StepNamePattern: canonical step names, config class and builder names.
	StepNamePattern = `^[A-Z][A-Za-z0-9]*$`
	// FieldNamePattern: config field names.
	FieldNamePattern = `^[a-z][a-z0-9_]*$`
	// PortNamePattern: logical names of inputs and outputs.
	PortNamePattern = `^[A-Za-z][A-Za-z0-9_]*$`
	// EnvNamePattern: environment variable names.
	EnvNamePattern = `^[A-Z_][A-Z0-9_]*$`
	// JobTypePattern: job types (variant keys, node-name suffixes).
	JobTypePattern = `^[a-z][a-z0-9_]*$`
	// ScriptPattern: entry points (a relative .py file).
	ScriptPattern = `^[A-Za-z0-9_][A-Za-z0-9_./-]*\.py$`
)
