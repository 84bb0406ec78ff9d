// Package deps decides which upstream output feeds each input of a step:
// the semantic name similarity, the compatibility score of an (input,
// output) pair and the resolution of a whole DAG along its edges.
//
// # Similarity
//
// Similarity(a, b) is the original SemanticMatcher: names are normalized
// (Normalize: lower case, separators to spaces, abbreviations expanded,
// stop words dropped); equal normalized names score 1; otherwise the score
// is 0.30 x string ratio (SequenceRatio, a faithful port of Python's
// difflib.SequenceMatcher.ratio, autojunk included for 200+ characters) +
// 0.25 x word-set Jaccard + 0.25 x synonym score + 0.20 x substring score.
// ExplainSimilarity returns the parts under the original's keys. Reference
// values: sim(input_path, processed_data) = 0.2, sim(DATA, processed_data) =
// 0.5405, sim(model_input, model_output) = 0.6306.
//
// # Compatibility
//
// Score(input, output, provider) is the original's six-component score,
// added in the original's order so values agree to the last bit:
//
//	dependency type  +0.4 equal, +0.2 compatible (TypesCompatible), else the score is 0
//	data type        +0.2 equal, +0.1 compatible (S3Uri~String, Integer~Float)
//	name             +0.25 x best Similarity to the output name or an alias
//	exact name       +0.05 when the input name is the output name or an alias
//	sources          +0.1 provider listed (InSources), -0.1 not; 0 for an empty list
//	keywords         +0.05 x share of the input's keywords inside the output name
//
// capped at 1. A pair is viable when its score is above Threshold (0.5).
// Explain returns the components. Example: XGBoostTraining.input_path from
// TabularPreprocessing.processed_data scores 0.8125 (0.2 + 0.2 + 0.25 +
// 0.05 + 0.1 + 0.0125).
//
// Compatible sources follow the original's alias-aware rule (type, legacy
// alias, "<type>Step", equality after removing a trailing "Step"). The
// catalog's generic class tokens (catalog.GenericSources: ProcessingStep,
// DataLoad, ...) are deliberately not expanded here: doing so would change
// scores such as DummyDataLoading.DATA -> XGBoostTraining.input_path (0.4652,
// unbound in the original) into viable ones.
//
// # Resolution
//
// Resolve walks the DAG's nodes; for each consumer it scores every (input,
// output of a direct parent) pair, keeps the viable ones as candidates and
// assigns greedily: required inputs first, then by score, ties in the order
// candidates were found (parents in edge order, inputs and outputs in
// declaration order) — the original assembler's phase 2. No input takes two
// outputs and no (parent, output) feeds two inputs of the same step. The
// Result gives, per node, each bound input with its provider node, output,
// property path and score (Binding; PropertyReference renders
// "Steps.<SageMaker step name>.<path>"), and each unbound input with its
// best rejected candidate (Unbound). A required input that stays unbound
// and has no config source makes Resolve return an *UnresolvedError naming
// the step, the input and that candidate, alongside the complete Result.
//
// # Difference from the original
//
// The original compiler wires in two passes (reference §5.5): after the
// assembler's greedy pass, each builder re-runs a registry-wide resolver
// without the uniqueness rule, and its results fill the inputs the first
// pass left open. In practice an optional input whose best output was
// already taken gets that same output anyway — e.g. every
// TabularPreprocessing -> XGBoostTraining pipeline feeds processed_data to
// both input_path and model_artifacts_input (an extra training channel).
// This package implements only the first pass: an output feeds at most one
// input of a step, and such an optional input stays unbound (Unbound reports
// the output as taken, by which input). Everything else — scores,
// candidates, order of assignment — is the original's.
//
// Also unlike the original resolver, validate-style callers may resolve
// steps without a DAG by passing every other step as a parent
// (ResolveConsumer); the same uniqueness rule applies.
//
// A Resolver memoizes scores, so resolving thousands of nodes drawn from a
// few dozen step types is linear in the size of the graph.
package deps
