"""TemporalSequenceNormalization: turn an event table (one row per event) into fixed-length
sequences per entity: events ordered in time, the last SEQUENCE_LENGTH kept, padded, with an
attention mask and the time since the entity's previous event.

Input
  /opt/ml/processing/input/data        DATA: events (CSV, TSV, Parquet or JSON, any folder depth,
                                       split folders too)
  /opt/ml/processing/input/signature   SIGNATURE (optional): column names of headerless CSV files
Output
  /opt/ml/processing/output            normalized_sequences: sequences.npz with
                                       values [entities, SEQUENCE_LENGTH, value fields] (float32,
                                       0 where padded), mask [entities, SEQUENCE_LENGTH] (1 for an
                                       event), time_delta_seconds (since the previous event, capped
                                       at TIME_DELTA_MAX_SECONDS), timestamps (seconds since the
                                       epoch), entity_ids, value_fields and, when the events carry
                                       LABEL_FIELD, labels (the entity's last event's); and
                                       sequence_index.csv (entity, events, kept) for people
Environment
  SEQUENCE_GROUPING_FIELD, TEMPORAL_FIELD (required), VALUE_FIELDS (numeric, comma-separated;
  default every numeric column but those), CATEGORICAL_FIELDS (encoded as vocabulary indices,
  1-based, 0 unseen, vocabularies in the npz), SEQUENCE_LENGTH, PADDING_STRATEGY (pre: padding
  before the events, post: after), TRUNCATION_STRATEGY (pre: keep the last events, post: the
  first), MISSING_INDICATORS (values read as missing, comma-separated), TIME_DELTA_MAX_SECONDS,
  LABEL_FIELD, VALIDATION_STRATEGY (strict: a row without entity or time fails the job; lenient:
  it is dropped)
Arguments
  --job_type
"""
import argparse
import csv
import json
import os
import sys

import numpy as np
import pandas as pd

from steplib import tables

INPUT_DIR = "/opt/ml/processing/input/data"
SIGNATURE_DIR = "/opt/ml/processing/input/signature"
OUTPUT_DIR = "/opt/ml/processing/output"


def log(msg):
    print("[temporal_sequence_normalization] " + msg, flush=True)


def read_events(folder, signature_dir):
    df, files = tables.read_tables(folder, log=log)
    if df is None:
        sys.exit("no event files under %s" % folder)
    if signature_dir and os.path.isdir(signature_dir):
        for root, _, names in sorted(os.walk(signature_dir)):
            for n in sorted(names):
                with open(os.path.join(root, n), encoding="utf-8") as f:
                    sig = [c.strip() for c in f.readline().split(",") if c.strip()]
                if sig and list(df.columns) != sig:
                    frames = [pd.read_csv(p, header=None, names=sig) for p in files]
                    return pd.concat(frames, ignore_index=True)
                if sig:
                    return df
    return df


