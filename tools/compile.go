package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/engine/localrun"
	"github.com/cursus-go/cursus/engine/sagemaker"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/registry"
)

// CompileNamespace returns the compile namespace: its description and tools, built anew
// on each call (DefaultNamespaces lists it).
func CompileNamespace() registry.Namespace {
	return namespace("compile", "Compiler: turn a DAG and a config.json into a SageMaker pipeline definition; validate, preview, name and deploy it.",
		registry.New("compile.validate", registry.Spec{
			Core:        true,
			Description: "Checks that every DAG node resolves to a config, step type and builder and every required input is bound, then the readiness gate: data.deployable and data.blockers, each with its fix and tool; not deployable sets meta.verdict fail.",
			When:        "before compiling, after changing a DAG or its config",
			Examples: []string{
				`compile.validate {"dag_file": "examples/xgboost-end-to-end/dag.json", "config_file": "examples/xgboost-end-to-end/config.json"}`,
				`compile.validate {"dag": {"nodes": ["DummyDataLoading_training", "TabularPreprocessing_training"], "edges": [["DummyDataLoading_training", "TabularPreprocessing_training"]]}, "config_file": "examples/simple-training/config.json"}`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhaseValidator},
		}, compileValidate),
		registry.New("compile.preview", registry.Spec{
			Description: "Shows, without building, the config, builder and SageMaker step name each node resolves to, with confidence, ambiguities and renaming advice.",
			When:        "a node may resolve to the wrong config",
			Examples:    []string{`compile.preview {"dag_file": "examples/simple-training/dag.json", "config_file": "examples/simple-training/config.json"}`},
			Tags:        []string{registry.PhasePlanner, registry.PhaseValidator},
		}, compilePreview),
		registry.New("compile.definition", registry.Spec{
			Core:        true,
			Description: "Compiles a DAG and config.json into the SageMaker Pipelines definition, with the upload manifest of its local code and the readiness gate (output_file: written to a file instead). Never uploads or deploys.",
			When:        "you want the pipeline definition itself",
			Examples: []string{
				`compile.definition {"dag_file": "examples/xgboost-end-to-end/dag.json", "config_file": "examples/xgboost-end-to-end/config.json"}`,
				`compile.definition {"dag_file": "examples/simple-training/dag.json", "config_file": "examples/simple-training/config.json", "pipeline_name": "my-training-pipeline", "output_file": "build/pipeline.definition.json"}  # writes the definition (writes must be open)`,
			},
			Tags:     []string{registry.PhaseProgrammer},
			WriteArg: "output_file",
		}, compileDefinition),
		registry.New("compile.with_report", registry.Spec{
			Description: "Compiles a DAG and reports, per node, config, step type, builder, step name, resolution confidence and where each input comes from, and each quality gate's branches. Never deploys.",
			When:        "you need to explain how a DAG was wired and compiled",
			Examples:    []string{`compile.with_report {"dag_file": "examples/pytorch-batch-transform/dag.json", "config_file": "examples/pytorch-batch-transform/config.json"}`},
			Tags:        []string{registry.PhaseProgrammer},
		}, compileWithReport),
		registry.New("compile.single_node", registry.Spec{
			Description: "Compiles one config's step as a one-step pipeline whose inputs are S3 URIs you give. Returns the definition; never deploys.",
			When:        "you want one step on existing data, without its upstream steps",
			Examples: []string{
				`compile.single_node {"config_file": "examples/simple-training/config.json", "target_node": "TabularPreprocessing_training", "manual_inputs": {"DATA": "s3://example-bucket/raw/train/"}}`,
				`compile.single_node {"dag_file": "examples/simple-training/dag.json", "config_file": "examples/simple-training/config.json", "target_node": "XGBoostTraining", "manual_inputs": {"input_path": "s3://example-bucket/processed/"}}`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhaseProgrammer},
		}, compileSingleNode),
		registry.New("compile.name", registry.Spec{
			Description: "Generates \"<base>-<version>-pipeline\" and/or sanitizes a name into a legal SageMaker pipeline name, saying whether each is valid.",
			When:        "you need a legal pipeline name or want to check one",
			Examples: []string{
				`compile.name {"base": "alice-AtoZ-xgboost-NA", "version": "1.3.1"}  # alice-AtoZ-xgboost-NA-1-3-1-pipeline`,
				`compile.name {"sanitize": "my_pipe.v2__x-"}  # my-pipe-v2-x`,
			},
			Tags: []string{registry.PhaseProgrammer},
		}, compileName),
		registry.New("compile.dag", registry.Spec{
			Description: "Compiles a DAG and, with upsert true, deploys it: uploads the step code to S3, then creates the SageMaker pipeline, updates it when its stored definition differs (unchanged: true and no new version when nothing changed), and merges tags. A definition of 100 KB or more is uploaded to S3 first and passed by location. An update that went live before a later call failed answers upsert_partial, with data saying what went live. A pipeline the readiness gate blocks (see compile.validate) is refused with not_deployable listing the blockers, before any AWS call. AWS credentials, region and endpoints come from the standard AWS configuration. Without upsert it only builds.",
			When:        "the definition is right (compile.validate answers deployable) and you want the pipeline in SageMaker",
			Examples: []string{
				`compile.dag {"dag_file": "examples/xgboost-end-to-end/dag.json", "config_file": "examples/xgboost-end-to-end/config.json"}  # build only`,
				`compile.dag {"dag_file": "examples/simple-training/dag.json", "config_file": "examples/simple-training/config.json", "upsert": true, "tags": {"team": "ml"}}  # deploy`,
			},
			Tags:        []string{registry.PhaseProgrammer},
			Destructive: true,
			Network:     true,
		}, compileDAG),
	)
}

