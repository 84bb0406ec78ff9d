package smclient

import (
	"context"

	sm "github.com/aws/aws-sdk-go-v2/service/sagemaker"
)

// api is the SageMaker operations this package calls, as method values of one *sm.Client.
//
// The package holds these instead of the *sm.Client so that no type it converts to an interface
// reaches the client's type. If one did (a paginator taking the client, a generic dictionary
// naming a struct that holds it), the linker would keep every exported method of the client,
// because text/template (which urfave/cli's help links) looks methods up by name: all of
// SageMaker's ~400 operations and their serializers, about 12 MB of the binary that every start
// maps. TestBinaryKeepsOnlyCalledOperations guards this.
type api struct {
	describePipeline                       func(context.Context, *sm.DescribePipelineInput, ...func(*sm.Options)) (*sm.DescribePipelineOutput, error)
	createPipeline                         func(context.Context, *sm.CreatePipelineInput, ...func(*sm.Options)) (*sm.CreatePipelineOutput, error)
	updatePipeline                         func(context.Context, *sm.UpdatePipelineInput, ...func(*sm.Options)) (*sm.UpdatePipelineOutput, error)
	addTags                                func(context.Context, *sm.AddTagsInput, ...func(*sm.Options)) (*sm.AddTagsOutput, error)
	listTags                               func(context.Context, *sm.ListTagsInput, ...func(*sm.Options)) (*sm.ListTagsOutput, error)
	startPipelineExecution                 func(context.Context, *sm.StartPipelineExecutionInput, ...func(*sm.Options)) (*sm.StartPipelineExecutionOutput, error)
	describePipelineExecution              func(context.Context, *sm.DescribePipelineExecutionInput, ...func(*sm.Options)) (*sm.DescribePipelineExecutionOutput, error)
	stopPipelineExecution                  func(context.Context, *sm.StopPipelineExecutionInput, ...func(*sm.Options)) (*sm.StopPipelineExecutionOutput, error)
	listExecutions                         func(context.Context, *sm.ListPipelineExecutionsInput, ...func(*sm.Options)) (*sm.ListPipelineExecutionsOutput, error)
	listExecutionSteps                     func(context.Context, *sm.ListPipelineExecutionStepsInput, ...func(*sm.Options)) (*sm.ListPipelineExecutionStepsOutput, error)
	listExecutionParameters                func(context.Context, *sm.ListPipelineParametersForExecutionInput, ...func(*sm.Options)) (*sm.ListPipelineParametersForExecutionOutput, error)
	listPipelines                          func(context.Context, *sm.ListPipelinesInput, ...func(*sm.Options)) (*sm.ListPipelinesOutput, error)
	deletePipeline                         func(context.Context, *sm.DeletePipelineInput, ...func(*sm.Options)) (*sm.DeletePipelineOutput, error)
	listPipelineVersions                   func(context.Context, *sm.ListPipelineVersionsInput, ...func(*sm.Options)) (*sm.ListPipelineVersionsOutput, error)
	describePipelineDefinitionForExecution func(context.Context, *sm.DescribePipelineDefinitionForExecutionInput, ...func(*sm.Options)) (*sm.DescribePipelineDefinitionForExecutionOutput, error)
	retryPipelineExecution                 func(context.Context, *sm.RetryPipelineExecutionInput, ...func(*sm.Options)) (*sm.RetryPipelineExecutionOutput, error)
	listModelPackageGroups                 func(context.Context, *sm.ListModelPackageGroupsInput, ...func(*sm.Options)) (*sm.ListModelPackageGroupsOutput, error)
	listModelPackages                      func(context.Context, *sm.ListModelPackagesInput, ...func(*sm.Options)) (*sm.ListModelPackagesOutput, error)
	describeModelPackage                   func(context.Context, *sm.DescribeModelPackageInput, ...func(*sm.Options)) (*sm.DescribeModelPackageOutput, error)
	updateModelPackage                     func(context.Context, *sm.UpdateModelPackageInput, ...func(*sm.Options)) (*sm.UpdateModelPackageOutput, error)
	describeTrainingJob                    func(context.Context, *sm.DescribeTrainingJobInput, ...func(*sm.Options)) (*sm.DescribeTrainingJobOutput, error)
	describeProcessingJob                  func(context.Context, *sm.DescribeProcessingJobInput, ...func(*sm.Options)) (*sm.DescribeProcessingJobOutput, error)
	describeTransformJob                   func(context.Context, *sm.DescribeTransformJobInput, ...func(*sm.Options)) (*sm.DescribeTransformJobOutput, error)
}

// newAPI takes the operations from c.
func newAPI(c *sm.Client) *api {
	return &api{
		describePipeline:                       c.DescribePipeline,
		createPipeline:                         c.CreatePipeline,
		updatePipeline:                         c.UpdatePipeline,
		addTags:                                c.AddTags,
		listTags:                               c.ListTags,
		startPipelineExecution:                 c.StartPipelineExecution,
		describePipelineExecution:              c.DescribePipelineExecution,
		stopPipelineExecution:                  c.StopPipelineExecution,
		listExecutions:                         c.ListPipelineExecutions,
		listExecutionSteps:                     c.ListPipelineExecutionSteps,
		listExecutionParameters:                c.ListPipelineParametersForExecution,
		listPipelines:                          c.ListPipelines,
		deletePipeline:                         c.DeletePipeline,
		listPipelineVersions:                   c.ListPipelineVersions,
		describePipelineDefinitionForExecution: c.DescribePipelineDefinitionForExecution,
		retryPipelineExecution:                 c.RetryPipelineExecution,
		listModelPackageGroups:                 c.ListModelPackageGroups,
		listModelPackages:                      c.ListModelPackages,
		describeModelPackage:                   c.DescribeModelPackage,
		updateModelPackage:                     c.UpdateModelPackage,
		describeTrainingJob:                    c.DescribeTrainingJob,
		describeProcessingJob:                  c.DescribeProcessingJob,
		describeTransformJob:                   c.DescribeTransformJob,
	}
}

// The SDK's paginators take an interface with the one list operation they call; api is that.

// ListTags implements sm.ListTagsAPIClient.
func (a *api) ListTags(ctx context.Context, in *sm.ListTagsInput, opts ...func(*sm.Options)) (*sm.ListTagsOutput, error) {
	return a.listTags(ctx, in, opts...)
}

// ListPipelineExecutions implements sm.ListPipelineExecutionsAPIClient.
func (a *api) ListPipelineExecutions(ctx context.Context, in *sm.ListPipelineExecutionsInput, opts ...func(*sm.Options)) (*sm.ListPipelineExecutionsOutput, error) {
	return a.listExecutions(ctx, in, opts...)
}

// ListPipelineExecutionSteps implements sm.ListPipelineExecutionStepsAPIClient.
func (a *api) ListPipelineExecutionSteps(ctx context.Context, in *sm.ListPipelineExecutionStepsInput, opts ...func(*sm.Options)) (*sm.ListPipelineExecutionStepsOutput, error) {
	return a.listExecutionSteps(ctx, in, opts...)
}

// ListPipelineParametersForExecution implements sm.ListPipelineParametersForExecutionAPIClient.
func (a *api) ListPipelineParametersForExecution(ctx context.Context, in *sm.ListPipelineParametersForExecutionInput, opts ...func(*sm.Options)) (*sm.ListPipelineParametersForExecutionOutput, error) {
	return a.listExecutionParameters(ctx, in, opts...)
}
