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
import gzip
import io
import json
import math
import os
import sys
import tarfile
import tempfile

import numpy as np
import pandas as pd
from sklearn import metrics as skm

EVAL_DATA_DIR = "/opt/ml/processing/input/eval_data"
METRICS_DIR = "/opt/ml/processing/output/metrics"
PLOTS_DIR = "/opt/ml/processing/output/plots"

SUFFIXES = {"csv": (".csv", ".tsv"), "parquet": (".parquet", ".pq"), "json": (".json", ".jsonl")}


def log(msg):
    print("[model_metrics_computation] " + msg, flush=True)


def fail(msg):
    print("[model_metrics_computation] ERROR: " + msg, file=sys.stderr, flush=True)
    sys.exit(1)


def flag(value, default=False):
    v = str(value or "").strip().lower()
    return default if v == "" else v in ("true", "1", "yes")


def read_tables(folder, fmt, needed):
    suffixes = sum(SUFFIXES.values(), ()) if fmt == "auto" else SUFFIXES[fmt]
    roots = [folder]
    for root, _, files in os.walk(folder):
        for name in sorted(files):
            if name.endswith((".tar.gz", ".tgz")):
                dst = tempfile.mkdtemp(prefix="unpacked-")
                with tarfile.open(os.path.join(root, name)) as tar:
                    tar.extractall(dst, members=[m for m in tar.getmembers() if not (m.name.startswith("/") or ".." in m.name.split("/"))])
                roots.append(dst)
    frames = []
    for root in roots:
        for r, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for n in sorted(names):
                lower = n.lower()
                base = lower[:-3] if lower.endswith(".gz") else lower
                if n.startswith(".") or not base.endswith(suffixes):
                    continue
                p = os.path.join(r, n)
                try:
                    if base.endswith((".parquet", ".pq")):
                        df = pd.read_parquet(p)
                    else:
                        with (gzip.open(p, "rb") if lower.endswith(".gz") else open(p, "rb")) as f:
                            raw = f.read()
                        if base.endswith((".json", ".jsonl")):
                            text = raw.decode("utf-8").lstrip()
                            df = pd.read_json(io.StringIO(text), lines=base.endswith(".jsonl") or not text.startswith("["))
                        else:
                            df = pd.read_csv(io.BytesIO(raw), sep="\t" if base.endswith(".tsv") else ",")
                except Exception as e:  # not a table
                    log("skipped %s: %s" % (p, e))
                    continue
                if all(c in df.columns for c in needed):
                    frames.append(df)
                    log("predictions from %s (%d rows)" % (p, len(df)))
    if not frames:
        fail("no %s table with the column(s) %s in %s" % (fmt, ", ".join(needed), folder))
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def num(v):
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def count_recall(y, s, cutoff):
    n = max(1, int(math.ceil(cutoff * len(s))))
    top = np.argsort(-s, kind="stable")[:n]
    pos = y.sum()
    return num(y[top].sum() / pos) if pos else None


def dollar_recall(y, s, amount, fpr_target):
    fpr, _, thresholds = skm.roc_curve(y, s)
    i = max(int(np.searchsorted(fpr, fpr_target, side="right")) - 1, 0)
    caught = s >= thresholds[i]
    total = amount[y == 1].sum()
    return num(amount[(y == 1) & caught].sum() / total) if total else None


def binary_block(y, s, env, amount):
    both = len(set(y)) == 2
    pred = (s >= 0.5).astype(int)
    out = {"num_samples": int(len(y)), "positive_rate": num(y.mean()),
           "auc_roc": num(skm.roc_auc_score(y, s)) if both else None,
           "average_precision": num(skm.average_precision_score(y, s)) if both else None,
           "f1_score": num(skm.f1_score(y, pred, zero_division=0)),
           "precision": num(skm.precision_score(y, pred, zero_division=0)),
           "recall": num(skm.recall_score(y, pred, zero_division=0)),
           "accuracy": num(skm.accuracy_score(y, pred))}
    if both:
        fpr, tpr, _ = skm.roc_curve(y, s)
        for target in (0.01, 0.05, 0.1):
            out["recall_at_fpr_%g" % target] = num(np.interp(target, fpr, tpr))
    if flag(env.get("COMPUTE_COUNT_RECALL"), True):
        cutoff = float(env.get("COUNT_RECALL_CUTOFF") or 0.1)
        out["count_recall"] = count_recall(y, s, cutoff)
        out["count_recall_cutoff"] = cutoff
    if flag(env.get("COMPUTE_DOLLAR_RECALL"), True):
        if amount is None:
            log("dollar recall needs AMOUNT_FIELD naming a column of the predictions; skipped")
        elif both:
            rate = float(env.get("DOLLAR_RECALL_FPR") or 0.1)
            out["dollar_recall"] = dollar_recall(y, s, amount, rate)
            out["dollar_recall_fpr"] = rate
    return out


