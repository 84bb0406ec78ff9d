package compiler

import "github.com/cursus-go/cursus/engine/catalog"

// This file is the compiler's table of SageMaker step kinds: one row per
// step Type of a definition says how a step of that kind is built (the
// catalog verb it builds, the builder, its knobs), what SageMaker request
// its Arguments mirror, where its properties come from, which of its
// fields the reference checks (CheckReferences) treat specially and how
// PatternsOf describes its inputs and outputs. Adding a kind adds a row
// here and the builder (build_<kind>.go); the catalog has its own row per
// verb (engine/catalog/verbs.go). CONTRIBUTING.md lists every file a new
// kind touches.

// kind is one row of the table.
type kind struct {
	// info is the builder as Builders reports it; info.Verb is "" for a
	// step Type no verb builds on its own (it is emitted by another kind's
	// builder).
	info BuilderInfo
	// build builds the Arguments of a step of the verb.
	build func(*buildEnv, *nodePlan) (any, error)
	// cacheable: the step takes CacheConfig when its config enables
	// caching (SageMaker does not cache Model and RegisterModel steps).
	cacheable bool
	// settings are the run settings its steps take from config: retry
	// policies (of step faults, or of job faults too) and job tags.
	settings runSettings
	// def is what the definition says about steps of this Type.
	def DefinitionKind
	// objectFields are fields of a step of this Type that need one S3
	// object (a .tar.gz), never a prefix; indices written [], map keys as
	// fields.
	objectFields []string
	// prefixProperties are properties of this Type that hold an S3 prefix
	// (a job's output location) rather than one object.
	prefixProperties []string
	// inputsPattern says how the builder turns a step's inputs into its
	// Arguments (StepPatterns.Inputs); "": one input per declared port.
	inputsPattern string
	// outputsPattern says where the builder sends a step's outputs
	// (StepPatterns.Outputs), <token> standing for the output path token;
	// "": a destination per output.
	outputsPattern string
}

// DefinitionKind is what the compiler knows of one step Type of a
// definition, for the packages that check or run definitions.
type DefinitionKind struct {
	Type string `json:"type"` // the definition's step Type: Processing, Training, Model, ...
	// Verb is the catalog verb built as this Type ("" when the Type is
	// emitted only by another kind's builder).
	Verb catalog.Verb `json:"verb,omitempty"`
	// APIRequest is the API operation the Arguments mirror
	// ("CreateProcessingJob"): a SageMaker one, or one of the service
	// Shape names (EMR's AddJobFlowSteps); "" for a step that starts no
	// job.
	APIRequest string `json:"api_request,omitempty"`
	// JobNameField is the request field naming the job, left out of
	// definitions (SageMaker names jobs at execution time).
	JobNameField string `json:"job_name_field,omitempty"`
	// Describe lists the SageMaker API operations whose responses are the
	// step's properties ({"Get": "Steps.<name>.<path>"}).
	Describe []string `json:"describe,omitempty"`
	// Properties are the property paths of a step Type no Describe
	// operation answers for.
	Properties []string `json:"properties,omitempty"`
	// Shape, "<service>:<shape>", is another AWS service's shape whose
	// fields are the step's properties (emr:Step, EMR's DescribeStep
	// result, for an EMR step), when no SageMaker operation answers for it.
	Shape string `json:"shape,omitempty"`
}

// BuilderInfo describes one step builder of the compiler.
type BuilderInfo struct {
	Verb           catalog.Verb `json:"verb"`            // the SageMaker verb it builds (routing key)
	Name           string       `json:"name"`            // "ProcessingStepBuilder", as in NodeReport.Builder
	DefinitionType string       `json:"definition_type"` // the Step.Type it emits: Processing, Training, Model, ...
	APIRequest     string       `json:"api_request"`     // the request its Arguments mirror (SageMaker, or EMR for an EMR step)
	// Assemblies lists the patterns.step_assembly values it accepts
	// (Processing only). Both build the same CreateProcessingJob arguments:
	// the SDK's two ways of making a ProcessingStep differ only inside the
	// SDK.
	Assemblies []string `json:"assemblies,omitempty"`
	Knobs      []Knob   `json:"knobs"`
}

// Knob is one setting a builder reads besides the step's ports.
type Knob struct {
	Name    string `json:"name"`
	Source  string `json:"source"` // "patterns", "contract", "compute" or "config"
	Type    string `json:"type"`   // "string", "bool", "int", "list", "map"
	Default any    `json:"default,omitempty"`
	Doc     string `json:"doc"`
}