def main(input_paths, output_paths, environ_vars, job_args):
    entity, time_field = environ_vars["SEQUENCE_GROUPING_FIELD"].strip(), environ_vars["TEMPORAL_FIELD"].strip()
    length = int(environ_vars.get("SEQUENCE_LENGTH") or 51)
    if length < 1:
        sys.exit("SEQUENCE_LENGTH %d: at least 1" % length)
    pad, trunc = environ_vars.get("PADDING_STRATEGY") or "pre", environ_vars.get("TRUNCATION_STRATEGY") or "pre"
    for name, v in (("PADDING_STRATEGY", pad), ("TRUNCATION_STRATEGY", trunc)):
        if v not in ("pre", "post"):
            sys.exit("%s %r: pre or post" % (name, v))
    label = (environ_vars.get("LABEL_FIELD") or "").strip()
    strict = (environ_vars.get("VALIDATION_STRATEGY") or "strict").strip() == "strict"
    df = read_events(input_paths["DATA"], input_paths.get("SIGNATURE"))
    missing_values = tables.names(environ_vars.get("MISSING_INDICATORS"))
    if missing_values:
        df = df.replace(missing_values, np.nan)
    for name, col in (("SEQUENCE_GROUPING_FIELD", entity), ("TEMPORAL_FIELD", time_field)):
        if col not in df.columns:
            sys.exit("%s %r is not a column of the events (columns: %s)" % (name, col, list(df.columns)))
    if label and label not in df.columns:
        sys.exit("LABEL_FIELD %r is not a column of the events" % label)
    ts = pd.to_datetime(df[time_field], errors="coerce", utc=True)
    if ts.isna().all() and pd.api.types.is_numeric_dtype(df[time_field]):
        ts = pd.to_datetime(df[time_field], unit="s", errors="coerce", utc=True)
    bad = ts.isna() | df[entity].isna()
    if bad.any():
        if strict:
            sys.exit("%d events lack an entity or a readable time (VALIDATION_STRATEGY strict; lenient drops them)" % int(bad.sum()))
        log("dropped %d events without an entity or a readable time" % int(bad.sum()))
    df = df[~bad.to_numpy()].copy()
    df["_t"] = (ts[~bad].astype("int64") // 10**9).to_numpy()

    cats = tables.names(environ_vars.get("CATEGORICAL_FIELDS"))
    fields = tables.names(environ_vars.get("VALUE_FIELDS"))
    if not fields:
        fields = [c for c in df.columns if c not in (entity, time_field, label, "_t") and c not in cats and pd.api.types.is_numeric_dtype(df[c])]
    unknown = [f for f in fields + cats if f not in df.columns]
    if unknown:
        sys.exit("VALUE_FIELDS/CATEGORICAL_FIELDS name %s, which are not columns of the events" % unknown)
    vocab = {}
    for c in cats:
        vocab[c] = sorted(df[c].dropna().astype(str).unique())
        index = {v: i + 1 for i, v in enumerate(vocab[c])}
        df[c] = df[c].map(lambda v: index.get(str(v), 0) if pd.notna(v) else 0)
    all_fields = fields + cats
    df[fields] = df[fields].apply(pd.to_numeric, errors="coerce")
    df = df.sort_values([entity, "_t"], kind="stable")
    cap = float(environ_vars.get("TIME_DELTA_MAX_SECONDS") or 10000000)

    groups = list(df.groupby(entity, sort=True))
    n, k = len(groups), len(all_fields)
    values = np.zeros((n, length, k), dtype="float32")
    mask = np.zeros((n, length), dtype="int8")
    delta = np.zeros((n, length), dtype="float32")
    stamps = np.zeros((n, length), dtype="int64")
    ids, labels, index_rows = [], [], []
    for i, (key, g) in enumerate(groups):
        total = len(g)
        g = g.iloc[-length:] if trunc == "pre" else g.iloc[:length]
        m = len(g)
        at = slice(length - m, length) if pad == "pre" else slice(0, m)
        values[i, at] = np.nan_to_num(g[all_fields].to_numpy(dtype="float64"), nan=0.0)
        mask[i, at] = 1
        t = g["_t"].to_numpy()
        d = np.diff(t, prepend=t[0]).astype("float64")
        delta[i, at] = np.minimum(d, cap)
        stamps[i, at] = t
        ids.append(str(key))
        if label:
            labels.append(g[label].iloc[-1])
        index_rows.append((key, total, m))
    os.makedirs(output_paths["normalized_sequences"], exist_ok=True)
    extra = {"labels": np.array(labels)} if label else {}
    np.savez_compressed(os.path.join(output_paths["normalized_sequences"], "sequences.npz"), values=values, mask=mask,
                        time_delta_seconds=delta, timestamps=stamps, entity_ids=np.array(ids),
                        value_fields=np.array(all_fields), vocabularies=np.array(json.dumps(vocab)),
                        meta=np.array(json.dumps({"entity": entity, "temporal_field": time_field, "label": label,
                                                  "sequence_length": length, "padding": pad, "truncation": trunc})), **extra)
    with open(os.path.join(output_paths["normalized_sequences"], "sequence_index.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow([entity, "events", "kept"])
        w.writerows(index_rows)
    log("%d entities x %d steps x %d fields (%s); %d events" % (n, length, k, job_args.job_type, len(df)))
    return n


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Normalize event tables into fixed-length sequences per entity.")
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    environ = {
        "SEQUENCE_GROUPING_FIELD": os.environ["SEQUENCE_GROUPING_FIELD"],
        "TEMPORAL_FIELD": os.environ["TEMPORAL_FIELD"],
        "VALUE_FIELDS": os.environ.get("VALUE_FIELDS", ""),
        "CATEGORICAL_FIELDS": os.environ.get("CATEGORICAL_FIELDS", ""),
        "SEQUENCE_LENGTH": os.environ.get("SEQUENCE_LENGTH", "51"),
        "PADDING_STRATEGY": os.environ.get("PADDING_STRATEGY", "pre"),
        "TRUNCATION_STRATEGY": os.environ.get("TRUNCATION_STRATEGY", "pre"),
        "MISSING_INDICATORS": os.environ.get("MISSING_INDICATORS", ""),
        "TIME_DELTA_MAX_SECONDS": os.environ.get("TIME_DELTA_MAX_SECONDS", "10000000"),
        "LABEL_FIELD": os.environ.get("LABEL_FIELD", ""),
        "VALIDATION_STRATEGY": os.environ.get("VALIDATION_STRATEGY", "strict"),
    }
    main({"DATA": INPUT_DIR, "SIGNATURE": SIGNATURE_DIR}, {"normalized_sequences": OUTPUT_DIR}, environ, args)
