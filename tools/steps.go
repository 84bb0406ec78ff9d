package tools

import (
	"context"
	"sort"
	"strings"

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
			Description: "A step's connection view: for each input its container path, required flag, dependency type, compatible sources, keywords and, for Training and Tuning steps, the training channels it fans out into (input_path -> train/val/test); for each output its container path and the property path a downstream step reads.",
			When:        "you are wiring a step or want to know where its data lands inside the container",
			Examples: []string{
				`steps.io {"step_name": "XGBoostTraining"}  # container paths, channel fan-out, property paths`,
				`steps.io {"step_name": "BatchTransform"}  # a step without a container of its own`,
				`steps.io {"step_name": "RiskTableMapping", "job_type": "validation"}  # the validation variant`,
			},
			Tags: []string{registry.PhasePlanner},
		}, stepsIO),
		registry.New("steps.patterns", registry.Spec{
			Description: "How the compiler assembles a step, axis by axis: the builder and step assembly, the compute (kind, SDK class, image framework and the config fields naming version, instance type and count), environment variables with the config field each reads, job arguments, input and output destination patterns, and the step's package footprint.",
			When:        "you want to see how a step is built and which config fields drive it, without reading the compiler",
			Examples: []string{
				`steps.patterns {"step_name": "XGBoostTraining"}  # estimator step`,
				`steps.patterns {"step_name": "TabularPreprocessing", "job_type": "calibration"}  # processing step, calibration variant`,
			},
			Tags: []string{registry.PhasePlanner},
		}, stepsPatterns),
	)
}

// --- steps.io ---

func stepsIO(ctx context.Context, a catStepArgs) (*envelope.ToolResult, error) {
	s, jt, err := loadStep(ctx, a.WorkspaceDirs, a.StepName, a.JobType)
	if err != nil {
		return nil, err
	}
	inputs := make([]ioInput, len(s.Inputs))
	for i := range s.Inputs {
		in := &s.Inputs[i]
		inputs[i] = ioInput{
			LogicalName:       in.LogicalName,
			ContainerPath:     nullIfEmpty(in.ContainerPath),
			Required:          in.Required,
			Type:              string(in.Type),
			CompatibleSources: in.CompatibleSources,
			SemanticKeywords:  in.SemanticKeywords,
			Channels:          s.Channels(in),
			ConfigSource:      in.ConfigSource,
			DataType:          in.DataType,
			Description:       in.Description,
		}
	}
	outputs := make([]ioOutput, len(s.Outputs))
	for i, o := range s.Outputs {
		outputs[i] = ioOutput{
			LogicalName:   o.LogicalName,
			ContainerPath: nullIfEmpty(o.ContainerPath),
			PropertyPath:  o.PropertyPath,
			Type:          string(o.Type),
			Aliases:       o.Aliases,
			DataType:      o.DataType,
			URIJoin:       o.URIJoin,
			Description:   o.Description,
		}
	}
	data := ioData{
		StepName:          a.StepName,
		StepType:          string(s.Type),
		SageMakerStepType: string(s.Verb),
		JobType:           nullIfEmpty(jt),
		SageMakerStepName: string(catalog.SageMakerName(s.Type, jt)),
		Inputs:            inputs,
		Outputs:           outputs,
		DependencyCount:   len(inputs),
		OutputCount:       len(outputs),
	}
	return envelope.OK(data).WithMeta("step_name", a.StepName).WithNextSteps(
		envelope.NextStep{Tool: "steps.patterns", When: "you also want to know how the step is built", Why: "compute, env vars and job arguments", ArgsHint: map[string]any{"step_name": string(s.Type)}},
		envelope.NextStep{Tool: "catalog.config_fields", When: "you will write the step's config", Why: "fields, tiers and defaults", ArgsHint: map[string]any{"step_name": string(s.Type)}},
	), nil
}

type ioInput struct {
	LogicalName       string   `json:"logical_name"`
	ContainerPath     any      `json:"container_path"` // null: the verb has no container of ours
	Required          bool     `json:"required"`
	Type              string   `json:"type"`
	CompatibleSources []string `json:"compatible_sources"`
	SemanticKeywords  []string `json:"semantic_keywords"`
	Channels          []string `json:"channels,omitempty"` // Training and Tuning only
	ConfigSource      string   `json:"config_source,omitempty"`
	DataType          string   `json:"data_type"`
	Description       string   `json:"description"`
}

