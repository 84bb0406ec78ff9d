package codetest

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler/scripttest"
	"github.com/cursus-go/cursus/internal/testenv"
)

const promptConfigs = `{"system_prompt": "You triage support tickets.",
 "task_description": "Decide whether the ticket is about billing, a bug or something else.",
 "input_placeholders": ["subject", "body"],
 "categories": [{"name": "billing", "description": "charges, refunds, invoices", "examples": ["I was charged twice"]},
                {"name": "bug", "description": "the product misbehaves"},
                {"name": "other", "description": "anything else"}],
 "output_format": {"fields": {"category": {"type": "string"}, "confidence": {"type": "number"}}, "required": ["category", "confidence"]}}`

// tickets writes n support tickets (id, subject, body) and the answers a model would give,
// some of them malformed, as recorded responses.
func tickets(t *testing.T, data, responses string, n int) map[string]string {
	t.Helper()
	var rows [][]string
	var lines []string
	want := map[string]string{}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("t%d", i)
		cat := []string{"billing", "bug", "other"}[i%3]
		rows = append(rows, []string{id, "subject " + cat, "body of ticket " + id})
		text := fmt.Sprintf("Sure.\n```json\n{\"category\": %q, \"confidence\": 0.%d}\n```", cat, 5+i%4)
		switch {
		case i == 4:
			text = "I cannot tell."
			want[id] = "parse_error"
		case i == 5:
			text = `{"category": "refund", "confidence": 0.9}`
			want[id] = "invalid"
		default:
			want[id] = "success:" + cat
		}
		b, _ := json.Marshal(map[string]any{"id": id, "text": text, "input_tokens": 100, "output_tokens": 20})
		lines = append(lines, string(b))
	}
	writeRows(t, data, []string{"ticket_id", "subject", "body"}, rows)
	mkdir(t, filepath.Dir(responses))
	must(t, os.WriteFile(responses, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	return want
}

func TestBedrockStepsReplayRecordedAnswers(t *testing.T) {
	t.Parallel()
	sb := needSandbox(t, "pandas", "numpy")
	g := newProcessingDirs(t)
	mkdir(t, g.path("input/config/prompt_configs"))
	must(t, os.WriteFile(g.path("input/config/prompt_configs/prompt_configs.json"), []byte(promptConfigs), 0o644))
	sb.mustRun(t, job{script: "bedrock_prompt_template_generation.py", codeDir: "/opt/ml/processing/input/code", binds: g.binds(),
		args: []string{"--include-examples", "true", "--template-version", "2.0"}})
	tpl := readJSON(t, g.path("output/templates/prompts.json"))
	user, _ := tpl["user_prompt_template"].(string)
	if tpl["version"] != "2.0" || !strings.Contains(user, "subject: {subject}") || !strings.Contains(user, "I was charged twice") ||
		!strings.Contains(fmt.Sprint(tpl["output_format"]), "enum:[billing bug other]") {
		t.Fatalf("prompts.json: %v", tpl)
	}

	for _, script := range []string{"bedrock_processing.py", "bedrock_batch_processing.py"} {
		t.Run(script, func(t *testing.T) {
			p := newProcessingDirs(t)
			copyFile(t, g.path("output/templates/prompts.json"), p.path("input/templates/prompts.json"))
			want := tickets(t, p.path("input/data/train/train_processed_data.csv"), p.path("input/model_responses/answers.jsonl"), 12)
			env := map[string]string{"BEDROCK_PRIMARY_MODEL_ID": "anthropic.claude-3-haiku-20240307-v1:0", "BEDROCK_ID_FIELD": "ticket_id",
				"BEDROCK_SKIP_ERROR_RECORDS": "true", "BEDROCK_BATCH_MODE": "batch"}
			out := sb.mustRun(t, job{script: script, codeDir: "/opt/ml/processing/input/code", binds: p.binds(), env: env, args: []string{"--job_type", "training"}})
			if !strings.Contains(out, "REPLAY") {
				t.Errorf("the log does not say the answers were replayed:\n%s", out)
			}
			header, rows := readCSV(t, p.path("output/data/train/train_processed_data.csv"))
			id, st, cat := column(t, header, "ticket_id"), column(t, header, "llm_status"), column(t, header, "llm_category")
			for _, r := range rows {
				got := r[st]
				if got == "success" {
					got += ":" + r[cat]
				}
				if got != want[r[id]] {
					t.Errorf("%s: %s, want %s", r[id], got, want[r[id]])
				}
			}
			sum := readJSON(t, p.path("output/summary/summary.json"))
			if sum["input_tokens"] != float64(1200) {
				t.Errorf("summary %v", sum)
			}
			if script == "bedrock_batch_processing.py" {
				// the records a batch job would have read: Anthropic's own request bodies
				b, err := os.ReadFile(p.path("output/summary/batch_input/train.jsonl"))
				must(t, err)
				first := strings.SplitN(string(b), "\n", 2)[0]
				if !strings.Contains(first, `"recordId": "t0"`) || !strings.Contains(first, `"anthropic_version": "bedrock-2023-05-31"`) || !strings.Contains(first, "subject: subject billing") {
					t.Errorf("batch record %s", first)
				}
			}

			// a missing recorded answer fails the job unless errors are skipped
			q := newProcessingDirs(t)
			copyFile(t, g.path("output/templates/prompts.json"), q.path("input/templates/prompts.json"))
			tickets(t, q.path("input/data/rows.csv"), q.path("input/model_responses/answers.jsonl"), 3)
			writeRows(t, q.path("input/data/more.csv"), []string{"ticket_id", "subject", "body"}, [][]string{{"t99", "s", "b"}})
			env["BEDROCK_SKIP_ERROR_RECORDS"] = "false"
			if out, err := sb.run(t, job{script: script, codeDir: "/opt/ml/processing/input/code", binds: q.binds(), env: env, args: []string{"--job_type", "calibration"}}); err == nil || !strings.Contains(out, "t99") {
				t.Errorf("a row without an answer passed: %v\n%s", err, out)
			}
		})
	}

	// an invalid prompt configuration fails its step, naming the problem
	bad := newProcessingDirs(t)
	mkdir(t, bad.path("input/config/prompt_configs"))
	must(t, os.WriteFile(bad.path("input/config/prompt_configs/prompt_configs.json"), []byte(`{"categories": [{"name": "only"}], "input_placeholders": ["x"]}`), 0o644))
	if out, err := sb.run(t, job{script: "bedrock_prompt_template_generation.py", codeDir: "/opt/ml/processing/input/code", binds: bad.binds(),
		args: []string{"--include-examples", "false", "--template-version", "1"}}); err == nil || !strings.Contains(out, "at least two categories") {
		t.Errorf("one category passed: %v\n%s", err, out)
	}
}

// TestBedrockClientAgainstTheAPIModels drives steplib/bedrock.py's real boto3 calls through
// botocore's Stubber, which checks every request against the service's API model: Converse with
// retries on throttling and a fallback model, and a batch job's S3 staging,
// CreateModelInvocationJob, GetModelInvocationJob polling and the answers read back. It needs an
// interpreter whose botocore knows bedrock-runtime's Converse (1.34.116 or later; Debian's is
// older), so it looks beyond /usr/bin/python3.
func TestBedrockClientAgainstTheAPIModels(t *testing.T) {
	t.Parallel()
	py := scripttest.PythonWith(t, "boto3", "botocore.stub")
	if out, err := exec.Command(py.Path, "-c", "import botocore.session as s; m = s.get_session().get_service_model('bedrock-runtime'); assert 'Converse' in m.operation_names").CombinedOutput(); err != nil {
		testenv.Missing(t, fmt.Sprintf("%s has a botocore without bedrock-runtime Converse (1.34.116 or later): %s", py.Path, lastLine(string(out))))
	}
	dir := t.TempDir()
	lib, err := fs.Sub(catalog.Code(), catalog.CodeLibDir)
	must(t, err)
	must(t, os.CopyFS(filepath.Join(dir, catalog.CodeLibDir), lib))
	must(t, os.WriteFile(filepath.Join(dir, "check.py"), []byte(bedrockClientCheck), 0o644))
	cmd := exec.Command(py.Path, "-E", "-s", "check.py")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test", "AWS_DEFAULT_REGION=us-east-1"}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok") {
		t.Fatalf("%v\n%s", err, out)
	}
}

