"""StratifiedSampling: draw a stratified sample of each data split.

Input
  /opt/ml/processing/input/data     input_data: split folders as TabularPreprocessing writes them,
                                    <split>/<split>_processed_data.<csv|tsv|parquet> (every data
                                    file of a split folder is read); a job type other than
                                    training reads the folder named after it (or the only one)
Output
  /opt/ml/processing/output         processed_data: the same layout and format, plus
                                    <split>/sampling_diagnostics.json (requested and drawn rows
                                    per stratum). The training job samples train/ and val/ and
                                    copies test/ unchanged, so evaluation sees the true mix.
Environment
  STRATA_COLUMN (required), SAMPLING_STRATEGY: balanced (equal rows per stratum),
  proportional_min (proportional, at least MIN_SAMPLES_PER_STRATUM each) or optimal (Neyman:
  proportional to stratum size x standard deviation of VARIANCE_COLUMN), TARGET_SAMPLE_SIZE
  (rows per split), MIN_SAMPLES_PER_STRATUM, VARIANCE_COLUMN, RANDOM_STATE, ALLOW_REPLACEMENT
  (oversample a stratum smaller than its allocation), ID_COLUMN (when the data has it, a sample
  drawn without replacement is checked to hold each id once).

The sample is chosen from the key columns only (strata, variance, id); the rows are then
copied from the data in chunks, so the whole table is never held twice.
"""
import argparse
import json
import os
import shutil
import sys

import numpy as np
import pandas as pd

from steplib.splits import data_files, file_format, find_splits, output_name

INPUT_DIR = "/opt/ml/processing/input/data"
OUTPUT_DIR = "/opt/ml/processing/output"

CHUNK_ROWS = 200000


def log(msg):
    print("[stratified_sampling] " + msg, flush=True)


def read_columns(path, columns):
    fmt = file_format(path)
    if fmt == "parquet":
        return pd.read_parquet(path, columns=columns)
    return pd.read_csv(path, sep="\t" if fmt == "tsv" else ",", usecols=columns)


def header(path):
    fmt = file_format(path)
    if fmt == "parquet":
        return list(pd.read_parquet(path).columns)
    return list(pd.read_csv(path, sep="\t" if fmt == "tsv" else ",", nrows=0).columns)


def chunks(path):
    fmt = file_format(path)
    if fmt == "parquet":
        yield pd.read_parquet(path)
        return
    for c in pd.read_csv(path, sep="\t" if fmt == "tsv" else ",", chunksize=CHUNK_ROWS):
        yield c