// compileArgs are the arguments every DAG-compiling tool shares.
type compileArgs struct {
	DAG     dagObject `json:"dag,omitempty" jsonschema_description:"The DAG inline: {\"nodes\": [...], \"edges\": [[src, dst], ...]} (or the serialized form {\"dag\": {...}}). Node order decides ties in the execution order; edge endpoints are not added to nodes, so a misspelled endpoint shows up as undeclared. Give this or dag_file, not both."`
	DAGFile string    `json:"dag_file,omitempty" jsonschema_description:"Path to a DAG JSON file (dag.serialize / pipeline-catalog format; relative paths are taken from the project root when one is set). Give this or dag, not both."`
	dagIDArg
	ConfigFile string `json:"config_file" jsonschema:"required,minLength=1" jsonschema_description:"Path to the pipeline's config.json (shared, specific and metadata sections; relative paths are taken from the project root when one is set). Relative script and source directories resolve against its directory."`
	Role       string `json:"role,omitempty" jsonschema_description:"IAM role ARN the jobs (and the pipeline) run as; overrides the config's role."`
	catalogWorkspace
}

type namedCompileArgs struct {
	compileArgs
	PipelineName string `json:"pipeline_name,omitempty" jsonschema_description:"Pipeline name; default: <config pipeline_name>-<pipeline_version>-pipeline, sanitized."`
}

type definitionArgs struct {
	namedCompileArgs
	OutputFile string `json:"output_file,omitempty" jsonschema_description:"Write the definition to this file (atomically, confined to the project root) and answer without it. Where writes are closed it is refused."`
}

type dagCompileArgs struct {
	namedCompileArgs
	Upsert bool              `json:"upsert,omitempty" jsonschema:"default=false" jsonschema_description:"Deploy: upload the code and create or update the pipeline in SageMaker."`
	Tags   map[string]string `json:"tags,omitempty" jsonschema_description:"Tags to merge onto the pipeline (upsert only)."`
	Region string            `json:"region,omitempty" jsonschema:"maxLength=32" jsonschema_description:"AWS region to compile for and deploy in, overriding the config's region (us-east-1, eu-west-1, ...; NA, EU and FE are aliases): every image is resolved there and the pipeline is created there."`
	// Confirmed accepts the confirm list: the example values it names are
	// really the caller's.
	Confirmed bool `json:"confirmed,omitempty" jsonschema:"default=false" jsonschema_description:"Upsert even though data.confirm lists example values (AWS documentation accounts and buckets): they really are yours. Not needed against an emulator on a loopback endpoint."`
}

