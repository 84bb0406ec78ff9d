package smclient

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
	"github.com/aws/smithy-go"

	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/engine/sagemaker"
)

// fakeAWS is an in-process stand-in for SageMaker (awsJson1_1, routed on X-Amz-Target) and the S3
// object calls Upsert makes (path-style HEAD/PUT). Unlike moto it answers a missing pipeline with
// the real service's ResourceNotFound, verifies x-amz-checksum-sha256 as S3 does, and can be told
// to fail any operation with a given HTTP response.
type fakeAWS struct {
	mu        sync.Mutex
	calls     []string                    // "sagemaker:<Op>" or "s3:<METHOD> <path>"
	bodies    map[string][]map[string]any // SageMaker request bodies per op
	objects   map[string]fakeObject       // "/bucket/key" -> object
	pipelines map[string]*fakePipeline
	failures  map[string]fakeFailure // "sagemaker:<Op>" or "s3:<METHOD>" -> canned error
}

type fakeObject struct {
	body []byte
	meta string // x-amz-meta-sha256
}

type fakePipeline struct {
	arn, definition, role, description, displayName string
	tags                                            map[string]string
}

type fakeFailure struct {
	status  int
	body    string
	headers map[string]string
}

func newFakeAWS(t *testing.T) (*fakeAWS, *httptest.Server) {
	f := &fakeAWS{bodies: map[string][]map[string]any{}, objects: map[string]fakeObject{},
		pipelines: map[string]*fakePipeline{}, failures: map[string]fakeFailure{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeAWS) fail(op string, ff fakeFailure) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures[op] = ff
}

func (f *fakeAWS) callLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func (f *fakeAWS) requests(op string) []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.bodies[op])
}

func (f *fakeAWS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	if target := r.Header.Get("X-Amz-Target"); target != "" {
		op := strings.TrimPrefix(target, "SageMaker.")
		f.calls = append(f.calls, "sagemaker:"+op)
		var req map[string]any
		_ = json.Unmarshal(body, &req)
		f.bodies[op] = append(f.bodies[op], req)
		if ff, ok := f.failures["sagemaker:"+op]; ok {
			writeCanned(w, ff, "application/x-amz-json-1.1")
			return
		}
		f.sagemaker(w, op, req)
		return
	}
	f.calls = append(f.calls, "s3:"+r.Method+" "+r.URL.Path)
	if ff, ok := f.failures["s3:"+r.Method]; ok {
		writeCanned(w, ff, "application/xml")
		return
	}
	switch r.Method {
	case http.MethodHead:
		obj, ok := f.objects[r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(obj.body)))
		w.Header().Set("ETag", `"etag"`)
		if obj.meta != "" {
			w.Header().Set("X-Amz-Meta-Sha256", obj.meta)
		}
		w.WriteHeader(http.StatusOK)
	case http.MethodPut:
		sum := sha256.Sum256(body)
		if got := r.Header.Get("X-Amz-Checksum-Sha256"); got != "" && got != base64.StdEncoding.EncodeToString(sum[:]) {
			writeCanned(w, s3Error(http.StatusBadRequest, "BadDigest", "The SHA256 you specified did not match the calculated checksum."), "application/xml")
			return
		}
		f.objects[r.URL.Path] = fakeObject{body: body, meta: r.Header.Get("X-Amz-Meta-Sha256")}
		w.Header().Set("ETag", `"etag"`)
		w.WriteHeader(http.StatusOK)
	default:
		writeCanned(w, s3Error(http.StatusMethodNotAllowed, "MethodNotAllowed", r.Method), "application/xml")
	}
}

