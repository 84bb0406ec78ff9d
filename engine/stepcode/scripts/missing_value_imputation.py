"""MissingValueImputation: fill missing values per column type.

Inputs
  /opt/ml/processing/input/data             input_data: split folders as TabularPreprocessing
                                            writes them (<split>/<split>_processed_data.<csv|tsv|
                                            parquet>; every data file of a split folder is read)
  /opt/ml/processing/input/model_artifacts  model_artifacts_input: impute_dict.pkl from the
                                            training job (required by every other job type); all
                                            of its files are passed on to model_artifacts_output
  /opt/ml/processing/input/config/column_strategies
                                            column_strategies, optional: column_strategies.json,
                                            {column: strategy} overriding the defaults per column
Outputs
  /opt/ml/processing/output/data            processed_data: the same layout and format, imputed
  /opt/ml/processing/output/model_artifacts model_artifacts_output: impute_dict.pkl (a pickled
                                            {column: fill value}), imputation_summary.json, and
                                            the files of model_artifacts_input
Environment
  LABEL_FIELD (never imputed), DEFAULT_NUMERICAL_STRATEGY (mean, median, constant),
  DEFAULT_CATEGORICAL_STRATEGY (mode, constant), DEFAULT_TEXT_STRATEGY (mode, constant, empty),
  NUMERICAL_CONSTANT_VALUE, CATEGORICAL_CONSTANT_VALUE, TEXT_CONSTANT_VALUE,
  CATEGORICAL_PRESERVE_DTYPE, AUTO_DETECT_CATEGORICAL and CATEGORICAL_UNIQUE_RATIO_THRESHOLD
  (a string column with fewer distinct values per row than the threshold is categorical, else
  text; without auto-detection every string column is categorical), VALIDATE_FILL_VALUES
  (refuse a constant pandas would read back as missing), EXCLUDE_COLUMNS (comma-separated),
  ENABLE_TRUE_STREAMING (file by file; medians
  from the training split's values), MAX_WORKERS (parallel files when streaming).

The training job fits on train/ and imputes train/, val/ and test/; other job types impute
their own split with the fitted values.
"""
import argparse
import json
import os
import pickle
import sys

import pandas as pd

from steplib.splits import copy_artifacts, data_files, find_splits, read_file, read_split, transform_split

INPUT_DIR = "/opt/ml/processing/input/data"
ARTIFACTS_IN_DIR = "/opt/ml/processing/input/model_artifacts"
STRATEGIES_DIR = "/opt/ml/processing/input/config/column_strategies"
DATA_OUT_DIR = "/opt/ml/processing/output/data"
ARTIFACTS_OUT_DIR = "/opt/ml/processing/output/model_artifacts"

PARAMS_FILE = "impute_dict.pkl"
SUMMARY_FILE = "imputation_summary.json"
PANDAS_NA = {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
             "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"}
STRATEGIES = {"numerical": ("mean", "median", "constant"), "categorical": ("mode", "constant"), "text": ("mode", "constant", "empty")}


def log(msg):
    print("[missing_value_imputation] " + msg, flush=True)


def flag(value, default):
    raw = str(value if value is not None else "").strip().lower()
    return default if raw == "" else raw in ("true", "1", "yes", "y")


def load_column_strategies(folder):
    path = os.path.join(folder, "column_strategies.json")
    if not folder or not os.path.isfile(path):
        return {}
    with open(path, encoding="utf-8") as f:
        try:
            strategies = json.load(f)
        except ValueError as e:
            sys.exit("%s is not JSON: %s" % (path, e))
    if not isinstance(strategies, dict):
        sys.exit("%s must hold an object {column: strategy}" % path)
    return strategies


def load_config(environ_vars, column_strategies):
    def text(name, default):
        v = environ_vars.get(name)
        return default if v is None or str(v).strip() == "" else str(v).strip()

    cfg = {
        "label": text("LABEL_FIELD", ""),
        "numerical": text("DEFAULT_NUMERICAL_STRATEGY", "mean").lower(),
        "categorical": text("DEFAULT_CATEGORICAL_STRATEGY", "mode").lower(),
        "text": text("DEFAULT_TEXT_STRATEGY", "mode").lower(),
        "numerical_constant": float(text("NUMERICAL_CONSTANT_VALUE", "0")),
        "categorical_constant": text("CATEGORICAL_CONSTANT_VALUE", "Unknown"),
        "text_constant": text("TEXT_CONSTANT_VALUE", "Unknown"),
        "preserve_dtype": flag(environ_vars.get("CATEGORICAL_PRESERVE_DTYPE"), True),
        "auto_detect": flag(environ_vars.get("AUTO_DETECT_CATEGORICAL"), True),
        "ratio": float(text("CATEGORICAL_UNIQUE_RATIO_THRESHOLD", "0.1")),
        "validate": flag(environ_vars.get("VALIDATE_FILL_VALUES"), True),
        "exclude": [c.strip() for c in text("EXCLUDE_COLUMNS", "").split(",") if c.strip()],
        "columns": {str(k): str(v).lower() for k, v in column_strategies.items()},
        "streaming": flag(environ_vars.get("ENABLE_TRUE_STREAMING"), False),
        "workers": int(text("MAX_WORKERS", "0")),
    }
    for kind in STRATEGIES:
        if cfg[kind] not in STRATEGIES[kind]:
            sys.exit("DEFAULT_%s_STRATEGY must be one of %s, not %r" % (kind.upper(), ", ".join(STRATEGIES[kind]), cfg[kind]))
    if cfg["validate"]:
        for name in ("categorical_constant", "text_constant"):
            if cfg[name] in PANDAS_NA:
                sys.exit("%s_VALUE %r would be read back as missing; choose another fill value" % (name.upper(), cfg[name]))
    return cfg


