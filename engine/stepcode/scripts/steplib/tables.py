"""Reading the tables an upstream step left, wherever it left them.

A processing input may hold data files in any folder depth, gzip-compressed, or inside a
.tar.gz archive (a training job's model.tar.gz or output.tar.gz lands as the archive itself).
"""
import gzip
import io
import os
import tarfile
import tempfile

import pandas as pd

TABLE_SUFFIXES = (".csv", ".tsv", ".parquet", ".pq", ".json", ".jsonl")
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz")


def unpack_archives(folder):
    """Unpacks every archive below folder into a scratch directory (no absolute or parent
    paths, no links); returns folder and the scratch directories, the places to search."""
    roots = [folder]
    for root, _, files in os.walk(folder):
        for name in sorted(files):
            if name.endswith(ARCHIVE_SUFFIXES):
                dst = tempfile.mkdtemp(prefix="unpacked-")
                with tarfile.open(os.path.join(root, name)) as tar:
                    safe = [m for m in tar.getmembers()
                            if not (m.name.startswith("/") or ".." in m.name.split("/") or m.issym() or m.islnk())]
                    tar.extractall(dst, members=safe)
                roots.append(dst)
    return roots


def base_suffix(path):
    """The file name lowercased, without a trailing .gz."""
    name = os.path.basename(path).lower()
    return name[:-3] if name.endswith(".gz") else name


def table_files(folder, suffixes=TABLE_SUFFIXES):
    """Every data file with one of suffixes below folder and inside its archives, sorted per
    place (dot files and folders skipped)."""
    out = []
    for root in unpack_archives(folder) if os.path.isdir(folder) else []:
        for r, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            out.extend(os.path.join(r, n) for n in sorted(names) if not n.startswith(".") and base_suffix(n).endswith(suffixes))
    return out


def read_table(path):
    """A CSV, TSV, Parquet, JSON (records or lines) or JSON-lines file, optionally .gz."""
    base = base_suffix(path)
    if base.endswith((".parquet", ".pq")):
        return pd.read_parquet(path)
    with (gzip.open(path, "rb") if path.lower().endswith(".gz") else open(path, "rb")) as f:
        raw = f.read()
    if base.endswith((".json", ".jsonl")):
        text = raw.decode("utf-8").lstrip()
        return pd.read_json(io.StringIO(text), lines=base.endswith(".jsonl") or not text.startswith("["))
    return pd.read_csv(io.BytesIO(raw), sep="\t" if base.endswith(".tsv") else ",")


def read_tables(folder, needed=(), suffixes=TABLE_SUFFIXES, log=print):
    """(one DataFrame of every table below folder that has the needed columns, the files
    read); a file that is not a table is skipped with a log line. The frame is None when no
    table qualifies."""
    frames, used = [], []
    for p in table_files(folder, suffixes):
        try:
            df = read_table(p)
        except Exception as e:  # not a table: a model file, a metrics report, ...
            log("skipped %s: %s" % (p, e))
            continue
        if all(c in df.columns for c in needed):
            frames.append(df)
            used.append(p)
    if not frames:
        return None, []
    return (pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]), used


def truthy(value, default=False):
    """An environment flag's value: true, 1 or yes (any case); default when empty."""
    v = str(value or "").strip().lower()
    return default if v == "" else v in ("true", "1", "yes")


def names(value):
    """A comma-separated list, blanks dropped."""
    return [x.strip() for x in str(value or "").split(",") if x.strip()]
