"""BedrockBatchProcessing: the rows' questions to a Bedrock model as batch inference jobs
(CreateModelInvocationJob: the records staged as JSONL in S3, the job polled until it ends, its
answers read back), about half the price of one call per row; small inputs, or a batch job that
fails, go through the Converse API instead. The answers' fields become columns.

Input
  /opt/ml/processing/input/data             input_data: the rows (split folders or data files)
  /opt/ml/processing/input/templates        prompt_templates: prompts.json of
                                            BedrockPromptTemplateGeneration
  /opt/ml/processing/input/config/bedrock_prompt_template
                                            inline_template: the template from config field
                                            bedrock_prompt_template, used without prompt_templates
  /opt/ml/processing/input/model_responses  model_responses (optional): recorded answers (JSONL or
                                            CSV of id, text), replayed instead of the jobs (the
                                            JSONL records are still built and written, as a batch
                                            job would have read them)
Output
  /opt/ml/processing/output/data            processed_data: the rows with <prefix><field>,
                                            <prefix>status and <prefix>error columns
  /opt/ml/processing/output/summary         analysis_summary: summary.json (mode, jobs, statuses,
                                            tokens) and, in replay, batch_input/<split>.jsonl
Environment
  BEDROCK_PRIMARY_MODEL_ID (required), BEDROCK_BATCH_MODE (auto: batch jobs from
  BEDROCK_BATCH_THRESHOLD rows on; batch; realtime), BEDROCK_BATCH_ROLE_ARN (the service role
  the job runs as), BEDROCK_BATCH_INPUT_S3_PATH and BEDROCK_BATCH_OUTPUT_S3_PATH (S3 prefixes for
  the JSONL records and answers), BEDROCK_BATCH_TIMEOUT_HOURS, BEDROCK_MAX_RECORDS_PER_JOB,
  BEDROCK_BATCH_POLL_SECONDS, BEDROCK_FALLBACK_TO_REALTIME, and as BedrockProcessing:
  BEDROCK_FALLBACK_MODEL_ID, BEDROCK_INFERENCE_PROFILE_ARN, BEDROCK_MAX_TOKENS,
  BEDROCK_TEMPERATURE, BEDROCK_TOP_P, BEDROCK_MAX_CONCURRENT_WORKERS,
  BEDROCK_RATE_LIMIT_PER_SECOND, BEDROCK_OUTPUT_COLUMN_PREFIX, BEDROCK_SKIP_ERROR_RECORDS,
  BEDROCK_MAX_INPUT_FIELD_LENGTH, BEDROCK_ID_FIELD, AWS_REGION
Arguments
  --job_type, --batch-size, --max-retries (the real-time path's)

The job role needs bedrock:CreateModelInvocationJob and bedrock:GetModelInvocationJob,
iam:PassRole on BEDROCK_BATCH_ROLE_ARN, s3:PutObject, s3:GetObject and s3:ListBucket on the batch
prefixes, and bedrock:InvokeModel for the real-time path; the batch role itself needs
s3:GetObject on the input prefix, s3:PutObject on the output prefix and bedrock:InvokeModel.
"""
import argparse
import json
import os
import re
import sys
import time

from steplib import bedrock, llmrows, tables

DATA_DIR = "/opt/ml/processing/input/data"
TEMPLATES_DIR = "/opt/ml/processing/input/templates"
INLINE_DIR = "/opt/ml/processing/input/config/bedrock_prompt_template"
RESPONSES_DIR = "/opt/ml/processing/input/model_responses"
DATA_OUT = "/opt/ml/processing/output/data"
SUMMARY_OUT = "/opt/ml/processing/output/summary"

MIN_BATCH_RECORDS = 100  # Bedrock refuses smaller batch inference jobs


def log(msg):
    print("[bedrock_batch_processing] " + msg, flush=True)


