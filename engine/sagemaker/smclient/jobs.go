package smclient

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	sm "github.com/aws/aws-sdk-go-v2/service/sagemaker"
)

// The output names a local run (execution.run_local) gives a training job's model and a
// transform job's output; a processing job's outputs keep their OutputName.
const (
	OutputModelArtifacts  = "model_artifacts"
	OutputTransformResult = "transform_output"
)

// Channel is one input or output of a job and its S3 location.
type Channel struct {
	Name  string `json:"name"`
	S3URI string `json:"s3_uri"`
}

// JobIO is where a job read its inputs and wrote its outputs, as its Describe*Job call answers.
type JobIO struct {
	Kind          string    `json:"kind"` // TrainingJob, ProcessingJob or TransformJob
	Name          string    `json:"job_name"`
	Status        string    `json:"status"`
	FailureReason string    `json:"failure_reason,omitempty"`
	Inputs        []Channel `json:"inputs"`
	Outputs       []Channel `json:"outputs"`
}

// JobKinds are the step kinds (StepExecution.Kind) whose job JobIO describes.
var JobKinds = []string{"TrainingJob", "ProcessingJob", "TransformJob"}

// JobIO describes a step's job (DescribeTrainingJob, DescribeProcessingJob or
// DescribeTransformJob by kind): its status, failure reason, input channels and outputs (a
// training job's model artifact as OutputModelArtifacts, a transform job's output as
// OutputTransformResult, a processing job's by OutputName).
func (c *Client) JobIO(ctx context.Context, kind, name string) (*JobIO, error) {
	io := &JobIO{Kind: kind, Name: name, Inputs: []Channel{}, Outputs: []Channel{}}
	switch kind {
	case "ProcessingJob":
		out, err := c.sm.describeProcessingJob(ctx, &sm.DescribeProcessingJobInput{ProcessingJobName: aws.String(name)})
		if err != nil {
			return nil, newAWSError("sagemaker:DescribeProcessingJob", name, err)
		}
		io.Status, io.FailureReason = string(out.ProcessingJobStatus), aws.ToString(out.FailureReason)
		for _, in := range out.ProcessingInputs {
			if in.S3Input != nil {
				io.Inputs = append(io.Inputs, Channel{Name: aws.ToString(in.InputName), S3URI: aws.ToString(in.S3Input.S3Uri)})
			}
		}
		if oc := out.ProcessingOutputConfig; oc != nil {
			for _, o := range oc.Outputs {
				if o.S3Output != nil {
					io.Outputs = append(io.Outputs, Channel{Name: aws.ToString(o.OutputName), S3URI: aws.ToString(o.S3Output.S3Uri)})
				}
			}
		}
	case "TrainingJob":
		out, err := c.sm.describeTrainingJob(ctx, &sm.DescribeTrainingJobInput{TrainingJobName: aws.String(name)})
		if err != nil {
			return nil, newAWSError("sagemaker:DescribeTrainingJob", name, err)
		}
		io.Status, io.FailureReason = string(out.TrainingJobStatus), aws.ToString(out.FailureReason)
		for _, ch := range out.InputDataConfig {
			if ds := ch.DataSource; ds != nil && ds.S3DataSource != nil {
				io.Inputs = append(io.Inputs, Channel{Name: aws.ToString(ch.ChannelName), S3URI: aws.ToString(ds.S3DataSource.S3Uri)})
			}
		}
		if m := out.ModelArtifacts; m != nil && aws.ToString(m.S3ModelArtifacts) != "" {
			io.Outputs = append(io.Outputs, Channel{Name: OutputModelArtifacts, S3URI: aws.ToString(m.S3ModelArtifacts)})
		}
	case "TransformJob":
		out, err := c.sm.describeTransformJob(ctx, &sm.DescribeTransformJobInput{TransformJobName: aws.String(name)})
		if err != nil {
			return nil, newAWSError("sagemaker:DescribeTransformJob", name, err)
		}
		io.Status, io.FailureReason = string(out.TransformJobStatus), aws.ToString(out.FailureReason)
		if ti := out.TransformInput; ti != nil && ti.DataSource != nil && ti.DataSource.S3DataSource != nil {
			io.Inputs = append(io.Inputs, Channel{Name: "input", S3URI: aws.ToString(ti.DataSource.S3DataSource.S3Uri)})
		}
		if to := out.TransformOutput; to != nil && aws.ToString(to.S3OutputPath) != "" {
			io.Outputs = append(io.Outputs, Channel{Name: OutputTransformResult, S3URI: aws.ToString(to.S3OutputPath)})
		}
	default:
		return nil, &AWSError{Op: "describe job", Target: name, Message: fmt.Sprintf("a %s step runs no job whose inputs and outputs can be read", kind)}
	}
	return io, nil
}
