//go:build unix

package smclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	sm "github.com/aws/aws-sdk-go-v2/service/sagemaker"

	"github.com/cursus-go/cursus/engine/sagemaker"
)

// motoServer is a moto_server process started by a test.
type motoServer struct {
	Endpoint string // http://127.0.0.1:<port>
	cmd      *exec.Cmd
	log      *syncBuffer
	waitExit chan struct{} // closed when the process has exited
}

// syncBuffer collects the server's output for failure messages.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startMoto starts moto_server on a free 127.0.0.1 port, waits until it answers, and stops it (its
// whole process group: the pyenv shim runs moto under a shell) when t's test ends. It skips t when
// moto_server is not on PATH.
func startMoto(t *testing.T) *motoServer {
	t.Helper()
	bin, err := exec.LookPath("moto_server")
	if err != nil {
		t.Skip("moto_server not on PATH (pip install 'moto[server]' to run the end-to-end upsert tests); skipping")
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		start := time.Now()
		srv, err := launchMoto(bin)
		if err == nil {
			t.Logf("moto_server ready at %s in %v", srv.Endpoint, time.Since(start).Round(time.Millisecond))
			t.Cleanup(srv.stop)
			return srv
		}
		lastErr = err
	}
	t.Fatalf("moto_server did not start: %v", lastErr)
	return nil
}

func launchMoto(bin string) (*motoServer, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	srv := &motoServer{Endpoint: "http://127.0.0.1:" + strconv.Itoa(port), log: &syncBuffer{}}
	srv.cmd = exec.Command(bin, "-H", "127.0.0.1", "-p", strconv.Itoa(port))
	srv.cmd.Stdout, srv.cmd.Stderr = srv.log, srv.log
	srv.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := srv.cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	srv.waitExit = exited
	go func() { _ = srv.cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(30 * time.Second)
	client := &http.Client{Timeout: time.Second}
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return nil, fmt.Errorf("moto_server exited early: %s", srv.log.String())
		default:
		}
		resp, err := client.Get(srv.Endpoint + "/moto-api/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return srv, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	srv.stop()
	return nil, fmt.Errorf("moto_server not ready after 30s: %s", srv.log.String())
}

// stop terminates the server's process group and waits for it.
func (s *motoServer) stop() {
	pgid := s.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-s.waitExit:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-s.waitExit
	}
}

// reset wipes all moto state between subtests.
func (s *motoServer) reset(t *testing.T) {
	t.Helper()
	resp, err := http.Post(s.Endpoint+"/moto-api/reset", "application/json", nil)
	if err != nil {
		t.Fatalf("moto reset: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("moto reset: HTTP %d", resp.StatusCode)
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// motoClients are SDK clients aimed at moto for checking its state independently of Upsert.
func motoClients(endpoint string) (*sm.Client, *s3.Client) {
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("testing", "testing", "")}
	smc := sm.NewFromConfig(cfg, func(o *sm.Options) { o.BaseEndpoint = aws.String(endpoint) })
	s3c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.BaseEndpoint = aws.String(endpoint); o.UsePathStyle = true })
	return smc, s3c
}

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
	srv := startMoto(t)
	smc, s3c := motoClients(srv.Endpoint)
	ctx := context.Background()
	const bucket = "cursus-test-artifacts"
	makeBucket := func(t *testing.T) {
		t.Helper()
		if _, err := s3c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
			t.Fatalf("CreateBucket: %v", err)
		}
	}

	t.Run("create_then_update", func(t *testing.T) {
		srv.reset(t)
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
		srv.reset(t)
		makeBucket(t)
		setAWSEnv(t)
		t.Setenv("AWS_ENDPOINT_URL", srv.Endpoint)
		dir := t.TempDir()
		good := writeFile(t, dir, "train.py", "print('train')\n")
		goodItem := item(t, good, "s3://"+bucket+"/code/train.py")
		unreadable := goodItem
		unreadable.LocalPath = dirJoin(dir, "missing.py")
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

	t.Run("missing_bucket_is_upsert_error", func(t *testing.T) {
		srv.reset(t)
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

func dirJoin(dir, name string) string { return dir + string(os.PathSeparator) + name }
