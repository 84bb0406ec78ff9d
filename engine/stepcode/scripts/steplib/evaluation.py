"""Evaluating a classifier on labelled rows: the metrics, the comparison with a previous
model's scores, the plots and the job's outputs, for the model-eval scripts whose trainers
write model_config.json with "classes" (LightGBMModelEval, PyTorchModelEval).

A script loads its model, then calls run with a function that turns the labelled rows into
class probabilities; everything else (reading the rows, the label check, eval_predictions.csv,
metrics.json, roc_curve.png and pr_curve.png) is done here the same way for every framework.
"""
import json
import math
import os

import numpy as np
import pandas as pd

from steplib import labels, modelfiles

METRIC_NAMES = ("auc", "average_precision", "f1_score", "accuracy", "log_loss", "precision", "recall")
BASIC_METRICS = ("auc", "average_precision")


def log(msg):
    print(msg, flush=True)


def env_flag(value, default):
    """An environment flag's value: true, 1, yes or on (any case); default when empty."""
    v = str(value or "").strip().lower()
    return default if not v else v in ("1", "true", "yes", "on")


def names(value):
    """A comma-separated list of names, blanks dropped."""
    return [m.strip() for m in str(value or "").split(",") if m.strip()]


def check_choices(chosen):
    unknown = [m for m in chosen if m not in METRIC_NAMES]
    if unknown:
        raise SystemExit("EVAL_METRIC_CHOICES: unknown metric(s) %s (known: %s)" % (unknown, ", ".join(METRIC_NAMES)))


def binary_metrics(y, score, chosen):
    """The chosen metrics of class-1 scores against 0/1 labels (auc and average_precision are
    None when only one class is present)."""
    from sklearn.metrics import accuracy_score, average_precision_score, f1_score, log_loss, precision_score, recall_score, roc_auc_score

    both = len(set(y.tolist())) == 2
    decision = (score >= 0.5).astype(int)
    fns = {
        "auc": lambda: float(roc_auc_score(y, score)) if both else None,
        "average_precision": lambda: float(average_precision_score(y, score)) if both else None,
        "f1_score": lambda: float(f1_score(y, decision, zero_division=0)),
        "accuracy": lambda: float(accuracy_score(y, decision)),
        "log_loss": lambda: float(log_loss(y, np.clip(score, 1e-15, 1 - 1e-15), labels=[0, 1])),
        "precision": lambda: float(precision_score(y, decision, zero_division=0)),
        "recall": lambda: float(recall_score(y, decision, zero_division=0)),
    }
    return {m: fns[m]() for m in chosen}


def multiclass_metrics(y, prob, chosen):
    """The chosen metrics of class probabilities: auc and average_precision as the mean over
    classes (per class as <metric>_class_<i>), f1_score, precision and recall macro (and
    _micro), accuracy and log_loss."""
    from sklearn.metrics import accuracy_score, average_precision_score, f1_score, log_loss, precision_score, recall_score, roc_auc_score

    n = prob.shape[1]
    pred = prob.argmax(axis=1)
    present = sorted(set(int(v) for v in y))
    out = {}
    per_class = {"auc": roc_auc_score, "average_precision": average_precision_score}
    for m in chosen:
        if m in per_class:
            vals = []
            for i in range(n):
                yi = (y == i).astype(int)
                if 0 < yi.sum() < len(yi):
                    out["%s_class_%d" % (m, i)] = float(per_class[m](yi, prob[:, i]))
                    vals.append(out["%s_class_%d" % (m, i)])
            out[m] = float(np.mean(vals)) if vals else None
        elif m == "accuracy":
            out[m] = float(accuracy_score(y, pred))
        elif m == "log_loss":
            out[m] = float(log_loss(y, prob, labels=list(range(n))))
        else:
            fn = {"f1_score": f1_score, "precision": precision_score, "recall": recall_score}[m]
            out[m] = float(fn(y, pred, average="macro", labels=present, zero_division=0))
            out[m + "_micro"] = float(fn(y, pred, average="micro", labels=present, zero_division=0))
    return out


