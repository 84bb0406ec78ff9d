"""Calling a model on Amazon Bedrock from a processing job, and what surrounds the call: prompts
filled from rows, answers parsed into fields, retries with backoff, a rate limit, batch inference
jobs (CreateModelInvocationJob over JSONL in S3), and replay of recorded answers.

Only the standard library at import; boto3 is imported when a real client is made, so a job that
replays recorded answers (a local run) needs no AWS SDK and no network.

The job role needs (see the Bedrock step files' docs):
  bedrock:InvokeModel on the model (and the inference profile) for the Converse API;
  bedrock:CreateModelInvocationJob, bedrock:GetModelInvocationJob and iam:PassRole on the batch
  service role, plus s3:PutObject / s3:GetObject / s3:ListBucket on the batch prefix, for batch jobs.
"""
import csv
import json
import os
import random
import re
import threading
import time

RETRYABLE = ("ThrottlingException", "ServiceUnavailableException", "ModelTimeoutException", "InternalServerException",
             "ModelNotReadyException", "TooManyRequestsException", "RequestTimeout")
BATCH_DONE = ("Completed", "PartiallyCompleted")
BATCH_FAILED = ("Failed", "Stopped", "Expired")
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.\-]*)\}")


def log(msg):
    print("[bedrock] " + msg, flush=True)


class RateLimiter(object):
    """At most rate calls a second across threads (a token bucket of one second's calls)."""

    def __init__(self, rate, clock=time.monotonic, sleep=time.sleep):
        self.rate = float(rate)
        self.clock, self.sleep = clock, sleep
        self.tokens, self.last = self.rate, clock()
        self.lock = threading.Lock()

    def acquire(self):
        if self.rate <= 0:
            return
        while True:
            with self.lock:
                now = self.clock()
                self.tokens = min(self.rate, self.tokens + (now - self.last) * self.rate)
                self.last = now
                if self.tokens >= 1:
                    self.tokens -= 1
                    return
                wait = (1 - self.tokens) / self.rate
            self.sleep(wait)


def error_code(exc):
    """The AWS error code of a botocore ClientError ("" for anything else)."""
    resp = getattr(exc, "response", None)
    if isinstance(resp, dict):
        return (resp.get("Error") or {}).get("Code", "")
    return ""


def with_retries(call, max_retries, base_delay=1.0, sleep=time.sleep, on_retry=None):
    """call(), retried with exponential backoff and jitter while it raises a retryable AWS error
    (throttling, timeouts, the service unavailable), at most max_retries times."""
    attempt = 0
    while True:
        try:
            return call()
        except Exception as e:  # botocore.exceptions.ClientError and friends
            code = error_code(e) or type(e).__name__
            if code not in RETRYABLE or attempt >= max_retries:
                raise
            delay = base_delay * (2 ** attempt) * (0.5 + random.random())
            attempt += 1
            if on_retry:
                on_retry(code, attempt, delay)
            sleep(delay)


