package catalog

// This file is the catalog's table of SageMaker step kinds: one VerbInfo
// row per verb says everything the loader, the validator and the packages
// above the catalog (execdoc, author, validation) need to know about steps
// of that verb. Adding a kind adds a row here; nothing else in the catalog
// switches on a verb. The compiler has its own row per kind
// (engine/compiler/kinds.go); CONTRIBUTING.md lists every file a new kind
// touches.

// Verb is the SageMaker step verb a step compiles to.
type Verb string

// The SageMaker verbs a step can compile to.
const (
	VerbProcessing    Verb = "Processing"
	VerbTraining      Verb = "Training"
	VerbCreateModel   Verb = "CreateModel"
	VerbTransform     Verb = "Transform"
	VerbRegisterModel Verb = "RegisterModel"
	VerbTuning        Verb = "Tuning"
	VerbCondition     Verb = "Condition"
	VerbLambda        Verb = "Lambda"
	VerbCallback      Verb = "Callback"
	VerbQualityCheck  Verb = "QualityCheck"
	VerbClarifyCheck  Verb = "ClarifyCheck"
	VerbEMR           Verb = "EMR"
)

// ScriptRule says whether a step of a verb runs a script of its own.
type ScriptRule string

// Script rules.
const (
	ScriptRequired ScriptRule = "required" // the job runs the step's entry point (Processing, Training, Tuning)
	ScriptServing  ScriptRule = "serving"  // the entry point, if any, is an inference handler (CreateModel)
	ScriptNone     ScriptRule = "none"     // no script of its own (Transform, RegisterModel, Condition)
)

// VerbInfo is what the catalog knows about one SageMaker step kind.
type VerbInfo struct {
	Verb Verb
	// FieldSet is the field set a step file of this verb extends when it
	// names none.
	FieldSet string
	// ComputeKinds are the compute.kind values a step may declare, the
	// first being the usual one.
	ComputeKinds []string
	// Script says whether the step runs a script of its own.
	Script ScriptRule
	// InputRoots and OutputRoots are the container path roots a port may
	// use; nil: the verb runs no container of ours and ports carry no path.
	InputRoots, OutputRoots []string
	// PropertyRoots are the first segments an output's property path may
	// name: fields of the Describe response of the verb's job. Processing
	// outputs always use ProcessingPropertyPath.
	PropertyRoots []string
	// NeedsInstanceType, NeedsInstanceCount and NeedsVolumeSize say which
	// compute fields a step must name (an instance type may be the
	// large/small/use-large trio of Processing steps).
	NeedsInstanceType, NeedsInstanceCount, NeedsVolumeSize bool
	// Training marks verbs whose jobs train: they take hyperparameter
	// fields, their inputs fan out into channels, they pass no
	// command-line arguments and write model artefacts.
	Training bool
	// Control marks a verb that runs no job but decides which steps run
	// (Condition): the DAG nodes downstream of such a node are its branch,
	// and its edges carry no data (see engine/dag.Branches).
	Control bool
	// OutputParameters marks a verb whose outputs are output parameters
	// (OutputParameters['<name>']: Lambda, Callback): an output's data_type
	// may also be Integer, Boolean or Float, its OutputType.
	OutputParameters bool
	// Exemplar is the catalog step authors of a new step of this verb are
	// pointed to.
	Exemplar StepType
	// Label is the STEP_TYPE label of the verb in execution documents.
	Label string
	// Defaults name the config fields the loader fills empty compute and
	// contract fields with when the step has them (doc.go).
	Defaults VerbDefaults
}

// VerbDefaults are the per-verb compute and contract defaults: config
// field names, except ImageScope and Framework.
type VerbDefaults struct {
	ImageScope, Framework                                    string
	InstanceType, LargeType, SmallType, UseLarge, Count, Vol string
	FwVersion, PyVersion, EntryPoint, SourceDir, MaxRuntime  string
}

// Container path roots (doc.go, "Container paths").
var (
	processingInputRoot  = "/opt/ml/processing/input"
	processingOutputRoot = "/opt/ml/processing/output"
	processingCodeDir    = "/opt/ml/processing/input/code"
	trainingDataRoot     = "/opt/ml/input/data"
	trainingInputRoots   = []string{"/opt/ml/input/data", "/opt/ml/input/config", "/opt/ml/code"}
	trainingOutputRoots  = []string{"/opt/ml/model", "/opt/ml/output/data", "/opt/ml/checkpoints"}
)