def column_kind(series, cfg):
    if pd.api.types.is_bool_dtype(series) or pd.api.types.is_numeric_dtype(series):
        return "numerical"
    if isinstance(series.dtype, pd.CategoricalDtype) or not cfg["auto_detect"]:
        return "categorical"
    present = series.dropna()
    if len(present) == 0:
        return "categorical"
    return "categorical" if present.nunique() / float(len(present)) < cfg["ratio"] else "text"


def strategy_for(column, kind, cfg):
    s = cfg["columns"].get(column, cfg[kind])
    allowed = STRATEGIES[kind]
    if s not in allowed:
        sys.exit("strategy %r for %s column %s: use one of %s" % (s, kind, column, ", ".join(allowed)))
    return s


def fill_value(series, kind, strategy, cfg):
    present = series.dropna()
    if strategy == "constant":
        return {"numerical": cfg["numerical_constant"], "categorical": cfg["categorical_constant"], "text": cfg["text_constant"]}[kind]
    if strategy == "empty":
        return ""
    if strategy == "mean":
        return float(present.mean()) if len(present) else cfg["numerical_constant"]
    if strategy == "median":
        return float(present.median()) if len(present) else cfg["numerical_constant"]
    # mode
    if len(present) == 0:
        return cfg["categorical_constant"] if kind == "categorical" else cfg["text_constant"]
    return present.astype(str).mode().iloc[0] if kind != "numerical" else float(present.mode().iloc[0])


def fit(train, cfg):
    """{column: fill value} and a per-column summary, from the training split."""
    skip = set(cfg["exclude"]) | ({cfg["label"]} if cfg["label"] else set())
    params, summary = {}, {}
    for col in train.columns:
        if col in skip:
            continue
        kind = column_kind(train[col], cfg)
        strategy = strategy_for(col, kind, cfg)
        value = fill_value(train[col], kind, strategy, cfg)
        params[col] = value
        summary[col] = {"kind": kind, "strategy": strategy, "fill_value": value, "missing_in_train": int(train[col].isna().sum())}
    return params, summary


def apply(df, params, cfg):
    df = df.copy()
    for col, value in params.items():
        if col not in df.columns or not df[col].isna().any():
            continue
        s = df[col]
        if isinstance(s.dtype, pd.CategoricalDtype):
            if value not in s.cat.categories:
                s = s.cat.add_categories([value])
            s = s.fillna(value)
            df[col] = s if cfg["preserve_dtype"] else s.astype(object)
        elif pd.api.types.is_numeric_dtype(s) and not isinstance(value, (int, float)):
            df[col] = s.astype(object).fillna(value)
        else:
            df[col] = s.fillna(value)
    return df


def stream_fit(files, cfg):
    """Fit from the training files one at a time: sums for means, counts for modes, values for medians."""
    first = read_file(files[0])
    skip = set(cfg["exclude"]) | ({cfg["label"]} if cfg["label"] else set())
    kinds = {c: column_kind(first[c], cfg) for c in first.columns if c not in skip}
    strategies = {c: strategy_for(c, k, cfg) for c, k in kinds.items()}
    sums, counts, values, modes, missing = {}, {}, {}, {}, {}
    for f in files:
        df = read_file(f)
        for c in kinds:
            s = df[c] if c in df.columns else pd.Series([], dtype=float)
            missing[c] = missing.get(c, 0) + int(s.isna().sum())
            p = s.dropna()
            if strategies[c] == "mean":
                sums[c] = sums.get(c, 0.0) + float(p.sum())
                counts[c] = counts.get(c, 0) + len(p)
            elif strategies[c] == "median":
                values.setdefault(c, []).append(p.astype(float))
            elif strategies[c] == "mode":
                vc = (p.astype(str) if kinds[c] != "numerical" else p).value_counts()
                acc = modes.setdefault(c, {})
                for k, n in vc.items():
                    acc[k] = acc.get(k, 0) + int(n)
    params, summary = {}, {}
    for c, kind in kinds.items():
        st = strategies[c]
        if st == "mean":
            v = sums[c] / counts[c] if counts.get(c) else cfg["numerical_constant"]
        elif st == "median":
            vals = pd.concat(values.get(c, []), ignore_index=True) if values.get(c) else pd.Series([], dtype=float)
            v = float(vals.median()) if len(vals) else cfg["numerical_constant"]
        elif st == "mode":
            acc = modes.get(c, {})
            v = sorted(acc.items(), key=lambda kv: (-kv[1], str(kv[0])))[0][0] if acc else fill_value(pd.Series([], dtype=object), kind, st, cfg)
            v = float(v) if kind == "numerical" else v
        else:
            v = fill_value(pd.Series([], dtype=object), kind, st, cfg)
        params[c] = v
        summary[c] = {"kind": kind, "strategy": st, "fill_value": v, "missing_in_train": missing.get(c, 0)}
    return params, summary