type ioOutput struct {
	LogicalName   string   `json:"logical_name"`
	ContainerPath any      `json:"container_path"`
	PropertyPath  string   `json:"property_path"`
	Type          string   `json:"type"`
	Aliases       []string `json:"aliases"`
	DataType      string   `json:"data_type"`
	URIJoin       []string `json:"uri_join,omitempty"`
	Description   string   `json:"description"`
}

type ioData struct {
	StepName          string     `json:"step_name"`
	StepType          string     `json:"step_type"`
	SageMakerStepType string     `json:"sagemaker_step_type"`
	JobType           any        `json:"job_type"`
	SageMakerStepName string     `json:"sagemaker_step_name"`
	Inputs            []ioInput  `json:"inputs"`
	Outputs           []ioOutput `json:"outputs"`
	DependencyCount   int        `json:"dependency_count"`
	OutputCount       int        `json:"output_count"`
}

// --- steps.patterns ---

// sdkClassOf names the SDK object a compute kind stands for.
func sdkClassOf(c catalog.Compute) any {
	switch c.Kind {
	case "sklearn":
		return "SKLearnProcessor"
	case "xgboost":
		return "XGBoostProcessor"
	case "script":
		return "ScriptProcessor"
	case "framework":
		return "FrameworkProcessor(" + c.SDKClass + ")"
	case "estimator", "model":
		return c.SDKClass
	case "tuner":
		return "HyperparameterTuner(" + c.SDKClass + ")"
	case "transformer":
		return "Transformer"
	case "model_package":
		return "ModelPackage"
	}
	return nil
}