func (f *fakeAWS) sagemaker(w http.ResponseWriter, op string, req map[string]any) {
	name, _ := req["PipelineName"].(string)
	reply := func(v any) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		_ = json.NewEncoder(w).Encode(v)
	}
	notFound := fakeFailure{status: http.StatusBadRequest,
		body: fmt.Sprintf(`{"__type":"ResourceNotFound","Message":"Pipeline 'arn:aws:sagemaker:us-east-1:123456789012:pipeline/%s' does not exist."}`, name)}
	switch op {
	case "DescribePipeline":
		p, ok := f.pipelines[name]
		if !ok {
			writeCanned(w, notFound, "application/x-amz-json-1.1")
			return
		}
		reply(map[string]any{"PipelineArn": p.arn, "PipelineName": name, "PipelineDefinition": p.definition, "RoleArn": p.role,
			"PipelineDescription": p.description, "PipelineDisplayName": p.displayName, "PipelineStatus": "Active"})
	case "CreatePipeline":
		if _, ok := f.pipelines[name]; ok {
			writeCanned(w, fakeFailure{status: http.StatusBadRequest, body: `{"__type":"ValidationException","Message":"Pipeline names must be unique within an AWS account and region. Pipeline with name (` + name + `) already exists."}`}, "application/x-amz-json-1.1")
			return
		}
		def, ff := f.definitionOf(req)
		if ff != nil {
			writeCanned(w, *ff, "application/x-amz-json-1.1")
			return
		}
		p := &fakePipeline{arn: "arn:aws:sagemaker:us-east-1:123456789012:pipeline/" + name, definition: def, tags: map[string]string{}}
		p.set(req)
		if p.displayName == "" {
			p.displayName = name
		}
		if tags, ok := req["Tags"].([]any); ok {
			for _, tg := range tags {
				m := tg.(map[string]any)
				p.tags[m["Key"].(string)] = m["Value"].(string)
			}
		}
		f.pipelines[name] = p
		reply(map[string]any{"PipelineArn": p.arn})
	case "UpdatePipeline":
		p, ok := f.pipelines[name]
		if !ok {
			writeCanned(w, notFound, "application/x-amz-json-1.1")
			return
		}
		def, ff := f.definitionOf(req)
		if ff != nil {
			writeCanned(w, *ff, "application/x-amz-json-1.1")
			return
		}
		p.definition = def
		p.set(req)
		reply(map[string]any{"PipelineArn": p.arn})
	case "ListTags", "AddTags":
		arn, _ := req["ResourceArn"].(string)
		var p *fakePipeline
		for _, c := range f.pipelines {
			if c.arn == arn {
				p = c
			}
		}
		if p == nil {
			writeCanned(w, fakeFailure{status: http.StatusBadRequest, body: `{"__type":"ValidationException","Message":"no such resource"}`}, "application/x-amz-json-1.1")
			return
		}
		if op == "AddTags" {
			for _, tg := range req["Tags"].([]any) {
				m := tg.(map[string]any)
				p.tags[m["Key"].(string)] = m["Value"].(string)
			}
		}
		var tags []map[string]string
		for _, k := range mapkeys.Sorted(p.tags) {
			tags = append(tags, map[string]string{"Key": k, "Value": p.tags[k]})
		}
		reply(map[string]any{"Tags": tags})
	default:
		writeCanned(w, fakeFailure{status: http.StatusBadRequest, body: `{"__type":"UnknownOperationException"}`}, "application/x-amz-json-1.1")
	}
}

// definitionOf reads the definition of a CreatePipeline / UpdatePipeline request as SageMaker does:
// exactly one of PipelineDefinition and PipelineDefinitionS3Location, the latter read from the
// stored objects (and returned as a string by DescribePipeline, as the real service does).
func (f *fakeAWS) definitionOf(req map[string]any) (string, *fakeFailure) {
	inline, hasInline := req["PipelineDefinition"].(string)
	loc, hasLoc := req["PipelineDefinitionS3Location"].(map[string]any)
	invalid := func(msg string) (string, *fakeFailure) {
		return "", &fakeFailure{status: http.StatusBadRequest, body: `{"__type":"ValidationException","Message":"` + msg + `"}`}
	}
	switch {
	case hasInline && hasLoc:
		return invalid("Both PipelineDefinition and PipelineDefinitionS3Location were given")
	case hasInline:
		return inline, nil
	case hasLoc:
		obj, ok := f.objects["/"+fmt.Sprint(loc["Bucket"])+"/"+fmt.Sprint(loc["ObjectKey"])]
		if !ok {
			return invalid("Could not read the pipeline definition from S3")
		}
		return string(obj.body), nil
	}
	return invalid("Either PipelineDefinition or PipelineDefinitionS3Location is required")
}

// set applies the role, description and display name a request carries.
func (p *fakePipeline) set(req map[string]any) {
	if v, ok := req["RoleArn"].(string); ok {
		p.role = v
	}
	if v, ok := req["PipelineDescription"].(string); ok {
		p.description = v
	}
	if v, ok := req["PipelineDisplayName"].(string); ok {
		p.displayName = v
	}
}

func writeCanned(w http.ResponseWriter, ff fakeFailure, contentType string) {
	w.Header().Set("Content-Type", contentType)
	for k, v := range ff.headers {
		w.Header().Set(k, v)
	}
	w.WriteHeader(ff.status)
	_, _ = io.WriteString(w, ff.body)
}

func s3Error(status int, code, msg string) fakeFailure {
	return fakeFailure{status: status, body: `<?xml version="1.0" encoding="UTF-8"?>` +
		`<Error><Code>` + code + `</Code><Message>` + msg + `</Message><RequestId>TESTREQUEST</RequestId></Error>`}
}

