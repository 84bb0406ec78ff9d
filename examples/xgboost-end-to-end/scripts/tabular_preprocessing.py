"""Combine the loaded data shards, clean the label and split the rows.

Contract (TabularPreprocessing):
  inputs   /opt/ml/processing/input/data            DATA shards (CSV, TSV, JSON lines; .gz too)
           /opt/ml/processing/input/data_secondary  optional; its shards with DATA's columns are appended
                                                    (others, e.g. a loader's METADATA, are skipped)
           /opt/ml/processing/input/signature       optional; column names for header-less shards
  output   /opt/ml/processing/output                train/ val/ test/ for --job_type training,
                                                    else one folder named after the job type
  env      LABEL_FIELD, TRAIN_RATIO, TEST_VAL_RATIO, OUTPUT_FORMAT (CSV | TSV | Parquet),
           MAX_WORKERS, BATCH_SIZE, OPTIMIZE_MEMORY, STREAMING_BATCH_SIZE, ENABLE_TRUE_STREAMING

Pure standard library, so it runs anywhere; Parquet output needs pandas.
Rows whose label is missing or not a number are dropped; a label given as
text is mapped to class indices in sorted order. The split is stratified by
label and reproducible.
"""
import argparse
import csv
import glob
import gzip
import hashlib
import json
import os
import random
from concurrent.futures import ThreadPoolExecutor

DATA_DIR = "/opt/ml/processing/input/data"
SECONDARY_DIR = "/opt/ml/processing/input/data_secondary"
SIGNATURE_DIR = "/opt/ml/processing/input/signature"
OUTPUT_DIR = "/opt/ml/processing/output"


def shard_files(folder):
    files = []
    for pattern in ("*.csv", "*.tsv", "*.json", "*.jsonl", "*.csv.gz", "*.tsv.gz", "*.json.gz", "part-*"):
        files.extend(glob.glob(os.path.join(folder, "**", pattern), recursive=True))
    return sorted(set(f for f in files if os.path.isfile(f)))


def read_signature(folder):
    for path in shard_files(folder) + sorted(glob.glob(os.path.join(folder, "*"))):
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                text = f.read().strip()
            if text:
                return [c.strip() for c in text.replace("\n", ",").split(",") if c.strip()]
    return None


def read_shard(path, signature):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", newline="") as f:
        name = path[:-3] if path.endswith(".gz") else path
        if name.endswith((".json", ".jsonl")):
            text = f.read()
            try:
                rows = [json.loads(line) for line in text.splitlines() if line.strip()]
            except ValueError:
                rows = json.loads(text)  # one JSON document: a list of records
            if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
                raise ValueError("not a list of records")
            return (list(rows[0].keys()) if rows else []), rows
        reader = csv.reader(f, delimiter="\t" if name.endswith(".tsv") else ",")
        lines = list(reader)
    if not lines:
        return [], []
    header = lines[0]
    if signature and [h.strip() for h in header] != signature:
        header, body = signature, lines  # header-less shard
    else:
        body = lines[1:]
    return header, [dict(zip(header, r)) for r in body]


