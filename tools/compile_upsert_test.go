package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	sm "github.com/aws/aws-sdk-go-v2/service/sagemaker"

	"github.com/cursus-go/cursus/engine/sagemaker/smclient"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/awstest"
	"github.com/cursus-go/cursus/tools"
)

// motoWithBucket starts moto_server with an empty bucket and returns it with SDK clients on it.
func motoWithBucket(t *testing.T, bucket string) (*awstest.Moto, *sm.Client, *s3.Client) {
	t.Helper()
	moto := awstest.StartMoto(t)
	smc, s3c := awstest.Clients(moto.Endpoint)
	if _, err := s3c.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	return moto, smc, s3c
}

// compile.dag with upsert against moto_server (every call recorded on its way): the first run
// uploads the code and creates the pipeline; the second, with nothing changed, sends no
// UpdatePipeline and answers unchanged: true; the definition read back is the one
// compile.definition returns, and the tags are set.
func TestCompileDAGUpsertMoto(t *testing.T) {
	moto, smc, s3c := motoWithBucket(t, "example-bucket")
	rec := awstest.NewServer(t, moto.Endpoint)
	compileAWSEnv(t, rec.URL)
	ctx := context.Background()
	args := compileExampleArgs("pytorch-batch-transform")
	args["upsert"] = true
	args["tags"] = map[string]any{"team": "ml"}
	data := tools.WantOK(t, tools.CallTool(t, ctx, "compile.dag", args))
	if data["upserted"] != true || data["created"] != true || data["unchanged"] != false ||
		!strings.HasSuffix(data["pipeline_arn"].(string), "pipeline/alice-Demo-pytorch-NA-1-0-0-pipeline") {
		t.Fatalf("first upsert %v", data)
	}
	// Two scripts, each packed with the steplib modules it imports, the
	// launcher of such archives, the training source, the serving code and
	// the model's repack script.
	uploaded := data["uploaded"].([]any)
	if len(uploaded) != 6 {
		t.Errorf("uploaded %v", uploaded)
	}
	data = tools.WantOK(t, tools.CallTool(t, ctx, "compile.dag", args))
	if data["unchanged"] != true || data["created"] != false || data["updated"] != false ||
		len(data["skipped"].([]any)) != 6 || len(data["uploaded"].([]any)) != 0 {
		t.Errorf("second upsert should change nothing and skip the unchanged code: %v", data)
	}
	if c, u := rec.Count("sagemaker:CreatePipeline"), rec.Count("sagemaker:UpdatePipeline"); c != 1 || u != 0 {
		t.Errorf("two upserts sent %d CreatePipeline and %d UpdatePipeline; want 1 and 0 (%v)", c, u, rec.Calls())
	}
	got, err := smc.DescribePipeline(ctx, &sm.DescribePipelineInput{PipelineName: aws.String("alice-Demo-pytorch-NA-1-0-0-pipeline")})
	if err != nil {
		t.Fatal(err)
	}
	def := tools.WantOK(t, tools.CallTool(t, ctx, "compile.definition", compileExampleArgs("pytorch-batch-transform")))["definition"]
	want, _ := json.Marshal(def)
	if !smclient.JSONEqual(aws.ToString(got.PipelineDefinition), string(want)) {
		t.Errorf("definition read back differs:\n got  %.300s\n want %.300s", aws.ToString(got.PipelineDefinition), want)
	}
	for _, u := range uploaded {
		key := strings.TrimPrefix(u.(string), "s3://example-bucket/")
		if _, err := s3c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("example-bucket"), Key: aws.String(key)}); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	tags, err := smc.ListTags(ctx, &sm.ListTagsInput{ResourceArn: got.PipelineArn})
	if err != nil {
		t.Fatal(err)
	}
	if len(tags.Tags) != 1 || aws.ToString(tags.Tags[0].Key) != "team" || aws.ToString(tags.Tags[0].Value) != "ml" {
		t.Errorf("tags %v", tags.Tags)
	}
}

