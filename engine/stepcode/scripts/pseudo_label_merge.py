"""PseudoLabelMerge: add pseudo-labelled rows (ActiveSampleSelection's) to a labelled training set.

Input
  /opt/ml/processing/input/base_data           base_data: the labelled data, split folders
                                               train/, val/, test/ (or one folder of rows)
  /opt/ml/processing/input/augmentation_data   augmentation_data: rows with PSEUDO_LABEL_COLUMN
                                               (a class index) and confidence
Output
  /opt/ml/processing/output/merged_data        merged_data: the base splits with the new rows:
                                               all into train/ (USE_AUTO_SPLIT_RATIOS false), or
                                               spread over train/ and val/ (and test/ when
                                               TEST_VAL_RATIO says) in the base's proportions or
                                               TRAIN_RATIO's, by class when STRATIFY
Environment
  LABEL_FIELD (required), PSEUDO_LABEL_COLUMN, LABEL_VALUES (the label values in class-index
  order; default: 0 and 1 when the base labels are, else the sorted base labels, as the trainers
  number classes), ID_FIELD (a pseudo row whose id is already labelled is dropped),
  ADD_PROVENANCE (a data_source column: original or pseudo_labeled), PRESERVE_CONFIDENCE (keep a
  pseudo_label_confidence column), USE_AUTO_SPLIT_RATIOS, TRAIN_RATIO, TEST_VAL_RATIO, STRATIFY,
  RANDOM_SEED, OUTPUT_FORMAT (csv, tsv or parquet; default: the base's)
Arguments
  --job_type
"""
import argparse
import os
import sys

import numpy as np
import pandas as pd

from steplib import labels, splits, tables

BASE_DIR = "/opt/ml/processing/input/base_data"
AUG_DIR = "/opt/ml/processing/input/augmentation_data"
MERGED_OUT = "/opt/ml/processing/output/merged_data"


def log(msg):
    print("[pseudo_label_merge] " + msg, flush=True)


def read_base(folder, job_type):
    """{split: frame} and the base's format."""
    found = splits.find_splits(folder, job_type, require_train=False)
    out, fmt = {}, "csv"
    for name, sub in found.items():
        out[name], fmt = splits.read_split(sub)
    return out, fmt


def class_values(base_labels, given):
    if given:
        return [labels.category_key(v) for v in given]
    seen = sorted(set(labels.category_key(v) for v in base_labels) - {""}, key=labels.sort_key)
    return ["0", "1"] if set(seen) <= {"0", "1"} else seen


def typed(values, series):
    """Label values spelt as the base column spells them (numbers stay numbers)."""
    if pd.api.types.is_numeric_dtype(series):
        return [float(v) if "." in v else int(v) for v in values]
    return values


