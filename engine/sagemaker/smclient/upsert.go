package smclient

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"os"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	sm "github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/engine/sagemaker"
	"github.com/cursus-go/cursus/internal/lazyre"
)

// metaSHA256 is the S3 user-metadata key (x-amz-meta-sha256) Upsert writes on every object.
const metaSHA256 = "sha256"

var (
	roleARNRe   = lazyre.New(`^arn:aws[a-z\-]*:iam::[0-9]{12}:role/?[a-zA-Z_0-9+=,.@\-_/]+$`)
	tagRe       = lazyre.New(`^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$`)
	bucketRe    = lazyre.New(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)
	sha256HexRe = lazyre.New(`^[0-9a-f]{64}$`)
)

// InlineDefinitionLimit is the size from which Upsert sends the definition through S3
// (PipelineDefinitionS3Location) rather than inline: a definition of fewer bytes goes inline, as
// the SageMaker Python SDK decides.
const InlineDefinitionLimit = 100 * 1024

// UpsertInput is what Upsert deploys: a pipeline definition, the files it references, and the
// pipeline's identity.
type UpsertInput struct {
	// PipelineName names the pipeline: 1-256 characters, `[a-zA-Z0-9](-*[a-zA-Z0-9]){0,255}`.
	PipelineName string
	// DefinitionJSON is the pipeline definition (a JSON object). It is sent verbatim: inline when
	// shorter than InlineDefinitionLimit bytes, else uploaded under DefinitionS3Prefix.
	DefinitionJSON string
	// DefinitionS3Prefix is the s3://bucket/prefix a definition of InlineDefinitionLimit bytes or
	// more is uploaded under, content-addressed as <prefix>/<sha256>.json, before CreatePipeline or
	// UpdatePipeline names it as the PipelineDefinitionS3Location. Required for such a definition;
	// unused for a smaller one.
	DefinitionS3Prefix string
	// RoleARN is the IAM role SageMaker assumes to run the pipeline
	// (arn:aws:iam::<account>:role/<name>). Required; on update it replaces the stored role.
	RoleARN string
	// Description is the pipeline description (optional, at most sagemaker.MaxDescriptionLen). Empty keeps
	// the existing description on update.
	Description string
	// DisplayName is the pipeline display name (optional; same rule as PipelineName). Empty keeps
	// the existing display name on update (SageMaker defaults it to the name on create).
	DisplayName string
	// Tags are set on the pipeline: at creation, or merged into the existing tags on update (tags
	// are added or overwritten, never removed).
	Tags map[string]string
	// MaxParallelExecutionSteps, when above 0, is the pipeline's ParallelismConfiguration (at most
	// this many steps of an execution run at once), sent with CreatePipeline and UpdatePipeline;
	// a stored pipeline with another value is updated. 0 sends none (SageMaker's default, or the
	// stored value on update).
	MaxParallelExecutionSteps int
	// Manifest lists the files uploaded to S3 before the pipeline is created or updated.
	Manifest sagemaker.Manifest
	// Region, when set, is the region the pipeline is deployed in (its own region, where its
	// images are), whatever region the configuration names; empty uses the configuration's.
	Region string
	// Config, when set, is the AWS configuration to use (region, credentials, endpoint). When nil
	// Upsert calls config.LoadDefaultConfig, so the standard chain applies: AWS_REGION,
	// AWS_PROFILE, credentials, AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_SAGEMAKER, AWS_ENDPOINT_URL_S3.
	Config *aws.Config
}

// UpsertOutput reports what Upsert did.
type UpsertOutput struct {
	PipelineARN string // ARN of the created, updated or unchanged pipeline
	// Created is true when the pipeline was created.
	Created bool
	// Updated is true when UpdatePipeline replaced the stored definition (a new pipeline version).
	Updated bool
	// Unchanged is true when the stored pipeline already had this definition (JSON-equal), role,
	// description, display name and tags: no UpdatePipeline and no AddTags was sent.
	Unchanged bool
	// DefinitionS3URI is where the definition was uploaded when it went through S3, else "".
	DefinitionS3URI string
	// TagsAdded lists the tag keys AddTags set (new or changed values), sorted.
	TagsAdded []string
	Uploaded  []string // S3 URIs written, in manifest order (the definition object last, when uploaded)
	Skipped   []string // S3 URIs left alone because the object already holds the same content
}

