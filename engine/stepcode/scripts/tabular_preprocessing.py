"""TabularPreprocessing: combine data shards, clean the label, split the rows.

Inputs
  /opt/ml/processing/input/data            DATA: shards in any folder depth: *.csv, *.tsv,
                                           *.json / *.jsonl (records or JSON lines), *.parquet,
                                           each optionally .gz, and header-less part-* files
  /opt/ml/processing/input/data_secondary  optional DATA_SECONDARY: shards with DATA's columns,
                                           appended (files with other columns are skipped)
  /opt/ml/processing/input/signature       optional SIGNATURE: a file holding the column names,
                                           comma- or newline-separated; CSV/TSV shards whose
                                           first row is not that list are read as header-less
Output
  /opt/ml/processing/output                --job_type training: train/, val/ and test/, each
                                           holding <split>_processed_data.<csv|tsv|parquet>;
                                           any other job type: <job_type>/<job_type>_processed_data.<ext>
Environment
  LABEL_FIELD (rows without a label are dropped; text labels become class indices in sorted
  order), TRAIN_RATIO, TEST_VAL_RATIO (stratified by label), OUTPUT_FORMAT (CSV, TSV, Parquet),
  MAX_WORKERS (parallel shard readers, 0 = auto), BATCH_SIZE (frames concatenated at once),
  OPTIMIZE_MEMORY (downcast numbers), STREAMING_BATCH_SIZE (shards per batch, 0 = all at once),
  ENABLE_TRUE_STREAMING (one shard in memory at a time; output files are appended to).
"""
import argparse
import csv
import gzip
import io
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from steplib.frames import concat, optimize

DATA_DIR = "/opt/ml/processing/input/data"
SECONDARY_DIR = "/opt/ml/processing/input/data_secondary"
SIGNATURE_DIR = "/opt/ml/processing/input/signature"
OUTPUT_DIR = "/opt/ml/processing/output"

DATA_SUFFIXES = (".csv", ".tsv", ".json", ".jsonl", ".parquet", ".pq")
SEED = 42


def log(msg):
    print("[tabular_preprocessing] " + msg, flush=True)


def env_bool(environ, name, default=False):
    raw = str(environ.get(name, "")).strip().lower()
    return default if raw == "" else raw in ("true", "1", "yes", "y")


def env_num(environ, name, default, kind=float):
    raw = str(environ.get(name, "")).strip()
    return kind(raw) if raw else default


def base_name(path):
    name = os.path.basename(path).lower()
    return name[:-3] if name.endswith(".gz") else name


def is_shard(path):
    name = base_name(path)
    return name.endswith(DATA_SUFFIXES) or name.startswith("part-")


def find_shards(folder):
    out = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        out.extend(os.path.join(root, f) for f in sorted(files) if not f.startswith(".") and is_shard(os.path.join(root, f)))
    return out


def read_signature(folder):
    if not os.path.isdir(folder):
        return None
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.isfile(path) and not name.startswith("."):
            with open(path, encoding="utf-8") as f:
                cols = [c.strip() for c in f.read().replace("\n", ",").split(",") if c.strip()]
            if cols:
                return cols
    return None


def open_text(path):
    return gzip.open(path, "rt", encoding="utf-8", newline="") if path.lower().endswith(".gz") else open(path, encoding="utf-8", newline="")


def read_shard(path, signature=None):
    """Read one shard into a DataFrame (strings stay strings; numbers are parsed)."""
    name = base_name(path)
    if name.endswith((".parquet", ".pq")):
        if path.lower().endswith(".gz"):
            with gzip.open(path, "rb") as f:
                return pd.read_parquet(io.BytesIO(f.read()))
        return pd.read_parquet(path)
    with open_text(path) as f:
        text = f.read()
    if not text.strip():
        return pd.DataFrame(columns=signature or [])
    if name.endswith((".json", ".jsonl")) or text.lstrip()[:1] in ("{", "["):
        stripped = text.lstrip()
        if stripped.startswith("["):
            return pd.json_normalize(json.loads(stripped))
        return pd.DataFrame([json.loads(line) for line in text.splitlines() if line.strip()])
    first = text.splitlines()[0]
    sep = "\t" if name.endswith(".tsv") or (first.count("\t") > first.count(",")) else ","
    header = next(csv.reader([first], delimiter=sep))
    if signature and [h.strip() for h in header] != signature:
        return pd.read_csv(io.StringIO(text), sep=sep, header=None, names=signature)
    return pd.read_csv(io.StringIO(text), sep=sep)


