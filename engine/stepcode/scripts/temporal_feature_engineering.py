"""TemporalFeatureEngineering: one row of features per entity from its event sequence: over the
whole sequence and over time windows ending at its last event, aggregations of each value field,
recency and activity features, lags and an exponentially smoothed value, so a tabular model
(XGBoost, LightGBM) can learn from sequences.

Input
  /opt/ml/processing/input/normalized_sequences   normalized_sequences: sequences.npz of
                                                  TemporalSequenceNormalization (or an event
                                                  table: CSV, TSV, Parquet; then
                                                  SEQUENCE_GROUPING_FIELD and TIMESTAMP_FIELD
                                                  name its columns)
Output
  /opt/ml/processing/output                       temporal_feature_tensors:
                                                  <job_type>/<job_type>_processed_data.csv (the
                                                  entity id, the features, the label when the
                                                  sequences carry one) and feature_names.json
Environment
  FEATURE_TYPES (statistical: aggregations over the whole sequence; temporal: recency, span,
  rate, gaps, lags, smoothing; behavioral: the aggregations over each window), WINDOW_SIZES
  (in TIME_UNIT: seconds, minutes, hours or days), AGGREGATION_FUNCTIONS (mean, sum, std, min, max,
  count, last), LAG_FEATURES (event lags), EXPONENTIAL_SMOOTHING_ALPHA, VALUE_FIELDS (default:
  every value field of the sequences), SEQUENCE_GROUPING_FIELD, TIMESTAMP_FIELD (event tables),
  LABEL_FIELD (event tables: the label, the entity's last), VARIANCE_THRESHOLD (features whose
  variance is below it are dropped when ENABLE_VALIDATION), MISSING_VALUE_THRESHOLD (features
  missing in a larger share of entities are dropped)
Arguments
  --job_type
"""
import argparse
import glob
import json
import os
import sys

import numpy as np
import pandas as pd

from steplib import tables

INPUT_DIR = "/opt/ml/processing/input/normalized_sequences"
OUTPUT_DIR = "/opt/ml/processing/output"

UNIT_SECONDS = {"seconds": 1, "minutes": 60, "hours": 3600, "days": 86400}
AGGREGATIONS = ("mean", "sum", "std", "min", "max", "count", "last")


def log(msg):
    print("[temporal_feature_engineering] " + msg, flush=True)


def int_list(text, name):
    try:
        return [int(x) for x in tables.names(text.strip("[]"))]
    except ValueError:
        sys.exit("%s %r: a list of whole numbers" % (name, text))


def sequences_from_npz(path):
    z = np.load(path, allow_pickle=False)
    meta = json.loads(str(z["meta"]))
    seq = {"values": z["values"].astype("float64"), "mask": z["mask"].astype(bool), "t": z["timestamps"].astype("float64"),
           "ids": [str(x) for x in z["entity_ids"]], "fields": [str(x) for x in z["value_fields"]], "entity": meta["entity"]}
    if "labels" in z.files:
        seq["labels"], seq["label"] = z["labels"], meta.get("label") or "label"
    return seq