// Upsert uploads in.Manifest to S3 and then creates the pipeline, updates it when its stored
// definition differs, or leaves it alone when nothing changed; it then sets its tags.
//
// The whole input is validated first (ValidateInput), so bad input returns an *InputError before
// any AWS call. Each manifest file is then uploaded with PutObject, carrying its SHA-256 as the
// object's x-amz-meta-sha256 metadata and as x-amz-checksum-sha256, so S3 rejects content that
// changed after validation; an object whose metadata sha256 (or full-object SHA-256 checksum) and
// size already match is skipped.
//
// DescribePipeline decides what follows. A missing pipeline (ResourceNotFound from SageMaker, or
// moto's ValidationException "Could not find pipeline") is created with CreatePipeline, tags
// included. For an existing one, a stored definition JSON-equal to the new one, with the same role
// (and description and display name, when given), is not updated: no new pipeline version. Only
// tags that are missing or differ are then added (ListTags/AddTags), and when there are none the
// answer is Unchanged. Otherwise UpdatePipeline replaces the definition and the tags are merged. A
// CreatePipeline that loses a race ("already exists") falls back to UpdatePipeline.
//
// A definition of InlineDefinitionLimit bytes or more is uploaded first, content-addressed under
// DefinitionS3Prefix, and passed as PipelineDefinitionS3Location.
//
// A failed AWS call returns an *UpsertError carrying the AWS error code, except when the pipeline
// was already created or updated (it is live) and a later call failed: that is a *PartialError
// saying what went live.
//
// When an endpoint override is in force for S3 (AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_S3, a shared
// config endpoint_url, or Config.BaseEndpoint), S3 requests use path-style addressing, which local
// stand-ins such as moto need.
func Upsert(ctx context.Context, in UpsertInput) (*UpsertOutput, error) {
	if err := ValidateInput(in); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, newUpsertError("config", "", err)
	}
	cfg, err := awsConfig(ctx, in.Config, in.Region)
	if err != nil {
		return nil, err
	}
	s3c := newS3Client(cfg)
	smc := newAPI(sm.NewFromConfig(cfg))

	out := &UpsertOutput{Uploaded: []string{}, Skipped: []string{}, TagsAdded: []string{}}
	fail := func(ue *UpsertError) (*UpsertOutput, error) {
		ue.Uploaded = append([]string(nil), out.Uploaded...)
		return nil, ue
	}

	for _, item := range dedupeManifest(in.Manifest) {
		uploaded, ue := uploadItem(ctx, s3c, item)
		if ue != nil {
			return fail(ue)
		}
		if uploaded {
			out.Uploaded = append(out.Uploaded, item.S3URI)
		} else {
			out.Skipped = append(out.Skipped, item.S3URI)
		}
	}

	name := in.PipelineName
	stored, err := smc.describePipeline(ctx, &sm.DescribePipelineInput{PipelineName: aws.String(name)})
	exists := err == nil
	if err != nil && !isPipelineNotFound(err) {
		return fail(newUpsertError("sagemaker:DescribePipeline", name, err))
	}

	if exists && sameStoredPipeline(stored, in) {
		out.PipelineARN = aws.ToString(stored.PipelineArn)
		added, ue := mergeTags(ctx, smc, out.PipelineARN, in.Tags)
		if ue != nil {
			return fail(ue)
		}
		out.TagsAdded = added
		out.Unchanged = len(added) == 0
		slog.DebugContext(ctx, "sagemaker: pipeline definition unchanged; not updated", "pipeline", name, "tags_added", added)
		return out, nil
	}

	def, s3loc, ue := definitionSource(ctx, s3c, in, out)
	if ue != nil {
		return fail(ue)
	}

	if !exists {
		res, err := smc.createPipeline(ctx, &sm.CreatePipelineInput{
			PipelineName:                 aws.String(name),
			PipelineDefinition:           def,
			PipelineDefinitionS3Location: s3loc,
			RoleArn:                      aws.String(in.RoleARN),
			PipelineDescription:          optString(in.Description),
			PipelineDisplayName:          optString(in.DisplayName),
			Tags:                         sdkTags(in.Tags),
			ParallelismConfiguration:     parallelism(in),
		})
		switch {
		case err == nil:
			out.PipelineARN = aws.ToString(res.PipelineArn)
			out.Created = true
			out.TagsAdded = mapkeys.Sorted(in.Tags)
			slog.DebugContext(ctx, "sagemaker: pipeline created", "pipeline", name, "arn", out.PipelineARN)
			return out, nil
		case isAlreadyExists(err):
			slog.DebugContext(ctx, "sagemaker: pipeline appeared concurrently; updating", "pipeline", name)
		default:
			return fail(newUpsertError("sagemaker:CreatePipeline", name, err))
		}
	}

	res, err := smc.updatePipeline(ctx, &sm.UpdatePipelineInput{
		PipelineName:                 aws.String(name),
		PipelineDefinition:           def,
		PipelineDefinitionS3Location: s3loc,
		RoleArn:                      aws.String(in.RoleARN),
		PipelineDescription:          optString(in.Description),
		PipelineDisplayName:          optString(in.DisplayName),
		ParallelismConfiguration:     parallelism(in),
	})
	if err != nil {
		return fail(newUpsertError("sagemaker:UpdatePipeline", name, err))
	}
	out.PipelineARN = aws.ToString(res.PipelineArn)
	out.Updated = true
	slog.DebugContext(ctx, "sagemaker: pipeline updated", "pipeline", name, "arn", out.PipelineARN)
	added, ue := mergeTags(ctx, smc, out.PipelineARN, in.Tags)
	if ue != nil {
		ue.Uploaded = append([]string(nil), out.Uploaded...)
		return nil, &PartialError{Output: *out, Failed: ue}
	}
	out.TagsAdded = added
	return out, nil
}