class Converse(object):
    """The Converse API of bedrock-runtime: one user message, an optional system prompt, and the
    inference settings; retries and a shared rate limit; a fallback model when the primary is
    refused (not throttled)."""

    def __init__(self, model_id, region=None, fallback_model_id="", inference_profile_arn="", max_tokens=8192,
                 temperature=1.0, top_p=0.999, max_retries=3, rate_per_second=10, client=None):
        if client is None:
            import boto3  # noqa: the job's image has it (SageMaker framework images do)
            from botocore.config import Config

            client = boto3.client("bedrock-runtime", region_name=region or None,
                                  config=Config(retries={"max_attempts": 1}, read_timeout=300))
        self.client = client
        self.model_id = inference_profile_arn or model_id
        self.fallback = fallback_model_id
        self.settings = {"maxTokens": int(max_tokens), "temperature": float(temperature), "topP": float(top_p)}
        self.max_retries = int(max_retries)
        self.limiter = RateLimiter(rate_per_second)
        self.retries = 0
        self.lock = threading.Lock()

    def _count_retry(self, code, attempt, delay):
        with self.lock:
            self.retries += 1

    def _call(self, model, system, user):
        req = {"modelId": model, "messages": [{"role": "user", "content": [{"text": user}]}], "inferenceConfig": self.settings}
        if system:
            req["system"] = [{"text": system}]
        self.limiter.acquire()
        return self.client.converse(**req)

    def complete(self, record_id, system, user):
        """{"text", "input_tokens", "output_tokens", "model"} of the model's answer."""
        model = self.model_id
        try:
            resp = with_retries(lambda: self._call(model, system, user), self.max_retries, on_retry=self._count_retry)
        except Exception as e:
            if not self.fallback or error_code(e) in RETRYABLE:
                raise
            log("record %s: %s refused (%s); trying the fallback %s" % (record_id, model, error_code(e) or e, self.fallback))
            model = self.fallback
            resp = with_retries(lambda: self._call(model, system, user), self.max_retries, on_retry=self._count_retry)
        parts = ((resp.get("output") or {}).get("message") or {}).get("content") or []
        usage = resp.get("usage") or {}
        return {"text": "".join(p.get("text", "") for p in parts), "input_tokens": usage.get("inputTokens", 0),
                "output_tokens": usage.get("outputTokens", 0), "model": model, "stop_reason": resp.get("stopReason", "")}


def read_responses(folder):
    """Recorded answers by record id from every .jsonl/.json ({"id", "text"} per line or a list)
    and .csv (columns id and text) file below folder (or the one file folder names)."""
    out = {}
    places = [(os.path.dirname(folder), [os.path.basename(folder)])] if os.path.isfile(folder) else [(r, f) for r, _, f in sorted(os.walk(folder))]
    for root, files in places:
        for name in sorted(files):
            path = os.path.join(root, name)
            if name.endswith(".csv"):
                with open(path, newline="", encoding="utf-8") as f:
                    rows = list(csv.DictReader(f))
            elif name.endswith((".jsonl", ".json")):
                with open(path, encoding="utf-8") as f:
                    text = f.read().strip()
                if not text:
                    continue
                rows = json.loads(text) if text.startswith("[") else [json.loads(line) for line in text.splitlines() if line.strip()]
            else:
                continue
            for r in rows:
                if "id" not in r or "text" not in r:
                    raise SystemExit("%s: each recorded answer needs id and text, got %s" % (path, sorted(r)))
                out[str(r["id"])] = r
    return out


class Replay(object):
    """Answers recorded beforehand instead of a model call, by record id: how a local run (and a
    backfill on cached answers) runs a Bedrock step without reaching Bedrock."""

    def __init__(self, folder):
        self.answers = read_responses(folder)
        if not self.answers:
            raise SystemExit("no recorded answers (id, text) under %s" % folder)
        self.model_id = "replay:" + folder
        self.retries = 0

    def complete(self, record_id, system, user):
        r = self.answers.get(str(record_id))
        if r is None:
            raise KeyError("no recorded answer for record %s" % record_id)
        return {"text": r["text"], "input_tokens": int(r.get("input_tokens") or 0), "output_tokens": int(r.get("output_tokens") or 0),
                "model": r.get("model", self.model_id), "stop_reason": "replayed"}


def placeholders(template):
    """The {field} names of a template, in order, once each."""
    out = []
    for name in PLACEHOLDER.findall(template or ""):
        if name not in out:
            out.append(name)
    return out


def render(template, row, max_len, truncated=None):
    """The template with each {field} replaced by the row's value (missing: empty), a value
    longer than max_len cut there (truncated, a list, gets the field names cut)."""
    def one(m):
        v = row.get(m.group(1))
        s = "" if v is None or (isinstance(v, float) and v != v) else str(v)
        if max_len and len(s) > max_len:
            s = s[:max_len]
            if truncated is not None:
                truncated.append(m.group(1))
        return s
    return PLACEHOLDER.sub(one, template)


