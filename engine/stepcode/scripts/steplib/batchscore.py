"""Scoring data files with a trained model, file by file, for the model-inference scripts
(LightGBMModelInference, PyTorchModelInference, the multi-task ones): every input column is kept
and the model's columns are appended; no metrics.
"""
import pandas as pd

from steplib import labels, modelfiles


def log(msg):
    print(msg, flush=True)


def run(input_paths, output_paths, environ_vars, job_args, classes, score):
    """Scores every data file of input_paths["processed_data"] with score(df) -> a frame of the
    columns to append (same length), checks each file's id column (and, when the label column is
    there, its values against classes, a list of class names or None), and writes
    output_paths["eval_output"]/predictions.<OUTPUT_FORMAT>; returns its path."""
    fmt, orient = environ_vars["OUTPUT_FORMAT"], environ_vars["JSON_ORIENT"]
    if fmt not in ("csv", "parquet", "json"):
        raise SystemExit("OUTPUT_FORMAT=%r: want csv, parquet or json" % fmt)
    id_field, label = environ_vars["ID_FIELD"], environ_vars["LABEL_FIELD"]
    files = modelfiles.data_files(input_paths["processed_data"])
    if not files:
        raise SystemExit("no CSV, TSV or Parquet files under %s" % input_paths["processed_data"])
    frames = []
    for path in files:
        df = modelfiles.read_file(path)
        if id_field not in df.columns:
            raise SystemExit("ID_FIELD %r is not a column of %s (columns: %s)" % (id_field, path, list(df.columns)))
        if classes is not None and label and label in df.columns:
            unknown = sorted(set(labels.category_key(v) for v in df[label].dropna()) - set(classes))
            if unknown:
                log("warning: %s has labels %s that are not classes of the model %s" % (path, unknown[:10], classes))
        cols = score(df)
        if len(cols) != len(df):
            raise SystemExit("the model answered %d rows for the %d of %s" % (len(cols), len(df), path))
        frames.append(pd.concat([df.reset_index(drop=True), cols.reset_index(drop=True)], axis=1))
        log("scored %d rows of %s" % (len(df), path))
    result = pd.concat(frames, ignore_index=True)
    out = modelfiles.write_predictions(result, output_paths["eval_output"], fmt, orient)
    log("%s: %d rows, %d columns (%s)" % (out, len(result), len(result.columns), job_args.job_type))
    return out


def probability_columns(prob):
    """prob_class_<i> columns of a [rows, classes] array."""
    return pd.DataFrame({"prob_class_%d" % i: prob[:, i] for i in range(prob.shape[1])})
