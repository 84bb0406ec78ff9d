"""ModelMetricsComputation: performance metrics and plots from a file of predictions.

Input
  /opt/ml/processing/input/eval_data   predictions with labels: *.csv, *.tsv, *.parquet, *.json(l)
                                       (INPUT_FORMAT, or by extension with auto), optionally .gz,
                                       in any depth, or inside a .tar.gz; every table that has
                                       the label and score columns is used
Outputs
  /opt/ml/processing/output/metrics    metrics.json: task, num_samples and, per score field,
                                       auc_roc, average_precision, f1_score, precision, recall,
                                       accuracy, count_recall, dollar_recall (binary) or
                                       auc_roc_macro / micro, accuracy, f1_score_macro / micro
                                       (multiclass: the prob_class_<i> columns); the first score
                                       field's values are repeated at the top level; a
                                       "comparison" object in comparison mode.
                                       metrics_summary.txt in plain text
  /opt/ml/processing/output/plots      roc_curve.jpg, pr_curve.jpg, score_distribution.jpg
                                       (with matplotlib and GENERATE_PLOTS)
Environment
  ID_FIELD, LABEL_FIELD (required), SCORE_FIELD (default prob_class_1), SCORE_FIELDS
  (comma-separated, multi-task: one metrics block each), AMOUNT_FIELD (dollar recall),
  INPUT_FORMAT (auto, csv, parquet, json), GENERATE_PLOTS, COMPUTE_DOLLAR_RECALL,
  COMPUTE_COUNT_RECALL, DOLLAR_RECALL_FPR (dollar recall is read at this false-positive rate),
  COUNT_RECALL_CUTOFF (count recall: share of the positives among the top-scored fraction),
  COMPARISON_MODE with PREVIOUS_SCORE_FIELD
Arguments
  --job_type   the split the predictions belong to (recorded in metrics.json)
"""
import argparse
import math
import os
import sys

import numpy as np
import pandas as pd
from sklearn import metrics as skm

from steplib import metrics, tables

EVAL_DATA_DIR = "/opt/ml/processing/input/eval_data"
METRICS_DIR = "/opt/ml/processing/output/metrics"
PLOTS_DIR = "/opt/ml/processing/output/plots"

SUFFIXES = {"csv": (".csv", ".tsv"), "parquet": (".parquet", ".pq"), "json": (".json", ".jsonl")}


def log(msg):
    print("[model_metrics_computation] " + msg, flush=True)


def fail(msg):
    print("[model_metrics_computation] ERROR: " + msg, file=sys.stderr, flush=True)
    sys.exit(1)


def read_predictions(folder, fmt, needed):
    suffixes = sum(SUFFIXES.values(), ()) if fmt == "auto" else SUFFIXES[fmt]
    df, used = tables.read_tables(folder, needed, suffixes, log)
    if df is None:
        fail("no %s table with the column(s) %s in %s" % (fmt, ", ".join(needed), folder))
    log("predictions from %s (%d rows)" % (", ".join(os.path.basename(u) for u in used), len(df)))
    return df


def count_recall(y, s, cutoff):
    n = max(1, int(math.ceil(cutoff * len(s))))
    top = np.argsort(-s, kind="stable")[:n]
    pos = y.sum()
    return metrics.num(y[top].sum() / pos) if pos else None


def dollar_recall(y, s, amount, fpr_target):
    fpr, _, thresholds = skm.roc_curve(y, s)
    i = max(int(np.searchsorted(fpr, fpr_target, side="right")) - 1, 0)
    caught = s >= thresholds[i]
    total = amount[y == 1].sum()
    return metrics.num(amount[(y == 1) & caught].sum() / total) if total else None


def binary_block(y, s, env, amount):
    out = {"num_samples": int(len(y)), "positive_rate": metrics.num(y.mean())}
    out.update(metrics.binary(y, s, ("auc_roc", "average_precision", "f1_score", "precision", "recall", "accuracy")))
    if len(set(y)) == 2:
        fpr, tpr, _ = skm.roc_curve(y, s)
        for target in (0.01, 0.05, 0.1):
            out["recall_at_fpr_%g" % target] = metrics.num(np.interp(target, fpr, tpr))
    if tables.truthy(env.get("COMPUTE_COUNT_RECALL"), True):
        cutoff = float(env.get("COUNT_RECALL_CUTOFF") or 0.1)
        out["count_recall"] = count_recall(y, s, cutoff)
        out["count_recall_cutoff"] = cutoff
    if tables.truthy(env.get("COMPUTE_DOLLAR_RECALL"), True):
        if amount is None:
            log("dollar recall needs AMOUNT_FIELD naming a column of the predictions; skipped")
        elif len(set(y)) == 2:
            rate = float(env.get("DOLLAR_RECALL_FPR") or 0.1)
            out["dollar_recall"] = dollar_recall(y, s, amount, rate)
            out["dollar_recall_fpr"] = rate
    return out


def distribution_plot(plot_dir, label, y, s):
    plt = metrics.pyplot()
    if plt is None:
        return []
    fig, ax = plt.subplots(figsize=(6, 4))
    for cls in sorted(set(y)):
        ax.hist(s[y == cls], bins=30, alpha=0.5, label="%s label %s" % (label, cls))
    ax.set_xlabel("score")
    ax.legend()
    fig.savefig(os.path.join(plot_dir, "score_distribution.jpg"))
    plt.close(fig)
    return ["score_distribution.jpg"]


