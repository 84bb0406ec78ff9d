package compiler

import (
	"github.com/cursus-go/cursus/engine/catalog"
)

// This file is the model of a SageMaker Pipelines definition. Struct field
// order is the key order the SageMaker Python SDK writes, so the JSON the
// compiler emits reads like an SDK definition. A field typed `any` holds a
// literal or a pipeline expression (Get, Join).

// DefinitionVersion is the only definition version SageMaker accepts.
const DefinitionVersion = "2020-12-01"

// The default pipeline parameters: the execution S3 prefix
// every output is written under, and the KMS key, security group and subnet
// a step may use.
const (
	ParamExecutionS3Prefix = "EXECUTION_S3_PREFIX"
	ParamKMSKey            = "KMS_ENCRYPTION_KEY_PARAM"
	ParamSecurityGroupID   = "SECURITY_GROUP_ID"
	ParamVPCSubnet         = "VPC_SUBNET"
)

// Step type strings of the definition (note that CreateModel is "Model").
const (
	StepTypeProcessing    = "Processing"
	StepTypeTraining      = "Training"
	StepTypeModel         = "Model"
	StepTypeTransform     = "Transform"
	StepTypeRegisterModel = "RegisterModel"
	StepTypeTuning        = "Tuning"
	StepTypeLambda        = "Lambda"
	StepTypeCallback      = "Callback"
	StepTypeQualityCheck  = "QualityCheck"
	StepTypeClarifyCheck  = "ClarifyCheck"
	StepTypeEMR           = "EMR"
)

// Definition is a whole pipeline definition: the PipelineDefinition string
// of CreatePipeline, before it is marshalled.
type Definition struct {
	Version                  string            `json:"Version"`
	Metadata                 map[string]string `json:"Metadata"`
	Parameters               []Parameter       `json:"Parameters"`
	PipelineExperimentConfig *ExperimentConfig `json:"PipelineExperimentConfig"`
	Steps                    []Step            `json:"Steps"`
}

// Parameter is a pipeline parameter. Type is String, Integer, Float or
// Boolean; DefaultValue, when set, has the matching JSON type.
type Parameter struct {
	Name         string `json:"Name"`
	Type         string `json:"Type"`
	DefaultValue any    `json:"DefaultValue,omitempty"`
}

// ExperimentConfig is the pipeline experiment configuration; the SDK's
// default names the experiment after the pipeline and the trial after the
// execution.
type ExperimentConfig struct {
	ExperimentName any `json:"ExperimentName"`
	TrialName      any `json:"TrialName"`
}

// DefaultExperimentConfig returns the SDK's default experiment config.
func DefaultExperimentConfig() *ExperimentConfig {
	return &ExperimentConfig{
		ExperimentName: ExecutionVar("PipelineName"),
		TrialName:      ExecutionVar("PipelineExecutionId"),
	}
}

// Step is one step of the definition. Arguments is one of the *Arguments
// types of the builders, shaped like the matching SageMaker API request
// (a Condition's holds the steps of its branches). PropertyFiles are the
// JSON reports a Processing step's outputs hold that later steps read with
// Std:JsonGet.
type Step struct {
	Name          catalog.SageMakerStepName   `json:"Name"`
	Type          string                      `json:"Type"`
	Arguments     any                         `json:"Arguments"`
	DependsOn     []catalog.SageMakerStepName `json:"DependsOn,omitempty"`
	RetryPolicies []RetryPolicy               `json:"RetryPolicies,omitempty"`
	CacheConfig   *CacheConfig                `json:"CacheConfig,omitempty"`
	PropertyFiles []PropertyFile              `json:"PropertyFiles,omitempty"`
	// StepFields are the keys a step of some kinds has beside Arguments
	// (a Lambda step's FunctionArn, a check step's CheckType, ...), in the
	// order the SDK writes them after CacheConfig.
	StepFields
}

