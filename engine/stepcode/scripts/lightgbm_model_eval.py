"""Score a labelled data set with a model of LightGBMTraining and compute its metrics
(LightGBMModelEval).

Needs lightgbm (3.3 or later), numpy, pandas and scikit-learn in the image (the SageMaker
PyTorch and scikit-learn images do not ship lightgbm: config field image_uri); matplotlib draws
the curves when installed, scipy adds the paired tests.

Contract:
  inputs   /opt/ml/processing/input/model       model.tar.gz of LightGBMTraining (or its files):
                                                lightgbm_model.txt and model_config.json
           /opt/ml/processing/input/eval_data   labelled rows (CSV, TSV or Parquet, any sub-folder)
  outputs  /opt/ml/processing/output/eval       eval_predictions.csv: id, label (class index),
                                                prob_class_* (and the previous score in comparison mode)
           /opt/ml/processing/output/metrics    metrics.json (flat: auc, average_precision, f1_score,
                                                ...; previous_* and delta_* in comparison mode),
                                                roc_curve.png and pr_curve.png with matplotlib
  env      ID_FIELD, LABEL_FIELD (required); EVAL_METRIC_CHOICES (auc, average_precision, f1_score,
           accuracy, log_loss, precision, recall), COMPARISON_MODE, PREVIOUS_SCORE_FIELD,
           COMPARISON_METRICS (all | basic), STATISTICAL_TESTS, COMPARISON_PLOTS
  args     --job_type

Multiclass models report macro averages under the plain names (auc, average_precision,
f1_score) and per-class values as auc_class_<i>. Comparison mode is for binary models: the
previous model's score is its probability of class 1.
"""
import argparse
import glob
import json
import math
import os
import tarfile
import tempfile

import numpy as np
import pandas as pd

try:
    import lightgbm as lgb
except ImportError as e:  # the image lacks it: say so instead of a traceback
    raise SystemExit("lightgbm is not installed in this image (%s): run the step in an image with lightgbm>=3.3 (config field image_uri)" % e)

MODEL_DIR = "/opt/ml/processing/input/model"
EVAL_DATA_DIR = "/opt/ml/processing/input/eval_data"
EVAL_OUT = "/opt/ml/processing/output/eval"
METRICS_OUT = "/opt/ml/processing/output/metrics"

METRIC_NAMES = ("auc", "average_precision", "f1_score", "accuracy", "log_loss", "precision", "recall")
BASIC_METRICS = ("auc", "average_precision")


def log(msg):
    print(msg, flush=True)


def env_flag(environ, name, default):
    v = environ.get(name, "").strip().lower()
    return default if not v else v in ("1", "true", "yes", "on")


def model_files(folder):
    """The model's files: its model.tar.gz unpacked into a scratch folder, or the folder itself."""
    tars = sorted(glob.glob(os.path.join(folder, "**", "model.tar.gz"), recursive=True))
    if not tars:
        return folder
    scratch = tempfile.mkdtemp(prefix="model-")
    root = os.path.realpath(scratch)
    with tarfile.open(tars[0]) as t:
        for m in t.getmembers():
            target = os.path.realpath(os.path.join(scratch, m.name))
            if m.issym() or m.islnk() or not (target == root or target.startswith(root + os.sep)):
                raise SystemExit("refusing archive member %r of %s" % (m.name, tars[0]))
        t.extractall(scratch)
    return scratch


