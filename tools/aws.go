package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/sagemaker/smclient"
	"github.com/cursus-go/cursus/envelope"
)

// The AWS tools act in one region and say where: every answer of a tool that calls AWS carries
// meta.aws {account, region} (failures in meta.details.aws). The region is the pipeline's: an
// execution's ARN names it; a tool given pipeline_name takes its region argument (compile.dag's
// next steps pass the config's), else the AWS configuration's; a tool given a config
// (compile.dag, pipeline.diff) takes its region argument, else the config's, and refuses a
// config's region the AWS configuration disagrees with (openAWSForConfig). A region other than
// the configuration's is used explicitly, with a warning: a call never lands in the
// configuration's region when the pipeline lives elsewhere. The account comes from STS
// GetCallerIdentity, asked once per set of credentials in the process.

// regionArg is the region argument of the AWS tools that take a pipeline name.
type regionArg struct {
	Region string `json:"region,omitempty" jsonschema:"maxLength=32" jsonschema_description:"AWS region (NA, EU, FE are aliases). Default: AWS_REGION or the profile's."`
}

// AWSTarget is where an AWS tool acted: meta.aws of its answer.
type AWSTarget struct {
	Account string `json:"account"`
	Region  string `json:"region"`
}

// awsCall is one tool call's AWS client and what its answer states.
type awsCall struct {
	c        *smclient.Client
	target   AWSTarget
	warnings []string
}

// resolveRegionArg checks a region argument (aliases resolved); "" stays "".
func resolveRegionArg(field, region string) (string, error) {
	if region == "" {
		return "", nil
	}
	r, ok := catalog.AWSRegion(region)
	if !ok {
		return "", envelope.InvalidInput("%s: %q is not an AWS region (us-east-1, eu-west-1, ...; NA, EU and FE are aliases)", field, region).WithDetails("field", field)
	}
	return r, nil
}

// regionOfARNArg is the region an ARN argument names, refusing a region argument that says
// another.
func regionOfARNArg(field, arn, region string) (string, error) {
	in := smclient.RegionOfARN(arn)
	r, err := resolveRegionArg("region", region)
	if err != nil {
		return "", err
	}
	if r != "" && in != "" && r != in {
		return "", envelope.InvalidInput("region %s disagrees with %s, which is in %s: leave region out", r, field, in).WithDetails("field", "region")
	}
	if in == "" {
		return r, nil
	}
	return in, nil
}

// openAWS builds the client of one call, in region ("" the configuration's), and asks who the
// caller is (once per credentials). A region that differs from the configuration's is a warning.
func openAWS(ctx context.Context, region string) (*awsCall, error) {
	c, err := smclient.Open(ctx, smclient.Options{Region: region})
	if err != nil {
		return nil, toolError(err)
	}
	return identify(ctx, c)
}

// openAWSForConfig builds the client of a tool that acts on a compiled pipeline (tool: its name),
// in region, the compile's. When the region came from the config (explicit false: no region
// argument) and the AWS configuration (AWS_REGION or the profile) names another, it refuses
// before any AWS call, with a remedy naming both regions: the user's AWS setup and the config
// disagree about where the pipeline lives, and only the user can say which is meant. A region
// argument is that statement: the call then acts there, with a warning when the configuration
// names another.
func openAWSForConfig(ctx context.Context, region, tool string, explicit bool) (*awsCall, error) {
	c, err := smclient.Open(ctx, smclient.Options{Region: region})
	if err != nil {
		return nil, toolError(err)
	}
	if amb := c.AmbientRegion(); !explicit && amb != "" && amb != c.Region() {
		return nil, envelope.InvalidInput("region: the config puts the pipeline in %s, but the AWS configuration (AWS_REGION or the profile) names %s; nothing was sent to AWS",
			c.Region(), amb).
			WithDetails("field", "region", "config_region", c.Region(), "aws_region", amb).
			WithRemedy(fmt.Sprintf("call %s again with region %q to act in the config's region (or set AWS_REGION=%s), or with region %q to compile for and act in the AWS configuration's (or change the config's region)",
				tool, c.Region(), c.Region(), amb), tool)
	}
	return identify(ctx, c)
}

// identify makes the awsCall of a client: where it acts, whether that is the configuration's
// region, and the account (STS, once per credentials).
func identify(ctx context.Context, c *smclient.Client) (*awsCall, error) {
	a := &awsCall{c: c, target: AWSTarget{Region: c.Region()}}
	if amb := c.AmbientRegion(); amb != "" && amb != c.Region() {
		a.warnings = append(a.warnings, fmt.Sprintf("acting in %s, the pipeline's region, not in %s, the AWS configuration's (AWS_REGION or the profile): nothing was sent to %s", c.Region(), amb, amb))
	}
	id, err := c.Identity(ctx)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, toolError(err)
		}
		a.warnings = append(a.warnings, "the account is not known: "+err.Error())
	}
	a.target.Account = id.Account
	return a, nil
}

// done adds meta.aws and the call's warnings to a success.
func done[T any](a *awsCall, r *envelope.Result[T]) *envelope.Result[T] {
	return r.WithMeta("aws", a.target).WithWarnings(a.warnings...)
}

// fail maps an error of the call through toolError, with meta.details.aws saying where it acted.
func (a *awsCall) fail(err error) error {
	err = toolError(err)
	var te *envelope.ToolError
	if errors.As(err, &te) {
		te.WithDetails("aws", a.target)
		if len(a.warnings) > 0 {
			te.WithDetails("warnings", a.warnings)
		}
	}
	return err
}