def realtime_client(env, max_retries):
    return bedrock.Converse(env["BEDROCK_PRIMARY_MODEL_ID"].strip(), region=env.get("AWS_REGION") or None,
                            fallback_model_id=env.get("BEDROCK_FALLBACK_MODEL_ID", "").strip(),
                            inference_profile_arn=env.get("BEDROCK_INFERENCE_PROFILE_ARN", "").strip(),
                            max_tokens=int(env.get("BEDROCK_MAX_TOKENS") or 8192), temperature=float(env.get("BEDROCK_TEMPERATURE") or 1.0),
                            top_p=float(env.get("BEDROCK_TOP_P") or 0.999), max_retries=max_retries,
                            rate_per_second=float(env.get("BEDROCK_RATE_LIMIT_PER_SECOND") or 10))


def records(reqs, env):
    """The JSONL records of a batch job: recordId and the model's own request body."""
    model = env.get("BEDROCK_INFERENCE_PROFILE_ARN", "").strip() or env["BEDROCK_PRIMARY_MODEL_ID"].strip()
    return [{"recordId": rid, "modelInput": bedrock.native_body(system, user, env.get("BEDROCK_MAX_TOKENS") or 8192,
                                                                env.get("BEDROCK_TEMPERATURE") or 1.0, env.get("BEDROCK_TOP_P") or 0.999, model)}
            for rid, system, user in reqs]


def answers_from(outputs, reqs):
    """Answers in the order of reqs from a job's {recordId: modelOutput}."""
    out = []
    for rid, _, _ in reqs:
        o = outputs.get(rid)
        if o is None:
            out.append({"error": "the batch job returned no answer for record %s" % rid})
        elif "error" in o and len(o) == 1:
            out.append({"error": json.dumps(o["error"])})
        else:
            i, u = bedrock.output_usage(o)
            out.append({"text": bedrock.output_text(o), "input_tokens": i, "output_tokens": u})
    return out


def job_name(job_type, split, part):
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return re.sub(r"[^a-zA-Z0-9-]", "-", "cursus-%s-%s-%d-%s" % (job_type, split, part, stamp))[:63]


def ask_batch(job, reqs, env, job_type, split):
    """Answers of reqs through batch jobs of at most BEDROCK_MAX_RECORDS_PER_JOB records."""
    size = int(env.get("BEDROCK_MAX_RECORDS_PER_JOB") or 45000)
    lines = records(reqs, env)
    outputs = {}
    for part, i in enumerate(range(0, len(lines), size)):
        outputs.update(job.run(job_name(job_type, split, part), lines[i:i + size]))
    return answers_from(outputs, reqs)


def ask_realtime(model, reqs, workers):
    from concurrent.futures import ThreadPoolExecutor

    def one(req):
        try:
            return model.complete(*req)
        except Exception as e:
            return {"error": "%s: %s" % (type(e).__name__, e)}
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(one, reqs))


