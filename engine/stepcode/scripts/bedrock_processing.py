"""BedrockProcessing: ask a model on Amazon Bedrock about every row (the Converse API), and add
its answer's fields as columns: LLM labelling, extraction or triage of tickets, reviews, claims.

Input
  /opt/ml/processing/input/data             input_data: the rows (split folders as
                                            TabularPreprocessing writes them, or data files)
  /opt/ml/processing/input/templates        prompt_templates (optional): prompts.json of
                                            BedrockPromptTemplateGeneration; without it the
                                            environment's template is used
  /opt/ml/processing/input/config/bedrock_prompt_template
                                            inline_template: the template from config field
                                            bedrock_prompt_template, used without prompt_templates
  /opt/ml/processing/input/model_responses  model_responses (optional): recorded answers
                                            (JSONL or CSV of id, text); when given, they are
                                            replayed by record id and Bedrock is not called (a
                                            local run; a backfill on cached answers)
Output
  /opt/ml/processing/output/data            processed_data: the rows in their layout and format
                                            with <prefix><field> per answer field,
                                            <prefix>status (success, parse_error, invalid, error)
                                            and <prefix>error
  /opt/ml/processing/output/summary         analysis_summary: summary.json (rows, statuses,
                                            answer distributions, tokens, retries, seconds)
Environment
  BEDROCK_PRIMARY_MODEL_ID (required), BEDROCK_FALLBACK_MODEL_ID, BEDROCK_INFERENCE_PROFILE_ARN,
  BEDROCK_MAX_TOKENS, BEDROCK_TEMPERATURE, BEDROCK_TOP_P, BEDROCK_MAX_CONCURRENT_WORKERS,
  BEDROCK_RATE_LIMIT_PER_SECOND, BEDROCK_OUTPUT_COLUMN_PREFIX, BEDROCK_SKIP_ERROR_RECORDS,
  BEDROCK_MAX_INPUT_FIELD_LENGTH, BEDROCK_ID_FIELD (the record id; default the row number),
  AWS_REGION (the Bedrock region; default the job's)
Arguments
  --job_type, --batch-size (rows handed to the workers at a time), --max-retries (per call, for
  throttling and timeouts)

The job role needs bedrock:InvokeModel on the model (and on the inference profile when one is
set).
"""
import argparse
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from steplib import bedrock, llmrows, tables

DATA_DIR = "/opt/ml/processing/input/data"
TEMPLATES_DIR = "/opt/ml/processing/input/templates"
INLINE_DIR = "/opt/ml/processing/input/config/bedrock_prompt_template"
RESPONSES_DIR = "/opt/ml/processing/input/model_responses"
DATA_OUT = "/opt/ml/processing/output/data"
SUMMARY_OUT = "/opt/ml/processing/output/summary"


def log(msg):
    print("[bedrock_processing] " + msg, flush=True)


def client(env, responses_dir, max_retries):
    if bedrock.has_responses(responses_dir):
        log("REPLAY: answers recorded in %s stand in for %s; Bedrock is not called" % (responses_dir, env["BEDROCK_PRIMARY_MODEL_ID"]))
        return bedrock.Replay(responses_dir)
    if not env["BEDROCK_PRIMARY_MODEL_ID"].strip():
        sys.exit("BEDROCK_PRIMARY_MODEL_ID is empty (config field bedrock_primary_model_id)")
    return bedrock.Converse(env["BEDROCK_PRIMARY_MODEL_ID"].strip(), region=env.get("AWS_REGION") or None,
                            fallback_model_id=env.get("BEDROCK_FALLBACK_MODEL_ID", "").strip(),
                            inference_profile_arn=env.get("BEDROCK_INFERENCE_PROFILE_ARN", "").strip(),
                            max_tokens=int(env.get("BEDROCK_MAX_TOKENS") or 8192), temperature=float(env.get("BEDROCK_TEMPERATURE") or 1.0),
                            top_p=float(env.get("BEDROCK_TOP_P") or 0.999), max_retries=max_retries,
                            rate_per_second=float(env.get("BEDROCK_RATE_LIMIT_PER_SECOND") or 10))


def ask_all(model, requests, workers, batch_size):
    """One answer per request, in order: {"text", ...} or {"error"}."""
    def one(req):
        rid, system, user = req
        try:
            return model.complete(rid, system, user)
        except Exception as e:  # a refused call, a missing recorded answer: the row records it
            return {"error": "%s: %s" % (type(e).__name__, e)}
    out = []
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for i in range(0, len(requests), max(1, batch_size)):
            out.extend(pool.map(one, requests[i:i + batch_size]))
            log("%d of %d rows answered" % (len(out), len(requests)))
    return out


