// Package compiler turns a pipeline DAG and its config.json into an Amazon
// SageMaker Pipelines definition: the JSON document CreatePipeline takes,
// shaped as the SageMaker Python SDK writes it.
//
// # Flow
//
// [Compile] loads the configs (engine/config), orders the DAG (Kahn, FIFO in
// node order: engine/dag), picks a config for every node (exact key,
// metadata, case-insensitive, base name, scored fallbacks), takes each
// node's step type from the catalog in its job-type view (engine/catalog),
// binds every input to an upstream output (engine/deps: scored candidates
// along DAG edges, greedy assignment), and builds one step per node in
// topological order with the builder of its SageMaker verb. The kind table
// (kinds.go) has one row per step kind: the verb, the builder, the step
// Type it emits, the request its Arguments mirror, its knobs, where its
// properties come from and the fields reference checks treat specially:
//
//	Processing    -> CreateProcessingJob arguments    (Type "Processing")
//	Training      -> CreateTrainingJob arguments      (Type "Training")
//	CreateModel   -> CreateModel arguments            (Type "Model")
//	Transform     -> CreateTransformJob arguments     (Type "Transform")
//	RegisterModel -> CreateModelPackage arguments     (Type "RegisterModel")
//	Tuning        -> CreateHyperParameterTuningJob    (Type "Tuning")
//
// The [Definition] has Version 2020-12-01, empty Metadata, the pipeline
// parameters some step uses, each with a default from the config
// (EXECUTION_S3_PREFIX, KMS_ENCRYPTION_KEY_PARAM when a config sets
// kms_key_id, SECURITY_GROUP_ID and VPC_SUBNET when a config refers to
// them, and those the configs declare in pipeline_parameters: see
// params.go; a "{{Parameters.X}}" config value becomes a reference, a
// "{{Execution.X}}" one an execution variable), the SDK's default
// PipelineExperimentConfig and the steps.
// Job names are omitted (SageMaker names jobs at execution time). A bound
// input is a property reference with the provider's SageMaker step name,
// {"Get": "Steps.<name>.<property path without 'properties.'>"}; an output
// destination is {"Std:Join": {"On": "/", "Values": [{"Get":
// "Parameters.EXECUTION_S3_PREFIX"}, {"Get": "Execution.PipelineExecutionId"},
// "<lowercase step type>", "<job type>", "<output>"]}}: under the execution
// id, as the SDK writes a processing job's default outputs, so executions
// never overwrite each other (config field outputs_per_execution false
// leaves it out). Training and tuning jobs write under <prefix>/<snake_case
// step type>, where SageMaker adds the job's own name. DependsOn lists
// every DAG parent.
//
// # Code and images
//
// A step's script, or its whole source directory, is code the definition
// refers to by an S3 URI under <pipeline_s3_loc>/code/<hash>/, where the
// hash is the SHA-256 of the content: changed code gets a new URI, so
// SageMaker's step cache never reuses a run of old code. Each piece of
// code is resolved in order (code.go):
//
//  1. the project's own: the source directory (source_dir,
//     effective_source_dir, processing_source_dir) plus the entry point,
//     or the path a config field names (Package's inference_scripts_dir);
//  2. the catalog's (catalog.Step.LookupCode): the entry point's script;
//     for a CreateModel step the serving directory inference/<framework>
//     (framework: config field inference_framework when the step declares
//     it, else the step's framework, else model_class); for a relative
//     config path <path>/<framework>, then <path>;
//  3. else missing: the URI is under code/missing/<step>/, the artifact
//     has Missing set and a warning says so.
//
// The [Manifest] lists each artifact (local path, S3 URI, SHA-256, size;
// Embedded for the catalog's code, whose bytes the artifact holds and
// [Artifact.ReadFile] returns); [Manifest.Materialize] turns it into local
// files (it writes embedded and generated code and packs sourcedir.tar.gz
// for training jobs, model containers and processing jobs whose code is
// several files, deterministically) for
// smclient.Upsert or a local run. Compiling never writes anything.
// Container images come from sagemaker.ImageURI (the SDK's image
// tables) for the step's framework, the config's framework version, Python
// version, region and instance type; a config image_uri replaces the lookup.
// A step whose step file names a requirements_file (the LightGBM steps:
// no framework image ships lightgbm) gets it packed as requirements.txt at
// the top of the catalog's code (catalog.WithRequirements), which the
// container pip-installs before the code runs, as the SDK's containers
// install a source directory's: the training toolkit beside the entry
// point, the processing launcher runproc.py, the inference toolkits from a
// model's code/. The models such a step trains carry it too: a CreateModel
// or RegisterModel step serving the model, and Package packaging it, add
// the trainer's requirements file to the serving code. Under network
// isolation pip reaches no index, so readiness refuses such a step on a
// looked-up image (BlockerCannotInstall) until image_uri names an image
// that has the packages.
// The config's subnets, security_group_ids and enable_network_isolation
// become the jobs' NetworkConfig / VpcConfig.
//
// A model (CreateModel) or model package (RegisterModel) gets the
// archive object itself where SageMaker needs one: ModelDataUrl and
// SamplePayloadUrl are Std:Join("/", [the provider's output prefix, its
// object]) for an output that names its object (catalog OutputPort.Object:
// Package's model.tar.gz, Payload's payload.tar.gz); a training job's
// ModelArtifacts.S3ModelArtifacts is the object already. The container gets
// the framework model environment the SDK sets: SAGEMAKER_PROGRAM,
// SAGEMAKER_SUBMIT_DIRECTORY (/opt/ml/model/code when the code is inside
// the model archive, else the S3 URI of the packed inference code),
// SAGEMAKER_CONTAINER_LOG_LEVEL and SAGEMAKER_REGION. A model whose serving
// image reads code only from its archive (PyTorch 1.2 and later, LightGBM
// on those images) or that runs under network isolation is repacked, as
// the SDK's ModelStep does (build_repack.go): the compiler adds a Training
// step <model step>-RepackModel before it, which runs the catalog's
// repack_model.py in the scikit-learn image of the pipeline's region and
// writes the trained archive and the inference code (under code/) into one
// model.tar.gz, the model's ModelDataUrl; NodeReport.AddedSteps lists it. A
// training job under network isolation gets its code through the channel
// "code" (sagemaker_submit_directory
// /opt/ml/input/data/code/sourcedir.tar.gz), as the SDK's estimators do. A
// config's kms_key_id encrypts outputs and volumes (kms.go).
//
// # The readiness gate
//
// A definition that compiles may still not run: Result.Blockers and
// ValidationResult.Blockers ([Blocker], [CheckReadiness], readiness.go)
// list why: placeholder values (config.IsPlaceholder: replace-me in any
// spelling, a bare TODO/TBD/FIXME/..., a <slot>; an essential field left
// blank), unknown config keys with a did-you-mean, missing code, a
// parameter without a default, a reference left as text; Validate adds
// every error as a blocker too (bad values, missing essentials, unbound
// inputs, images that do not exist, missing configs). A pipeline is
// deployable when there are none. The default pipeline name does not
// depend on the DAG (it is made from author, service_name, model_class,
// region and pipeline_version), so a compile that uses it warns: another
// DAG with the same base values would get the same name.
//
// # Other entry points
//
// [Validate] checks everything Compile checks but reports every problem
// (missing configs, unknown builders, config errors, unbound required
// inputs, DAG problems) instead of stopping at the first, and the
// readiness gate (deployable, blockers). [PreviewResolution]
// shows node -> config -> builder with confidence. [CompileSingleNode]
// builds one config's step alone with manual S3 inputs. Names:
// [GeneratePipelineName], [SanitizePipelineName], [ValidatePipelineName].
// [CheckReferences] checks a compiled definition's references: each Get
// names a step before it and a property its type has (the table in
// sdk_properties.json, generated from the aws-sdk-go-v2 output types by
// go generate; the compiler itself does not link the SDK), declared outputs,
// parameters and property files, and no prefix where one object is needed.
//
// # Run settings
//
// Two config fields of every step and one pipeline key set how it runs
// rather than what it does: retry_policies (the step's RetryPolicies in the SageMaker SDK's
// shape; job fault types only on steps that start a job), tags (the job's
// Arguments.Tags) and max_parallel_execution_steps (the pipeline's
// [ParallelismConfiguration], which [Result] carries for CreatePipeline
// and UpdatePipeline; every config that sets it must agree). Which steps
// take retry policies and tags is a column of the step-kind table: a
// Condition or Fail step takes neither.
//
// # Errors
//
// Every failure is typed so callers can map it: [*FileError] (a file is
// missing or unreadable), [ErrNoConfig], [ErrEmptyDAG], [*CycleError],
// [*InvalidDAGError], [*MissingConfigError], [*UnknownStepError],
// [*UnboundInputsError] (every unbound required input, each with the best
// rejected candidate), [*StepBuildError] (the config field at fault),
// [*InvalidPipelineNameError], [*NodeNotFoundError], [*ManualInputError],
// [*ParameterError];
// bad configs surface as engine/config's *ValidationError and
// *DuplicateStepNameError.
//
// # Where this differs from cursus (Python) on purpose
//
//   - Required inputs: an unbound required input is a compile error found
//     by Validate as well, not only when the step is built.
//   - No second resolver pass: an optional input
//     is not re-bound to an output another input already took, so
//     XGBoostTraining gets train/val/test channels but no duplicate
//     model_artifacts_input channel.
//   - CacheConfig is emitted only when the config enables caching, not as
//     {"Enabled": false} on every processing and training step; it never appears on Model and RegisterModel steps.
//   - EXECUTION_S3_PREFIX defaults to the config's pipeline_s3_loc, so an
//     execution started without parameters writes under the config's
//     location instead of a bare relative path.
//   - max_runtime_seconds (the step's max-runtime field) sets the job's
//     StoppingCondition, cut to the API's limit with a warning.
//   - A processing step whose code is more than one file (its source
//     directory, or a catalog script with the steplib modules it imports)
//     gets it as one sourcedir.tar.gz (input code) and the catalog's
//     launcher runproc.py (input entrypoint), a Python program of our own
//     that does what the SDK FrameworkProcessor's runproc.sh does (unpack,
//     install requirements.txt, run the entry point) in images without a
//     shell assumption.
//   - A required environment variable without a config value, or a value
//     longer than SageMaker allows, is a compile error.
//   - Model registration is a native RegisterModel step (CreateModelPackage)
//     rather than a processing job that calls an SDK.
//   - The step file's include_job_type_in_path is not consulted for output
//     destinations (two job types of one step would otherwise write to the
//     same prefix).
package compiler