// Knobs every builder reads.
var commonKnobs = []Knob{
	{Name: "role", Source: "config", Type: "string", Doc: "IAM role ARN the job runs as (a compile's role override wins)."},
	{Name: "region", Source: "config", Type: "string", Doc: "Region code (NA, EU, FE) or aws_region: picks the image registry."},
	{Name: "env", Source: "config", Type: "map", Doc: "Extra environment variables, applied over the contract's."},
	{Name: "contract.env", Source: "contract", Type: "list", Doc: "Environment variables and the config fields they read; a required one without a value is an error."},
}

var networkKnobs = []Knob{
	{Name: "subnets", Source: "config", Type: "list", Doc: "VPC subnets (with security_group_ids): NetworkConfig.VpcConfig of processing jobs, VpcConfig of training jobs and models."},
	{Name: "security_group_ids", Source: "config", Type: "list", Doc: "VPC security groups (with subnets)."},
	{Name: "enable_network_isolation", Source: "config", Type: "bool", Doc: "Run the container without network access."},
}

var imageKnobs = []Knob{
	{Name: "compute.framework", Source: "compute", Type: "string", Doc: "Image framework (sklearn, xgboost, pytorch); compute.framework_field may name a config field that overrides it."},
	{Name: "compute.framework_version_field", Source: "compute", Type: "string", Doc: "Config field with the framework version (else compute.framework_version_default)."},
	{Name: "compute.py_version_field", Source: "compute", Type: "string", Doc: "Config field with the Python version of the image."},
	{Name: "compute.image_uri_field", Source: "compute", Type: "string", Default: "image_uri", Doc: "Config field whose value replaces the looked-up image."},
	{Name: "compute.instance_type_field", Source: "compute", Type: "string", Doc: "Config field with the instance type (processing: large/small fields chosen by use_large_instance_field)."},
}

var cachingKnobs = []Knob{
	{Name: "enable_caching", Source: "config", Type: "bool", Default: false, Doc: "Adds CacheConfig {Enabled: true} to the step."},
	{Name: "cache_expire_after", Source: "config", Type: "string", Default: "P30D", Doc: "ISO 8601 duration of the step cache."},
}

var codeKnobs = []Knob{
	{Name: "contract.entry_point_field", Source: "contract", Type: "string", Doc: "Config field with the script (else contract.entry_point)."},
	{Name: "contract.source_dir_field", Source: "contract", Type: "string", Doc: "Config field with the local source directory (else processing_source_dir / source_dir), relative to the config file's directory."},
	{Name: "compute.max_runtime_field", Source: "compute", Type: "string", Doc: "Config field that sets StoppingCondition.MaxRuntimeInSeconds (cut to the API limit)."},
}