type singleNodeArgs struct {
	DAG        dagObject `json:"dag,omitempty" jsonschema_description:"Optional DAG (or dag_file); target_node must be one of its nodes."`
	DAGFile    string    `json:"dag_file,omitempty" jsonschema_description:"Path to a DAG JSON file (dag.serialize / pipeline-catalog format; relative paths are taken from the project root when one is set). Give this or dag, not both."`
	ConfigFile string    `json:"config_file" jsonschema:"required,minLength=1" jsonschema_description:"Path to the pipeline's config.json (shared, specific and metadata sections; relative paths are taken from the project root when one is set). Relative script and source directories resolve against its directory."`
	dagIDArg
	TargetNode     string            `json:"target_node" jsonschema:"required,minLength=1" jsonschema_description:"Exact config key of the step to build, e.g. TabularPreprocessing_training."`
	ManualInputs   map[string]string `json:"manual_inputs" jsonschema:"required" jsonschema_description:"Input logical name -> s3:// URI for each input the step should read."`
	PipelineName   string            `json:"pipeline_name,omitempty" jsonschema_description:"Pipeline name; default <target_node>-isolated."`
	ValidateInputs *bool             `json:"validate_inputs,omitempty" jsonschema:"default=true" jsonschema_description:"Check every manual input is an s3://bucket/key URI."`
	Role           string            `json:"role,omitempty" jsonschema_description:"IAM role ARN the jobs (and the pipeline) run as; overrides the config's role."`
	catalogWorkspace
}

type nameArgs struct {
	Base     string `json:"base,omitempty" jsonschema_description:"Base name, e.g. the config's pipeline_name."`
	Version  string `json:"version,omitempty" jsonschema:"default=1.0" jsonschema_description:"Pipeline version appended to base."`
	Sanitize string `json:"sanitize,omitempty" jsonschema_description:"A name to turn into a legal pipeline name."`
}

// compileInput checks the config file, then loads the DAG (a missing config
// file is reported before DAG problems).
func compileInput(ctx context.Context, a compileArgs) (compiler.Input, error) {
	cfg, err := configFilePath(ctx, a.ConfigFile)
	if err != nil {
		return compiler.Input{}, err
	}
	d, err := loadDAGArg(ctx, a.DAG, a.DAGFile, a.DagID)
	if err != nil {
		return compiler.Input{}, err
	}
	in := compiler.Input{DAG: d, ConfigFile: cfg, Role: strings.TrimSpace(a.Role), FS: safefs.From(ctx)}
	if in.Catalog, err = workspaceCatalog(ctx, a.WorkspaceDirs); err != nil {
		return compiler.Input{}, err
	}
	return in, nil
}

// workspaceCatalog is the catalog the compiler builds with: nil (the
// compiler's embedded catalog) without workspace directories, else
// loadCatalog's.
func workspaceCatalog(ctx context.Context, dirs []string) (*catalog.Catalog, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	return loadCatalog(ctx, dirs)
}

// compileRun resolves the compile arguments (compileInput), names the
// pipeline and runs one compiler entry point on the input, mapping its
// errors (toolError). It returns the input too, for its DAG.
func compileRun[T any](ctx context.Context, a compileArgs, pipelineName string, run func(context.Context, compiler.Input) (T, error)) (T, compiler.Input, error) {
	var zero T
	in, err := compileInput(ctx, a)
	if err != nil {
		return zero, in, err
	}
	in.PipelineName = strings.TrimSpace(pipelineName)
	out, err := run(ctx, in)
	if err != nil {
		return zero, in, toolError(err)
	}
	return out, in, nil
}

func compileValidate(ctx context.Context, a namedCompileArgs) (*envelope.Result[compiler.ValidationResult], error) {
	v, _, err := compileRun(ctx, a.compileArgs, a.PipelineName, compiler.Validate)
	if err != nil {
		return nil, err
	}
	res := envelope.Success(*v).WithWarnings(v.Warnings...).WithMeta("is_valid", v.IsValid).WithMeta("deployable", v.Deployable).WithVerdict(v.Deployable)
	if v.Deployable {
		return res.WithNextSteps(
			envelope.NextStep{Tool: "compile.definition", When: "validation passed", Why: "build the definition and inspect it", ArgsHint: a.hint()},
			envelope.NextStep{Tool: "compile.dag", When: "you are ready to deploy", Why: "upload the code and create or update the pipeline", ArgsHint: a.hint("upsert", true)},
		), nil
	}
	return res.WithNextSteps(blockerNextSteps(v.Blockers, a)...), nil
}

