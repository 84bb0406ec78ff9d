"""RiskTableMapping: replace categorical values by their smoothed label rate (risk tables).

Inputs
  /opt/ml/processing/input/data             input_data: split folders as TabularPreprocessing
                                            writes them (<split>/<split>_processed_data.<csv|tsv|
                                            parquet>; every data file of a split folder is read)
  /opt/ml/processing/input/config           hyperparameters_s3_uri, optional:
                                            hyperparameters.json whose label_name, cat_field_list,
                                            smooth_factor, count_threshold, max_unique_threshold
                                            override the environment
  /opt/ml/processing/input/model_artifacts  model_artifacts_input: risk_table_map.pkl from the
                                            training job (required by every other job type); all
                                            of its files are passed on to model_artifacts_output
Outputs
  /opt/ml/processing/output/data            processed_data: the same layout and format, mapped
  /opt/ml/processing/output/model_artifacts model_artifacts_output: risk_table_map.pkl (a pickled
                                            {column: {"varName", "type": "categorical", "mode",
                                            "default_bin", "bins": {value: risk}}}),
                                            hyperparameters.json (the settings used), and the
                                            files of model_artifacts_input
Environment
  LABEL_FIELD, CAT_FIELD_LIST (comma-separated; empty: every non-numeric column but the
  label), SMOOTH_FACTOR, COUNT_THRESHOLD, MAX_UNIQUE_THRESHOLD, ENABLE_TRUE_STREAMING (file by
  file), MAX_WORKERS (parallel files when streaming, 0 = auto).

The risk of a value is the share of its training rows whose label is positive (not 0; for a
multiclass label, any class but 0), shrunk towards the overall rate:
(n * rate + m * prior) / (n + m) with m = SMOOTH_FACTOR x training rows; a value seen fewer
than COUNT_THRESHOLD times, or not seen at all, gets the prior. A column with at least
MAX_UNIQUE_THRESHOLD distinct values is left as it is.
"""
import argparse
import json
import os
import pickle
import sys

import pandas as pd

from steplib.splits import copy_artifacts, data_files, find_splits, read_file, transform_split

INPUT_DIR = "/opt/ml/processing/input/data"
CONFIG_DIR = "/opt/ml/processing/input/config"
ARTIFACTS_IN_DIR = "/opt/ml/processing/input/model_artifacts"
DATA_OUT_DIR = "/opt/ml/processing/output/data"
ARTIFACTS_OUT_DIR = "/opt/ml/processing/output/model_artifacts"

RISK_TABLE_FILE = "risk_table_map.pkl"
HYPERPARAMETERS_FILE = "hyperparameters.json"


def log(msg):
    print("[risk_table_mapping] " + msg, flush=True)


def settings(environ_vars, config_dir):
    """The environment's settings, overridden by hyperparameters.json when mounted."""
    def text(name, default):
        v = environ_vars.get(name)
        return default if v is None or str(v).strip() == "" else str(v).strip()

    s = {
        "label_name": text("LABEL_FIELD", ""),
        "cat_field_list": [c.strip() for c in text("CAT_FIELD_LIST", "").split(",") if c.strip()],
        "smooth_factor": float(text("SMOOTH_FACTOR", "0.01")),
        "count_threshold": int(text("COUNT_THRESHOLD", "5")),
        "max_unique_threshold": int(text("MAX_UNIQUE_THRESHOLD", "100")),
    }
    path = os.path.join(config_dir, HYPERPARAMETERS_FILE)
    if config_dir and os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            hp = json.load(f)
        for k in s:
            if k in hp and hp[k] not in (None, ""):
                s[k] = hp[k]
        if isinstance(s["cat_field_list"], str):
            s["cat_field_list"] = [c.strip() for c in s["cat_field_list"].split(",") if c.strip()]
        log("settings from %s" % path)
    if not s["label_name"]:
        sys.exit("LABEL_FIELD (or label_name in hyperparameters.json) is required")
    return s


def positive(labels):
    y = pd.to_numeric(labels, errors="coerce")
    return (y != 0).astype(float).where(y.notna())