// sameStoredPipeline reports whether the pipeline DescribePipeline answered already holds in: a
// JSON-equal definition, the same role, and the same description and display name where in gives
// them (an empty one keeps the stored value, so it cannot differ).
func sameStoredPipeline(stored *sm.DescribePipelineOutput, in UpsertInput) bool {
	if aws.ToString(stored.RoleArn) != in.RoleARN {
		return false
	}
	if in.Description != "" && aws.ToString(stored.PipelineDescription) != in.Description {
		return false
	}
	if in.DisplayName != "" && aws.ToString(stored.PipelineDisplayName) != in.DisplayName {
		return false
	}
	if in.MaxParallelExecutionSteps > 0 && (stored.ParallelismConfiguration == nil ||
		int(aws.ToInt32(stored.ParallelismConfiguration.MaxParallelExecutionSteps)) != in.MaxParallelExecutionSteps) {
		return false
	}
	return JSONEqual(aws.ToString(stored.PipelineDefinition), in.DefinitionJSON)
}

// JSONEqual reports whether a and b are JSON documents with the same value: object key order and
// whitespace do not matter, numbers compare by value (6 equals 6.0). Invalid JSON equals nothing.
func JSONEqual(a, b string) bool {
	va, err := decodeJSON(a)
	if err != nil {
		return false
	}
	vb, err := decodeJSON(b)
	if err != nil {
		return false
	}
	return jsonValueEqual(va, vb)
}

func decodeJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

func jsonValueEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !jsonValueEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonValueEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		fx, ex := x.Float64()
		fy, ey := y.Float64()
		return ex == nil && ey == nil && fx == fy
	default: // string, bool, nil
		return a == b
	}
}