def extract_json(text):
    """The JSON object in a model's answer: the whole text, a ```json fenced block, or the first
    balanced {...}; None when there is none."""
    text = (text or "").strip()
    fenced = re.search(r"```(?:json)?\s*(\{.*?\})\s*```", text, re.S)
    candidates = [text] + ([fenced.group(1)] if fenced else [])
    start = text.find("{")
    if start >= 0:
        depth, in_str, esc = 0, False, False
        for i in range(start, len(text)):
            c = text[i]
            if in_str:
                esc = (c == "\\") and not esc
                if c == '"' and not esc:
                    in_str = False
                continue
            if c == '"':
                in_str = True
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    candidates.append(text[start:i + 1])
                    break
    for c in candidates:
        try:
            v = json.loads(c)
        except ValueError:
            continue
        if isinstance(v, dict):
            return v
    return None


def check_answer(obj, output_format):
    """Problems of a parsed answer against the output format: {"fields": {name: {"type",
    "enum"}}, "required": [...]}; [] when it conforms."""
    if obj is None:
        return ["the answer holds no JSON object"]
    problems = []
    fields = (output_format or {}).get("fields") or {}
    for name in (output_format or {}).get("required") or list(fields):
        if name not in obj:
            problems.append("missing field %s" % name)
    for name, spec in fields.items():
        if name not in obj or not isinstance(spec, dict):
            continue
        v = obj[name]
        kind = spec.get("type")
        ok = {"string": isinstance(v, str), "number": isinstance(v, (int, float)) and not isinstance(v, bool),
              "integer": isinstance(v, int) and not isinstance(v, bool), "boolean": isinstance(v, bool),
              "array": isinstance(v, list), "object": isinstance(v, dict)}.get(kind, True)
        if not ok:
            problems.append("field %s is not a %s" % (name, kind))
        if spec.get("enum") and v not in spec["enum"]:
            problems.append("field %s is %r, not one of %s" % (name, v, spec["enum"]))
    return problems


def cell(v):
    """A parsed answer's value as one table cell (lists and objects as JSON)."""
    return json.dumps(v, sort_keys=True) if isinstance(v, (list, dict)) else v


# --- batch inference (CreateModelInvocationJob) ---------------------------------------------

def native_body(system, user, max_tokens, temperature, top_p, model_id):
    """The model's own InvokeModel body, as a batch job's modelInput must be: Anthropic's
    messages API for anthropic.* models, Amazon Nova's for amazon.nova*, else a Converse-shaped
    body."""
    m = model_id.split("/")[-1]
    m = m.split(".", 1)[-1] if m.split(".", 1)[0] in ("us", "eu", "apac", "global") else m
    if m.startswith("anthropic."):
        body = {"anthropic_version": "bedrock-2023-05-31", "max_tokens": int(max_tokens), "temperature": float(temperature),
                "top_p": float(top_p), "messages": [{"role": "user", "content": [{"type": "text", "text": user}]}]}
        if system:
            body["system"] = system
        return body
    body = {"messages": [{"role": "user", "content": [{"text": user}]}],
            "inferenceConfig": {"maxTokens": int(max_tokens), "temperature": float(temperature), "topP": float(top_p)}}
    if system:
        body["system"] = [{"text": system}]
    return body


def output_text(model_output):
    """The answer text of a batch job's modelOutput, whichever model family wrote it."""
    if not isinstance(model_output, dict):
        return ""
    if isinstance(model_output.get("content"), list):  # Anthropic
        return "".join(p.get("text", "") for p in model_output["content"] if isinstance(p, dict))
    msg = (model_output.get("output") or {}).get("message")  # Converse-shaped (Nova)
    if isinstance(msg, dict):
        return "".join(p.get("text", "") for p in msg.get("content") or [] if isinstance(p, dict))
    if isinstance(model_output.get("results"), list) and model_output["results"]:  # Titan
        return model_output["results"][0].get("outputText", "")
    return model_output.get("generation") or model_output.get("completion") or ""


def output_usage(model_output):
    u = (model_output or {}).get("usage") or {}
    return int(u.get("input_tokens") or u.get("inputTokens") or 0), int(u.get("output_tokens") or u.get("outputTokens") or 0)


