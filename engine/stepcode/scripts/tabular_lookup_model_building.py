"""TabularLookupModelBuilding: build a lookup table from data and write it as a model, served by
inference/lookup (key fields in, the looked-up value out), so a table of per-key scores, rates or
limits deploys and registers like any trained model.

Input
  /opt/ml/processing/input/data     input_data: the rows (CSV, TSV, Parquet or JSON, any folder
                                    depth, split folders too)
Output
  /opt/ml/processing/output/model   model_output: lookup_table.csv (the key fields, the value,
                                    the row count behind it) and model_config.json (framework
                                    lookup, key fields, value field, default, aggregation) - the
                                    files Package puts in model.tar.gz beside inference/lookup
Environment
  KEY_FIELDS (required, comma-separated), VALUE_FIELD (required unless AGGREGATION is count),
  AGGREGATION (mean, sum, min, max, median, first, last, count, mode), MIN_COUNT (keys seen in
  fewer rows get the default), DEFAULT_VALUE (for unknown keys; default: the aggregation over
  every row), NORMALIZE_KEYS (keys compared trimmed and lower-cased)
Arguments
  --job_type
"""
import argparse
import json
import math
import os
import sys

import pandas as pd

from steplib import tables

INPUT_DIR = "/opt/ml/processing/input/data"
MODEL_OUT = "/opt/ml/processing/output/model"

AGGREGATIONS = ("mean", "sum", "min", "max", "median", "first", "last", "count", "mode")


def log(msg):
    print("[tabular_lookup_model_building] " + msg, flush=True)


def key_text(v, normalize):
    """A key value as the table and the server spell it: 1, 1.0 and "1" alike; missing is ""."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    s = str(v).strip()
    try:
        f = float(s)
        if f.is_integer():
            s = str(int(f))
    except ValueError:
        pass
    return s.lower() if normalize else s


def aggregate(series, how):
    if how == "count":
        return float(len(series))
    if how == "mode":
        m = series.dropna().mode()
        return m.iloc[0] if len(m) else None
    if how in ("first", "last"):
        s = series.dropna()
        return (s.iloc[0] if how == "first" else s.iloc[-1]) if len(s) else None
    x = pd.to_numeric(series, errors="coerce")
    return float(getattr(x, how)()) if x.notna().any() else None


def jsonable(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    if hasattr(v, "item"):
        return v.item()
    return v


def main(input_paths, output_paths, environ_vars, job_args):
    keys = tables.names(environ_vars["KEY_FIELDS"])
    if not keys:
        sys.exit("KEY_FIELDS is empty: name the columns the table is keyed by (config field key_fields)")
    how = (environ_vars.get("AGGREGATION") or "mean").strip()
    if how not in AGGREGATIONS:
        sys.exit("AGGREGATION %r: one of %s" % (how, ", ".join(AGGREGATIONS)))
    value = (environ_vars.get("VALUE_FIELD") or "").strip()
    if not value and how != "count":
        sys.exit("VALUE_FIELD is empty: name the column to look up (or use AGGREGATION count)")
    normalize = tables.truthy(environ_vars.get("NORMALIZE_KEYS"), False)
    min_count = int(environ_vars.get("MIN_COUNT") or 1)
    df, files = tables.read_tables(input_paths["input_data"], needed=keys + ([value] if value else []), log=log)
    if df is None:
        sys.exit("no table under %s has the columns %s" % (input_paths["input_data"], keys + ([value] if value else [])))
    col = value or keys[0]
    default_text = (environ_vars.get("DEFAULT_VALUE") or "").strip()
    if default_text:
        try:
            default = json.loads(default_text)
        except ValueError:
            default = default_text
    else:
        default = jsonable(aggregate(df[col], how))
    k = df[keys].apply(lambda s: s.map(lambda v: key_text(v, normalize)))
    rows = []
    for key, idx in k.groupby(keys, sort=True).groups.items():
        key = key if isinstance(key, tuple) else (key,)
        if any(part == "" for part in key):
            continue
        n = len(idx)
        v = jsonable(aggregate(df.loc[idx, col], how)) if n >= min_count else default
        rows.append(list(key) + [v, n])
    name = value or "count"
    table = pd.DataFrame(rows, columns=keys + [name, "row_count"])
    os.makedirs(output_paths["model_output"], exist_ok=True)
    table.to_csv(os.path.join(output_paths["model_output"], "lookup_table.csv"), index=False)
    config = {"framework": "lookup", "model_file": "lookup_table.csv", "key_fields": keys, "value_field": name,
              "aggregation": how, "default_value": default, "min_count": min_count, "normalize_keys": normalize,
              "entries": int(len(table)), "source_rows": int(len(df)), "job_type": job_args.job_type}
    with open(os.path.join(output_paths["model_output"], "model_config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2)
    log("%d keys (%s of %s by %s) from %d rows of %d file(s); default %r" % (len(table), how, name, ", ".join(keys), len(df), len(files), default))
    return config


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Build a lookup table served as a model.")
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    environ = {
        "KEY_FIELDS": os.environ.get("KEY_FIELDS", ""),
        "VALUE_FIELD": os.environ.get("VALUE_FIELD", ""),
        "AGGREGATION": os.environ.get("AGGREGATION", "mean"),
        "MIN_COUNT": os.environ.get("MIN_COUNT", "1"),
        "DEFAULT_VALUE": os.environ.get("DEFAULT_VALUE", ""),
        "NORMALIZE_KEYS": os.environ.get("NORMALIZE_KEYS", "false"),
    }
    main({"input_data": INPUT_DIR}, {"model_output": MODEL_OUT}, environ, args)
