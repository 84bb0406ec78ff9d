"""ModelCalibration: fit a calibrator that maps model scores to calibrated probabilities.

Input
  /opt/ml/processing/input/eval_data        predictions with labels (XGBoostModelEval's
                                            eval_predictions.csv, a training job's
                                            output.tar.gz with val/ and test/ predictions, ...):
                                            every *.csv, *.tsv, *.parquet or *.jsonl (optionally
                                            .gz, in any depth, or inside a .tar.gz) that has the
                                            label and score columns
Outputs
  /opt/ml/processing/output/calibration     calibration_model.json, the calibrator as lookup
                                            tables (the serving code interpolates them):
                                            binary {"points": [[score, calibrated], ...]},
                                            multiclass {"classes": {"<i>": [[score, p], ...]}},
                                            multi-task {"tasks": {"<score field>": {...}}};
                                            calibration_summary.json
  /opt/ml/processing/output/metrics         calibration_metrics.json (expected and maximum
                                            calibration error, Brier score, log loss, AUC before
                                            and after), reliability_diagram.jpg with matplotlib
  /opt/ml/processing/output/calibrated_data calibrated_data.csv: the rows with calibrated_<score>
                                            columns added
Environment
  LABEL_FIELD (required), CALIBRATION_METHOD (gam, isotonic, platt), SCORE_FIELD, SCORE_FIELDS
  with TASK_LABEL_NAMES (multi-task: one label per score column), MONOTONIC_CONSTRAINT,
  GAM_SPLINES, ERROR_THRESHOLD (a larger calibration error is reported, not fatal),
  IS_BINARY, NUM_CLASSES, SCORE_FIELD_PREFIX, MULTICLASS_CATEGORIES (class values in index
  order, when the labels are values), CALIBRATION_SAMPLE_POINTS (lookup table size)
Arguments
  --job_type   the split the calibrator is fitted on (recorded in the summary)

"gam" is a logistic regression on a cubic B-spline basis of the score (GAM_SPLINES knots; a
generalised additive model with one smooth term); with MONOTONIC_CONSTRAINT the fitted curve is
projected onto the non-decreasing curves (isotonic regression of the curve on the score grid).
"""
import argparse
import json
import math
import os
import sys

import numpy as np
import pandas as pd
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import SplineTransformer

from steplib import metrics, tables

EVAL_DATA_DIR = "/opt/ml/processing/input/eval_data"
CALIBRATION_DIR = "/opt/ml/processing/output/calibration"
METRICS_DIR = "/opt/ml/processing/output/metrics"
CALIBRATED_DATA_DIR = "/opt/ml/processing/output/calibrated_data"

TABLE_SUFFIXES = (".csv", ".tsv", ".parquet", ".pq", ".jsonl")


def log(msg):
    print("[model_calibration] " + msg, flush=True)


def fail(msg):
    print("[model_calibration] ERROR: " + msg, file=sys.stderr, flush=True)
    sys.exit(1)


def read_predictions(folder, needed):
    df, used = tables.read_tables(folder, needed, TABLE_SUFFIXES, log)
    if df is None:
        fail("no predictions with the column(s) %s in %s" % (", ".join(needed), folder))
    log("predictions from %s" % ", ".join(os.path.basename(u) for u in used))
    return df


