// Package stages holds the guided stages of a pipeline run and the run
// folder they work on.
//
// A stage is the part of a run an agent works on at one time: plan the DAG,
// author missing step types, configure, validate, compile. Each stage lists
// the tools visible while it is active (by dotted name), the prompt and
// checklist handed to the agent doing it, a recommended model tier (strong
// or fast) and a completion test over the run's artifacts. Stages are data:
// stages.yaml, embedded and validated when loaded (Default); unknown keys,
// unknown check kinds, duplicate names or tools, a bad tier or an unknown
// prompt placeholder fail the load.
//
// # Run folder
//
// A run lives in <project root>/runs/<run_id>/ (the folder, the run-id
// pattern and ErrRunNotFound are internal/runs', shared with the
// workflows, whose runs a guided session can continue):
//
//	run.json                  the run's state: id, creation time, completed stages
//	dag.json                  the pipeline DAG (dag.serialize writes it)
//	config.json               the pipeline configs (config.merge_save writes it)
//	reports/<tool>.json       recorded results of the tools a stage records
//	pipeline.definition.json  the compiled SageMaker definition
//	steps/                    step-interface files of new step types (a catalog workspace)
//
// # Choosing the next stage
//
// Inspect evaluates the completion test of every stage of the sequence
// (plan, author_step, configure, validate, compile) and the next stage is
// the first whose test fails. Tests look at the artifacts themselves, not
// at what was recorded: a DAG changed after validation makes the validation
// reports stale, so the run goes back to validate. author_step's test (every
// node's step type is known) passes when the DAG has no new step type, so a
// run that needs none never visits it. The hub stage (orchestrator) has no
// test; a session returns to it after each stage.
//
// # Completion checks
//
//	dag_valid        dag.json parses, has a node, no cycle, no dangling or undeclared edge
//	steps_known      every node's step type is in the catalog (embedded + the run's steps/)
//	config_resolves  config.json loads against the config classes and every node resolves to a config
//	report           reports/<tool>.json exists, is about the run's DAG and config, is newer
//	                 than both, the call succeeded and every `require` field of its data is true
//	definition       pipeline.definition.json is a definition (Version, non-empty Steps) newer
//	                 than dag.json and config.json
//
// # Records and captures
//
// A stage may list tools whose results are recorded while it is active
// (record); the guided session (package workflow's Session) writes them
// with Run.WriteReport. A record may
// capture one field of the tool's data into a run artifact (compile.definition's
// definition becomes pipeline.definition.json).
//
// Stages are not part of the engine: they name tools (as data) and read
// the files tools write. This package never imports the tool registry:
// package workflow, above it, serves the stage tools, maps these errors
// onto envelope codes and tests that every listed tool exists.
package stages