// blockerNextSteps are the next steps of a pipeline that is not
// deployable: the tool of each kind of blocker, then compile.validate to
// check again. None of them deploys.
func blockerNextSteps(bs []compiler.Blocker, a namedCompileArgs) []envelope.NextStep {
	var out []envelope.NextStep
	seen := map[string]bool{}
	for _, b := range bs {
		if b.Tool == "" || seen[b.Tool] {
			continue
		}
		seen[b.Tool] = true
		out = append(out, envelope.NextStep{Tool: b.Tool, When: "data.blockers lists a " + b.Kind + " blocker", Why: b.Fix})
		if len(out) == 4 {
			break
		}
	}
	return append(out, envelope.NextStep{Tool: "compile.validate", When: "after fixing the blockers", Why: "check the pipeline is deployable", ArgsHint: a.hint()})
}

// blockerTools are the distinct tools the blockers suggest, then
// compile.validate.
func blockerTools(bs []compiler.Blocker) []string {
	var out []string
	seen := map[string]bool{"compile.validate": true}
	for _, b := range bs {
		if b.Tool != "" && !seen[b.Tool] {
			seen[b.Tool] = true
			out = append(out, b.Tool)
		}
	}
	return append(out, "compile.validate")
}

// blockerItems is the JSON form of blockers (never null).
func blockerItems(bs []compiler.Blocker) []compiler.Blocker {
	if bs == nil {
		return []compiler.Blocker{}
	}
	return bs
}

// hint is the arguments of a next step that compiles the same pipeline:
// the DAG as the call gave it, its config, role and workspace, the
// pipeline name it chose, and extra key, value pairs.
func (a namedCompileArgs) hint(kv ...any) map[string]any {
	h := hint(a.compileArgs)
	if n := strings.TrimSpace(a.PipelineName); n != "" {
		h["pipeline_name"] = n
	}
	for i := 0; i+1 < len(kv); i += 2 {
		h[kv[i].(string)] = kv[i+1]
	}
	return h
}

func hint(a compileArgs) map[string]any {
	h := dagHint(map[string]any{"config_file": a.ConfigFile}, a.DAG, a.DAGFile, a.DagID)
	if len(a.WorkspaceDirs) > 0 {
		h["workspace_dirs"] = a.WorkspaceDirs
	}
	if r := strings.TrimSpace(a.Role); r != "" {
		h["role"] = r
	}
	return h
}

func compilePreview(ctx context.Context, a compileArgs) (*envelope.Result[compiler.Preview], error) {
	p, in, err := compileRun(ctx, a, "", compiler.PreviewResolution)
	if err != nil {
		return nil, err
	}
	return envelope.Success(*p).WithWarnings(p.Recommendations...).WithMeta("node_count", in.DAG.NodeCount()), nil
}

// CompileDefinitionData is the data of compile.definition: the SageMaker
// Pipelines definition (the artifact, as the compiler wrote it), the
// upload manifest of the local code it refers to and the readiness gate.
type CompileDefinitionData struct {
	PipelineName string                      `json:"pipeline_name"`
	StepCount    int                         `json:"step_count"`
	Steps        []catalog.SageMakerStepName `json:"steps"`
	// Definition is the pipeline definition JSON (free JSON: the SageMaker
	// schema's), in the compiler's key order; absent when it was written to
	// DefinitionFile instead.
	Definition      json.RawMessage    `json:"definition,omitempty" jsonschema:"type=object"`
	DefinitionFile  string             `json:"definition_file,omitempty"`
	DefinitionBytes int                `json:"definition_bytes"`
	UploadManifest  compiler.Manifest  `json:"upload_manifest"`
	Deployable      bool               `json:"deployable"`
	Blockers        []compiler.Blocker `json:"blockers"`
	// Parallelism is the pipeline's ParallelismConfiguration (config key
	// max_parallel_execution_steps): not part of the definition,
	// compile.dag sends it with CreatePipeline and UpdatePipeline.
	Parallelism *compiler.ParallelismConfiguration `json:"parallelism_configuration,omitempty"`
	// Confirm lists the example values the configs hold (the AWS
	// documentation's example accounts and buckets, this project's own):
	// a deploy refuses them until replaced or confirmed.
	Confirm []compiler.Blocker `json:"confirm"`
}

