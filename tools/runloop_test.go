package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	cwl "github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	cwltypes "github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	sm "github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/cursus-go/cursus/engine/localrun"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/awstest"
	"github.com/cursus-go/cursus/internal/testenv"
	"github.com/cursus-go/cursus/tools"
)

// The loop after a deploy, walked on moto_server: simple-training is deployed with a bug (its
// trainer names a feature column f9 the data lacks) and started; its training step fails on
// "SageMaker" with the traceback in the job's CloudWatch log. execution.failure names the step,
// the reason, the log's tail and the data the step read; execution.logs filters the log;
// execution.download fetches that data from S3; execution.run_local runs the step alone on it
// and fails the same way; the config is fixed, the local run passes, pipeline.diff and
// compile.dag show and upsert the change, and execution.retry re-runs the failed step on the new
// definition (a selective execution reusing the preprocessing's output). Then the model the
// pipeline registered is approved beside its evaluation report's metrics.
//
// moto 5 implements neither ListPipelineExecutionSteps nor RetryPipelineExecution, and runs no
// job (an execution is Succeeded at once): the recording server in front of it answers the
// execution's steps and its Failed status in the API reference's response shapes
// (testdata/aws), and checks the requests the SDK's serializer sends for the calls moto would
// ignore (the selective execution's SelectiveExecutionConfig). Everything else is moto's:
// pipelines, executions, the definition an execution ran, processing jobs, S3, CloudWatch Logs,
// the model registry, STS.
func TestRunLoopMoto(t *testing.T) {
	testenv.Need(t, localrun.Ready("pandas", "sklearn", "xgboost"))
	moto, smc, s3c := motoWithBucket(t, "example-bucket")
	rec := awstest.NewServer(t, moto.Endpoint)
	compileAWSEnv(t, rec.URL)
	ctx := context.Background()
	work := t.TempDir()

	// The pipeline with its bug, and the data its steps made before the failure (a local run
	// of the same pipeline makes it: the preprocessing succeeds, the training fails).
	cfg := brokenConfig(t, work, []string{"f1", "f2", "f9"})
	dagFile, _ := filepath.Abs(filepath.Join(compileExampleRoot, "simple-training", "dag.json"))
	rawData, _ := filepath.Abs(filepath.Join(compileExampleRoot, "simple-training", "data", "train.csv"))
	first := tools.CallTool(t, ctx, "execution.run_local", map[string]any{"dag_file": dagFile, "config_file": cfg, "work_dir": filepath.Join(work, "first"),
		"data": map[string]string{"s3://example-bucket/raw/train/": rawData}})
	var rep localrun.Report
	remarshal(t, tools.WantFail(t, first, envelope.CodeRunFailed)["report"], &rep)
	if rep.Failed == nil || rep.Failed.Step != "XGBoostTraining" || !strings.Contains(rep.Failed.Error, "KeyError: 'f9'") {
		t.Fatalf("the bug does not show locally: %+v", rep.Failed)
	}
	processed := ""
	for _, s := range rep.Steps {
		if s.Name == "TabularPreprocessing-Training" {
			processed = s.Outputs["processed_data"]
		}
	}

	// Deploy and start.
	deploy := map[string]any{"dag_file": dagFile, "config_file": cfg, "upsert": true}
	deployed := tools.WantOK(t, tools.CallTool(t, ctx, "compile.dag", deploy))
	name := deployed["pipeline_name"].(string)
	if deployed["region"] != "us-east-1" {
		t.Errorf("compile.dag region %v", deployed["region"])
	}
	startEnv := tools.CallTool(t, ctx, "execution.start", map[string]any{"pipeline_name": name, "region": "NA"})
	arn := tools.WantOK(t, startEnv)["execution_arn"].(string)
	if aws := startEnv["meta"].(map[string]any)["aws"]; jsonText(t, aws) != `{"account":"123456789012","region":"us-east-1"}` {
		t.Errorf("meta.aws %v", aws)
	}
	id := arn[strings.LastIndexByte(arn, '/')+1:]

	// What SageMaker would have done: the preprocessing job wrote its output, the training job
	// failed with a traceback in its log.
	prepJob := "pipelines-" + id + "-TabularPreprocess-Ab12Cd"
	trainJob := "pipelines-" + id + "-XGBoostTraining-Ef34Gh"
	prepOut := "s3://example-bucket/MODS/" + id + "/tabularpreprocessing/training/processed_data"
	uploadDir(t, s3c, processed, prepOut)
	if _, err := smc.CreateProcessingJob(ctx, &sm.CreateProcessingJobInput{
		ProcessingJobName: aws.String(prepJob), RoleArn: aws.String("arn:aws:iam::123456789012:role/SageMakerExecutionRole"),
		AppSpecification:    &smtypes.AppSpecification{ImageUri: aws.String("683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-scikit-learn:1.2-1-cpu-py3")},
		ProcessingResources: &smtypes.ProcessingResources{ClusterConfig: &smtypes.ProcessingClusterConfig{InstanceCount: aws.Int32(1), InstanceType: smtypes.ProcessingInstanceTypeMlM5Xlarge, VolumeSizeInGB: aws.Int32(30)}},
		ProcessingInputs:    []smtypes.ProcessingInput{{InputName: aws.String("DATA"), S3Input: &smtypes.ProcessingS3Input{S3Uri: aws.String("s3://example-bucket/MODS/" + id + "/dummydataloading/training/DATA"), LocalPath: aws.String("/opt/ml/processing/input/data"), S3DataType: smtypes.ProcessingS3DataTypeS3Prefix, S3InputMode: smtypes.ProcessingS3InputModeFile}}},
		ProcessingOutputConfig: &smtypes.ProcessingOutputConfig{Outputs: []smtypes.ProcessingOutput{{OutputName: aws.String("processed_data"),
			S3Output: &smtypes.ProcessingS3Output{S3Uri: aws.String(prepOut), LocalPath: aws.String("/opt/ml/processing/output"), S3UploadMode: smtypes.ProcessingS3UploadModeEndOfJob}}}},
	}); err != nil {
		t.Fatalf("CreateProcessingJob: %v", err)
	}
	traceback := []string{
		"[xgboost_training] train: 168 rows, features ['f1', 'f2', 'f9']",
		"Traceback (most recent call last):",
		`  File "/opt/ml/code/xgboost_training.py", line 191, in fit_imputation`,
		"KeyError: 'f9'",
		"2024-06-01 12:00:09,000 sagemaker-training-toolkit ERROR    Reporting training FAILURE",
	}
	putLog(t, moto.Endpoint, "/aws/sagemaker/TrainingJobs", trainJob+"/algo-1-1717243200", traceback)
	const reason = "AlgorithmError: ExecuteUserScriptError: Command \"/miniconda3/bin/python3 xgboost_training.py\", exit code: 1, KeyError: 'f9'"
	steps := []any{
		recorded(t, "step-processing.json", map[string]string{"NAME": "DummyDataLoading-Training", "STATUS": "Succeeded", "JOB": "pipelines-" + id + "-DummyDataLoading-Ij56"}),
		recorded(t, "step-processing.json", map[string]string{"NAME": "TabularPreprocessing-Training", "STATUS": "Succeeded", "JOB": prepJob}),
		recorded(t, "step-training-failed.json", map[string]string{"NAME": "XGBoostTraining", "JOB": trainJob, "REASON": reason}),
	}
	var mu sync.Mutex
	failedExecutions := map[string]bool{arn: true}
	rec.Handle("ListPipelineExecutionSteps", func(req map[string]any) (any, error) {
		if req["PipelineExecutionArn"] == arn {
			return map[string]any{"PipelineExecutionSteps": steps}, nil
		}
		return map[string]any{"PipelineExecutionSteps": []any{}}, nil
	})
	rec.Handle("DescribePipelineExecution", func(req map[string]any) (any, error) {
		out, err := awstest.Forward(moto.Endpoint, "DescribePipelineExecution", req)
		mu.Lock()
		defer mu.Unlock()
		if err == nil && failedExecutions[req["PipelineExecutionArn"].(string)] {
			out["PipelineExecutionStatus"], out["FailureReason"] = "Failed", "Step failure: One or multiple steps failed."
		}
		return out, err
	})

	rec.Handle("ListPipelineExecutions", func(req map[string]any) (any, error) {
		out, err := awstest.Forward(moto.Endpoint, "ListPipelineExecutions", req)
		mu.Lock()
		defer mu.Unlock()
		if err == nil {
			for _, s := range out["PipelineExecutionSummaries"].([]any) {
				if m := s.(map[string]any); failedExecutions[m["PipelineExecutionArn"].(string)] {
					m["PipelineExecutionStatus"] = "Failed"
				}
			}
		}
		return out, err
	})

	// The failure, read.
	failure := tools.WantOK(t, tools.CallTool(t, ctx, "execution.failure", map[string]any{"pipeline_name": name, "dag_file": dagFile, "config_file": cfg,
		"work_dir": filepath.Join(work, "repro")}))
	fs := failure["failed_step"].(map[string]any)
	if failure["execution_arn"] != arn || failure["status"] != "Failed" || fs["step_name"] != "XGBoostTraining" || fs["failure_reason"] != reason || fs["job_name"] != trainJob {
		t.Fatalf("execution.failure %v", failure)
	}
	logText := jsonText(t, failure["log"])
	for _, line := range traceback {
		if !strings.Contains(logText, jsonString(line)) {
			t.Errorf("the log's tail lacks %q: %s", line, logText)
		}
	}
	repro := failure["reproduce"].(map[string]any)
	inputs := repro["inputs"].([]any)
	if len(inputs) != 1 || inputs[0].(map[string]any)["data_key"] != "TabularPreprocessing-Training.processed_data" || inputs[0].(map[string]any)["s3_uri"] != prepOut {
		t.Fatalf("reproduction inputs %v", inputs)
	}
	runLocal := repro["run_local"].(map[string]any)
	if jsonText(t, runLocal["steps"]) != `["XGBoostTraining"]` || runLocal["dag_file"] != dagFile || runLocal["config_file"] != cfg {
		t.Fatalf("reproduction run_local %v", runLocal)
	}
	wantNext(t, tools.CallTool(t, ctx, "execution.failure", map[string]any{"execution_arn": arn}), "execution.logs", "execution.download", "execution.run_local", "compile.dag", "execution.retry")

	// The log, filtered.
	logs := tools.WantOK(t, tools.CallTool(t, ctx, "execution.logs", map[string]any{"execution_arn": arn, "filter": "KeyError"}))
	if logs["step_name"] != "XGBoostTraining" || logs["log_group"] != "/aws/sagemaker/TrainingJobs" || len(logs["lines"].([]any)) != 1 ||
		logs["lines"].([]any)[0].(map[string]any)["message"] != "KeyError: 'f9'" {
		t.Errorf("execution.logs filtered %v", logs)
	}

	// The data, fetched; the step, run alone on it: the same failure.
	dl := tools.WantOK(t, tools.CallTool(t, ctx, "execution.download", repro["download"].([]any)[0]))
	localData := dl["data"].(map[string]any)
	if localData["TabularPreprocessing-Training.processed_data"] != inputs[0].(map[string]any)["local_path"] {
		t.Fatalf("execution.download %v", dl)
	}
	again := tools.CallTool(t, ctx, "execution.run_local", runLocal)
	var repRep localrun.Report
	remarshal(t, tools.WantFail(t, again, envelope.CodeRunFailed)["report"], &repRep)
	if repRep.Failed == nil || repRep.Failed.Step != "XGBoostTraining" || !strings.Contains(repRep.Failed.Error, "KeyError: 'f9'") ||
		len(repRep.Steps) != 2 || repRep.Steps[0].Status != localrun.StatusSubstituted || !slices.Equal(repRep.NotSelected, []string{"DummyDataLoading-Training"}) {
		t.Fatalf("the local reproduction: failed %+v, steps %+v, not selected %v", repRep.Failed, repRep.Steps, repRep.NotSelected)
	}

	// The fix: it runs locally, the diff shows it, the upsert deploys it.
	brokenConfig(t, work, []string{"f1", "f2", "f3"})
	fixed := tools.WantOK(t, tools.CallTool(t, ctx, "execution.run_local", runLocal))
	if fixed["succeeded"] != true {
		t.Fatalf("the fixed step %v", fixed)
	}
	diff := tools.WantOK(t, tools.CallTool(t, ctx, "pipeline.diff", map[string]any{"dag_file": dagFile, "config_file": cfg}))
	changed := jsonText(t, diff["steps_changed"])
	if diff["action"] != "update" || !strings.Contains(changed, `"name":"XGBoostTraining"`) || !strings.Contains(changed, "HyperParameters.tab_field_list") || len(diff["steps_changed"].([]any)) != 1 {
		t.Errorf("pipeline.diff %v", diff)
	}
	if up := tools.WantOK(t, tools.CallTool(t, ctx, "compile.dag", deploy)); up["updated"] != true {
		t.Fatalf("the fix was not upserted: %v", up)
	}
	if after := tools.WantOK(t, tools.CallTool(t, ctx, "pipeline.diff", map[string]any{"dag_file": dagFile, "config_file": cfg})); after["action"] != "none" {
		t.Errorf("after the upsert pipeline.diff says %v", after["action"])
	}

	// Retried: the definition changed since the execution ran, so the failed step re-runs on
	// the new one, reading the preprocessing's output from the failed execution.
	retried := tools.WantOK(t, tools.CallTool(t, ctx, "execution.retry", map[string]any{"execution_arn": arn, "parallelism": 2}))
	if retried["mode"] != "rerun" || retried["definition_changed"] != true || retried["failed_execution_arn"] != arn ||
		jsonText(t, retried["selection"]) != `{"not_run":[],"reused":["TabularPreprocessing-Training"],"source_execution_arn":"`+arn+`","steps":["XGBoostTraining"]}` {
		t.Fatalf("execution.retry %v", retried)
	}
	sent := rec.Requests("StartPipelineExecution")
	want := sdkRequest(t, "StartPipelineExecution", &sm.StartPipelineExecutionInput{
		PipelineName: aws.String(name), PipelineExecutionDescription: aws.String("re-run of " + arn),
		PipelineParameters:       []smtypes.Parameter{},
		ParallelismConfiguration: &smtypes.ParallelismConfiguration{MaxParallelExecutionSteps: aws.Int32(2)},
		SelectiveExecutionConfig: &smtypes.SelectiveExecutionConfig{SourcePipelineExecutionArn: aws.String(arn), SelectedSteps: []smtypes.SelectedStep{{StepName: aws.String("XGBoostTraining")}}},
	})
	if got := sent[len(sent)-1]; !sameRequest(got, want) {
		t.Errorf("the selective StartPipelineExecution sent\n%s\nwant (the SDK's serializer)\n%s", jsonText(t, got), jsonText(t, want))
	}

	// Then the model: the pipeline's registration, with its evaluation report, approved.
	group := "AtoZ-xgboost-NA"
	if _, err := smc.CreateModelPackageGroup(ctx, &sm.CreateModelPackageGroupInput{ModelPackageGroupName: aws.String(group)}); err != nil {
		t.Fatal(err)
	}
	report := "s3://example-bucket/MODS/" + id + "/xgboostmodeleval/metrics/metrics.json"
	putObject(t, s3c, report, `{"task": "binary", "num_samples": 36, "auc_roc": 0.912, "average_precision": 0.88, "f1_score": 0.81}`)
	pkg, err := smc.CreateModelPackage(ctx, &sm.CreateModelPackageInput{ModelPackageGroupName: aws.String(group), ModelPackageDescription: aws.String("AtoZ xgboost Model NA"),
		ModelApprovalStatus: smtypes.ModelApprovalStatusPendingManualApproval,
		InferenceSpecification: &smtypes.InferenceSpecification{Containers: []smtypes.ModelPackageContainerDefinition{{
			Image: aws.String("683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1"), ModelDataUrl: aws.String("s3://example-bucket/MODS/" + id + "/package/model.tar.gz")}},
			SupportedContentTypes: []string{"text/csv"}, SupportedResponseMIMETypes: []string{"application/json"}},
		ModelMetrics: &smtypes.ModelMetrics{ModelQuality: &smtypes.ModelQuality{Statistics: &smtypes.MetricsSource{S3Uri: aws.String(report), ContentType: aws.String("application/json")}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	listed := tools.WantOK(t, tools.CallTool(t, ctx, "model_package.list", map[string]any{"group_name": group}))
	p := listed["packages"].([]any)[0].(map[string]any)
	if p["approval_status"] != "PendingManualApproval" || jsonText(t, p["metrics"]) != `{"auc_roc":0.912,"average_precision":0.88,"f1_score":0.81,"num_samples":36}` {
		t.Fatalf("model_package.list %v", p)
	}
	approved := tools.WantOK(t, tools.CallTool(t, ctx, "model_package.approve", map[string]any{"model_package_arn": aws.ToString(pkg.ModelPackageArn), "description": "AUC 0.912"}))
	ap := approved["package"].(map[string]any)
	if approved["previous_status"] != "PendingManualApproval" || ap["approval_status"] != "Approved" || ap["approval_description"] != "AUC 0.912" || ap["metrics"].(map[string]any)["auc_roc"] != 0.912 {
		t.Fatalf("model_package.approve %v", approved)
	}
	if rec.Count("sagemaker:UpdateModelPackage") != 1 {
		t.Errorf("UpdateModelPackage sent %d times", rec.Count("sagemaker:UpdateModelPackage"))
	}
}

// brokenConfig writes simple-training's config with the trainer's feature columns set to
// features, in dir/config.json, and returns its path.
func brokenConfig(t *testing.T, dir string, features []string) string {
	t.Helper()
	var c map[string]any
	b, err := os.ReadFile(filepath.Join(compileExampleRoot, "simple-training", "config.json"))
	if err != nil || json.Unmarshal(b, &c) != nil {
		t.Fatalf("config: %v", err)
	}
	c["configuration"].(map[string]any)["specific"].(map[string]any)["XGBoostTraining"].(map[string]any)["tab_field_list"] = features
	out, _ := json.MarshalIndent(c, "", "  ")
	p := filepath.Join(dir, "config.json")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// recorded reads a recorded response shape from testdata/aws and fills its {{KEY}} placeholders.
func recorded(t *testing.T, file string, vals map[string]string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "aws", file))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for k, v := range vals {
		s = strings.ReplaceAll(s, "{{"+k+"}}", strings.Trim(jsonString(v), `"`))
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return out
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func remarshal(t *testing.T, from, to any) {
	t.Helper()
	b, err := json.Marshal(from)
	if err != nil || json.Unmarshal(b, to) != nil {
		t.Fatalf("remarshal: %v", err)
	}
}

// uploadDir puts every file under dir in S3 under prefix.
func uploadDir(t *testing.T, c *s3.Client, dir, prefix string) {
	t.Helper()
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		putObject(t, c, prefix+"/"+filepath.ToSlash(rel), string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func putObject(t *testing.T, c *s3.Client, uri, body string) {
	t.Helper()
	bucket, key, _ := strings.Cut(strings.TrimPrefix(uri, "s3://"), "/")
	if _, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(body)}); err != nil {
		t.Fatalf("PutObject %s: %v", uri, err)
	}
}

// putLog writes lines to a CloudWatch Logs stream (created with its group), a second apart.
func putLog(t *testing.T, endpoint, group, stream string, lines []string) {
	t.Helper()
	c := cwl.NewFromConfig(aws.Config{Region: awstest.Region, Credentials: awsTestCredentials()}, func(o *cwl.Options) { o.BaseEndpoint = aws.String(endpoint) })
	ctx := context.Background()
	if _, err := c.CreateLogGroup(ctx, &cwl.CreateLogGroupInput{LogGroupName: aws.String(group)}); err != nil && !strings.Contains(err.Error(), "AlreadyExists") {
		t.Fatal(err)
	}
	if _, err := c.CreateLogStream(ctx, &cwl.CreateLogStreamInput{LogGroupName: aws.String(group), LogStreamName: aws.String(stream)}); err != nil {
		t.Fatal(err)
	}
	start := time.Now().Add(-time.Minute) // CloudWatch refuses events older than 14 days
	var events []cwltypes.InputLogEvent
	for i, l := range lines {
		events = append(events, cwltypes.InputLogEvent{Message: aws.String(l), Timestamp: aws.Int64(start.Add(time.Duration(i) * time.Second).UnixMilli())})
	}
	if _, err := c.PutLogEvents(ctx, &cwl.PutLogEventsInput{LogGroupName: aws.String(group), LogStreamName: aws.String(stream), LogEvents: events}); err != nil {
		t.Fatal(err)
	}
}

// sdkRequest is the JSON body the SDK's serializer sends for a SageMaker input: it sends it to a
// recording server and reads it back.
func sdkRequest(t *testing.T, op string, in any) map[string]any {
	t.Helper()
	srv := awstest.NewServer(t, "")
	srv.Handle(op, func(map[string]any) (any, error) { return map[string]any{}, nil })
	c := sm.NewFromConfig(aws.Config{Region: awstest.Region, Credentials: awsTestCredentials()}, func(o *sm.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	var err error
	switch x := in.(type) {
	case *sm.StartPipelineExecutionInput:
		_, err = c.StartPipelineExecution(context.Background(), x)
	case *sm.RetryPipelineExecutionInput:
		_, err = c.RetryPipelineExecution(context.Background(), x)
	default:
		t.Fatalf("sdkRequest: %T", in)
	}
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	return srv.Requests(op)[0]
}

// sameRequest compares two request bodies, the SDK's idempotency tokens aside (each call makes
// its own; both must have one).
func sameRequest(got, want map[string]any) bool {
	g, w := maps(got), maps(want)
	for _, k := range []string{"ClientRequestToken"} {
		if (g[k] == nil) != (w[k] == nil) {
			return false
		}
		delete(g, k)
		delete(w, k)
	}
	return fmt.Sprint(g) == fmt.Sprint(w)
}

func maps(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// wantNext checks the envelope's next steps name every tool given.
func wantNext(t *testing.T, env map[string]any, want ...string) {
	t.Helper()
	var got []string
	for _, n := range env["next_steps"].([]any) {
		got = append(got, n.(map[string]any)["tool"].(string))
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("next steps %v lack %s", got, w)
		}
	}
}

func awsTestCredentials() aws.CredentialsProvider {
	return credentials.NewStaticCredentialsProvider("testing", "testing", "")
}
