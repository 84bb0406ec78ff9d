package compiler

import (
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
)

// StepPatterns says how the compiler assembles one step, axis by axis:
// the builder, the compute, the environment, the job arguments, where the
// inputs come from and where the outputs go. Every axis says whether a
// step can override it (custom_override: none can).
type StepPatterns struct {
	CreateStep   CreateStepPattern   `json:"create_step"`
	Compute      ComputePattern      `json:"compute"`
	EnvVars      EnvVarsPattern      `json:"env_vars"`
	JobArguments JobArgumentsPattern `json:"job_arguments"`
	Inputs       InputsPattern       `json:"inputs"`
	Outputs      OutputsPattern      `json:"outputs"`
}

// CreateStepPattern is the builder that makes the step.
type CreateStepPattern struct {
	// Handler is the builder of the step's verb; BuilderStepName the
	// step's own builder name.
	Handler           string  `json:"handler"`
	BuilderStepName   string  `json:"builder_step_name"`
	SageMakerStepType string  `json:"sagemaker_step_type"`
	StepAssembly      *string `json:"step_assembly"`
	Requires          string  `json:"requires"`
	CustomOverride    bool    `json:"custom_override"`
}

// ComputePattern is the compute a step runs on and the config fields that
// name it (null: the step's compute block names none).
type ComputePattern struct {
	Kind                    string  `json:"kind"`
	SDKClass                *string `json:"sdk_class"` // the SDK object the kind stands for
	Framework               string  `json:"framework"`
	FrameworkField          *string `json:"framework_field"`
	FrameworkVersionField   *string `json:"framework_version_field"`
	FrameworkVersionDefault *string `json:"framework_version_default"`
	PyVersionField          *string `json:"py_version_field"`
	ImageURIField           *string `json:"image_uri_field"`
	ImageScope              *string `json:"image_scope"`
	InstanceTypeField       *string `json:"instance_type_field"`
	InstanceCountField      *string `json:"instance_count_field"`
	VolumeSizeField         *string `json:"volume_size_field"`
	Requires                string  `json:"requires"`
	Source                  string  `json:"source"`
	CustomOverride          bool    `json:"custom_override"`
	// InstanceSizeMode is large_or_small (a config flag picks one of two
	// instance-type fields) or fixed; empty when no field names the type.
	InstanceSizeMode       string `json:"instance_size_mode,omitempty"`
	LargeInstanceTypeField string `json:"large_instance_type_field,omitempty"`
	SmallInstanceTypeField string `json:"small_instance_type_field,omitempty"`
	UseLargeInstanceField  string `json:"use_large_instance_field,omitempty"`
}

// EnvVarsPattern is the environment a step's script gets: the variables
// its contract declares and the config field each reads.
type EnvVarsPattern struct {
	Source           string            `json:"source"`
	DeclaredRequired []string          `json:"declared_required"`
	DeclaredOptional []string          `json:"declared_optional"`
	Defaults         map[string]string `json:"defaults"`
	// Sources maps each variable to its config field (null: none).
	Sources        map[string]*string `json:"sources"`
	CustomOverride bool               `json:"custom_override"`
}

// JobArgumentsPattern is the command line a step's script gets.
type JobArgumentsPattern struct {
	Source         string                `json:"source"`
	Declared       []catalog.JobArgument `json:"declared"`
	CustomOverride bool                  `json:"custom_override"`
}

// InputsPattern is where a step's inputs come from.
type InputsPattern struct {
	Pattern        string   `json:"pattern"`
	Deviations     []string `json:"deviations"`
	CustomOverride bool     `json:"custom_override"`
}

// OutputsPattern is where a step's outputs go.
type OutputsPattern struct {
	Pattern               string `json:"pattern"`
	OutputPathToken       string `json:"output_path_token"`
	OutputPathTokenSource string `json:"output_path_token_source"`
	IncludeJobTypeInPath  bool   `json:"include_job_type_in_path"`
	Sink                  bool   `json:"sink"`
	CustomOverride        bool   `json:"custom_override"`
}

// StepDependencies is a step's package footprint: what it needs at build
// time (nothing) and the packages its script needs at run time.
type StepDependencies struct {
	BuildTime map[string]string `json:"build_time"`
	Runtime   []string          `json:"runtime"`
	// Native is true when the script needs no package beyond its image.
	Native bool `json:"native"`
}

// sdkClassOf names the SDK object a compute kind stands for.
func sdkClassOf(c catalog.Compute) *string {
	var s string
	switch c.Kind {
	case "sklearn":
		s = "SKLearnProcessor"
	case "xgboost":
		s = "XGBoostProcessor"
	case "script":
		s = "ScriptProcessor"
	case "byo_container":
		s = "Processor"
	case "framework":
		s = "FrameworkProcessor(" + c.SDKClass + ")"
	case "estimator", "model":
		s = c.SDKClass
	case "tuner":
		s = "HyperparameterTuner(" + c.SDKClass + ")"
	case "transformer":
		s = "Transformer"
	case "model_package":
		s = "ModelPackage"
	default:
		return nil
	}
	return &s
}