// definitionData is the definition as a JSON object plus its manifest.
func definitionData(res *compiler.Result) (CompileDefinitionData, error) {
	b, err := res.JSON()
	if err != nil {
		return CompileDefinitionData{}, err
	}
	// RawMessage keeps the SDK's key order (a map would sort the keys).
	def := json.RawMessage(b)
	steps := make([]catalog.SageMakerStepName, len(res.Definition.Steps))
	for i, s := range res.Definition.Steps {
		steps[i] = s.Name
	}
	manifest := res.Manifest
	if manifest == nil {
		manifest = compiler.Manifest{}
	}
	return CompileDefinitionData{
		PipelineName:    res.PipelineName,
		StepCount:       len(steps),
		Steps:           steps,
		Definition:      def,
		DefinitionBytes: len(b),
		UploadManifest:  manifest,
		Deployable:      res.Deployable(),
		Blockers:        blockerItems(res.Blockers),
		Parallelism:     res.Parallelism,
		Confirm:         blockerItems(res.Confirm),
	}, nil
}

func compileDefinition(ctx context.Context, a definitionArgs) (*envelope.Result[CompileDefinitionData], error) {
	path := ""
	if a.OutputFile != "" {
		if err := registry.AllowWrite(ctx, "output_file"); err != nil {
			return nil, err
		}
		var err error
		if path, err = registry.ResolveWritePath(ctx, "output_file", a.OutputFile); err != nil {
			return nil, err
		}
	}
	res, _, err := compileRun(ctx, a.compileArgs, a.PipelineName, compiler.Compile)
	if err != nil {
		return nil, err
	}
	data, err := definitionData(res)
	if err != nil {
		return nil, err
	}
	if path != "" {
		if err := ctx.Err(); err != nil {
			return nil, envelope.Errorf(envelope.CodeCancelled, "cancelled before writing %s: %v", a.OutputFile, err)
		}
		// The file holds the definition as the answer would (the compiler's
		// bytes), written atomically.
		if err := safefs.From(ctx).WriteFile(path, data.Definition, 0o644); err != nil {
			return nil, registry.FileError("output_file", a.OutputFile, err)
		}
		data.Definition, data.DefinitionFile = nil, path
	}
	warnings := res.Warnings
	if n := data.DefinitionBytes; n > sagemaker.MaxDefinitionBytes {
		warnings = append(warnings, fmt.Sprintf("the definition is %d bytes; CreatePipeline accepts at most %d, so it cannot be deployed inline", n, sagemaker.MaxDefinitionBytes))
	}
	out := envelope.Success(data).WithWarnings(warnings...).WithMeta("pipeline_name", res.PipelineName).WithMeta("step_count", len(res.Definition.Steps)).
		WithMeta("deployable", res.Deployable()).WithVerdict(res.Deployable())
	if missing := res.Manifest.MissingFiles(); len(missing) > 0 {
		out = out.WithMeta("missing_files", missing)
	}
	if !res.Deployable() {
		return out.WithNextSteps(blockerNextSteps(res.Blockers, a.namedCompileArgs)...), nil
	}
	return out.WithNextSteps(runLocalStep(res, a),
		envelope.NextStep{Tool: "compile.dag", When: "the definition is what you want", Why: "deploy it", ArgsHint: a.namedCompileArgs.hint("upsert", true)}), nil
}

// runLocalStep offers execution.run_local for a compiled pipeline, with
// generated data standing in for each S3 input it reads of the user's
// (localrun.DataKeys), so the run needs nothing the answers have not said.
func runLocalStep(res *compiler.Result, a definitionArgs) envelope.NextStep {
	h := a.namedCompileArgs.hint("work_dir", "runs/local")
	why := "runs every step on this machine, as SageMaker would, to prove the pipeline runs end to end"
	if keys := localrun.DataKeys(res); len(keys) > 0 {
		h["generate_data"] = keys
		why += "; generate_data stands generated data (the trainer's columns) in for " + strings.Join(keys, ", ") + " (give data {uri: local file} instead to run on a sample of yours)"
	}
	return envelope.NextStep{Tool: "execution.run_local", When: "before deploying", Why: why, ArgsHint: h}
}