def main(input_paths, output_paths, environ_vars, job_args):
    label = environ_vars["LABEL_FIELD"].strip()
    pseudo_col = environ_vars.get("PSEUDO_LABEL_COLUMN") or "pseudo_label"
    rng = np.random.default_rng(int(environ_vars.get("RANDOM_SEED") or 42))
    base, fmt = read_base(input_paths["base_data"], job_args.job_type)
    fmt = (environ_vars.get("OUTPUT_FORMAT") or "").strip().lower() or fmt
    if fmt not in ("csv", "tsv", "parquet"):
        sys.exit("OUTPUT_FORMAT %r: csv, tsv or parquet" % fmt)
    first = next(iter(base.values()))
    if label not in first.columns:
        sys.exit("LABEL_FIELD %r is not a column of the base data (columns: %s)" % (label, list(first.columns)))
    aug, _ = tables.read_tables(input_paths["augmentation_data"], needed=(pseudo_col,), log=log)
    if aug is None or not len(aug):
        sys.exit("no rows with a %s column under %s: connect ActiveSampleSelection's selected_samples" % (pseudo_col, input_paths["augmentation_data"]))

    all_labels = pd.concat([df[label] for df in base.values()], ignore_index=True)
    values = class_values(all_labels, tables.names(environ_vars.get("LABEL_VALUES")))
    idx = pd.to_numeric(aug[pseudo_col], errors="coerce")
    bad = idx.isna() | (idx < 0) | (idx >= len(values))
    if bad.any():
        sys.exit("%d %s values are not class indices of %s (first: %s)" % (int(bad.sum()), pseudo_col, values, list(aug.loc[bad, pseudo_col].head(3))))
    spelt = typed(values, all_labels)
    aug[label] = [spelt[int(i)] for i in idx]
    id_field = environ_vars.get("ID_FIELD") or ""
    if id_field and id_field in aug.columns and id_field in first.columns:
        known = set(pd.concat([df[id_field] for df in base.values()]).astype(str))
        dup = aug[id_field].astype(str).isin(known)
        if dup.any():
            log("dropped %d pseudo-labelled rows whose %s is already labelled" % (int(dup.sum()), id_field))
            aug = aug[~dup.to_numpy()]
    columns = list(first.columns)
    if tables.truthy(environ_vars.get("PRESERVE_CONFIDENCE"), True) and "confidence" in aug.columns:
        aug["pseudo_label_confidence"] = aug["confidence"]
        columns.append("pseudo_label_confidence")
    provenance = tables.truthy(environ_vars.get("ADD_PROVENANCE"), True)
    if provenance:
        aug["data_source"] = "pseudo_labeled"
        for df in base.values():
            df["data_source"] = "original"
        columns.append("data_source")
    aug = aug.reindex(columns=columns)

    # where the new rows go
    if not tables.truthy(environ_vars.get("USE_AUTO_SPLIT_RATIOS"), True) or len(base) == 1:
        shares = {("train" if "train" in base else next(iter(base))): 1.0}
    elif environ_vars.get("TRAIN_RATIO"):
        train = float(environ_vars["TRAIN_RATIO"])
        test_val = float(environ_vars.get("TEST_VAL_RATIO") or 0)
        shares = {"train": train, "test": (1 - train) * test_val, "val": (1 - train) * (1 - test_val)}
    else:  # the base's own proportions, test left out (evaluation keeps the true mix)
        sizes = {k: len(v) for k, v in base.items() if k != "test"}
        total = float(sum(sizes.values())) or 1.0
        shares = {k: n / total for k, n in sizes.items()}
    shares = {k: v for k, v in shares.items() if v > 0 and k in base}
    assign = np.empty(len(aug), dtype=object)
    groups = [np.arange(len(aug))]
    if tables.truthy(environ_vars.get("STRATIFY"), True):
        groups = [np.flatnonzero((aug[label].astype(str) == str(v)).to_numpy()) for v in spelt]
    names = list(shares)
    p = np.array([shares[n] for n in names]) / sum(shares.values())
    for g in groups:
        g = rng.permutation(g)
        cuts = np.round(np.cumsum(p) * len(g)).astype(int)
        start = 0
        for n, end in zip(names, cuts):
            assign[g[start:end]] = n
            start = end
    counts = {}
    for name, df in base.items():
        add = aug[assign == name]
        merged = pd.concat([df.reindex(columns=columns), add], ignore_index=True)
        os.makedirs(os.path.join(output_paths["merged_data"], name), exist_ok=True)
        splits.write_file(merged, os.path.join(output_paths["merged_data"], name, splits.output_name(name, fmt)))
        counts[name] = {"original": int(len(df)), "pseudo_labeled": int(len(add))}
    log("merged %d pseudo-labelled rows: %s" % (len(aug), counts))
    return counts


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Merge pseudo-labelled rows into labelled training data.")
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    environ = {
        "LABEL_FIELD": os.environ["LABEL_FIELD"],
        "PSEUDO_LABEL_COLUMN": os.environ.get("PSEUDO_LABEL_COLUMN", "pseudo_label"),
        "LABEL_VALUES": os.environ.get("LABEL_VALUES", ""),
        "ID_FIELD": os.environ.get("ID_FIELD", "id"),
        "ADD_PROVENANCE": os.environ.get("ADD_PROVENANCE", "true"),
        "PRESERVE_CONFIDENCE": os.environ.get("PRESERVE_CONFIDENCE", "true"),
        "USE_AUTO_SPLIT_RATIOS": os.environ.get("USE_AUTO_SPLIT_RATIOS", "true"),
        "TRAIN_RATIO": os.environ.get("TRAIN_RATIO", ""),
        "TEST_VAL_RATIO": os.environ.get("TEST_VAL_RATIO", ""),
        "STRATIFY": os.environ.get("STRATIFY", "true"),
        "RANDOM_SEED": os.environ.get("RANDOM_SEED", "42"),
        "OUTPUT_FORMAT": os.environ.get("OUTPUT_FORMAT", ""),
    }
    main({"base_data": BASE_DIR, "augmentation_data": AUG_DIR}, {"merged_data": MERGED_OUT}, environ, args)
