package catalog

// This file declares the typed model of a step-interface file. The YAML
// format is ours (see doc.go and the embedded steps/*.step.yaml files); the
// loader decodes each file into a StepFile, applies shared field sets and
// job-type variants, validates the result and exposes it as a *Step.

// StepType is the canonical PascalCase name of a step type
// ("TabularPreprocessing"). It is the catalog key and the name of the
// step-interface file.
type StepType string

// NodeName is the name of a DAG node ("TabularPreprocessing_training"):
// the node names of package dag, the consumers and providers of package
// deps and the nodes of a compile are of this type. Catalog.ResolveNode
// maps one to a step type and a job type.
type NodeName string

// ConfigKey is the key of a step's entry in config.json's `specific`
// section, `<Canonical>_<job_type>` or `<Canonical>` without a job type.
type ConfigKey string

// SageMakerStepName is the step's name in the SageMaker definition
// ("TabularPreprocessing-Training"); every {"Get": "Steps.<name>..."}
// reference uses it.
type SageMakerStepName string

// NodeKind says where a step may stand in a DAG.
type NodeKind string

// Node kinds.
const (
	NodeSource   NodeKind = "source"   // no inputs from other steps
	NodeInternal NodeKind = "internal" // inputs and outputs
	NodeSink     NodeKind = "sink"     // no outputs consumed by other steps
)

// DependencyType classifies what flows through a port; the resolver scores
// matching types highest.
type DependencyType string

// Dependency types: the kinds of data a port carries, which the resolver
// matches between an output and an input.
const (
	DepModelArtifacts   DependencyType = "model_artifacts"
	DepProcessingOutput DependencyType = "processing_output"
	DepTrainingData     DependencyType = "training_data"
	DepHyperparameters  DependencyType = "hyperparameters"
	DepPayloadSamples   DependencyType = "payload_samples"
	DepCustomProperty   DependencyType = "custom_property"
)

// DependencyTypes lists every dependency type.
var DependencyTypes = []DependencyType{DepModelArtifacts, DepProcessingOutput, DepTrainingData, DepHyperparameters, DepPayloadSamples, DepCustomProperty}

// FieldTier is the tier of a config field.
type FieldTier string

// Config field tiers.
const (
	TierEssential FieldTier = "essential" // the user must supply it
	TierSystem    FieldTier = "system"    // has a default the user may override
	TierDerived   FieldTier = "derived"   // computed from other fields; read-only
)

// FieldType is the JSON type of a config field value.
type FieldType string

// Config field types.
const (
	FieldString FieldType = "string"
	FieldInt    FieldType = "int"
	FieldFloat  FieldType = "float"
	FieldBool   FieldType = "bool"
	FieldList   FieldType = "list" // JSON array (usually of strings)
	FieldMap    FieldType = "map"  // JSON object
	FieldAny    FieldType = "any"
)

// ConfigField declares one config field of a step (or of a shared field set).
type ConfigField struct {
	Name        string    `yaml:"name" json:"name"`
	Type        FieldType `yaml:"type" json:"type"`
	Tier        FieldTier `yaml:"tier" json:"tier"`
	Default     any       `yaml:"default,omitempty" json:"default,omitempty"`
	Allowed     []any     `yaml:"allowed,omitempty" json:"allowed_values,omitempty"`
	Min         *float64  `yaml:"min,omitempty" json:"min,omitempty"`
	Max         *float64  `yaml:"max,omitempty" json:"max,omitempty"`
	Pattern     string    `yaml:"pattern,omitempty" json:"pattern,omitempty"`
	Derivation  string    `yaml:"derive,omitempty" json:"derivation,omitempty"` // derived fields: the template that computes the value; system fields: a dynamic default (see ExpandDerivation)
	Description string    `yaml:"description" json:"description"`
	// Hyperparameter marks a field of a Training or Tuning step whose value
	// the compiler passes to the job as a hyperparameter named like the
	// field (JSON-encoded, as the SDK's framework estimators do).
	Hyperparameter bool   `yaml:"hyperparameter,omitempty" json:"hyperparameter,omitempty"`
	Source         string `yaml:"-" json:"source"` // where the field was declared: "fieldset:<name>" or "step"
}

// Required reports whether the field must be supplied (essential tier).
func (f ConfigField) Required() bool { return f.Tier == TierEssential }