// TestFakeCreateUpdateRealShapes drives Upsert through the environment-configured chain against the
// fake: ResourceNotFound -> CreatePipeline with tags, then a second run that skips the unchanged
// upload, updates, and adds only the changed tags, then a third that adds none.
func TestFakeCreateUpdateRealShapes(t *testing.T) {
	f, srv := newFakeAWS(t)
	setAWSEnv(t)
	t.Setenv("AWS_ENDPOINT_URL", srv.URL)
	ctx := context.Background()
	p := writeFile(t, t.TempDir(), "code/train.py", "print('train')\n")
	it := item(t, p, "s3://artifacts-bucket/pipelines/demo/code/train.py")
	def := testDefinition("XGBoostTraining")
	in := UpsertInput{PipelineName: "demo-pipeline", DefinitionJSON: def, RoleARN: testRole,
		Tags: map[string]string{"team": "ml", "project": "cursus"}, Manifest: sagemaker.Manifest{it, it}}

	out, err := Upsert(ctx, in)
	if err != nil {
		t.Fatalf("Upsert: %v", err)
	}
	if !out.Created || out.PipelineARN != "arn:aws:sagemaker:us-east-1:123456789012:pipeline/demo-pipeline" ||
		!slices.Equal(out.Uploaded, []string{it.S3URI}) || len(out.Skipped) != 0 {
		t.Fatalf("first Upsert = %+v", out)
	}
	wantCalls := []string{"s3:HEAD /artifacts-bucket/pipelines/demo/code/train.py", "s3:PUT /artifacts-bucket/pipelines/demo/code/train.py",
		"sagemaker:DescribePipeline", "sagemaker:CreatePipeline"}
	if got := f.callLog(); !slices.Equal(got, wantCalls) {
		t.Fatalf("calls = %v\nwant %v (path-style S3, duplicate manifest item uploaded once)", got, wantCalls)
	}
	obj := f.objects["/artifacts-bucket/pipelines/demo/code/train.py"]
	if string(obj.body) != "print('train')\n" || obj.meta != it.SHA256 {
		t.Errorf("stored object = %q meta %q", obj.body, obj.meta)
	}
	create := f.requests("CreatePipeline")[0]
	if create["PipelineDefinition"] != def || create["RoleArn"] != testRole || create["PipelineName"] != "demo-pipeline" {
		t.Errorf("CreatePipeline body = %v", create)
	}
	if tok, _ := create["ClientRequestToken"].(string); len(tok) < 32 {
		t.Errorf("ClientRequestToken = %q, want an SDK-generated idempotency token", tok)
	}
	if got := fmt.Sprint(create["Tags"]); got != "[map[Key:project Value:cursus] map[Key:team Value:ml]]" {
		t.Errorf("CreatePipeline Tags = %s, want sorted by key", got)
	}
	if _, ok := create["PipelineDescription"]; ok {
		t.Errorf("empty description was sent: %v", create)
	}

	def2 := testDefinition("XGBoostTraining-2")
	in.DefinitionJSON = def2
	in.Tags = map[string]string{"team": "ml", "stage": "prod"}
	out, err = Upsert(ctx, in)
	if err != nil {
		t.Fatalf("second Upsert: %v", err)
	}
	if out.Created || len(out.Uploaded) != 0 || !slices.Equal(out.Skipped, []string{it.S3URI}) {
		t.Fatalf("second Upsert = %+v, want update with the upload skipped", out)
	}
	if got := f.callLog()[len(wantCalls):]; !slices.Equal(got, []string{"s3:HEAD /artifacts-bucket/pipelines/demo/code/train.py",
		"sagemaker:DescribePipeline", "sagemaker:UpdatePipeline", "sagemaker:ListTags", "sagemaker:AddTags"}) {
		t.Fatalf("second run calls = %v", got)
	}
	if f.pipelines["demo-pipeline"].definition != def2 {
		t.Errorf("definition not updated")
	}
	if got := fmt.Sprint(f.requests("AddTags")[0]["Tags"]); got != "[map[Key:stage Value:prod]]" {
		t.Errorf("AddTags sent %s, want only the new tag", got)
	}
	if got := fmt.Sprint(f.pipelines["demo-pipeline"].tags); got != "map[project:cursus stage:prod team:ml]" {
		t.Errorf("tags = %s", got)
	}

	n := len(f.callLog())
	if _, err = Upsert(ctx, in); err != nil {
		t.Fatalf("third Upsert: %v", err)
	}
	if got := f.callLog()[n:]; slices.Contains(got, "sagemaker:AddTags") {
		t.Errorf("third run re-added unchanged tags: %v", got)
	}
}

