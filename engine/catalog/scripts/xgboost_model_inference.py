"""XGBoostModelInference: score a data set with a trained XGBoost model and write the predictions
(no metrics).

Inputs
  /opt/ml/processing/input/model      model.tar.gz from XGBoostTraining or XGBoostTuning (or its
                                      unpacked files)
  /opt/ml/processing/input/eval_data  the data: *.csv, *.tsv, *.json(l), *.parquet (optionally
                                      .gz, in any folder depth, or inside a .tar.gz)
Output
  /opt/ml/processing/output/eval      predictions.<csv|parquet|json>: the id, the label when the
                                      data has it, prob_class_<i> (or prediction for a regression
                                      model) for every row, in the input's row order
Environment
  ID_FIELD (required; a data set without that column is scored without ids), LABEL_FIELD
  (passed through when present), OUTPUT_FORMAT (csv, parquet or json), JSON_ORIENT (pandas
  orient of JSON output: records, index, values, split or table)
Arguments
  --job_type   the split being scored (logged)
"""
import argparse
import gzip
import io
import json
import math
import os
import sys
import tarfile
import tempfile

import numpy as np
import pandas as pd
import xgboost as xgb

MODEL_DIR = "/opt/ml/processing/input/model"
EVAL_DATA_DIR = "/opt/ml/processing/input/eval_data"
EVAL_OUTPUT_DIR = "/opt/ml/processing/output/eval"

DATA_SUFFIXES = (".csv", ".tsv", ".json", ".jsonl", ".parquet", ".pq")
MISSING_CATEGORY = "__missing__"


def log(msg):
    print("[xgboost_model_inference] " + msg, flush=True)


def fail(msg):
    print("[xgboost_model_inference] ERROR: " + msg, file=sys.stderr, flush=True)
    sys.exit(1)


def flag(value, default=False):
    v = str(value or "").strip().lower()
    return default if v == "" else v in ("true", "1", "yes")


def unpack_archives(folder):
    """Unpacks every .tar.gz below folder into a scratch directory; returns the folders to search."""
    roots = [folder]
    for root, _, files in os.walk(folder):
        for name in sorted(files):
            if name.endswith((".tar.gz", ".tgz")):
                dst = tempfile.mkdtemp(prefix="unpacked-")
                with tarfile.open(os.path.join(root, name)) as tar:
                    tar.extractall(dst, members=[m for m in tar.getmembers() if not (m.name.startswith("/") or ".." in m.name.split("/"))])
                roots.append(dst)
    return roots


def find_model_dir(folder):
    for root in unpack_archives(folder):
        for r, _, files in os.walk(root):
            if "xgboost_model.json" in files:
                return r
    fail("no xgboost_model.json in %s (nor in a model.tar.gz there)" % folder)


