package compiler

import (
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/sagemaker"
)

// findPort returns the first input port of the step matching pred.
func findPort(s *catalog.Step, pred func(catalog.InputPort) bool) (catalog.InputPort, bool) {
	for _, port := range s.Inputs {
		if pred(port) {
			return port, true
		}
	}
	return catalog.InputPort{}, false
}

func isModelArtifactsPort(port catalog.InputPort) bool {
	return port.Type == catalog.DepModelArtifacts
}

// modelCodeDir is where a framework container finds the inference code a
// repacked model archive holds under code/ (the SDK's repack convention).
const modelCodeDir = "/opt/ml/model/code"

// servedModel returns what a framework model's container serves: its
// ModelDataUrl and its environment, as the SageMaker SDK sets it:
// SAGEMAKER_PROGRAM (the inference script), SAGEMAKER_SUBMIT_DIRECTORY
// (where its code is), SAGEMAKER_CONTAINER_LOG_LEVEL 20 and
// SAGEMAKER_REGION, plus the contract's variables. entry is the script
// ("" names none: no framework variables, the model as it is).
//
// Where the code is:
//   - a repacked archive (a processing step's model.tar.gz, such as
//     Package's) holds it: /opt/ml/model/code;
//   - a model whose container reads code only from its archive (the
//     PyTorch serving images from 1.2 on) or that runs under network
//     isolation gets a repack step (repack): the code is packed into
//     sourcedir.tar.gz, the repack job writes it into the archive, and
//     the model serves the repack job's archive from /opt/ml/model/code;
//   - else the code is packed into sourcedir.tar.gz and the submit
//     directory is its S3 URI.
func (e *buildEnv) servedModel(p *nodePlan, model *Binding, entry string, isolated bool) (any, map[string]any, error) {
	env, err := e.environment(p)
	if err != nil {
		return nil, nil, err
	}
	url := objectIn(model.Value, modelArchive)
	if entry == "" {
		return url, env, nil
	}
	region, err := e.awsRegion(p)
	if err != nil {
		return nil, nil, err
	}
	program, submit := entry, modelCodeDir
	if !isProcessingOutput(model.Value) {
		dir, useDir, err := e.sourceDir(p)
		if err != nil {
			return nil, nil, err
		}
		code, prog, err := e.sourceTarball(p, dir, entry, useDir)
		if err != nil {
			return nil, nil, err
		}
		program = prog
		why, err := p.repackReason(isolated)
		if err != nil {
			return nil, nil, err
		}
		if why != "" {
			if url, err = e.repack(p, model.Value, code, program); err != nil {
				return nil, nil, err
			}
		} else {
			submit = code
		}
	}
	env["SAGEMAKER_PROGRAM"] = program
	env["SAGEMAKER_SUBMIT_DIRECTORY"] = submit
	env["SAGEMAKER_CONTAINER_LOG_LEVEL"] = "20"
	env["SAGEMAKER_REGION"] = region
	return url, env, nil
}

// inferenceEntry returns the inference script of a model step: its
// inference_entry_point field when the step declares one (a model
// package's script inside the packaged model), else its entry point.
func (p *nodePlan) inferenceEntry() (string, error) {
	if _, declared := p.Step.Field("inference_entry_point"); declared {
		ep, err := p.Values.str("inference_entry_point", "")
		if err != nil || ep != "" {
			return ep, err
		}
	}
	ep, _, err := p.entryPoint()
	return ep, err
}

// buildModel builds a CreateModel-shaped step (Type "Model"): the framework
// inference image, the model artefacts of the bound model input, the
// inference script packed as the submit directory. No cache config.
func (e *buildEnv) buildModel(p *nodePlan) (*ModelArguments, error) {
	port, ok := findPort(p.Step, isModelArtifactsPort)
	if !ok {
		return nil, fmt.Errorf("step type %s declares no model_artifacts input for the model data", p.Step.Type)
	}
	b, err := e.input(p, port)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, &UnboundInputError{Node: p.Node, StepName: p.Name, Input: port.LogicalName, Detail: "a model needs its artefacts: add an edge from a training step"}
	}
	itype, _, err := e.instanceType(p, "ml.m5.large")
	if err != nil {
		return nil, err
	}
	image, role, err := e.imageAndRole(p, itype)
	if err != nil {
		return nil, err
	}
	entry, err := p.inferenceEntry()
	if err != nil {
		return nil, err
	}
	vpc, iso, err := e.network(p)
	if err != nil {
		return nil, err
	}
	url, env, err := e.servedModel(p, b, entry, iso != nil && *iso)
	if err != nil {
		return nil, err
	}
	return &ModelArguments{
		ExecutionRoleArn:       role,
		PrimaryContainer:       ContainerDefinition{Image: image, Environment: env, ModelDataUrl: url},
		VpcConfig:              vpc,
		EnableNetworkIsolation: iso,
	}, nil
}

