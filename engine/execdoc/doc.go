// Package execdoc builds, checks and merges execution documents: the JSON
// document a pipeline run is started with, which carries the runtime
// configuration of the steps that need one (data-loading requests, model
// registration settings) keyed by SageMaker step name.
//
// # Shape
//
//	{"PIPELINE_STEP_CONFIGS": {
//	    "CradleDataLoading-Training": {"STEP_TYPE": ["PROCESSING_STEP", "CradleDataLoadingStep"],
//	                                   "STEP_CONFIG": {"dataSources": {...}, ...}},
//	    "Registration-NA":            {"STEP_TYPE": ["PROCESSING_STEP", "ModelRegistration"],
//	                                   "STEP_CONFIG": {"model_domain": "...", ...}}},
//	 "PIPELINE_ADDITIONAL_PARAMS": {}}
//
// STEP_TYPE is a string or a list of strings; STEP_CONFIG is an object.
//
// # Operations
//
//   - Template: an empty document for a list of step names (every step
//     {"STEP_TYPE": ["PROCESSING_STEP"], "STEP_CONFIG": {}}), or for a DAG (TemplateFromDAG: keys are SageMaker step names
//     and STEP_TYPE names the step's verb and type).
//   - Validate: every problem of a document, each with a severity, a kind
//     and a path; a document is valid when no problem is an error.
//     Structure is always checked; with Options.Steps (the step names a DAG
//     produces) unknown and missing steps are reported too, and with
//     Options.Catalog step names that name no step type are warned about.
//   - Merge: additional wins; for a step present in both, STEP_CONFIG
//     objects are merged key by key (shallow update) and every other key is
//     replaced; new steps are added; PIPELINE_ADDITIONAL_PARAMS objects are
//     merged the same way. Both documents must be structurally valid.
//   - Generate: fill a document from a DAG and its configs. Each node is
//     resolved to its config (the compiler's resolution, so the SageMaker
//     step names are the ones a compile gives); helpers fill the steps that
//     carry runtime configuration: data loading (CradleDataLoading,
//     RedshiftDataLoading, AthenaDataLoading: the request as a camelCase
//     object) and model registration (registration, payload and package
//     settings). Steps without a helper are left as they are.
//
// # Differences from cursus (Python), on purpose
//
// Generate without a document builds its template from the SageMaker step
// names the compile gives, not from DAG node names, so the data-loading
// steps it fills are found. Merge also merges PIPELINE_ADDITIONAL_PARAMS
// instead of dropping the additional document's parameters. Validate lists
// step-level problems too (missing or non-object STEP_CONFIG, a bad
// STEP_TYPE).
package execdoc