// verbs is the table, in the stable order Verbs lists.
var verbs = []VerbInfo{
	{Verb: VerbProcessing, FieldSet: "processing", ComputeKinds: []string{"sklearn", "xgboost", "framework", "script", "byo_container"},
		Script: ScriptRequired, InputRoots: []string{processingInputRoot}, OutputRoots: []string{processingOutputRoot},
		PropertyRoots: []string{"ProcessingOutputConfig"}, NeedsInstanceType: true, NeedsInstanceCount: true, NeedsVolumeSize: true,
		Exemplar: "TabularPreprocessing", Label: "PROCESSING_STEP",
		Defaults: VerbDefaults{ImageScope: "training", LargeType: "processing_instance_type_large", SmallType: "processing_instance_type_small",
			UseLarge: "use_large_processing_instance", Count: "processing_instance_count", Vol: "processing_volume_size",
			EntryPoint: "processing_entry_point", SourceDir: "effective_source_dir", MaxRuntime: "max_runtime_seconds"}},
	{Verb: VerbTraining, FieldSet: "training", ComputeKinds: []string{"estimator"},
		Script: ScriptRequired, InputRoots: trainingInputRoots, OutputRoots: trainingOutputRoots,
		PropertyRoots:     []string{"ModelArtifacts", "OutputDataConfig", "CheckpointConfig", "TrainingJobName", "TrainingJobArn", "FinalMetricDataList"},
		NeedsInstanceType: true, NeedsInstanceCount: true, Training: true, Exemplar: "XGBoostTraining", Label: "TRAINING_STEP",
		Defaults: VerbDefaults{ImageScope: "training", InstanceType: "training_instance_type", Count: "training_instance_count", Vol: "training_volume_size",
			FwVersion: "framework_version", PyVersion: "py_version", EntryPoint: "training_entry_point", SourceDir: "effective_source_dir", MaxRuntime: "max_runtime_seconds"}},
	{Verb: VerbCreateModel, FieldSet: "model", ComputeKinds: []string{"model"}, Script: ScriptServing,
		PropertyRoots: []string{"ModelName", "ModelArn"}, NeedsInstanceType: true, Exemplar: "XGBoostModel", Label: "CREATE_MODEL_STEP",
		Defaults: VerbDefaults{ImageScope: "inference", InstanceType: "instance_type", FwVersion: "framework_version", PyVersion: "py_version",
			EntryPoint: "entry_point", SourceDir: "effective_source_dir"}},
	{Verb: VerbTransform, FieldSet: "base", ComputeKinds: []string{"transformer"}, Script: ScriptNone,
		PropertyRoots: []string{"TransformOutput", "TransformJobName", "TransformJobArn"}, NeedsInstanceType: true, NeedsInstanceCount: true,
		Exemplar: "BatchTransform", Label: "TRANSFORM_STEP",
		Defaults: VerbDefaults{ImageScope: "inference", InstanceType: "transform_instance_type", Count: "transform_instance_count", Framework: "none"}},
	{Verb: VerbRegisterModel, FieldSet: "base", ComputeKinds: []string{"model_package"}, Script: ScriptNone,
		PropertyRoots: []string{"ModelPackageArn", "ModelPackageName", "ModelPackageGroupName"}, Exemplar: "Registration", Label: "REGISTER_MODEL_STEP",
		Defaults: VerbDefaults{ImageScope: "inference", InstanceType: "inference_instance_type", FwVersion: "framework_version", PyVersion: "py_version"}},
	{Verb: VerbTuning, FieldSet: "tuning", ComputeKinds: []string{"tuner"},
		Script: ScriptRequired, InputRoots: trainingInputRoots, OutputRoots: trainingOutputRoots,
		PropertyRoots:     []string{"BestTrainingJob", "HyperParameterTuningJobName", "HyperParameterTuningJobArn", "TrainingJobSummaries"},
		NeedsInstanceType: true, NeedsInstanceCount: true, Training: true, Exemplar: "XGBoostTuning", Label: "TUNING_STEP",
		Defaults: VerbDefaults{ImageScope: "training", InstanceType: "training_instance_type", Count: "training_instance_count", Vol: "training_volume_size",
			FwVersion: "framework_version", PyVersion: "py_version", EntryPoint: "training_entry_point", SourceDir: "effective_source_dir", MaxRuntime: "max_runtime_seconds"}},
	// A Condition step runs no job: it reads an upstream step's report (a
	// property file) and decides whether the steps downstream of it run.
	// Its only property is its Outcome.
	{Verb: VerbCondition, FieldSet: "base", ComputeKinds: []string{"condition"}, Script: ScriptNone,
		PropertyRoots: []string{"Outcome"}, Control: true, Exemplar: "ModelQualityGate", Label: "CONDITION_STEP",
		Defaults: VerbDefaults{Framework: "none"}},
	// A Lambda step invokes a function: its inputs become the function's
	// event (the step's Arguments), its outputs are the function's output
	// parameters (OutputParameters['<name>']).
	{Verb: VerbLambda, FieldSet: "base", ComputeKinds: []string{"lambda"}, Script: ScriptNone,
		PropertyRoots: []string{"OutputParameters"}, OutputParameters: true, Exemplar: "LambdaInvocation", Label: "LAMBDA_STEP",
		Defaults: VerbDefaults{Framework: "none"}},
	// A Callback step sends its inputs to an SQS queue and waits until
	// something outside the pipeline answers with its output parameters.
	{Verb: VerbCallback, FieldSet: "base", ComputeKinds: []string{"callback"}, Script: ScriptNone,
		PropertyRoots: []string{"OutputParameters"}, OutputParameters: true, Exemplar: "ExternalCallback", Label: "CALLBACK_STEP",
		Defaults: VerbDefaults{Framework: "none"}},
	// The check steps run a processing job in SageMaker's own image
	// (model monitor, Clarify): no script of ours, ports without paths (the
	// image's paths are fixed), and the baselines they compute as
	// properties.
	{Verb: VerbQualityCheck, FieldSet: "check", ComputeKinds: []string{"model_monitor"}, Script: ScriptNone,
		PropertyRoots:     []string{"CalculatedBaselineConstraints", "CalculatedBaselineStatistics", "BaselineUsedForDriftCheckStatistics", "BaselineUsedForDriftCheckConstraints"},
		NeedsInstanceType: true, NeedsInstanceCount: true, NeedsVolumeSize: true, Exemplar: "DataQualityCheck", Label: "QUALITY_CHECK_STEP",
		Defaults: VerbDefaults{Framework: "none", InstanceType: "check_instance_type", Count: "check_instance_count", Vol: "check_volume_size", MaxRuntime: "check_max_runtime_seconds"}},
	{Verb: VerbClarifyCheck, FieldSet: "check", ComputeKinds: []string{"clarify"}, Script: ScriptNone,
		PropertyRoots:     []string{"CalculatedBaselineConstraints", "BaselineUsedForDriftCheckConstraints"},
		NeedsInstanceType: true, NeedsInstanceCount: true, NeedsVolumeSize: true, Exemplar: "DataBiasCheck", Label: "CLARIFY_CHECK_STEP",
		Defaults: VerbDefaults{Framework: "none", InstanceType: "check_instance_type", Count: "check_instance_count", Vol: "check_volume_size", MaxRuntime: "check_max_runtime_seconds"}},
	// An EMR step adds a step to an EMR cluster (a running one, or one
	// made for it); its properties are the EMR step's (DescribeStep).
	{Verb: VerbEMR, FieldSet: "base", ComputeKinds: []string{"emr"}, Script: ScriptNone,
		PropertyRoots: []string{"Id", "Name", "Config", "Status", "ActionOnFailure", "ExecutionRoleArn", "LogUri"}, Exemplar: "EMRJob", Label: "EMR_STEP",
		Defaults: VerbDefaults{Framework: "none"}},
}