def training_metrics(y, prob):
    """What a trainer reports for a split: rows, accuracy, log_loss, f1_score, and auc and
    average_precision when both sides are present (multiclass: means over present classes,
    f1 macro)."""
    from sklearn.metrics import accuracy_score, average_precision_score, f1_score, log_loss, roc_auc_score

    n = prob.shape[1]
    out = {"rows": int(len(y))}
    pred = prob.argmax(axis=1)
    out["accuracy"] = float(accuracy_score(y, pred))
    out["log_loss"] = float(log_loss(y, np.clip(prob, 1e-15, 1), labels=list(range(n))))
    present = sorted(set(int(v) for v in y))
    if n == 2:
        if len(present) == 2:
            out["auc"] = float(roc_auc_score(y, prob[:, 1]))
            out["average_precision"] = float(average_precision_score(y, prob[:, 1]))
        out["f1_score"] = float(f1_score(y, (prob[:, 1] >= 0.5).astype(int), zero_division=0))
    else:
        aucs, aps = [], []
        for i in present:
            yi = (y == i).astype(int)
            if 0 < yi.sum() < len(y):
                aucs.append(float(roc_auc_score(yi, prob[:, i])))
                aps.append(float(average_precision_score(yi, prob[:, i])))
        if aucs:
            out["auc"] = float(np.mean(aucs))
            out["average_precision"] = float(np.mean(aps))
        out["f1_score"] = float(f1_score(y, pred, average="macro", labels=present, zero_division=0))
    return out


def mcnemar(y, a, b):
    """McNemar's test on the 0.5 decisions of two scorers (chi-square, continuity corrected):
    (statistic, p value)."""
    right_a = (a >= 0.5).astype(int) == y
    right_b = (b >= 0.5).astype(int) == y
    only_a, only_b = int((right_a & ~right_b).sum()), int((~right_a & right_b).sum())
    if only_a + only_b == 0:
        return 0.0, 1.0
    stat = (abs(only_a - only_b) - 1) ** 2 / float(only_a + only_b)
    return stat, math.erfc(math.sqrt(stat / 2))


def paired_tests(y, a, b, metrics):
    """Paired t and Wilcoxon tests on the per-row errors |y - score|, added to metrics (with
    scipy; without it nothing is added)."""
    try:
        from scipy import stats
    except ImportError:
        log("scipy is not installed: McNemar's test only")
        return
    ea, eb = np.abs(y - a), np.abs(y - b)
    if np.allclose(ea, eb):
        return
    t = stats.ttest_rel(ea, eb)
    metrics["paired_t_statistic"], metrics["paired_t_p_value"] = float(t.statistic), float(t.pvalue)
    w = stats.wilcoxon(ea, eb)
    metrics["wilcoxon_statistic"], metrics["wilcoxon_p_value"] = float(w.statistic), float(w.pvalue)


