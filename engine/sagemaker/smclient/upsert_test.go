package smclient

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/smithy-go"

	"github.com/cursus-go/cursus/engine/sagemaker"
)

func TestValidateInput(t *testing.T) {
	dir := t.TempDir()
	script := writeFile(t, dir, "s.py", "print('s')\n")
	good := item(t, script, "s3://my-bucket/code/s.py")
	base := UpsertInput{PipelineName: "p-1", DefinitionJSON: `{"Version":"2020-12-01","Steps":[]}`, RoleARN: testRole,
		Description: "desc", DisplayName: "P-1", Tags: map[string]string{"team": "ml", "cost center": "a/b:c=d+e@f"},
		Manifest: sagemaker.Manifest{good, good}}
	if err := ValidateInput(base); err != nil {
		t.Fatalf("good input rejected: %v", err)
	}
	tooManyTags := map[string]string{}
	for i := range sagemaker.MaxTags + 1 {
		tooManyTags[fmt.Sprintf("k%d", i)] = "v"
	}
	cases := []struct {
		name   string
		mutate func(in *UpsertInput)
		field  string
	}{
		{"empty name", func(in *UpsertInput) { in.PipelineName = "" }, "pipeline_name"},
		{"underscore name", func(in *UpsertInput) { in.PipelineName = "my_pipeline" }, "pipeline_name"},
		{"bad display name", func(in *UpsertInput) { in.DisplayName = "My Pipeline" }, "display_name"},
		{"empty role", func(in *UpsertInput) { in.RoleARN = "" }, "role_arn"},
		{"user not role", func(in *UpsertInput) { in.RoleARN = "arn:aws:iam::123456789012:user/someone" }, "role_arn"},
		{"short account", func(in *UpsertInput) { in.RoleARN = "arn:aws:iam::12345:role/x" }, "role_arn"},
		{"long description", func(in *UpsertInput) { in.Description = strings.Repeat("d", sagemaker.MaxDescriptionLen+1) }, "description"},
		{"too many tags", func(in *UpsertInput) { in.Tags = tooManyTags }, "tags"},
		{"empty tag key", func(in *UpsertInput) { in.Tags = map[string]string{"": "v"} }, "tags"},
		{"aws: tag key", func(in *UpsertInput) { in.Tags = map[string]string{"AWS:x": "v"} }, "tags"},
		{"bad tag char", func(in *UpsertInput) { in.Tags = map[string]string{"k": "a;b"} }, "tags"},
		{"long tag value", func(in *UpsertInput) { in.Tags = map[string]string{"k": strings.Repeat("v", 257)} }, "tags"},
		{"empty definition", func(in *UpsertInput) { in.DefinitionJSON = "  " }, "definition"},
		{"non-JSON definition", func(in *UpsertInput) { in.DefinitionJSON = "not json {" }, "definition"},
		{"truncated definition", func(in *UpsertInput) { in.DefinitionJSON = `{"Steps": [` }, "definition"},
		{"array definition", func(in *UpsertInput) { in.DefinitionJSON = `[{"Steps": []}]` }, "definition"},
		{"large definition without an S3 prefix", func(in *UpsertInput) {
			in.DefinitionJSON = `{"Metadata": {"pad": "` + strings.Repeat("x", InlineDefinitionLimit) + `"}}`
		}, "definition_s3_prefix"},
		{"S3 prefix not s3://", func(in *UpsertInput) { in.DefinitionS3Prefix = "https://bucket/defs" }, "definition_s3_prefix"},
		{"S3 prefix bad bucket", func(in *UpsertInput) { in.DefinitionS3Prefix = "s3://Bad_Bucket/defs" }, "definition_s3_prefix"},
		{"S3 prefix too long", func(in *UpsertInput) { in.DefinitionS3Prefix = "s3://bucket/" + strings.Repeat("k", 1000) }, "definition_s3_prefix"},
		{"empty local path", func(in *UpsertInput) { in.Manifest = sagemaker.Manifest{{S3URI: good.S3URI, SHA256: good.SHA256}} }, "manifest[0].local_path"},
		{"missing file", func(in *UpsertInput) {
			m := good
			m.LocalPath = filepath.Join(dir, "nope.py")
			in.Manifest = sagemaker.Manifest{good, m}
		}, "manifest[1].local_path"},
		{"directory", func(in *UpsertInput) {
			m := good
			m.LocalPath = dir
			in.Manifest = sagemaker.Manifest{m}
		}, "manifest[0].local_path"},
		{"hash mismatch", func(in *UpsertInput) {
			m := good
			m.SHA256 = strings.Repeat("a", 64)
			in.Manifest = sagemaker.Manifest{m}
		}, "manifest[0].sha256"},
		{"uppercase hash", func(in *UpsertInput) {
			m := good
			m.SHA256 = strings.ToUpper(m.SHA256)
			in.Manifest = sagemaker.Manifest{m}
		}, "manifest[0].sha256"},
		{"size mismatch", func(in *UpsertInput) {
			m := good
			m.Size++
			in.Manifest = sagemaker.Manifest{m}
		}, "manifest[0].size"},
		{"https uri", func(in *UpsertInput) {
			m := good
			m.S3URI = "https://my-bucket.s3.amazonaws.com/code/s.py"
			in.Manifest = sagemaker.Manifest{m}
		}, "manifest[0].s3_uri"},
		{"prefix uri", func(in *UpsertInput) {
			m := good
			m.S3URI = "s3://my-bucket/code/"
			in.Manifest = sagemaker.Manifest{m}
		}, "manifest[0].s3_uri"},
		{"bad bucket", func(in *UpsertInput) {
			m := good
			m.S3URI = "s3://My_Bucket/code/s.py"
			in.Manifest = sagemaker.Manifest{m}
		}, "manifest[0].s3_uri"},
		{"same destination, different content", func(in *UpsertInput) {
			other := item(t, writeFile(t, dir, "other.py", "other"), good.S3URI)
			in.Manifest = sagemaker.Manifest{good, other}
		}, "manifest[1].s3_uri"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := base
			c.mutate(&in)
			err := ValidateInput(in)
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v, want *InputError", err)
			}
			if ie.Field != c.field {
				t.Errorf("Field = %q, want %q (%v)", ie.Field, c.field, err)
			}
		})
	}
}

