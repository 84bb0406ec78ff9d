"""Rows in, a model's answers out as columns: what BedrockProcessing and BedrockBatchProcessing
share around the model call (steplib.bedrock makes the call).

The input keeps its layout: split folders (train/, val/, ... as TabularPreprocessing writes them)
come out as the same split folders and format; plain data files come out as one folder named
after the job type.
"""
import json
import os
import time

import pandas as pd

from steplib import bedrock, splits, tables


def log(msg):
    print("[bedrock] " + msg, flush=True)


def names(text):
    """A list from JSON (["a", "b"]) or comma-separated text."""
    text = (text or "").strip()
    if text.startswith("["):
        try:
            return [str(x) for x in json.loads(text)]
        except ValueError:
            pass
    return [x.strip() for x in text.split(",") if x.strip()]


def load_template(folder, inline_folder):
    """The prompt template: prompts.json of BedrockPromptTemplateGeneration when folder holds
    one, else the template written from the step's own config (a JSON object with
    user_prompt_template, and system_prompt, input_placeholders, output_format) in
    inline_folder."""
    for where, want in ((folder, "prompts.json"), (inline_folder, None)):
        if not where or not os.path.isdir(where):
            continue
        for root, _, files in sorted(os.walk(where)):
            for name in sorted(files):
                if (want and name != want) or not name.endswith(".json"):
                    continue
                with open(os.path.join(root, name), encoding="utf-8") as f:
                    tpl = json.load(f)
                if not tpl:
                    continue  # the config's template left empty
                if not isinstance(tpl, dict) or not tpl.get("user_prompt_template"):
                    raise SystemExit("%s has no user_prompt_template" % os.path.join(root, name))
                tpl.setdefault("input_placeholders", bedrock.placeholders(tpl["user_prompt_template"]))
                tpl.setdefault("system_prompt", "")
                tpl.setdefault("output_format", {})
                log("template %s from %s" % (tpl.get("version", "inline"), os.path.join(root, name)))
                return tpl
    raise SystemExit("no prompt template: connect BedrockPromptTemplateGeneration's prompt_templates or set config field bedrock_prompt_template")


def read_inputs(folder, job_type):
    """[(split name, frame, format)]: each split folder, else every data file as one."""
    if not os.path.isdir(folder):
        raise SystemExit("no input data folder %s" % folder)
    subdirs = [d for d in sorted(os.listdir(folder)) if os.path.isdir(os.path.join(folder, d)) and splits.data_files(os.path.join(folder, d))]
    if subdirs:
        return [(d,) + splits.read_split(os.path.join(folder, d)) for d in subdirs]
    df, files = tables.read_tables(folder, log=log)
    if df is None:
        raise SystemExit("no data files under %s" % folder)
    fmt = splits.file_format(files[0])
    return [(job_type, df, fmt if fmt in ("csv", "tsv", "parquet") else "csv")]


def prompts(df, tpl, id_field, max_len):
    """[(record id, system prompt, user prompt)] per row, and how many rows had a field cut."""
    missing = [p for p in tpl.get("input_placeholders") or [] if p not in df.columns]
    if missing:
        raise SystemExit("the prompt template reads %s, which are not columns of the data (columns: %s)" % (missing, list(df.columns)))
    out, cut = [], 0
    system = tpl.get("system_prompt", "")
    for i, row in enumerate(df.to_dict(orient="records")):
        truncated = []
        user = bedrock.render(tpl["user_prompt_template"], row, max_len, truncated)
        cut += bool(truncated)
        rid = str(row[id_field]) if id_field and id_field in row and row[id_field] is not None else str(i)
        out.append((rid, system, user))
    return out, cut


def answer_columns(df, answers, tpl, prefix):
    """df with <prefix><field> columns from each parsed answer (the output format's fields, or
    every key the answers hold when it names none), <prefix>status (success, parse_error,
    invalid or error) and <prefix>error; answers is a list aligned with df's rows of {"text",
    ...} or {"error"}."""
    fmt = tpl.get("output_format") or {}
    fields = list((fmt.get("fields") or {}).keys())
    parsed, status, errors, tokens_in, tokens_out = [], [], [], 0, 0
    for a in answers:
        if "error" in a:
            parsed.append({})
            status.append("error")
            errors.append(str(a["error"])[:500])
            continue
        tokens_in += int(a.get("input_tokens") or 0)
        tokens_out += int(a.get("output_tokens") or 0)
        obj = bedrock.extract_json(a.get("text"))
        problems = bedrock.check_answer(obj, fmt) if fields else ([] if obj is not None else ["the answer holds no JSON object"])
        parsed.append(obj or {})
        status.append("parse_error" if obj is None else "invalid" if problems else "success")
        errors.append("; ".join(problems))
    if not fields:
        for obj in parsed:
            fields += [k for k in obj if k not in fields]
    out = df.reset_index(drop=True).copy()
    for f in fields:
        out[prefix + f] = [bedrock.cell(obj.get(f)) for obj in parsed]
    out[prefix + "status"] = status
    out[prefix + "error"] = errors
    return out, {"input_tokens": tokens_in, "output_tokens": tokens_out}


def write_split(out_root, name, df, fmt):
    os.makedirs(os.path.join(out_root, name), exist_ok=True)
    path = os.path.join(out_root, name, splits.output_name(name, fmt))
    splits.write_file(df, path)
    return path


def summarize(frames, prefix, extra):
    """The analysis summary: rows, status counts, the answer fields' value counts (for a few
    distinct values), per split."""
    out = {"splits": {}}
    out.update(extra)
    for name, df in frames:
        s = {"rows": int(len(df)), "status": {str(k): int(v) for k, v in df[prefix + "status"].value_counts().items()}}
        ok = int((df[prefix + "status"] == "success").sum())
        s["success_rate"] = ok / float(len(df)) if len(df) else 0.0
        dist = {}
        for c in df.columns:
            if c.startswith(prefix) and c not in (prefix + "status", prefix + "error"):
                vc = df[c].dropna().astype(str).value_counts()
                if 0 < len(vc) <= 50:
                    dist[c] = {str(k): int(v) for k, v in vc.items()}
        s["distributions"] = dist
        out["splits"][name] = s
    return out


def write_summary(folder, summary):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2, sort_keys=True)


def check_failures(frames, prefix, skip_errors):
    """Exits when a call failed and errors are not to be skipped."""
    failed = sum(int((df[prefix + "status"] == "error").sum()) for _, df in frames)
    if failed and not skip_errors:
        first = next(df.loc[df[prefix + "status"] == "error", prefix + "error"].iloc[0] for _, df in frames if (df[prefix + "status"] == "error").any())
        raise SystemExit("%d model call(s) failed (first: %s); set bedrock_skip_error_records true to keep the rows with llm_status error" % (failed, first))


def elapsed(start):
    return round(time.time() - start, 3)