// buildTransform builds a CreateTransformJob-shaped step: the model name
// from the bound model input, the data from the other bound input, the
// output under the execution prefix, and the record handling of the
// config (defaults: text/csv, Line, $[1:], $[0,-1], Input).
func (e *buildEnv) buildTransform(p *nodePlan) (*TransformArguments, error) {
	var modelPort, dataPort *catalog.InputPort
	for i := range p.Step.Inputs {
		port := &p.Step.Inputs[i]
		isModel := port.LogicalName == "model_name" ||
			(port.Type == catalog.DepCustomProperty && strings.Contains(strings.ToLower(port.LogicalName), "model"))
		switch {
		case isModel && modelPort == nil:
			modelPort = port
		case !isModel && dataPort == nil:
			dataPort = port
		}
	}
	if modelPort == nil || dataPort == nil {
		return nil, fmt.Errorf("step type %s needs a model_name input and a data input", p.Step.Type)
	}
	mb, err := e.input(p, *modelPort)
	if err != nil {
		return nil, err
	}
	db, err := e.input(p, *dataPort)
	if err != nil {
		return nil, err
	}
	if mb == nil {
		return nil, &UnboundInputError{Node: p.Node, StepName: p.Name, Input: modelPort.LogicalName, Detail: "a transform needs a model: add an edge from a model step"}
	}
	if db == nil {
		return nil, &UnboundInputError{Node: p.Node, StepName: p.Name, Input: dataPort.LogicalName, Detail: "a transform needs input data"}
	}
	itype, itypeVal, err := e.instanceType(p, "ml.m5.large")
	if err != nil {
		return nil, err
	}
	kms, err := e.kmsKey(p)
	if err != nil {
		return nil, err
	}
	volumeKMS, err := e.volumeKMS(p, kms, itype)
	if err != nil {
		return nil, err
	}
	count, err := e.instanceCount(p, 1)
	if err != nil {
		return nil, err
	}
	// Each record-handling value is a literal or a parameter; a literal
	// must be one of the API's values where the API has a list.
	strs := map[string]any{}
	for _, f := range []struct {
		field, def string
		allowed    []string
	}{
		{"content_type", "text/csv", nil}, {"split_type", "Line", []string{"None", "Line", "RecordIO", "TFRecord"}},
		{"accept", "text/csv", nil}, {"assemble_with", "Line", []string{"None", "Line"}},
		{"input_filter", "$[1:]", nil}, {"output_filter", "$[0,-1]", nil}, {"join_source", "Input", []string{"Input", "None"}},
	} {
		var v any
		if f.allowed != nil {
			v, err = e.enumExpr(p, f.field, f.def, f.allowed...)
		} else {
			v, err = e.optionalExpr(p, f.field, f.def)
		}
		if err != nil {
			return nil, err
		}
		strs[f.field] = v
	}
	outName := "transform_output"
	if len(p.Step.Outputs) > 0 {
		outName = p.Step.Outputs[0].LogicalName
	}
	dest, err := e.outputDestination(p, outName)
	if err != nil {
		return nil, err
	}
	args := &TransformArguments{
		ModelName: mb.Value,
		TransformInput: TransformInput{
			DataSource:  TransformDataSource{S3DataSource: TransformS3DataSource{S3DataType: "S3Prefix", S3Uri: db.Value}},
			ContentType: strs["content_type"],
			SplitType:   omitEmpty(strs["split_type"]),
		},
		TransformOutput: TransformOutput{
			S3OutputPath: dest,
			Accept:       strs["accept"],
			AssembleWith: omitEmpty(strs["assemble_with"]),
			KmsKeyId:     kms,
		},
		TransformResources: TransformResources{InstanceCount: count, InstanceType: itypeVal, VolumeKmsKeyId: volumeKMS},
	}
	if strs["input_filter"] != nil || strs["output_filter"] != nil || strs["join_source"] != "None" {
		args.DataProcessing = &DataProcessing{InputFilter: strs["input_filter"], OutputFilter: strs["output_filter"], JoinSource: strs["join_source"]}
	}
	env, err := e.environment(p)
	if err != nil {
		return nil, err
	}
	args.Environment = nonEmpty(env)
	return args, nil
}