def fit(train, s):
    label = s["label_name"]
    if label not in train.columns:
        sys.exit("label %r is not a column of train (columns %s)" % (label, list(train.columns)))
    rows = train[train[label].notna()]
    pos = positive(rows[label])
    prior = float(pos.mean()) if len(pos.dropna()) else 0.0
    fields = s["cat_field_list"] or [c for c in train.columns if c != label and not pd.api.types.is_numeric_dtype(train[c])]
    m = s["smooth_factor"] * len(rows)
    tables = {}
    for col in fields:
        if col not in rows.columns:
            log("categorical field %s is not in the data; skipped" % col)
            continue
        distinct = rows[col].nunique()
        if distinct >= s["max_unique_threshold"]:
            log("%s has %d distinct values (>= %d); left as it is" % (col, distinct, s["max_unique_threshold"]))
            continue
        grouped = pd.DataFrame({"v": rows[col], "p": pos}).dropna(subset=["v"]).groupby("v")["p"].agg(["count", "mean"])
        bins = {}
        for value, (n, rate) in grouped.iterrows():
            bins[value] = float((n * rate + m * prior) / (n + m)) if n >= s["count_threshold"] and (n + m) > 0 else prior
        mode = "numeric" if pd.api.types.is_numeric_dtype(rows[col]) else "categorical"
        tables[col] = {"varName": col, "type": "categorical", "mode": mode, "default_bin": prior, "bins": bins}
    return tables


def apply(df, tables):
    df = df.copy()
    for col, t in tables.items():
        if col not in df.columns:
            continue
        bins = t["bins"]
        as_text = {str(k): v for k, v in bins.items()}
        df[col] = df[col].map(lambda v: bins.get(v, as_text.get(str(v), t["default_bin"])) if pd.notna(v) else t["default_bin"]).astype(float)
    return df


def main(input_paths, output_paths, environ_vars, job_args):
    job_type = job_args.job_type
    s = settings(environ_vars, input_paths.get("hyperparameters_s3_uri", ""))
    streaming = str(environ_vars.get("ENABLE_TRUE_STREAMING") or "").strip().lower() == "true"
    workers = int(environ_vars.get("MAX_WORKERS") or 0)
    splits = find_splits(input_paths["input_data"], job_type)
    data_out, art_out = output_paths["processed_data"], output_paths["model_artifacts_output"]
    art_in = input_paths["model_artifacts_input"]
    os.makedirs(art_out, exist_ok=True)
    copied = copy_artifacts(art_in, art_out)
    if copied:
        log("passed on %d artifact file(s) from %s" % (copied, art_in))

    if job_type == "training":
        train = pd.concat([read_file(f) for f in data_files(splits["train"])], ignore_index=True)
        tables = fit(train, s)
        del train
        with open(os.path.join(art_out, RISK_TABLE_FILE), "wb") as f:
            pickle.dump(tables, f)
        with open(os.path.join(art_out, HYPERPARAMETERS_FILE), "w", encoding="utf-8") as f:
            json.dump(s, f, indent=2)
        log("fitted risk tables for %s" % (sorted(tables) or "no column"))
    else:
        path = os.path.join(art_in, RISK_TABLE_FILE) if art_in else ""
        if not path or not os.path.isfile(path):
            sys.exit("job type %s needs the training job's %s in %s" % (job_type, RISK_TABLE_FILE, art_in))
        with open(path, "rb") as f:
            tables = pickle.load(f)
        log("loaded risk tables for %s" % sorted(tables))

    counts = {}
    for split, folder in splits.items():
        counts[split] = transform_split(folder, data_out, split, lambda df: apply(df, tables), streaming, workers)
        log("%s: %d rows mapped" % (split, counts[split]))
    return counts


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Map categorical values to smoothed label rates.")
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    environ = {
        "LABEL_FIELD": os.environ.get("LABEL_FIELD", ""),
        "CAT_FIELD_LIST": os.environ.get("CAT_FIELD_LIST", ""),
        "SMOOTH_FACTOR": os.environ.get("SMOOTH_FACTOR", ""),
        "COUNT_THRESHOLD": os.environ.get("COUNT_THRESHOLD", ""),
        "MAX_UNIQUE_THRESHOLD": os.environ.get("MAX_UNIQUE_THRESHOLD", ""),
        "ENABLE_TRUE_STREAMING": os.environ.get("ENABLE_TRUE_STREAMING", ""),
        "MAX_WORKERS": os.environ.get("MAX_WORKERS", ""),
    }
    main({"input_data": INPUT_DIR, "hyperparameters_s3_uri": CONFIG_DIR, "model_artifacts_input": ARTIFACTS_IN_DIR},
         {"processed_data": DATA_OUT_DIR, "model_artifacts_output": ARTIFACTS_OUT_DIR}, environ, args)