def sequences_from_events(folder, env):
    df, _ = tables.read_tables(folder, log=log)
    if df is None:
        sys.exit("no sequences.npz and no event files under %s" % folder)
    entity, tfield = env.get("SEQUENCE_GROUPING_FIELD", "").strip(), env.get("TIMESTAMP_FIELD", "").strip()
    for name, col in (("SEQUENCE_GROUPING_FIELD", entity), ("TIMESTAMP_FIELD", tfield)):
        if col not in df.columns:
            sys.exit("%s %r is not a column of the events (columns: %s)" % (name, col, list(df.columns)))
    label = env.get("LABEL_FIELD", "").strip()
    ts = pd.to_datetime(df[tfield], errors="coerce", utc=True)
    df = df[ts.notna().to_numpy()].assign(_t=(ts[ts.notna()].astype("int64") // 10**9).to_numpy()).sort_values([entity, "_t"], kind="stable")
    fields = [c for c in df.columns if c not in (entity, tfield, label, "_t") and pd.api.types.is_numeric_dtype(df[c])]
    groups = list(df.groupby(entity, sort=True))
    length = max((len(g) for _, g in groups), default=1)
    n = len(groups)
    values, mask, t = np.zeros((n, length, len(fields))), np.zeros((n, length), dtype=bool), np.zeros((n, length))
    labels = []
    for i, (_, g) in enumerate(groups):
        m = len(g)
        values[i, length - m:] = g[fields].to_numpy(dtype="float64")
        mask[i, length - m:] = True
        t[i, length - m:] = g["_t"].to_numpy()
        if label:
            labels.append(g[label].iloc[-1])
    seq = {"values": values, "mask": mask, "t": t, "ids": [str(k) for k, _ in groups], "fields": fields, "entity": entity}
    if label:
        seq["labels"], seq["label"] = np.array(labels), label
    return seq


def aggregate(v, ok, fn):
    """fn over the events (ok) of each entity; NaN where an entity has none."""
    x = np.where(ok, v, np.nan)
    with np.errstate(all="ignore"):
        if fn == "count":
            return ok.sum(axis=1).astype("float64")
        if fn == "last":
            idx = np.where(ok.any(axis=1), ok.shape[1] - 1 - np.argmax(ok[:, ::-1], axis=1), 0)
            out = x[np.arange(len(x)), idx]
            return np.where(ok.any(axis=1), out, np.nan)
        f = {"mean": np.nanmean, "sum": np.nansum, "std": np.nanstd, "min": np.nanmin, "max": np.nanmax}[fn]
        out = f(x, axis=1) if ok.any() else np.full(len(x), np.nan)
        return np.where(ok.any(axis=1), out, np.nan)


def features(seq, env):
    kinds = set(tables.names(env.get("FEATURE_TYPES", "").replace("[", "").replace("]", "").replace('"', "")) or ["statistical", "temporal", "behavioral"])
    unknown = kinds - {"statistical", "temporal", "behavioral"}
    if unknown:
        sys.exit("FEATURE_TYPES %s: statistical, temporal or behavioral" % sorted(unknown))
    aggs = tables.names(env.get("AGGREGATION_FUNCTIONS", "").replace("[", "").replace("]", "").replace('"', "")) or list(AGGREGATIONS[:6])
    bad = [a for a in aggs if a not in AGGREGATIONS]
    if bad:
        sys.exit("AGGREGATION_FUNCTIONS %s: one of %s" % (bad, ", ".join(AGGREGATIONS)))
    unit = (env.get("TIME_UNIT") or "days").strip()
    if unit not in UNIT_SECONDS:
        sys.exit("TIME_UNIT %r: seconds, minutes, hours or days" % unit)
    windows = int_list(env.get("WINDOW_SIZES") or "7,14,30,90", "WINDOW_SIZES")
    lags = int_list(env.get("LAG_FEATURES") or "1,7", "LAG_FEATURES")
    alpha = float(env.get("EXPONENTIAL_SMOOTHING_ALPHA") or 0.3)
    chosen = tables.names(env.get("VALUE_FIELDS", "").replace("[", "").replace("]", "").replace('"', "")) or seq["fields"]
    missing = [f for f in chosen if f not in seq["fields"]]
    if missing:
        sys.exit("VALUE_FIELDS names %s, which the sequences lack (fields: %s)" % (missing, seq["fields"]))
    V, ok, t = seq["values"], seq["mask"], seq["t"]
    last_t = np.where(ok, t, -np.inf).max(axis=1)
    out = {}
    for f in chosen:
        v = V[:, :, seq["fields"].index(f)]
        if "statistical" in kinds:
            for a in aggs:
                out["%s_%s" % (f, a)] = aggregate(v, ok, a)
        if "behavioral" in kinds:
            for w in windows:
                inside = ok & (t > (last_t - w * UNIT_SECONDS[unit])[:, None])
                for a in aggs:
                    out["%s_%s_%d%s" % (f, a, w, unit[0])] = aggregate(v, inside, a)
        if "temporal" in kinds:
            for lag in lags:  # the value lag events before the last one
                lagged = np.full(len(v), np.nan)
                for i in range(len(v)):
                    idx = np.flatnonzero(ok[i])
                    if len(idx) > lag:
                        lagged[i] = v[i, idx[-1 - lag]]
                out["%s_lag_%d" % (f, lag)] = lagged
            ema = np.full(len(v), np.nan)
            for i in range(len(v)):
                s = None
                for x in v[i, ok[i]]:
                    s = x if s is None else alpha * x + (1 - alpha) * s
                ema[i] = np.nan if s is None else s
            out["%s_ema" % f] = ema
    if "temporal" in kinds:
        first_t = np.where(ok, t, np.inf).min(axis=1)
        span = (last_t - first_t) / UNIT_SECONDS[unit]
        n = ok.sum(axis=1).astype("float64")
        out["event_count"] = n
        out["span_%s" % unit] = span
        out["events_per_%s" % unit[:-1]] = np.where(span > 0, n / np.where(span > 0, span, 1), n)
        gaps = np.full((len(t), max(t.shape[1] - 1, 1)), np.nan)
        for i in range(len(t)):
            ti = t[i, ok[i]]
            if len(ti) > 1:
                d = np.diff(ti) / UNIT_SECONDS[unit]
                gaps[i, :len(d)] = d
        with np.errstate(all="ignore"):
            out["gap_mean_%s" % unit] = np.nanmean(gaps, axis=1)
            out["gap_max_%s" % unit] = np.nanmax(gaps, axis=1)
    return pd.DataFrame(out)


def prune(df, env):
    if not tables.truthy(env.get("ENABLE_VALIDATION"), True):
        return df
    miss_t = float(env.get("MISSING_VALUE_THRESHOLD") or 0.95)
    var_t = float(env.get("VARIANCE_THRESHOLD") or 0.0)
    drop = [c for c in df.columns if df[c].isna().mean() > miss_t or (df[c].notna().sum() > 1 and float(df[c].var()) < var_t)]
    if drop and len(drop) < len(df.columns):
        log("dropped %d features that are mostly missing or nearly constant: %s" % (len(drop), drop[:10]))
        return df.drop(columns=drop)
    return df


def main(input_paths, output_paths, environ_vars, job_args):
    folder = input_paths["normalized_sequences"]
    npz = sorted(glob.glob(os.path.join(folder, "**", "sequences.npz"), recursive=True))
    seq = sequences_from_npz(npz[0]) if npz else sequences_from_events(folder, environ_vars)
    if not seq["ids"]:
        sys.exit("no sequences under %s" % folder)
    feats = prune(features(seq, environ_vars), environ_vars)
    table = pd.concat([pd.DataFrame({seq["entity"]: seq["ids"]}), feats], axis=1)
    if "labels" in seq:
        table[seq["label"]] = seq["labels"]
    split = job_args.job_type
    out = os.path.join(output_paths["temporal_feature_tensors"], split)
    os.makedirs(out, exist_ok=True)
    table.to_csv(os.path.join(out, "%s_processed_data.csv" % split), index=False)
    with open(os.path.join(output_paths["temporal_feature_tensors"], "feature_names.json"), "w", encoding="utf-8") as f:
        json.dump({"entity": seq["entity"], "features": list(feats.columns), "label": seq.get("label")}, f, indent=2)
    log("%d entities, %d features (%s)" % (len(table), feats.shape[1], split))
    return table


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Features per entity from event sequences.")
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    environ = {
        "FEATURE_TYPES": os.environ.get("FEATURE_TYPES", "statistical,temporal,behavioral"),
        "WINDOW_SIZES": os.environ.get("WINDOW_SIZES", "7,14,30,90"),
        "AGGREGATION_FUNCTIONS": os.environ.get("AGGREGATION_FUNCTIONS", "mean,sum,std,min,max,count"),
        "LAG_FEATURES": os.environ.get("LAG_FEATURES", "1,7"),
        "EXPONENTIAL_SMOOTHING_ALPHA": os.environ.get("EXPONENTIAL_SMOOTHING_ALPHA", "0.3"),
        "TIME_UNIT": os.environ.get("TIME_UNIT", "days"),
        "VALUE_FIELDS": os.environ.get("VALUE_FIELDS", ""),
        "SEQUENCE_GROUPING_FIELD": os.environ.get("SEQUENCE_GROUPING_FIELD", ""),
        "TIMESTAMP_FIELD": os.environ.get("TIMESTAMP_FIELD", ""),
        "LABEL_FIELD": os.environ.get("LABEL_FIELD", ""),
        "ENABLE_VALIDATION": os.environ.get("ENABLE_VALIDATION", "true"),
        "MISSING_VALUE_THRESHOLD": os.environ.get("MISSING_VALUE_THRESHOLD", "0.95"),
        "VARIANCE_THRESHOLD": os.environ.get("VARIANCE_THRESHOLD", "0.0"),
    }
    main({"normalized_sequences": INPUT_DIR}, {"temporal_feature_tensors": OUTPUT_DIR}, environ, args)