def label_mapping(values):
    """None when every label is numeric, else text label -> class index (sorted)."""
    present = pd.Series(values).dropna()
    present = present[present.astype(str).str.strip() != ""]
    if pd.to_numeric(present, errors="coerce").notna().all():
        return None
    return {v: i for i, v in enumerate(sorted(present.astype(str).unique()))}


def clean_label(df, label, mapping):
    if mapping is not None:
        df[label] = df[label].map(lambda v: mapping.get(str(v)) if pd.notna(v) else None)
    df[label] = pd.to_numeric(df[label], errors="coerce")
    df = df.dropna(subset=[label]).copy()
    df[label] = df[label].astype(int)
    return df


def split_frame(df, label, train_ratio, test_val_ratio):
    """Stratified train / val / test split (stratification dropped when a class is too small)."""
    def strat(part):
        if not label or part[label].nunique() < 2 or part[label].value_counts().min() < 2:
            return None
        return part[label]

    if len(df) < 3:
        return {"train": df, "val": df.iloc[0:0], "test": df.iloc[0:0]}
    train, hold = train_test_split(df, train_size=train_ratio, random_state=SEED, stratify=strat(df)) if 0 < train_ratio < 1 else (df, df.iloc[0:0])
    if len(hold) >= 2 and 0 < test_val_ratio < 1:
        test, val = train_test_split(hold, train_size=test_val_ratio, random_state=SEED, stratify=strat(hold))
    elif test_val_ratio >= 1:
        test, val = hold, hold.iloc[0:0]
    else:
        test, val = hold.iloc[0:0], hold
    return {"train": train, "val": val, "test": test}


def assign_splits(df, label, train_ratio, test_val_ratio, rng):
    """Streaming split: a random draw per row (stratified in expectation)."""
    u = rng.random(len(df))
    names = np.where(u < train_ratio, "train", np.where(u < train_ratio + (1 - train_ratio) * test_val_ratio, "test", "val"))
    return {s: df[names == s] for s in ("train", "val", "test")}


def extension(fmt):
    return {"csv": "csv", "tsv": "tsv", "parquet": "parquet"}[fmt.lower()]


def write_split(out_dir, split, df, fmt, append=False, part=0):
    folder = os.path.join(out_dir, split)
    os.makedirs(folder, exist_ok=True)
    ext = extension(fmt)
    if ext == "parquet":
        name = "%s_processed_data.parquet" % split if not append else "%s_processed_data_part-%05d.parquet" % (split, part)
        df.to_parquet(os.path.join(folder, name), index=False)
        return
    path = os.path.join(folder, "%s_processed_data.%s" % (split, ext))
    exists = append and os.path.exists(path)
    df.to_csv(path, sep="\t" if ext == "tsv" else ",", index=False, mode="a" if exists else "w", header=not exists)


def load_all(shards, signature, workers, batch_size, streaming_batch):
    def read(p):
        try:
            return read_shard(p, signature)
        except Exception as e:  # a shard that cannot be read fails the job with its name
            raise RuntimeError("cannot read shard %s: %s" % (p, e))

    workers = workers or min(8, os.cpu_count() or 1, max(len(shards), 1))
    if streaming_batch <= 0:
        streaming_batch = len(shards) or 1
    result = None
    for start in range(0, len(shards), streaming_batch):
        group = shards[start:start + streaming_batch]
        with ThreadPoolExecutor(max_workers=max(workers, 1)) as pool:
            frames = list(pool.map(read, group))
        part = concat(frames, batch_size)
        result = part if result is None else concat([result, part], batch_size)
    return result if result is not None else pd.DataFrame()


def secondary_frames(folder, columns, signature):
    out = []
    for path in find_shards(folder) if os.path.isdir(folder) else []:
        try:
            df = read_shard(path, signature)
        except Exception as e:
            log("skipping secondary %s: not a data shard (%s)" % (path, e))
            continue
        if sorted(map(str, df.columns)) != sorted(map(str, columns)):
            log("skipping secondary %s: its columns are not DATA's" % path)
            continue
        out.append(df[list(columns)])
    return out


