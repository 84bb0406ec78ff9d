"""XGBoostModelEval: score a labelled data set with a trained XGBoost model and report metrics.

Inputs
  /opt/ml/processing/input/model      model.tar.gz from XGBoostTraining or XGBoostTuning (or its
                                      unpacked files): xgboost_model.json, risk_table_map.json,
                                      impute_dict.json, feature_columns.txt, hyperparameters.json
  /opt/ml/processing/input/eval_data  the data: *.csv, *.tsv, *.json(l), *.parquet (optionally
                                      .gz, in any folder depth, or inside a .tar.gz)
Outputs
  /opt/ml/processing/output/eval      eval_predictions.csv: id, label, prob_class_<i> (or
                                      prediction for a regression model) for every row
  /opt/ml/processing/output/metrics   metrics.json (task, num_samples and the chosen metrics:
                                      auc_roc, average_precision, f1_score, accuracy, ...; for
                                      multiclass *_macro / *_micro; regression rmse, mae, r2;
                                      a "comparison" object in comparison mode),
                                      metrics_summary.txt and, with matplotlib, roc_curve.jpg,
                                      pr_curve.jpg (and comparison plots)
Environment
  ID_FIELD, LABEL_FIELD (required), EVAL_METRIC_CHOICES (comma-separated: auc, average_precision,
  f1_score, accuracy, log_loss, precision, recall, brier_score), COMPARISON_MODE with
  PREVIOUS_SCORE_FIELD (a column of the data holding a previous model's class-1 score),
  COMPARISON_METRICS (all or basic), STATISTICAL_TESTS (McNemar, paired t, Wilcoxon),
  COMPARISON_PLOTS
Arguments
  --job_type   the split being evaluated (logged and recorded in metrics.json)
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
import xgboost as xgb

MODEL_DIR = "/opt/ml/processing/input/model"
EVAL_DATA_DIR = "/opt/ml/processing/input/eval_data"
EVAL_OUTPUT_DIR = "/opt/ml/processing/output/eval"
METRICS_DIR = "/opt/ml/processing/output/metrics"

DATA_SUFFIXES = (".csv", ".tsv", ".json", ".jsonl", ".parquet", ".pq")
MISSING_CATEGORY = "__missing__"
METRIC_ALIASES = {"auc": "auc_roc", "roc_auc": "auc_roc", "f1": "f1_score", "ap": "average_precision", "logloss": "log_loss", "brier": "brier_score"}
KNOWN_METRICS = ("auc_roc", "average_precision", "f1_score", "accuracy", "log_loss", "precision", "recall", "brier_score")


def log(msg):
    print("[xgboost_model_eval] " + msg, flush=True)


def fail(msg):
    print("[xgboost_model_eval] ERROR: " + msg, file=sys.stderr, flush=True)
    sys.exit(1)


def flag(value, default=False):
    v = str(value or "").strip().lower()
    return default if v == "" else v in ("true", "1", "yes")


def unpack_archives(folder):
    """Unpacks every .tar.gz below folder into a scratch directory; returns the folders to search."""
    roots = [folder]
    for root, _, files in os.walk(folder):
        for name in sorted(files):
            if name.endswith((".tar.gz", ".tgz")):
                dst = tempfile.mkdtemp(prefix="unpacked-")
                with tarfile.open(os.path.join(root, name)) as tar:
                    tar.extractall(dst, members=[m for m in tar.getmembers() if not (m.name.startswith("/") or ".." in m.name.split("/"))])
                roots.append(dst)
    return roots


def find_model_dir(folder):
    for root in unpack_archives(folder):
        for r, _, files in os.walk(root):
            if "xgboost_model.json" in files:
                return r
    fail("no xgboost_model.json in %s (nor in a model.tar.gz there)" % folder)


def read_data(folder):
    files = []
    for root in unpack_archives(folder):
        for r, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for n in sorted(names):
                base = n[:-3] if n.lower().endswith(".gz") else n
                if not n.startswith(".") and base.lower().endswith(DATA_SUFFIXES):
                    files.append(os.path.join(r, n))
    if not files:
        fail("no data files in %s" % folder)
    frames = []
    for p in files:
        lower = p.lower()
        base = lower[:-3] if lower.endswith(".gz") else lower
        if base.endswith((".parquet", ".pq")):
            frames.append(pd.read_parquet(p))
            continue
        with (gzip.open(p, "rb") if lower.endswith(".gz") else open(p, "rb")) as f:
            raw = f.read()
        if base.endswith((".json", ".jsonl")):
            text = raw.decode("utf-8").lstrip()
            frames.append(pd.read_json(io.StringIO(text), lines=base.endswith(".jsonl") or not text.startswith("[")))
        else:
            frames.append(pd.read_csv(io.BytesIO(raw), sep="\t" if base.endswith(".tsv") else ","))
    log("read %d file(s) from %s" % (len(files), folder))
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def category_key(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return MISSING_CATEGORY
    if isinstance(v, float) and v == int(v):
        return str(int(v))
    return str(v)


class Model(object):
    def __init__(self, folder):
        d = find_model_dir(folder)
        self.booster = xgb.Booster()
        self.booster.load_model(os.path.join(d, "xgboost_model.json"))
        with open(os.path.join(d, "hyperparameters.json"), encoding="utf-8") as f:
            self.hp = json.load(f)
        self.columns = [str(c) for c in self.hp["feature_columns"]]
        self.cat_fields = set(self.hp.get("cat_field_list") or [])
        self.risk = self._json(d, "risk_table_map.json")
        self.impute = self._json(d, "impute_dict.json")
        self.task = self.hp.get("task", "binary")
        self.labels = [str(c) for c in self.hp.get("class_labels") or []]
        log("model from %s: %s, %d features" % (d, self.task, len(self.columns)))

    @staticmethod
    def _json(d, name):
        p = os.path.join(d, name)
        if not os.path.isfile(p):
            return {}
        with open(p, encoding="utf-8") as f:
            return json.load(f)

    def predict(self, df):
        missing = [c for c in self.columns if c not in df.columns]
        if missing:
            fail("the data lacks the model's feature column(s) %s" % ", ".join(missing))
        x = pd.DataFrame(index=df.index)
        for c in self.columns:
            if c in self.cat_fields:
                t = self.risk.get(c) or {"bins": {}, "default_bin": 0.0}
                x[c] = df[c].map(category_key).map(t["bins"]).fillna(t["default_bin"]).astype(float)
            else:
                x[c] = pd.to_numeric(df[c], errors="coerce").fillna(self.impute.get(c, 0.0)).astype(float)
        raw = self.booster.predict(xgb.DMatrix(x.values, feature_names=self.columns))
        if self.task == "regression":
            return np.asarray(raw, dtype=float)
        return np.column_stack([1.0 - raw, raw]) if raw.ndim == 1 else raw

    def encode_labels(self, series):
        if self.task == "regression":
            return pd.to_numeric(series, errors="coerce")
        index = {}
        for i, v in enumerate(self.labels):
            index[v] = i
            try:
                index[str(int(float(v)))] = i
            except ValueError:
                pass

        def one(v):
            if pd.isna(v):
                return np.nan
            key = category_key(v)
            if key not in index:
                fail("label value %r is not one of the model's classes %s" % (v, self.labels))
            return index[key]
        return series.map(one)


def metric_choices(raw):
    out = []
    for m in (raw or "auc_roc,average_precision,f1_score").split(","):
        m = METRIC_ALIASES.get(m.strip().lower(), m.strip().lower())
        if not m:
            continue
        if m not in KNOWN_METRICS:
            fail("EVAL_METRIC_CHOICES names %s; known: %s" % (m, ", ".join(KNOWN_METRICS)))
        if m not in out:
            out.append(m)
    return out


def binary_metrics(y, p, choices):
    from sklearn import metrics as skm
    pred = (p >= 0.5).astype(int)
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
    return {m: none_or_float(funcs[m]()) for m in choices}


def multiclass_metrics(y, probs, choices):
    from sklearn import metrics as skm
    pred = probs.argmax(axis=1)
    k = probs.shape[1]
    onehot = np.eye(k)[y]
    present = len(set(y)) == k
    out = {}
    for m in choices:
        if m == "auc_roc":
            out["auc_roc_macro"] = none_or_float(skm.roc_auc_score(y, probs, multi_class="ovr", average="macro") if present else None)
            out["auc_roc_micro"] = none_or_float(skm.roc_auc_score(onehot, probs, average="micro") if present else None)
        elif m == "average_precision":
            out["average_precision_macro"] = none_or_float(skm.average_precision_score(onehot, probs, average="macro"))
            out["average_precision_micro"] = none_or_float(skm.average_precision_score(onehot, probs, average="micro"))
        elif m in ("f1_score", "precision", "recall"):
            fn = {"f1_score": skm.f1_score, "precision": skm.precision_score, "recall": skm.recall_score}[m]
            out[m + "_macro"] = none_or_float(fn(y, pred, average="macro", zero_division=0))
            out[m + "_micro"] = none_or_float(fn(y, pred, average="micro", zero_division=0))
        elif m == "accuracy":
            out["accuracy"] = none_or_float(skm.accuracy_score(y, pred))
        elif m == "log_loss":
            out["log_loss"] = none_or_float(skm.log_loss(y, np.clip(probs, 1e-15, 1), labels=list(range(k))))
        elif m == "brier_score":
            out["brier_score"] = none_or_float(np.mean(np.sum((probs - onehot) ** 2, axis=1)))
    per_class = {}
    for i in range(k):
        yi = (y == i).astype(int)
        entry = {"support": int(yi.sum())}
        if 0 < yi.sum() < len(yi):
            entry["auc_roc"] = float(skm.roc_auc_score(yi, probs[:, i]))
        entry["f1_score"] = float(skm.f1_score(yi, (pred == i).astype(int), zero_division=0))
        per_class[str(i)] = entry
    out["per_class"] = per_class
    return out


def regression_metrics(y, pred):
    from sklearn import metrics as skm
    return {"rmse": float(math.sqrt(skm.mean_squared_error(y, pred))), "mae": float(skm.mean_absolute_error(y, pred)),
            "r2": none_or_float(skm.r2_score(y, pred) if len(y) > 1 else None)}


def none_or_float(v):
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def comparison(y, new, old, choices, which, tests):
    out = {"previous": binary_metrics(y, old, choices)}
    current = binary_metrics(y, new, choices)
    out["delta"] = {m: (current[m] - out["previous"][m]) if current[m] is not None and out["previous"][m] is not None else None for m in choices}
    if which == "all":
        from scipy import stats
        out["pearson_correlation"] = none_or_float(stats.pearsonr(new, old)[0]) if len(y) > 2 else None
        out["spearman_correlation"] = none_or_float(stats.spearmanr(new, old)[0]) if len(y) > 2 else None
        out["decision_agreement"] = float(np.mean((new >= 0.5) == (old >= 0.5)))
    if tests:
        from scipy import stats
        right_new, right_old = (new >= 0.5) == y, (old >= 0.5) == y
        b, c = int(np.sum(right_new & ~right_old)), int(np.sum(~right_new & right_old))
        mcnemar = (abs(b - c) - 1) ** 2 / float(b + c) if b + c else 0.0
        err_new, err_old = np.abs(y - new), np.abs(y - old)
        res = {"mcnemar": {"statistic": mcnemar, "p_value": float(stats.chi2.sf(mcnemar, 1)), "new_only_right": b, "previous_only_right": c}}
        if len(y) > 1 and np.any(err_new != err_old):
            t = stats.ttest_rel(err_new, err_old)
            res["paired_t_test"] = {"statistic": none_or_float(t.statistic), "p_value": none_or_float(t.pvalue)}
            w = stats.wilcoxon(err_new, err_old)
            res["wilcoxon"] = {"statistic": none_or_float(w.statistic), "p_value": none_or_float(w.pvalue)}
        out["statistical_tests"] = res
    return out


def plots(out_dir, y, probs, task, old=None, comparison_plots=False):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from sklearn.metrics import precision_recall_curve, roc_curve
    except ImportError:
        log("matplotlib is not installed: no plots")
        return []
    written = []
    series = [(str(i), (y == i).astype(int), probs[:, i]) for i in range(probs.shape[1])] if task == "multiclass" else [("model", y, probs[:, 1])]
    if old is not None and comparison_plots:
        series.append(("previous", y, old))
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
    if old is not None and comparison_plots:
        fig, ax = plt.subplots(figsize=(5, 5))
        ax.scatter(old, probs[:, 1], s=4, alpha=0.5)
        ax.set_xlabel("previous score")
        ax.set_ylabel("new score")
        fig.savefig(os.path.join(out_dir, "score_comparison.jpg"))
        plt.close(fig)
        written.append("score_comparison.jpg")
    return written


def main(input_paths, output_paths, environ_vars, job_args):
    id_field, label = environ_vars["ID_FIELD"], environ_vars["LABEL_FIELD"]
    model = Model(input_paths["model_input"])
    df = read_data(input_paths["processed_data"])
    if label not in df.columns:
        fail("the data has no label column %s (columns: %s)" % (label, ", ".join(map(str, df.columns))))
    y = model.encode_labels(df[label])
    keep = ~y.isna()
    df, y = df[keep].reset_index(drop=True), y[keep].reset_index(drop=True)
    log("job type %s: %d labelled rows" % (job_args.job_type, len(df)))
    scores = model.predict(df)
    preds = pd.DataFrame()
    if id_field in df.columns:
        preds[id_field] = df[id_field].values
    else:
        log("id column %s is not in the data; predictions carry no id" % id_field)
    preds[label] = y.values if model.task == "regression" else y.astype(int).values
    metrics = {"job_type": job_args.job_type, "task": model.task, "num_samples": int(len(df))}
    if model.task == "regression":
        preds["prediction"] = scores
        metrics.update(regression_metrics(y.values, scores))
    else:
        for i in range(scores.shape[1]):
            preds["prob_class_%d" % i] = scores[:, i]
        yi = y.astype(int).values
        choices = metric_choices(environ_vars.get("EVAL_METRIC_CHOICES"))
        if model.task == "binary":
            metrics.update(binary_metrics(yi, scores[:, 1], choices))
        else:
            metrics.update(multiclass_metrics(yi, scores, choices))
    old = None
    if flag(environ_vars.get("COMPARISON_MODE")):
        prev = environ_vars.get("PREVIOUS_SCORE_FIELD", "")
        if model.task != "binary":
            log("comparison mode compares binary scores; skipped for a %s model" % model.task)
        elif not prev or prev not in df.columns:
            fail("COMPARISON_MODE needs PREVIOUS_SCORE_FIELD naming a column of the data (got %r)" % prev)
        else:
            old = pd.to_numeric(df[prev], errors="coerce").fillna(0.0).values
            preds[prev] = old
            metrics["comparison"] = comparison(y.astype(int).values, scores[:, 1], old, metric_choices(environ_vars.get("EVAL_METRIC_CHOICES")),
                                               (environ_vars.get("COMPARISON_METRICS") or "all").lower(), flag(environ_vars.get("STATISTICAL_TESTS"), True))

    eval_dir, metrics_dir = output_paths["eval_output"], output_paths["metrics_output"]
    os.makedirs(eval_dir, exist_ok=True)
    os.makedirs(metrics_dir, exist_ok=True)
    preds.to_csv(os.path.join(eval_dir, "eval_predictions.csv"), index=False)
    if model.task != "regression":
        metrics["plots"] = plots(metrics_dir, y.astype(int).values, scores, model.task, old, flag(environ_vars.get("COMPARISON_PLOTS"), True))
    with open(os.path.join(metrics_dir, "metrics.json"), "w", encoding="utf-8") as f:
        json.dump(metrics, f, indent=2, sort_keys=True)
    with open(os.path.join(metrics_dir, "metrics_summary.txt"), "w", encoding="utf-8") as f:
        for k in sorted(metrics):
            if not isinstance(metrics[k], (dict, list)):
                f.write("%s: %s\n" % (k, metrics[k]))
    log("metrics: %s" % json.dumps({k: v for k, v in metrics.items() if not isinstance(v, (dict, list))}, sort_keys=True))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    env = {
        "ID_FIELD": os.environ.get("ID_FIELD", "id"),
        "LABEL_FIELD": os.environ.get("LABEL_FIELD", "label"),
        "EVAL_METRIC_CHOICES": os.environ.get("EVAL_METRIC_CHOICES", ""),
        "COMPARISON_MODE": os.environ.get("COMPARISON_MODE", ""),
        "PREVIOUS_SCORE_FIELD": os.environ.get("PREVIOUS_SCORE_FIELD", ""),
        "COMPARISON_METRICS": os.environ.get("COMPARISON_METRICS", ""),
        "STATISTICAL_TESTS": os.environ.get("STATISTICAL_TESTS", ""),
        "COMPARISON_PLOTS": os.environ.get("COMPARISON_PLOTS", ""),
    }
    main({"model_input": MODEL_DIR, "processed_data": EVAL_DATA_DIR},
         {"eval_output": EVAL_OUTPUT_DIR, "metrics_output": METRICS_DIR}, env, args)
