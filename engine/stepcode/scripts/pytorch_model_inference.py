"""Score a data set with a model of PyTorchTraining and write the predictions, without metrics
(PyTorchModelInference).

Runs in the SageMaker PyTorch container (FrameworkProcessor); needs torch, numpy and pandas
(pyarrow for Parquet).

Contract:
  inputs   /opt/ml/processing/input/model       model.tar.gz of PyTorchTraining (or its files):
                                                model.pt (TorchScript) and model_config.json
           /opt/ml/processing/input/eval_data   rows to score (CSV, TSV or Parquet, any sub-folder)
  outputs  /opt/ml/processing/output/eval       predictions.csv (.parquet, .json): every input column,
                                                then prob_class_* (and emb_* in embedding mode)
  env      ID_FIELD (required: the rows keep their id); LABEL_FIELD (optional: passed through, and
           checked against the model's classes when present); OUTPUT_FORMAT (csv | parquet | json),
           JSON_ORIENT (pandas orient of the JSON output), DEVICE (auto | cpu | cuda),
           EMBEDDING_MODE (also write the network's last hidden layer as emb_0..emb_<k>, features for
           a downstream model)
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
import torch

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
        weights = os.path.join(os.path.dirname(path), config.get("model_file", "model.pt"))
        if config.get("framework") == "pytorch" and os.path.exists(weights):
            return config, weights
    raise SystemExit("no PyTorchTraining model (model_config.json + model.pt) under %s" % folder)


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
    """The network's input: numeric fields as floats (NaN when missing; a risk-mapped field via its
    table when the value is a category), embedded fields as vocabulary indices (0: unseen)."""
    missing = [f for f in config["numeric_fields"] + config["embedding_fields"] if f not in df.columns]
    if missing:
        raise SystemExit("the data lacks the model's field(s) %s" % missing)
    cols = []
    for f in config["numeric_fields"]:
        table = config.get("risk_tables", {}).get(f)
        if table:
            bins, default = table.get("bins", {}), float(table.get("default_bin", 0.0))
            num = pd.to_numeric(df[f], errors="coerce")
            mapped = df[f].map(lambda v: bins.get(category_key(v), bins.get(str(v))))
            cols.append(mapped.where(mapped.notna(), num).fillna(default).astype("float64").to_numpy())
        else:
            cols.append(pd.to_numeric(df[f], errors="coerce").astype("float64").to_numpy())
    for f in config["embedding_fields"]:
        index = {v: i + 1 for i, v in enumerate(config["vocabularies"][f])}
        cols.append(df[f].map(lambda v: index.get(category_key(v), 0)).to_numpy(dtype="float64"))
    if not cols:
        return np.zeros((len(df), 0), dtype="float32")
    return np.stack(cols, axis=1).astype("float32")


def choose_device(name):
    if name == "cuda" or (name == "auto" and torch.cuda.is_available()):
        if not torch.cuda.is_available():
            raise SystemExit("DEVICE=cuda but no GPU is visible")
        return torch.device("cuda")
    return torch.device("cpu")


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
    config, weights = find_model(model_files(input_paths["model_input"]))
    device = choose_device(environ_vars["DEVICE"])
    model = torch.jit.load(weights, map_location=device)
    model.eval()
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
        x = torch.from_numpy(feature_matrix(config, df)).to(device)
        with torch.no_grad():
            prob = torch.softmax(model(x), 1).cpu().numpy()
            emb = model.embed(x).cpu().numpy() if environ_vars["EMBEDDING_MODE"] else None
        out = df.copy()
        for i in range(prob.shape[1]):
            out["prob_class_%d" % i] = prob[:, i]
        if emb is not None:
            for j in range(emb.shape[1]):
                out["emb_%d" % j] = emb[:, j]
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
        "DEVICE": env.get("DEVICE", "auto"),
        "EMBEDDING_MODE": env.get("EMBEDDING_MODE", "false").strip().lower() in ("1", "true", "yes", "on"),
    }
    main({"model_input": MODEL_DIR, "processed_data": EVAL_DATA_DIR}, {"eval_output": EVAL_OUT}, environ_vars, args)
