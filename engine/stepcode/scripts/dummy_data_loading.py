"""DummyDataLoading: publish a data set the user already has as DATA / METADATA / SIGNATURE.

Input
  /opt/ml/processing/input/data        INPUT_DATA: data files at any depth (csv, parquet, json,
                                       jsonl; the formats SUPPORTED_FORMATS lists)
Outputs (the layout every data-loading step of the catalog writes)
  /opt/ml/processing/output/data       part-00000.<csv|json|parquet> (WRITE_DATA_SHARDS: one file
                                       per SHARD_SIZE rows, part-00000, part-00001, ...); CSV has
                                       a header row, JSON is JSON lines
  /opt/ml/processing/output/metadata   metadata: JSON (rows, columns, per-column type, nulls,
                                       distinct values, numeric min/max/mean/std) or, with
                                       METADATA_FORMAT=MODS, a CSV of varname,iscategory,datatype
  /opt/ml/processing/output/signature  signature: the column names, comma-separated
Environment
  WRITE_DATA_SHARDS, SHARD_SIZE, OUTPUT_FORMAT (CSV, JSON, PARQUET), MAX_WORKERS (parallel
  readers, 0 = auto), BATCH_SIZE (frames concatenated at once), OPTIMIZE_MEMORY (downcast
  numbers, categorical strings), STREAMING_BATCH_SIZE (files per batch, 0 = all),
  ENABLE_TRUE_STREAMING (one file in memory at a time; metadata from the first file),
  METADATA_FORMAT (JSON or MODS), MAX_FILE_SIZE_MB (larger files fail the job),
  SUPPORTED_FORMATS (comma-separated).
"""
import argparse
import csv
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import pandas as pd

from steplib.frames import concat, optimize

INPUT_DIR = "/opt/ml/processing/input/data"
DATA_DIR = "/opt/ml/processing/output/data"
METADATA_DIR = "/opt/ml/processing/output/metadata"
SIGNATURE_DIR = "/opt/ml/processing/output/signature"

FORMAT_SUFFIXES = {"csv": (".csv",), "parquet": (".parquet", ".pq"), "json": (".json",), "jsonl": (".jsonl",)}
OUTPUT_EXTENSIONS = {"CSV": "csv", "JSON": "json", "PARQUET": "parquet"}


def log(msg):
    print("[dummy_data_loading] " + msg, flush=True)


def flag(value, default=False):
    raw = str(value or "").strip().lower()
    return default if raw == "" else raw in ("true", "1", "yes", "y")


def number(value, default, kind=int):
    raw = str(value or "").strip()
    return kind(raw) if raw else default


def find_files(folder, formats):
    suffixes = tuple(s for f in formats for s in FORMAT_SUFFIXES.get(f, ()))
    out = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        out.extend(os.path.join(root, f) for f in sorted(files) if not f.startswith(".") and f.lower().endswith(suffixes))
    return out


def read_file(path):
    name = path.lower()
    if name.endswith((".parquet", ".pq")):
        return pd.read_parquet(path)
    if name.endswith(".jsonl"):
        return pd.read_json(path, lines=True)
    if name.endswith(".json"):
        with open(path, encoding="utf-8") as f:
            head = f.read(1)
            while head.isspace():
                head = f.read(1)
        return pd.read_json(path, lines=(head != "["))
    return pd.read_csv(path)


def json_metadata(df):
    cols = {}
    for c in df.columns:
        s = df[c]
        info = {"data_type": str(s.dtype), "null_count": int(s.isna().sum())}
        try:
            info["unique_count"] = int(s.nunique())
        except TypeError:  # lists or dicts read from parquet/json
            info["unique_count"] = None
        if pd.api.types.is_numeric_dtype(s) and s.notna().any():
            info.update({"min": float(s.min()), "max": float(s.max()), "mean": float(s.mean()),
                         "std": float(s.std()) if s.notna().sum() > 1 else 0.0})
        cols[str(c)] = info
    return {"version": "1.0", "data_info": {"total_rows": int(len(df)), "total_columns": int(len(df.columns))}, "column_info": cols}


def mods_metadata(df):
    rows = [["varname", "iscategory", "datatype"]]
    for c in df.columns:
        dtype = str(df[c].dtype)
        rows.append([str(c), "true" if dtype in ("object", "string", "category") else "false", dtype])
    return rows


def write_metadata(df, fmt, folder):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "metadata")
    if fmt == "MODS":
        with open(path, "w", newline="", encoding="utf-8") as f:
            csv.writer(f, lineterminator="\n").writerows(mods_metadata(df))
    else:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(json_metadata(df), f, indent=2)


def write_signature(columns, folder):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "signature"), "w", encoding="utf-8") as f:
        f.write(",".join(str(c) for c in columns) + "\n")


def write_part(df, folder, index, fmt):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "part-%05d.%s" % (index, OUTPUT_EXTENSIONS[fmt]))
    if fmt == "CSV":
        df.to_csv(path, index=False)
    elif fmt == "JSON":
        df.to_json(path, orient="records", lines=True)
    else:
        df.to_parquet(path, index=False)
    return path