def fit_curve(method, scores, labels, splines, monotonic, grid):
    """Returns the calibrated probability at each grid point."""
    if len(set(labels)) < 2:
        log("only one class in the labels: the calibrated score is its rate")
        return np.full(len(grid), float(np.mean(labels)))
    x = scores.reshape(-1, 1)
    if method == "isotonic":
        iso = IsotonicRegression(out_of_bounds="clip", y_min=0.0, y_max=1.0).fit(scores, labels)
        return iso.predict(grid)
    if method == "platt":
        z = np.log(np.clip(x, 1e-6, 1 - 1e-6) / (1 - np.clip(x, 1e-6, 1 - 1e-6)))
        lr = LogisticRegression(max_iter=1000).fit(z, labels)
        g = np.clip(grid, 1e-6, 1 - 1e-6).reshape(-1, 1)
        return lr.predict_proba(np.log(g / (1 - g)))[:, 1]
    gam = make_pipeline(SplineTransformer(n_knots=max(2, splines), degree=3, extrapolation="constant"),
                        LogisticRegression(C=100.0, max_iter=5000)).fit(x, labels)  # a light smoothing penalty
    curve = gam.predict_proba(grid.reshape(-1, 1))[:, 1]
    if monotonic:
        curve = IsotonicRegression(y_min=0.0, y_max=1.0).fit_transform(grid, curve)
    return curve


def score_grid(scores, points):
    lo, hi = float(np.min(scores)), float(np.max(scores))
    lo, hi = min(lo, 0.0) if lo >= -1e-9 else lo, max(hi, 1.0) if hi <= 1 + 1e-9 else hi
    return np.linspace(lo, hi, max(points, 2))


def apply_table(points, scores):
    return np.interp(scores, [p[0] for p in points], [p[1] for p in points])


def calibration_errors(labels, probs, bins=10):
    edges = np.linspace(0.0, 1.0, bins + 1)
    ece, mce, table = 0.0, 0.0, []
    for i in range(bins):
        sel = (probs >= edges[i]) & ((probs < edges[i + 1]) if i < bins - 1 else (probs <= edges[i + 1]))
        if not sel.any():
            continue
        conf, acc = float(probs[sel].mean()), float(labels[sel].mean())
        gap = abs(conf - acc)
        ece += gap * float(sel.sum()) / len(probs)
        mce = max(mce, gap)
        table.append({"bin": i, "count": int(sel.sum()), "mean_predicted": conf, "fraction_positive": acc})
    return float(ece), float(mce), table


def binary_report(labels, raw, cal):
    out = {}
    for name, p in (("uncalibrated", raw), ("calibrated", cal)):
        p = np.clip(p, 1e-15, 1 - 1e-15)
        ece, mce, table = calibration_errors(labels, p)
        out[name] = {"expected_calibration_error": ece, "maximum_calibration_error": mce,
                     "brier_score": float(brier_score_loss(labels, p)), "log_loss": float(log_loss(labels, p, labels=[0, 1])),
                     "auc_roc": float(roc_auc_score(labels, p)) if len(set(labels)) == 2 else None, "reliability": table}
    return out


def label_key(v):
    if isinstance(v, float) and not math.isnan(v) and v == int(v):
        return str(int(v))
    return str(v)


def encode_labels(series, categories):
    """Class indices: by position in MULTICLASS_CATEGORIES when given, else the numeric label."""
    if categories:
        index = {label_key(c): i for i, c in enumerate(categories)}
        codes = series.map(lambda v: np.nan if pd.isna(v) else index.get(label_key(v), np.nan))
        unknown = series[codes.isna() & ~series.isna()]
        if len(unknown):
            fail("label value(s) %s are not in MULTICLASS_CATEGORIES %s" % (sorted(set(map(label_key, unknown)))[:5], categories))
        return codes
    return pd.to_numeric(series, errors="coerce")


def reliability_plot(path, curves):
    plt = metrics.pyplot(log, "no reliability diagram")
    if plt is None:
        return False
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], "k--", linewidth=0.8)
    for name, table in curves:
        ax.plot([b["mean_predicted"] for b in table], [b["fraction_positive"] for b in table], marker="o", label=name)
    ax.set_xlabel("mean predicted probability")
    ax.set_ylabel("fraction of positives")
    ax.legend()
    fig.savefig(path)
    plt.close(fig)
    return True


