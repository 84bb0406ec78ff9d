package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	sm "github.com/aws/aws-sdk-go-v2/service/sagemaker"

	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/awstest"
	"github.com/cursus-go/cursus/tools"
)

// Deploy where the pipeline lives: with AWS_REGION=us-east-1 in the environment and region EU in
// the config, compile.dag and pipeline.diff refuse before any AWS call, with a remedy naming both
// regions. Given region EU, compile.dag compiles eu-west-1 images and creates the pipeline in
// eu-west-1 (moto keeps regions apart), saying so in meta.aws and a warning; nothing lands in
// us-east-1. The execution tools follow: execution.start in the region given, the others in
// their ARN's. A region argument overrides the config's; a region that is none is refused
// before any call.
func TestDeployInThePipelinesRegion(t *testing.T) {
	moto := awstest.StartMoto(t)
	rec := awstest.NewServer(t, moto.Endpoint)
	compileAWSEnv(t, rec.URL) // AWS_REGION=us-east-1
	ctx := context.Background()
	eu := regionClients(moto.Endpoint, "eu-west-1")
	if _, err := eu.s3.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("example-bucket"),
		CreateBucketConfiguration: &s3types.CreateBucketConfiguration{LocationConstraint: s3types.BucketLocationConstraintEuWest1}}); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfigWith(t, "simple-training", map[string]any{"region": "EU"})
	dagFile := compileExampleArgs("simple-training")["dag_file"]

	// The config says EU, the AWS configuration us-east-1: refused, nothing sent.
	calls := len(rec.Calls())
	for _, tool := range []string{"compile.dag", "pipeline.diff"} {
		args := map[string]any{"dag_file": dagFile, "config_file": cfg}
		if tool == "compile.dag" {
			args["upsert"] = true
		}
		refused := tools.CallTool(t, ctx, tool, args)
		tools.WantFail(t, refused, envelope.CodeInvalidInput)
		if txt := jsonText(t, refused); !strings.Contains(txt, "the config puts the pipeline in eu-west-1, but the AWS configuration (AWS_REGION or the profile) names us-east-1") ||
			!strings.Contains(txt, `call `+tool+` again with region \"eu-west-1\"`) {
			t.Errorf("%s with a config in EU and AWS_REGION=us-east-1: %s", tool, txt)
		}
	}
	if len(rec.Calls()) != calls {
		t.Errorf("a refused region mismatch reached AWS: %v", rec.Calls()[calls:])
	}

	env := tools.CallTool(t, ctx, "compile.dag", map[string]any{"dag_file": dagFile, "config_file": cfg, "upsert": true, "region": "EU"})
	data := tools.WantOK(t, env)
	if data["region"] != "eu-west-1" || !strings.HasPrefix(data["pipeline_arn"].(string), "arn:aws:sagemaker:eu-west-1:123456789012:pipeline/") {
		t.Fatalf("compile.dag %v", data)
	}
	if jsonText(t, env["meta"].(map[string]any)["aws"]) != `{"account":"123456789012","region":"eu-west-1"}` ||
		!strings.Contains(jsonText(t, env["warnings"]), "acting in eu-west-1, the pipeline's region, not in us-east-1") {
		t.Errorf("compile.dag meta %v, warnings %v", env["meta"], env["warnings"])
	}
	name := data["pipeline_name"].(string)
	if _, err := eu.sm.DescribePipeline(ctx, &sm.DescribePipelineInput{PipelineName: aws.String(name)}); err != nil {
		t.Errorf("the pipeline is not in eu-west-1: %v", err)
	}
	us := regionClients(moto.Endpoint, "us-east-1")
	if out, err := us.sm.ListPipelines(ctx, &sm.ListPipelinesInput{}); err != nil || len(out.PipelineSummaries) != 0 {
		t.Errorf("us-east-1 has pipelines %v (%v): the deploy crossed regions", out, err)
	}
	def, _ := eu.sm.DescribePipeline(ctx, &sm.DescribePipelineInput{PipelineName: aws.String(name)})
	if d := aws.ToString(def.PipelineDefinition); !strings.Contains(d, ".dkr.ecr.eu-west-1.amazonaws.com/") || strings.Contains(d, "us-east-1") {
		t.Errorf("the deployed definition's images are not all eu-west-1's")
	}

	// The next steps carry the region; the execution tools act there.
	wantHint(t, env, "execution.start", "region", "eu-west-1")
	tools.WantFail(t, tools.CallTool(t, ctx, "execution.start", map[string]any{"pipeline_name": name}), envelope.CodeNotFound) // us-east-1 has none
	started := tools.WantOK(t, tools.CallTool(t, ctx, "execution.start", map[string]any{"pipeline_name": name, "region": "EU"}))
	arn := started["execution_arn"].(string)
	if !strings.HasPrefix(arn, "arn:aws:sagemaker:eu-west-1:") {
		t.Fatalf("execution.start %v", started)
	}
	desc := tools.CallTool(t, ctx, "execution.describe", map[string]any{"execution_arn": arn})
	if tools.WantOK(t, desc)["status"] != "Succeeded" || jsonText(t, desc["meta"].(map[string]any)["aws"]) != `{"account":"123456789012","region":"eu-west-1"}` {
		t.Errorf("execution.describe %v", desc)
	}
	tools.WantFail(t, tools.CallTool(t, ctx, "execution.failure", map[string]any{"execution_arn": arn, "region": "us-east-1"}), envelope.CodeInvalidInput)

	// The region argument overrides the config: the same config compiles us-west-2 images.
	env = tools.CallTool(t, ctx, "compile.dag", map[string]any{"dag_file": dagFile, "config_file": cfg, "region": "FE"})
	if d := tools.WantOK(t, env); d["region"] != "us-west-2" {
		t.Errorf("compile.dag region FE %v", d)
	}
	calls = len(rec.Calls())
	tools.WantFail(t, tools.CallTool(t, ctx, "compile.dag", map[string]any{"dag_file": dagFile, "config_file": cfg, "region": "Europe", "upsert": true}), envelope.CodeInvalidInput)
	tools.WantFail(t, tools.CallTool(t, ctx, "pipeline.list", map[string]any{"region": "mars-1"}), envelope.CodeInvalidInput)
	if len(rec.Calls()) != calls {
		t.Errorf("a bad region reached AWS: %v", rec.Calls()[calls:])
	}
}