def multiclass_block(y, probs):
    pred = probs.argmax(axis=1)
    k = probs.shape[1]
    present = len(set(y)) == k
    onehot = np.eye(k)[y]
    out = {"num_samples": int(len(y)), "num_classes": k, "accuracy": num(skm.accuracy_score(y, pred)),
           "f1_score_macro": num(skm.f1_score(y, pred, average="macro", zero_division=0)),
           "f1_score_micro": num(skm.f1_score(y, pred, average="micro", zero_division=0)),
           "auc_roc_macro": num(skm.roc_auc_score(y, probs, multi_class="ovr", average="macro")) if present else None,
           "auc_roc_micro": num(skm.roc_auc_score(onehot, probs, average="micro")) if present else None,
           "average_precision_macro": num(skm.average_precision_score(onehot, probs, average="macro"))}
    out["per_class"] = {str(i): {"support": int((y == i).sum()),
                                 "auc_roc": num(skm.roc_auc_score((y == i).astype(int), probs[:, i])) if 0 < (y == i).sum() < len(y) else None}
                        for i in range(k)}
    return out


def plots(plot_dir, y, curves):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib is not installed: no plots")
        return []
    written = []
    for name, fn in (("roc_curve.jpg", skm.roc_curve), ("pr_curve.jpg", skm.precision_recall_curve)):
        fig, ax = plt.subplots(figsize=(5, 5))
        for label, yy, s in curves:
            if len(set(yy)) < 2:
                continue
            a, b, _ = fn(yy, s)
            if fn is skm.precision_recall_curve:
                a, b = b, a
            ax.plot(a, b, label=label)
        ax.set_xlabel("false positive rate" if "roc" in name else "recall")
        ax.set_ylabel("true positive rate" if "roc" in name else "precision")
        ax.legend()
        fig.savefig(os.path.join(plot_dir, name))
        plt.close(fig)
        written.append(name)
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, yy, s in curves[:1]:
        for cls in sorted(set(yy)):
            ax.hist(s[yy == cls], bins=30, alpha=0.5, label="%s label %s" % (label, cls))
    ax.set_xlabel("score")
    ax.legend()
    fig.savefig(os.path.join(plot_dir, "score_distribution.jpg"))
    plt.close(fig)
    written.append("score_distribution.jpg")
    return written


def main(input_paths, output_paths, environ_vars, job_args):
    label = environ_vars["LABEL_FIELD"]
    fmt = (environ_vars.get("INPUT_FORMAT") or "auto").lower()
    if fmt not in ("auto", "csv", "parquet", "json"):
        fail("INPUT_FORMAT %s: want auto, csv, parquet or json" % fmt)
    fields = [f.strip() for f in (environ_vars.get("SCORE_FIELDS") or "").split(",") if f.strip()]
    single = environ_vars.get("SCORE_FIELD") or "prob_class_1"
    df = read_tables(input_paths["eval_output"], fmt, [label])
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
        report.update(multiclass_block(y, probs))
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
        if flag(environ_vars.get("COMPARISON_MODE")):
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
    if flag(environ_vars.get("GENERATE_PLOTS"), True):
        report["plots"] = plots(plot_dir, y, curves)
    with open(os.path.join(metrics_dir, "metrics.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2, sort_keys=True)
    with open(os.path.join(metrics_dir, "metrics_summary.txt"), "w", encoding="utf-8") as f:
        for k in sorted(report):
            if not isinstance(report[k], (dict, list)):
                f.write("%s: %s\n" % (k, report[k]))
    id_field = environ_vars.get("ID_FIELD") or ""
    if id_field and id_field not in df.columns:
        log("id column %s is not in the predictions" % id_field)
    log("metrics: %s" % json.dumps({k: v for k, v in report.items() if not isinstance(v, (dict, list))}, sort_keys=True))


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