def main(input_paths, output_paths, environ_vars, job_args):
    label = environ_vars["LABEL_FIELD"]
    fmt = (environ_vars.get("INPUT_FORMAT") or "auto").lower()
    if fmt not in ("auto", "csv", "parquet", "json"):
        fail("INPUT_FORMAT %s: want auto, csv, parquet or json" % fmt)
    fields = tables.names(environ_vars.get("SCORE_FIELDS"))
    single = environ_vars.get("SCORE_FIELD") or "prob_class_1"
    df = read_predictions(input_paths["eval_output"], fmt, [label])
    y_raw = pd.to_numeric(df[label], errors="coerce")
    keep = ~y_raw.isna()
    df, y = df[keep].reset_index(drop=True), y_raw[keep].astype(int).reset_index(drop=True).values
    probs_cols = sorted([c for c in df.columns if str(c).startswith("prob_class_")], key=lambda c: int(str(c)[11:]) if str(c)[11:].isdigit() else 0)
    multiclass = not fields and (len(set(y)) > 2 or (single not in df.columns and len(probs_cols) > 2))
    amount_field = environ_vars.get("AMOUNT_FIELD") or ""
    amount = pd.to_numeric(df[amount_field], errors="coerce").fillna(0.0).values if amount_field and amount_field in df.columns else None
    report = {"job_type": job_args.job_type, "num_samples": int(len(df)), "label_field": label}
    curves = []
    if multiclass:
        if len(probs_cols) < 2:
            fail("multiclass labels need prob_class_<i> columns; found %s" % ", ".join(map(str, df.columns)))
        probs = df[probs_cols].astype(float).values
        report["task"] = "multiclass"
        report["num_classes"] = probs.shape[1]
        report.update(metrics.multiclass(y, probs, ("auc_roc", "average_precision", "f1_score", "accuracy")))
        curves = [("class %d" % i, (y == i).astype(int), probs[:, i]) for i in range(probs.shape[1])]
    else:
        report["task"] = "binary"
        report["fields"] = {}
        for f in fields or [single]:
            if f not in df.columns:
                fail("score column %s is not in the predictions (columns: %s)" % (f, ", ".join(map(str, df.columns))))
            s = pd.to_numeric(df[f], errors="coerce").fillna(0.0).values
            report["fields"][f] = binary_block(y, s, environ_vars, amount)
            curves.append((f, y, s))
        report.update({k: v for k, v in report["fields"][(fields or [single])[0]].items()})
        if tables.truthy(environ_vars.get("COMPARISON_MODE")):
            prev = environ_vars.get("PREVIOUS_SCORE_FIELD") or ""
            if prev not in df.columns:
                fail("COMPARISON_MODE needs PREVIOUS_SCORE_FIELD naming a column of the predictions (got %r)" % prev)
            old = pd.to_numeric(df[prev], errors="coerce").fillna(0.0).values
            before = binary_block(y, old, environ_vars, amount)
            first = report["fields"][(fields or [single])[0]]
            report["comparison"] = {"previous_score_field": prev, "previous": before,
                                    "delta": {k: first[k] - before[k] for k in first if isinstance(first.get(k), float) and isinstance(before.get(k), float)}}
            curves.append((prev, y, old))
    metrics_dir, plot_dir = output_paths["metrics_output"], output_paths["plots_output"]
    os.makedirs(metrics_dir, exist_ok=True)
    os.makedirs(plot_dir, exist_ok=True)
    if tables.truthy(environ_vars.get("GENERATE_PLOTS"), True):
        report["plots"] = metrics.curve_plots(plot_dir, curves, log) + distribution_plot(plot_dir, *curves[0])
    id_field = environ_vars.get("ID_FIELD") or ""
    if id_field and id_field not in df.columns:
        log("id column %s is not in the predictions" % id_field)
    metrics.write_report(metrics_dir, report, log)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    env = {
        "ID_FIELD": os.environ.get("ID_FIELD", "id"),
        "LABEL_FIELD": os.environ.get("LABEL_FIELD", "label"),
        "SCORE_FIELD": os.environ.get("SCORE_FIELD", "prob_class_1"),
        "SCORE_FIELDS": os.environ.get("SCORE_FIELDS", ""),
        "AMOUNT_FIELD": os.environ.get("AMOUNT_FIELD", ""),
        "INPUT_FORMAT": os.environ.get("INPUT_FORMAT", "auto"),
        "GENERATE_PLOTS": os.environ.get("GENERATE_PLOTS", "true"),
        "COMPUTE_DOLLAR_RECALL": os.environ.get("COMPUTE_DOLLAR_RECALL", "true"),
        "COMPUTE_COUNT_RECALL": os.environ.get("COMPUTE_COUNT_RECALL", "true"),
        "DOLLAR_RECALL_FPR": os.environ.get("DOLLAR_RECALL_FPR", "0.1"),
        "COUNT_RECALL_CUTOFF": os.environ.get("COUNT_RECALL_CUTOFF", "0.1"),
        "COMPARISON_MODE": os.environ.get("COMPARISON_MODE", "false"),
        "PREVIOUS_SCORE_FIELD": os.environ.get("PREVIOUS_SCORE_FIELD", ""),
    }
    main({"eval_output": EVAL_DATA_DIR}, {"metrics_output": METRICS_DIR, "plots_output": PLOTS_DIR}, env, args)