def find_model(folder):
    """lightgbm_model.txt and model_config.json, at the top of the model or one folder down."""
    for path in sorted(glob.glob(os.path.join(folder, "**", "model_config.json"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
        model_file = os.path.join(os.path.dirname(path), config.get("model_file", "lightgbm_model.txt"))
        if config.get("framework") == "lightgbm" and os.path.exists(model_file):
            return config, model_file
    raise SystemExit("no LightGBMTraining model (model_config.json + lightgbm_model.txt) under %s" % folder)


def read_rows(folder):
    files = []
    for ext in ("csv", "tsv", "parquet"):
        files += glob.glob(os.path.join(folder, "**", "*." + ext), recursive=True)
    frames = []
    for path in sorted(files):
        if path.endswith(".parquet"):
            frames.append(pd.read_parquet(path))
        else:
            frames.append(pd.read_csv(path, sep="\t" if path.endswith(".tsv") else ","))
    if not frames:
        raise SystemExit("no CSV, TSV or Parquet files under %s" % folder)
    return pd.concat(frames, ignore_index=True)


def category_key(v):
    """One spelling per category or label value: 1, 1.0 and "1" are the same; missing is ""."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    s = str(v).strip()
    try:
        f = float(s)
        if f.is_integer():
            return str(int(f))
    except ValueError:
        pass
    return s


def feature_matrix(config, df):
    """LightGBM's input, as LightGBMTraining built it: numeric fields imputed, categorical fields
    as their training codes (native) or risk values (a value already mapped is kept)."""
    missing = [f for f in config["feature_columns"] if f not in df.columns]
    if missing:
        raise SystemExit("the data lacks the model's field(s) %s" % missing)
    cols = []
    for f in config["feature_columns"]:
        mapping = config.get("categorical_mappings", {}).get(f)
        table = config.get("risk_tables", {}).get(f)
        if mapping is not None:
            cols.append(df[f].map(lambda v: mapping.get(category_key(v), np.nan)).astype("float64").to_numpy())
        elif table and not pd.api.types.is_numeric_dtype(df[f]):
            bins, default = table.get("bins", {}), float(table.get("default_bin", 0.0))
            cols.append(df[f].map(lambda v: bins.get(category_key(v), default)).astype("float64").to_numpy())
        else:
            x = pd.to_numeric(df[f], errors="coerce").astype("float64")
            impute = config.get("impute_dict", {}).get(f)
            cols.append((x if impute is None else x.fillna(impute)).to_numpy())
    return np.stack(cols, axis=1) if cols else np.zeros((len(df), 0))


def probabilities(model_file, x, n_classes):
    booster = lgb.Booster(model_file=model_file)
    raw = np.asarray(booster.predict(x), dtype="float64")
    if raw.ndim == 1:
        raw = np.stack([1 - raw, raw], axis=1)
    return raw.reshape(len(x), n_classes)


def binary_metrics(y, score, chosen):
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


def mcnemar(y, a, b):
    """McNemar's test on the 0.5 decisions of two scorers (chi-square, continuity corrected)."""
    right_a = (a >= 0.5).astype(int) == y
    right_b = (b >= 0.5).astype(int) == y
    only_a, only_b = int((right_a & ~right_b).sum()), int((~right_a & right_b).sum())
    if only_a + only_b == 0:
        return 0.0, 1.0
    stat = (abs(only_a - only_b) - 1) ** 2 / float(only_a + only_b)
    return stat, math.erfc(math.sqrt(stat / 2))


def paired_tests(y, a, b, metrics):
    """Paired t and Wilcoxon tests on the per-row errors |y - score| (with scipy)."""
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
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from sklearn.metrics import precision_recall_curve, roc_curve
    except ImportError:
        log("matplotlib is not installed: no plots")
        return
    n = prob.shape[1]
    curves = [("class %d" % i, (y == i).astype(int), prob[:, i]) for i in range(n)] if n > 2 else [("model", y, prob[:, 1])]
    if previous is not None and draw_comparison:
        curves.append(("previous", y, previous))
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


def main(input_paths, output_paths, environ_vars, job_args):
    config, weights = find_model(model_files(input_paths["model_input"]))
    id_field, label = environ_vars["ID_FIELD"], environ_vars["LABEL_FIELD"]
    chosen = environ_vars["EVAL_METRIC_CHOICES"]
    unknown = [m for m in chosen if m not in METRIC_NAMES]
    if unknown:
        raise SystemExit("EVAL_METRIC_CHOICES: unknown metric(s) %s (known: %s)" % (unknown, ", ".join(METRIC_NAMES)))
    df = read_rows(input_paths["processed_data"])
    if label not in df.columns:
        raise SystemExit("LABEL_FIELD %r is not a column of the data (columns: %s)" % (label, list(df.columns)))
    df = df[df[label].notna()].reset_index(drop=True)
    index = {v: i for i, v in enumerate(config["classes"])}
    y = np.array([index.get(category_key(v), -1) for v in df[label]], dtype="int64")
    if (y < 0).any():
        bad = sorted(set(category_key(v) for v, i in zip(df[label], y) if i < 0))
        raise SystemExit("labels %s are not classes of the model %s" % (bad[:10], config["classes"]))
    if not len(y):
        raise SystemExit("no labelled rows (%s) under %s" % (label, input_paths["processed_data"]))
    prob = probabilities(weights, feature_matrix(config, df), len(config["classes"]))
    n = prob.shape[1]
    log("scored %d rows with %d classes (lightgbm %s)" % (len(y), n, lgb.__version__))

    previous = None
    prev_field = environ_vars["PREVIOUS_SCORE_FIELD"] if environ_vars["COMPARISON_MODE"] else ""
    if environ_vars["COMPARISON_MODE"]:
        if n != 2:
            raise SystemExit("COMPARISON_MODE compares binary scores; this model has %d classes" % n)
        if not prev_field or prev_field not in df.columns:
            raise SystemExit("COMPARISON_MODE: PREVIOUS_SCORE_FIELD %r is not a column of the data" % prev_field)
        previous = pd.to_numeric(df[prev_field], errors="coerce").to_numpy(dtype="float64")
        if np.isnan(previous).any():
            raise SystemExit("COMPARISON_MODE: column %r is missing or not numeric in some rows" % prev_field)

    os.makedirs(output_paths["eval_output"], exist_ok=True)
    ids = df[id_field] if id_field in df.columns else pd.Series(np.arange(len(df)))
    out = pd.DataFrame({id_field: ids, label: y})
    for i in range(n):
        out["prob_class_%d" % i] = prob[:, i]
    if previous is not None:
        out[prev_field] = previous
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


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    env = os.environ
    environ_vars = {
        "ID_FIELD": env["ID_FIELD"],
        "LABEL_FIELD": env["LABEL_FIELD"],
        "EVAL_METRIC_CHOICES": [m.strip() for m in env.get("EVAL_METRIC_CHOICES", "auc,average_precision,f1_score").split(",") if m.strip()],
        "COMPARISON_MODE": env_flag(env, "COMPARISON_MODE", False),
        "PREVIOUS_SCORE_FIELD": env.get("PREVIOUS_SCORE_FIELD", ""),
        "COMPARISON_METRICS": env.get("COMPARISON_METRICS", "all"),
        "STATISTICAL_TESTS": env_flag(env, "STATISTICAL_TESTS", True),
        "COMPARISON_PLOTS": env_flag(env, "COMPARISON_PLOTS", True),
    }
    main({"model_input": MODEL_DIR, "processed_data": EVAL_DATA_DIR},
         {"eval_output": EVAL_OUT, "metrics_output": METRICS_OUT}, environ_vars, args)
