// Package strategies is the strategy library: how the compiler builds each
// kind of step, described as data an agent can query. It is derived from the
// compiler's own builder table (compiler.Builders), so it never describes a
// builder the compiler lacks.
//
// # Axes
//
// A strategy lives on one of two axes:
//
//   - sagemaker_step_type: one strategy per non-Processing verb the
//     compiler builds (Training, CreateModel, Transform, RegisterModel,
//     Tuning), named after the verb;
//   - step_assembly: the ways a Processing step is assembled (code,
//     step_args), each a strategy of the Processing builder.
//
// Routing (ForStepType): Processing goes to
// (step_assembly, the given assembly or "code"); any other verb to
// (sagemaker_step_type, verb). A catalog step type or DAG node name may be
// given instead of a verb: its verb and its step file's
// patterns.step_assembly are used. Verbs without a builder (Base, Lambda,
// or the SDK-delegation types cursus (Python) has and the compiler does
// not build) are not found.
//
// # Knobs
//
// A strategy's knobs are the settings its builder reads besides the step's
// ports (compiler.Knob): step-file patterns, contract and compute entries,
// and config fields. A config knob is required when every step type of the
// catalog routed to the strategy declares that field as essential. Preset
// knobs are the values the strategy fixes (use_step_args for the
// step_assembly strategies).
package strategies