def split_s3(uri):
    if not uri.startswith("s3://"):
        raise SystemExit("not an S3 URI: %r" % uri)
    bucket, _, key = uri[5:].partition("/")
    return bucket, key


class BatchJob(object):
    """One batch inference job: JSONL records staged in S3, CreateModelInvocationJob, polling
    GetModelInvocationJob until it ends, the *.jsonl.out answers read back."""

    def __init__(self, model_id, role_arn, input_prefix, output_prefix, region=None, timeout_hours=24, poll_seconds=60,
                 bedrock=None, s3=None, sleep=time.sleep):
        if bedrock is None or s3 is None:
            import boto3  # noqa

            bedrock = bedrock or boto3.client("bedrock", region_name=region or None)
            s3 = s3 or boto3.client("s3", region_name=region or None)
        if not role_arn:
            raise SystemExit("BEDROCK_BATCH_ROLE_ARN is empty: a batch inference job runs as a service role Bedrock can assume (config field bedrock_batch_role_arn)")
        self.bedrock, self.s3, self.sleep = bedrock, s3, sleep
        self.model_id, self.role_arn = model_id, role_arn
        self.input_prefix, self.output_prefix = input_prefix.rstrip("/"), output_prefix.rstrip("/")
        self.timeout_hours, self.poll_seconds = int(timeout_hours), float(poll_seconds)

    def run(self, name, lines):
        """{recordId: modelOutput or {"error": ...}} of one job over lines (JSONL records)."""
        bucket, key = split_s3("%s/%s/records.jsonl" % (self.input_prefix, name))
        self.s3.put_object(Bucket=bucket, Key=key, Body=("\n".join(json.dumps(r) for r in lines) + "\n").encode("utf-8"))
        out_uri = "%s/%s/" % (self.output_prefix, name)
        job = self.bedrock.create_model_invocation_job(
            jobName=name, roleArn=self.role_arn, modelId=self.model_id,
            inputDataConfig={"s3InputDataConfig": {"s3Uri": "s3://%s/%s" % (bucket, key), "s3InputFormat": "JSONL"}},
            outputDataConfig={"s3OutputDataConfig": {"s3Uri": out_uri}},
            timeoutDurationInHours=self.timeout_hours)
        arn = job["jobArn"]
        log("batch job %s started (%d records): %s" % (name, len(lines), arn))
        while True:
            st = self.bedrock.get_model_invocation_job(jobIdentifier=arn)
            status = st.get("status")
            if status in BATCH_DONE:
                break
            if status in BATCH_FAILED:
                raise RuntimeError("batch job %s %s: %s" % (name, status, st.get("message", "")))
            self.sleep(self.poll_seconds)
        bucket, prefix = split_s3(out_uri)
        answers = {}
        token = None
        while True:
            kw = {"Bucket": bucket, "Prefix": prefix}
            if token:
                kw["ContinuationToken"] = token
            page = self.s3.list_objects_v2(**kw)
            for obj in page.get("Contents") or []:
                if obj["Key"].endswith(".jsonl.out"):
                    body = self.s3.get_object(Bucket=bucket, Key=obj["Key"])["Body"].read().decode("utf-8")
                    answers.update(parse_batch_output(body))
            token = page.get("NextContinuationToken")
            if not token:
                break
        log("batch job %s %s: %d answers" % (name, status, len(answers)))
        return answers


def parse_batch_output(body):
    """{recordId: modelOutput, or {"error": ...}} of a batch job's .jsonl.out text."""
    out = {}
    for line in body.splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        rid = str(rec.get("recordId"))
        out[rid] = rec["modelOutput"] if "modelOutput" in rec else {"error": rec.get("error") or {"message": "no modelOutput"}}
    return out


def has_responses(path):
    """Whether path (a file, or a folder with a file below it) holds recorded answers."""
    return bool(path) and (os.path.isfile(path) or (os.path.isdir(path) and any(f for _, _, f in os.walk(path))))
