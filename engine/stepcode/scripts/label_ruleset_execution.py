"""LabelRulesetExecution: label data with a validated ruleset, first matching rule by priority.

Input
  /opt/ml/processing/input/validated_ruleset   validated_ruleset: ruleset.json of LabelRulesetGeneration
  /opt/ml/processing/input/data                input_data: the rows, in split folders
                                               (<split>/<split>_processed_data.<ext>, as
                                               TabularPreprocessing writes them) or as data files
                                               in any folder depth
Output
  /opt/ml/processing/output/processed_data     processed_data: the same layout and format, each row
                                               with its label column(s) (and <label>_rule, the rule
                                               that decided it, with ENABLE_RULE_MATCH_TRACKING)
  /opt/ml/processing/output/execution_report   execution_report: execution_report.json (rows, label
                                               distribution, matches per rule, per split)
Environment
  FAIL_ON_MISSING_FIELDS (a field a rule reads is not a column: fail; else the rule is skipped),
  ENABLE_RULE_MATCH_TRACKING, PREFERRED_INPUT_FORMAT (csv, tsv or parquet for data read from
  plain files; split folders keep their format)
Arguments
  --job_type
"""
import argparse
import json
import os
import sys

from steplib import rules as R
from steplib import splits, tables

RULESET_DIR = "/opt/ml/processing/input/validated_ruleset"
DATA_DIR = "/opt/ml/processing/input/data"
DATA_OUT = "/opt/ml/processing/output/processed_data"
REPORT_OUT = "/opt/ml/processing/output/execution_report"


def log(msg):
    print("[label_ruleset_execution] " + msg, flush=True)


def load_ruleset(folder):
    for root, _, files in sorted(os.walk(folder)):
        if "ruleset.json" in files:
            with open(os.path.join(root, "ruleset.json"), encoding="utf-8") as f:
                ruleset = json.load(f)
            if not isinstance(ruleset, dict) or "rules" not in ruleset or "label_config" not in ruleset:
                sys.exit("%s is not a ruleset of LabelRulesetGeneration (label_config and rules)" % os.path.join(root, "ruleset.json"))
            return ruleset
    sys.exit("no ruleset.json under %s: connect LabelRulesetGeneration's validated_ruleset" % folder)


def usable(ruleset, columns, strict):
    """The ruleset without the rules whose fields the data lacks (strict: exit naming them)."""
    kept, missing = [], {}
    for r in ruleset["rules"]:
        absent = [f for f in R.fields_of(r["conditions"]) if f not in columns]
        if absent:
            missing[r["rule_id"]] = absent
        else:
            kept.append(r)
    if missing and strict:
        sys.exit("rules read fields the data lacks: %s (columns: %s); set fail_on_missing_fields false to skip those rules" % (missing, list(columns)))
    for rid, absent in missing.items():
        log("warning: rule %s skipped: fields %s are not columns of the data" % (rid, absent))
    return dict(ruleset, rules=kept), missing


def label_split(df, ruleset, env, name):
    rs, skipped = usable(ruleset, df.columns, tables.truthy(env.get("FAIL_ON_MISSING_FIELDS"), True))
    out, counts = R.apply(df, rs, track=tables.truthy(env.get("ENABLE_RULE_MATCH_TRACKING"), True))
    report = {"rows": int(len(out)), "rule_matches": counts, "skipped_rules": skipped, "labels": {}}
    for col in R.label_columns(ruleset["label_config"]):
        report["labels"][col] = {str(k): int(v) for k, v in out[col].value_counts(dropna=False).items()}
    log("%s: %d rows labelled, %s" % (name, len(out), report["labels"]))
    return out, report


def main(input_paths, output_paths, environ_vars, job_args):
    ruleset = load_ruleset(input_paths["validated_ruleset"])
    root, out_root = input_paths["input_data"], output_paths["processed_data"]
    reports = {}
    subdirs = [d for d in sorted(os.listdir(root)) if os.path.isdir(os.path.join(root, d)) and splits.data_files(os.path.join(root, d))] if os.path.isdir(root) else []
    if subdirs:
        for split in subdirs:
            df, fmt = splits.read_split(os.path.join(root, split))
            out, reports[split] = label_split(df, ruleset, environ_vars, split)
            os.makedirs(os.path.join(out_root, split), exist_ok=True)
            splits.write_file(out, os.path.join(out_root, split, splits.output_name(split, fmt)))
    else:
        df, files = tables.read_tables(root, log=log)
        if df is None:
            sys.exit("no data files under %s" % root)
        fmt = (environ_vars.get("PREFERRED_INPUT_FORMAT") or "").strip().lower() or splits.file_format(files[0])
        if fmt not in ("csv", "tsv", "parquet"):
            fmt = "csv"
        split = job_args.job_type
        out, reports[split] = label_split(df, ruleset, environ_vars, split)
        os.makedirs(os.path.join(out_root, split), exist_ok=True)
        splits.write_file(out, os.path.join(out_root, split, splits.output_name(split, fmt)))
    os.makedirs(output_paths["execution_report"], exist_ok=True)
    with open(os.path.join(output_paths["execution_report"], "execution_report.json"), "w", encoding="utf-8") as f:
        json.dump({"job_type": job_args.job_type, "splits": reports}, f, indent=2)
    return reports


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Label data with a validated ruleset.")
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    environ = {
        "FAIL_ON_MISSING_FIELDS": os.environ.get("FAIL_ON_MISSING_FIELDS", "true"),
        "ENABLE_RULE_MATCH_TRACKING": os.environ.get("ENABLE_RULE_MATCH_TRACKING", "true"),
        "PREFERRED_INPUT_FORMAT": os.environ.get("PREFERRED_INPUT_FORMAT", ""),
    }
    main({"validated_ruleset": RULESET_DIR, "input_data": DATA_DIR},
         {"processed_data": DATA_OUT, "execution_report": REPORT_OUT}, environ, args)
