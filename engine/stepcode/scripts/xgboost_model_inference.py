"""XGBoostModelInference: score a data set with a trained XGBoost model and write the predictions
(no metrics).

Inputs
  /opt/ml/processing/input/model      model.tar.gz from XGBoostTraining or XGBoostTuning (or its
                                      unpacked files)
  /opt/ml/processing/input/eval_data  the data: *.csv, *.tsv, *.json(l), *.parquet (optionally
                                      .gz, in any folder depth, or inside a .tar.gz)
Output
  /opt/ml/processing/output/eval      predictions.<csv|parquet|json>: the id, the label when the
                                      data has it, prob_class_<i> (or prediction for a regression
                                      model) for every row, in the input's row order
Environment
  ID_FIELD (required; a data set without that column is scored without ids), LABEL_FIELD
  (passed through when present), OUTPUT_FORMAT (csv, parquet or json), JSON_ORIENT (pandas
  orient of JSON output: records, index, values, split or table)
Arguments
  --job_type   the split being scored (logged)
"""
import argparse
import os
import sys

from steplib import tables, xgbmodel

MODEL_DIR = "/opt/ml/processing/input/model"
EVAL_DATA_DIR = "/opt/ml/processing/input/eval_data"
EVAL_OUTPUT_DIR = "/opt/ml/processing/output/eval"


def log(msg):
    print("[xgboost_model_inference] " + msg, flush=True)


def fail(msg):
    print("[xgboost_model_inference] ERROR: " + msg, file=sys.stderr, flush=True)
    sys.exit(1)


def main(input_paths, output_paths, environ_vars, job_args):
    id_field, label = environ_vars["ID_FIELD"], environ_vars.get("LABEL_FIELD", "")
    fmt = (environ_vars.get("OUTPUT_FORMAT") or "csv").lower()
    orient = environ_vars.get("JSON_ORIENT") or "records"
    if fmt not in ("csv", "parquet", "json"):
        fail("OUTPUT_FORMAT %s: want csv, parquet or json" % fmt)
    try:
        model = xgbmodel.load(input_paths["model_input"])
    except ValueError as e:
        fail(str(e))
    df, files = tables.read_tables(input_paths["processed_data"], log=log)
    if df is None:
        fail("no data files in %s" % input_paths["processed_data"])
    log("job type %s: %d rows from %d file(s)" % (job_args.job_type, len(df), len(files)))
    try:
        scores = model.predict(df)
    except ValueError as e:
        fail(str(e))
    labels = df[label].values if label and label in df.columns else None
    preds = xgbmodel.prediction_frame(df, id_field, scores, model.task == "regression", label, labels, log)
    out_dir = output_paths["eval_output"]
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "predictions." + fmt)
    if fmt == "csv":
        preds.to_csv(path, index=False)
    elif fmt == "json":
        preds.to_json(path, orient=orient, lines=orient == "records")
    else:
        try:
            preds.to_parquet(path, index=False)
        except ImportError as e:
            fail("OUTPUT_FORMAT parquet needs pyarrow or fastparquet in the image: %s" % e)
    log("wrote %d predictions to %s" % (len(preds), path))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    env = {
        "ID_FIELD": os.environ.get("ID_FIELD", "id"),
        "LABEL_FIELD": os.environ.get("LABEL_FIELD", ""),
        "OUTPUT_FORMAT": os.environ.get("OUTPUT_FORMAT", "csv"),
        "JSON_ORIENT": os.environ.get("JSON_ORIENT", "records"),
    }
    main({"model_input": MODEL_DIR, "processed_data": EVAL_DATA_DIR}, {"eval_output": EVAL_OUTPUT_DIR}, env, args)