def load(primary, secondary, signature, workers, batch_size):
    """Rows of the DATA shards, then of the DATA_SECONDARY shards that have the same columns.

    A secondary shard with other columns or that is not a data file (the pipeline may bind a
    loader's METADATA output here) is skipped with a message, as is a shard already read.
    """
    seen = set()

    def unique(folder):
        out = []
        for path in shard_files(folder):
            with open(path, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            if digest in seen:
                print(f"skipping {path}: same content as a shard already read")
                continue
            seen.add(digest)
            out.append(path)
        return out

    files = unique(primary)
    if not files:
        raise SystemExit(f"no data shards under {primary}")
    with ThreadPoolExecutor(max_workers=workers or min(8, len(files))) as pool:
        parts = list(pool.map(lambda p: read_shard(p, signature), files))
    columns = []
    for header, _ in parts:
        columns += [c for c in header if c not in columns]
    for path in unique(secondary) if secondary else []:
        try:
            header, part = read_shard(path, signature)
        except (ValueError, UnicodeDecodeError, csv.Error) as e:
            print(f"skipping secondary {path}: not a data shard ({e})")
            continue
        if sorted(header) != sorted(columns):
            print(f"skipping secondary {path}: its columns {header} are not DATA's")
            continue
        parts.append((header, part))
    rows = []
    step = max(batch_size, 1)
    for i in range(0, len(parts), step):  # concatenate in batches, as the contract's BATCH_SIZE says
        for _, part in parts[i:i + step]:
            rows.extend(part)
    return columns, rows


def clean_label(rows, label):
    values = [r.get(label) for r in rows]
    try:
        for v in values:
            if v not in (None, ""):
                float(v)
        mapping = None
    except ValueError:
        mapping = {v: i for i, v in enumerate(sorted({v for v in values if v not in (None, "")}))}
    kept = []
    for r in rows:
        v = r.get(label)
        if v in (None, ""):
            continue
        r[label] = mapping[v] if mapping else int(float(v)) if float(v).is_integer() else float(v)
        kept.append(r)
    if mapping:
        print(f"label {label}: text classes mapped to {mapping}")
    return kept


def stratified_split(rows, label, train_ratio, test_val_ratio):
    rng = random.Random(42)
    groups = {}
    for r in rows:
        groups.setdefault(r.get(label) if label else None, []).append(r)
    splits = {"train": [], "val": [], "test": []}
    for key in sorted(groups, key=str):
        g = groups[key]
        rng.shuffle(g)
        n_train = int(round(len(g) * train_ratio))
        hold = g[n_train:]
        n_test = int(round(len(hold) * test_val_ratio))
        splits["train"] += g[:n_train]
        splits["test"] += hold[:n_test]
        splits["val"] += hold[n_test:]
    return splits


def write(folder, name, columns, rows, fmt):
    os.makedirs(folder, exist_ok=True)
    fmt = fmt.lower()
    if fmt == "parquet":
        import pandas as pd

        pd.DataFrame(rows, columns=columns).to_parquet(os.path.join(folder, f"{name}_processed_data.parquet"), index=False)
        return
    sep = "\t" if fmt == "tsv" else ","
    with open(os.path.join(folder, f"{name}_processed_data.{fmt}"), "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=columns, delimiter=sep, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


def main(input_paths, output_paths, environ_vars, job_args):
    signature = read_signature(input_paths["SIGNATURE"]) if os.path.isdir(input_paths["SIGNATURE"]) else None
    secondary = input_paths["DATA_SECONDARY"] if os.path.isdir(input_paths["DATA_SECONDARY"]) else None
    streaming = environ_vars["ENABLE_TRUE_STREAMING"] or environ_vars["STREAMING_BATCH_SIZE"] > 0
    if streaming:
        print("streaming options are accepted; this small implementation reads the shards in batches of BATCH_SIZE")
    columns, rows = load(input_paths["DATA"], secondary, signature, environ_vars["MAX_WORKERS"], environ_vars["BATCH_SIZE"])
    label = environ_vars["LABEL_FIELD"]
    if label:
        if label not in columns:
            raise SystemExit(f"label column {label!r} is not among {columns}")
        rows = clean_label(rows, label)
    if environ_vars["OPTIMIZE_MEMORY"]:
        columns = [c for c in columns if any(r.get(c) not in (None, "") for r in rows)]  # drop empty columns
    out = output_paths["processed_data"]
    fmt = environ_vars["OUTPUT_FORMAT"]
    if job_args.job_type == "training":
        splits = stratified_split(rows, label, environ_vars["TRAIN_RATIO"], environ_vars["TEST_VAL_RATIO"])
    else:
        splits = {job_args.job_type: rows}
    for name, part in splits.items():
        write(os.path.join(out, name), name, columns, part, fmt)
        print(f"{name}: {len(part)} rows")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    env = {
        "LABEL_FIELD": os.environ.get("LABEL_FIELD", ""),
        "TRAIN_RATIO": float(os.environ.get("TRAIN_RATIO", "0.7")),
        "TEST_VAL_RATIO": float(os.environ.get("TEST_VAL_RATIO", "0.5")),
        "OUTPUT_FORMAT": os.environ.get("OUTPUT_FORMAT", "CSV"),
        "MAX_WORKERS": int(os.environ.get("MAX_WORKERS", "0")),
        "BATCH_SIZE": int(os.environ.get("BATCH_SIZE", "5")),
        "OPTIMIZE_MEMORY": os.environ.get("OPTIMIZE_MEMORY", "false").lower() == "true",
        "STREAMING_BATCH_SIZE": int(os.environ.get("STREAMING_BATCH_SIZE", "0")),
        "ENABLE_TRUE_STREAMING": os.environ.get("ENABLE_TRUE_STREAMING", "false").lower() == "true",
    }
    main({"DATA": DATA_DIR, "DATA_SECONDARY": SECONDARY_DIR, "SIGNATURE": SIGNATURE_DIR},
         {"processed_data": OUTPUT_DIR}, env, args)