// StepFields are the step-level keys of the kinds that have some beside
// their Arguments, each left out when unset: FunctionArn and
// OutputParameters (Lambda), SqsQueueUrl and OutputParameters (Callback),
// CheckType, ModelPackageGroupName, SkipCheck, FailOnViolation,
// RegisterNewBaseline, SuppliedBaselineStatistics (QualityCheck),
// SuppliedBaselineConstraints and ModelName (ClarifyCheck of a model).
// A value typed any is a literal or a pipeline expression.
type StepFields struct {
	FunctionArn                 string            `json:"FunctionArn,omitempty"`
	SqsQueueUrl                 string            `json:"SqsQueueUrl,omitempty"`
	OutputParameters            []OutputParameter `json:"OutputParameters,omitempty"`
	CheckType                   string            `json:"CheckType,omitempty"`
	ModelPackageGroupName       any               `json:"ModelPackageGroupName,omitempty"`
	SkipCheck                   any               `json:"SkipCheck,omitempty"`
	FailOnViolation             any               `json:"FailOnViolation,omitempty"`
	RegisterNewBaseline         any               `json:"RegisterNewBaseline,omitempty"`
	SuppliedBaselineStatistics  any               `json:"SuppliedBaselineStatistics,omitempty"`
	SuppliedBaselineConstraints any               `json:"SuppliedBaselineConstraints,omitempty"`
	ModelName                   any               `json:"ModelName,omitempty"`
}

// OutputParameter is one output of a Lambda or Callback step: a key of the
// function's response (or of the callback's answer) and its type.
type OutputParameter struct {
	OutputName string `json:"OutputName"`
	OutputType string `json:"OutputType"` // String, Integer, Boolean or Float
}

// AllSteps returns every step of the definition, a Condition's IfSteps
// and ElseSteps after it, in that order.
func (d *Definition) AllSteps() []Step {
	var out []Step
	var walk func([]Step)
	walk = func(steps []Step) {
		for _, s := range steps {
			out = append(out, s)
			if c, ok := s.Arguments.(*ConditionArguments); ok {
				walk(c.IfSteps)
				walk(c.ElseSteps)
			}
		}
	}
	walk(d.Steps)
	return out
}

// CacheConfig turns step caching on for a step.
type CacheConfig struct {
	Enabled     bool   `json:"Enabled"`
	ExpireAfter string `json:"ExpireAfter"`
}

// --- Processing (CreateProcessingJob) ---

// ProcessingArguments mirrors CreateProcessingJob without ProcessingJobName.
type ProcessingArguments struct {
	ProcessingResources    ProcessingResources     `json:"ProcessingResources"`
	AppSpecification       AppSpecification        `json:"AppSpecification"`
	RoleArn                string                  `json:"RoleArn"`
	ProcessingInputs       []ProcessingInput       `json:"ProcessingInputs,omitempty"`
	ProcessingOutputConfig *ProcessingOutputConfig `json:"ProcessingOutputConfig,omitempty"`
	Environment            map[string]any          `json:"Environment,omitempty"`
	NetworkConfig          *NetworkConfig          `json:"NetworkConfig,omitempty"`
	StoppingCondition      *StoppingCondition      `json:"StoppingCondition,omitempty"`
	Tags                   []Tag                   `json:"Tags,omitempty"`
}

// NetworkConfig is the network of a processing job.
type NetworkConfig struct {
	EnableNetworkIsolation bool       `json:"EnableNetworkIsolation"`
	VpcConfig              *VpcConfig `json:"VpcConfig,omitempty"`
}

// VpcConfig is the VPC a job runs in.
type VpcConfig struct {
	SecurityGroupIds []any `json:"SecurityGroupIds"`
	Subnets          []any `json:"Subnets"`
}

// ProcessingResources wraps the cluster of a processing job.
type ProcessingResources struct {
	ClusterConfig ClusterConfig `json:"ClusterConfig"`
}

// ClusterConfig is the instance type, count and volume of a processing job.
type ClusterConfig struct {
	InstanceType   any `json:"InstanceType"`
	InstanceCount  any `json:"InstanceCount"`
	VolumeSizeInGB any `json:"VolumeSizeInGB"`
	VolumeKmsKeyId any `json:"VolumeKmsKeyId,omitempty"`
}

// AppSpecification is the container of a processing job.
type AppSpecification struct {
	ImageUri            any      `json:"ImageUri"`
	ContainerEntrypoint []string `json:"ContainerEntrypoint,omitempty"`
	ContainerArguments  []any    `json:"ContainerArguments,omitempty"`
}

// ProcessingInput is one S3 input of a processing job.
type ProcessingInput struct {
	InputName  string       `json:"InputName"`
	AppManaged bool         `json:"AppManaged"`
	S3Input    ProcessingS3 `json:"S3Input"`
}

