"""TemporalSplitPreprocessing: an out-of-time split. Rows dated before SPLIT_DATE are split into
train/ and val/ by group (a customer's rows stay together), rows on or after it form the
out-of-time set, without the groups trained on, so no customer's future leaks into its own test.

Input
  /opt/ml/processing/input/data        DATA: the rows (CSV, TSV, Parquet or JSON, any folder
                                       depth, gzip or inside a .tar.gz)
  /opt/ml/processing/input/signature   SIGNATURE (optional): the column names of headerless CSV
                                       files, comma-separated
Output
  /opt/ml/processing/output/training_data   training_data: train/, val/ and test/ (test is the
                                            out-of-time set), <split>/<split>_processed_data.<ext>,
                                            the layout every trainer reads
  /opt/ml/processing/output/oot_data        oot_data: oot/oot_processed_data.<ext>, the
                                            out-of-time rows again, for a separate evaluation
Environment
  DATE_COLUMN, SPLIT_DATE (required: a date such as 2025-06-01, or a time); GROUP_ID_COLUMN (the
  customer; empty: rows are split one by one); TRAIN_RATIO (share of the groups before the split
  date that train, the rest validate; default 0.9); RANDOM_SEED; OUTPUT_FORMAT (csv, tsv or
  parquet); LABEL_FIELD (rows without a label are dropped); TARGETS and MAIN_TASK_INDEX (multi-task
  labels: the main task's label becomes the maximum of the other tasks' labels)
Arguments
  --job_type (training)
"""
import argparse
import os
import sys

import numpy as np
import pandas as pd

from steplib import tables

INPUT_DIR = "/opt/ml/processing/input/data"
SIGNATURE_DIR = "/opt/ml/processing/input/signature"
TRAINING_OUT = "/opt/ml/processing/output/training_data"
OOT_OUT = "/opt/ml/processing/output/oot_data"

FORMATS = {"csv": ".csv", "tsv": ".tsv", "parquet": ".parquet"}


def log(msg):
    print("[temporal_split_preprocessing] " + msg, flush=True)


def signature_columns(folder):
    """The column names a SIGNATURE input gives (the first line of its first file), or None."""
    if not folder or not os.path.isdir(folder):
        return None
    for root, _, files in sorted(os.walk(folder)):
        for name in sorted(files):
            if name.startswith("."):
                continue
            with open(os.path.join(root, name), encoding="utf-8") as f:
                line = f.readline().strip()
            if line:
                return [c.strip() for c in line.split(",") if c.strip()]
    return None


def read_rows(folder, signature):
    df, files = tables.read_tables(folder, log=log)
    if df is None:
        sys.exit("no data files under %s" % folder)
    if signature:
        if len(signature) != len(df.columns):
            sys.exit("SIGNATURE names %d columns, the data has %d" % (len(signature), len(df.columns)))
        if list(df.columns) != signature:  # headerless files: the first row was data
            frames = [pd.read_csv(p, header=None, names=signature, sep="\t" if tables.base_suffix(p).endswith(".tsv") else ",") for p in files]
            df = pd.concat(frames, ignore_index=True)
    log("read %d rows, %d columns from %d file(s)" % (len(df), len(df.columns), len(files)))
    return df


def main_task_label(df, targets, main_index):
    """The main task's label as the maximum of the other tasks' labels (a row positive for any
    subtask is positive for the main task)."""
    missing = [t for t in targets if t not in df.columns]
    if missing:
        sys.exit("TARGETS names %s, which are not columns of the data" % missing)
    if not 0 <= main_index < len(targets):
        sys.exit("MAIN_TASK_INDEX %d is not an index of TARGETS %s" % (main_index, targets))
    subtasks = [t for i, t in enumerate(targets) if i != main_index]
    if not subtasks:
        return df
    main = targets[main_index]
    values = df[subtasks].apply(pd.to_numeric, errors="coerce")
    new = values.max(axis=1)
    changed = int((pd.to_numeric(df[main], errors="coerce") != new).sum())
    df[main] = new
    log("main task %s = max(%s): %d rows changed" % (main, ", ".join(subtasks), changed))
    return df


def split(df, date_col, split_date, group_col, train_ratio, rng):
    """(train, val, oot) frames."""
    dates = pd.to_datetime(df[date_col], errors="coerce", utc=True)
    bad = int(dates.isna().sum())
    if bad == len(df):
        sys.exit("DATE_COLUMN %r holds no readable date (first values: %s)" % (date_col, list(df[date_col].head(3))))
    if bad:
        log("dropped %d rows whose %s is missing or not a date" % (bad, date_col))
    df, dates = df[dates.notna()], dates[dates.notna()]
    before = dates < split_date
    pre, post = df[before.to_numpy()], df[~before.to_numpy()]
    if pre.empty:
        sys.exit("no rows before SPLIT_DATE %s (dates run from %s to %s)" % (split_date.date(), dates.min().date(), dates.max().date()))
    if group_col:
        groups = pre[group_col].astype(str).unique()
        rng.shuffle(groups)
        n_train = int(round(len(groups) * train_ratio))
        train_groups = set(groups[:n_train])
        in_train = pre[group_col].astype(str).isin(train_groups)
        train, val = pre[in_train.to_numpy()], pre[~in_train.to_numpy()]
        leaked = post[group_col].astype(str).isin(train_groups)
        oot = post[~leaked.to_numpy()]
        log("%d groups before the split date: %d train, %d val; %d out-of-time rows of trained groups left out" % (
            len(groups), n_train, len(groups) - n_train, int(leaked.sum())))
    else:
        order = rng.permutation(len(pre))
        n_train = int(round(len(pre) * train_ratio))
        train, val = pre.iloc[np.sort(order[:n_train])], pre.iloc[np.sort(order[n_train:])]
        oot = post
    if oot.empty:
        log("warning: the out-of-time set is empty: move SPLIT_DATE earlier or lower TRAIN_RATIO")
    return train, val, oot