// definitionSource returns what CreatePipeline / UpdatePipeline carry: the definition inline, or,
// from InlineDefinitionLimit bytes on, its S3 location after uploading it (skipped when the
// content-addressed object is already there).
func definitionSource(ctx context.Context, c *s3.Client, in UpsertInput, out *UpsertOutput) (*string, *smtypes.PipelineDefinitionS3Location, *UpsertError) {
	if len(in.DefinitionJSON) < InlineDefinitionLimit {
		return aws.String(in.DefinitionJSON), nil, nil
	}
	body := []byte(in.DefinitionJSON)
	sum := sha256.Sum256(body)
	digest := hex.EncodeToString(sum[:])
	uri := definitionS3URI(in.DefinitionS3Prefix, digest)
	uploaded, ue := putObject(ctx, c, uri, digest, int64(len(body)),
		func() (io.ReadSeekCloser, error) { return nopSeekCloser{bytes.NewReader(body)}, nil }, "application/json")
	if ue != nil {
		return nil, nil, ue
	}
	if uploaded {
		out.Uploaded = append(out.Uploaded, uri)
	} else {
		out.Skipped = append(out.Skipped, uri)
	}
	out.DefinitionS3URI = uri
	bucket, key, _ := parseS3URI(uri) // validated with the prefix
	return nil, &smtypes.PipelineDefinitionS3Location{Bucket: aws.String(bucket), ObjectKey: aws.String(key)}, nil
}

// DefinitionS3URI is where Upsert puts a definition too large to send inline:
// <prefix>/<sha256 of the definition>.json, so a changed definition gets a new object.
func DefinitionS3URI(prefix, definitionJSON string) string {
	sum := sha256.Sum256([]byte(definitionJSON))
	return definitionS3URI(prefix, hex.EncodeToString(sum[:]))
}

// definitionS3URI is DefinitionS3URI of a definition whose SHA-256 (hex) is digest.
func definitionS3URI(prefix, digest string) string {
	return strings.TrimSuffix(prefix, "/") + "/" + digest + ".json"
}

type nopSeekCloser struct{ *bytes.Reader }

func (nopSeekCloser) Close() error { return nil }

// ValidateInput checks an UpsertInput the way Upsert does before any AWS call: pipeline name,
// display name, role ARN, description, tags, the definition (a JSON object within
// sagemaker.MaxDefinitionBytes) and every manifest item (a readable regular file whose SHA-256 and size match,
// an s3://bucket/key destination, no destination listed twice with different content). It returns
// the first problem as an *InputError, or nil.
func ValidateInput(in UpsertInput) error {
	if err := sagemaker.ValidatePipelineName(in.PipelineName); err != nil {
		return &InputError{Field: "pipeline_name", Reason: err.Error()}
	}
	if in.DisplayName != "" {
		if err := sagemaker.ValidatePipelineName(in.DisplayName); err != nil {
			return &InputError{Field: "display_name", Reason: err.Error()}
		}
	}
	if len(in.RoleARN) < 20 || len(in.RoleARN) > 2048 || !roleARNRe().MatchString(in.RoleARN) {
		return &InputError{Field: "role_arn", Reason: fmt.Sprintf("%q is not an IAM role ARN (arn:aws:iam::<12-digit account>:role/<name>)", in.RoleARN)}
	}
	if n := len([]rune(in.Description)); n > sagemaker.MaxDescriptionLen {
		return &InputError{Field: "description", Reason: fmt.Sprintf("%d characters, the limit is %d", n, sagemaker.MaxDescriptionLen)}
	}
	if err := validateTags(in.Tags); err != nil {
		return err
	}
	if in.MaxParallelExecutionSteps < 0 || in.MaxParallelExecutionSteps > math.MaxInt32 {
		return &InputError{Field: "max_parallel_execution_steps", Reason: fmt.Sprintf("%d: want a whole number of at least 1 (0: none)", in.MaxParallelExecutionSteps)}
	}
	if err := validateDefinition(in.DefinitionJSON, in.DefinitionS3Prefix); err != nil {
		return err
	}
	return validateManifest(in.Manifest)
}

