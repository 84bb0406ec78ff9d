"""Classification and regression metrics under plain names, and ROC / PR plots."""
import json
import math
import os

import numpy as np

# metric names by choice, and the spellings accepted for them
ALIASES = {"auc": "auc_roc", "roc_auc": "auc_roc", "f1": "f1_score", "ap": "average_precision", "logloss": "log_loss", "brier": "brier_score"}
KNOWN = ("auc_roc", "average_precision", "f1_score", "accuracy", "log_loss", "precision", "recall", "brier_score")


def num(v):
    """A JSON-safe number: None for None and NaN."""
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def choices(raw, default="auc_roc,average_precision,f1_score"):
    """The metric names of a comma-separated choice (aliases resolved); raises ValueError for
    an unknown one."""
    out = []
    for m in (raw or default).split(","):
        m = ALIASES.get(m.strip().lower(), m.strip().lower())
        if not m:
            continue
        if m not in KNOWN:
            raise ValueError("unknown metric %s; known: %s" % (m, ", ".join(KNOWN)))
        if m not in out:
            out.append(m)
    return out


def binary(y, p, which=KNOWN, threshold=0.5):
    """Metrics of class-1 scores p against 0/1 labels y (AUC and AP None with one class)."""
    from sklearn import metrics as skm
    pred = (p >= threshold).astype(int)
    both = len(set(y)) == 2
    funcs = {
        "auc_roc": lambda: skm.roc_auc_score(y, p) if both else None,
        "average_precision": lambda: skm.average_precision_score(y, p) if both else None,
        "f1_score": lambda: skm.f1_score(y, pred, zero_division=0),
        "accuracy": lambda: skm.accuracy_score(y, pred),
        "log_loss": lambda: skm.log_loss(y, np.clip(p, 1e-15, 1 - 1e-15), labels=[0, 1]),
        "precision": lambda: skm.precision_score(y, pred, zero_division=0),
        "recall": lambda: skm.recall_score(y, pred, zero_division=0),
        "brier_score": lambda: skm.brier_score_loss(y, p),
    }
    return {m: num(funcs[m]()) for m in which}


def multiclass(y, probs, which=KNOWN):
    """Metrics of class probabilities (rows x classes) against class indices: *_macro and
    *_micro variants, accuracy, log_loss, brier_score, and per_class AUC and F1."""
    from sklearn import metrics as skm
    pred = probs.argmax(axis=1)
    k = probs.shape[1]
    onehot = np.eye(k)[y]
    present = len(set(y)) == k
    out = {}
    for m in which:
        if m == "auc_roc":
            out["auc_roc_macro"] = num(skm.roc_auc_score(y, probs, multi_class="ovr", average="macro") if present else None)
            out["auc_roc_micro"] = num(skm.roc_auc_score(onehot, probs, average="micro") if present else None)
        elif m == "average_precision":
            out["average_precision_macro"] = num(skm.average_precision_score(onehot, probs, average="macro"))
            out["average_precision_micro"] = num(skm.average_precision_score(onehot, probs, average="micro"))
        elif m in ("f1_score", "precision", "recall"):
            fn = {"f1_score": skm.f1_score, "precision": skm.precision_score, "recall": skm.recall_score}[m]
            out[m + "_macro"] = num(fn(y, pred, average="macro", zero_division=0))
            out[m + "_micro"] = num(fn(y, pred, average="micro", zero_division=0))
        elif m == "accuracy":
            out["accuracy"] = num(skm.accuracy_score(y, pred))
        elif m == "log_loss":
            out["log_loss"] = num(skm.log_loss(y, np.clip(probs, 1e-15, 1), labels=list(range(k))))
        elif m == "brier_score":
            out["brier_score"] = num(np.mean(np.sum((probs - onehot) ** 2, axis=1)))
    per_class = {}
    for i in range(k):
        yi = (y == i).astype(int)
        entry = {"support": int(yi.sum()), "f1_score": num(skm.f1_score(yi, (pred == i).astype(int), zero_division=0))}
        if 0 < yi.sum() < len(yi):
            entry["auc_roc"] = num(skm.roc_auc_score(yi, probs[:, i]))
        per_class[str(i)] = entry
    out["per_class"] = per_class
    return out


def regression(y, pred):
    from sklearn import metrics as skm
    return {"rmse": num(math.sqrt(skm.mean_squared_error(y, pred))), "mae": num(skm.mean_absolute_error(y, pred)),
            "r2": num(skm.r2_score(y, pred)) if len(y) > 1 else None}


def write_report(out_dir, report, log=print):
    """metrics.json (the whole report) and metrics_summary.txt (its top-level scalars, one
    "name: value" line each) in out_dir, and a log line of those scalars."""
    scalars = {k: v for k, v in report.items() if not isinstance(v, (dict, list))}
    with open(os.path.join(out_dir, "metrics.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2, sort_keys=True)
    with open(os.path.join(out_dir, "metrics_summary.txt"), "w", encoding="utf-8") as f:
        for k in sorted(scalars):
            f.write("%s: %s\n" % (k, scalars[k]))
    log("metrics: %s" % json.dumps(scalars, sort_keys=True))


def pyplot(log=None, without="no plots"):
    """matplotlib.pyplot drawing off-screen (the Agg backend), or None when matplotlib is not
    installed (logging "matplotlib is not installed: <without>" when log is given)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        if log is not None:
            log("matplotlib is not installed: " + without)
        return None
    return plt


def curve_plots(out_dir, series, log=print):
    """roc_curve.jpg and pr_curve.jpg in out_dir, one line per (label, y, scores) of series;
    returns the files written ([] without matplotlib)."""
    from sklearn.metrics import precision_recall_curve, roc_curve
    plt = pyplot(log, "no plots")
    if plt is None:
        return []
    written = []
    for name, curve, xl, yl in (("roc_curve.jpg", roc_curve, "false positive rate", "true positive rate"),
                                ("pr_curve.jpg", precision_recall_curve, "recall", "precision")):
        fig, ax = plt.subplots(figsize=(5, 5))
        for label, yt, s in series:
            if len(set(yt)) < 2:
                continue
            a, b, _ = curve(yt, s)
            if curve is precision_recall_curve:
                a, b = b, a
            ax.plot(a, b, label=label)
        ax.set_xlabel(xl)
        ax.set_ylabel(yl)
        ax.legend()
        fig.savefig(os.path.join(out_dir, name))
        plt.close(fig)
        written.append(name)
    return written
