"""Generate a small synthetic tabular data set with a fixed seed.

Writes, for the step's job type:
  /opt/ml/processing/output/data/part-00000.csv ...  CSV shards with a header row:
      id, num_1..num_N (float), cat_1..cat_M (strings A..E), <label>
  /opt/ml/processing/output/signature/signature       the column names, comma-separated

NUMERIC_COLUMNS and CATEGORICAL_COLUMNS (comma-separated names) name the
feature columns instead (their counts replace NUM_NUMERIC_FEATURES and
NUM_CATEGORICAL_FEATURES), and ID_FIELD names the id column, so the data
has the columns a pipeline's trainer reads (its tab_field_list,
cat_field_list, id and label).

The label depends on the features (a noisy linear score), so a model can learn
it: binary with NUM_CLASSES=2 (POSITIVE_RATE of the rows are 1), else classes
0..NUM_CLASSES-1 by score quantile. MISSING_RATE blanks that share of the
numeric cells.
"""
import argparse
import os
import sys

import numpy as np
import pandas as pd

DATA_DIR = "/opt/ml/processing/output/data"
SIGNATURE_DIR = "/opt/ml/processing/output/signature"

SHARD_ROWS = 5000
CATEGORIES = ["A", "B", "C", "D", "E"]


def env_int(name, default):
    raw = os.environ.get(name, "")
    return int(raw) if raw.strip() else default


def env_float(name, default):
    raw = os.environ.get(name, "")
    return float(raw) if raw.strip() else default


def names(raw):
    return [c.strip() for c in raw.split(",") if c.strip()]


def generate(rows, numeric, categorical, id_field, label, positive_rate, classes, missing_rate, seed):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({id_field: np.arange(1, rows + 1)})
    score = rng.normal(0.0, 0.5, rows)
    for i, name in enumerate(numeric, 1):
        col = rng.normal(0.0, 1.0, rows)
        score += col * (1.0 / i)
        if missing_rate > 0:
            col = np.where(rng.random(rows) < missing_rate, np.nan, col)
        df[name] = np.round(col, 6)
    weights = np.linspace(-1.0, 1.0, len(CATEGORIES))
    for name in categorical:
        idx = rng.integers(0, len(CATEGORIES), rows)
        score += weights[idx] * 0.5
        df[name] = np.array(CATEGORIES)[idx]
    if classes <= 2:
        threshold = np.quantile(score, 1.0 - positive_rate) if 0 < positive_rate < 1 else (np.inf if positive_rate <= 0 else -np.inf)
        y = (score > threshold).astype(int) if positive_rate < 1 else np.ones(rows, dtype=int)
    else:
        edges = np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1])
        y = np.searchsorted(edges, score, side="right").astype(int)
    df[label] = y
    return df


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args(argv)

    rows = env_int("NUM_ROWS", 1000)
    n_num = env_int("NUM_NUMERIC_FEATURES", 5)
    n_cat = env_int("NUM_CATEGORICAL_FEATURES", 2)
    label = os.environ.get("LABEL_FIELD", "") or "label"
    positive_rate = env_float("POSITIVE_RATE", 0.1)
    classes = env_int("NUM_CLASSES", 2)
    missing_rate = env_float("MISSING_RATE", 0.0)
    seed = env_int("RANDOM_SEED", 42)
    id_field = os.environ.get("ID_FIELD", "").strip() or "id"
    numeric = names(os.environ.get("NUMERIC_COLUMNS", "")) or ["num_%d" % i for i in range(1, n_num + 1)]
    categorical = names(os.environ.get("CATEGORICAL_COLUMNS", "")) or ["cat_%d" % i for i in range(1, n_cat + 1)]
    columns = [id_field] + numeric + categorical + [label]
    if len(set(columns)) != len(columns):
        sys.exit("dummy_data_generation: column names repeat: %s" % ", ".join(columns))
    if rows < 1 or classes < 2 or not 0 <= positive_rate <= 1 or not 0 <= missing_rate < 1:
        sys.exit("dummy_data_generation: need NUM_ROWS >= 1, NUM_CLASSES >= 2, 0 <= POSITIVE_RATE <= 1, 0 <= MISSING_RATE < 1")

    # Different job types get different rows from the same seed.
    offset = sum(ord(c) for c in args.job_type)
    df = generate(rows, numeric, categorical, id_field, label, positive_rate, classes, missing_rate, seed + offset)

    os.makedirs(DATA_DIR, exist_ok=True)
    for n, start in enumerate(range(0, rows, SHARD_ROWS)):
        df.iloc[start:start + SHARD_ROWS].to_csv(os.path.join(DATA_DIR, "part-%05d.csv" % n), index=False)
    os.makedirs(SIGNATURE_DIR, exist_ok=True)
    with open(os.path.join(SIGNATURE_DIR, "signature"), "w") as f:
        f.write(",".join(df.columns) + "\n")
    print("dummy_data_generation: %s: %d rows, %d columns, label %s (%d classes)" % (args.job_type, rows, len(df.columns), label, classes))


if __name__ == "__main__":
    main()