// maxModelPackageGroupLen is the API's limit on a model package group name.
const maxModelPackageGroupLen = 63

var approvalStatuses = []string{"Approved", "Rejected", "PendingManualApproval"}

// buildRegisterModel builds a CreateModelPackage-shaped step: the bound
// model artefacts served by the framework inference image, registered in
// the config's model package group.
func (e *buildEnv) buildRegisterModel(p *nodePlan) (*RegisterModelArguments, error) {
	port, ok := findPort(p.Step, isModelArtifactsPort)
	if !ok {
		return nil, fmt.Errorf("step type %s declares no model_artifacts input for the model", p.Step.Type)
	}
	var model, payload *Binding
	for _, in := range p.Step.Inputs {
		b, err := e.input(p, in)
		if err != nil {
			return nil, err
		}
		switch {
		case b == nil:
		case in.LogicalName == port.LogicalName:
			model = b
		case in.Type == catalog.DepPayloadSamples && payload == nil:
			payload = b
		default:
			e.warnf("step %s: input %s is bound but a model package has no place for it; it only orders the steps", p.Name, in.LogicalName)
		}
	}
	if model == nil {
		return nil, &UnboundInputError{Node: p.Node, StepName: p.Name, Input: port.LogicalName, Detail: "a model package needs model artefacts"}
	}
	itype, itypeVal, err := e.instanceType(p, "ml.m5.large")
	if err != nil {
		return nil, err
	}
	image, err := e.image(p, itype)
	if err != nil {
		return nil, err
	}
	group, err := e.modelPackageGroup(p)
	if err != nil {
		return nil, err
	}
	status, err := e.enumExpr(p, "model_approval_status", "PendingManualApproval", approvalStatuses...)
	if err != nil {
		return nil, err
	}
	desc, err := e.modelPackageDescription(p)
	if err != nil {
		return nil, err
	}
	contentTypes, err := e.listOr(p, []any{"text/csv"}, "source_model_inference_content_types", "supported_content_types", "content_types")
	if err != nil {
		return nil, err
	}
	responseTypes, err := e.listOr(p, []any{"application/json"}, "source_model_inference_response_types", "supported_response_types", "response_types")
	if err != nil {
		return nil, err
	}
	realtime, err := e.listOr(p, []any{itypeVal}, "supported_realtime_inference_instance_types", "supported_realtime_instance_types")
	if err != nil {
		return nil, err
	}
	transform, err := e.listOr(p, []any{itypeVal}, "supported_transform_instance_types")
	if err != nil {
		return nil, err
	}
	entry, err := p.inferenceEntry()
	if err != nil {
		return nil, err
	}
	url, env, err := e.servedModel(p, model, entry, false)
	if err != nil {
		return nil, err
	}
	metrics, err := e.modelMetrics(p)
	if err != nil {
		return nil, err
	}
	framework, version, err := packageFramework(p)
	if err != nil {
		return nil, err
	}
	args := &RegisterModelArguments{
		ModelPackageGroupName:   group,
		ModelPackageDescription: desc,
		ModelMetrics:            metrics,
		InferenceSpecification: InferenceSpecification{
			Containers: []PackageContainer{{Image: image, Environment: nonEmpty(env), ModelDataUrl: url,
				Framework: framework, FrameworkVersion: version}},
			SupportedContentTypes:                   contentTypes,
			SupportedResponseMIMETypes:              responseTypes,
			SupportedRealtimeInferenceInstanceTypes: realtime,
			SupportedTransformInstanceTypes:         transform,
		},
		ModelApprovalStatus: status,
	}
	if payload != nil {
		args.SamplePayloadUrl = objectIn(payload.Value, payloadArchive)
	}
	return args, nil
}

// registryFrameworks are the names the model registry (and Inference
// Recommender) gives the frameworks of our images.
var registryFrameworks = map[string]string{"xgboost": "XGBOOST", "pytorch": "PYTORCH", "sklearn": "SAGEMAKER-SCIKIT-LEARN",
	"lightgbm": "PYTORCH", "lightgbmmt": "PYTORCH"}

// packageFramework returns the Framework and FrameworkVersion of a model
// package's container, as the SDK's RegisterModel writes them: the
// framework of the step's image and its version; "" when the step names no
// framework the registry knows.
func packageFramework(p *nodePlan) (string, string, error) {
	fw, version, err := p.framework()
	if err != nil || registryFrameworks[fw] == "" {
		return "", "", err
	}
	return registryFrameworks[fw], version, nil
}

