"""A trained model as a processing step receives it, and the data files beside it.

A processing input that holds a model holds either the training job's model.tar.gz (anywhere
below it) or the model's files themselves. Training scripts that follow this convention write
model_config.json with "framework" and "model_file" (the weights, relative to the config).
"""
import glob
import json
import os
import tarfile
import tempfile

import pandas as pd

DATA_EXTENSIONS = ("csv", "tsv", "parquet")


def unpack(folder):
    """The model's files: its model.tar.gz unpacked into a scratch folder (no member may be a
    link or land outside it), or the folder itself when there is no archive."""
    tars = sorted(glob.glob(os.path.join(folder, "**", "model.tar.gz"), recursive=True))
    if not tars:
        return folder
    scratch = tempfile.mkdtemp(prefix="model-")
    root = os.path.realpath(scratch)
    with tarfile.open(tars[0]) as t:
        for m in t.getmembers():
            target = os.path.realpath(os.path.join(scratch, m.name))
            if m.issym() or m.islnk() or not (target == root or target.startswith(root + os.sep)):
                raise SystemExit("refusing archive member %r of %s" % (m.name, tars[0]))
        t.extractall(scratch)
    return scratch


def find(folder, framework, default_file, producer):
    """(model_config, path of the weights) of the first model_config.json below folder whose
    framework is framework and whose model_file exists; exits naming the producer otherwise."""
    for path in sorted(glob.glob(os.path.join(folder, "**", "model_config.json"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
        weights = os.path.join(os.path.dirname(path), config.get("model_file", default_file))
        if config.get("framework") == framework and os.path.exists(weights):
            return config, weights
    raise SystemExit("no %s model (model_config.json + %s) under %s" % (producer, default_file, folder))


def load(folder, framework, default_file, producer):
    """find over the unpacked model of a processing input."""
    return find(unpack(folder), framework, default_file, producer)


def data_files(folder):
    """Every CSV, TSV and Parquet file below folder, sorted."""
    files = []
    for ext in DATA_EXTENSIONS:
        files += glob.glob(os.path.join(folder, "**", "*." + ext), recursive=True)
    return sorted(files)


def read_file(path, chunksize=None):
    """One data file; with chunksize, an iterator of frames (a Parquet file is one chunk)."""
    if path.endswith(".parquet"):
        df = pd.read_parquet(path)
        return [df] if chunksize else df
    return pd.read_csv(path, sep="\t" if path.endswith(".tsv") else ",", chunksize=chunksize)


def read_rows(folder):
    """Every data file below folder as one frame; exits when there is none."""
    files = data_files(folder)
    if not files:
        raise SystemExit("no CSV, TSV or Parquet files under %s" % folder)
    return pd.concat([read_file(p) for p in files], ignore_index=True)


def write_predictions(df, folder, fmt, orient):
    """folder/predictions.<fmt> (csv, parquet or json with a pandas orient); returns its path."""
    if fmt not in ("csv", "parquet", "json"):
        raise SystemExit("OUTPUT_FORMAT=%r: want csv, parquet or json" % fmt)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "predictions." + fmt)
    if fmt == "csv":
        df.to_csv(path, index=False)
    elif fmt == "parquet":
        try:
            df.to_parquet(path, index=False)
        except ImportError as e:
            raise SystemExit("OUTPUT_FORMAT=parquet needs pyarrow or fastparquet: %s" % e)
    else:
        df.to_json(path, orient=orient, **({"index": False} if orient in ("split", "table") else {}))
    return path