type regionSDK struct {
	sm *sm.Client
	s3 *s3.Client
}

func regionClients(endpoint, region string) regionSDK {
	cfg := aws.Config{Region: region, Credentials: awsTestCredentials()}
	return regionSDK{
		sm: sm.NewFromConfig(cfg, func(o *sm.Options) { o.BaseEndpoint = aws.String(endpoint) }),
		s3: s3.NewFromConfig(cfg, func(o *s3.Options) { o.BaseEndpoint = aws.String(endpoint); o.UsePathStyle = true }),
	}
}

// writeConfigWith writes an example's config with shared fields replaced, in a temp dir.
func writeConfigWith(t *testing.T, example string, shared map[string]any) string {
	t.Helper()
	var c map[string]any
	readJSON(t, compileExampleArgs(example)["config_file"].(string), &c)
	sh := c["configuration"].(map[string]any)["shared"].(map[string]any)
	for k, v := range shared {
		sh[k] = v
	}
	return tools.WriteFile(t, t.TempDir(), "config.json", tools.ToJSON(c))
}

// wantHint checks a next step of tool whose args_hint has key = value.
func wantHint(t *testing.T, env map[string]any, tool, key string, value any) {
	t.Helper()
	for _, n := range env["next_steps"].([]any) {
		m := n.(map[string]any)
		if m["tool"] == tool {
			if h, _ := m["args_hint"].(map[string]any); h[key] == value {
				return
			}
		}
	}
	t.Errorf("no next step %s with %s %v: %v", tool, key, value, env["next_steps"])
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(b, v) != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