// UpdatePipeline goes live and then AddTags fails (moto answers everything but AddTags, which the
// recording server in front of it refuses as SageMaker would without the permission): compile.dag
// answers ok false, code upsert_partial, with data saying the pipeline was updated and is live.
func TestCompileDAGUpsertPartial(t *testing.T) {
	moto, smc, _ := motoWithBucket(t, "example-bucket")
	rec := awstest.NewServer(t, moto.Endpoint)
	compileAWSEnv(t, rec.URL)
	ctx := context.Background()
	args := compileExampleArgs("simple-training")
	args["upsert"] = true
	args["tags"] = map[string]any{"team": "ml"}
	first := tools.WantOK(t, tools.CallTool(t, ctx, "compile.dag", args))

	rec.Handle("AddTags", func(map[string]any) (any, error) {
		return nil, &awstest.APIError{Status: 400, Type: "AccessDeniedException", Message: "User is not authorized to perform: sagemaker:AddTags"}
	})
	const newRole = "arn:aws:iam::123456789012:role/OtherRole"
	args["role"] = newRole // a changed pipeline: UpdatePipeline is sent
	args["tags"] = map[string]any{"team": "ml", "stage": "dev"}
	env := tools.CallTool(t, ctx, "compile.dag", args)
	if env["ok"] != false || env["code"] != string(envelope.CodeUpsertPartial) {
		t.Fatalf("want ok false, code upsert_partial; got %v", env)
	}
	data, _ := env["data"].(map[string]any)
	if data["updated"] != true || data["upserted"] != true || data["tags_applied"] != false || data["pipeline_arn"] != first["pipeline_arn"] {
		t.Errorf("data %v, want it to say the update went live and the tags did not", data)
	}
	det := env["meta"].(map[string]any)["details"].(map[string]any)
	if det["operation"] != "sagemaker:AddTags" || det["aws_error_code"] != "AccessDeniedException" {
		t.Errorf("details %v", det)
	}
	if msg, _ := env["error"].(string); !strings.Contains(msg, "live") {
		t.Errorf("error %q does not say the pipeline is live", msg)
	}
	got, err := smc.DescribePipeline(ctx, &sm.DescribePipelineInput{PipelineName: aws.String(first["pipeline_name"].(string))})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(got.RoleArn) != newRole {
		t.Errorf("role on moto %q: the update the answer reports as live is not", aws.ToString(got.RoleArn))
	}
}

