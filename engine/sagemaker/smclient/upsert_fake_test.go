package smclient

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/sagemaker"
)

// sagemakerCalls is the SageMaker part of a call log, an SDK retry (the same call again at once)
// counted once.
func sagemakerCalls(calls []string) []string {
	var out []string
	for _, c := range calls {
		if strings.HasPrefix(c, "sagemaker:") {
			out = append(out, c)
		}
	}
	return slices.Compact(out)
}

// TestFakeUnchangedIsNotUpdated: a second upsert of the same pipeline sends no UpdatePipeline (no
// new pipeline version) and no AddTags; a tags-only change adds the tags without an update; a
// reformatted but JSON-equal definition is unchanged; a changed role is an update.
func TestFakeUnchangedIsNotUpdated(t *testing.T) {
	f, srv := newFakeAWS(t)
	setAWSEnv(t)
	t.Setenv("AWS_ENDPOINT_URL", srv.URL)
	ctx := context.Background()
	p := writeFile(t, t.TempDir(), "code/train.py", "print('train')\n")
	it := item(t, p, "s3://artifacts-bucket/pipelines/demo/code/train.py")
	in := UpsertInput{PipelineName: "demo-pipeline", DefinitionJSON: testDefinition("Train"), RoleARN: testRole,
		Description: "demo", Tags: map[string]string{"team": "ml"}, Manifest: sagemaker.Manifest{it}}
	out, err := Upsert(ctx, in)
	if err != nil || !out.Created || out.Unchanged || !slices.Equal(out.TagsAdded, []string{"team"}) {
		t.Fatalf("first Upsert = %+v, %v", out, err)
	}

	step := func(name string, in UpsertInput, wantSM []string) *UpsertOutput {
		t.Helper()
		n := len(f.callLog())
		out, err := Upsert(ctx, in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := sagemakerCalls(f.callLog()[n:]); !slices.Equal(got, wantSM) {
			t.Fatalf("%s: SageMaker calls %v, want %v", name, got, wantSM)
		}
		return out
	}
	out = step("same input", in, []string{"sagemaker:DescribePipeline", "sagemaker:ListTags"})
	if !out.Unchanged || out.Updated || out.Created || len(out.TagsAdded) != 0 || !slices.Equal(out.Skipped, []string{it.S3URI}) {
		t.Errorf("same input: %+v, want unchanged with the code skipped", out)
	}

	in.Tags = map[string]string{"team": "ml", "stage": "dev"}
	out = step("tags only", in, []string{"sagemaker:DescribePipeline", "sagemaker:ListTags", "sagemaker:AddTags"})
	if out.Unchanged || out.Updated || !slices.Equal(out.TagsAdded, []string{"stage"}) {
		t.Errorf("tags only: %+v, want the new tag added without an update", out)
	}

	var v map[string]any
	if err := jsonUnmarshal(in.DefinitionJSON, &v); err != nil {
		t.Fatal(err)
	}
	reformatted := in
	reformatted.DefinitionJSON = jsonIndent(t, v) // sorted keys, indented: other bytes, same JSON
	if reformatted.DefinitionJSON == in.DefinitionJSON {
		t.Fatal("reformatting changed nothing; the case would not test JSON equality")
	}
	out = step("reformatted definition", reformatted, []string{"sagemaker:DescribePipeline", "sagemaker:ListTags"})
	if !out.Unchanged {
		t.Errorf("reformatted definition: %+v, want unchanged", out)
	}

	in.RoleARN = "arn:aws:iam::123456789012:role/OtherRole"
	out = step("new role", in, []string{"sagemaker:DescribePipeline", "sagemaker:UpdatePipeline", "sagemaker:ListTags"})
	if out.Unchanged || !out.Updated || f.pipelines["demo-pipeline"].role != in.RoleARN {
		t.Errorf("new role: %+v, want an update", out)
	}

	in.DefinitionJSON = testDefinition("Train-v2")
	out = step("new definition", in, []string{"sagemaker:DescribePipeline", "sagemaker:UpdatePipeline", "sagemaker:ListTags"})
	if !out.Updated || f.pipelines["demo-pipeline"].definition != in.DefinitionJSON {
		t.Errorf("new definition: %+v, want an update", out)
	}
}

// largeDefinition is a definition of at least n bytes (a padded Metadata value).
func largeDefinition(marker string, n int) string {
	d := testDefinition(marker)
	return strings.Replace(d, `"Metadata": {}`, `"Metadata": {"pad": "`+strings.Repeat("x", n)+`"}`, 1)
}

// TestFakeLargeDefinitionThroughS3: a definition from InlineDefinitionLimit bytes on is uploaded
// content-addressed and named by PipelineDefinitionS3Location (never inline); the same definition
// again is unchanged (the fake returns the stored string, as SageMaker does) and not re-uploaded;
// a changed one goes to a new object and updates the pipeline.
func TestFakeLargeDefinitionThroughS3(t *testing.T) {
	f, srv := newFakeAWS(t)
	setAWSEnv(t)
	t.Setenv("AWS_ENDPOINT_URL", srv.URL)
	ctx := context.Background()
	const prefix = "s3://artifacts-bucket/pipelines/demo/definition"
	in := UpsertInput{PipelineName: "big-pipeline", DefinitionJSON: largeDefinition("Big", 140*1024), DefinitionS3Prefix: prefix, RoleARN: testRole}
	out, err := Upsert(ctx, in)
	if err != nil {
		t.Fatalf("Upsert: %v", err)
	}
	uri := DefinitionS3URI(prefix, in.DefinitionJSON)
	key := strings.TrimPrefix(uri, "s3://artifacts-bucket/")
	if !out.Created || out.DefinitionS3URI != uri || !slices.Equal(out.Uploaded, []string{uri}) {
		t.Fatalf("Upsert = %+v, want created through %s", out, uri)
	}
	want := []string{"sagemaker:DescribePipeline", "s3:HEAD /artifacts-bucket/" + key, "s3:PUT /artifacts-bucket/" + key, "sagemaker:CreatePipeline"}
	if got := slices.Compact(f.callLog()); !slices.Equal(got, want) {
		t.Fatalf("calls %v\nwant %v", got, want)
	}
	create := f.requests("CreatePipeline")[0]
	loc, _ := create["PipelineDefinitionS3Location"].(map[string]any)
	if _, inline := create["PipelineDefinition"]; inline || loc["Bucket"] != "artifacts-bucket" || loc["ObjectKey"] != key {
		t.Errorf("CreatePipeline carried %v (inline: %v), want only the S3 location of %s", loc, inline, uri)
	}
	if got := string(f.objects["/artifacts-bucket/"+key].body); got != in.DefinitionJSON {
		t.Errorf("uploaded definition differs (%d bytes, want %d)", len(got), len(in.DefinitionJSON))
	}

	n := len(f.callLog())
	out, err = Upsert(ctx, in)
	if err != nil || !out.Unchanged || len(out.Uploaded) != 0 {
		t.Fatalf("second Upsert = %+v, %v; want unchanged", out, err)
	}
	if got := slices.Compact(f.callLog()[n:]); !slices.Equal(got, []string{"sagemaker:DescribePipeline"}) {
		t.Errorf("second run calls %v, want only DescribePipeline", got)
	}

	in.DefinitionJSON = largeDefinition("Big-v2", 140*1024)
	out, err = Upsert(ctx, in)
	if err != nil || !out.Updated || out.DefinitionS3URI == uri || out.DefinitionS3URI != DefinitionS3URI(prefix, in.DefinitionJSON) {
		t.Fatalf("changed Upsert = %+v, %v; want an update through a new object", out, err)
	}
	if f.pipelines["big-pipeline"].definition != in.DefinitionJSON {
		t.Error("the pipeline does not hold the changed definition")
	}
}

// TestFakePartialUpsert: UpdatePipeline went live and merging the tags failed: a *PartialError that
// says the pipeline was updated, with the failed call; when no update went live (the definition
// was unchanged) the same tag failure is a plain *UpsertError.
func TestFakePartialUpsert(t *testing.T) {
	for _, op := range []string{"sagemaker:AddTags", "sagemaker:ListTags"} {
		t.Run(op, func(t *testing.T) {
			f, srv := newFakeAWS(t)
			setAWSEnv(t)
			t.Setenv("AWS_ENDPOINT_URL", srv.URL)
			ctx := context.Background()
			in := UpsertInput{PipelineName: "partial-pipeline", DefinitionJSON: testDefinition("A"), RoleARN: testRole}
			if _, err := Upsert(ctx, in); err != nil {
				t.Fatal(err)
			}
			f.fail(op, fakeFailure{status: 400, body: `{"__type":"AccessDeniedException","Message":"not authorized to tag"}`})
			in.DefinitionJSON = testDefinition("B")
			in.Tags = map[string]string{"team": "ml"}
			_, err := Upsert(ctx, in)
			var pe *PartialError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *PartialError", err)
			}
			if !pe.Output.Updated || pe.Output.PipelineARN != "arn:aws:sagemaker:us-east-1:123456789012:pipeline/partial-pipeline" ||
				pe.Failed.Op != op || pe.Failed.Code != "AccessDeniedException" {
				t.Errorf("PartialError = %+v / %+v", pe.Output, pe.Failed)
			}
			if f.pipelines["partial-pipeline"].definition != in.DefinitionJSON {
				t.Error("the update did not go live, yet the answer says it did")
			}
			if !strings.Contains(err.Error(), "updated and is live") || !strings.Contains(err.Error(), "AccessDeniedException") {
				t.Errorf("Error() = %q", err)
			}

			// Unchanged definition, same tag failure: nothing went live.
			_, err = Upsert(ctx, in)
			var ue *UpsertError
			if errors.As(err, &pe) || !errors.As(err, &ue) || ue.Op != op {
				t.Errorf("unchanged definition with a failing %s: err = %v, want a plain *UpsertError", op, err)
			}
		})
	}
}