func stepsPatterns(ctx context.Context, a catStepArgs) (*envelope.ToolResult, error) {
	s, jt, err := loadStep(ctx, a.WorkspaceDirs, a.StepName, a.JobType)
	if err != nil {
		return nil, err
	}
	c := s.Compute
	builder := s.BuilderName
	verbBuilder := ""
	if b, ok := compiler.Builder(s.Verb); ok {
		verbBuilder = b.Name
	}
	createStep := map[string]any{
		"handler":             verbBuilder,
		"builder_step_name":   builder,
		"sagemaker_step_type": string(s.Verb),
		"step_assembly":       nullIfEmpty(s.Patterns.StepAssembly),
		"requires":            "none",
		"custom_override":     false,
	}
	compute := map[string]any{
		"kind":                      c.Kind,
		"sdk_class":                 sdkClassOf(c),
		"framework":                 c.Framework,
		"framework_field":           nullIfEmpty(c.FrameworkField),
		"framework_version_field":   nullIfEmpty(c.FrameworkVersionField),
		"framework_version_default": nullIfEmpty(c.FrameworkVersionDefault),
		"py_version_field":          nullIfEmpty(c.PyVersionField),
		"image_uri_field":           nullIfEmpty(c.ImageURIField),
		"image_scope":               nullIfEmpty(c.ImageScope),
		"instance_type_field":       nullIfEmpty(c.InstanceTypeField),
		"instance_count_field":      nullIfEmpty(c.InstanceCountField),
		"volume_size_field":         nullIfEmpty(c.VolumeSizeField),
		"lock_training_region":      c.LockedRegion != "",
		"locked_region":             nullIfEmpty(c.LockedRegion),
		"requires":                  "none",
		"source":                    "config fields named by the step's compute block",
		"custom_override":           false,
	}
	if c.UseLargeInstanceField != "" {
		compute["instance_size_mode"] = "large_or_small"
		compute["large_instance_type_field"] = c.LargeInstanceTypeField
		compute["small_instance_type_field"] = c.SmallInstanceTypeField
		compute["use_large_instance_field"] = c.UseLargeInstanceField
	} else if c.InstanceTypeField != "" {
		compute["instance_size_mode"] = "fixed"
	}
	optional := make([]string, 0, len(s.Contract.OptionalEnv))
	for n := range s.Contract.OptionalEnv {
		optional = append(optional, n)
	}
	sort.Strings(optional)
	sources := map[string]any{}
	for _, e := range s.Contract.Env {
		sources[e.Name] = nullIfEmpty(e.Field)
	}
	envVars := map[string]any{
		"source":            "config: each variable reads the config field in sources (NAME reads lower(name) unless declared otherwise); optional ones fall back to their default",
		"declared_required": s.Contract.RequiredEnv,
		"declared_optional": optional,
		"defaults":          s.Contract.OptionalEnv,
		"sources":           sources,
		"custom_override":   false,
	}
	jobArgs := []map[string]any{}
	for _, j := range s.Contract.JobArguments {
		jobArgs = append(jobArgs, map[string]any{"flag": j.Flag, "source": j.Source})
	}
	var inDevs []string
	for _, in := range s.Inputs {
		if in.ConfigSource != "" {
			inDevs = append(inDevs, "config_source "+in.LogicalName+" <- "+in.ConfigSource)
		}
	}
	if s.Contract.SourceDir {
		inDevs = append(inDevs, "source_dir (entry point + whole source directory)")
	}
	inPattern := "one input per declared port, from the upstream output the resolver binds"
	switch s.Verb {
	case catalog.VerbTraining, catalog.VerbTuning:
		inPattern = "one training channel per channel of each input (input_path -> train/val/test)"
	case catalog.VerbCreateModel:
		inPattern = "model_data becomes the container's ModelDataUrl"
	case catalog.VerbTransform:
		inPattern = "model_name names the model; processed_data is the TransformInput"
	case catalog.VerbRegisterModel:
		inPattern = "the packaged model becomes ModelDataUrl, payload samples SamplePayloadUrl"
	}
	if len(inDevs) > 0 {
		inPattern += " + " + strings.Join(inDevs, ", ")
	}
	token := catalog.CanonicalToSnake(s.Type)
	tokenSource := "derived: snake_case of the step type"
	if s.Patterns.OutputPathToken != "" {
		token, tokenSource = s.Patterns.OutputPathToken, "override: patterns.output_path_token"
	}
	sink := s.Kind == catalog.NodeSink || len(s.Outputs) == 0
	// The compiler always puts a node's job type in the destination (as the
	// original's assembler did); include_job_type_in_path is metadata only.
	outPattern := "generated destination Join(base, " + strings.ToLower(string(s.Type)) + ", job_type (when the node has one), logical_name)"
	switch {
	case sink:
		outPattern = "sink (no outputs)"
	case s.Verb == catalog.VerbTraining || s.Verb == catalog.VerbTuning:
		outPattern = "estimator output path Join(base, " + token + ")"
	case s.Verb == catalog.VerbCreateModel:
		outPattern = "none (SageMaker names the model)"
	case s.Patterns.OutputPathToken != "":
		outPattern = "fixed destination Join(base, " + token + ")"
	}
	outputs := map[string]any{
		"pattern":                  outPattern,
		"output_path_token":        token,
		"output_path_token_source": tokenSource,
		"include_job_type_in_path": s.Patterns.JobTypeInPath(),
		"sink":                     sink,
		"custom_override":          false,
	}
	runtime := append([]string{}, s.Contract.Requirements...)
	data := map[string]any{
		"step_name":           a.StepName,
		"step_type":           string(s.Type),
		"sagemaker_step_type": string(s.Verb),
		"job_type":            nullIfEmpty(jt),
		"patterns": map[string]any{
			"create_step":   createStep,
			"compute":       compute,
			"env_vars":      envVars,
			"job_arguments": map[string]any{"source": "config: each flag's value is the named config field", "declared": jobArgs, "custom_override": false},
			"inputs":        map[string]any{"pattern": inPattern, "deviations": nonNilStrings(inDevs), "custom_override": false},
			"outputs":       outputs,
		},
		"dependencies": map[string]any{
			"build_time": map[string]any{},
			"runtime":    runtime,
			"native":     len(runtime) == 0,
		},
	}
	return envelope.OK(data).WithMeta("step_name", a.StepName).WithNextSteps(
		envelope.NextStep{Tool: "catalog.list_builders", When: "you want the other steps built the same way", Why: "steps sharing this SageMaker step type", ArgsHint: map[string]any{"sagemaker_step_type": string(s.Verb)}},
		envelope.NextStep{Tool: "steps.io", When: "you need the ports and container paths", Why: "complements the construction view", ArgsHint: map[string]any{"step_name": string(s.Type)}},
	), nil
}