def read_data(folder):
    files = []
    for root in unpack_archives(folder):
        for r, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for n in sorted(names):
                base = n[:-3] if n.lower().endswith(".gz") else n
                if not n.startswith(".") and base.lower().endswith(DATA_SUFFIXES):
                    files.append(os.path.join(r, n))
    if not files:
        fail("no data files in %s" % folder)
    frames = []
    for p in files:
        lower = p.lower()
        base = lower[:-3] if lower.endswith(".gz") else lower
        if base.endswith((".parquet", ".pq")):
            frames.append(pd.read_parquet(p))
            continue
        with (gzip.open(p, "rb") if lower.endswith(".gz") else open(p, "rb")) as f:
            raw = f.read()
        if base.endswith((".json", ".jsonl")):
            text = raw.decode("utf-8").lstrip()
            frames.append(pd.read_json(io.StringIO(text), lines=base.endswith(".jsonl") or not text.startswith("[")))
        else:
            frames.append(pd.read_csv(io.BytesIO(raw), sep="\t" if base.endswith(".tsv") else ","))
    log("read %d file(s) from %s" % (len(files), folder))
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def category_key(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return MISSING_CATEGORY
    if isinstance(v, float) and v == int(v):
        return str(int(v))
    return str(v)


class Model(object):
    def __init__(self, folder):
        d = find_model_dir(folder)
        self.booster = xgb.Booster()
        self.booster.load_model(os.path.join(d, "xgboost_model.json"))
        with open(os.path.join(d, "hyperparameters.json"), encoding="utf-8") as f:
            self.hp = json.load(f)
        self.columns = [str(c) for c in self.hp["feature_columns"]]
        self.cat_fields = set(self.hp.get("cat_field_list") or [])
        self.risk = self._json(d, "risk_table_map.json")
        self.impute = self._json(d, "impute_dict.json")
        self.task = self.hp.get("task", "binary")
        self.labels = [str(c) for c in self.hp.get("class_labels") or []]
        log("model from %s: %s, %d features" % (d, self.task, len(self.columns)))

    @staticmethod
    def _json(d, name):
        p = os.path.join(d, name)
        if not os.path.isfile(p):
            return {}
        with open(p, encoding="utf-8") as f:
            return json.load(f)

    def predict(self, df):
        missing = [c for c in self.columns if c not in df.columns]
        if missing:
            fail("the data lacks the model's feature column(s) %s" % ", ".join(missing))
        x = pd.DataFrame(index=df.index)
        for c in self.columns:
            if c in self.cat_fields:
                t = self.risk.get(c) or {"bins": {}, "default_bin": 0.0}
                x[c] = df[c].map(category_key).map(t["bins"]).fillna(t["default_bin"]).astype(float)
            else:
                x[c] = pd.to_numeric(df[c], errors="coerce").fillna(self.impute.get(c, 0.0)).astype(float)
        raw = self.booster.predict(xgb.DMatrix(x.values, feature_names=self.columns))
        if self.task == "regression":
            return np.asarray(raw, dtype=float)
        return np.column_stack([1.0 - raw, raw]) if raw.ndim == 1 else raw


def main(input_paths, output_paths, environ_vars, job_args):
    id_field, label = environ_vars["ID_FIELD"], environ_vars.get("LABEL_FIELD", "")
    fmt = (environ_vars.get("OUTPUT_FORMAT") or "csv").lower()
    orient = environ_vars.get("JSON_ORIENT") or "records"
    if fmt not in ("csv", "parquet", "json"):
        fail("OUTPUT_FORMAT %s: want csv, parquet or json" % fmt)
    model = Model(input_paths["model_input"])
    df = read_data(input_paths["processed_data"])
    log("job type %s: %d rows" % (job_args.job_type, len(df)))
    scores = model.predict(df)
    preds = pd.DataFrame()
    if id_field in df.columns:
        preds[id_field] = df[id_field].values
    else:
        log("id column %s is not in the data; predictions carry no id" % id_field)
    if label and label in df.columns:
        preds[label] = df[label].values
    if model.task == "regression":
        preds["prediction"] = scores
    else:
        for i in range(scores.shape[1]):
            preds["prob_class_%d" % i] = scores[:, i]
    out_dir = output_paths["eval_output"]
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "predictions." + fmt)
    if fmt == "csv":
        preds.to_csv(path, index=False)
    elif fmt == "json":
        preds.to_json(path, orient=orient, lines=orient == "records")
    else:
        try:
            preds.to_parquet(path, index=False)
        except ImportError as e:
            fail("OUTPUT_FORMAT parquet needs pyarrow or fastparquet in the image: %s" % e)
    log("wrote %d predictions to %s" % (len(preds), path))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    env = {
        "ID_FIELD": os.environ.get("ID_FIELD", "id"),
        "LABEL_FIELD": os.environ.get("LABEL_FIELD", ""),
        "OUTPUT_FORMAT": os.environ.get("OUTPUT_FORMAT", "csv"),
        "JSON_ORIENT": os.environ.get("JSON_ORIENT", "records"),
    }
    main({"model_input": MODEL_DIR, "processed_data": EVAL_DATA_DIR}, {"eval_output": EVAL_OUTPUT_DIR}, env, args)