const bedrockClientCheck = `
import io, json
import boto3
from botocore.exceptions import ClientError
from botocore.response import StreamingBody
from botocore.stub import Stubber, ANY
from steplib import bedrock

rt = boto3.client("bedrock-runtime", region_name="us-east-1")
stub = Stubber(rt)
answer = {"output": {"message": {"role": "assistant", "content": [{"text": "{\"category\": \"bug\"}"}]}},
          "stopReason": "end_turn", "usage": {"inputTokens": 12, "outputTokens": 5, "totalTokens": 17}, "metrics": {"latencyMs": 30}}
expected = {"modelId": "anthropic.claude-3-haiku-20240307-v1:0", "system": [{"text": "sys"}],
            "messages": [{"role": "user", "content": [{"text": "hello"}]}],
            "inferenceConfig": {"maxTokens": 256, "temperature": 0.0, "topP": 0.9}}
stub.add_client_error("converse", service_error_code="ThrottlingException", http_status_code=429, expected_params=expected)
stub.add_response("converse", answer, expected)
# the primary refuses (not a throttle): the fallback model answers
stub.add_client_error("converse", service_error_code="ValidationException", http_status_code=400, expected_params=dict(expected))
fb = dict(expected, modelId="amazon.nova-lite-v1:0")
stub.add_response("converse", answer, fb)
stub.activate()
c = bedrock.Converse("anthropic.claude-3-haiku-20240307-v1:0", fallback_model_id="amazon.nova-lite-v1:0", max_tokens=256,
                     temperature=0.0, top_p=0.9, max_retries=2, rate_per_second=0, client=rt)
import steplib.bedrock as B
B.time.sleep = lambda s: None  # no real backoff in the test
got = c.complete("r1", "sys", "hello")
assert got["text"] == "{\"category\": \"bug\"}" and got["input_tokens"] == 12 and c.retries == 1, got
got = c.complete("r2", "sys", "hello")
assert got["model"] == "amazon.nova-lite-v1:0", got
stub.assert_no_pending_responses()
stub.deactivate()

# retries stop after max_retries
stub = Stubber(rt)
for _ in range(3):
    stub.add_client_error("converse", service_error_code="ThrottlingException", http_status_code=429)
stub.activate()
c = bedrock.Converse("m", max_retries=2, rate_per_second=0, client=rt)
try:
    c.complete("r", "", "x")
    raise AssertionError("a throttle past max_retries passed")
except ClientError as e:
    assert bedrock.error_code(e) == "ThrottlingException"
stub.assert_no_pending_responses()

# a batch job: records staged in S3, the job created and polled, the answers read back
s3 = boto3.client("s3", region_name="us-east-1")
br = boto3.client("bedrock", region_name="us-east-1")
s3s, brs = Stubber(s3), Stubber(br)
s3s.add_response("put_object", {}, {"Bucket": "bkt", "Key": "batch/in/job1/records.jsonl", "Body": ANY})
arn = "arn:aws:bedrock:us-east-1:123456789012:model-invocation-job/abc123"
brs.add_response("create_model_invocation_job", {"jobArn": arn}, {
    "jobName": "job1", "roleArn": "arn:aws:iam::123456789012:role/BedrockBatch", "modelId": "anthropic.claude-3-haiku-20240307-v1:0",
    "inputDataConfig": {"s3InputDataConfig": {"s3Uri": "s3://bkt/batch/in/job1/records.jsonl", "s3InputFormat": "JSONL"}},
    "outputDataConfig": {"s3OutputDataConfig": {"s3Uri": "s3://bkt/batch/out/job1/"}}, "timeoutDurationInHours": 24})
job = {"jobArn": arn, "jobName": "job1", "modelId": "m", "roleArn": "arn:aws:iam::123456789012:role/BedrockBatch",
       "submitTime": "2025-01-01T00:00:00Z",
       "inputDataConfig": {"s3InputDataConfig": {"s3Uri": "s3://bkt/batch/in/job1/records.jsonl"}},
       "outputDataConfig": {"s3OutputDataConfig": {"s3Uri": "s3://bkt/batch/out/job1/"}}}
brs.add_response("get_model_invocation_job", dict(job, status="InProgress"), {"jobIdentifier": arn})
brs.add_response("get_model_invocation_job", dict(job, status="Completed"), {"jobIdentifier": arn})
key = "batch/out/job1/abc123/records.jsonl.out"
s3s.add_response("list_objects_v2", {"Contents": [{"Key": key}, {"Key": "batch/out/job1/abc123/manifest.json.out"}], "IsTruncated": False},
                 {"Bucket": "bkt", "Prefix": "batch/out/job1/"})
out = "\n".join(json.dumps(r) for r in [
    {"recordId": "1", "modelInput": {}, "modelOutput": {"content": [{"type": "text", "text": "{\"category\": \"bug\"}"}], "usage": {"input_tokens": 9, "output_tokens": 3}}},
    {"recordId": "2", "modelInput": {}, "error": {"errorCode": 400, "errorMessage": "bad"}}]).encode()
s3s.add_response("get_object", {"Body": StreamingBody(io.BytesIO(out), len(out))}, {"Bucket": "bkt", "Key": key})
s3s.activate(); brs.activate()
lines = [{"recordId": str(i), "modelInput": bedrock.native_body("sys", "q%d" % i, 100, 0, 1, "anthropic.claude-3-haiku-20240307-v1:0")} for i in (1, 2)]
j = bedrock.BatchJob("anthropic.claude-3-haiku-20240307-v1:0", "arn:aws:iam::123456789012:role/BedrockBatch", "s3://bkt/batch/in", "s3://bkt/batch/out",
                     bedrock=br, s3=s3, sleep=lambda s: None)
answers = j.run("job1", lines)
assert bedrock.output_text(answers["1"]) == "{\"category\": \"bug\"}" and bedrock.output_usage(answers["1"]) == (9, 3), answers
assert "error" in answers["2"], answers
s3s.assert_no_pending_responses(); brs.assert_no_pending_responses()

# the pure parts
assert bedrock.extract_json('noise {"a": {"b": "}"}} tail') == {"a": {"b": "}"}}
assert bedrock.check_answer({"c": "x"}, {"fields": {"c": {"type": "string", "enum": ["y"]}, "d": {"type": "number"}}, "required": ["c", "d"]}) == ["missing field d", "field c is 'x', not one of ['y']"]
t = []
assert bedrock.render("{a} and {b}", {"a": "xxxxxx", "b": None}, 3, t) == "xxx and " and t == ["a"]
print("ok")
`