// kinds is the table. Builders lists the rows with a verb in catalog.Verbs
// order.
var kinds = []kind{
	{info: BuilderInfo{Verb: catalog.VerbProcessing, Name: "ProcessingStepBuilder", DefinitionType: StepTypeProcessing, APIRequest: "CreateProcessingJob",
		Assemblies: []string{"code", "step_args"},
		Knobs: cat(commonKnobs, networkKnobs, imageKnobs, cachingKnobs, codeKnobs, []Knob{
			{Name: "contract.source_dir", Source: "contract", Type: "bool", Default: false, Doc: "Upload the whole source directory (an S3 prefix mounted at /opt/ml/processing/input/code) instead of the script alone."},
			{Name: "contract.job_arguments", Source: "contract", Type: "list", Doc: "Script arguments (flag, config field)."},
			{Name: "processing_script_arguments", Source: "config", Type: "list", Doc: "Extra script arguments appended after the declared ones."},
			{Name: "patterns.output_path_token", Source: "patterns", Type: "string", Doc: "Send every output to <prefix>/<token>."},
			{Name: "skip_<input>", Source: "config", Type: "bool", Doc: "Drop that input."},
		})},
		settings:         settingsJob,
		build:            func(e *buildEnv, p *nodePlan) (any, error) { return e.buildProcessing(p) },
		cacheable:        true,
		def:              DefinitionKind{JobNameField: "ProcessingJobName", Describe: []string{"DescribeProcessingJob"}},
		prefixProperties: []string{"ProcessingOutputConfig.Outputs[].S3Output.S3Uri", "ProcessingInputs[].S3Input.S3Uri"},
	},
	{info: BuilderInfo{Verb: catalog.VerbTraining, Name: "TrainingStepBuilder", DefinitionType: StepTypeTraining, APIRequest: "CreateTrainingJob",
		Knobs: cat(commonKnobs, networkKnobs, imageKnobs, cachingKnobs, codeKnobs, []Knob{
			{Name: "<hyperparameter fields>", Source: "config", Type: "any", Doc: "Every field marked hyperparameter with a value (config or default), under its name, JSON-encoded as framework estimators do; a {{Parameters.X}} value is passed as the parameter, as text. A step that still declares the free-form hyperparameters object passes its keys too."},
			{Name: "skip_<input>", Source: "config", Type: "bool", Doc: "Drop that input (skip_hyperparameters_s3_uri)."},
		})},
		settings:     settingsJob,
		build:        func(e *buildEnv, p *nodePlan) (any, error) { return e.buildTraining(p) },
		cacheable:    true,
		def:          DefinitionKind{JobNameField: "TrainingJobName", Describe: []string{"DescribeTrainingJob"}},
		objectFields: []string{"Arguments.HyperParameters.sagemaker_submit_directory"},
		prefixProperties: []string{"OutputDataConfig.S3OutputPath", "CheckpointConfig.S3Uri", "DebugHookConfig.S3OutputPath",
			"InputDataConfig[].DataSource.S3DataSource.S3Uri"},
		inputsPattern:  trainingInputs,
		outputsPattern: trainingOutputs,
	},
	{info: BuilderInfo{Verb: catalog.VerbCreateModel, Name: "CreateModelStepBuilder", DefinitionType: StepTypeModel, APIRequest: "CreateModel",
		Knobs: cat(commonKnobs, networkKnobs, imageKnobs, codeKnobs[:2])},
		settings: settingsStep,
		build:    func(e *buildEnv, p *nodePlan) (any, error) { return e.buildModel(p) },
		def:      DefinitionKind{JobNameField: "ModelName", Describe: []string{"DescribeModel"}},
		objectFields: []string{"Arguments.PrimaryContainer.ModelDataUrl", "Arguments.Containers[].ModelDataUrl",
			"Arguments.PrimaryContainer.Environment.SAGEMAKER_SUBMIT_DIRECTORY", "Arguments.Containers[].Environment.SAGEMAKER_SUBMIT_DIRECTORY"},
		inputsPattern:  "model_data becomes the container's ModelDataUrl",
		outputsPattern: "none (SageMaker names the model)",
	},
	{info: BuilderInfo{Verb: catalog.VerbTransform, Name: "TransformStepBuilder", DefinitionType: StepTypeTransform, APIRequest: "CreateTransformJob",
		Knobs: cat(commonKnobs, cachingKnobs, []Knob{
			{Name: "content_type", Source: "config", Type: "string", Default: "text/csv", Doc: "TransformInput.ContentType."},
			{Name: "split_type", Source: "config", Type: "string", Default: "Line", Doc: "TransformInput.SplitType."},
			{Name: "accept", Source: "config", Type: "string", Default: "text/csv", Doc: "TransformOutput.Accept."},
			{Name: "assemble_with", Source: "config", Type: "string", Default: "Line", Doc: "TransformOutput.AssembleWith."},
			{Name: "input_filter", Source: "config", Type: "string", Default: "$[1:]", Doc: "DataProcessing.InputFilter."},
			{Name: "output_filter", Source: "config", Type: "string", Default: "$[0,-1]", Doc: "DataProcessing.OutputFilter."},
			{Name: "join_source", Source: "config", Type: "string", Default: "Input", Doc: "DataProcessing.JoinSource."},
		})},
		settings:         settingsJob,
		build:            func(e *buildEnv, p *nodePlan) (any, error) { return e.buildTransform(p) },
		cacheable:        true,
		def:              DefinitionKind{JobNameField: "TransformJobName", Describe: []string{"DescribeTransformJob"}},
		prefixProperties: []string{"TransformOutput.S3OutputPath", "TransformInput.DataSource.S3DataSource.S3Uri"},
		inputsPattern:    "model_name names the model; processed_data is the TransformInput",
	},
	{info: BuilderInfo{Verb: catalog.VerbRegisterModel, Name: "RegisterModelStepBuilder", DefinitionType: StepTypeRegisterModel, APIRequest: "CreateModelPackage",
		Knobs: cat(commonKnobs, imageKnobs, codeKnobs[:2], []Knob{
			{Name: "model_package_group_name", Source: "config", Type: "string", Doc: "Model package group (else derived from pipeline_name)."},
			{Name: "model_approval_status", Source: "config", Type: "string", Default: "PendingManualApproval", Doc: "Approved, Rejected or PendingManualApproval."},
			{Name: "model_package_description", Source: "config", Type: "string", Doc: "Description of the version (else pipeline_description)."},
			{Name: "source_model_inference_content_types", Source: "config", Type: "list", Default: []string{"text/csv"}, Doc: "SupportedContentTypes."},
			{Name: "source_model_inference_response_types", Source: "config", Type: "list", Default: []string{"application/json"}, Doc: "SupportedResponseMIMETypes."},
			{Name: "supported_realtime_inference_instance_types", Source: "config", Type: "list", Doc: "Real-time instance types (else the inference instance type)."},
			{Name: "supported_transform_instance_types", Source: "config", Type: "list", Doc: "Transform instance types (else the inference instance type)."},
			{Name: "patterns.name_suffix_field", Source: "patterns", Type: "string", Doc: "Config field appended to the step name (Registration-NA)."},
		})},
		settings: settingsStep,
		build:    func(e *buildEnv, p *nodePlan) (any, error) { return e.buildRegisterModel(p) },
		def:      DefinitionKind{Describe: []string{"DescribeModelPackage"}},
		objectFields: []string{"Arguments.InferenceSpecification.Containers[].ModelDataUrl",
			"Arguments.InferenceSpecification.Containers[].Environment.SAGEMAKER_SUBMIT_DIRECTORY", "Arguments.SamplePayloadUrl"},
		inputsPattern: "the packaged model becomes ModelDataUrl, payload samples SamplePayloadUrl",
	},
	{info: BuilderInfo{Verb: catalog.VerbTuning, Name: "TuningStepBuilder", DefinitionType: StepTypeTuning, APIRequest: "CreateHyperParameterTuningJob",
		Knobs: cat(commonKnobs, networkKnobs, imageKnobs, cachingKnobs, codeKnobs, []Knob{
			{Name: "objective_metric_name", Source: "config", Type: "string", Doc: "Metric to optimise (needs a metric definition)."},
			{Name: "objective_type", Source: "config", Type: "string", Default: "Maximize", Doc: "Maximize or Minimize."},
			{Name: "search_space", Source: "config", Type: "map", Doc: "{continuous|integer: {name: [min, max]} or [{name, min, max}], categorical: {name: [values]} or [{name, values}]}; each name is a hyperparameter field of the step."},
			{Name: "metric_definitions", Source: "config", Type: "list", Doc: "[{Name, Regex}] metrics read from the training log."},
			{Name: "tuning_strategy", Source: "config", Type: "string", Default: "Bayesian", Doc: "Bayesian, Random, Hyperband or Grid."},
			{Name: "max_jobs", Source: "config", Type: "int", Default: 20, Doc: "Training jobs in total."},
			{Name: "max_parallel_jobs", Source: "config", Type: "int", Default: 1, Doc: "Training jobs at once."},
			{Name: "early_stopping_type", Source: "config", Type: "string", Default: "Off", Doc: "Off or Auto."},
			{Name: "<hyperparameter fields>", Source: "config", Type: "any", Doc: "Static hyperparameters: the hyperparameter fields with a value, less the tuned ones."},
		})},
		settings:  settingsJob,
		build:     func(e *buildEnv, p *nodePlan) (any, error) { return e.buildTuning(p) },
		cacheable: true,
		def: DefinitionKind{JobNameField: "HyperParameterTuningJobName",
			Describe: []string{"DescribeHyperParameterTuningJob", "ListTrainingJobsForHyperParameterTuningJob"}},
		prefixProperties: []string{"TrainingJobDefinition.OutputDataConfig.S3OutputPath"},
		inputsPattern:    trainingInputs,
		outputsPattern:   trainingOutputs,
	},
	{info: BuilderInfo{Verb: catalog.VerbCondition, Name: "ConditionStepBuilder", DefinitionType: StepTypeCondition,
		Knobs: []Knob{
			{Name: "metric", Source: "config", Type: "string", Doc: "JSON path of the metric in the evaluation step's report (Std:JsonGet's Path)."},
			{Name: "comparison", Source: "config", Type: "string", Default: ">=", Doc: ">=, >, <=, <, == or In (metric against threshold); And, Or or Not (of conditions)."},
			{Name: "threshold", Source: "config", Type: "any", Doc: "A literal, a list for In, or {{Parameters.X}}."},
			{Name: "conditions", Source: "config", Type: "list", Doc: "The conditions And, Or or Not combine: objects of metric, comparison, threshold and conditions."},
			{Name: "failure_message", Source: "config", Type: "string", Doc: "The Fail step's message; {metric} and {threshold} stand for their values."},
			{Name: "report_file", Source: "config", Type: "string", Doc: "The report inside the evaluation output (else the output's report_file)."},
			{Name: "property_file_name", Source: "config", Type: "string", Default: "EvaluationReport", Doc: "The property file declared on the evaluation step."},
			{Name: "fail_step_name", Source: "config", Type: "string", Doc: "The Fail step's name (else <gate>-Fail)."},
		}},
		build: func(e *buildEnv, p *nodePlan) (any, error) { return e.buildCondition(p) },
		def:   DefinitionKind{Properties: []string{"Outcome"}},
	},
	// A Lambda step invokes a function and a Callback step waits on an SQS
	// message's answer: their Arguments are the event (free JSON), checked
	// by the schemas; their properties are the declared output parameters.
	{info: BuilderInfo{Verb: catalog.VerbLambda, Name: "LambdaStepBuilder", DefinitionType: StepTypeLambda,
		Knobs: cat(cachingKnobs, []Knob{
			{Name: "function_arn", Source: "config", Type: "string", Doc: "The function to invoke (FunctionArn); the compiler does not create functions."},
			{Name: "lambda_inputs", Source: "config", Type: "map", Doc: "Static keys of the event, beside each bound input under its name; a value may be {{Parameters.X}}."},
			{Name: "output_parameters", Source: "config", Type: "map", Doc: "{name: String|Integer|Boolean|Float}: the response keys the step exposes (OutputParameters); default: the step's output ports. An output another step reads must be declared."},
		})},
		build:          func(e *buildEnv, p *nodePlan) (any, error) { return e.buildLambda(p) },
		cacheable:      true,
		def:            DefinitionKind{Properties: []string{"OutputParameters", "OutputParameters{}"}},
		inputsPattern:  "each bound input becomes the event key of its name",
		outputsPattern: "OutputParameters['<output>']",
	},
	{info: BuilderInfo{Verb: catalog.VerbCallback, Name: "CallbackStepBuilder", DefinitionType: StepTypeCallback,
		Knobs: cat(cachingKnobs, []Knob{
			{Name: "sqs_queue_url", Source: "config", Type: "string", Doc: "The queue the message with the callback token goes to (SqsQueueUrl)."},
			{Name: "callback_inputs", Source: "config", Type: "map", Doc: "Static keys of the message, beside each bound input under its name; a value may be {{Parameters.X}}."},
			{Name: "output_parameters", Source: "config", Type: "map", Doc: "{name: String|Integer|Boolean|Float}: the output parameters the answer carries (OutputParameters); default: the step's output ports."},
		})},
		build:          func(e *buildEnv, p *nodePlan) (any, error) { return e.buildCallback(p) },
		cacheable:      true,
		def:            DefinitionKind{Properties: []string{"OutputParameters", "OutputParameters{}"}},
		inputsPattern:  "each bound input becomes the message key of its name",
		outputsPattern: "OutputParameters['<output>']",
	},
	// The check steps run a processing job in SageMaker's own image; the
	// SDK checks their Arguments as CreateProcessingJob requests, and their
	// properties are the baselines' S3 URIs (no Describe operation answers
	// for them).
	{info: BuilderInfo{Verb: catalog.VerbQualityCheck, Name: "QualityCheckStepBuilder", DefinitionType: StepTypeQualityCheck, APIRequest: "CreateProcessingJob",
		Knobs: cat(commonKnobs[:3], networkKnobs, cachingKnobs, checkKnobs, []Knob{
			{Name: "dataset_format", Source: "config", Type: "map", Default: map[string]any{"csv": map[string]any{"header": true, "output_columns_position": "START"}}, Doc: "Format of the data set (environment dataset_format)."},
			{Name: "problem_type", Source: "config", Type: "string", Doc: "MODEL_QUALITY: BinaryClassification, MulticlassClassification or Regression; with inference_attribute, probability_attribute, ground_truth_attribute, probability_threshold_attribute."},
			{Name: "record_preprocessor_script", Source: "config", Type: "string", Doc: "DATA_QUALITY: a script applied to each record, uploaded when local."},
			{Name: "post_analytics_processor_script", Source: "config", Type: "string", Doc: "A script run on the results, uploaded when local."},
			{Name: "supplied_baseline_statistics", Source: "config", Type: "string", Doc: "Statistics to check against (SuppliedBaselineStatistics), when no upstream check feeds them."},
		})},
		settings:         settingsTags,
		build:            func(e *buildEnv, p *nodePlan) (any, error) { return e.buildQualityCheck(p) },
		cacheable:        true,
		def:              DefinitionKind{JobNameField: "ProcessingJobName", Properties: []string{"CalculatedBaselineConstraints", "CalculatedBaselineStatistics", "BaselineUsedForDriftCheckStatistics", "BaselineUsedForDriftCheckConstraints"}},
		inputsPattern:    "baseline_dataset at /opt/ml/processing/input/baseline_dataset_input, scripts under /opt/ml/processing/input/<name>",
		outputsPattern:   "quality_check_output: Join(prefix, <type>, quality_check_output); the outputs are the baselines' properties",
		prefixProperties: []string{},
	},
	{info: BuilderInfo{Verb: catalog.VerbClarifyCheck, Name: "ClarifyCheckStepBuilder", DefinitionType: StepTypeClarifyCheck, APIRequest: "CreateProcessingJob",
		Knobs: cat(commonKnobs[:3], networkKnobs, cachingKnobs, checkKnobs, []Knob{
			{Name: "label_name", Source: "config", Type: "any", Doc: "The label column (DataConfig label); with headers, features, dataset_type, excluded_columns."},
			{Name: "label_values_or_threshold", Source: "config", Type: "list", Doc: "Bias checks: the positive label values (BiasConfig); with facet_name, facet_values_or_threshold, group_name, methods."},
			{Name: "clarify_model_instance_type", Source: "config", Type: "string", Default: checkDefaultInstanceType, Doc: "Model checks: the shadow endpoint (ModelConfig); with clarify_model_instance_count, accept_type, content_type, ..."},
			{Name: "shap_baseline", Source: "config", Type: "any", Doc: "MODEL_EXPLAINABILITY: the SHAP baseline; with num_samples, agg_method, use_logit, save_local_shap_values, seed, num_clusters, model_scores."},
		})},
		settings:       settingsTags,
		build:          func(e *buildEnv, p *nodePlan) (any, error) { return e.buildClarifyCheck(p) },
		cacheable:      true,
		def:            DefinitionKind{JobNameField: "ProcessingJobName", Properties: []string{"CalculatedBaselineConstraints", "BaselineUsedForDriftCheckConstraints"}},
		inputsPattern:  "the generated analysis_config.json at /opt/ml/processing/input/config, dataset at /opt/ml/processing/input/data; a model check's model_name becomes the step's ModelName",
		outputsPattern: "analysis_result: Join(prefix, <type>, analysis_result); the outputs are the baselines' properties",
	},
	// An EMR step adds a step to an EMR cluster; its Arguments mirror EMR's
	// AddJobFlowSteps (not a SageMaker request), its properties EMR's Step.
	{info: BuilderInfo{Verb: catalog.VerbEMR, Name: "EMRStepBuilder", DefinitionType: StepTypeEMR, APIRequest: "AddJobFlowSteps",
		Knobs: cat(cachingKnobs, []Knob{
			{Name: "emr_cluster_id", Source: "config", Type: "string", Doc: "A running cluster (ClusterId), with execution_role_arn; or cluster_config."},
			{Name: "cluster_config", Source: "config", Type: "map", Doc: "A cluster created for the step (ClusterConfig: RunJobFlow's request less Name, Steps, AutoTerminationPolicy)."},
			{Name: "emr_jar", Source: "config", Type: "string", Default: "command-runner.jar", Doc: "HadoopJarStep.Jar."},
			{Name: "emr_args", Source: "config", Type: "list", Doc: "HadoopJarStep.Args; {<input>} stands for that bound input's S3 URI."},
			{Name: "emr_main_class", Source: "config", Type: "string", Doc: "HadoopJarStep.MainClass."},
			{Name: "emr_step_properties", Source: "config", Type: "map", Doc: "HadoopJarStep.Properties."},
		})},
		settings:      settingsStep,
		build:         func(e *buildEnv, p *nodePlan) (any, error) { return e.buildEMR(p) },
		cacheable:     true,
		def:           DefinitionKind{Shape: "emr:Step"},
		inputsPattern: "a bound input replaces {<input>} in emr_args",
	},
	// The Fail step of a gate's else branch (buildCondition emits it): it
	// has no properties.
	{info: BuilderInfo{DefinitionType: StepTypeFail}},
}

