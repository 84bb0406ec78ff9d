package awstest

import (
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	sm "github.com/aws/aws-sdk-go-v2/service/sagemaker"
)

// Region is the region every helper here uses.
const Region = "us-east-1"

// Account is the account id moto (and the handlers tests write) put in ARNs.
const Account = "123456789012"

// SetEnv points the standard AWS configuration chain at test values only for the rest of t: static
// dummy credentials, us-east-1, no shared config files, no instance metadata, no retries beyond
// the SDK default, and AWS_ENDPOINT_URL set to endpoint (empty: no endpoint override, for the
// caller to set the service-specific variables it wants).
func SetEnv(t testing.TB, endpoint string) {
	t.Helper()
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":                   "testing",
		"AWS_SECRET_ACCESS_KEY":               "testing",
		"AWS_SESSION_TOKEN":                   "",
		"AWS_SECURITY_TOKEN":                  "",
		"AWS_REGION":                          Region,
		"AWS_DEFAULT_REGION":                  Region,
		"AWS_PROFILE":                         "",
		"AWS_DEFAULT_PROFILE":                 "",
		"AWS_CONFIG_FILE":                     filepath.Join(dir, "no-config"),
		"AWS_SHARED_CREDENTIALS_FILE":         filepath.Join(dir, "no-credentials"),
		"AWS_EC2_METADATA_DISABLED":           "true",
		"AWS_ENDPOINT_URL":                    endpoint,
		"AWS_ENDPOINT_URL_SAGEMAKER":          "",
		"AWS_ENDPOINT_URL_S3":                 "",
		"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "",
		"AWS_RETRY_MODE":                      "",
		"AWS_MAX_ATTEMPTS":                    "",
	} {
		t.Setenv(k, v)
	}
}

// Clients returns SageMaker and S3 clients aimed at endpoint (S3 path-style), for a test to set up
// or check state independently of the code under test.
func Clients(endpoint string) (*sm.Client, *s3.Client) {
	cfg := aws.Config{Region: Region, Credentials: credentials.NewStaticCredentialsProvider("testing", "testing", "")}
	smc := sm.NewFromConfig(cfg, func(o *sm.Options) { o.BaseEndpoint = aws.String(endpoint) })
	s3c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.BaseEndpoint = aws.String(endpoint); o.UsePathStyle = true })
	return smc, s3c
}