// ProcessingS3 is the S3 side of a processing input.
type ProcessingS3 struct {
	S3Uri                  any    `json:"S3Uri"`
	LocalPath              string `json:"LocalPath"`
	S3DataType             string `json:"S3DataType"`
	S3InputMode            string `json:"S3InputMode"`
	S3DataDistributionType string `json:"S3DataDistributionType"`
	S3CompressionType      string `json:"S3CompressionType"`
}

// ProcessingOutputConfig lists the outputs of a processing job.
type ProcessingOutputConfig struct {
	Outputs  []ProcessingOutput `json:"Outputs"`
	KmsKeyId any                `json:"KmsKeyId,omitempty"`
}

// ProcessingOutput is one S3 output of a processing job.
type ProcessingOutput struct {
	OutputName string             `json:"OutputName"`
	AppManaged bool               `json:"AppManaged"`
	S3Output   ProcessingS3Output `json:"S3Output"`
}

// ProcessingS3Output is where a processing output is uploaded.
type ProcessingS3Output struct {
	S3Uri        any    `json:"S3Uri"`
	LocalPath    string `json:"LocalPath"`
	S3UploadMode string `json:"S3UploadMode"`
}

// StoppingCondition bounds the run time of a job.
type StoppingCondition struct {
	MaxRuntimeInSeconds any `json:"MaxRuntimeInSeconds"`
}

// --- Training (CreateTrainingJob) ---

// TrainingArguments mirrors CreateTrainingJob without TrainingJobName.
type TrainingArguments struct {
	AlgorithmSpecification AlgorithmSpecification `json:"AlgorithmSpecification"`
	OutputDataConfig       OutputDataConfig       `json:"OutputDataConfig"`
	StoppingCondition      StoppingCondition      `json:"StoppingCondition"`
	ResourceConfig         ResourceConfig         `json:"ResourceConfig"`
	RoleArn                string                 `json:"RoleArn"`
	InputDataConfig        []Channel              `json:"InputDataConfig"`
	HyperParameters        map[string]any         `json:"HyperParameters,omitempty"`
	Environment            map[string]any         `json:"Environment,omitempty"`
	VpcConfig              *VpcConfig             `json:"VpcConfig,omitempty"`
	EnableNetworkIsolation *bool                  `json:"EnableNetworkIsolation,omitempty"`
	Tags                   []Tag                  `json:"Tags,omitempty"`
}

// AlgorithmSpecification is the training image and input mode. Metric
// definitions are set for tuning jobs.
type AlgorithmSpecification struct {
	TrainingInputMode string             `json:"TrainingInputMode"`
	TrainingImage     any                `json:"TrainingImage"`
	MetricDefinitions []MetricDefinition `json:"MetricDefinitions,omitempty"`
}

// MetricDefinition names a metric and the regular expression that finds it
// in the training log.
type MetricDefinition struct {
	Name  string `json:"Name"`
	Regex string `json:"Regex"`
}

// OutputDataConfig is where the model artefacts of a training job go.
type OutputDataConfig struct {
	S3OutputPath any `json:"S3OutputPath"`
	KmsKeyId     any `json:"KmsKeyId,omitempty"`
}

// ResourceConfig is the compute of a training job.
type ResourceConfig struct {
	VolumeSizeInGB any `json:"VolumeSizeInGB"`
	InstanceCount  any `json:"InstanceCount"`
	InstanceType   any `json:"InstanceType"`
	VolumeKmsKeyId any `json:"VolumeKmsKeyId,omitempty"`
}

// Channel is one training input channel.
type Channel struct {
	DataSource  DataSource `json:"DataSource"`
	ContentType string     `json:"ContentType,omitempty"`
	InputMode   string     `json:"InputMode,omitempty"`
	ChannelName string     `json:"ChannelName"`
}

// DataSource wraps the S3 source of a channel.
type DataSource struct {
	S3DataSource S3DataSource `json:"S3DataSource"`
}

// S3DataSource is the S3 location of a channel.
type S3DataSource struct {
	S3DataType             string `json:"S3DataType"`
	S3Uri                  any    `json:"S3Uri"`
	S3DataDistributionType string `json:"S3DataDistributionType"`
}

// --- CreateModel ---

