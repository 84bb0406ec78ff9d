package smclient

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/cursus-go/cursus/engine/sagemaker"
	"github.com/cursus-go/cursus/internal/awstest"
)

// testRole is a syntactically valid execution role ARN.
const testRole = "arn:aws:iam::123456789012:role/SageMakerExecution"

// setAWSEnv points the standard AWS configuration chain at test values only, with no endpoint
// override; the caller then sets the endpoint variables it wants.
func setAWSEnv(t *testing.T) { awstest.SetEnv(t, "") }

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

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// jsonIndent re-encodes v indented (map keys sorted).
func jsonIndent(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
