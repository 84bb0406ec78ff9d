package localrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler"
)

// writeData writes a folder holding part-0.csv as the consumer script reads it.
func writeData(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "given")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "part-0.csv"), []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A Lambda step is not called: data gives the output parameter a later step
// reads (which then reads the given folder through a local S3 URI), and
// without it the run stops at the Lambda naming the key; a Lambda whose
// outputs nothing reads is substituted with a warning per output.
func TestLambdaAndCallbackAreSubstituted(t *testing.T) {
	needPython(t)
	build := func(kind, key, value string) *pipeline {
		p := newPipeline(t)
		p.params = []compiler.Parameter{prefixParam()}
		p.script("s3://bucket/code/consumer.py", "consumer.py", consumer)
		p.step(`{"Name": "Stage", "Type": "` + kind + `", "Arguments": {"n": 1}, "` + key + `": "` + value + `",
			"OutputParameters": [{"OutputName": "output_data", "OutputType": "String"}, {"OutputName": "count", "OutputType": "Integer"}]}`)
		p.step(processing("Consume", "consumer.py", [][3]string{{"data", `{"Get": "Steps.Stage.OutputParameters['output_data']"}`, "/opt/ml/processing/input/data"}},
			[]string{"result"}, nil, nil, "Stage"))
		return p
	}
	for _, c := range []struct{ kind, key, value, why string }{
		{"Lambda", "FunctionArn", "arn:aws:lambda:us-east-1:123456789012:function:f", "invokes function arn:aws:lambda:us-east-1:123456789012:function:f"},
		{"Callback", "SqsQueueUrl", "https://sqs.us-east-1.amazonaws.com/123456789012/q", "waits for a system outside the pipeline"},
	} {
		rep := build(c.kind, c.key, c.value).run(Options{Data: map[string]string{"Stage.output_data": writeData(t)}})
		s := wantStatus(t, rep, "Stage", StatusSubstituted)
		if !strings.Contains(strings.Join(s.Checks, " "), c.why) || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "count") {
			t.Errorf("%s: checks %v, warnings %v", c.kind, s.Checks, s.Warnings)
		}
		wantStatus(t, rep, "Consume", StatusSucceeded)

		rep = build(c.kind, c.key, c.value).run(Options{})
		s = wantStatus(t, rep, "Stage", StatusFailed)
		if !strings.Contains(s.Error, c.why) || !strings.Contains(s.Error, `add "Stage.output_data" to data`) {
			t.Errorf("%s without data: %s", c.kind, s.Error)
		}
		wantStatus(t, rep, "Consume", StatusSkipped)
	}
}

// A check step stops the run unless data gives its baselines; an EMR step
// always stops it, naming its cluster.
func TestChecksAndEMRDoNotRunLocally(t *testing.T) {
	needPython(t)
	check := func() *pipeline {
		p := newPipeline(t)
		p.params = []compiler.Parameter{prefixParam()}
		p.step(`{"Name": "Quality", "Type": "QualityCheck", "CheckType": "DATA_QUALITY", "Arguments": {"AppSpecification": {"ImageUri": "img"}}}`)
		return p
	}
	s := wantStatus(t, check().run(Options{}), "Quality", StatusFailed)
	if !strings.Contains(s.Error, "model monitor analyzer image") || !strings.Contains(s.Error, `"Quality.CalculatedBaselineStatistics"`) {
		t.Errorf("a check without data: %s", s.Error)
	}
	stats := filepath.Join(t.TempDir(), "statistics.json")
	if err := os.WriteFile(stats, []byte(`{"dataset": {"item_count": 2}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := check().run(Options{Data: map[string]string{"Quality.CalculatedBaselineStatistics": stats}})
	s = wantStatus(t, rep, "Quality", StatusSubstituted)
	if s.Outputs["CalculatedBaselineStatistics"] != stats {
		t.Errorf("outputs %v", s.Outputs)
	}

	p := newPipeline(t)
	p.params = []compiler.Parameter{prefixParam()}
	p.step(`{"Name": "Spark", "Type": "EMR", "Arguments": {"StepConfig": {"HadoopJarStep": {"Jar": "command-runner.jar"}}, "ClusterId": "j-ABC123"}}`)
	s = wantStatus(t, p.run(Options{}), "Spark", StatusFailed)
	if !strings.Contains(s.Error, "cluster j-ABC123") {
		t.Errorf("EMR: %s", s.Error)
	}
}
