"""Score a data set with a model of LightGBMTraining and write the predictions, without metrics
(LightGBMModelInference).

Needs lightgbm (3.3 or later), numpy and pandas (pyarrow for Parquet) in the image (the SageMaker
PyTorch and scikit-learn images do not ship lightgbm: config field image_uri).

Contract:
  inputs   /opt/ml/processing/input/model       model.tar.gz of LightGBMTraining (or its files):
                                                lightgbm_model.txt and model_config.json
           /opt/ml/processing/input/eval_data   rows to score (CSV, TSV or Parquet, any sub-folder)
  outputs  /opt/ml/processing/output/eval       predictions.csv (.parquet, .json): every input column,
                                                then prob_class_*
  env      ID_FIELD (required: the rows keep their id); LABEL_FIELD (optional: passed through, and
           checked against the model's classes when present); OUTPUT_FORMAT (csv | parquet | json),
           JSON_ORIENT (pandas orient of the JSON output)
  args     --job_type
"""
import argparse
import glob
import json
import math
import os
import tarfile
import tempfile

import numpy as np
import pandas as pd

try:
    import lightgbm as lgb
except ImportError as e:  # the image lacks it: say so instead of a traceback
    raise SystemExit("lightgbm is not installed in this image (%s): run the step in an image with lightgbm>=3.3 (config field image_uri)" % e)

MODEL_DIR = "/opt/ml/processing/input/model"
EVAL_DATA_DIR = "/opt/ml/processing/input/eval_data"
EVAL_OUT = "/opt/ml/processing/output/eval"


def log(msg):
    print(msg, flush=True)


def model_files(folder):
    """The model's files: its model.tar.gz unpacked into a scratch folder, or the folder itself."""
    tars = sorted(glob.glob(os.path.join(folder, "**", "model.tar.gz"), recursive=True))
    if not tars:
        return folder
    scratch = tempfile.mkdtemp(prefix="model-")
    root = os.path.realpath(scratch)
    with tarfile.open(tars[0]) as t:
        for m in t.getmembers():
            target = os.path.realpath(os.path.join(scratch, m.name))
            if m.issym() or m.islnk() or not (target == root or target.startswith(root + os.sep)):
                raise SystemExit("refusing archive member %r of %s" % (m.name, tars[0]))
        t.extractall(scratch)
    return scratch


def find_model(folder):
    for path in sorted(glob.glob(os.path.join(folder, "**", "model_config.json"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
        model_file = os.path.join(os.path.dirname(path), config.get("model_file", "lightgbm_model.txt"))
        if config.get("framework") == "lightgbm" and os.path.exists(model_file):
            return config, model_file
    raise SystemExit("no LightGBMTraining model (model_config.json + lightgbm_model.txt) under %s" % folder)


def read_files(folder):
    files = []
    for ext in ("csv", "tsv", "parquet"):
        files += glob.glob(os.path.join(folder, "**", "*." + ext), recursive=True)
    if not files:
        raise SystemExit("no CSV, TSV or Parquet files under %s" % folder)
    return sorted(files)


def read_file(path):
    if path.endswith(".parquet"):
        return pd.read_parquet(path)
    return pd.read_csv(path, sep="\t" if path.endswith(".tsv") else ",")


def category_key(v):
    """One spelling per category or label value: 1, 1.0 and "1" are the same; missing is ""."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    s = str(v).strip()
    try:
        f = float(s)
        if f.is_integer():
            return str(int(f))
    except ValueError:
        pass
    return s


def feature_matrix(config, df):
    """LightGBM's input, as LightGBMTraining built it: numeric fields imputed, categorical fields
    as their training codes (native) or risk values (a value already mapped is kept)."""
    missing = [f for f in config["feature_columns"] if f not in df.columns]
    if missing:
        raise SystemExit("the data lacks the model's field(s) %s" % missing)
    cols = []
    for f in config["feature_columns"]:
        mapping = config.get("categorical_mappings", {}).get(f)
        table = config.get("risk_tables", {}).get(f)
        if mapping is not None:
            cols.append(df[f].map(lambda v: mapping.get(category_key(v), np.nan)).astype("float64").to_numpy())
        elif table and not pd.api.types.is_numeric_dtype(df[f]):
            bins, default = table.get("bins", {}), float(table.get("default_bin", 0.0))
            cols.append(df[f].map(lambda v: bins.get(category_key(v), default)).astype("float64").to_numpy())
        else:
            x = pd.to_numeric(df[f], errors="coerce").astype("float64")
            impute = config.get("impute_dict", {}).get(f)
            cols.append((x if impute is None else x.fillna(impute)).to_numpy())
    return np.stack(cols, axis=1) if cols else np.zeros((len(df), 0))


def write(df, folder, fmt, orient):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "predictions." + fmt)
    if fmt == "csv":
        df.to_csv(path, index=False)
    elif fmt == "parquet":
        try:
            df.to_parquet(path, index=False)
        except ImportError as e:
            raise SystemExit("OUTPUT_FORMAT=parquet needs pyarrow or fastparquet: %s" % e)
    else:
        df.to_json(path, orient=orient, **({"index": False} if orient in ("split", "table") else {}))
    return path


def main(input_paths, output_paths, environ_vars, job_args):
    fmt, orient = environ_vars["OUTPUT_FORMAT"], environ_vars["JSON_ORIENT"]
    if fmt not in ("csv", "parquet", "json"):
        raise SystemExit("OUTPUT_FORMAT=%r: want csv, parquet or json" % fmt)
    config, model_file = find_model(model_files(input_paths["model_input"]))
    booster = lgb.Booster(model_file=model_file)
    n_classes = len(config["classes"])
    id_field, label = environ_vars["ID_FIELD"], environ_vars["LABEL_FIELD"]
    frames = []
    for path in read_files(input_paths["processed_data"]):
        df = read_file(path)
        if id_field not in df.columns:
            raise SystemExit("ID_FIELD %r is not a column of %s (columns: %s)" % (id_field, path, list(df.columns)))
        if label and label in df.columns:
            unknown = sorted(set(category_key(v) for v in df[label].dropna()) - set(config["classes"]))
            if unknown:
                log("warning: %s has labels %s that are not classes of the model %s" % (path, unknown[:10], config["classes"]))
        raw = np.asarray(booster.predict(feature_matrix(config, df)), dtype="float64")
        prob = np.stack([1 - raw, raw], axis=1) if raw.ndim == 1 else raw.reshape(len(df), n_classes)
        out = df.copy()
        for i in range(prob.shape[1]):
            out["prob_class_%d" % i] = prob[:, i]
        frames.append(out)
        log("scored %d rows of %s" % (len(df), path))
    result = pd.concat(frames, ignore_index=True)
    path = write(result, output_paths["eval_output"], fmt, orient)
    log("%s: %d rows, %d columns (%s)" % (path, len(result), len(result.columns), job_args.job_type))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    env = os.environ
    environ_vars = {
        "ID_FIELD": env["ID_FIELD"],
        "LABEL_FIELD": env.get("LABEL_FIELD", ""),
        "OUTPUT_FORMAT": env.get("OUTPUT_FORMAT", "csv").strip().lower(),
        "JSON_ORIENT": env.get("JSON_ORIENT", "records"),
    }
    main({"model_input": MODEL_DIR, "processed_data": EVAL_DATA_DIR}, {"eval_output": EVAL_OUT}, environ_vars, args)