// checkKnobs are what every check step reads (the SDK's CheckJobConfig and
// the step's own arguments).
var checkKnobs = []Knob{
	{Name: "check_type", Source: "config", Type: "string", Doc: "CheckType (the step type fixes it)."},
	{Name: "check_instance_type", Source: "config", Type: "string", Default: checkDefaultInstanceType, Doc: "Instance type of the check's job; with check_instance_count, check_volume_size, check_max_runtime_seconds."},
	{Name: "image_uri", Source: "config", Type: "string", Doc: "An image to run instead of the region's model monitor or Clarify image."},
	{Name: "skip_check", Source: "config", Type: "bool", Default: false, Doc: "SkipCheck (a Boolean parameter may stand for it)."},
	{Name: "fail_on_violation", Source: "config", Type: "bool", Default: true, Doc: "FailOnViolation."},
	{Name: "register_new_baseline", Source: "config", Type: "bool", Default: false, Doc: "RegisterNewBaseline."},
	{Name: "model_package_group_name", Source: "config", Type: "string", Doc: "ModelPackageGroupName whose approved model's baseline is checked against."},
	{Name: "supplied_baseline_constraints", Source: "config", Type: "string", Doc: "Constraints to check against (SuppliedBaselineConstraints), when no upstream check feeds them."},
}

