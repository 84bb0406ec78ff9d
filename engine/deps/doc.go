// Package deps decides which upstream output feeds each input of a step:
// the semantic name similarity, the compatibility score of an (input,
// output) pair and the resolution of a whole DAG along its edges.
//
// # Similarity
//
// Similarity(a, b) compares two port names: names are normalized
// (Normalize: lower case, separators to spaces, abbreviations expanded,
// stop words dropped); equal normalized names score 1; otherwise the score
// is 0.30 x string ratio (SequenceRatio, a faithful port of Python's
// difflib.SequenceMatcher.ratio, autojunk included for 200+ characters) +
// 0.25 x word-set Jaccard + 0.25 x synonym score + 0.20 x substring score.
// ExplainSimilarity returns the parts. Known values: sim(input_path, processed_data) = 0.2, sim(DATA, processed_data) =
// 0.5405, sim(model_input, model_output) = 0.6306.
//
// # Compatibility
//
// Score(input, output, provider) is a six-component score, added in a fixed
// order so values agree to the last bit with cursus (Python)'s resolver
// (testdata/original_golden.json pins them):
//
//	dependency type  +0.4 equal, +0.2 compatible (TypesCompatible, or listed in the
//	                 input's compatible_output_types: PortAccepts), else the score is 0
//	data type        +0.2 equal, +0.1 compatible (S3Uri~String, Integer~Float)
//	name             +0.25 x best Similarity to the output name or an alias
//	exact name       +0.05 when the input name is the output name or an alias
//	sources          +0.1 provider listed (InSources), -0.1 not; 0 for an empty list
//	keywords         +0.05 x share of the input's keywords inside the output name
//
// capped at 1. An input opts in to an output type its own type does not
// take with compatible_output_types in its step file (cursus 2.9.36's
// opt-in): XGBoostTraining's model_artifacts_input (processing_output)
// lists model_artifacts, so an earlier XGBoost model feeds it (the script
// continues boosting from it), where the type matrix alone scores that
// pair 0. A pair is viable when its score is above Threshold (0.5).
// Explain returns the components. Example: XGBoostTraining.input_path from
// TabularPreprocessing.processed_data scores 0.8125 (0.2 + 0.2 + 0.25 +
// 0.05 + 0.1 + 0.0125).
//
// Compatible sources are matched with aliases (type, legacy alias, "<type>Step", equality after removing a trailing "Step"). The
// catalog's generic class tokens (catalog.GenericSources: ProcessingStep,
// DataLoad, ...) are deliberately not expanded here: doing so would change
// scores such as DummyDataLoading.DATA -> XGBoostTraining.input_path (0.4652,
// below the threshold) into viable ones.
//
// # Resolution
//
// Resolve walks the DAG's nodes; for each consumer it scores every (input,
// output of a direct parent) pair, keeps the viable ones as candidates and
// assigns greedily: required inputs first, then by score, ties in the order
// candidates were found (parents in edge order, inputs and outputs in
// declaration order). No input takes two
// outputs and no (parent, output) feeds two inputs of the same step. The
// Result gives, per node, each bound input with its provider node, output,
// property path and score (Binding; PropertyReference renders
// "Steps.<SageMaker step name>.<path>"), and each unbound input with its
// best rejected candidate (Unbound). A required input that stays unbound
// and has no config source makes Resolve return an *UnresolvedError naming
// the step, the input and that candidate, alongside the complete Result.
//
// # One pass
//
// Resolution is one greedy pass with the uniqueness rule: an output feeds
// at most one input of a step, and an optional input whose best output was
// already taken stays unbound (Unbound reports the output as taken, by
// which input). A second pass without the rule would give such an input
// that same output anyway: every TabularPreprocessing -> XGBoostTraining
// pipeline would feed processed_data to both input_path and
// model_artifacts_input (an extra training channel). cursus (Python) makes
// that second pass; this package deliberately does not, and otherwise
// keeps its scores, candidates and order of assignment.
//
// Validate-style callers may resolve
// steps without a DAG by passing every other step as a parent
// (ResolveConsumer); the same uniqueness rule applies.
//
// A Resolver memoizes scores, so resolving thousands of nodes drawn from a
// few dozen step types is linear in the size of the graph.
package deps
