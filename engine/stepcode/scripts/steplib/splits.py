"""Split folders as TabularPreprocessing writes them.

A data set is a folder of split folders, <split>/<split>_processed_data.<csv|tsv|parquet>
(train/, val/ and test/ for a training job, else one folder named after the job type). Every
data file of a split folder is read, in name order, so shards written by a streaming step read
back as one table; output keeps the input's format.
"""
import os
import shutil
import sys

import pandas as pd

DATA_SUFFIXES = (".csv", ".tsv", ".parquet", ".pq")
TRAINING_SPLITS = ("train", "val", "test")


def data_files(folder):
    """The data files directly in folder, sorted."""
    return sorted(os.path.join(folder, f) for f in os.listdir(folder)
                  if f.lower().endswith(DATA_SUFFIXES) and not f.startswith(".") and os.path.isfile(os.path.join(folder, f)))


def file_format(path):
    """csv, tsv or parquet, by the file's suffix."""
    p = path.lower()
    return "parquet" if p.endswith((".parquet", ".pq")) else "tsv" if p.endswith(".tsv") else "csv"


def read_file(path):
    fmt = file_format(path)
    return pd.read_parquet(path) if fmt == "parquet" else pd.read_csv(path, sep="\t" if fmt == "tsv" else ",")


def write_file(df, path):
    """Write df in the format path's suffix names."""
    fmt = file_format(path)
    if fmt == "parquet":
        df.to_parquet(path, index=False)
    else:
        df.to_csv(path, sep="\t" if fmt == "tsv" else ",", index=False)


def read_split(folder):
    """(DataFrame of every data file in folder, the first file's format)."""
    files = data_files(folder)
    return pd.concat([read_file(f) for f in files], ignore_index=True), file_format(files[0])


def output_name(split, fmt, part=None):
    """<split>_processed_data.<ext>, or ..._part-<n>.<ext> for one shard of a streamed split."""
    if part is None:
        return "%s_processed_data.%s" % (split, fmt)
    return "%s_processed_data_part-%05d.%s" % (split, part, fmt)


def find_splits(root, job_type, require_train=True):
    """Split name -> folder. A training job reads train/, val/ and test/ (train/ required unless
    require_train is false); another job type reads the folder named after it, else the only
    split folder, else data files lying directly in root. Exits naming what is missing."""
    subdirs = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)) and data_files(os.path.join(root, d)))
    if job_type == "training":
        found = {s: os.path.join(root, s) for s in TRAINING_SPLITS if s in subdirs}
        if (require_train and "train" not in found) or not found:
            sys.exit("the training job needs %s under %s (found %s)" % ("train/" if require_train else "train/, val/ or test/", root, subdirs or "no split folders"))
        return found
    if job_type in subdirs:
        return {job_type: os.path.join(root, job_type)}
    if len(subdirs) == 1:
        return {job_type: os.path.join(root, subdirs[0])}
    if data_files(root):
        return {job_type: root}
    sys.exit("no %s/ split folder under %s (found %s)" % (job_type, root, subdirs))


def copy_artifacts(src, dst):
    """Copy the files of an upstream step's artifacts folder into dst (each step passes the
    artifacts of the steps before it on); returns how many."""
    if not src or not os.path.isdir(src):
        return 0
    os.makedirs(dst, exist_ok=True)
    n = 0
    for name in sorted(os.listdir(src)):
        if os.path.isfile(os.path.join(src, name)):
            shutil.copy2(os.path.join(src, name), os.path.join(dst, name))
            n += 1
    return n


def transform_split(folder, out_dir, split, fn, streaming=False, workers=0):
    """Apply fn (DataFrame -> DataFrame) to one split and write the result under
    out_dir/<split>/ in the input's format: the whole split as <split>_processed_data.<ext>, or,
    streaming, each input file on its own (workers in parallel, 0 = up to 4) as
    <split>_processed_data_part-<n>.<ext>. Returns the rows written."""
    from concurrent.futures import ThreadPoolExecutor

    out = os.path.join(out_dir, split)
    os.makedirs(out, exist_ok=True)
    files = data_files(folder)
    fmt = file_format(files[0])
    if not streaming:
        df = fn(pd.concat([read_file(f) for f in files], ignore_index=True))
        write_file(df, os.path.join(out, output_name(split, fmt)))
        return len(df)

    def one(item):
        n, f = item
        df = fn(read_file(f))
        write_file(df, os.path.join(out, output_name(split, fmt, n)))
        return len(df)

    with ThreadPoolExecutor(max_workers=workers or min(4, os.cpu_count() or 1)) as pool:
        return sum(pool.map(one, enumerate(files)))
