package smclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	sm "github.com/aws/aws-sdk-go-v2/service/sagemaker"

	"github.com/cursus-go/cursus/engine/sagemaker"
	"github.com/cursus-go/cursus/internal/awstest"
)

func pipelineNames(t *testing.T, smc *sm.Client) []string {
	t.Helper()
	out, err := smc.ListPipelines(context.Background(), &sm.ListPipelinesInput{})
	if err != nil {
		t.Fatalf("ListPipelines: %v", err)
	}
	var names []string
	for _, p := range out.PipelineSummaries {
		names = append(names, aws.ToString(p.PipelineName))
	}
	return names
}

func objectKeys(t *testing.T, s3c *s3.Client, bucket string) []string {
	t.Helper()
	out, err := s3c.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatalf("ListObjectsV2: %v", err)
	}
	var keys []string
	for _, o := range out.Contents {
		keys = append(keys, aws.ToString(o.Key))
	}
	return keys
}

func pipelineTags(t *testing.T, smc *sm.Client, arn string) map[string]string {
	t.Helper()
	out, err := smc.ListTags(context.Background(), &sm.ListTagsInput{ResourceArn: aws.String(arn)})
	if err != nil {
		t.Fatalf("ListTags: %v", err)
	}
	tags := map[string]string{}
	for _, tg := range out.Tags {
		tags[aws.ToString(tg.Key)] = aws.ToString(tg.Value)
	}
	return tags
}

