// Package validation checks step types and their scripts before they are
// compiled or run: the step-interface gate, the alignment levels, the
// builder dry run and local script execution.
//
// # Step interfaces
//
// CheckInterfaces loads the catalog (embedded steps plus workspace
// directories) and reports, per step file, every problem the loader found
// (schema and invariants: errors name the file and the field) and the
// registry-parity checks that need the loaded catalog: the step's config
// class exists in the config schema, its names round-trip (node name,
// file name, snake_case), a builder exists for its verb and a requested
// job type matches a declared variant or job type.
//
// # Alignment levels
//
// Align checks each step at four boundaries and reports a result per step
// and level with pass rates:
//
//   - level 1, script <-> contract: the step's script (found on disk in the
//     script directories, else the catalog's own, catalog.Step.Script,
//     reported as embedded:scripts/<entry point>; a step with neither is
//     reported NO_SCRIPT, not failed) reads exactly the container paths and environment variables
//     its contract declares and parses exactly its job arguments. The script
//     is parsed, never run, by python3's ast module (analyzer.py, embedded
//     and passed with python3 -c); without python3 the level is SKIPPED with
//     the reason.
//   - level 2, contract <-> ports: every port of a container verb has a
//     container path under the verb's roots, paths are distinct, env vars and
//     job arguments read declared config fields.
//   - level 3, ports <-> dependencies: every required input (of the base
//     step and of each job-type variant) that is not supplied from config has
//     at least one step in the catalog whose output scores above the
//     resolver's threshold (deps.Threshold).
//   - level 4, builder <-> config: every config field the step file names
//     for the builder (compute, entry point, source dir, env vars, job
//     arguments, config-sourced inputs, name suffix) is declared by the
//     step's config class, and the builder builds the step from a default
//     config (a dry run through compiler.CompileSingleNode), so a field the
//     builder reads but the config lacks or mistypes fails here.
//
// Levels per verb: Processing, Training and Tuning run all four; CreateModel,
// Transform and RegisterModel run 2-4 (they run no script of their own).
//
// # Builder test
//
// TestBuilder builds one step from a default config (placeholder values
// for essential fields, see PlaceholderValue) and scores three components:
// alignment (weight 2), integration (1.5: the definition fragment has an
// input per port, an output per output port, the declared environment
// and job arguments) and step creation (1: the builder returns a step of
// the right type and name). The score is 0-100, with a rating (Rating).
//
// # Running scripts
//
// RunScripts runs a DAG's step scripts locally, in topological order, in a
// fresh directory under a workspace, through the same runner as
// execution.run_local (engine/localrun): each node's container root
// (<run>/<node>/root/opt/ml) is mounted at /opt/ml in the runner's
// sandbox (bubblewrap; where it cannot run, the path-rewriting fallback),
// so scripts read and write their real container paths. A processing
// script runs as its compiled job does (python3
// /opt/ml/processing/input/code/<entry> with the step's job arguments and
// environment from the config); a training script as the SageMaker
// training toolkit starts it (its source in /opt/ml/code, the
// hyperparameters as --key value arguments and in hyperparameters.json,
// each folder of /opt/ml/input/data a channel). Jobs run under
// internal/proc's limits: a time limit, a memory limit, their own process
// group, no inherited stdio or environment. Before a node runs, each input
// is filled as the compiled pipeline fills it: a config-sourced input from
// the config (an object or list value written to <input path>/<field>.json,
// a local file or directory copied, relative to the source directory or
// the config's folder), else the output folder of the upstream output
// bound to it (by dependency resolution, or by logical name when
// resolution is off), else the file or folder InputData gives. Each node's
// outputs are its output ports' local folders after the run. Unlike
// cursus (Python), scripts are not imported to call main() and no packages
// are pip-installed: a script must run with what the interpreter has.
package validation