// TestFakeErrorsBecomeUpsertError checks that AWS error responses in the shapes the services use
// come back as *UpsertError with the AWS error code, and that a failed upload stops before SageMaker.
func TestFakeErrorsBecomeUpsertError(t *testing.T) {
	cases := []struct {
		name     string
		existing bool // pipeline exists before the call
		op       string
		failure  fakeFailure
		wantOp   string
		wantCode string
		wantMsg  string
	}{
		{name: "AccessDenied on describe (namespaced __type)", op: "sagemaker:DescribePipeline",
			failure: fakeFailure{status: 400, body: `{"__type":"com.amazonaws.sagemaker#AccessDeniedException","message":"User: arn:aws:iam::123456789012:user/dev is not authorized to perform: sagemaker:DescribePipeline"}`},
			wantOp:  "sagemaker:DescribePipeline", wantCode: "AccessDeniedException", wantMsg: "not authorized"},
		{name: "ValidationException on create (with x-amzn-query-error)", op: "sagemaker:CreatePipeline",
			failure: fakeFailure{status: 400, body: `{"__type":"ValidationException","Message":"Role arn:aws:iam::123456789012:role/SageMakerExecution cannot be assumed"}`,
				headers: map[string]string{"x-amzn-query-error": "ValidationError;Sender"}},
			wantOp: "sagemaker:CreatePipeline", wantCode: "ValidationException", wantMsg: "cannot be assumed"},
		{name: "code from X-Amzn-ErrorType header", op: "sagemaker:CreatePipeline",
			failure: fakeFailure{status: 400, body: `{"Message":"Too many pipelines"}`,
				headers: map[string]string{"X-Amzn-ErrorType": "ResourceLimitExceeded:http://internal.amazon.com/coral/com.amazonaws.sagemaker/"}},
			wantOp: "sagemaker:CreatePipeline", wantCode: "ResourceLimitExceeded", wantMsg: "Too many pipelines"},
		{name: "ConflictException on update", existing: true, op: "sagemaker:UpdatePipeline",
			failure: fakeFailure{status: 409, body: `{"__type":"ConflictException","Message":"pipeline is being modified"}`},
			wantOp:  "sagemaker:UpdatePipeline", wantCode: "ConflictException", wantMsg: "being modified"},
		{name: "AccessDenied on tags", existing: true, op: "sagemaker:ListTags",
			failure: fakeFailure{status: 400, body: `{"__type":"AccessDeniedException","Message":"no sagemaker:ListTags"}`},
			wantOp:  "sagemaker:ListTags", wantCode: "AccessDeniedException", wantMsg: "ListTags"},
		{name: "S3 AccessDenied on upload", op: "s3:PUT", failure: s3Error(403, "AccessDenied", "Access Denied"),
			wantOp: "s3:PutObject", wantCode: "AccessDenied", wantMsg: "Access Denied"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, srv := newFakeAWS(t)
			setAWSEnv(t)
			t.Setenv("AWS_ENDPOINT_URL_SAGEMAKER", srv.URL)
			t.Setenv("AWS_ENDPOINT_URL_S3", srv.URL)
			if c.existing {
				f.pipelines["err-pipeline"] = &fakePipeline{arn: "arn:aws:sagemaker:us-east-1:123456789012:pipeline/err-pipeline", definition: "{}", tags: map[string]string{}}
			}
			f.fail(c.op, c.failure)
			p := writeFile(t, t.TempDir(), "train.py", "print(1)\n")
			it := item(t, p, "s3://artifacts-bucket/code/train.py")
			out, err := Upsert(context.Background(), UpsertInput{PipelineName: "err-pipeline", DefinitionJSON: testDefinition("S"),
				RoleARN: testRole, Tags: map[string]string{"k": "v"}, Manifest: sagemaker.Manifest{it}})
			if err == nil {
				t.Fatalf("Upsert succeeded: %+v", out)
			}
			var ue *UpsertError
			if !errors.As(err, &ue) {
				t.Fatalf("err %T %v is not *UpsertError", err, err)
			}
			if ue.Op != c.wantOp || ue.Code != c.wantCode || !strings.Contains(ue.Message, c.wantMsg) {
				t.Errorf("UpsertError{Op %q, Code %q, Message %q}, want %q %q containing %q", ue.Op, ue.Code, ue.Message, c.wantOp, c.wantCode, c.wantMsg)
			}
			var apiErr smithy.APIError
			if !errors.As(err, &apiErr) || apiErr.ErrorCode() != c.wantCode {
				t.Errorf("underlying smithy.APIError not reachable through Unwrap: %v", err)
			}
			if !strings.Contains(err.Error(), c.wantCode) {
				t.Errorf("Error() %q lacks the code", err)
			}
			if c.op == "s3:PUT" {
				if len(ue.Uploaded) != 0 {
					t.Errorf("Uploaded = %v", ue.Uploaded)
				}
				for _, call := range f.callLog() {
					if strings.HasPrefix(call, "sagemaker:") {
						t.Errorf("SageMaker called after a failed upload: %v", f.callLog())
						break
					}
				}
			} else if !slices.Equal(ue.Uploaded, []string{it.S3URI}) {
				t.Errorf("Uploaded = %v, want the object written before the failure", ue.Uploaded)
			}
		})
	}
	t.Run("typed SDK error reachable", func(t *testing.T) {
		f, srv := newFakeAWS(t)
		setAWSEnv(t)
		t.Setenv("AWS_ENDPOINT_URL", srv.URL)
		f.fail("sagemaker:CreatePipeline", fakeFailure{status: 400, body: `{"__type":"ResourceLimitExceeded","Message":"limit"}`})
		_, err := Upsert(context.Background(), UpsertInput{PipelineName: "p", DefinitionJSON: "{}", RoleARN: testRole})
		var rle *smtypes.ResourceLimitExceeded
		if !errors.As(err, &rle) {
			t.Errorf("err = %v, want *types.ResourceLimitExceeded reachable", err)
		}
	})
}