// modelMetrics returns the ModelMetrics of a model package: the model's
// evaluation report as its ModelQuality statistics, as the SDK's
// RegisterModel takes it (model_statistics). The report is the nearest
// DAG ancestor's output that declares a report_file (an evaluation step's
// metrics.json), read where that output lands: Join("/", the output's S3
// location, report file). Nil when no ancestor writes one.
func (e *buildEnv) modelMetrics(p *nodePlan) (*ModelMetrics, error) {
	byStep := make(map[catalog.SageMakerStepName]*nodePlan, len(e.nodes))
	for _, np := range e.nodes {
		byStep[np.Name] = np
	}
	seen := map[catalog.SageMakerStepName]bool{p.Name: true}
	queue := append([]catalog.SageMakerStepName(nil), p.Parents...)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		np := byStep[name]
		if np == nil {
			continue
		}
		if np.Step.Verb == catalog.VerbProcessing {
			for _, out := range np.Step.Outputs {
				if out.ReportFile == "" {
					continue
				}
				uri := JoinOn("/", StepProperty(np.Name, out.PropertyPath), out.ReportFile)
				return &ModelMetrics{ModelQuality: &ModelQuality{Statistics: &MetricsSource{ContentType: "application/json", S3Uri: uri}}}, nil
			}
		}
		queue = append(queue, np.Parents...)
	}
	return nil, nil
}

// modelPackageGroup returns model_package_group_name (a literal or a
// parameter), else one derived from the config's pipeline name (sanitized,
// at most 63 characters).
func (e *buildEnv) modelPackageGroup(p *nodePlan) (any, error) {
	if x, ok := p.Values.lookup("model_package_group_name"); ok {
		if v, isRef, err := e.textRef("model_package_group_name", x); isRef {
			return v, err
		}
	}
	g, f, err := p.Values.firstStr("", "model_package_group_name", "pipeline_name")
	if err != nil {
		return "", err
	}
	if f == "pipeline_name" || f == "" {
		if g == "" {
			g = string(p.Step.Type)
		}
		g = SanitizePipelineName(g + "-models")
		if len(g) > 63 {
			g = strings.TrimRight(g[:63], "-")
		}
		return g, nil
	}
	if !(len(g) <= maxModelPackageGroupLen && sagemaker.HasNameShape(g)) && !strings.HasPrefix(g, "arn:") {
		return "", &fieldError{"model_package_group_name", fmt.Sprintf("model package group %q: 1-63 letters, digits and hyphens, not starting or ending with a hyphen", g)}
	}
	return g, nil
}

// modelPackageDescription returns model_package_description, else the
// pipeline description; either may be a parameter.
func (e *buildEnv) modelPackageDescription(p *nodePlan) (any, error) {
	for _, f := range []string{"model_package_description", "pipeline_description"} {
		if v, err := e.optionalExpr(p, f, ""); err != nil || v != nil {
			return v, err
		}
	}
	return nil, nil
}

// listOr returns the first set, non-empty list field among fields (items
// may be parameters), else def.
func (e *buildEnv) listOr(p *nodePlan, def []any, fields ...string) ([]any, error) {
	for _, f := range fields {
		if p.Values.has(f) {
			l, err := e.strListExpr(p, f)
			if err != nil || len(l) > 0 {
				return l, err
			}
		}
	}
	return def, nil
}

// omitEmpty returns nil for "", so an `any` field tagged omitempty is left
// out as a "" string field would be.
func omitEmpty(v any) any {
	if v == "" {
		return nil
	}
	return v
}

// The archives the model fields name: SageMaker's model.tar.gz (a training job's
// ModelArtifacts.S3ModelArtifacts, and the Package step's output), and the Payload step's
// payload.tar.gz.
const (
	modelArchive   = "model.tar.gz"
	payloadArchive = "payload.tar.gz"
)

// objectIn returns the one S3 object a field such as ModelDataUrl needs: a reference to a
// processing job's output location, which is a prefix, becomes the archive under it
// ({"Std:Join": {"On": "/", "Values": [<output>, file]}}); anything else (a training job's
// S3ModelArtifacts, a literal, a parameter) is left as it is.
func objectIn(v any, file string) any {
	if isProcessingOutput(v) {
		return JoinOn("/", v, file)
	}
	return v
}

// isProcessingOutput reports whether v is a reference to a processing
// job's output location (a prefix).
func isProcessingOutput(v any) bool {
	g, ok := v.(Get)
	return ok && strings.Contains(g.Get, ".ProcessingOutputConfig.Outputs[") && strings.HasSuffix(g.Get, ".S3Output.S3Uri")
}