// The input and output patterns of the kinds that run a training job
// (Training, and Tuning's trials).
const (
	trainingInputs  = "one training channel per channel of each input (input_path -> train/val/test)"
	trainingOutputs = "estimator output path Join(base, <token>)"
)

func cat(lists ...[]Knob) []Knob {
	var out []Knob
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// Builders returns every builder of the compiler, in catalog.Verbs order.
// The result is a copy.
func Builders() []BuilderInfo {
	var out []BuilderInfo
	for _, v := range catalog.Verbs {
		if k := kindOfVerb(v); k != nil {
			b := k.info
			b.Knobs = append([]Knob(nil), b.Knobs...)
			b.Assemblies = append([]string(nil), b.Assemblies...)
			out = append(out, b)
		}
	}
	return out
}

// Builder returns the builder of one verb.
func Builder(v catalog.Verb) (BuilderInfo, bool) {
	if k := kindOfVerb(v); k != nil {
		return k.info, true
	}
	return BuilderInfo{}, false
}

// HasBuilder reports whether the compiler can build steps of verb v.
func HasBuilder(v catalog.Verb) bool { return kindOfVerb(v) != nil }

// builderName is the builder a verb is built by ("" when none).
func builderName(v catalog.Verb) string {
	if k := kindOfVerb(v); k != nil {
		return k.info.Name
	}
	return ""
}

// kindOfVerb is the row that builds verb v (nil when none).
func kindOfVerb(v catalog.Verb) *kind {
	if v == "" {
		return nil
	}
	for i := range kinds {
		if kinds[i].info.Verb == v {
			return &kinds[i]
		}
	}
	return nil
}

// kindOfType is the row of a definition step Type (nil when none).
func kindOfType(typ string) *kind {
	for i := range kinds {
		if kinds[i].info.DefinitionType == typ {
			return &kinds[i]
		}
	}
	return nil
}

// DefinitionKinds returns what the compiler knows of every step Type it
// emits, in table order. The result is a copy.
func DefinitionKinds() []DefinitionKind {
	out := make([]DefinitionKind, len(kinds))
	for i, k := range kinds {
		d := k.def
		d.Type, d.Verb, d.APIRequest = k.info.DefinitionType, k.info.Verb, k.info.APIRequest
		d.Describe = append([]string(nil), d.Describe...)
		d.Properties = append([]string(nil), d.Properties...)
		out[i] = d
	}
	return out
}
