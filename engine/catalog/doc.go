// Package catalog is the step catalog: the step types the engine knows, read
// from step-interface files (our own YAML format, one file per step type),
// validated when loaded and exposed as typed, read-only *Step values.
// Everything downstream (dependency resolution, configs, the compiler,
// validation) reads step definitions from here.
//
// # Loading
//
// Default returns the embedded catalog (steps/*.step.yaml and
// fieldsets/*.yaml in this package, embedded with go:embed), loaded once.
// Load(dirs...) adds the *.step.yaml files at the top level of each
// workspace directory: a workspace step adds a type or replaces an embedded
// one of the same name (Step.Overrides names what it replaced). Loaded
// catalogs are cached per directory set and reloaded when a step file in
// those directories changes. A catalog with any problem is not returned:
// the error (LoadErrors, one *FileError per problem) names the file and
// the field path, e.g.
//
//	XGBoostTraining.step.yaml: inputs[0].path: must start with /opt/ml/input/data for a Training step
//	my_step.step.yaml: line 7: unknown key "chanels" in input port (check the spelling; ...)
//
// Files are decoded with unknown keys rejected, so a misspelt key fails
// instead of being ignored.
//
// The embedded files are parsed once per process, on first use.
//
// # Step file format
//
// A step file is named <StepType>.step.yaml (or <snake_case>.step.yaml)
// and holds one mapping with these keys:
//
//	step          required  canonical PascalCase type, ^[A-Z][A-Za-z0-9]*$; the catalog key
//	verb          required  SageMaker verb, one of Verbs: a row of the verb table
//	                        (verbs.go), e.g. Processing, Training, CreateModel, Transform,
//	                        RegisterModel (SageMaker CreateModelPackage) or Tuning
//	kind          required  source (no inputs from other steps), internal, or sink (no outputs)
//	description   required  what the step does
//	framework               model family for search and filtering: xgboost, lightgbm,
//	                        pytorch, sklearn or generic
//	config_class            config class name; default <step>Config
//	builder                 builder name; default <step>StepBuilder
//	aliases                 legacy names that resolve to this step (MIMSPackaging -> Package)
//	keywords                search words
//	field_sets              shared field sets the config extends (see below); default:
//	                        the verb's VerbInfo.FieldSet (Processing processing, Training
//	                        training, Tuning tuning, CreateModel model, Transform and
//	                        RegisterModel base)
//	job_types               job types the step is used with (training, calibration, ...);
//	                        variant names are added automatically
//	patterns                construction knobs (below)
//	compute                 SageMaker compute (below)
//	contract                the script side: entry point, environment, arguments (below)
//	inputs, outputs         ports (below)
//	fields                  the step's own config fields, and overrides of inherited ones
//	variants                job-type specific changes (below)
//
// patterns:
//
//	step_assembly             Processing only: code (ProcessingStep with code=script, the
//	                          default) or step_args (processor.run(...) wrapped in a step)
//	include_job_type_in_path  default true, kept as metadata only: the compiler always puts
//	                          the job type in output destinations, so two job types never
//	                          share a prefix
//	direct_input_keys         input names a caller may pass directly
//	output_path_token         send every output to <prefix>/<token> instead of per-port paths
//	name_suffix_field         config field whose value is appended to the SageMaker step
//	                          name (Registration + region NA -> Registration-NA)
//
// compute (every value comes from config fields; this names which ones):
//
//	kind                   Processing: sklearn (SKLearnProcessor), xgboost (XGBoostProcessor),
//	                       framework (FrameworkProcessor), script (ScriptProcessor),
//	                       byo_container (Processor: the step's own image, image_uri, runs
//	                       container_entrypoint, with the code at /opt/ml/processing/input/code);
//	                       Training: estimator; Tuning: tuner; CreateModel: model;
//	                       Transform: transformer; RegisterModel: model_package
//	sdk_class              framework/estimator/tuner/model only: XGBoost, PyTorch, SKLearn,
//	                       XGBoostModel, PyTorchModel, SKLearnModel
//	framework              image framework (which image-URI table): sklearn, xgboost,
//	                       pytorch or none; default from kind / sdk_class
//	framework_field        config field whose value overrides framework (RegisterModel)
//	framework_version_field, framework_version_default, py_version_field, image_uri_field
//	image_scope            training or inference; default by verb
//	instance_type_field    a fixed instance-type field; Processing steps instead choose
//	large_instance_type_field / small_instance_type_field by use_large_instance_field
//	instance_count_field, volume_size_field, max_runtime_field
//
// Per-verb defaults (VerbInfo.Defaults) fill empty compute fields when the
// step has the field:
// Processing uses processing_instance_type_large/small,
// use_large_processing_instance, processing_instance_count,
// processing_volume_size (kind sklearn also processing_framework_version);
// Training and Tuning use training_instance_type, training_instance_count,
// training_volume_size, framework_version, py_version; CreateModel uses
// instance_type, framework_version, py_version; Transform uses
// transform_instance_type, transform_instance_count (framework none);
// RegisterModel uses inference_instance_type, framework_version,
// py_version. Every step with an image gets image_uri_field image_uri and
// max_runtime_field max_runtime_seconds where those fields exist.
//
// contract:
//
//	entry_point        script file (relative .py path); required for Processing, Training
//	                   and Tuning, inference.py for CreateModel, none for Transform and
//	                   RegisterModel
//	entry_point_field  config field holding it; default by verb: processing_entry_point,
//	                   training_entry_point, entry_point. Its default must equal entry_point.
//	source_dir         true: upload the whole source directory (needs step_assembly step_args)
//	source_dir_field   config field with the source directory; default effective_source_dir
//	env                environment variables: {name, required, default, field, description}
//	job_arguments      command-line arguments: {flag: --job_type, source: job_type}
//	                   (Processing only; Training/Tuning pass none)
//	requirements       pip pins of the script (documentation)
//	requirements_file  a pip requirements file of the code root (requirements/lightgbm.txt)
//	                   the compiler packs as requirements.txt beside the catalog's script
//	                   and into the serving code of the models the step trains or serves;
//	                   the container installs it before the code runs (the training
//	                   toolkit, the processing launcher runproc.py, the inference
//	                   toolkit), which needs a package index: not under network isolation
//	permissions        what the job role needs beyond SageMaker's own, each with its
//	                   resource ("bedrock:InvokeModel on the model"); the compile warns
//	                   of them, since it cannot read the role's policies
//	description        text
//
// Environment variable rule: env NAME reads config field lower(NAME) unless
// the entry declares field: <other>. A required variable must have such a
// field in the step (explicit or implicit), and that field must be
// essential or have a default or derivation, so the value always exists. An
// optional variable without a field takes its declared default; with a
// field, its default (when omitted) is the field's default rendered by
// EnvValue, and a written default must agree with it. Values are rendered
// by EnvValue: bool true/false, list comma-joined, map as JSON.
//
// inputs (a list; each port is declared once, so its container path and
// its resolver metadata cannot drift apart):
//
//	name                logical name, unique among inputs
//	type                dependency type: model_artifacts, processing_output, training_data,
//	                    hyperparameters, payload_samples, custom_property
//	data_type           S3Uri (default) or String
//	path                container path; rules below
//	required            default false
//	channels            Training/Tuning: the channels the input fans out into
//	                    (<s3>/<channel>/ lands in /opt/ml/input/data/<channel>); path must be
//	                    /opt/ml/input/data. See InputPort.TrainingChannels for the defaults.
//	compatible_sources  step types (exact case) or generic tokens (GenericSources: DataLoad,
//	                    HyperparameterPrep, ModelStep, ProcessingStep, TrainingStep,
//	                    UserProvided) that may feed the input
//	compatible_output_types  output types the input accepts beyond those its own type
//	                    takes (an opt-in; the resolver scores such a pair as compatible
//	                    types): a processing_output input listing model_artifacts takes an
//	                    upstream model's artefacts
//	keywords            semantic keywords for the resolver
//	aliases             alternative names
//	config_source       the value comes from this config field instead of an upstream step
//	description         required
//
// outputs:
//
//	name, type, data_type, path, aliases, keywords, description  as for inputs
//	property_path   the job property holding the output's S3 URI, always "properties.…";
//	                Processing outputs must use (and default to)
//	                properties.ProcessingOutputConfig.Outputs['<name>'].S3Output.S3Uri;
//	                other verbs must name a field of their Describe* response
//	                (ModelArtifacts, OutputDataConfig, BestTrainingJob, ModelName,
//	                TransformOutput, ModelPackageArn, ...)
//	uri_join        extra path segments: the URI is Std:Join("/", [<step output path>,
//	                Get(property_path), segments...]) (a tuning step's best model)
//
// Container paths: Processing inputs lie under /opt/ml/processing/input/
// (not the root itself, not /opt/ml/processing/input/code, which holds the
// script) and outputs under /opt/ml/processing/output; no two inputs or two
// outputs may nest. Training and Tuning inputs lie under /opt/ml/input/data,
// /opt/ml/input/config or /opt/ml/code, outputs under /opt/ml/model,
// /opt/ml/output/data or /opt/ml/checkpoints (a custom_property output may
// have no path); channels must be unique. CreateModel, Transform and
// RegisterModel steps run no container of ours: their ports have no path.
//
// variants (keyed by job type) change ports for one job type and are
// deep-merged over the base by Step.ForJobType:
//
//	variants:
//	  validation:
//	    description: Applies the imputers fitted by the training job.
//	    inputs:
//	      model_artifacts_input: {required: true, compatible_sources: [MissingValueImputation]}
//	    outputs:
//	      processed_data: {aliases: [...], keywords: [...]}
//	    env_defaults: {SOME_OPTIONAL_VAR: "value"}
//
// An input patch may set required, compatible_sources, keywords, aliases
// and description; an output patch aliases and keywords. Set attributes
// replace the base values; an unknown job type yields the base step.
//
// # Step code
//
// The catalog ships the code its steps run as embedded files under
// scripts/ of package engine/stepcode (Code, an fs.FS): scripts/<entry_point> for a Processing,
// Training or Tuning step (one file; steps with the same entry point share
// it), scripts/steplib/ for helpers scripts share (Bundle ships it beside
// a script that imports it) and scripts/inference/<framework>/ for
// model-serving code (inference.py plus helpers; InferenceCodePath). A
// workspace directory ships code the same way in its own scripts/, beside
// its step files; for a workspace step that directory comes first, the
// embedded root second. Step.LookupCode finds a file or directory by its
// path relative to a code root, Step.Script the entry point's script and
// Step.InferenceCode a framework's serving code; each returns a StepCode
// (its files, sorted, readable through StepCode.ReadFile; dot files,
// __pycache__ and *.pyc are not code). The compiler prefers the project's
// own file of the same name and uses the catalog's otherwise.
//
// # Config fields and field sets
//
// A field is {name, type, tier, default, allowed, min, max, pattern,
// derive, hyperparameter, description}:
//
//	type     string, int, float, bool, list (JSON array), map (JSON object), any
//	tier     essential: the user must supply it (no default);
//	         system: optional, with a default or none (unset);
//	         derived: computed by the derive template, read-only
//	derive   derived fields: the template; system fields: a dynamic default.
//	         Placeholders: {field}, {field|aws_region}, {field|lower}, {field|upper},
//	         {a|or:b} (a, else b), {flag|if:a:b} (a when flag is true, else b),
//	         {today}. See ExpandDerivation and Step.DeriveValue.
//	hyperparameter  true: the value is a hyperparameter of the training job
//	         (Training and Tuning steps only, checked at load; not derived;
//	         no name starting with sagemaker_, which the compiler owns)
//
// A default must obey type, allowed, min/max and pattern; this is checked
// at load. A config value (not a default) of a string, int or float field
// may instead be a pipeline-parameter reference "{{Parameters.<name>}}"
// (ParameterRef, FieldType.AcceptsParameterRef, ConfigField.CheckValue);
// ParameterRefBlockers lists the fields where a reference cannot work
// (job_type, fields a derived name is built from).
//
// Shared field sets live in fieldsets/<name>.yaml as {name,
// extends, description, fields}; a set includes every field of the set it
// extends. The embedded sets are base (author, bucket, role, region (an AWS region or NA|EU|FE),
// service_name, pipeline_version, project_root_folder essential; model_class,
// framework_version, py_version, source_dir, enable_caching, ... system;
// aws_region, pipeline_name, pipeline_s3_loc, ... derived), processing
// (extends base: processing_instance_count, processing_volume_size,
// processing_instance_type_large/small, use_large_processing_instance,
// processing_framework_version "1.2-1", processing_entry_point,
// processing_source_dir, ...), training (extends base:
// training_instance_type/count, training_volume_size, training_entry_point,
// ...), tuning (extends training: objective metric, search space, budget),
// model (extends base: inference instance type and script) and
// xgboost_hyperparameters (no parent: the XGBoost training script's
// hyperparameters, used by XGBoostTraining and XGBoostTuning with
// field_sets: [training, xgboost_hyperparameters]).
//
// # Hyperparameters
//
// A training script's hyperparameters are typed fields marked
// hyperparameter: true (Step.Hyperparameters lists them), not a free-form
// object: what the script cannot run without (XGBoost's label_name,
// tab_field_list, cat_field_list, objective) is essential, so every tool
// that shows or checks a config names it. The compiler passes each such
// field with a value (the config's or the default) to the job under the
// field's name, JSON-encoded as the SDK's framework estimators do, beside
// the keys it owns (sagemaker_program, sagemaker_submit_directory, ...);
// a tuning step's search space names hyperparameter fields, and a tuned
// one is left out of the static hyperparameters. A step may still declare
// a map field named hyperparameters, passed through key by key, until its
// hyperparameters are typed; engine/config lifts the legacy object of an
// older config.json into the typed fields.
//
// A step's fields list adds fields and overrides inherited ones by name:
// an override changes only the attributes it writes, so
// {name: processing_entry_point, default: tabular_preprocessing.py} keeps
// the inherited type, tier and description. Making a field essential drops
// its inherited default.
//
// # Names
//
// A step has four names (see types.go): the DAG node name
// (TabularPreprocessing_training, resolved by Catalog.ResolveNode), the
// config key (ConfigKeyFor: TabularPreprocessing_training), the canonical
// type (TabularPreprocessing) and the SageMaker step name (SageMakerName:
// TabularPreprocessing-Training). CanonicalToSnake, SnakeToCanonical and
// Catalog.ResolveFileName convert file-style names.
//
// The patterns the loader enforces are exported as strings
// (StepNamePattern, FieldNamePattern, PortNamePattern, EnvNamePattern,
// JobTypePattern, ChannelPattern, ScriptPattern, PropertyPathPattern,
// PathTokenPattern), as are the compute tables (ComputeKinds per verb,
// SDKClasses per kind, ImageFrameworks), so authoring tools show the live
// rules instead of copies.
//
// # Search
//
// Catalog.Search scores every step against a query: exact name 1, alias
// 0.95, then word matches (query words, expanded by QueryAbbreviations such
// as xgb -> xgboost, matched against the words of the name by equality,
// prefix, substring or edit distance, and against keywords at a lower
// weight), or the query as a substring of the name. Keys are precomputed at
// load, so a query costs a few microseconds. Catalog.Closest suggests names
// for a step that does not exist.
package catalog
