package smclient

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cursus-go/cursus/engine/sagemaker"
)

// testRole is a syntactically valid execution role ARN.
const testRole = "arn:aws:iam::123456789012:role/SageMakerExecution"

// setAWSEnv points the standard AWS configuration chain at test values only: static dummy
// credentials, us-east-1, no shared config files, no instance metadata, no endpoint overrides. The
// caller then sets the endpoint variables it wants.
func setAWSEnv(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":                   "testing",
		"AWS_SECRET_ACCESS_KEY":               "testing",
		"AWS_SESSION_TOKEN":                   "",
		"AWS_SECURITY_TOKEN":                  "",
		"AWS_REGION":                          "us-east-1",
		"AWS_DEFAULT_REGION":                  "us-east-1",
		"AWS_PROFILE":                         "",
		"AWS_DEFAULT_PROFILE":                 "",
		"AWS_CONFIG_FILE":                     filepath.Join(dir, "no-config"),
		"AWS_SHARED_CREDENTIALS_FILE":         filepath.Join(dir, "no-credentials"),
		"AWS_EC2_METADATA_DISABLED":           "true",
		"AWS_ENDPOINT_URL":                    "",
		"AWS_ENDPOINT_URL_SAGEMAKER":          "",
		"AWS_ENDPOINT_URL_S3":                 "",
		"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "",
		"AWS_RETRY_MODE":                      "",
		"AWS_MAX_ATTEMPTS":                    "",
	} {
		t.Setenv(k, v)
	}
}

// writeFile writes content to name under dir and returns the path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// item builds a manifest item for a file, failing the test on error.
func item(t *testing.T, path, uri string) sagemaker.UploadItem {
	t.Helper()
	it, err := sagemaker.NewUploadItem(path, uri)
	if err != nil {
		t.Fatal(err)
	}
	return it
}

// testDefinition is a small but real-looking pipeline definition with a distinguishing marker.
func testDefinition(marker string) string {
	return `{"Version": "2020-12-01", "Metadata": {}, "Parameters": [{"Name": "EXECUTION_S3_PREFIX", "Type": "String"}],` +
		` "PipelineExperimentConfig": {"ExperimentName": {"Get": "Execution.PipelineName"}, "TrialName": {"Get": "Execution.PipelineExecutionId"}},` +
		` "Steps": [{"Name": "` + marker + `", "Type": "Processing", "Arguments": {"AppSpecification": {"ImageUri": "683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-scikit-learn:1.2-1-cpu-py3"}}}]}`
}