def main(input_paths, output_paths, environ_vars, job_args):
    method = (environ_vars.get("CALIBRATION_METHOD") or "gam").lower()
    if method not in ("gam", "isotonic", "platt"):
        fail("CALIBRATION_METHOD %s: want gam, isotonic or platt" % method)
    label = environ_vars["LABEL_FIELD"]
    splines = int(environ_vars.get("GAM_SPLINES") or 10)
    monotonic = tables.truthy(environ_vars.get("MONOTONIC_CONSTRAINT"), True)
    threshold = float(environ_vars.get("ERROR_THRESHOLD") or 0.05)
    points = int(environ_vars.get("CALIBRATION_SAMPLE_POINTS") or 1000)
    is_binary = tables.truthy(environ_vars.get("IS_BINARY"), True)
    prefix = environ_vars.get("SCORE_FIELD_PREFIX") or "prob_class_"
    categories = tables.names(environ_vars.get("MULTICLASS_CATEGORIES"))
    score_fields = tables.names(environ_vars.get("SCORE_FIELDS"))
    task_labels = tables.names(environ_vars.get("TASK_LABEL_NAMES"))

    if score_fields:  # multi-task: one binary calibrator per score column
        if task_labels and len(task_labels) != len(score_fields):
            fail("TASK_LABEL_NAMES has %d names for %d SCORE_FIELDS" % (len(task_labels), len(score_fields)))
        tasks = list(zip(score_fields, task_labels or [label] * len(score_fields)))
        df = read_predictions(input_paths["evaluation_data"], sorted(set(sum(([s, l] for s, l in tasks), []))))
        mode = "multitask"
    elif is_binary:
        score = environ_vars.get("SCORE_FIELD") or "prob_class_1"
        tasks = [(score, label)]
        df = read_predictions(input_paths["evaluation_data"], [score, label])
        mode = "binary"
    else:
        k = int(environ_vars.get("NUM_CLASSES") or 0)
        if k < 2:
            fail("NUM_CLASSES must be at least 2 for a multiclass calibration")
        tasks = [("%s%d" % (prefix, i), label) for i in range(k)]
        df = read_predictions(input_paths["evaluation_data"], [t[0] for t in tasks] + [label])
        mode = "multiclass"

    classes = len(tasks) if mode == "multiclass" else 2
    if categories and len(categories) != classes:
        log("MULTICLASS_CATEGORIES %s does not have %d values: the labels are read as class indices" % (categories, classes))
        categories = []
    summary = {"method": method, "mode": mode, "job_type": job_args.job_type, "label_field": label, "sample_points": points,
               "monotonic_constraint": monotonic, "gam_splines": splines, "error_threshold": threshold}
    report, lookups, curves = {}, {}, []
    calibrated = df.copy()
    y_all = encode_labels(df[label], categories)
    for i, (score, lab) in enumerate(tasks):
        y = encode_labels(df[lab], categories) if mode == "multitask" else y_all
        s = pd.to_numeric(df[score], errors="coerce")
        keep = ~(y.isna() | s.isna())
        if not keep.any():
            fail("no rows with both %s and %s" % (score, lab))
        target = (y[keep].astype(int) == i).astype(int).values if mode == "multiclass" else y[keep].astype(int).values
        if mode != "multiclass" and not set(np.unique(target)) <= {0, 1}:
            fail("label %s has values %s; a binary calibration needs 0/1 labels (set IS_BINARY false for multiclass)" % (lab, sorted(set(np.unique(target)))))
        sv = s[keep].values.astype(float)
        grid = score_grid(sv, points)
        curve = fit_curve(method, sv, target, splines, monotonic, grid)
        table = [[float(a), float(b)] for a, b in zip(grid, np.clip(curve, 0.0, 1.0))]
        lookups[score] = table
        cal = apply_table(table, sv)
        rep = binary_report(target, sv, cal)
        report[score] = rep
        curves.append((score, rep["calibrated"]["reliability"]))
        calibrated["calibrated_" + score] = apply_table(table, s.fillna(0.0).values.astype(float))
        ece = rep["calibrated"]["expected_calibration_error"]
        log("%s: ECE %.4f -> %.4f%s" % (score, rep["uncalibrated"]["expected_calibration_error"], ece,
                                       " (above the threshold %.4f)" % threshold if ece > threshold else ""))

    if mode == "binary":
        model = {"method": method, "score_field": tasks[0][0], "points": lookups[tasks[0][0]]}
    elif mode == "multiclass":
        model = {"method": method, "score_field_prefix": prefix, "num_classes": len(tasks),
                 "classes": {str(i): lookups[t[0]] for i, t in enumerate(tasks)}}
    else:
        model = {"method": method, "tasks": {s: {"label_field": l, "points": lookups[s]} for s, l in tasks}}
    if mode == "multiclass":  # the calibrated probabilities of a row sum to one
        cols = ["calibrated_" + t[0] for t in tasks]
        sums = calibrated[cols].sum(axis=1).replace(0, 1.0)
        calibrated[cols] = calibrated[cols].div(sums, axis=0)
    worst = float(max(r["calibrated"]["expected_calibration_error"] for r in report.values()))
    summary.update({"expected_calibration_error": worst, "within_error_threshold": bool(worst <= threshold),
                    "score_fields": [t[0] for t in tasks], "num_samples": int(len(df))})

    cal_dir, metrics_dir, data_dir = output_paths["calibration_output"], output_paths["metrics_output"], output_paths["calibrated_data"]
    for d in (cal_dir, metrics_dir, data_dir):
        os.makedirs(d, exist_ok=True)
    for path, obj in ((os.path.join(cal_dir, "calibration_model.json"), model),
                      (os.path.join(cal_dir, "calibration_summary.json"), summary),
                      (os.path.join(metrics_dir, "calibration_metrics.json"), {"summary": summary, "scores": report})):
        with open(path, "w", encoding="utf-8") as f:
            json.dump(obj, f, indent=2, sort_keys=True)
    calibrated.to_csv(os.path.join(data_dir, "calibrated_data.csv"), index=False)
    reliability_plot(os.path.join(metrics_dir, "reliability_diagram.jpg"), curves)
    log("calibrator (%s, %s) written to %s" % (method, mode, cal_dir))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    env = {
        "LABEL_FIELD": os.environ.get("LABEL_FIELD", "label"),
        "CALIBRATION_METHOD": os.environ.get("CALIBRATION_METHOD", "gam"),
        "SCORE_FIELD": os.environ.get("SCORE_FIELD", "prob_class_1"),
        "SCORE_FIELDS": os.environ.get("SCORE_FIELDS", ""),
        "TASK_LABEL_NAMES": os.environ.get("TASK_LABEL_NAMES", ""),
        "MONOTONIC_CONSTRAINT": os.environ.get("MONOTONIC_CONSTRAINT", "true"),
        "GAM_SPLINES": os.environ.get("GAM_SPLINES", "10"),
        "ERROR_THRESHOLD": os.environ.get("ERROR_THRESHOLD", "0.05"),
        "IS_BINARY": os.environ.get("IS_BINARY", "true"),
        "NUM_CLASSES": os.environ.get("NUM_CLASSES", "2"),
        "SCORE_FIELD_PREFIX": os.environ.get("SCORE_FIELD_PREFIX", "prob_class_"),
        "MULTICLASS_CATEGORIES": os.environ.get("MULTICLASS_CATEGORIES", ""),
        "CALIBRATION_SAMPLE_POINTS": os.environ.get("CALIBRATION_SAMPLE_POINTS", "1000"),
    }
    main({"evaluation_data": EVAL_DATA_DIR},
         {"calibration_output": CALIBRATION_DIR, "metrics_output": METRICS_DIR, "calibrated_data": CALIBRATED_DATA_DIR}, env, args)
