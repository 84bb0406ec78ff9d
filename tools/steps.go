package tools

import (
	"context"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

// StepsNamespace returns the steps namespace: its description and tools, built anew
// on each call (DefaultNamespaces lists it).
func StepsNamespace() registry.Namespace {
	return namespace("steps", "Per-step wiring view from the step interface: container paths, property references, training channels and construction patterns.",
		registry.New("steps.io", registry.Spec{
			Description: "A step's connections: each input's container path, required flag, type, compatible sources and training channels; each output's container path and property path.",
			When:        "you wire a step or need its container paths",
			Examples: []string{
				`steps.io {"step_name": "XGBoostTraining"}  # container paths, channel fan-out, property paths`,
				`steps.io {"step_name": "BatchTransform"}  # a step without a container of its own`,
				`steps.io {"step_name": "RiskTableMapping", "job_type": "validation"}  # the validation variant`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhasePlanner},
		}, stepsIO),
		registry.New("steps.patterns", registry.Spec{
			Description: "How the compiler assembles a step, axis by axis: builder, compute (SDK class, image, instance fields), environment variables, job arguments, input and output destinations, package footprint.",
			When:        "you want to see which config fields build a step",
			Examples: []string{
				`steps.patterns {"step_name": "XGBoostTraining"}  # estimator step`,
				`steps.patterns {"step_name": "TabularPreprocessing", "job_type": "calibration"}  # processing step, calibration variant`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhasePlanner},
		}, stepsPatterns),
	)
}

// --- steps.io ---

func stepsIO(ctx context.Context, a catStepArgs) (*envelope.Result[StepsIOData], error) {
	s, jt, err := loadStep(ctx, a.WorkspaceDirs, a.StepName, a.JobType)
	if err != nil {
		return nil, err
	}
	inputs := make([]StepsIOInput, len(s.Inputs))
	for i := range s.Inputs {
		in := &s.Inputs[i]
		inputs[i] = StepsIOInput{
			LogicalName:       in.LogicalName,
			ContainerPath:     optString(in.ContainerPath),
			Required:          in.Required,
			Type:              string(in.Type),
			CompatibleSources: nonNilList(in.CompatibleSources),
			SemanticKeywords:  nonNilList(in.SemanticKeywords),
			Channels:          s.Channels(in),
			ConfigSource:      in.ConfigSource,
			DataType:          in.DataType,
			Description:       in.Description,
		}
	}
	outputs := make([]StepsIOOutput, len(s.Outputs))
	for i, o := range s.Outputs {
		outputs[i] = StepsIOOutput{
			LogicalName:   o.LogicalName,
			ContainerPath: optString(o.ContainerPath),
			PropertyPath:  o.PropertyPath,
			Type:          string(o.Type),
			Aliases:       nonNilList(o.Aliases),
			DataType:      o.DataType,
			URIJoin:       o.URIJoin,
			Description:   o.Description,
		}
	}
	data := StepsIOData{
		StepName:          a.StepName,
		StepType:          string(s.Type),
		SageMakerStepType: string(s.Verb),
		JobType:           optString(jt),
		SageMakerStepName: string(catalog.SageMakerName(s.Type, jt)),
		Inputs:            inputs,
		Outputs:           outputs,
		DependencyCount:   len(inputs),
		OutputCount:       len(outputs),
	}
	return envelope.Success(data).WithMeta("step_name", a.StepName).WithNextSteps(
		envelope.NextStep{Tool: "steps.patterns", When: "you also want to know how the step is built", Why: "compute, env vars and job arguments", ArgsHint: map[string]any{"step_name": string(s.Type)}},
		envelope.NextStep{Tool: "catalog.config_fields", When: "you will write the step's config", Why: "fields, tiers and defaults", ArgsHint: map[string]any{"step_name": string(s.Type)}},
	), nil
}

// StepsIOInput is one input port of steps.io with where it lands.
type StepsIOInput struct {
	LogicalName string `json:"logical_name"`
	// ContainerPath is null when the verb has no container of ours.
	ContainerPath     *string  `json:"container_path"`
	Required          bool     `json:"required"`
	Type              string   `json:"type"`
	CompatibleSources []string `json:"compatible_sources"`
	SemanticKeywords  []string `json:"semantic_keywords"`
	// Channels are the training channels the input fans out into
	// (Training and Tuning steps only).
	Channels     []string `json:"channels,omitempty"`
	ConfigSource string   `json:"config_source,omitempty"`
	DataType     string   `json:"data_type"`
	Description  string   `json:"description"`
}

// StepsIOOutput is one output port of steps.io with where it is written
// and the property path a downstream step reads.
type StepsIOOutput struct {
	LogicalName   string   `json:"logical_name"`
	ContainerPath *string  `json:"container_path"`
	PropertyPath  string   `json:"property_path"`
	Type          string   `json:"type"`
	Aliases       []string `json:"aliases"`
	DataType      string   `json:"data_type"`
	URIJoin       []string `json:"uri_join,omitempty"`
	Description   string   `json:"description"`
}

// StepsIOData is the data of steps.io: a step's connection view.
type StepsIOData struct {
	StepName          string          `json:"step_name"`
	StepType          string          `json:"step_type"`
	SageMakerStepType string          `json:"sagemaker_step_type"`
	JobType           *string         `json:"job_type"`
	SageMakerStepName string          `json:"sagemaker_step_name"`
	Inputs            []StepsIOInput  `json:"inputs"`
	Outputs           []StepsIOOutput `json:"outputs"`
	DependencyCount   int             `json:"dependency_count"`
	OutputCount       int             `json:"output_count"`
}

// --- steps.patterns ---

// StepsPatternsData is the data of steps.patterns: how the compiler
// assembles the step and its package footprint.
type StepsPatternsData struct {
	StepName          string                    `json:"step_name"`
	StepType          string                    `json:"step_type"`
	SageMakerStepType string                    `json:"sagemaker_step_type"`
	JobType           *string                   `json:"job_type"`
	Patterns          compiler.StepPatterns     `json:"patterns"`
	Dependencies      compiler.StepDependencies `json:"dependencies"`
}

func stepsPatterns(ctx context.Context, a catStepArgs) (*envelope.Result[StepsPatternsData], error) {
	s, jt, err := loadStep(ctx, a.WorkspaceDirs, a.StepName, a.JobType)
	if err != nil {
		return nil, err
	}
	p, deps := compiler.PatternsOf(s)
	data := StepsPatternsData{StepName: a.StepName, StepType: string(s.Type), SageMakerStepType: string(s.Verb),
		JobType: optString(jt), Patterns: p, Dependencies: deps}
	return envelope.Success(data).WithMeta("step_name", a.StepName).WithNextSteps(
		envelope.NextStep{Tool: "catalog.list_builders", When: "you want the other steps built the same way", Why: "steps sharing this SageMaker step type", ArgsHint: map[string]any{"sagemaker_step_type": string(s.Verb)}},
		envelope.NextStep{Tool: "steps.io", When: "you need the ports and container paths", Why: "complements the construction view", ArgsHint: map[string]any{"step_name": string(s.Type)}},
	), nil
}
