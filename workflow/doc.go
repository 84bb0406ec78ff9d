// Package workflow runs Cursus's multi-step procedures as deterministic,
// resumable, gated phases: new-project, configure-pipeline, author-step and
// init-project. It also holds the workflow namespace of tools (Namespace),
// the guided Session that scopes an agent to a stage, and the MCP prompts.
//
// # Workflows are Go values
//
// A Workflow is a name, declared arguments and an ordered list of Phases.
// Each phase has a title, the tools it calls, the gate that must hold for it
// to pass, the guided stage whose tools it uses, and a Run function. A phase
// reaches the engine only by calling tools through a Caller, which
// RegistryCaller implements over the registry, so a workflow is subject to the same
// schemas, gates, write confinement and policy as any other caller. A
// workflow may compose another: new-project's phases include init-project's
// and configure-pipeline's, renamed "<nested>/<phase>".
//
// Describe exports a workflow as data (phases, gates, tools, stages,
// arguments, outcomes) so an agent host can follow it step by step with the
// guided stages instead of running it here.
//
// # Runs
//
// Start creates runs/<run_id>/ under the project root and runs the phases in
// order. Everything a run knows is in that folder:
//
//	workflow.json             the run state: workflow, arguments, each phase's status,
//	                          attempts, tool calls, artifacts (path, kind, SHA-256) and
//	                          summary, the variables phases hand on, the outcome
//	dag.json, config.json     the DAG and config the run works on
//	reports/<tool>.json       gate tools' answers, in the guided stages' report format
//	                          (stages.Report), so a guided session can continue a run
//	pipeline.definition.json  the compiled definition (new-project)
//	contract.json, ...        other artifacts of a workflow; values.json and
//	                          dag_choice.json are answers a person writes after a stop
//
// The state is rewritten atomically before and after every tool call and at
// every phase transition. A run folder is locked (flock) while a process
// runs it.
//
// # Outcomes
//
// A phase passes (nil), fails a gate (*GateFailure, carrying the failing
// tool's envelope unchanged), stops for judgment (*Judgment: the reason, the
// action items, the exact tool calls to make and the files to write) or is
// cancelled (the context's error). The run ends with status done, failed,
// stopped or cancelled (ExitCode maps them to 0, 1, 3, 1), or incomplete
// (exit 0): every phase passed but the workflow's Ready hook says what it
// made is not ready. configure-pipeline and new-project end with a ready
// phase (ready.go): compile.validate's readiness gate and, when the
// pipeline is deployable, execution.run_local; they are done only when both
// agree, and an incomplete run names each blocker. Resuming an incomplete
// run runs its Reassess phases again.
//
// # New projects
//
// new-project seeds the project's DAG from the pipeline catalog with the
// project's own step put where the scaffold has it (between the same
// neighbours; a branch the catalog DAG lacks leaves its copy out), or keeps
// the scaffold's DAG when the step has no place there, and redraws the
// README's pipeline to match.
//
// Resume never skips a phase: it re-verifies every passed phase's output
// artifacts by hash (a missing or changed one sends that phase and every
// later one back to pending) and runs the first phase not passed. A stopped
// phase runs again, so the same gate checks what a person did. Artifacts a
// phase hands to people (a script skeleton, the project's README) are
// recorded as handoffs: only their existence is checked, and the later gate
// judges their content. A cancelled run resumes at the phase it was in,
// without redoing the phases that passed.
//
// # Determinism
//
// Given the same arguments, answers and tool results, a run calls the same
// tools with the same arguments in the same order and writes the same
// artifacts (reports carry the time they were recorded; config.json carries
// the config engine's current_date and created_at). Run ids are
// "<workflow>-NNN", the next free number, unless given.
//
// # Layering
//
// Workflows sit above the tools: a phase calls tools by name through a
// Caller (RegistryCaller: the registry's Call, with the caller's policy)
// and reads their envelopes (Response wraps an *envelope.ToolResult); its
// own failures carry envelope codes (a check the workflow makes itself is
// envelope.CodeGateFailed). The package imports registry, envelope, stages
// and the engine, and never package tools, the facade or a front end.
//
// # The workflow namespace
//
// Namespace returns the workflow.* tools: the guided-stage tools
// (workflow.new_run, start_stage, complete_stage and status, over package
// stages' run folders and completion tests; tools_stage.go) and the
// runner's (workflow.run and workflow.describe, thin adapters that map this
// package's typed errors to envelope codes; tools_run.go). The facade's
// default registry lists it after the namespaces of package tools.
//
// A Session is one agent's guided session: the registry scope that shows
// and allows the active stage's tools only, and the call observer that
// saves the results the stage records as the run's reports. The stage tools
// move it between stages. Prompts and GetPrompt render each stage's prompt
// and each workflow's brief for an MCP server.
//
// The run folder (runs/<run_id>/, the run-id pattern, ErrRunNotFound) is
// internal/runs', shared with package stages.
package workflow