// CompileWithReportData is the data of compile.with_report: how each node
// was compiled (resolution_details by node, nodes in step order) and the
// branches of the quality gates.
type CompileWithReportData struct {
	PipelineName      string                                     `json:"pipeline_name"`
	Steps             []catalog.NodeName                         `json:"steps"`
	ResolutionDetails map[catalog.NodeName]CompileNodeResolution `json:"resolution_details"`
	AvgConfidence     float64                                    `json:"avg_confidence"`
	Warnings          []string                                   `json:"warnings"`
	Metadata          CompileReportMetadata                      `json:"metadata"`
	StepCount         int                                        `json:"step_count"`
	Nodes             []compiler.NodeReport                      `json:"nodes"`
	Summary           string                                     `json:"summary"`
	Branches          []compiler.BranchReport                    `json:"branches,omitempty"`
}

// CompileNodeResolution is how one node of compile.with_report resolved:
// its config, step type, builder and SageMaker step, and the gate whose
// branch holds it.
type CompileNodeResolution struct {
	ConfigKey         catalog.ConfigKey         `json:"config_key"`
	ConfigType        string                    `json:"config_type"`
	BuilderType       string                    `json:"builder_type"`
	Confidence        float64                   `json:"confidence"`
	Method            string                    `json:"method"`
	StepType          catalog.StepType          `json:"step_type"`
	SageMakerStepName catalog.SageMakerStepName `json:"sagemaker_step_name"`
	SageMakerStepType catalog.Verb              `json:"sagemaker_step_type"`
	Branch            catalog.NodeName          `json:"branch,omitempty"`
}

// CompileReportMetadata is the size of the compiled DAG and the config
// file it was compiled with.
type CompileReportMetadata struct {
	DAGNodes   int    `json:"dag_nodes"`
	DAGEdges   int    `json:"dag_edges"`
	ConfigPath string `json:"config_path"`
}

func compileWithReport(ctx context.Context, a namedCompileArgs) (*envelope.Result[CompileWithReportData], error) {
	res, _, err := compileRun(ctx, a.compileArgs, a.PipelineName, compiler.Compile)
	if err != nil {
		return nil, err
	}
	r := res.Report
	steps := make([]catalog.NodeName, len(r.Nodes))
	details := make(map[catalog.NodeName]CompileNodeResolution, len(r.Nodes))
	var warnings []string
	for i, n := range r.Nodes {
		steps[i] = n.Node
		details[n.Node] = CompileNodeResolution{
			ConfigKey: n.ConfigKey, ConfigType: n.ConfigClass, BuilderType: n.Builder, Confidence: n.Confidence,
			Method: n.Method, StepType: n.StepType, SageMakerStepName: n.StepName, SageMakerStepType: n.Verb, Branch: n.Branch,
		}
		if n.Confidence < compiler.LowConfidence {
			warnings = append(warnings, fmt.Sprintf("node %s resolved with low confidence %.2f", n.Node, n.Confidence))
		}
	}
	warnings = append(warnings, res.Warnings...)
	nodes := r.Nodes
	if nodes == nil {
		nodes = []compiler.NodeReport{}
	}
	data := CompileWithReportData{
		PipelineName:      res.PipelineName,
		Steps:             steps,
		ResolutionDetails: details,
		AvgConfidence:     r.AvgConfidence,
		Warnings:          nonNilList(warnings),
		Metadata:          CompileReportMetadata{DAGNodes: r.DAGNodes, DAGEdges: r.DAGEdges, ConfigPath: a.ConfigFile},
		StepCount:         len(steps),
		Nodes:             nodes,
		Summary:           fmt.Sprintf("Compiled %d steps into pipeline %s (average confidence %.2f)", len(steps), res.PipelineName, r.AvgConfidence),
		Branches:          r.Branches,
	}
	return envelope.Success(data).WithWarnings(warnings...).WithMeta("step_count", len(steps)), nil
}