// InputPort is one input of a step: where the script reads it in the
// container and how the resolver matches it to an upstream output. A port is
// declared once, so its container path and resolver metadata cannot drift.
type InputPort struct {
	LogicalName       string         `yaml:"name" json:"logical_name"`
	Type              DependencyType `yaml:"type" json:"dependency_type"`
	DataType          string         `yaml:"data_type,omitempty" json:"data_type"` // default "S3Uri"
	ContainerPath     string         `yaml:"path,omitempty" json:"container_path,omitempty"`
	Required          bool           `yaml:"required" json:"required"`
	Channels          []string       `yaml:"channels,omitempty" json:"channels,omitempty"` // training fan-out: <s3>/<channel>/
	CompatibleSources []string       `yaml:"compatible_sources,omitempty" json:"compatible_sources"`
	// CompatibleOutputTypes are output types the input accepts beyond the
	// ones its own type takes (an opt-in: a processing_output input that
	// also takes model_artifacts); the resolver scores such a pair as
	// compatible types instead of 0.
	CompatibleOutputTypes []DependencyType `yaml:"compatible_output_types,omitempty" json:"compatible_output_types,omitempty"`
	SemanticKeywords      []string         `yaml:"keywords,omitempty" json:"semantic_keywords"`
	Aliases               []string         `yaml:"aliases,omitempty" json:"aliases,omitempty"`
	ConfigSource          string           `yaml:"config_source,omitempty" json:"config_source,omitempty"` // input supplied from a config field instead of an upstream step
	Description           string           `yaml:"description,omitempty" json:"description"`
}

// OutputPort is one output of a step.
type OutputPort struct {
	LogicalName      string         `yaml:"name" json:"logical_name"`
	Type             DependencyType `yaml:"type" json:"output_type"`
	DataType         string         `yaml:"data_type,omitempty" json:"data_type"`
	ContainerPath    string         `yaml:"path,omitempty" json:"container_path,omitempty"`
	PropertyPath     string         `yaml:"property_path" json:"property_path"` // always starts "properties."
	Aliases          []string       `yaml:"aliases,omitempty" json:"aliases"`
	SemanticKeywords []string       `yaml:"keywords,omitempty" json:"semantic_keywords,omitempty"`
	// URIJoin, when set, says the output's S3 URI is not the property itself but
	// Std:Join("/", [<the step's output path>, Get(property_path), URIJoin...]);
	// a tuning step's best model is the only user today.
	URIJoin []string `yaml:"uri_join,omitempty" json:"uri_join,omitempty"`
	// ReportFile names a JSON report inside the output (a path relative to
	// it, e.g. metrics.json) that a quality gate downstream may read: the
	// compiler declares it as the step's property file and the gate's
	// condition reads it with Std:JsonGet. Processing outputs only.
	ReportFile  string `yaml:"report_file,omitempty" json:"report_file,omitempty"`
	Description string `yaml:"description,omitempty" json:"description"`
}

// Compute describes the SageMaker compute a step uses. Every value the
// compiler needs comes from config fields; this names which ones. The loader
// fills the instance and version fields with the per-verb defaults listed in
// doc.go, so after loading every field the verb needs is set.
type Compute struct {
	// Kind is the compute pattern: sklearn | xgboost | framework | script |
	// byo_container (Processing), estimator (Training), tuner (Tuning), model (CreateModel),
	// transformer (Transform), model_package (RegisterModel).
	Kind string `yaml:"kind" json:"kind"`
	// ContainerEntrypoint is the command a byo_container processing job
	// runs in its own image (AppSpecification.ContainerEntrypoint, e.g.
	// [bash, /opt/ml/processing/input/code/entrypoint.sh]); the step's
	// code, when it has a source directory, is mounted at
	// /opt/ml/processing/input/code. A config field
	// container_entrypoint, when the step has one and it is set, wins.
	ContainerEntrypoint []string `yaml:"container_entrypoint,omitempty" json:"container_entrypoint,omitempty"`
	// SDKClass is the framework class for kinds framework/estimator/tuner/model:
	// XGBoost | PyTorch | SKLearn | XGBoostModel | PyTorchModel.
	SDKClass string `yaml:"sdk_class,omitempty" json:"sdk_class,omitempty"`
	// Framework is the container image framework (the image-URI table to
	// use): sklearn | xgboost | pytorch | none.
	Framework string `yaml:"framework" json:"framework"`
	// FrameworkField, when set, names a config field whose value overrides
	// Framework (RegisterModel: the registered model's framework).
	FrameworkField          string `yaml:"framework_field,omitempty" json:"framework_field,omitempty"`
	FrameworkVersionField   string `yaml:"framework_version_field,omitempty" json:"framework_version_field,omitempty"`
	FrameworkVersionDefault string `yaml:"framework_version_default,omitempty" json:"framework_version_default,omitempty"`
	PyVersionField          string `yaml:"py_version_field,omitempty" json:"py_version_field,omitempty"`
	ImageURIField           string `yaml:"image_uri_field,omitempty" json:"image_uri_field,omitempty"` // a set value replaces the retrieved image
	// ImageScope is the image-URI scope: training | inference (default by verb).
	ImageScope string `yaml:"image_scope,omitempty" json:"image_scope,omitempty"`
	// InstanceTypeField names a fixed instance-type field. Processing steps
	// instead pick between LargeInstanceTypeField and SmallInstanceTypeField
	// by the boolean UseLargeInstanceField.
	InstanceTypeField      string `yaml:"instance_type_field,omitempty" json:"instance_type_field,omitempty"`
	LargeInstanceTypeField string `yaml:"large_instance_type_field,omitempty" json:"large_instance_type_field,omitempty"`
	SmallInstanceTypeField string `yaml:"small_instance_type_field,omitempty" json:"small_instance_type_field,omitempty"`
	UseLargeInstanceField  string `yaml:"use_large_instance_field,omitempty" json:"use_large_instance_field,omitempty"`
	InstanceCountField     string `yaml:"instance_count_field,omitempty" json:"instance_count_field,omitempty"`
	VolumeSizeField        string `yaml:"volume_size_field,omitempty" json:"volume_size_field,omitempty"`
	MaxRuntimeField        string `yaml:"max_runtime_field,omitempty" json:"max_runtime_field,omitempty"`
}