def main(input_paths, output_paths, environ_vars, job_args):
    start = time.time()
    tpl = llmrows.load_template(input_paths.get("prompt_templates"), input_paths.get("inline_template"))
    model = client(environ_vars, input_paths.get("model_responses"), job_args.max_retries)
    prefix = environ_vars.get("BEDROCK_OUTPUT_COLUMN_PREFIX") or "llm_"
    id_field = environ_vars.get("BEDROCK_ID_FIELD", "").strip()
    max_len = int(environ_vars.get("BEDROCK_MAX_INPUT_FIELD_LENGTH") or 300000)
    workers = int(environ_vars.get("BEDROCK_MAX_CONCURRENT_WORKERS") or 5)
    frames, tokens, truncated = [], {"input_tokens": 0, "output_tokens": 0}, 0
    for name, df, fmt in llmrows.read_inputs(input_paths["input_data"], job_args.job_type):
        if id_field and id_field not in df.columns:
            sys.exit("BEDROCK_ID_FIELD %r is not a column of %s (columns: %s)" % (id_field, name, list(df.columns)))
        reqs, cut = llmrows.prompts(df, tpl, id_field, max_len)
        truncated += cut
        answers = ask_all(model, reqs, workers, job_args.batch_size)
        out, used = llmrows.answer_columns(df, answers, tpl, prefix)
        for k in tokens:
            tokens[k] += used[k]
        llmrows.write_split(output_paths["processed_data"], name, out, fmt)
        frames.append((name, out))
        log("%s: %d rows, %s" % (name, len(out), out[prefix + "status"].value_counts().to_dict()))
    summary = llmrows.summarize(frames, prefix, {"model": model.model_id, "mode": "replay" if isinstance(model, bedrock.Replay) else "converse",
                                                 "template_version": tpl.get("version"), "retries": model.retries,
                                                 "rows_with_truncated_fields": truncated, "seconds": llmrows.elapsed(start)})
    summary.update(tokens)
    llmrows.write_summary(output_paths["analysis_summary"], summary)
    llmrows.check_failures(frames, prefix, tables.truthy(environ_vars.get("BEDROCK_SKIP_ERROR_RECORDS"), False))
    return summary


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Ask a Bedrock model about every row.")
    parser.add_argument("--job_type", required=True)
    parser.add_argument("--batch-size", type=int, default=10)
    parser.add_argument("--max-retries", type=int, default=3)
    args = parser.parse_args()
    env = os.environ
    environ = {
        "BEDROCK_PRIMARY_MODEL_ID": env["BEDROCK_PRIMARY_MODEL_ID"],
        "BEDROCK_FALLBACK_MODEL_ID": env.get("BEDROCK_FALLBACK_MODEL_ID", ""),
        "BEDROCK_INFERENCE_PROFILE_ARN": env.get("BEDROCK_INFERENCE_PROFILE_ARN", ""),
        "BEDROCK_MAX_TOKENS": env.get("BEDROCK_MAX_TOKENS", "8192"),
        "BEDROCK_TEMPERATURE": env.get("BEDROCK_TEMPERATURE", "1.0"),
        "BEDROCK_TOP_P": env.get("BEDROCK_TOP_P", "0.999"),
        "BEDROCK_MAX_CONCURRENT_WORKERS": env.get("BEDROCK_MAX_CONCURRENT_WORKERS", "5"),
        "BEDROCK_RATE_LIMIT_PER_SECOND": env.get("BEDROCK_RATE_LIMIT_PER_SECOND", "10"),
        "BEDROCK_OUTPUT_COLUMN_PREFIX": env.get("BEDROCK_OUTPUT_COLUMN_PREFIX", "llm_"),
        "BEDROCK_SKIP_ERROR_RECORDS": env.get("BEDROCK_SKIP_ERROR_RECORDS", "false"),
        "BEDROCK_MAX_INPUT_FIELD_LENGTH": env.get("BEDROCK_MAX_INPUT_FIELD_LENGTH", "300000"),
        "BEDROCK_ID_FIELD": env.get("BEDROCK_ID_FIELD", ""),
        "AWS_REGION": env.get("AWS_REGION", ""),
    }
    main({"input_data": DATA_DIR, "prompt_templates": TEMPLATES_DIR, "inline_template": INLINE_DIR, "model_responses": RESPONSES_DIR},
         {"processed_data": DATA_OUT, "analysis_summary": SUMMARY_OUT}, environ, args)