// CompileSingleNodeData is the data of compile.single_node: the one-step
// pipeline's definition (as compile.definition's) and the node it builds.
type CompileSingleNodeData struct {
	CompileDefinitionData
	TargetNode string `json:"target_node"`
}

func compileSingleNode(ctx context.Context, a singleNodeArgs) (*envelope.Result[CompileSingleNodeData], error) {
	cfg, err := configFilePath(ctx, a.ConfigFile)
	if err != nil {
		return nil, err
	}
	target := strings.TrimSpace(a.TargetNode)
	if target == "" {
		return nil, envelope.InvalidInput("target_node must not be blank")
	}
	var d *dag.PipelineDAG
	if dagGiven(a.DAG, a.DAGFile, a.DagID) {
		if d, err = loadDAGArg(ctx, a.DAG, a.DAGFile, a.DagID); err != nil {
			return nil, err
		}
	}
	validate := a.ValidateInputs == nil || *a.ValidateInputs
	in := compiler.Input{DAG: d, ConfigFile: cfg, PipelineName: strings.TrimSpace(a.PipelineName), Role: strings.TrimSpace(a.Role), FS: safefs.From(ctx)}
	if in.Catalog, err = workspaceCatalog(ctx, a.WorkspaceDirs); err != nil {
		return nil, err
	}
	res, err := compiler.CompileSingleNode(ctx, compiler.SingleNodeInput{
		Input:          in,
		Target:         target,
		ManualInputs:   a.ManualInputs,
		ValidateInputs: validate,
	})
	if err != nil {
		return nil, toolError(err)
	}
	data, err := definitionData(res)
	if err != nil {
		return nil, err
	}
	note := "build only: nothing was uploaded or deployed; deploy the definition with your own tooling"
	if !res.Deployable() {
		note = "build only: nothing was uploaded or deployed, and the definition is not deployable as it is (data.blockers)"
	}
	return envelope.Success(CompileSingleNodeData{CompileDefinitionData: data, TargetNode: target}).
		WithWarnings(append(res.Warnings, note)...).
		WithMeta("target_node", target).WithVerdict(res.Deployable()), nil
}

// CompileNameData is the data of compile.name: the generated name (when
// base was given) and the sanitized one (when sanitize was), each with
// whether it is a legal SageMaker pipeline name.
type CompileNameData struct {
	Generated        string `json:"generated,omitempty"`
	GeneratedIsValid *bool  `json:"generated_is_valid,omitempty"`
	Sanitized        string `json:"sanitized,omitempty"`
	SanitizedIsValid *bool  `json:"sanitized_is_valid,omitempty"`
}

func compileName(_ context.Context, a nameArgs) (*envelope.Result[CompileNameData], error) {
	base, san := strings.TrimSpace(a.Base), a.Sanitize
	if base == "" && san == "" {
		return nil, envelope.InvalidInput("provide base (to generate a name) and/or sanitize (to clean one)").
			WithRemedy(`call compile.name {"base": "<pipeline_name>", "version": "<pipeline_version>"}`, "compile.name")
	}
	var data CompileNameData
	if base != "" {
		g := compiler.GeneratePipelineName(base, a.Version)
		valid := compiler.IsValidPipelineName(g)
		data.Generated, data.GeneratedIsValid = g, &valid
	}
	if san != "" {
		s := compiler.SanitizePipelineName(san)
		valid := compiler.IsValidPipelineName(s)
		data.Sanitized, data.SanitizedIsValid = s, &valid
	}
	return envelope.Success(data), nil
}