def write_data(df, folder, fmt, shards, shard_size, first_index=0):
    if not shards or len(df) <= shard_size:
        write_part(df, folder, first_index, fmt)
        return first_index + 1
    n = first_index
    for start in range(0, len(df), shard_size):
        write_part(df.iloc[start:start + shard_size], folder, n, fmt)
        n += 1
    return n


def main(input_paths, output_paths, environ_vars, job_args):
    shards = flag(environ_vars.get("WRITE_DATA_SHARDS"))
    shard_size = max(number(environ_vars.get("SHARD_SIZE"), 10000), 1)
    fmt = str(environ_vars.get("OUTPUT_FORMAT") or "CSV").strip().upper()
    workers = number(environ_vars.get("MAX_WORKERS"), 0)
    batch_size = number(environ_vars.get("BATCH_SIZE"), 5)
    optimize_memory = flag(environ_vars.get("OPTIMIZE_MEMORY"))
    streaming_batch = number(environ_vars.get("STREAMING_BATCH_SIZE"), 0)
    true_streaming = flag(environ_vars.get("ENABLE_TRUE_STREAMING"))
    metadata_format = str(environ_vars.get("METADATA_FORMAT") or "JSON").strip().upper()
    max_mb = number(environ_vars.get("MAX_FILE_SIZE_MB"), 1000)
    formats = [f.strip().lower() for f in str(environ_vars.get("SUPPORTED_FORMATS") or "csv,parquet,json,jsonl").split(",") if f.strip()]
    if fmt not in OUTPUT_EXTENSIONS:
        sys.exit("OUTPUT_FORMAT must be one of %s, not %r" % (", ".join(OUTPUT_EXTENSIONS), fmt))
    if metadata_format not in ("JSON", "MODS"):
        sys.exit("METADATA_FORMAT must be JSON or MODS, not %r" % metadata_format)

    files = find_files(input_paths["INPUT_DATA"], formats)
    if not files:
        sys.exit("no %s files under %s" % ("/".join(formats), input_paths["INPUT_DATA"]))
    for p in files:
        mb = os.path.getsize(p) / (1024.0 * 1024.0)
        if mb > max_mb:
            sys.exit("%s is %.1f MB, above MAX_FILE_SIZE_MB=%d" % (p, mb, max_mb))
    log("job type %s: %d file(s)" % (job_args.job_type, len(files)))
    data_dir, meta_dir, sig_dir = output_paths["DATA"], output_paths["METADATA"], output_paths["SIGNATURE"]

    if true_streaming:
        index, rows, columns = 0, 0, None
        for p in files:
            df = read_file(p)
            if columns is None:
                columns = list(df.columns)
                write_signature(columns, sig_dir)
                write_metadata(df, metadata_format, meta_dir)
            elif list(df.columns) != columns:
                sys.exit("%s has columns %s, the first file has %s" % (p, list(df.columns), columns))
            if optimize_memory:
                df = optimize(df, categorical=True)
            index = write_data(df, data_dir, fmt, True, shard_size, index)
            rows += len(df)
        log("streamed %d rows into %d part(s)" % (rows, index))
        return rows

    if streaming_batch <= 0:
        streaming_batch = len(files)
    result = None
    for start in range(0, len(files), streaming_batch):
        with ThreadPoolExecutor(max_workers=workers or min(8, os.cpu_count() or 1)) as pool:
            frames = list(pool.map(read_file, files[start:start + streaming_batch]))
        part = concat(frames, batch_size)
        result = part if result is None else concat([result, part], batch_size)
    df = result
    if optimize_memory:
        df = optimize(df, categorical=True)
    write_signature(list(df.columns), sig_dir)
    write_metadata(df, metadata_format, meta_dir)
    parts = write_data(df, data_dir, fmt, shards, shard_size)
    log("%d rows, %d columns, %d part(s)" % (len(df), len(df.columns), parts))
    return len(df)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Publish a user's data set as DATA, METADATA and SIGNATURE.")
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    environ = {
        "WRITE_DATA_SHARDS": os.environ.get("WRITE_DATA_SHARDS", ""),
        "SHARD_SIZE": os.environ.get("SHARD_SIZE", ""),
        "OUTPUT_FORMAT": os.environ.get("OUTPUT_FORMAT", ""),
        "MAX_WORKERS": os.environ.get("MAX_WORKERS", ""),
        "BATCH_SIZE": os.environ.get("BATCH_SIZE", ""),
        "OPTIMIZE_MEMORY": os.environ.get("OPTIMIZE_MEMORY", ""),
        "STREAMING_BATCH_SIZE": os.environ.get("STREAMING_BATCH_SIZE", ""),
        "ENABLE_TRUE_STREAMING": os.environ.get("ENABLE_TRUE_STREAMING", ""),
        "METADATA_FORMAT": os.environ.get("METADATA_FORMAT", ""),
        "MAX_FILE_SIZE_MB": os.environ.get("MAX_FILE_SIZE_MB", ""),
        "SUPPORTED_FORMATS": os.environ.get("SUPPORTED_FORMATS", ""),
    }
    main({"INPUT_DATA": INPUT_DIR}, {"DATA": DATA_DIR, "METADATA": METADATA_DIR, "SIGNATURE": SIGNATURE_DIR}, environ, args)
