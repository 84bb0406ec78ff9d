package compiler

import (
	"fmt"
	"strings"
)

// Container paths of the code of a processing job and the names of its
// inputs.
const (
	processingCodeDir       = "/opt/ml/processing/input/code"
	processingCodeInput     = "code"
	processingLauncherInput = "entrypoint"
	// maxProcessingRuntime is the API's limit for processing jobs.
	maxProcessingRuntime = 432000
	// processingVolumeGB is the SDK's Processor volume_size_in_gb default.
	processingVolumeGB = 30
)

// buildProcessing builds a CreateProcessingJob-shaped step: the script
// (the project's, else the catalog's: see processingCode) is uploaded and
// mounted at /opt/ml/processing/input/code, alone (python3 runs it), or
// packed with the rest of its code into sourcedir.tar.gz, which the
// catalog's launcher runproc.py (input entrypoint) unpacks and runs; inputs
// are bound ports in declaration order followed by the code inputs; every
// output port is written under the execution prefix.
func (e *buildEnv) buildProcessing(p *nodePlan) (*ProcessingArguments, error) {
	c, err := e.computeOf(p, "ml.m5.2xlarge", processingVolumeGB)
	if err != nil {
		return nil, err
	}
	args := &ProcessingArguments{
		ProcessingResources: ProcessingResources{ClusterConfig: ClusterConfig{InstanceType: c.instanceType, InstanceCount: c.count, VolumeSizeInGB: c.volume}},
		AppSpecification:    AppSpecification{ImageUri: c.image},
		RoleArn:             c.role,
	}

	for _, port := range p.Step.Inputs {
		b, err := e.input(p, port)
		if err != nil {
			return nil, err
		}
		if b == nil {
			continue
		}
		if port.ContainerPath == "" {
			return nil, fmt.Errorf("input %s has no container path in step type %s", port.LogicalName, p.Step.Type)
		}
		args.ProcessingInputs = append(args.ProcessingInputs, processingInput(port.LogicalName, b.Value, port.ContainerPath))
	}

	entry, entryField, err := p.entryPoint()
	if err != nil {
		return nil, err
	}
	if entry == "" {
		return nil, &fieldError{entryField, fmt.Sprintf("step type %s has no script: set config field %s", p.Step.Type, entryField)}
	}
	dir, _, err := e.sourceDir(p)
	if err != nil {
		return nil, err
	}
	codeURI, entry, archive, err := e.processingCode(p, dir, entry)
	if err != nil {
		return nil, err
	}
	for _, in := range args.ProcessingInputs {
		if in.InputName == processingCodeInput || archive && in.InputName == processingLauncherInput {
			return nil, fmt.Errorf("input %s has the name of the job's code input; rename the port", in.InputName)
		}
	}
	args.ProcessingInputs = append(args.ProcessingInputs, processingInput(processingCodeInput, codeURI, processingCodeDir))
	args.AppSpecification.ContainerEntrypoint = []string{"python3", processingCodeDir + "/" + entry}
	switch {
	case p.Step.Compute.Kind == "byo_container":
		if args.AppSpecification.ContainerEntrypoint, err = containerEntrypoint(p); err != nil {
			return nil, err
		}
	case archive:
		launcher, err := e.launcher(p)
		if err != nil {
			return nil, err
		}
		args.ProcessingInputs = append(args.ProcessingInputs, processingInput(processingLauncherInput, launcher, processingLauncherDir))
		args.AppSpecification.ContainerEntrypoint = []string{"python3", processingLauncherDir + "/" + processingLauncher, entry}
	}
	if args.AppSpecification.ContainerArguments, err = e.jobArguments(p); err != nil {
		return nil, err
	}

	var outs []ProcessingOutput
	for _, port := range p.Step.Outputs {
		if port.ContainerPath == "" {
			return nil, fmt.Errorf("output %s has no container path in step type %s", port.LogicalName, p.Step.Type)
		}
		dest, err := e.outputDestination(p, port.LogicalName)
		if err != nil {
			return nil, err
		}
		outs = append(outs, ProcessingOutput{
			OutputName: port.LogicalName,
			S3Output: ProcessingS3Output{
				S3Uri:        dest,
				LocalPath:    port.ContainerPath,
				S3UploadMode: "EndOfJob",
			},
		})
	}
	kms, err := e.kmsKey(p)
	if err != nil {
		return nil, err
	}
	if args.ProcessingResources.ClusterConfig.VolumeKmsKeyId, err = e.volumeKMS(p, kms, c.itype); err != nil {
		return nil, err
	}
	if len(outs) > 0 {
		args.ProcessingOutputConfig = &ProcessingOutputConfig{Outputs: outs, KmsKeyId: kms}
	}

	env, err := e.environment(p)
	if err != nil {
		return nil, err
	}
	if err := checkEnv(p, env, 256); err != nil {
		return nil, err
	}
	if len(env) > 0 {
		args.Environment = env
	}
	if err := e.processingLimits(p, args); err != nil {
		return nil, err
	}
	return args, nil
}

