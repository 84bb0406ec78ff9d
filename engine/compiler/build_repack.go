package compiler

import (
	"fmt"
	"strconv"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/sagemaker"
)

// This file repacks a model with its inference code, as the SageMaker
// SDK's ModelStep does with its _RepackModelStep: the PyTorch serving
// images from 1.2 on (the SageMaker PyTorch inference toolkit) read
// inference code only from the model archive's code/ folder, and a model
// under network isolation cannot fetch an S3 submit directory. For such a
// model the compiler adds a Training step, <model step>-RepackModel, that
// runs the catalog's repack_model.py in the scikit-learn image of the
// pipeline's region: it unpacks the trained model.tar.gz (channel model)
// and the inference code's sourcedir.tar.gz (channel inference_code) into
// one archive, the model then serves with SAGEMAKER_SUBMIT_DIRECTORY
// /opt/ml/model/code. It is an ordinary training job: a local run runs it
// as it runs any other.

// The repack job, as the SDK runs it: the scikit-learn image of its
// FRAMEWORK_VERSION on its INSTANCE_TYPE.
const (
	repackScript           = "repack_model.py"
	repackFrameworkVersion = "1.2-1"
	repackInstanceType     = "ml.m5.large"
	repackVolumeGB         = 30
	repackStepSuffix       = "-RepackModel"
	// repackModelChannel and repackCodeChannel are the repack job's input
	// channels: the trained model and the inference code.
	repackModelChannel = "model"
	repackCodeChannel  = "inference_code"
)

// Why a model is repacked (repackReason's answers).
const (
	repackServingImage = "serving_image"
	repackIsolation    = "network_isolation"
)

// repackReason says why the model of step p must carry its inference code
// inside its archive ("" when it need not): its serving image reads code
// only from /opt/ml/model/code (sagemaker.ServingCodeInModel), or the
// model runs under network isolation and cannot fetch code from S3.
func (p *nodePlan) repackReason(isolated bool) (string, error) {
	fw, version, err := p.framework()
	if err != nil {
		return "", err
	}
	switch {
	case sagemaker.ServingCodeInModel(fw, version):
		return repackServingImage, nil
	case isolated:
		return repackIsolation, nil
	}
	return "", nil
}

// repackStepName is the name of the repack step of model step owner.
func repackStepName(owner catalog.SageMakerStepName) catalog.SageMakerStepName {
	return owner + repackStepSuffix
}

// repack adds the Training step that repacks model (the trained
// archive's reference) with the inference code at codeURI (a
// sourcedir.tar.gz whose program is the serving script) before step p,
// and returns the repacked archive: the repack job's
// ModelArtifacts.S3ModelArtifacts.
func (e *buildEnv) repack(p *nodePlan, model any, codeURI, program string) (any, error) {
	name := repackStepName(p.Name)
	if !IsValidStepName(name) {
		return nil, fmt.Errorf("the model's repack step would be named %s, which is not a legal SageMaker step name (1-64 letters, digits, - and _): give the node a shorter job type", name)
	}
	for _, np := range e.nodes {
		if np.Name == name {
			return nil, fmt.Errorf("the model's repack step %s has the step name of node %s: step names are unique across the definition", name, np.Node)
		}
	}
	region, err := e.awsRegion(p)
	if err != nil {
		return nil, err
	}
	image, err := e.images("sklearn", repackFrameworkVersion, region, "", repackInstanceType, sagemaker.ScopeTraining)
	if err != nil {
		return nil, p.imageError("region", fmt.Sprintf("no scikit-learn image for the model's repack job: %v", err), err)
	}
	role, err := e.role(p)
	if err != nil {
		return nil, err
	}
	script, ok := catalog.EmbeddedCode(repackScript)
	if !ok {
		return nil, fmt.Errorf("the catalog ships no %s", repackScript)
	}
	scriptURI, _, err := e.artifacts.addCode(name, KindSourceTarball, script, "sourcedir.tar.gz")
	if err != nil {
		return nil, err
	}
	vpc, _, err := e.network(p)
	if err != nil {
		return nil, err
	}
	kms, err := e.kmsKey(p)
	if err != nil {
		return nil, err
	}
	volumeKMS, err := e.volumeKMS(p, kms, repackInstanceType)
	if err != nil {
		return nil, err
	}
	channel := func(channel string, uri any) Channel {
		return Channel{DataSource: DataSource{S3DataSource: S3DataSource{S3DataType: "S3Prefix", S3Uri: uri, S3DataDistributionType: "FullyReplicated"}}, ChannelName: channel}
	}
	args := &TrainingArguments{
		AlgorithmSpecification: AlgorithmSpecification{TrainingInputMode: "File", TrainingImage: image},
		OutputDataConfig:       OutputDataConfig{S3OutputPath: JoinOn("/", e.prefix, catalog.CanonicalToSnake(p.Step.Type), "repacked"), KmsKeyId: kms},
		StoppingCondition:      StoppingCondition{MaxRuntimeInSeconds: defaultTrainingRuntime},
		ResourceConfig:         ResourceConfig{VolumeSizeInGB: repackVolumeGB, InstanceCount: 1, InstanceType: repackInstanceType, VolumeKmsKeyId: volumeKMS},
		RoleArn:                role,
		InputDataConfig:        []Channel{channel(repackModelChannel, model), channel(repackCodeChannel, codeURI)},
		HyperParameters: map[string]any{
			"sagemaker_program":             strconv.Quote(repackScript),
			"sagemaker_submit_directory":    strconv.Quote(scriptURI),
			"sagemaker_container_log_level": "20",
			"sagemaker_region":              strconv.Quote(region),
			"inference_program":             strconv.Quote(program),
		},
		VpcConfig: vpc,
	}
	tags, err := e.tags(p, settingsJob)
	if err != nil {
		return nil, err
	}
	args.Tags = tags
	st := Step{Name: name, Type: StepTypeTraining, Arguments: args}
	if len(p.Parents) > 0 {
		st.DependsOn = append([]catalog.SageMakerStepName(nil), p.Parents...)
	}
	if st.CacheConfig, err = e.cacheConfig(p, true); err != nil {
		return nil, err
	}
	e.added[p.Name] = append(e.added[p.Name], st)
	return StepProperty(name, "properties.ModelArtifacts.S3ModelArtifacts"), nil
}