// TestMoto runs Upsert end to end against one moto_server shared by its subtests (state is reset
// before each). Upsert itself is configured only through the standard environment variables.
func TestMoto(t *testing.T) {
	srv := awstest.StartMoto(t)
	smc, s3c := awstest.Clients(srv.Endpoint)
	ctx := context.Background()
	const bucket = "cursus-test-artifacts"
	makeBucket := func(t *testing.T) {
		t.Helper()
		if _, err := s3c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
			t.Fatalf("CreateBucket: %v", err)
		}
	}

	t.Run("create_then_update", func(t *testing.T) {
		srv.Reset(t)
		makeBucket(t)
		setAWSEnv(t)
		t.Setenv("AWS_ENDPOINT_URL", srv.Endpoint) // global override: both services
		dir := t.TempDir()
		script := writeFile(t, dir, "scripts/tabular_preprocessing.py", "print('preprocess v1')\n")
		source := writeFile(t, dir, "sourcedir.tar.gz", "\x1f\x8b not really a tarball \x00\xff")
		manifest := sagemaker.Manifest{
			item(t, script, "s3://"+bucket+"/code/tabular_preprocessing.py"),
			item(t, source, "s3://"+bucket+"/code/xgboost_training/sourcedir.tar.gz"),
		}
		def1 := testDefinition("TabularPreprocessing-Training")
		in := UpsertInput{
			PipelineName: "cursus-moto-e2e", DefinitionJSON: def1, RoleARN: testRole,
			Description: "first version", DisplayName: "Cursus-Moto-E2E",
			Tags:     map[string]string{"project": "cursus", "team": "ml"},
			Manifest: manifest,
		}
		start := time.Now()
		out, err := Upsert(ctx, in)
		if err != nil {
			t.Fatalf("first Upsert: %v", err)
		}
		t.Logf("create: %v", time.Since(start))
		if !out.Created || out.PipelineARN != "arn:aws:sagemaker:us-east-1:123456789012:pipeline/cursus-moto-e2e" {
			t.Fatalf("first Upsert = %+v, want created with the moto ARN", out)
		}
		if want := []string{manifest[0].S3URI, manifest[1].S3URI}; !slices.Equal(out.Uploaded, want) || len(out.Skipped) != 0 {
			t.Fatalf("Uploaded = %v, Skipped = %v; want %v uploaded", out.Uploaded, out.Skipped, want)
		}
		desc, err := smc.DescribePipeline(ctx, &sm.DescribePipelineInput{PipelineName: aws.String("cursus-moto-e2e")})
		if err != nil {
			t.Fatalf("DescribePipeline: %v", err)
		}
		if got := aws.ToString(desc.PipelineDefinition); got != def1 {
			t.Errorf("definition read back differs:\n got %s\nwant %s", got, def1)
		}
		if aws.ToString(desc.RoleArn) != testRole || aws.ToString(desc.PipelineDescription) != "first version" ||
			aws.ToString(desc.PipelineDisplayName) != "Cursus-Moto-E2E" {
			t.Errorf("describe: role %q, description %q, display name %q", aws.ToString(desc.RoleArn),
				aws.ToString(desc.PipelineDescription), aws.ToString(desc.PipelineDisplayName))
		}
		if tags := pipelineTags(t, smc, out.PipelineARN); tags["project"] != "cursus" || tags["team"] != "ml" || len(tags) != 2 {
			t.Errorf("tags after create = %v", tags)
		}
		for _, it := range manifest {
			_, key, _ := parseS3URI(it.S3URI)
			obj, err := s3c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
			if err != nil {
				t.Fatalf("GetObject %s: %v", key, err)
			}
			body, _ := io.ReadAll(obj.Body)
			obj.Body.Close()
			want, _ := os.ReadFile(it.LocalPath)
			if !bytes.Equal(body, want) {
				t.Errorf("%s content = %q, want %q", key, body, want)
			}
			if obj.Metadata[metaSHA256] != it.SHA256 {
				t.Errorf("%s metadata = %v, want sha256 %s", key, obj.Metadata, it.SHA256)
			}
		}

		// Second run: service-specific endpoint variables only, a changed script, a new definition,
		// changed and added tags.
		t.Setenv("AWS_ENDPOINT_URL", "")
		t.Setenv("AWS_ENDPOINT_URL_SAGEMAKER", srv.Endpoint)
		t.Setenv("AWS_ENDPOINT_URL_S3", srv.Endpoint)
		writeFile(t, dir, "scripts/tabular_preprocessing.py", "print('preprocess v2')\n")
		in.Manifest = sagemaker.Manifest{item(t, script, manifest[0].S3URI), manifest[1]}
		def2 := testDefinition("TabularPreprocessing-Training-v2")
		in.DefinitionJSON = def2
		in.Description = "second version"
		in.Tags = map[string]string{"team": "ml-platform", "stage": "dev"}
		start = time.Now()
		out2, err := Upsert(ctx, in)
		if err != nil {
			t.Fatalf("second Upsert: %v", err)
		}
		t.Logf("update: %v", time.Since(start))
		if out2.Created || out2.PipelineARN != out.PipelineARN {
			t.Fatalf("second Upsert = %+v, want an update of %s", out2, out.PipelineARN)
		}
		if !slices.Equal(out2.Uploaded, []string{manifest[0].S3URI}) || !slices.Equal(out2.Skipped, []string{manifest[1].S3URI}) {
			t.Errorf("second run Uploaded = %v, Skipped = %v; want the changed script uploaded and the tarball skipped", out2.Uploaded, out2.Skipped)
		}
		desc, err = smc.DescribePipeline(ctx, &sm.DescribePipelineInput{PipelineName: aws.String("cursus-moto-e2e")})
		if err != nil {
			t.Fatalf("DescribePipeline: %v", err)
		}
		if got := aws.ToString(desc.PipelineDefinition); got != def2 {
			t.Errorf("updated definition read back differs:\n got %s\nwant %s", got, def2)
		}
		if aws.ToString(desc.PipelineDescription) != "second version" {
			t.Errorf("description after update = %q", aws.ToString(desc.PipelineDescription))
		}
		want := map[string]string{"project": "cursus", "team": "ml-platform", "stage": "dev"}
		if tags := pipelineTags(t, smc, out.PipelineARN); fmt.Sprint(tags) != fmt.Sprint(want) {
			t.Errorf("tags after update = %v, want %v (merged, none removed)", tags, want)
		}
		obj, err := s3c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("code/tabular_preprocessing.py")})
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(obj.Body)
		obj.Body.Close()
		if string(body) != "print('preprocess v2')\n" {
			t.Errorf("script after update = %q", body)
		}
		if names := pipelineNames(t, smc); !slices.Equal(names, []string{"cursus-moto-e2e"}) {
			t.Errorf("pipelines = %v, want just the one", names)
		}
	})

	t.Run("bad_input_creates_nothing", func(t *testing.T) {
		srv.Reset(t)
		makeBucket(t)
		setAWSEnv(t)
		t.Setenv("AWS_ENDPOINT_URL", srv.Endpoint)
		dir := t.TempDir()
		good := writeFile(t, dir, "train.py", "print('train')\n")
		goodItem := item(t, good, "s3://"+bucket+"/code/train.py")
		unreadable := goodItem
		unreadable.LocalPath = filepath.Join(dir, "missing.py")
		tampered := goodItem
		tampered.SHA256 = strings.Repeat("0", 64)
		base := UpsertInput{PipelineName: "cursus-bad-input", DefinitionJSON: testDefinition("Step"), RoleARN: testRole, Manifest: sagemaker.Manifest{goodItem}}
		cases := map[string]func(in *UpsertInput){
			"invalid pipeline name": func(in *UpsertInput) { in.PipelineName = "bad_name!!" },
			"unreadable manifest file": func(in *UpsertInput) {
				in.Manifest = sagemaker.Manifest{goodItem, unreadable}
			},
			"manifest hash mismatch": func(in *UpsertInput) { in.Manifest = sagemaker.Manifest{tampered} },
			"non-JSON definition":    func(in *UpsertInput) { in.DefinitionJSON = "not json {" },
			"bad role ARN":           func(in *UpsertInput) { in.RoleARN = "not-an-arn-but-long-enough" },
			"reserved tag key":       func(in *UpsertInput) { in.Tags = map[string]string{"aws:owner": "x"} },
		}
		for name, mutate := range cases {
			in := base
			mutate(&in)
			_, err := Upsert(ctx, in)
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Errorf("%s: err = %v, want *InputError", name, err)
				continue
			}
			t.Logf("%s: %v", name, err)
		}
		if names := pipelineNames(t, smc); len(names) != 0 {
			t.Errorf("pipelines created despite bad input: %v", names)
		}
		if keys := objectKeys(t, s3c, bucket); len(keys) != 0 {
			t.Errorf("objects uploaded despite bad input: %v", keys)
		}
		// Control: the same base input is accepted, so the cases above failed for their own reason.
		if _, err := Upsert(ctx, base); err != nil {
			t.Fatalf("control Upsert: %v", err)
		}
		if names := pipelineNames(t, smc); !slices.Equal(names, []string{"cursus-bad-input"}) {
			t.Errorf("control: pipelines = %v", names)
		}
	})

	t.Run("unchanged_second_upsert", func(t *testing.T) {
		srv.Reset(t)
		makeBucket(t)
		rec := awstest.NewServer(t, srv.Endpoint) // records every call on its way to moto
		awstest.SetEnv(t, rec.URL)
		p := writeFile(t, t.TempDir(), "train.py", "print('train')\n")
		in := UpsertInput{PipelineName: "cursus-unchanged", DefinitionJSON: testDefinition("Train"), RoleARN: testRole,
			Tags: map[string]string{"team": "ml"}, Manifest: sagemaker.Manifest{item(t, p, "s3://"+bucket+"/code/train.py")}}
		first, err := Upsert(ctx, in)
		if err != nil || !first.Created {
			t.Fatalf("first Upsert = %+v, %v", first, err)
		}
		second, err := Upsert(ctx, in)
		if err != nil {
			t.Fatalf("second Upsert: %v", err)
		}
		if !second.Unchanged || second.Updated || second.Created || second.PipelineARN != first.PipelineARN {
			t.Errorf("second Upsert = %+v, want unchanged", second)
		}
		if c, u, a := rec.Count("sagemaker:CreatePipeline"), rec.Count("sagemaker:UpdatePipeline"), rec.Count("sagemaker:AddTags"); c != 1 || u != 0 || a != 0 {
			t.Errorf("moto saw %d CreatePipeline, %d UpdatePipeline, %d AddTags; want 1, 0, 0 (calls %v)", c, u, a, rec.Calls())
		}
	})

	// The pipeline's ParallelismConfiguration goes with CreatePipeline; the same value again is
	// unchanged, another one updates the pipeline.
	t.Run("parallelism", func(t *testing.T) {
		srv.Reset(t)
		makeBucket(t)
		rec := awstest.NewServer(t, srv.Endpoint)
		awstest.SetEnv(t, rec.URL)
		in := UpsertInput{PipelineName: "cursus-parallel", DefinitionJSON: testDefinition("Train"), RoleARN: testRole, MaxParallelExecutionSteps: 3}
		stored := func() int32 {
			d, err := smc.DescribePipeline(ctx, &sm.DescribePipelineInput{PipelineName: aws.String(in.PipelineName)})
			if err != nil || d.ParallelismConfiguration == nil {
				t.Fatalf("DescribePipeline: %+v, %v", d, err)
			}
			return aws.ToInt32(d.ParallelismConfiguration.MaxParallelExecutionSteps)
		}
		if out, err := Upsert(ctx, in); err != nil || !out.Created || stored() != 3 {
			t.Fatalf("create: %+v, %v", out, err)
		}
		if out, err := Upsert(ctx, in); err != nil || !out.Unchanged {
			t.Fatalf("same parallelism: %+v, %v", out, err)
		}
		in.MaxParallelExecutionSteps = 5
		if out, err := Upsert(ctx, in); err != nil || !out.Updated || stored() != 5 {
			t.Fatalf("new parallelism: %+v, %v", out, err)
		}
		if c, u := rec.Count("sagemaker:CreatePipeline"), rec.Count("sagemaker:UpdatePipeline"); c != 1 || u != 1 {
			t.Errorf("moto saw %d CreatePipeline, %d UpdatePipeline; want 1, 1", c, u)
		}
	})

	t.Run("large_definition_through_s3_location", func(t *testing.T) {
		srv.Reset(t)
		makeBucket(t)
		rec := awstest.NewServer(t, srv.Endpoint)
		awstest.SetEnv(t, rec.URL)
		prefix := "s3://" + bucket + "/pipelines/big/definition"
		in := UpsertInput{PipelineName: "cursus-big", DefinitionJSON: largeDefinition("Big", 150*1024), DefinitionS3Prefix: prefix, RoleARN: testRole}
		out, err := Upsert(ctx, in)
		if err != nil {
			t.Fatalf("Upsert: %v", err)
		}
		uri := DefinitionS3URI(prefix, in.DefinitionJSON)
		if !out.Created || out.DefinitionS3URI != uri {
			t.Fatalf("Upsert = %+v, want created through %s", out, uri)
		}
		create := rec.Requests("CreatePipeline")
		if len(create) != 1 || create[0]["PipelineDefinition"] != nil || create[0]["PipelineDefinitionS3Location"] == nil {
			t.Fatalf("CreatePipeline requests %d, want one naming an S3 location and no inline definition", len(create))
		}
		_, key, _ := parseS3URI(uri)
		obj, err := s3c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		if err != nil {
			t.Fatalf("GetObject %s: %v", key, err)
		}
		body, _ := io.ReadAll(obj.Body)
		obj.Body.Close()
		if string(body) != in.DefinitionJSON {
			t.Errorf("definition object differs from the definition (%d bytes, want %d)", len(body), len(in.DefinitionJSON))
		}
		// moto loaded the definition from S3 (it keeps it as an object, so read the answer raw).
		desc := awstest.Call(t, srv.Endpoint, "DescribePipeline", map[string]string{"PipelineName": "cursus-big"})
		stored, _ := json.Marshal(desc["PipelineDefinition"])
		if !JSONEqual(string(stored), in.DefinitionJSON) {
			t.Errorf("moto's stored definition is not the uploaded one: %.200s", stored)
		}
	})

	t.Run("missing_bucket_is_upsert_error", func(t *testing.T) {
		srv.Reset(t)
		setAWSEnv(t)
		t.Setenv("AWS_ENDPOINT_URL", srv.Endpoint)
		p := writeFile(t, t.TempDir(), "train.py", "print('train')\n")
		_, err := Upsert(ctx, UpsertInput{PipelineName: "cursus-no-bucket", DefinitionJSON: testDefinition("S"), RoleARN: testRole,
			Manifest: sagemaker.Manifest{item(t, p, "s3://no-such-bucket-here/code/train.py")}})
		var ue *UpsertError
		if !errors.As(err, &ue) {
			t.Fatalf("err = %v, want *UpsertError", err)
		}
		if ue.Op != "s3:PutObject" || ue.Code != "NoSuchBucket" || len(ue.Uploaded) != 0 {
			t.Errorf("UpsertError = %+v, want s3:PutObject NoSuchBucket", ue)
		}
		if names := pipelineNames(t, smc); len(names) != 0 {
			t.Errorf("pipeline created after a failed upload: %v", names)
		}
	})
}
