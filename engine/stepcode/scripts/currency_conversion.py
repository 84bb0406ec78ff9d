"""CurrencyConversion: convert monetary columns to one currency.

Inputs
  /opt/ml/processing/input/data                              input_data: split folders as
                                                             TabularPreprocessing writes them
                                                             (<split>/<split>_processed_data.<ext>)
  /opt/ml/processing/input/config/currency_conversion_dict   currency_conversion_dict.json: the
                                                             rates table {"mappings": [{
                                                             "currency_code": "EUR",
                                                             "conversion_rate": 0.92,
                                                             "marketplace_id": 3}, ...]}
                                                             ("currency" and "rate" are accepted
                                                             as well); a rate is units of that
                                                             currency per unit of the target one
Output
  /opt/ml/processing/output          processed_data: the same layout and format; every
                                     CURRENCY_CONVERSION_VARS column divided by its row's rate
Environment
  CURRENCY_CONVERSION_VARS (required, comma-separated), CURRENCY_CODE_FIELD (a column of
  currency codes), MARKETPLACE_ID_FIELD (a column of marketplace ids, mapped to a currency by
  the table; used where the code column is empty), DEFAULT_CURRENCY (rows with neither; its
  own rate applies, 1 when the table lacks it), N_WORKERS (parallel columns).

A currency missing from the table, or with a rate that is not positive, is left unconverted
(rate 1) and named in the log. The training job converts train/, val/ and test/; other job
types their own split.
"""
import argparse
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import pandas as pd

from steplib.splits import data_files, file_format, find_splits, output_name, read_file, write_file

INPUT_DIR = "/opt/ml/processing/input/data"
RATES_DIR = "/opt/ml/processing/input/config/currency_conversion_dict"
OUTPUT_DIR = "/opt/ml/processing/output"

RATES_FILE = "currency_conversion_dict.json"


def log(msg):
    print("[currency_conversion] " + msg, flush=True)


def load_rates(folder):
    path = os.path.join(folder, RATES_FILE)
    if not os.path.isfile(path):
        found = sorted(f for f in os.listdir(folder) if f.endswith(".json")) if os.path.isdir(folder) else []
        if not found:
            sys.exit("no %s in %s" % (RATES_FILE, folder))
        path = os.path.join(folder, found[0])
    with open(path, encoding="utf-8") as f:
        table = json.load(f)
    mappings = table.get("mappings", []) if isinstance(table, dict) else table
    rates, markets = {}, {}
    for m in mappings:
        code = m.get("currency_code", m.get("currency"))
        rate = m.get("conversion_rate", m.get("rate"))
        if code is None:
            continue
        code = str(code).strip()
        if rate is not None:
            rates[code] = float(rate)
        if m.get("marketplace_id") is not None:
            markets[str(m["marketplace_id"]).strip()] = code
    log("%d currencies, %d marketplaces in %s" % (len(rates), len(markets), path))
    return rates, markets


def market_key(v):
    if pd.isna(v):
        return None
    try:
        f = float(v)
        return str(int(f)) if f.is_integer() else str(v).strip()
    except (TypeError, ValueError):
        return str(v).strip()


def row_currencies(df, code_field, market_field, markets, default):
    codes = pd.Series([None] * len(df), index=df.index, dtype=object)
    if code_field and code_field in df.columns:
        codes = df[code_field].map(lambda v: str(v).strip() if pd.notna(v) and str(v).strip() else None).astype(object)
    if market_field and market_field in df.columns:
        from_market = df[market_field].map(lambda v: markets.get(market_key(v)))
        codes = codes.where(codes.notna(), from_market)
    return codes.fillna(default)


def convert(df, columns, code_field, market_field, rates, markets, default, workers):
    present = [c for c in columns if c in df.columns]
    absent = [c for c in columns if c not in df.columns]
    if absent:
        log("columns not in the data, skipped: %s" % absent)
    if not present:
        return df, {}
    codes = row_currencies(df, code_field, market_field, markets, default)
    # The default currency may be absent from the table (it is then the target, rate 1).
    bad = sorted(c for c in codes.unique() if not rates.get(c, 0) > 0 and not (c == default and default not in rates))
    if bad:
        log("no positive rate for %s: those rows are left unconverted" % bad)
    rate = codes.map(lambda c: rates.get(c) if rates.get(c, 0) > 0 else 1.0).astype(float)
    df = df.copy()

    def one(col):
        return col, pd.to_numeric(df[col], errors="coerce") / rate

    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(present)))) as pool:
        for col, values in pool.map(one, present):
            df[col] = values
    return df, codes.value_counts().to_dict()


def main(input_paths, output_paths, environ_vars, job_args):
    columns = [c.strip() for c in str(environ_vars.get("CURRENCY_CONVERSION_VARS") or "").split(",") if c.strip()]
    if not columns:
        sys.exit("CURRENCY_CONVERSION_VARS is required")
    code_field = str(environ_vars.get("CURRENCY_CODE_FIELD") or "").strip()
    market_field = str(environ_vars.get("MARKETPLACE_ID_FIELD") or "").strip()
    if not code_field and not market_field:
        log("neither CURRENCY_CODE_FIELD nor MARKETPLACE_ID_FIELD is set: every row is in the default currency")
    default = str(environ_vars.get("DEFAULT_CURRENCY") or "USD").strip()
    workers = int(environ_vars.get("N_WORKERS") or 50)
    rates, markets = load_rates(input_paths["currency_conversion_dict"])
    counts = {}
    for split, folder in find_splits(input_paths["input_data"], job_args.job_type, require_train=False).items():
        files = data_files(folder)
        df = pd.concat([read_file(f) for f in files], ignore_index=True)
        df, per_currency = convert(df, columns, code_field, market_field, rates, markets, default, workers)
        out = os.path.join(output_paths["processed_data"], split)
        os.makedirs(out, exist_ok=True)
        fmt = file_format(files[0])
        write_file(df, os.path.join(out, output_name(split, fmt)))
        counts[split] = len(df)
        log("%s: %d rows, currencies %s" % (split, len(df), per_currency))
    return counts


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Convert monetary columns to one currency.")
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    environ = {
        "CURRENCY_CONVERSION_VARS": os.environ.get("CURRENCY_CONVERSION_VARS", ""),
        "CURRENCY_CODE_FIELD": os.environ.get("CURRENCY_CODE_FIELD", ""),
        "MARKETPLACE_ID_FIELD": os.environ.get("MARKETPLACE_ID_FIELD", ""),
        "DEFAULT_CURRENCY": os.environ.get("DEFAULT_CURRENCY", ""),
        "N_WORKERS": os.environ.get("N_WORKERS", ""),
    }
    main({"input_data": INPUT_DIR, "currency_conversion_dict": RATES_DIR}, {"processed_data": OUTPUT_DIR}, environ, args)