def plots(out_dir, y, prob, previous, draw_comparison):
    """roc_curve.png and pr_curve.png in out_dir: one curve per class (multiclass) or the
    model's, plus the previous scores'; nothing without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from sklearn.metrics import precision_recall_curve, roc_curve
    except ImportError:
        log("matplotlib is not installed: no plots")
        return []
    n = prob.shape[1]
    curves = [("class %d" % i, (y == i).astype(int), prob[:, i]) for i in range(n)] if n > 2 else [("model", y, prob[:, 1])]
    if previous is not None and draw_comparison:
        curves.append(("previous", y, previous))
    written = []
    for name, fn, xlabel, ylabel in (("roc_curve", roc_curve, "false positive rate", "true positive rate"), ("pr_curve", precision_recall_curve, "recall", "precision")):
        plt.figure()
        for label, yt, s in curves:
            if 0 < yt.sum() < len(yt):
                a, b, _ = fn(yt, s)
                plt.plot(a, b, label=label) if name == "roc_curve" else plt.plot(b, a, label=label)
        plt.xlabel(xlabel)
        plt.ylabel(ylabel)
        plt.legend()
        plt.savefig(os.path.join(out_dir, name + ".png"))
        plt.close()
        written.append(name + ".png")
    return written


def previous_scores(df, environ_vars, n):
    """The previous model's class-1 scores in comparison mode (None otherwise); exits when they
    cannot be compared."""
    if not environ_vars["COMPARISON_MODE"]:
        return None
    field = environ_vars["PREVIOUS_SCORE_FIELD"]
    if n != 2:
        raise SystemExit("COMPARISON_MODE compares binary scores; this model has %d classes" % n)
    if not field or field not in df.columns:
        raise SystemExit("COMPARISON_MODE: PREVIOUS_SCORE_FIELD %r is not a column of the data" % field)
    previous = pd.to_numeric(df[field], errors="coerce").to_numpy(dtype="float64")
    if np.isnan(previous).any():
        raise SystemExit("COMPARISON_MODE: column %r is missing or not numeric in some rows" % field)
    return previous


def run(input_paths, output_paths, environ_vars, job_args, config, score):
    """Evaluates a model whose config lists its classes: reads the labelled rows of
    input_paths["processed_data"], scores them with score(df) -> (probabilities [rows, classes],
    a few words on how), writes output_paths["eval_output"]/eval_predictions.csv and
    output_paths["metrics_output"]/metrics.json (and the plots); returns the metrics."""
    id_field, label = environ_vars["ID_FIELD"], environ_vars["LABEL_FIELD"]
    chosen = environ_vars["EVAL_METRIC_CHOICES"]
    check_choices(chosen)
    df = modelfiles.read_rows(input_paths["processed_data"])
    if label not in df.columns:
        raise SystemExit("LABEL_FIELD %r is not a column of the data (columns: %s)" % (label, list(df.columns)))
    df = df[df[label].notna()].reset_index(drop=True)
    if not len(df):
        raise SystemExit("no labelled rows (%s) under %s" % (label, input_paths["processed_data"]))
    y = labels.encode_known(df[label], config["classes"], "LABEL_FIELD %r" % label)
    prob, how = score(df)
    n = prob.shape[1]
    log("scored %d rows with %d classes %s" % (len(y), n, how))
    previous = previous_scores(df, environ_vars, n)

    os.makedirs(output_paths["eval_output"], exist_ok=True)
    ids = df[id_field] if id_field in df.columns else pd.Series(np.arange(len(df)))
    out = pd.DataFrame({id_field: ids, label: y})
    for i in range(n):
        out["prob_class_%d" % i] = prob[:, i]
    if previous is not None:
        out[environ_vars["PREVIOUS_SCORE_FIELD"]] = previous
    out.to_csv(os.path.join(output_paths["eval_output"], "eval_predictions.csv"), index=False)

    metrics = {"rows": int(len(y)), "num_classes": int(n)}
    for i in range(n):
        metrics["class_%d_count" % i] = int((y == i).sum())
    metrics.update(binary_metrics(y, prob[:, 1], chosen) if n == 2 else multiclass_metrics(y, prob, chosen))
    if previous is not None:
        compared = chosen if environ_vars["COMPARISON_METRICS"] == "all" else [m for m in chosen if m in BASIC_METRICS]
        old = binary_metrics(y, previous, compared)
        for m in compared:
            metrics["previous_" + m] = old[m]
            if old[m] is not None and metrics.get(m) is not None:
                metrics["delta_" + m] = metrics[m] - old[m]
        if environ_vars["STATISTICAL_TESTS"]:
            metrics["mcnemar_statistic"], metrics["mcnemar_p_value"] = mcnemar(y, prob[:, 1], previous)
            paired_tests(y, prob[:, 1], previous, metrics)
    os.makedirs(output_paths["metrics_output"], exist_ok=True)
    with open(os.path.join(output_paths["metrics_output"], "metrics.json"), "w", encoding="utf-8") as f:
        json.dump(metrics, f, indent=2, sort_keys=True)
    plots(output_paths["metrics_output"], y, prob, previous, environ_vars["COMPARISON_PLOTS"])
    log("metrics (%s): %s" % (job_args.job_type, json.dumps(metrics, sort_keys=True)))
    return metrics
