package compiler

import "github.com/cursus-go/cursus/engine/catalog"

// BuilderInfo describes one step builder of the compiler.
type BuilderInfo struct {
	Verb           catalog.Verb `json:"verb"`            // the SageMaker verb it builds (routing key)
	Name           string       `json:"name"`            // "ProcessingStepBuilder", as in NodeReport.Builder
	DefinitionType string       `json:"definition_type"` // the Step.Type it emits: Processing, Training, Model, ...
	APIRequest     string       `json:"api_request"`     // the SageMaker request its Arguments mirror
	// Assemblies lists the patterns.step_assembly values it accepts
	// (Processing only). Both build the same CreateProcessingJob arguments:
	// the original's two ways of making a ProcessingStep differ only inside
	// the SDK.
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
	{Name: "compute.locked_region", Source: "compute", Type: "string", Doc: "Region whose image is used whatever the config's region."},
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

var builders = []BuilderInfo{
	{Verb: catalog.VerbProcessing, Name: "ProcessingStepBuilder", DefinitionType: StepTypeProcessing, APIRequest: "CreateProcessingJob",
		Assemblies: []string{"code", "step_args"},
		Knobs: cat(commonKnobs, networkKnobs, imageKnobs, cachingKnobs, codeKnobs, []Knob{
			{Name: "contract.source_dir", Source: "contract", Type: "bool", Default: false, Doc: "Upload the whole source directory (an S3 prefix mounted at /opt/ml/processing/input/code) instead of the script alone."},
			{Name: "contract.job_arguments", Source: "contract", Type: "list", Doc: "Script arguments (flag, config field)."},
			{Name: "processing_script_arguments", Source: "config", Type: "list", Doc: "Extra script arguments appended after the declared ones."},
			{Name: "patterns.output_path_token", Source: "patterns", Type: "string", Doc: "Send every output to <prefix>/<token>."},
			{Name: "skip_<input>", Source: "config", Type: "bool", Doc: "Drop that input."},
		})},
	{Verb: catalog.VerbTraining, Name: "TrainingStepBuilder", DefinitionType: StepTypeTraining, APIRequest: "CreateTrainingJob",
		Knobs: cat(commonKnobs, networkKnobs, imageKnobs, cachingKnobs, codeKnobs, []Knob{
			{Name: "<hyperparameter fields>", Source: "config", Type: "any", Doc: "Every field marked hyperparameter with a value (config or default), under its name, JSON-encoded as framework estimators do; a {{Parameters.X}} value is passed as the parameter, as text. A step that still declares the free-form hyperparameters object passes its keys too."},
			{Name: "skip_<input>", Source: "config", Type: "bool", Doc: "Drop that input (skip_hyperparameters_s3_uri)."},
		})},
	{Verb: catalog.VerbCreateModel, Name: "CreateModelStepBuilder", DefinitionType: StepTypeModel, APIRequest: "CreateModel",
		Knobs: cat(commonKnobs, networkKnobs, imageKnobs, codeKnobs[:2])},
	{Verb: catalog.VerbTransform, Name: "TransformStepBuilder", DefinitionType: StepTypeTransform, APIRequest: "CreateTransformJob",
		Knobs: cat(commonKnobs, cachingKnobs, []Knob{
			{Name: "content_type", Source: "config", Type: "string", Default: "text/csv", Doc: "TransformInput.ContentType."},
			{Name: "split_type", Source: "config", Type: "string", Default: "Line", Doc: "TransformInput.SplitType."},
			{Name: "accept", Source: "config", Type: "string", Default: "text/csv", Doc: "TransformOutput.Accept."},
			{Name: "assemble_with", Source: "config", Type: "string", Default: "Line", Doc: "TransformOutput.AssembleWith."},
			{Name: "input_filter", Source: "config", Type: "string", Default: "$[1:]", Doc: "DataProcessing.InputFilter."},
			{Name: "output_filter", Source: "config", Type: "string", Default: "$[-1]", Doc: "DataProcessing.OutputFilter."},
			{Name: "join_source", Source: "config", Type: "string", Default: "Input", Doc: "DataProcessing.JoinSource."},
		})},
	{Verb: catalog.VerbRegisterModel, Name: "RegisterModelStepBuilder", DefinitionType: StepTypeRegisterModel, APIRequest: "CreateModelPackage",
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
	{Verb: catalog.VerbTuning, Name: "TuningStepBuilder", DefinitionType: StepTypeTuning, APIRequest: "CreateHyperParameterTuningJob",
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
}

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
	out := make([]BuilderInfo, len(builders))
	for i, b := range builders {
		b.Knobs = append([]Knob(nil), b.Knobs...)
		b.Assemblies = append([]string(nil), b.Assemblies...)
		out[i] = b
	}
	return out
}

// Builder returns the builder of one verb.
func Builder(v catalog.Verb) (BuilderInfo, bool) {
	for _, b := range builders {
		if b.Verb == v {
			return b, true
		}
	}
	return BuilderInfo{}, false
}