// ModelArguments mirrors CreateModel without ModelName.
type ModelArguments struct {
	ExecutionRoleArn       string              `json:"ExecutionRoleArn"`
	PrimaryContainer       ContainerDefinition `json:"PrimaryContainer"`
	VpcConfig              *VpcConfig          `json:"VpcConfig,omitempty"`
	EnableNetworkIsolation *bool               `json:"EnableNetworkIsolation,omitempty"`
	Tags                   []Tag               `json:"Tags,omitempty"`
}

// ContainerDefinition is a model container.
type ContainerDefinition struct {
	Image        any            `json:"Image"`
	Environment  map[string]any `json:"Environment"`
	ModelDataUrl any            `json:"ModelDataUrl"`
}

// --- Transform (CreateTransformJob) ---

// TransformArguments mirrors CreateTransformJob without TransformJobName.
type TransformArguments struct {
	ModelName          any                `json:"ModelName"`
	TransformInput     TransformInput     `json:"TransformInput"`
	TransformOutput    TransformOutput    `json:"TransformOutput"`
	TransformResources TransformResources `json:"TransformResources"`
	DataProcessing     *DataProcessing    `json:"DataProcessing,omitempty"`
	Environment        map[string]any     `json:"Environment,omitempty"`
	Tags               []Tag              `json:"Tags,omitempty"`
}

// TransformInput is the data a transform job reads. ContentType and
// SplitType hold a literal or an expression (nil = unset).
type TransformInput struct {
	DataSource  TransformDataSource `json:"DataSource"`
	ContentType any                 `json:"ContentType,omitempty"`
	SplitType   any                 `json:"SplitType,omitempty"`
}

// TransformDataSource wraps the S3 source of a transform job.
type TransformDataSource struct {
	S3DataSource TransformS3DataSource `json:"S3DataSource"`
}

// TransformS3DataSource is the S3 location a transform job reads.
type TransformS3DataSource struct {
	S3DataType string `json:"S3DataType"`
	S3Uri      any    `json:"S3Uri"`
}

// TransformOutput is where a transform job writes. Accept and
// AssembleWith hold a literal or an expression (nil = unset).
type TransformOutput struct {
	S3OutputPath any `json:"S3OutputPath"`
	Accept       any `json:"Accept,omitempty"`
	AssembleWith any `json:"AssembleWith,omitempty"`
	KmsKeyId     any `json:"KmsKeyId,omitempty"`
}

// TransformResources is the compute of a transform job.
type TransformResources struct {
	InstanceCount  any `json:"InstanceCount"`
	InstanceType   any `json:"InstanceType"`
	VolumeKmsKeyId any `json:"VolumeKmsKeyId,omitempty"`
}

// DataProcessing filters and joins the records of a transform job. Each
// field holds a literal or an expression (nil = unset).
type DataProcessing struct {
	InputFilter  any `json:"InputFilter,omitempty"`
	OutputFilter any `json:"OutputFilter,omitempty"`
	JoinSource   any `json:"JoinSource,omitempty"`
}

// --- RegisterModel (CreateModelPackage) ---

// RegisterModelArguments mirrors CreateModelPackage.
type RegisterModelArguments struct {
	ModelPackageGroupName   any                    `json:"ModelPackageGroupName"`
	ModelPackageDescription any                    `json:"ModelPackageDescription,omitempty"`
	ModelMetrics            *ModelMetrics          `json:"ModelMetrics,omitempty"`
	InferenceSpecification  InferenceSpecification `json:"InferenceSpecification"`
	ModelApprovalStatus     any                    `json:"ModelApprovalStatus"`
	SamplePayloadUrl        any                    `json:"SamplePayloadUrl,omitempty"`
	Tags                    []Tag                  `json:"Tags,omitempty"`
}

// InferenceSpecification describes how a registered model is served.
type InferenceSpecification struct {
	Containers                              []PackageContainer `json:"Containers"`
	SupportedContentTypes                   []any              `json:"SupportedContentTypes"`
	SupportedResponseMIMETypes              []any              `json:"SupportedResponseMIMETypes"`
	SupportedRealtimeInferenceInstanceTypes []any              `json:"SupportedRealtimeInferenceInstanceTypes,omitempty"`
	SupportedTransformInstanceTypes         []any              `json:"SupportedTransformInstanceTypes,omitempty"`
}