// processingLimits sets what every processing job (a script's or a check's)
// reads the same way: its NetworkConfig (VPC, network isolation) and, only
// when the config sets max_runtime_in_seconds, its StoppingCondition (the
// SDK writes none by default).
func (e *buildEnv) processingLimits(p *nodePlan, args *ProcessingArguments) error {
	vpc, iso, err := e.network(p)
	if err != nil {
		return err
	}
	if vpc != nil || iso != nil {
		args.NetworkConfig = &NetworkConfig{EnableNetworkIsolation: iso != nil && *iso, VpcConfig: vpc}
	}
	if rt, set, err := e.maxRuntime(p, 0, maxProcessingRuntime); err != nil {
		return err
	} else if set {
		args.StoppingCondition = &StoppingCondition{MaxRuntimeInSeconds: rt}
	}
	return nil
}

func processingInput(name string, uri any, local string) ProcessingInput {
	return ProcessingInput{
		InputName: name,
		S3Input: ProcessingS3{
			S3Uri:                  uri,
			LocalPath:              strings.TrimSuffix(local, "/"),
			S3DataType:             "S3Prefix",
			S3InputMode:            "File",
			S3DataDistributionType: "FullyReplicated",
			S3CompressionType:      "None",
		},
	}
}

// containerEntrypoint is the command a byo_container processing job runs in
// its own image, as the SDK's Processor(entrypoint=...) writes it: the
// config field container_entrypoint when the step declares it and it is
// set, else the step file's compute.container_entrypoint. The step's code is
// mounted at /opt/ml/processing/input/code as for the other kinds, so the
// command can name its files there.
func containerEntrypoint(p *nodePlan) ([]string, error) {
	const field = "container_entrypoint"
	cmd := p.Step.Compute.ContainerEntrypoint
	if x, ok := p.Values.lookup(field); ok && x != nil {
		list, isList := x.([]any)
		if !isList {
			return nil, &fieldError{field, fmt.Sprintf("%s must be a list of strings (the command and its arguments), got %s", field, FormatValue(x))}
		}
		if len(list) > 0 {
			cmd = make([]string, len(list))
			for i, a := range list {
				s, isStr := a.(string)
				if !isStr || strings.TrimSpace(s) == "" {
					return nil, &fieldError{field, fmt.Sprintf("%s[%d] must be a non-empty string (a literal: the command is fixed when the pipeline is built), got %s", field, i, FormatValue(a))}
				}
				cmd[i] = s
			}
		}
	}
	if len(cmd) == 0 {
		return nil, &fieldError{field, fmt.Sprintf("step type %s runs its own container and has no command: set config field %s (e.g. [bash, %s/entrypoint.sh])", p.Step.Type, field, processingCodeDir)}
	}
	return cmd, nil
}
