package cli_test

import (
	"strings"
	"testing"

	"github.com/cursus-go/cursus/internal/awstest"
)

// `cursus mcp call` prints a tool's progress on stderr, one line per report, and keeps stdout
// for the envelope: execution.wait polling an execution that stays Executing (an AWS JSON test
// server answers DescribePipelineExecution) until its one-second timeout.
func TestMCPCallProgressOnStderr(t *testing.T) {
	srv := awstest.NewServer(t, "")
	srv.Handle("DescribePipelineExecution", func(req map[string]any) (any, error) {
		return map[string]any{"PipelineExecutionArn": req["PipelineExecutionArn"], "PipelineExecutionStatus": "Executing"}, nil
	})
	awstest.SetEnv(t, srv.URL)
	code, out, errOut := run(t, "", "mcp", "call", "execution.wait",
		`{"execution_arn": "arn:aws:sagemaker:us-east-1:123456789012:pipeline/demo/execution/abc", "timeout_seconds": 1}`)
	env := envelopeOf(t, out)
	data, _ := env["data"].(map[string]any)
	if code != 0 || data["timed_out"] != true {
		t.Fatalf("exit %d, envelope %v", code, env)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "execution.wait: demo is Executing after") {
		t.Errorf("stderr %q, want one progress line per poll", errOut)
	}
}