def write(df, folder, split_name, ext):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "%s_processed_data%s" % (split_name, ext))
    if ext == ".parquet":
        df.to_parquet(path, index=False)
    else:
        df.to_csv(path, sep="\t" if ext == ".tsv" else ",", index=False)
    return path


def main(input_paths, output_paths, environ_vars, job_args):
    date_col = environ_vars["DATE_COLUMN"].strip()
    group_col = environ_vars.get("GROUP_ID_COLUMN", "").strip()
    label = environ_vars.get("LABEL_FIELD", "").strip()
    fmt = (environ_vars.get("OUTPUT_FORMAT") or "csv").strip().lower()
    if fmt not in FORMATS:
        sys.exit("OUTPUT_FORMAT %r: want csv, tsv or parquet" % fmt)
    try:
        split_date = pd.Timestamp(environ_vars["SPLIT_DATE"].strip())
    except (ValueError, TypeError):
        sys.exit("SPLIT_DATE %r is not a date (config field split_date, e.g. 2025-06-01)" % environ_vars["SPLIT_DATE"])
    split_date = split_date.tz_localize("UTC") if split_date.tzinfo is None else split_date.tz_convert("UTC")
    try:
        train_ratio = float(environ_vars.get("TRAIN_RATIO") or 0.9)
    except ValueError:
        sys.exit("TRAIN_RATIO %r is not a number" % environ_vars.get("TRAIN_RATIO"))
    if not 0 < train_ratio <= 1:
        sys.exit("TRAIN_RATIO %s must be in (0, 1]" % train_ratio)
    rng = np.random.default_rng(int(environ_vars.get("RANDOM_SEED") or 42))

    df = read_rows(input_paths["DATA"], signature_columns(input_paths.get("SIGNATURE")))
    for name, col in (("DATE_COLUMN", date_col), ("GROUP_ID_COLUMN", group_col), ("LABEL_FIELD", label)):
        if col and col not in df.columns:
            sys.exit("%s %r is not a column of the data (columns: %s)" % (name, col, list(df.columns)))
    targets = tables.names(environ_vars.get("TARGETS"))
    if targets:
        main_index = environ_vars.get("MAIN_TASK_INDEX", "").strip()
        if main_index not in ("", "-1"):
            df = main_task_label(df, targets, int(main_index))
        missing = [t for t in targets if t not in df.columns]
        if missing:
            sys.exit("TARGETS names %s, which are not columns of the data" % missing)
    if label:
        n = len(df)
        df = df[df[label].notna()]
        if len(df) < n:
            log("dropped %d rows without a %s" % (n - len(df), label))

    train, val, oot = split(df, date_col, split_date, group_col, train_ratio, rng)
    ext = FORMATS[fmt]
    for name, part in (("train", train), ("val", val), ("test", oot)):
        write(part, os.path.join(output_paths["training_data"], name), name, ext)
    write(oot, os.path.join(output_paths["oot_data"], "oot"), "oot", ext)
    counts = {"train": len(train), "val": len(val), "test": len(oot)}
    log("split at %s (%s): %s" % (split_date.isoformat(), job_args.job_type, counts))
    return counts


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Split rows in time: train and val before a date, out-of-time after it.")
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    environ = {
        "DATE_COLUMN": os.environ["DATE_COLUMN"],
        "SPLIT_DATE": os.environ["SPLIT_DATE"],
        "GROUP_ID_COLUMN": os.environ.get("GROUP_ID_COLUMN", ""),
        "TRAIN_RATIO": os.environ.get("TRAIN_RATIO", "0.9"),
        "RANDOM_SEED": os.environ.get("RANDOM_SEED", "42"),
        "OUTPUT_FORMAT": os.environ.get("OUTPUT_FORMAT", "csv"),
        "LABEL_FIELD": os.environ.get("LABEL_FIELD", ""),
        "TARGETS": os.environ.get("TARGETS", ""),
        "MAIN_TASK_INDEX": os.environ.get("MAIN_TASK_INDEX", ""),
    }
    main({"DATA": INPUT_DIR, "SIGNATURE": SIGNATURE_DIR}, {"training_data": TRAINING_OUT, "oot_data": OOT_OUT}, environ, args)