def main(input_paths, output_paths, environ_vars, job_args):
    start = time.time()
    env = environ_vars
    if not env["BEDROCK_PRIMARY_MODEL_ID"].strip():
        sys.exit("BEDROCK_PRIMARY_MODEL_ID is empty (config field bedrock_primary_model_id)")
    mode = (env.get("BEDROCK_BATCH_MODE") or "auto").strip()
    if mode not in ("auto", "batch", "realtime"):
        sys.exit("BEDROCK_BATCH_MODE %r: auto, batch or realtime" % mode)
    tpl = llmrows.load_template(input_paths.get("prompt_templates"), input_paths.get("inline_template"))
    responses = input_paths.get("model_responses")
    replay = None
    if bedrock.has_responses(responses):
        replay = bedrock.Replay(responses)
        log("REPLAY: answers recorded in %s stand in for the batch jobs of %s; Bedrock is not called" % (responses, env["BEDROCK_PRIMARY_MODEL_ID"]))
    prefix = env.get("BEDROCK_OUTPUT_COLUMN_PREFIX") or "llm_"
    id_field = env.get("BEDROCK_ID_FIELD", "").strip()
    threshold = max(int(env.get("BEDROCK_BATCH_THRESHOLD") or 1000), MIN_BATCH_RECORDS)
    fallback = tables.truthy(env.get("BEDROCK_FALLBACK_TO_REALTIME"), True)
    batch_job, model = None, None
    frames, tokens, jobs, modes = [], {"input_tokens": 0, "output_tokens": 0}, 0, {}
    for name, df, fmt in llmrows.read_inputs(input_paths["input_data"], job_args.job_type):
        if id_field and id_field not in df.columns:
            sys.exit("BEDROCK_ID_FIELD %r is not a column of %s" % (id_field, name))
        reqs, _ = llmrows.prompts(df, tpl, id_field, int(env.get("BEDROCK_MAX_INPUT_FIELD_LENGTH") or 400000))
        if id_field and len(set(r[0] for r in reqs)) != len(reqs):
            sys.exit("BEDROCK_ID_FIELD %r repeats ids in %s: a batch job's recordId must be unique" % (id_field, name))
        use_batch = mode == "batch" or (mode == "auto" and len(reqs) >= threshold)
        if mode == "batch" and len(reqs) < MIN_BATCH_RECORDS:
            log("%s: %d rows, fewer than the %d a batch job takes; real-time calls instead" % (name, len(reqs), MIN_BATCH_RECORDS))
            use_batch = False
        if replay is not None:
            lines = records(reqs, env)  # what the job would have staged in S3
            os.makedirs(os.path.join(output_paths["analysis_summary"], "batch_input"), exist_ok=True)
            with open(os.path.join(output_paths["analysis_summary"], "batch_input", name + ".jsonl"), "w", encoding="utf-8") as f:
                f.write("\n".join(json.dumps(r) for r in lines) + "\n")
            answers = []
            for rid, system, user in reqs:
                try:
                    answers.append(replay.complete(rid, system, user))
                except KeyError as e:
                    answers.append({"error": str(e)})
            modes[name] = "replay (%s)" % ("batch" if use_batch else "realtime")
        elif use_batch:
            if batch_job is None:
                batch_job = bedrock.BatchJob(env.get("BEDROCK_INFERENCE_PROFILE_ARN", "").strip() or env["BEDROCK_PRIMARY_MODEL_ID"].strip(),
                                             env.get("BEDROCK_BATCH_ROLE_ARN", "").strip(), env.get("BEDROCK_BATCH_INPUT_S3_PATH", ""),
                                             env.get("BEDROCK_BATCH_OUTPUT_S3_PATH", ""), region=env.get("AWS_REGION") or None,
                                             timeout_hours=int(env.get("BEDROCK_BATCH_TIMEOUT_HOURS") or 24),
                                             poll_seconds=float(env.get("BEDROCK_BATCH_POLL_SECONDS") or 60))
            try:
                answers = ask_batch(batch_job, reqs, env, job_args.job_type, name)
                jobs += 1
                modes[name] = "batch"
            except Exception as e:
                if not fallback:
                    raise
                log("%s: the batch job failed (%s); real-time calls instead" % (name, e))
                use_batch = False
        if replay is None and not use_batch:
            model = model or realtime_client(env, job_args.max_retries)
            answers = ask_realtime(model, reqs, int(env.get("BEDROCK_MAX_CONCURRENT_WORKERS") or 5))
            modes[name] = "realtime"
        out, used = llmrows.answer_columns(df, answers, tpl, prefix)
        for k in tokens:
            tokens[k] += used[k]
        llmrows.write_split(output_paths["processed_data"], name, out, fmt)
        frames.append((name, out))
        log("%s (%s): %d rows, %s" % (name, modes[name], len(out), out[prefix + "status"].value_counts().to_dict()))
    summary = llmrows.summarize(frames, prefix, {"model": env["BEDROCK_PRIMARY_MODEL_ID"], "modes": modes, "batch_jobs": jobs,
                                                 "template_version": tpl.get("version"), "seconds": llmrows.elapsed(start)})
    summary.update(tokens)
    llmrows.write_summary(output_paths["analysis_summary"], summary)
    llmrows.check_failures(frames, prefix, tables.truthy(env.get("BEDROCK_SKIP_ERROR_RECORDS"), False))
    return summary


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Ask a Bedrock model about every row through batch inference jobs.")
    parser.add_argument("--job_type", required=True)
    parser.add_argument("--batch-size", type=int, default=10)
    parser.add_argument("--max-retries", type=int, default=3)
    args = parser.parse_args()
    e = os.environ
    environ = {
        "BEDROCK_PRIMARY_MODEL_ID": e["BEDROCK_PRIMARY_MODEL_ID"],
        "BEDROCK_BATCH_MODE": e.get("BEDROCK_BATCH_MODE", "auto"),
        "BEDROCK_BATCH_THRESHOLD": e.get("BEDROCK_BATCH_THRESHOLD", "1000"),
        "BEDROCK_BATCH_ROLE_ARN": e.get("BEDROCK_BATCH_ROLE_ARN", ""),
        "BEDROCK_BATCH_INPUT_S3_PATH": e.get("BEDROCK_BATCH_INPUT_S3_PATH", ""),
        "BEDROCK_BATCH_OUTPUT_S3_PATH": e.get("BEDROCK_BATCH_OUTPUT_S3_PATH", ""),
        "BEDROCK_BATCH_TIMEOUT_HOURS": e.get("BEDROCK_BATCH_TIMEOUT_HOURS", "24"),
        "BEDROCK_MAX_RECORDS_PER_JOB": e.get("BEDROCK_MAX_RECORDS_PER_JOB", "45000"),
        "BEDROCK_BATCH_POLL_SECONDS": e.get("BEDROCK_BATCH_POLL_SECONDS", "60"),
        "BEDROCK_FALLBACK_TO_REALTIME": e.get("BEDROCK_FALLBACK_TO_REALTIME", "true"),
        "BEDROCK_FALLBACK_MODEL_ID": e.get("BEDROCK_FALLBACK_MODEL_ID", ""),
        "BEDROCK_INFERENCE_PROFILE_ARN": e.get("BEDROCK_INFERENCE_PROFILE_ARN", ""),
        "BEDROCK_MAX_TOKENS": e.get("BEDROCK_MAX_TOKENS", "32768"),
        "BEDROCK_TEMPERATURE": e.get("BEDROCK_TEMPERATURE", "1.0"),
        "BEDROCK_TOP_P": e.get("BEDROCK_TOP_P", "0.999"),
        "BEDROCK_MAX_CONCURRENT_WORKERS": e.get("BEDROCK_MAX_CONCURRENT_WORKERS", "5"),
        "BEDROCK_RATE_LIMIT_PER_SECOND": e.get("BEDROCK_RATE_LIMIT_PER_SECOND", "10"),
        "BEDROCK_OUTPUT_COLUMN_PREFIX": e.get("BEDROCK_OUTPUT_COLUMN_PREFIX", "llm_"),
        "BEDROCK_SKIP_ERROR_RECORDS": e.get("BEDROCK_SKIP_ERROR_RECORDS", "false"),
        "BEDROCK_MAX_INPUT_FIELD_LENGTH": e.get("BEDROCK_MAX_INPUT_FIELD_LENGTH", "400000"),
        "BEDROCK_ID_FIELD": e.get("BEDROCK_ID_FIELD", ""),
        "AWS_REGION": e.get("AWS_REGION", ""),
    }
    main({"input_data": DATA_DIR, "prompt_templates": TEMPLATES_DIR, "inline_template": INLINE_DIR, "model_responses": RESPONSES_DIR},
         {"processed_data": DATA_OUT, "analysis_summary": SUMMARY_OUT}, environ, args)