def main(input_paths, output_paths, environ_vars, job_args):
    cfg = load_config(environ_vars, load_column_strategies(input_paths["column_strategies"]))
    job_type = job_args.job_type
    splits = find_splits(input_paths["input_data"], job_type)
    data_out, art_out = output_paths["processed_data"], output_paths["model_artifacts_output"]
    art_in = input_paths["model_artifacts_input"]
    os.makedirs(art_out, exist_ok=True)
    copied = copy_artifacts(art_in, art_out)
    if copied:
        log("passed on %d artifact file(s) from %s" % (copied, art_in))

    if job_type == "training":
        if cfg["streaming"]:
            params, summary = stream_fit(data_files(splits["train"]), cfg)
        else:
            train, _ = read_split(splits["train"])
            if cfg["label"] and cfg["label"] not in train.columns:
                sys.exit("LABEL_FIELD %r is not a column of train (columns %s)" % (cfg["label"], list(train.columns)))
            params, summary = fit(train, cfg)
        with open(os.path.join(art_out, PARAMS_FILE), "wb") as f:
            pickle.dump(params, f)
        with open(os.path.join(art_out, SUMMARY_FILE), "w", encoding="utf-8") as f:
            json.dump({"label": cfg["label"], "columns": summary}, f, indent=2, default=str)
        log("fitted %d column(s): %s" % (len(params), {c: v for c, v in list(params.items())[:8]}))
    else:
        path = os.path.join(art_in, PARAMS_FILE) if art_in else ""
        if not path or not os.path.isfile(path):
            sys.exit("job type %s needs the training job's %s in %s" % (job_type, PARAMS_FILE, art_in))
        with open(path, "rb") as f:
            params = pickle.load(f)
        log("loaded %d fill value(s) from %s" % (len(params), path))

    counts, left = {}, []

    def impute(df):
        df = apply(df, params, cfg)
        left.append(int(df[[p for p in params if p in df.columns]].isna().sum().sum()))
        return df

    for split, folder in splits.items():
        del left[:]
        counts[split] = transform_split(folder, data_out, split, impute, cfg["streaming"], cfg["workers"])
        log("%s: %d rows imputed, %d missing cell(s) left in imputed columns" % (split, counts[split], sum(left)))
    return counts


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Fill missing values per column type.")
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    environ = {
        "LABEL_FIELD": os.environ.get("LABEL_FIELD", ""),
        "DEFAULT_NUMERICAL_STRATEGY": os.environ.get("DEFAULT_NUMERICAL_STRATEGY", ""),
        "DEFAULT_CATEGORICAL_STRATEGY": os.environ.get("DEFAULT_CATEGORICAL_STRATEGY", ""),
        "DEFAULT_TEXT_STRATEGY": os.environ.get("DEFAULT_TEXT_STRATEGY", ""),
        "NUMERICAL_CONSTANT_VALUE": os.environ.get("NUMERICAL_CONSTANT_VALUE", ""),
        "CATEGORICAL_CONSTANT_VALUE": os.environ.get("CATEGORICAL_CONSTANT_VALUE", ""),
        "TEXT_CONSTANT_VALUE": os.environ.get("TEXT_CONSTANT_VALUE", ""),
        "CATEGORICAL_PRESERVE_DTYPE": os.environ.get("CATEGORICAL_PRESERVE_DTYPE", ""),
        "AUTO_DETECT_CATEGORICAL": os.environ.get("AUTO_DETECT_CATEGORICAL", ""),
        "CATEGORICAL_UNIQUE_RATIO_THRESHOLD": os.environ.get("CATEGORICAL_UNIQUE_RATIO_THRESHOLD", ""),
        "VALIDATE_FILL_VALUES": os.environ.get("VALIDATE_FILL_VALUES", ""),
        "EXCLUDE_COLUMNS": os.environ.get("EXCLUDE_COLUMNS", ""),
        "ENABLE_TRUE_STREAMING": os.environ.get("ENABLE_TRUE_STREAMING", ""),
        "MAX_WORKERS": os.environ.get("MAX_WORKERS", ""),
    }
    main({"input_data": INPUT_DIR, "model_artifacts_input": ARTIFACTS_IN_DIR, "column_strategies": STRATEGIES_DIR},
         {"processed_data": DATA_OUT_DIR, "model_artifacts_output": ARTIFACTS_OUT_DIR}, environ, args)