func validateTags(tags map[string]string) error {
	if len(tags) > sagemaker.MaxTags {
		return &InputError{Field: "tags", Reason: fmt.Sprintf("%d tags, the limit is %d", len(tags), sagemaker.MaxTags)}
	}
	for _, k := range mapkeys.Sorted(tags) {
		v := tags[k]
		switch {
		case k == "" || len([]rune(k)) > 128:
			return &InputError{Field: "tags", Reason: fmt.Sprintf("tag key %q must be 1-128 characters", k)}
		case strings.HasPrefix(strings.ToLower(k), "aws:"):
			return &InputError{Field: "tags", Reason: fmt.Sprintf("tag key %q uses the reserved prefix aws:", k)}
		case !tagRe().MatchString(k):
			return &InputError{Field: "tags", Reason: fmt.Sprintf("tag key %q has characters outside letters, digits, spaces and _.:/=+-@", k)}
		case len([]rune(v)) > 256:
			return &InputError{Field: "tags", Reason: fmt.Sprintf("value of tag %q is longer than 256 characters", k)}
		case !tagRe().MatchString(v):
			return &InputError{Field: "tags", Reason: fmt.Sprintf("value of tag %q has characters outside letters, digits, spaces and _.:/=+-@", k)}
		}
	}
	return nil
}

func validateDefinition(def, s3Prefix string) error {
	trimmed := strings.TrimSpace(def)
	switch {
	case trimmed == "":
		return &InputError{Field: "definition", Reason: "empty pipeline definition"}
	case !json.Valid([]byte(def)):
		var v any
		err := json.Unmarshal([]byte(def), &v)
		return &InputError{Field: "definition", Reason: "not valid JSON: " + err.Error()}
	case trimmed[0] != '{':
		return &InputError{Field: "definition", Reason: "a pipeline definition is a JSON object"}
	}
	if s3Prefix != "" {
		if err := validateS3Prefix(s3Prefix); err != nil {
			return &InputError{Field: "definition_s3_prefix", Reason: err.Error()}
		}
	}
	if len(def) >= InlineDefinitionLimit && s3Prefix == "" {
		return &InputError{Field: "definition_s3_prefix", Reason: fmt.Sprintf(
			"the definition is %d bytes; from %d bytes on it goes through S3 (PipelineDefinitionS3Location), so an s3://bucket/prefix to upload it under is needed", len(def), InlineDefinitionLimit)}
	}
	return nil
}

// validateS3Prefix checks an s3://bucket[/prefix] under which Upsert writes <sha256>.json.
func validateS3Prefix(prefix string) error {
	rest, ok := strings.CutPrefix(prefix, "s3://")
	if !ok {
		return fmt.Errorf("%q is not an s3://bucket/prefix URI", prefix)
	}
	bucket, key, _ := strings.Cut(rest, "/")
	if !bucketRe().MatchString(bucket) || strings.Contains(bucket, "..") {
		return fmt.Errorf("%q: invalid bucket name %q", prefix, bucket)
	}
	if len(strings.TrimSuffix(key, "/"))+len("/")+64+len(".json") > 1024 {
		return fmt.Errorf("%q: prefix too long for an object key (1024 bytes with /<sha256>.json)", prefix)
	}
	return nil
}

func validateManifest(m sagemaker.Manifest) error {
	seen := make(map[string]string, len(m))
	for i, item := range m {
		field := func(f string) string { return fmt.Sprintf("manifest[%d].%s", i, f) }
		if item.LocalPath == "" {
			return &InputError{Field: field("local_path"), Reason: "empty local path"}
		}
		if _, _, err := parseS3URI(item.S3URI); err != nil {
			return &InputError{Field: field("s3_uri"), Reason: err.Error()}
		}
		if !sha256HexRe().MatchString(item.SHA256) {
			return &InputError{Field: field("sha256"), Reason: fmt.Sprintf("%q is not a lowercase hex SHA-256", item.SHA256)}
		}
		if prev, ok := seen[item.S3URI]; ok && prev != item.SHA256 {
			return &InputError{Field: field("s3_uri"), Reason: fmt.Sprintf("%s is listed twice with different content", item.S3URI)}
		}
		seen[item.S3URI] = item.SHA256
		sum, size, err := sagemaker.HashFile(item.LocalPath)
		if err != nil {
			return &InputError{Field: field("local_path"), Reason: "cannot read: " + err.Error()}
		}
		if sum != item.SHA256 {
			return &InputError{Field: field("sha256"), Reason: fmt.Sprintf("%s has SHA-256 %s, the manifest says %s", item.LocalPath, sum, item.SHA256)}
		}
		if size != item.Size {
			return &InputError{Field: field("size"), Reason: fmt.Sprintf("%s is %d bytes, the manifest says %d", item.LocalPath, size, item.Size)}
		}
	}
	return nil
}