// Verbs lists every verb in a stable order (the table's).
var Verbs = func() []Verb {
	out := make([]Verb, len(verbs))
	for i, v := range verbs {
		out[i] = v.Verb
	}
	return out
}()

// VerbInfoOf returns the row of a verb. The result shares its lists with
// the table: do not modify them.
func VerbInfoOf(v Verb) (VerbInfo, bool) {
	for _, vi := range verbs {
		if vi.Verb == v {
			return vi, true
		}
	}
	return VerbInfo{}, false
}

// verbInfo is VerbInfoOf without the flag (the zero row for an unknown
// verb: no field set, no container, nothing required).
func verbInfo(v Verb) VerbInfo {
	vi, _ := VerbInfoOf(v)
	return vi
}

// Info returns the row of the step's verb (the zero row for an unknown
// verb).
func (s *Step) Info() VerbInfo { return verbInfo(s.Verb) }

// InputRoots returns the container path roots an input port of the verb
// may use (nil: the verb has no container, ports carry no path).
func InputRoots(v Verb) []string { return verbInfo(v).InputRoots }

// OutputRoots returns the container path roots an output port of the verb
// may use (nil: no container).
func OutputRoots(v Verb) []string { return verbInfo(v).OutputRoots }

// ComputeKinds returns the compute kinds (compute.kind) a step of the verb
// may declare, in the loader's order (nil for an unknown verb). The result
// is a copy.
func ComputeKinds(v Verb) []string {
	return append([]string(nil), verbInfo(v).ComputeKinds...)
}
