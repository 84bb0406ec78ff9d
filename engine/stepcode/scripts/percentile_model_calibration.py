"""PercentileModelCalibration: map model scores to their percentile in the score distribution.

A calibrated score q means "a fraction 1 - q of the scored population scores at least this
high", whatever the model version, so thresholds keep their alert volume when the model is
retrained.

Input
  /opt/ml/processing/input/eval_data        scored rows (XGBoostModelEval's predictions, a
                                            training job's output.tar.gz, ModelCalibration's
                                            calibrated data, ...): every *.csv, *.tsv, *.parquet or
                                            *.jsonl (optionally .gz, any depth, or inside a
                                            .tar.gz) that has the score column(s)
Outputs
  /opt/ml/processing/output/calibration     percentile_score.json {"score_field", "mapping":
                                            [[raw score, percentile], ...]} for the first score
                                            field (the serving code applies it to the class-1
                                            score), and percentile_score_<field>.json per field
  /opt/ml/processing/output/metrics         percentile_metrics.json: per field the score
                                            distribution (count, mean, quantiles) and the map size
  /opt/ml/processing/output/calibrated_data calibrated_data.csv: the rows with percentile_<field>
                                            columns added
Environment
  SCORE_FIELD (single task, default prob_class_1), SCORE_FIELDS (comma-separated, multi-task),
  N_BINS (points of the map), ACCURACY (raw-score thresholds closer than this are merged)
Arguments
  --job_type   the split the map is fitted on (recorded in the metrics)
"""
import argparse
import json
import os
import sys

import numpy as np
import pandas as pd

from steplib import tables

EVAL_DATA_DIR = "/opt/ml/processing/input/eval_data"
CALIBRATION_DIR = "/opt/ml/processing/output/calibration"
METRICS_DIR = "/opt/ml/processing/output/metrics"
CALIBRATED_DATA_DIR = "/opt/ml/processing/output/calibrated_data"

TABLE_SUFFIXES = (".csv", ".tsv", ".parquet", ".pq", ".jsonl")


def log(msg):
    print("[percentile_model_calibration] " + msg, flush=True)


def fail(msg):
    print("[percentile_model_calibration] ERROR: " + msg, file=sys.stderr, flush=True)
    sys.exit(1)


def percentile_map(scores, n_bins, accuracy):
    """[[raw threshold, percentile], ...], increasing in both."""
    qs = np.linspace(0.0, 1.0, max(n_bins, 2) + 1)
    raw = np.quantile(scores, qs)
    out = []
    for q, r in zip(qs, raw):
        r, q = float(r), float(q)
        if out and r - out[-1][0] <= accuracy:
            out[-1][1] = q  # equal thresholds: the highest percentile they reach
            continue
        out.append([r, q])
    if len(out) == 1:
        out.append([out[0][0] + max(accuracy, 1e-9), 1.0])
    return out


def main(input_paths, output_paths, environ_vars, job_args):
    fields = tables.names(environ_vars.get("SCORE_FIELDS"))
    if not fields:
        fields = [environ_vars.get("SCORE_FIELD") or "prob_class_1"]
    n_bins = int(environ_vars.get("N_BINS") or 1000)
    accuracy = float(environ_vars.get("ACCURACY") or 1e-5)
    df, used = tables.read_tables(input_paths["evaluation_data"], fields, TABLE_SUFFIXES, log)
    if df is None:
        fail("no table with the score column(s) %s in %s" % (", ".join(fields), input_paths["evaluation_data"]))
    log("scores from %s (%d rows)" % (", ".join(os.path.basename(u) for u in used), len(df)))

    cal_dir, metrics_dir, data_dir = output_paths["calibration_output"], output_paths["metrics_output"], output_paths["calibrated_data"]
    for d in (cal_dir, metrics_dir, data_dir):
        os.makedirs(d, exist_ok=True)
    metrics = {"job_type": job_args.job_type, "n_bins": n_bins, "accuracy": accuracy, "num_samples": int(len(df)), "fields": {}}
    calibrated = df.copy()
    for i, field in enumerate(fields):
        s = pd.to_numeric(df[field], errors="coerce")
        vals = s.dropna().values.astype(float)
        if len(vals) == 0:
            fail("score column %s has no numbers" % field)
        mapping = percentile_map(vals, n_bins, accuracy)
        doc = {"score_field": field, "job_type": job_args.job_type, "mapping": mapping}
        with open(os.path.join(cal_dir, "percentile_score_%s.json" % field), "w", encoding="utf-8") as f:
            json.dump(doc, f)
        if i == 0:
            with open(os.path.join(cal_dir, "percentile_score.json"), "w", encoding="utf-8") as f:
                json.dump(doc, f)
        calibrated["percentile_" + field] = np.interp(s.fillna(vals.min()).values.astype(float), [m[0] for m in mapping], [m[1] for m in mapping])
        qs = np.quantile(vals, [0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99])
        metrics["fields"][field] = {"count": int(len(vals)), "mean": float(vals.mean()), "std": float(vals.std()),
                                    "min": float(vals.min()), "max": float(vals.max()), "map_points": len(mapping),
                                    "quantiles": {k: float(v) for k, v in zip(("p01", "p05", "p25", "p50", "p75", "p95", "p99"), qs)}}
        log("%s: %d-point percentile map from %d scores" % (field, len(mapping), len(vals)))
    with open(os.path.join(metrics_dir, "percentile_metrics.json"), "w", encoding="utf-8") as f:
        json.dump(metrics, f, indent=2, sort_keys=True)
    calibrated.to_csv(os.path.join(data_dir, "calibrated_data.csv"), index=False)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    env = {
        "SCORE_FIELD": os.environ.get("SCORE_FIELD", "prob_class_1"),
        "SCORE_FIELDS": os.environ.get("SCORE_FIELDS", ""),
        "N_BINS": os.environ.get("N_BINS", "1000"),
        "ACCURACY": os.environ.get("ACCURACY", "0.00001"),
    }
    main({"evaluation_data": EVAL_DATA_DIR},
         {"calibration_output": CALIBRATION_DIR, "metrics_output": METRICS_DIR, "calibrated_data": CALIBRATED_DATA_DIR}, env, args)