// writeSyntheticProject writes a dag.json and config.json of n nodes into a fresh directory:
// n/3 chains DummyDataLoading -> TabularPreprocessing -> XGBoostTraining, each chain with its own
// job type, each running the catalog's script.
func writeSyntheticProject(t *testing.T, n int) (dagFile, configFile string) {
	t.Helper()
	dir := t.TempDir()
	var shared map[string]any
	raw, err := os.ReadFile(filepath.Join(compileExampleRoot, "simple-training", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var example struct {
		Configuration struct {
			Shared map[string]any `json:"shared"`
		} `json:"configuration"`
	}
	if err := json.Unmarshal(raw, &example); err != nil {
		t.Fatal(err)
	}
	shared = example.Configuration.Shared
	specific := map[string]any{}
	types := map[string]string{}
	var nodes []string
	var edges [][2]string
	add := func(step, class string, values map[string]any) string {
		key := step + "_" + values["job_type"].(string)
		values["__model_type__"] = class
		specific[key], types[key] = values, class
		nodes = append(nodes, key)
		return key
	}
	for g := 0; len(nodes) < n; g++ {
		jt := fmt.Sprintf("g%05d", g)
		a := add("DummyDataLoading", "DummyDataLoadingConfig", map[string]any{"job_type": jt, "data_source": "s3://example-bucket/raw/" + jt + "/"})
		if len(nodes) == n {
			break
		}
		p := add("TabularPreprocessing", "TabularPreprocessingConfig", map[string]any{"job_type": jt, "label_name": "label"})
		edges = append(edges, [2]string{a, p})
		if len(nodes) == n {
			break
		}
		x := add("XGBoostTraining", "XGBoostTrainingConfig", map[string]any{"job_type": jt,
			"num_round": 10, "label_name": "label", "objective": "binary:logistic", "tab_field_list": []any{"f1", "f2"}, "cat_field_list": []any{}})
		edges = append(edges, [2]string{p, x})
	}
	write := func(name string, v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dagFile = write("dag.json", map[string]any{"version": "1.0.0", "dag": map[string]any{"nodes": nodes, "edges": edges}})
	configFile = write("config.json", map[string]any{
		"configuration": map[string]any{"shared": shared, "specific": specific},
		"metadata":      map[string]any{"config_types": types},
	})
	return dagFile, configFile
}

// A 1,000-node pipeline is over the inline limit, so compile.dag uploads its definition
// content-addressed and CreatePipeline names it by PipelineDefinitionS3Location (moto 5 loads the
// definition from that S3 object, so the test reads moto's stored definition back and compares).
func TestCompileDAGUpsert1000NodesThroughS3(t *testing.T) {
	moto, _, s3c := motoWithBucket(t, "example-bucket")
	rec := awstest.NewServer(t, moto.Endpoint)
	compileAWSEnv(t, rec.URL)
	ctx := context.Background()
	dagFile, configFile := writeSyntheticProject(t, 1000)
	args := map[string]any{"dag_file": dagFile, "config_file": configFile, "upsert": true}
	start := time.Now()
	data := tools.WantOK(t, tools.CallTool(t, ctx, "compile.dag", args))
	elapsed := time.Since(start)
	size := int(data["definition_bytes"].(float64))
	t.Logf("1,000-node pipeline: %d steps, definition %d bytes, compile.dag upsert (compile, upload, CreatePipeline on moto) %v",
		int(data["step_count"].(float64)), size, elapsed.Round(time.Millisecond))
	if data["step_count"] != float64(1000) || data["created"] != true || size < smclient.InlineDefinitionLimit {
		t.Fatalf("data %v", data)
	}
	uri, _ := data["definition_s3_uri"].(string)
	if !strings.HasPrefix(uri, "s3://example-bucket/") || !strings.HasSuffix(uri, ".json") {
		t.Fatalf("definition_s3_uri %q", uri)
	}
	create := rec.Requests("CreatePipeline")
	if len(create) != 1 || create[0]["PipelineDefinition"] != nil {
		t.Fatalf("CreatePipeline requests %d; want one, without an inline definition", len(create))
	}
	key := strings.TrimPrefix(uri, "s3://example-bucket/")
	if loc := create[0]["PipelineDefinitionS3Location"]; !reflect.DeepEqual(loc, map[string]any{"Bucket": "example-bucket", "ObjectKey": key}) {
		t.Errorf("PipelineDefinitionS3Location %v, want example-bucket / %s", loc, key)
	}
	obj, err := s3c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("example-bucket"), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(obj.Body)
	obj.Body.Close()
	def := tools.WantOK(t, tools.CallTool(t, ctx, "compile.definition", map[string]any{"dag_file": dagFile, "config_file": configFile}))["definition"]
	want, _ := json.Marshal(def)
	if len(body) != size || !smclient.JSONEqual(string(body), string(want)) {
		t.Errorf("the S3 object (%d bytes) is not the compiled definition (%d bytes)", len(body), size)
	}
	if uri != smclient.DefinitionS3URI(strings.TrimSuffix(uri[:strings.LastIndex(uri, "/")], "/"), string(body)) {
		t.Errorf("%s is not addressed by the SHA-256 of its content", uri)
	}
	desc := awstest.Call(t, moto.Endpoint, "DescribePipeline", map[string]string{"PipelineName": data["pipeline_name"].(string)})
	stored, _ := json.Marshal(desc["PipelineDefinition"])
	if !smclient.JSONEqual(string(stored), string(want)) {
		t.Errorf("moto's stored definition is not the compiled one: %.200s", stored)
	}
}