// CompileDAGData is the data of compile.dag: the compiled pipeline and
// its readiness gate, and with upsert what the deployment did (the
// upload and the pipeline's creation, update or no change; tags_applied
// false when an update went live but its tags failed). The upsert's fields
// are pointers: absent without upsert, present (lists never null) with it.
type CompileDAGData struct {
	PipelineName string `json:"pipeline_name"`
	// Region is the pipeline's AWS region (the config's, or the region argument): its images
	// are from there and upsert deploys there.
	Region          string             `json:"region,omitempty"`
	StepCount       int                `json:"step_count"`
	Upserted        bool               `json:"upserted"`
	Deployable      bool               `json:"deployable"`
	Blockers        []compiler.Blocker `json:"blockers"`
	Confirm         []compiler.Blocker `json:"confirm"`
	DefinitionBytes int                `json:"definition_bytes,omitempty"`
	PipelineARN     string             `json:"pipeline_arn,omitempty"`
	Created         *bool              `json:"created,omitempty"`
	Updated         *bool              `json:"updated,omitempty"`
	Unchanged       *bool              `json:"unchanged,omitempty"`
	TagsAdded       *[]string          `json:"tags_added,omitempty"`
	Uploaded        *[]string          `json:"uploaded,omitempty"`
	Skipped         *[]string          `json:"skipped,omitempty"`
	DefinitionS3URI string             `json:"definition_s3_uri,omitempty"`
	TagsApplied     *bool              `json:"tags_applied,omitempty"`
}

func compileDAG(ctx context.Context, a dagCompileArgs) (*envelope.Result[CompileDAGData], error) {
	region, err := resolveRegionArg("region", strings.TrimSpace(a.Region))
	if err != nil {
		return nil, err
	}
	res, _, err := compileRun(ctx, a.compileArgs, a.PipelineName, func(ctx context.Context, in compiler.Input) (*compiler.Result, error) {
		in.Region = region
		return compiler.Compile(ctx, in)
	})
	if err != nil {
		return nil, err
	}
	data := CompileDAGData{PipelineName: res.PipelineName, Region: res.Region, StepCount: len(res.Definition.Steps),
		Deployable: res.Deployable(), Blockers: blockerItems(res.Blockers), Confirm: blockerItems(res.Confirm)}
	if !a.Upsert {
		note := "build only: the pipeline was compiled but not deployed; pass upsert: true to upload the code and create or update it in SageMaker"
		if !res.Deployable() {
			note = "build only, and not deployable: upsert would refuse until data.blockers is empty"
		}
		return envelope.Success(data).WithWarnings(append(res.Warnings, note)...).
			WithMeta("upserted", false).WithVerdict(res.Deployable()).
			WithNextSteps(envelope.NextStep{Tool: "compile.definition", When: "you want to inspect the definition", Why: "returns the definition JSON and the upload manifest", ArgsHint: a.namedCompileArgs.hint()}), nil
	}
	// The readiness gate comes before any AWS call: nothing is uploaded.
	if !res.Deployable() {
		return nil, envelope.Errorf(envelope.CodeNotDeployable, "pipeline %s is not deployable: %s (nothing was uploaded or created)", res.PipelineName, compiler.BlockerSummary(res.Blockers)).
			WithDetails("blockers", res.Blockers, "pipeline_name", res.PipelineName).
			WithRemedy("fix every blocker (each names its node, field, fix and tool), then check with compile.validate", blockerTools(res.Blockers)...)
	}
	if len(res.Confirm) > 0 && !a.Confirmed && !loopbackSageMaker() {
		return nil, envelope.Errorf(envelope.CodeNotDeployable, "pipeline %s holds example values: %s (nothing was uploaded or created)", res.PipelineName, compiler.BlockerSummary(res.Confirm)).
			WithDetails("confirm", res.Confirm, "pipeline_name", res.PipelineName).
			WithRemedy("replace each value in data.confirm with your own (config.merge_save); if they really are yours, call again with confirmed: true", "config.merge_save")
	}
	if res.Role == "" {
		return nil, envelope.InvalidInput("upsert needs an IAM role: set role in the config or pass role").WithRemedy("pass role: arn:aws:iam::<account>:role/<name>")
	}
	return upsertCompiled(ctx, res, a.Tags, data, region != "")
}

// loopbackSageMaker reports whether SageMaker is reached through an
// endpoint on a loopback address (AWS_ENDPOINT_URL_SAGEMAKER, else
// AWS_ENDPOINT_URL): an emulator such as moto, where example values create
// nothing real, so the confirm list does not stop an upsert there.
func loopbackSageMaker() bool {
	ep := os.Getenv("AWS_ENDPOINT_URL_SAGEMAKER")
	if ep == "" {
		ep = os.Getenv("AWS_ENDPOINT_URL")
	}
	u, err := url.Parse(ep)
	if ep == "" || err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