// JobArgument is one command-line argument passed to the script.
type JobArgument struct {
	Flag   string `yaml:"flag" json:"flag"`
	Source string `yaml:"source" json:"source"` // config field name
}

// EnvVar is one environment variable the script reads. Its value comes
// from config field Field (default: the lowercased name, see doc.go);
// an optional variable falls back to Default when the config has no value.
type EnvVar struct {
	Name        string `yaml:"name" json:"name"`
	Required    bool   `yaml:"required,omitempty" json:"required"`
	Default     string `yaml:"default,omitempty" json:"default,omitempty"`
	Field       string `yaml:"field,omitempty" json:"field"` // filled by the loader
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
}

// Contract is the script side of a step: the entry point and what the
// script reads from its environment.
type Contract struct {
	EntryPoint string `yaml:"entry_point,omitempty" json:"entry_point,omitempty"`
	// EntryPointField is the config field holding the entry point (its
	// default equals EntryPoint). Filled per verb by the loader.
	EntryPointField string `yaml:"entry_point_field,omitempty" json:"entry_point_field,omitempty"`
	// SourceDir true: upload the whole source directory with the script
	// (FrameworkProcessor entry_point + source_dir), not only the script.
	SourceDir bool `yaml:"source_dir,omitempty" json:"source_dir,omitempty"`
	// SourceDirField is the config field holding the source directory.
	SourceDirField string            `yaml:"source_dir_field,omitempty" json:"source_dir_field,omitempty"`
	Env            []EnvVar          `yaml:"env,omitempty" json:"env"`
	RequiredEnv    []string          `yaml:"-" json:"required_env_vars"` // names of the required Env entries, in order
	OptionalEnv    map[string]string `yaml:"-" json:"optional_env_vars"` // optional Env entries: name -> default
	JobArguments   []JobArgument     `yaml:"job_arguments,omitempty" json:"job_arguments"`
	Requirements   []string          `yaml:"requirements,omitempty" json:"framework_requirements,omitempty"`
	// RequirementsFile is a pip requirements file of the code root
	// (requirements/lightgbm.txt) that the compiler packs, as
	// requirements.txt, beside the catalog's script and into the serving
	// code of the models the step trains or serves: what the framework
	// image lacks, which its container installs before the code runs
	// (WithRequirements). A job that needs it must reach a package index.
	RequirementsFile string `yaml:"requirements_file,omitempty" json:"requirements_file,omitempty"`
	// Permissions are what the job role needs beyond SageMaker's own
	// (bedrock:InvokeModel on the model, ...), each with the resource it
	// applies to; the compile warns of them (documentation: a compile
	// cannot read the role's policies).
	Permissions []string `yaml:"permissions,omitempty" json:"role_permissions,omitempty"`
	Description string   `yaml:"description,omitempty" json:"description,omitempty"`
}

// EnvVar returns the declared environment variable with that name.
func (c *Contract) EnvVar(name string) (*EnvVar, bool) {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i], true
		}
	}
	return nil, false
}