// parseS3URI splits s3://bucket/key.
func parseS3URI(uri string) (bucket, key string, err error) {
	rest, ok := strings.CutPrefix(uri, "s3://")
	if !ok {
		return "", "", fmt.Errorf("%q is not an s3://bucket/key URI", uri)
	}
	bucket, key, _ = strings.Cut(rest, "/")
	if !bucketRe().MatchString(bucket) || strings.Contains(bucket, "..") {
		return "", "", fmt.Errorf("%q: invalid bucket name %q", uri, bucket)
	}
	if key == "" || strings.HasSuffix(key, "/") {
		return "", "", fmt.Errorf("%q: missing object key (a file, not a prefix)", uri)
	}
	if len(key) > 1024 {
		return "", "", fmt.Errorf("%q: object key longer than 1024 bytes", uri)
	}
	return bucket, key, nil
}

// dedupeManifest drops repeated (S3 URI, hash) items; validation already rejected conflicting ones.
func dedupeManifest(m sagemaker.Manifest) sagemaker.Manifest {
	seen := make(map[string]bool, len(m))
	out := make(sagemaker.Manifest, 0, len(m))
	for _, item := range m {
		if seen[item.S3URI] {
			continue
		}
		seen[item.S3URI] = true
		out = append(out, item)
	}
	return out
}

// awsConfig returns the caller's configuration or the standard chain's, moved to region when one is
// given.
func awsConfig(ctx context.Context, given *aws.Config, region string) (aws.Config, error) {
	cfg, _, err := regionConfig(ctx, given, region)
	return cfg, err
}

// loadConfig copies the given configuration, or loads the standard chain.
func loadConfig(ctx context.Context, given *aws.Config) (aws.Config, error) {
	if given != nil {
		return given.Copy(), nil
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return aws.Config{}, newUpsertError("config", "", err)
	}
	return cfg, nil
}

// newS3Client builds the S3 client, with path-style addressing whenever the base endpoint is
// overridden (the option runs after the SDK has applied AWS_ENDPOINT_URL(_S3) and config files).
func newS3Client(cfg aws.Config) *s3.Client {
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		if o.BaseEndpoint != nil {
			o.UsePathStyle = true
		}
		// An object uploaded without a checksum (most are) is read without one: not worth a
		// line on stderr per GetObject.
		o.DisableLogOutputChecksumValidationSkipped = true
	})
}

// uploadItem puts one manifest file in S3 unless the object already holds that content.
func uploadItem(ctx context.Context, c *s3.Client, item sagemaker.UploadItem) (uploaded bool, ue *UpsertError) {
	return putObject(ctx, c, item.S3URI, item.SHA256, item.Size, func() (io.ReadSeekCloser, error) { return os.Open(item.LocalPath) }, "")
}

// putObject writes size bytes with lowercase-hex SHA-256 sum to uri, unless the object already
// holds that content (same size, and the sha256 metadata or a full-object SHA-256 checksum equal).
// open gives the body; contentType may be empty.
func putObject(ctx context.Context, c *s3.Client, uri, sum string, size int64, open func() (io.ReadSeekCloser, error), contentType string) (uploaded bool, ue *UpsertError) {
	bucket, key, _ := parseS3URI(uri) // validated
	raw, _ := hex.DecodeString(sum)
	checksum := base64.StdEncoding.EncodeToString(raw)

	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), ChecksumMode: s3types.ChecksumModeEnabled})
	switch status := httpStatus(err); {
	case err == nil:
		if sameObject(head, size, sum, checksum) {
			slog.DebugContext(ctx, "sagemaker: s3 object unchanged, skipped", "s3_uri", uri)
			return false, nil
		}
	case status == http.StatusNotFound || status == http.StatusForbidden:
		// Missing, or not visible without s3:ListBucket: upload.
	default:
		return false, newUpsertError("s3:HeadObject", uri, err)
	}

	body, err := open()
	if err != nil {
		return false, &UpsertError{Op: "s3:PutObject", Target: uri, Message: err.Error(), Err: err}
	}
	defer body.Close()
	_, err = c.PutObject(ctx, &s3.PutObjectInput{
		Bucket:         aws.String(bucket),
		Key:            aws.String(key),
		Body:           body,
		ContentLength:  aws.Int64(size),
		ContentType:    optString(contentType),
		ChecksumSHA256: aws.String(checksum),
		Metadata:       map[string]string{metaSHA256: sum},
	})
	if err != nil {
		return false, newUpsertError("s3:PutObject", uri, err)
	}
	slog.DebugContext(ctx, "sagemaker: uploaded", "s3_uri", uri, "bytes", size)
	return true, nil
}

