package smclient

import (
	"context"
	"errors"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	sm "github.com/aws/aws-sdk-go-v2/service/sagemaker"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// Options say where a Client acts.
type Options struct {
	// Region, when set, is the region every call goes to, whatever region the AWS configuration
	// names (AWS_REGION, the profile's region): the pipeline's own region, so that nothing
	// crosses regions. Empty uses the configuration's region.
	Region string
	// Config, when set, is the AWS configuration (credentials, region, endpoints); nil loads the
	// standard chain (AWS_REGION, AWS_PROFILE, credentials, AWS_ENDPOINT_URL and the
	// service-specific AWS_ENDPOINT_URL_<SERVICE> variables).
	Config *aws.Config
}

// Client makes the calls after a deploy, in one region: the pipeline-execution calls (start,
// describe, list, steps, stop, wait, retry), the deployed pipelines (list, describe, delete), the
// model registry, the jobs' CloudWatch logs, EventBridge Scheduler schedules, and the caller's
// identity (STS). Build it with Open (or NewClient); it is safe for concurrent use.
type Client struct {
	cfg     aws.Config
	ambient string // the configuration's own region
	sm      *api

	lazy  sync.Once
	logs  *logsAPI
	sched *schedulerAPI
	s3    *s3.Client
	sts   func(context.Context, *sts.GetCallerIdentityInput, ...func(*sts.Options)) (*sts.GetCallerIdentityOutput, error)
}

// NewClient returns a Client on cfg, or, when cfg is nil, on the standard AWS configuration chain,
// in the configuration's region. A configuration without a region is an *AWSError with Op
// "config".
func NewClient(ctx context.Context, cfg *aws.Config) (*Client, error) {
	return Open(ctx, Options{Config: cfg})
}

// Open returns a Client acting in o.Region (else the configuration's region). A configuration
// that cannot be loaded, or no region at all, is an *AWSError with Op "config".
func Open(ctx context.Context, o Options) (*Client, error) {
	cfg, ambient, err := regionConfig(ctx, o.Config, o.Region)
	if err != nil {
		return nil, asAWSError(err)
	}
	return &Client{cfg: cfg, ambient: ambient, sm: newAPI(sm.NewFromConfig(cfg))}, nil
}

// Region is the region the client's calls go to.
func (c *Client) Region() string { return c.cfg.Region }

// AmbientRegion is the region the AWS configuration names ("" when it names none): it differs
// from Region when Options.Region moved the calls to the pipeline's region.
func (c *Client) AmbientRegion() string { return c.ambient }

// clients builds the clients of the other services on first use.
func (c *Client) clients() {
	c.lazy.Do(func() {
		c.logs = newLogsAPI(c.cfg)
		c.sched = newSchedulerAPI(c.cfg)
		c.s3 = newS3Client(c.cfg)
		c.sts = sts.NewFromConfig(c.cfg).GetCallerIdentity
	})
}

// regionConfig loads the configuration (or copies the given one) and moves it to region when one
// is given. It returns the configuration's own region too.
func regionConfig(ctx context.Context, given *aws.Config, region string) (aws.Config, string, error) {
	cfg, err := loadConfig(ctx, given)
	if err != nil {
		return aws.Config{}, "", err
	}
	ambient := cfg.Region
	if region != "" {
		cfg.Region = region
	}
	if cfg.Region == "" {
		return aws.Config{}, "", &UpsertError{Op: "config", Message: "no AWS region configured (set AWS_REGION or a profile region, or give the pipeline's region)",
			Err: errors.New("no AWS region configured")}
	}
	return cfg, ambient, nil
}