// A definition just under the inline limit needs no S3 prefix; one at the limit does, and is
// accepted with one.
func TestValidateInputInlineLimit(t *testing.T) {
	pad := func(n int) string {
		head, tail := `{"Metadata": {"pad": "`, `"}}`
		return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
	}
	in := UpsertInput{PipelineName: "p", RoleARN: testRole, DefinitionJSON: pad(InlineDefinitionLimit - 1)}
	if err := ValidateInput(in); err != nil {
		t.Errorf("%d bytes inline: %v", len(in.DefinitionJSON), err)
	}
	in.DefinitionJSON = pad(InlineDefinitionLimit)
	if err := ValidateInput(in); err == nil {
		t.Errorf("%d bytes without an S3 prefix accepted", len(in.DefinitionJSON))
	}
	in.DefinitionS3Prefix = "s3://bucket/pipelines/p/definition/"
	if err := ValidateInput(in); err != nil {
		t.Errorf("%d bytes with an S3 prefix: %v", len(in.DefinitionJSON), err)
	}
	if got := DefinitionS3URI(in.DefinitionS3Prefix, "{}"); got != "s3://bucket/pipelines/p/definition/44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a.json" {
		t.Errorf("DefinitionS3URI = %s", got)
	}
}

func TestJSONEqual(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":[1,2,{"c":null}]}`, `{ "b": [1, 2, {"c": null}], "a": 1 }`, true},
		{`{"x":6}`, `{"x":6.0}`, true},
		{`{"x":6}`, `{"x":"6"}`, false},
		{`{"x":[1,2]}`, `{"x":[2,1]}`, false},
		{`{"x":1}`, `{"x":1,"y":1}`, false},
		{`{"x":true}`, `{"x":"true"}`, false},
		{`{"x":1}`, `{"x":1} {}`, false},
		{`not json`, `not json`, false},
		{`{"s":"a\u00e9"}`, `{"s":"aé"}`, true},
	} {
		if got := JSONEqual(c.a, c.b); got != c.want {
			t.Errorf("JSONEqual(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestParseS3URI(t *testing.T) {
	b, k, err := parseS3URI("s3://my.bucket-1/a/b/c.tar.gz")
	if err != nil || b != "my.bucket-1" || k != "a/b/c.tar.gz" {
		t.Errorf("parseS3URI = %q %q %v", b, k, err)
	}
	for _, bad := range []string{"", "s3://", "s3://b", "s3://bk", "s3://bucket", "s3://bucket/", "s3://a..b/k", "gs://bucket/k", "s3://bucket/" + strings.Repeat("k", 1025)} {
		if _, _, err := parseS3URI(bad); err == nil {
			t.Errorf("parseS3URI(%q) accepted", bad)
		}
	}
}

func TestNotFoundAndExistsShapes(t *testing.T) {
	cases := []struct {
		err              error
		notFound, exists bool
	}{
		{&smithy.GenericAPIError{Code: "ResourceNotFound", Message: "Pipeline 'x' does not exist."}, true, false},
		{&smithy.GenericAPIError{Code: "ValidationException", Message: "Could not find pipeline with PipelineName x."}, true, false},
		{&smithy.GenericAPIError{Code: "ValidationException", Message: "Pipeline names must be unique within an AWS account and region. Pipeline with name (x) already exists."}, false, true},
		{&smithy.GenericAPIError{Code: "ValidationException", Message: "1 validation error detected"}, false, false},
		{&smithy.GenericAPIError{Code: "AccessDeniedException", Message: "Could not find credentials"}, false, false},
		{errors.New("dial tcp: connection refused"), false, false},
	}
	for _, c := range cases {
		wrapped := fmt.Errorf("operation error: %w", c.err)
		if got := isPipelineNotFound(wrapped); got != c.notFound {
			t.Errorf("isPipelineNotFound(%v) = %v", c.err, got)
		}
		if got := isAlreadyExists(wrapped); got != c.exists {
			t.Errorf("isAlreadyExists(%v) = %v", c.err, got)
		}
	}
}

func TestErrorText(t *testing.T) {
	ue := newUpsertError("sagemaker:CreatePipeline", "p", fmt.Errorf("op: %w", &smithy.GenericAPIError{Code: "ValidationException", Message: "bad role"}))
	if ue.Code != "ValidationException" || ue.Message != "bad role" {
		t.Errorf("newUpsertError = %+v", ue)
	}
	if got := ue.Error(); got != "sagemaker upsert: sagemaker:CreatePipeline p failed: ValidationException: bad role" {
		t.Errorf("Error() = %q", got)
	}
	plain := newUpsertError("s3:PutObject", "s3://b/k", errors.New("connection refused"))
	if plain.Code != "" || plain.Message != "connection refused" {
		t.Errorf("non-API error = %+v", plain)
	}
	ie := &InputError{Field: "pipeline_name", Reason: "empty pipeline name"}
	if ie.Error() != "sagemaker upsert: invalid pipeline_name: empty pipeline name" {
		t.Errorf("InputError = %q", ie.Error())
	}
}