// sameObject reports whether an existing object already holds the content: same size, and the
// sha256 metadata Upsert writes, or a full-object SHA-256 checksum, equal to its hash.
func sameObject(head *s3.HeadObjectOutput, size int64, sum, checksumB64 string) bool {
	if aws.ToInt64(head.ContentLength) != size {
		return false
	}
	for k, v := range head.Metadata {
		if strings.EqualFold(k, metaSHA256) && strings.EqualFold(v, sum) {
			return true
		}
	}
	return aws.ToString(head.ChecksumSHA256) == checksumB64 &&
		(head.ChecksumType == "" || head.ChecksumType == s3types.ChecksumTypeFullObject)
}

// httpStatus returns the HTTP status of an AWS response error, or 0.
func httpStatus(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// isPipelineNotFound recognises "no such pipeline" from SageMaker (ResourceNotFound) and from moto
// (ValidationException "Could not find pipeline with PipelineName X.").
func isPipelineNotFound(err error) bool {
	var rnf *smtypes.ResourceNotFound
	if errors.As(err, &rnf) {
		return true
	}
	code, msg := apiErrorCode(err)
	if code == "ResourceNotFound" || code == "ResourceNotFoundException" {
		return true
	}
	msg = strings.ToLower(msg)
	return code == "ValidationException" && (strings.Contains(msg, "could not find") || strings.Contains(msg, "does not exist"))
}

// isAlreadyExists recognises CreatePipeline's duplicate-name error.
func isAlreadyExists(err error) bool {
	code, msg := apiErrorCode(err)
	return code == "ValidationException" && strings.Contains(strings.ToLower(msg), "already exists")
}

// mergeTags adds or overwrites the wanted tags on arn; existing tags not in want are kept. It
// returns the keys it set (missing or with another value), sorted; none when all were in place.
func mergeTags(ctx context.Context, c *api, arn string, want map[string]string) ([]string, *UpsertError) {
	if len(want) == 0 {
		return []string{}, nil
	}
	have := map[string]string{}
	p := sm.NewListTagsPaginator(c, &sm.ListTagsInput{ResourceArn: aws.String(arn)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, newUpsertError("sagemaker:ListTags", arn, err)
		}
		for _, t := range page.Tags {
			have[aws.ToString(t.Key)] = aws.ToString(t.Value)
		}
	}
	diff := map[string]string{}
	for k, v := range want {
		if cur, ok := have[k]; !ok || cur != v {
			diff[k] = v
		}
	}
	if len(diff) == 0 {
		return []string{}, nil
	}
	if _, err := c.addTags(ctx, &sm.AddTagsInput{ResourceArn: aws.String(arn), Tags: sdkTags(diff)}); err != nil {
		return nil, newUpsertError("sagemaker:AddTags", arn, err)
	}
	return mapkeys.Sorted(diff), nil
}

// sdkTags converts tags to the SDK type, sorted by key; nil for none.
func sdkTags(tags map[string]string) []smtypes.Tag {
	if len(tags) == 0 {
		return nil
	}
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]smtypes.Tag, 0, len(keys))
	for _, k := range keys {
		out = append(out, smtypes.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
	}
	return out
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return aws.String(s)
}

// parallelism is the ParallelismConfiguration of in, nil when it sets none.
func parallelism(in UpsertInput) *smtypes.ParallelismConfiguration {
	if in.MaxParallelExecutionSteps <= 0 {
		return nil
	}
	return &smtypes.ParallelismConfiguration{MaxParallelExecutionSteps: aws.Int32(int32(in.MaxParallelExecutionSteps))}
}