def main(input_paths, output_paths, environ_vars, job_args):
    job_type = job_args.job_type
    label = str(environ_vars.get("LABEL_FIELD", "") or "").strip()
    train_ratio = env_num(environ_vars, "TRAIN_RATIO", 0.7)
    test_val_ratio = env_num(environ_vars, "TEST_VAL_RATIO", 0.5)
    fmt = str(environ_vars.get("OUTPUT_FORMAT", "") or "CSV").strip()
    if fmt.lower() not in ("csv", "tsv", "parquet"):
        sys.exit("OUTPUT_FORMAT must be CSV, TSV or Parquet, not %r" % fmt)
    workers = env_num(environ_vars, "MAX_WORKERS", 0, int)
    batch_size = env_num(environ_vars, "BATCH_SIZE", 5, int)
    optimize_memory = env_bool(environ_vars, "OPTIMIZE_MEMORY")
    streaming_batch = env_num(environ_vars, "STREAMING_BATCH_SIZE", 0, int)
    true_streaming = env_bool(environ_vars, "ENABLE_TRUE_STREAMING")

    signature = read_signature(input_paths["SIGNATURE"])
    shards = find_shards(input_paths["DATA"])
    if not shards:
        sys.exit("no data shards under %s" % input_paths["DATA"])
    out_dir = output_paths["processed_data"]
    log("%d shard(s), job type %s, label %r, signature %s" % (len(shards), job_type, label, "yes" if signature else "no"))

    if true_streaming:
        mapping = None
        if label:
            labels = []
            for p in shards:
                part = read_shard(p, signature)
                if label not in part.columns:
                    sys.exit("label column %r is not in shard %s (columns %s)" % (label, p, list(part.columns)))
                labels.extend(part[label].tolist())
            mapping = label_mapping(labels)
        rng = np.random.default_rng(SEED)
        counts = {}
        secondary = find_shards(input_paths["DATA_SECONDARY"]) if os.path.isdir(input_paths["DATA_SECONDARY"]) else []
        columns = None
        for n, p in enumerate(shards + secondary):
            df = read_shard(p, signature)
            if columns is None:
                columns = list(df.columns)
            elif sorted(map(str, df.columns)) != sorted(map(str, columns)):
                log("skipping %s: its columns are not DATA's" % p)
                continue
            df = df[columns]
            if label:
                df = clean_label(df, label, mapping)
            if optimize_memory:
                df = optimize(df)
            parts = assign_splits(df, label, train_ratio, test_val_ratio, rng) if job_type == "training" else {job_type: df}
            for split, part in parts.items():
                write_split(out_dir, split, part, fmt, append=True, part=n)
                counts[split] = counts.get(split, 0) + len(part)
        for split, c in counts.items():
            log("%s: %d rows" % (split, c))
        return counts

    df = load_all(shards, signature, workers, batch_size, streaming_batch)
    extra = secondary_frames(input_paths["DATA_SECONDARY"], df.columns, signature)
    if extra:
        df = concat([df] + extra, batch_size)
        log("appended %d secondary shard(s)" % len(extra))
    df.columns = [str(c).strip() for c in df.columns]
    if label:
        if label not in df.columns:
            sys.exit("label column %r is not among the columns %s" % (label, list(df.columns)))
        mapping = label_mapping(df[label])
        if mapping:
            log("text labels mapped to class indices: %s" % mapping)
        before = len(df)
        df = clean_label(df, label, mapping)
        if len(df) < before:
            log("dropped %d row(s) without a valid label" % (before - len(df)))
    if optimize_memory:
        df = optimize(df)
    splits = split_frame(df, label, train_ratio, test_val_ratio) if job_type == "training" else {job_type: df}
    counts = {}
    for split, part in splits.items():
        write_split(out_dir, split, part, fmt)
        counts[split] = len(part)
        log("%s: %d rows" % (split, len(part)))
    return counts


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Combine data shards, clean the label and split the rows.")
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    environ = {
        "LABEL_FIELD": os.environ.get("LABEL_FIELD", ""),
        "TRAIN_RATIO": os.environ.get("TRAIN_RATIO", ""),
        "TEST_VAL_RATIO": os.environ.get("TEST_VAL_RATIO", ""),
        "OUTPUT_FORMAT": os.environ.get("OUTPUT_FORMAT", ""),
        "MAX_WORKERS": os.environ.get("MAX_WORKERS", ""),
        "BATCH_SIZE": os.environ.get("BATCH_SIZE", ""),
        "OPTIMIZE_MEMORY": os.environ.get("OPTIMIZE_MEMORY", ""),
        "STREAMING_BATCH_SIZE": os.environ.get("STREAMING_BATCH_SIZE", ""),
        "ENABLE_TRUE_STREAMING": os.environ.get("ENABLE_TRUE_STREAMING", ""),
    }
    main({"DATA": DATA_DIR, "DATA_SECONDARY": SECONDARY_DIR, "SIGNATURE": SIGNATURE_DIR},
         {"processed_data": OUTPUT_DIR}, environ, args)