// TestFakeExplicitConfig passes an aws.Config instead of using the environment: its BaseEndpoint
// is an override too, so S3 goes path-style; a config without a region is refused before any call.
func TestFakeExplicitConfig(t *testing.T) {
	f, srv := newFakeAWS(t)
	setAWSEnv(t) // no endpoint in the environment: everything must come from Config
	cfg := aws.Config{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL),
		Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", "")}
	p := writeFile(t, t.TempDir(), "a.py", "a")
	it := item(t, p, "s3://bkt/a.py")
	out, err := Upsert(context.Background(), UpsertInput{PipelineName: "cfg-pipeline", DefinitionJSON: "{}", RoleARN: testRole,
		Description: "d", DisplayName: "Cfg-Pipeline", Manifest: sagemaker.Manifest{it}, Config: &cfg})
	if err != nil || !out.Created {
		t.Fatalf("Upsert = %+v, %v", out, err)
	}
	if got := f.callLog()[1]; got != "s3:PUT /bkt/a.py" {
		t.Errorf("S3 call %q, want path-style", got)
	}
	create := f.requests("CreatePipeline")[0]
	if create["PipelineDescription"] != "d" || create["PipelineDisplayName"] != "Cfg-Pipeline" {
		t.Errorf("CreatePipeline body = %v", create)
	}

	noRegion := aws.Config{BaseEndpoint: aws.String(srv.URL), Credentials: cfg.Credentials}
	n := len(f.callLog())
	_, err = Upsert(context.Background(), UpsertInput{PipelineName: "cfg-pipeline", DefinitionJSON: "{}", RoleARN: testRole, Config: &noRegion})
	var ue *UpsertError
	if !errors.As(err, &ue) || ue.Op != "config" {
		t.Errorf("no region: err = %v, want UpsertError op config", err)
	}
	if len(f.callLog()) != n {
		t.Errorf("calls made without a region: %v", f.callLog()[n:])
	}
}

// TestUploadChecksumGuardsChangedFile: a file that changes after validation (simulated by an item
// whose hash no longer matches) is refused by the store because of x-amz-checksum-sha256.
func TestUploadChecksumGuardsChangedFile(t *testing.T) {
	f, srv := newFakeAWS(t)
	setAWSEnv(t)
	t.Setenv("AWS_ENDPOINT_URL", srv.URL)
	p := writeFile(t, t.TempDir(), "a.py", "changed content")
	stale := sha256.Sum256([]byte("validated content"))
	it := sagemaker.UploadItem{LocalPath: p, S3URI: "s3://bkt/a.py", SHA256: hex.EncodeToString(stale[:]), Size: int64(len("changed content"))}
	cfg, err := awsConfig(context.Background(), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	_, ue := uploadItem(context.Background(), newS3Client(cfg), it)
	if ue == nil || ue.Code != "BadDigest" {
		t.Fatalf("upload of changed file: %v, want BadDigest", ue)
	}
	if _, ok := f.objects["/bkt/a.py"]; ok {
		t.Error("changed content was stored")
	}
}