def allocate(sizes, stds, strategy, target, minimum):
    """Rows to draw per stratum (before the replacement rule)."""
    strata = list(sizes)
    if not strata:
        return {}
    if strategy == "balanced":
        per = max(minimum, target // len(strata))
        alloc = {s: min(per, sizes[s]) for s in strata}
        left = target - sum(alloc.values())
        room = [s for s in strata if sizes[s] > alloc[s]]
        while left > 0 and room:  # hand the rest to strata that still have rows
            share = max(left // len(room), 1)
            for s in list(room):
                extra = min(share, sizes[s] - alloc[s], left)
                alloc[s] += extra
                left -= extra
                if alloc[s] >= sizes[s]:
                    room.remove(s)
                if left <= 0:
                    break
        return alloc
    if strategy == "proportional_min":
        total = float(sum(sizes.values()))
        alloc = {s: max(minimum, int(target * sizes[s] / total)) for s in strata}
        excess = sum(alloc.values()) - target
        adjustable = {s: alloc[s] - minimum for s in strata if alloc[s] > minimum}
        if excess > 0 and sum(adjustable.values()) >= excess:
            pool = float(sum(adjustable.values()))
            for s, a in adjustable.items():
                alloc[s] -= int(excess * a / pool)
        return {s: min(alloc[s], sizes[s]) for s in strata}
    if strategy == "optimal":
        weight = {s: sizes[s] * stds[s] for s in strata}
        total = sum(weight.values())
        return {s: min(max(minimum, int(target * weight[s] / total) if total > 0 else target // len(strata)), sizes[s]) for s in strata}
    sys.exit("SAMPLING_STRATEGY must be balanced, proportional_min or optimal, not %r" % strategy)


def choose(keys, strata_column, variance_column, strategy, target, minimum, replace, rng):
    """Positions (row numbers in file order) of the sample, and per-stratum diagnostics."""
    nan = keys[strata_column].isna()
    if nan.any():
        log("%d row(s) with an empty %s are left out" % (int(nan.sum()), strata_column))
    groups = {k: np.flatnonzero(((keys[strata_column] == k) & ~nan).to_numpy()) for k in keys.loc[~nan, strata_column].unique()}
    sizes = {k: len(v) for k, v in groups.items()}
    stds = {}
    for k, pos in groups.items():
        if variance_column:
            sd = keys[variance_column].iloc[pos].std()
            stds[k] = 0.0 if pd.isna(sd) else float(sd)
        else:
            stds[k] = 1.0
    alloc = allocate(sizes, stds, strategy, target, minimum)
    if replace and groups:
        wanted = max(minimum, target // len(groups))
        alloc = {k: max(a, wanted) for k, a in alloc.items()}
    picked, diag = [], {}
    for k in sorted(groups, key=str):
        pos, n = groups[k], alloc[k]
        if n <= len(pos):
            sel = rng.choice(pos, size=n, replace=False)
        elif replace and len(pos):
            sel = rng.choice(pos, size=n, replace=True)
        else:
            sel = pos
        picked.append(sel)
        diag[str(k)] = {"available": int(len(pos)), "requested": int(n), "sampled": int(len(sel))}
    positions = np.sort(np.concatenate(picked)) if picked else np.array([], dtype=int)
    return positions, diag


def sample_split(folder, out_folder, split, params, rng):
    files = data_files(folder)
    columns = header(files[0])
    strata = params["strata"]
    if strata not in columns:
        sys.exit("STRATA_COLUMN %r is not a column of %s (columns %s)" % (strata, split, columns))
    variance = params["variance"] if params["variance"] in columns else ""
    if params["variance"] and not variance and params["strategy"] == "optimal":
        log("VARIANCE_COLUMN %r is not a column; the optimal strategy uses equal deviations" % params["variance"])
    id_col = params["id"] if params["id"] in columns else ""
    key_cols = [c for c in dict.fromkeys([strata, variance, id_col]) if c]
    keys = pd.concat([read_columns(f, key_cols) for f in files], ignore_index=True)
    positions, diag = choose(keys, strata, variance, params["strategy"], params["target"], params["minimum"], params["replace"], rng)
    if id_col and not params["replace"]:
        ids = keys[id_col].iloc[positions]
        if ids.duplicated().any():
            sys.exit("ID_COLUMN %s repeats in the sample of %s: the data holds duplicate ids" % (id_col, split))
    # Copy the chosen rows, chunk by chunk, keeping repeats of a position.
    counts = pd.Series(positions).value_counts().sort_index()
    os.makedirs(out_folder, exist_ok=True)
    fmt = file_format(files[0])
    out_path = os.path.join(out_folder, output_name(split, fmt))
    parts, offset, started = [], 0, False
    for f in files:
        for chunk in chunks(f):
            idx = counts[(counts.index >= offset) & (counts.index < offset + len(chunk))]
            rows = chunk.iloc[np.repeat(idx.index.to_numpy() - offset, idx.to_numpy())]
            offset += len(chunk)
            if fmt == "parquet":
                parts.append(rows)
            else:
                rows.to_csv(out_path, sep="\t" if fmt == "tsv" else ",", index=False, mode="a" if started else "w", header=not started)
                started = True
    if fmt == "parquet":
        pd.concat(parts, ignore_index=True).to_parquet(out_path, index=False)
    with open(os.path.join(out_folder, "sampling_diagnostics.json"), "w", encoding="utf-8") as f:
        json.dump({"split": split, "strategy": params["strategy"], "strata_column": strata, "target_sample_size": params["target"],
                   "rows_in": int(len(keys)), "rows_out": int(len(positions)), "strata": diag}, f, indent=2)
    log("%s: %d of %d rows, per stratum %s" % (split, len(positions), len(keys), {k: v["sampled"] for k, v in diag.items()}))
    return len(positions)


def main(input_paths, output_paths, environ_vars, job_args):
    strata = str(environ_vars.get("STRATA_COLUMN") or "").strip()
    if not strata:
        sys.exit("STRATA_COLUMN is required")
    params = {
        "strata": strata,
        "strategy": str(environ_vars.get("SAMPLING_STRATEGY") or "balanced").strip(),
        "target": int(environ_vars.get("TARGET_SAMPLE_SIZE") or 1000),
        "minimum": int(environ_vars.get("MIN_SAMPLES_PER_STRATUM") or 10),
        "variance": str(environ_vars.get("VARIANCE_COLUMN") or "").strip(),
        "replace": str(environ_vars.get("ALLOW_REPLACEMENT") or "").strip().lower() == "true",
        "id": str(environ_vars.get("ID_COLUMN") or "").strip(),
    }
    rng = np.random.default_rng(int(environ_vars.get("RANDOM_STATE") or 42))
    root, out = input_paths["input_data"], output_paths["processed_data"]
    splits = find_splits(root, job_args.job_type)
    result = {}
    for split, folder in splits.items():
        target = os.path.join(out, split)
        if job_args.job_type == "training" and split == "test":
            shutil.copytree(folder, target, dirs_exist_ok=True)
            log("test: copied unchanged")
            continue
        result[split] = sample_split(folder, target, split, params, rng)
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Draw a stratified sample of each data split.")
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    environ = {
        "STRATA_COLUMN": os.environ.get("STRATA_COLUMN", ""),
        "SAMPLING_STRATEGY": os.environ.get("SAMPLING_STRATEGY", ""),
        "TARGET_SAMPLE_SIZE": os.environ.get("TARGET_SAMPLE_SIZE", ""),
        "MIN_SAMPLES_PER_STRATUM": os.environ.get("MIN_SAMPLES_PER_STRATUM", ""),
        "VARIANCE_COLUMN": os.environ.get("VARIANCE_COLUMN", ""),
        "RANDOM_STATE": os.environ.get("RANDOM_STATE", ""),
        "ALLOW_REPLACEMENT": os.environ.get("ALLOW_REPLACEMENT", ""),
        "ID_COLUMN": os.environ.get("ID_COLUMN", ""),
    }
    main({"input_data": INPUT_DIR}, {"processed_data": OUTPUT_DIR}, environ, args)