// PackageContainer is a container of a model package. Framework and
// FrameworkVersion describe its image (the model registry and Inference
// Recommender read them).
type PackageContainer struct {
	Image            any            `json:"Image"`
	Environment      map[string]any `json:"Environment,omitempty"`
	ModelDataUrl     any            `json:"ModelDataUrl"`
	Framework        string         `json:"Framework,omitempty"`
	FrameworkVersion string         `json:"FrameworkVersion,omitempty"`
}

// ModelMetrics are the quality reports a model package carries.
type ModelMetrics struct {
	ModelQuality *ModelQuality `json:"ModelQuality,omitempty"`
}

// ModelQuality is the model's own quality report (Statistics) and its
// constraints.
type ModelQuality struct {
	Statistics *MetricsSource `json:"Statistics,omitempty"`
}

// MetricsSource is one report in S3.
type MetricsSource struct {
	ContentType string `json:"ContentType"`
	S3Uri       any    `json:"S3Uri"`
}

// --- Tuning (CreateHyperParameterTuningJob) ---

// TuningArguments mirrors CreateHyperParameterTuningJob without the job name.
type TuningArguments struct {
	HyperParameterTuningJobConfig TuningJobConfig       `json:"HyperParameterTuningJobConfig"`
	TrainingJobDefinition         TrainingJobDefinition `json:"TrainingJobDefinition"`
	Tags                          []Tag                 `json:"Tags,omitempty"`
}

// TuningJobConfig is the search: strategy, objective, limits and ranges.
type TuningJobConfig struct {
	Strategy                         any             `json:"Strategy"`
	HyperParameterTuningJobObjective TuningObjective `json:"HyperParameterTuningJobObjective"`
	ResourceLimits                   ResourceLimits  `json:"ResourceLimits"`
	ParameterRanges                  ParameterRanges `json:"ParameterRanges"`
	TrainingJobEarlyStoppingType     any             `json:"TrainingJobEarlyStoppingType"`
}

// TuningObjective is the metric a tuning job optimises.
type TuningObjective struct {
	Type       any    `json:"Type"`
	MetricName string `json:"MetricName"`
}

// ResourceLimits bounds the number of training jobs of a tuning job.
type ResourceLimits struct {
	MaxNumberOfTrainingJobs any `json:"MaxNumberOfTrainingJobs"`
	MaxParallelTrainingJobs any `json:"MaxParallelTrainingJobs"`
}

// ParameterRanges is the search space of a tuning job.
type ParameterRanges struct {
	ContinuousParameterRanges  []ContinuousRange  `json:"ContinuousParameterRanges,omitempty"`
	IntegerParameterRanges     []IntegerRange     `json:"IntegerParameterRanges,omitempty"`
	CategoricalParameterRanges []CategoricalRange `json:"CategoricalParameterRanges,omitempty"`
}

// ContinuousRange is a real-valued hyperparameter range (bounds as strings,
// as the API wants them).
type ContinuousRange struct {
	Name        string `json:"Name"`
	MinValue    string `json:"MinValue"`
	MaxValue    string `json:"MaxValue"`
	ScalingType string `json:"ScalingType"`
}

// IntegerRange is an integer hyperparameter range.
type IntegerRange struct {
	Name        string `json:"Name"`
	MinValue    string `json:"MinValue"`
	MaxValue    string `json:"MaxValue"`
	ScalingType string `json:"ScalingType"`
}

// CategoricalRange is a set of values for one hyperparameter.
type CategoricalRange struct {
	Name   string   `json:"Name"`
	Values []string `json:"Values"`
}

// TrainingJobDefinition is the training job a tuning job repeats.
type TrainingJobDefinition struct {
	AlgorithmSpecification AlgorithmSpecification `json:"AlgorithmSpecification"`
	RoleArn                string                 `json:"RoleArn"`
	OutputDataConfig       OutputDataConfig       `json:"OutputDataConfig"`
	ResourceConfig         ResourceConfig         `json:"ResourceConfig"`
	StoppingCondition      StoppingCondition      `json:"StoppingCondition"`
	StaticHyperParameters  map[string]any         `json:"StaticHyperParameters,omitempty"`
	InputDataConfig        []Channel              `json:"InputDataConfig"`
	Environment            map[string]any         `json:"Environment,omitempty"`
	VpcConfig              *VpcConfig             `json:"VpcConfig,omitempty"`
	EnableNetworkIsolation *bool                  `json:"EnableNetworkIsolation,omitempty"`
}