// opt is s, or nil for "".
func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// PatternsOf describes how the compiler assembles a step (see
// StepPatterns) and its package footprint.
func PatternsOf(s *catalog.Step) (StepPatterns, StepDependencies) {
	c := s.Compute
	k := kindOfVerb(s.Verb)
	if k == nil {
		k = &kind{}
	}
	var p StepPatterns
	p.CreateStep = CreateStepPattern{Handler: k.info.Name, BuilderStepName: s.BuilderName, SageMakerStepType: string(s.Verb),
		StepAssembly: opt(s.Patterns.StepAssembly), Requires: "none"}
	p.Compute = ComputePattern{
		Kind: c.Kind, SDKClass: sdkClassOf(c), Framework: c.Framework,
		FrameworkField: opt(c.FrameworkField), FrameworkVersionField: opt(c.FrameworkVersionField),
		FrameworkVersionDefault: opt(c.FrameworkVersionDefault), PyVersionField: opt(c.PyVersionField),
		ImageURIField: opt(c.ImageURIField), ImageScope: opt(c.ImageScope), InstanceTypeField: opt(c.InstanceTypeField),
		InstanceCountField: opt(c.InstanceCountField), VolumeSizeField: opt(c.VolumeSizeField),
		Requires: "none", Source: "config fields named by the step's compute block",
	}
	if c.UseLargeInstanceField != "" {
		p.Compute.InstanceSizeMode = "large_or_small"
		p.Compute.LargeInstanceTypeField = c.LargeInstanceTypeField
		p.Compute.SmallInstanceTypeField = c.SmallInstanceTypeField
		p.Compute.UseLargeInstanceField = c.UseLargeInstanceField
	} else if c.InstanceTypeField != "" {
		p.Compute.InstanceSizeMode = "fixed"
	}

	optional := make([]string, 0, len(s.Contract.OptionalEnv))
	defaults := make(map[string]string, len(s.Contract.OptionalEnv))
	for n, d := range s.Contract.OptionalEnv {
		optional = append(optional, n)
		defaults[n] = d
	}
	sort.Strings(optional)
	sources := map[string]*string{}
	for _, e := range s.Contract.Env {
		sources[e.Name] = opt(e.Field)
	}
	p.EnvVars = EnvVarsPattern{
		Source:           "config: each variable reads the config field in sources (NAME reads lower(name) unless declared otherwise); optional ones fall back to their default",
		DeclaredRequired: append([]string{}, s.Contract.RequiredEnv...),
		DeclaredOptional: optional, Defaults: defaults, Sources: sources,
	}
	p.JobArguments = JobArgumentsPattern{Source: "config: each flag's value is the named config field",
		Declared: append([]catalog.JobArgument{}, s.Contract.JobArguments...)}

	inDevs := []string{}
	for _, in := range s.Inputs {
		if in.ConfigSource != "" {
			inDevs = append(inDevs, "config_source "+in.LogicalName+" <- "+in.ConfigSource)
		}
	}
	if s.Contract.SourceDir {
		inDevs = append(inDevs, "source_dir (entry point + whole source directory)")
	}
	inPattern := firstNonEmpty(k.inputsPattern, "one input per declared port, from the upstream output the resolver binds")
	if len(inDevs) > 0 {
		inPattern += " + " + strings.Join(inDevs, ", ")
	}
	p.Inputs = InputsPattern{Pattern: inPattern, Deviations: inDevs}

	token := catalog.CanonicalToSnake(s.Type)
	tokenSource := "derived: snake_case of the step type"
	if s.Patterns.OutputPathToken != "" {
		token, tokenSource = s.Patterns.OutputPathToken, "override: patterns.output_path_token"
	}
	sink := s.Kind == catalog.NodeSink || len(s.Outputs) == 0
	// The compiler always puts a node's job type in the destination;
	// include_job_type_in_path is metadata only.
	outPattern := "generated destination Join(base, " + strings.ToLower(string(s.Type)) + ", job_type (when the node has one), logical_name)"
	switch {
	case sink:
		outPattern = "sink (no outputs)"
	case k.outputsPattern != "":
		outPattern = strings.ReplaceAll(k.outputsPattern, "<token>", token)
	case s.Patterns.OutputPathToken != "":
		outPattern = "fixed destination Join(base, " + token + ")"
	}
	p.Outputs = OutputsPattern{Pattern: outPattern, OutputPathToken: token, OutputPathTokenSource: tokenSource,
		IncludeJobTypeInPath: s.Patterns.JobTypeInPath(), Sink: sink}

	runtime := append([]string{}, s.Contract.Requirements...)
	return p, StepDependencies{BuildTime: map[string]string{}, Runtime: runtime, Native: len(runtime) == 0}
}
