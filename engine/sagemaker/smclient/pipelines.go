package smclient

import (
	"context"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sm "github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// PipelineSummary is one pipeline of ListPipelines.
type PipelineSummary struct {
	Name          string     `json:"pipeline_name"`
	ARN           string     `json:"pipeline_arn"`
	DisplayName   string     `json:"display_name,omitempty"`
	Description   string     `json:"description,omitempty"`
	Created       *time.Time `json:"created,omitempty"`
	Modified      *time.Time `json:"modified,omitempty"`
	LastExecution *time.Time `json:"last_execution,omitempty"`
}

// Pipelines lists the region's pipelines, newest first, whose name starts with prefix: one page
// of at most max (1-100; 0 means 20) from token (the next token of the previous page; "" for the
// first). It answers the page and the next token ("" at the end).
func (c *Client) Pipelines(ctx context.Context, prefix string, max int, token string) ([]PipelineSummary, string, error) {
	if max <= 0 {
		max = 20
	}
	out, err := c.sm.listPipelines(ctx, &sm.ListPipelinesInput{
		PipelineNamePrefix: optString(prefix), MaxResults: aws.Int32(int32(min(max, 100))), NextToken: optString(token),
		SortBy: smtypes.SortPipelinesByCreationTime, SortOrder: smtypes.SortOrderDescending,
	})
	if err != nil {
		return nil, "", newAWSError("sagemaker:ListPipelines", prefix, err)
	}
	list := make([]PipelineSummary, 0, len(out.PipelineSummaries))
	for _, p := range out.PipelineSummaries {
		list = append(list, PipelineSummary{Name: aws.ToString(p.PipelineName), ARN: aws.ToString(p.PipelineArn),
			DisplayName: aws.ToString(p.PipelineDisplayName), Description: aws.ToString(p.PipelineDescription),
			Created: p.CreationTime, Modified: p.LastModifiedTime, LastExecution: p.LastExecutionTime})
	}
	return list, aws.ToString(out.NextToken), nil
}

// Pipeline is a deployed pipeline as DescribePipeline answers it: the current version, or the
// version asked for.
type Pipeline struct {
	Name        string     `json:"pipeline_name"`
	ARN         string     `json:"pipeline_arn"`
	DisplayName string     `json:"display_name,omitempty"`
	Description string     `json:"description,omitempty"`
	Status      string     `json:"status,omitempty"`
	RoleARN     string     `json:"role_arn,omitempty"`
	Created     *time.Time `json:"created,omitempty"`
	Modified    *time.Time `json:"modified,omitempty"`
	LastRun     *time.Time `json:"last_run,omitempty"`
	// VersionID is the version described (0: the current one, whose id DescribePipeline does not
	// answer).
	VersionID int64 `json:"version_id,omitempty"`
	// MaxParallelSteps is the pipeline's ParallelismConfiguration (0: SageMaker's default).
	MaxParallelSteps int `json:"max_parallel_execution_steps,omitempty"`
	// Definition is the pipeline definition JSON of that version.
	Definition string `json:"-"`
}

// DescribePipeline reads a pipeline, its current version (version 0) or the given one. A missing
// pipeline is an *AWSError with NotFound.
func (c *Client) DescribePipeline(ctx context.Context, name string, version int64) (*Pipeline, error) {
	in := &sm.DescribePipelineInput{PipelineName: aws.String(name)}
	if version > 0 {
		in.PipelineVersionId = aws.Int64(version)
	}
	out, err := c.sm.describePipeline(ctx, in)
	if err != nil {
		return nil, newAWSError("sagemaker:DescribePipeline", name, err)
	}
	p := &Pipeline{Name: aws.ToString(out.PipelineName), ARN: aws.ToString(out.PipelineArn), DisplayName: aws.ToString(out.PipelineDisplayName),
		Description: aws.ToString(out.PipelineDescription), Status: string(out.PipelineStatus), RoleARN: aws.ToString(out.RoleArn),
		Created: out.CreationTime, Modified: out.LastModifiedTime, LastRun: out.LastRunTime, VersionID: version,
		Definition: aws.ToString(out.PipelineDefinition)}
	if p.Name == "" {
		p.Name = name
	}
	if pc := out.ParallelismConfiguration; pc != nil {
		p.MaxParallelSteps = int(aws.ToInt32(pc.MaxParallelExecutionSteps))
	}
	return p, nil
}

// PipelineVersion is one version of a pipeline (ListPipelineVersions): UpdatePipeline makes a new
// one.
type PipelineVersion struct {
	ID            int64      `json:"version_id"`
	DisplayName   string     `json:"display_name,omitempty"`
	Description   string     `json:"description,omitempty"`
	Created       *time.Time `json:"created,omitempty"`
	LastExecution string     `json:"last_execution_arn,omitempty"`
}

// PipelineVersions lists a pipeline's versions, newest first, at most max (0 means 10).
func (c *Client) PipelineVersions(ctx context.Context, name string, max int) ([]PipelineVersion, error) {
	if max <= 0 {
		max = 10
	}
	out, err := c.sm.listPipelineVersions(ctx, &sm.ListPipelineVersionsInput{PipelineName: aws.String(name),
		SortOrder: smtypes.SortOrderDescending, MaxResults: aws.Int32(int32(min(max, 100)))})
	if err != nil {
		return nil, newAWSError("sagemaker:ListPipelineVersions", name, err)
	}
	list := make([]PipelineVersion, 0, len(out.PipelineVersionSummaries))
	for _, v := range out.PipelineVersionSummaries {
		list = append(list, PipelineVersion{ID: aws.ToInt64(v.PipelineVersionId), DisplayName: aws.ToString(v.PipelineVersionDisplayName),
			Description: aws.ToString(v.PipelineVersionDescription), Created: v.CreationTime, LastExecution: aws.ToString(v.LastExecutionPipelineExecutionArn)})
	}
	return list[:min(len(list), max)], nil
}

// DeletePipeline deletes a pipeline (DeletePipeline; the SDK fills its idempotency token) and
// answers its ARN. Running executions are not stopped by it. A missing pipeline is an *AWSError
// with NotFound.
func (c *Client) DeletePipeline(ctx context.Context, name string) (string, error) {
	out, err := c.sm.deletePipeline(ctx, &sm.DeletePipelineInput{PipelineName: aws.String(name)})
	if err != nil {
		return "", newAWSError("sagemaker:DeletePipeline", name, err)
	}
	return aws.ToString(out.PipelineArn), nil
}

// ExecutionDefinition answers the definition an execution ran with
// (DescribePipelineDefinitionForExecution): the pipeline's version when it started.
func (c *Client) ExecutionDefinition(ctx context.Context, arn string) (string, error) {
	out, err := c.sm.describePipelineDefinitionForExecution(ctx, &sm.DescribePipelineDefinitionForExecutionInput{PipelineExecutionArn: aws.String(arn)})
	if err != nil {
		return "", newAWSError("sagemaker:DescribePipelineDefinitionForExecution", arn, err)
	}
	return aws.ToString(out.PipelineDefinition), nil
}

// RegionOfARN is the region field of an ARN (arn:<partition>:<service>:<region>:...), or "".
func RegionOfARN(arn string) string {
	parts := strings.SplitN(arn, ":", 5)
	if len(parts) < 5 || parts[0] != "arn" {
		return ""
	}
	return parts[3]
}

// AccountOfARN is the account field of an ARN, or "".
func AccountOfARN(arn string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) < 6 || parts[0] != "arn" {
		return ""
	}
	return parts[4]
}
