"""Split the loaded CSV data into train/, val/ and test/ folders.

Reads /opt/ml/processing/input/data, writes /opt/ml/processing/output/<split>/.
LABEL_FIELD, TRAIN_RATIO and TEST_VAL_RATIO come from the environment.
"""
import argparse
import glob
import os
import random

INPUT = "/opt/ml/processing/input/data"
OUT = "/opt/ml/processing/output"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    label = os.environ.get("LABEL_FIELD", "")
    train_ratio = float(os.environ.get("TRAIN_RATIO", "0.7"))
    test_val_ratio = float(os.environ.get("TEST_VAL_RATIO", "0.5"))

    header, rows = None, []
    for path in sorted(glob.glob(os.path.join(INPUT, "*.csv"))):
        with open(path) as f:
            lines = f.read().splitlines()
        if not lines:
            continue
        header = header or lines[0]
        rows.extend(lines[1:])
    if header is None:
        raise SystemExit("no CSV input under " + INPUT)
    if label and label not in header.split(","):
        raise SystemExit(f"label column {label!r} not in {header!r}")

    if args.job_type != "training":
        splits = {args.job_type: rows}
    else:
        random.Random(42).shuffle(rows)
        n_train = int(len(rows) * train_ratio)
        holdout = rows[n_train:]
        n_test = int(len(holdout) * test_val_ratio)
        splits = {"train": rows[:n_train], "test": holdout[:n_test], "val": holdout[n_test:]}
    for name, part in splits.items():
        os.makedirs(os.path.join(OUT, name), exist_ok=True)
        with open(os.path.join(OUT, name, f"{name}.csv"), "w") as f:
            f.write("\n".join([header] + part) + "\n")


if __name__ == "__main__":
    main()