// Patterns are the construction knobs of a step (how the compiler assembles
// it), separate from what it reads and writes.
type Patterns struct {
	// StepAssembly (Processing only): code (ProcessingStep with code=script)
	// or step_args (processor.run(...) wrapped in a ProcessingStep).
	StepAssembly string `yaml:"step_assembly,omitempty" json:"step_assembly,omitempty"`
	// IncludeJobTypeInPath (default true) is kept as metadata only: output
	// destinations always carry the job type, so two job types of one step
	// never write to the same prefix.
	IncludeJobTypeInPath *bool `yaml:"include_job_type_in_path,omitempty" json:"include_job_type_in_path,omitempty"`
	// DirectInputKeys are logical inputs a caller may pass directly.
	DirectInputKeys []string `yaml:"direct_input_keys,omitempty" json:"direct_input_keys,omitempty"`
	// OutputPathToken, when set, sends every output to <prefix>/<token>.
	OutputPathToken string `yaml:"output_path_token,omitempty" json:"output_path_token,omitempty"`
	// NameSuffixField, when set, names a config field whose value is appended
	// to the SageMaker step name ("Registration-NA" with region).
	NameSuffixField string `yaml:"name_suffix_field,omitempty" json:"name_suffix_field,omitempty"`
}

// JobTypeInPath reports IncludeJobTypeInPath with its default (true).
func (p Patterns) JobTypeInPath() bool {
	return p.IncludeJobTypeInPath == nil || *p.IncludeJobTypeInPath
}

// Variant is a job-type specific override of a step, deep-merged over the
// base definition when the step is used with that job type.
type Variant struct {
	Inputs  map[string]InputPortPatch  `yaml:"inputs,omitempty" json:"inputs,omitempty"`
	Outputs map[string]OutputPortPatch `yaml:"outputs,omitempty" json:"outputs,omitempty"`
	Env     map[string]string          `yaml:"env_defaults,omitempty" json:"env_defaults,omitempty"` // optional env var -> new default
	// Description says what the variant changes.
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
}

// InputPortPatch changes some attributes of an input port in a variant.
type InputPortPatch struct {
	Required          *bool    `yaml:"required,omitempty" json:"required,omitempty"`
	CompatibleSources []string `yaml:"compatible_sources,omitempty" json:"compatible_sources,omitempty"`
	SemanticKeywords  []string `yaml:"keywords,omitempty" json:"semantic_keywords,omitempty"`
	Aliases           []string `yaml:"aliases,omitempty" json:"aliases,omitempty"`
	Description       string   `yaml:"description,omitempty" json:"description,omitempty"`
}

// OutputPortPatch changes some attributes of an output port in a variant.
type OutputPortPatch struct {
	Aliases          []string `yaml:"aliases,omitempty" json:"aliases,omitempty"`
	SemanticKeywords []string `yaml:"keywords,omitempty" json:"semantic_keywords,omitempty"`
}

// Step is one resolved step type: the file's declarations with shared field
// sets applied. Variant-specific views are obtained with Step.ForJobType.
// A *Step is immutable once loaded; do not modify it.
type Step struct {
	Type        StepType           `json:"step_type"`
	Verb        Verb               `json:"sagemaker_step_type"`
	Kind        NodeKind           `json:"node_type"`
	Description string             `json:"description"`
	Framework   string             `json:"framework,omitempty"`
	ConfigClass string             `json:"config_class"`      // default <Type>Config
	BuilderName string             `json:"builder_step_name"` // default <Type>StepBuilder
	FieldSets   []string           `json:"field_sets"`        // shared field sets extended, in order
	Inputs      []InputPort        `json:"inputs"`
	Outputs     []OutputPort       `json:"outputs"`
	Patterns    Patterns           `json:"patterns"`
	Compute     Compute            `json:"compute"`
	Contract    Contract           `json:"contract"`
	Fields      []ConfigField      `json:"config_fields"` // shared sets first, then the step's own; later declarations override earlier ones by name
	JobTypes    []string           `json:"job_types"`     // job types the step declares (variants and documented ones)
	Variants    map[string]Variant `json:"variants,omitempty"`
	Aliases     []string           `json:"aliases,omitempty"` // legacy names that resolve to this step
	Keywords    []string           `json:"keywords,omitempty"`
	Source      string             `json:"source"`       // "embedded:<file>" or the workspace file path
	WorkspaceID string             `json:"workspace_id"` // "core" for embedded steps
	// JobType is the job type this view was resolved for by ForJobType
	// ("" for the base definition).
	JobType string `json:"job_type,omitempty"`
	// Overrides is set on a workspace step that replaced an embedded one.
	Overrides string `json:"overrides,omitempty"`

	fieldIndex map[string]int // name -> index in Fields
	variants   map[string]*Step
}
