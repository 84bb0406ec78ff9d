// Package author holds the guardrails for adding a step type: the rules a
// step file must follow (from the live constants of the catalog, the
// compiler and the resolver), the ordered checklist for a SageMaker verb,
// the legal values of a step's config fields, the preflight of config
// values and the gates a new step must pass before it can compile; and
// RenderStepFile, which writes the step-interface file of a new Processing
// step from its name and ports.
//
// Everything here reads the loaded catalog and the compiler's builder
// table; nothing is a copy of fixed prose except where a value has no
// live source yet (the naming patterns: see patterns.go, kept in
// step with the loader by a test).
package author
