"""Score a held-out data set with the trained model and compute metrics.

Contract (XGBoostModelEval):
  inputs   /opt/ml/processing/input/model      model.tar.gz of XGBoostTraining (or its unpacked files)
           /opt/ml/processing/input/eval_data  labelled rows (CSV/TSV, any sub-folder)
  outputs  /opt/ml/processing/output/eval      eval_predictions.csv: id, label, prob_class_*
           /opt/ml/processing/output/metrics   metrics.json, roc_curve.csv (and roc_curve.png with matplotlib)
  env      ID_FIELD, LABEL_FIELD (required); EVAL_METRIC_CHOICES (auc, average_precision, f1_score,
           log_loss), COMPARISON_MODE, PREVIOUS_SCORE_FIELD, COMPARISON_METRICS (all | basic),
           STATISTICAL_TESTS, COMPARISON_PLOTS
  args     --job_type

The model is applied exactly as the training script built it: risk tables for categorical fields,
mean imputation for numeric ones, then the XGBoost booster (xgboost_model.json) or the offline
logistic fallback (logistic_model.json). In comparison mode the previous model's scores
(PREVIOUS_SCORE_FIELD) get the same metrics, the deltas and, with STATISTICAL_TESTS, McNemar's
test on the decisions at 0.5.
"""
import argparse
import csv
import glob
import json
import math
import os
import tarfile
import tempfile

MODEL_DIR = "/opt/ml/processing/input/model"
EVAL_DATA_DIR = "/opt/ml/processing/input/eval_data"
EVAL_OUT = "/opt/ml/processing/output/eval"
METRICS_OUT = "/opt/ml/processing/output/metrics"


def model_files(folder):
    """The model's files: model.tar.gz unpacked into a scratch folder, or the folder itself."""
    tars = glob.glob(os.path.join(folder, "**", "model.tar.gz"), recursive=True)
    if not tars:
        return folder
    scratch = tempfile.mkdtemp(prefix="model-")
    with tarfile.open(tars[0]) as t:
        root = os.path.realpath(scratch)
        for m in t.getmembers():
            target = os.path.realpath(os.path.join(scratch, m.name))
            if m.issym() or m.islnk() or not (target == root or target.startswith(root + os.sep)):
                raise SystemExit(f"refusing archive member {m.name!r} of {tars[0]}")
        t.extractall(scratch)
    return scratch


def load_model(folder):
    def read(name):
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            return json.load(f)

    risk, impute, columns = read("risk_table_map.json"), read("impute_dict.json"), read("feature_columns.json")
    if os.path.exists(os.path.join(folder, "xgboost_model.json")):
        import xgboost as xgb

        booster = xgb.Booster()
        booster.load_model(os.path.join(folder, "xgboost_model.json"))

        def predict(X):
            raw = booster.predict(xgb.DMatrix(X, feature_names=columns))
            return [list(map(float, r)) if hasattr(r, "__len__") else [1 - float(r), float(r)] for r in raw]
    else:
        m = read("logistic_model.json")

        def predict(X):
            out = []
            for r in X:
                s = m["bias"] + sum(w * (x - mu) / sd for w, x, mu, sd in zip(m["weights"], r, m["mean"], m["std"]))
                p = 1 / (1 + math.exp(-max(-30.0, min(30.0, s))))
                out.append([1 - p, p])
            return out
    return columns, risk, impute, predict


def number(v):
    try:
        x = float(v)
        return None if math.isnan(x) else x
    except (TypeError, ValueError):
        return None


def vector(row, columns, risk, impute):
    out = []
    for c in columns:
        if c in risk:
            out.append(risk[c]["bins"].get(str(row.get(c, "")), risk[c]["default_bin"]))
        else:
            x = number(row.get(c))
            out.append(impute.get(c, 0.0) if x is None else x)
    return out


def read_rows(folder):
    rows = []
    for path in sorted(glob.glob(os.path.join(folder, "**", "*.csv"), recursive=True) + glob.glob(os.path.join(folder, "**", "*.tsv"), recursive=True)):
        with open(path, newline="", encoding="utf-8") as f:
            rows.extend(csv.DictReader(f, delimiter="\t" if path.endswith(".tsv") else ","))
    return rows


def roc_points(y, p):
    pos, neg = sum(y), len(y) - sum(y)
    pts, tp, fp = [(0.0, 0.0)], 0, 0
    for score, t in sorted(zip(p, y), reverse=True):
        tp, fp = tp + t, fp + (1 - t)
        pts.append((fp / neg if neg else 0.0, tp / pos if pos else 0.0))
    return pts


def auc(y, p):
    if not 0 < sum(y) < len(y):
        return None
    pts = roc_points(y, p)
    return sum((x2 - x1) * (y1 + y2) / 2 for (x1, y1), (x2, y2) in zip(pts, pts[1:]))


def average_precision(y, p):
    hits, total = 0, 0.0
    for i, (_, t) in enumerate(sorted(zip(p, y), reverse=True), 1):
        if t:
            hits += 1
            total += hits / i
    return total / sum(y) if sum(y) else None


def f1(y, p, threshold=0.5):
    tp = sum(1 for t, s in zip(y, p) if t and s >= threshold)
    fp = sum(1 for t, s in zip(y, p) if not t and s >= threshold)
    fn = sum(1 for t, s in zip(y, p) if t and s < threshold)
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def log_loss(y, p):
    eps = 1e-15
    return -sum(t * math.log(max(s, eps)) + (1 - t) * math.log(max(1 - s, eps)) for t, s in zip(y, p)) / len(y)


METRICS = {"auc": auc, "average_precision": average_precision, "f1_score": f1, "log_loss": log_loss}


def mcnemar(y, a, b):
    """McNemar's test on the 0.5 decisions of two scorers (chi-square, continuity corrected)."""
    only_a = sum(1 for t, s, r in zip(y, a, b) if (s >= 0.5) == bool(t) and (r >= 0.5) != bool(t))
    only_b = sum(1 for t, s, r in zip(y, a, b) if (s >= 0.5) != bool(t) and (r >= 0.5) == bool(t))
    if only_a + only_b == 0:
        return {"statistic": 0.0, "p_value": 1.0}
    stat = (abs(only_a - only_b) - 1) ** 2 / (only_a + only_b)
    return {"statistic": stat, "p_value": math.erfc(math.sqrt(stat / 2))}


def main(input_paths, output_paths, environ_vars, job_args):
    columns, risk, impute, predict = load_model(model_files(input_paths["model_input"]))
    id_field, label = environ_vars["ID_FIELD"], environ_vars["LABEL_FIELD"]
    rows = [r for r in read_rows(input_paths["processed_data"]) if number(r.get(label)) is not None]
    if not rows:
        raise SystemExit(f"no labelled rows ({label}) under {input_paths['processed_data']}")
    y = [int(float(r[label])) for r in rows]
    probs = predict([vector(r, columns, risk, impute) for r in rows])
    scores = [pr[-1] for pr in probs]

    os.makedirs(output_paths["eval_output"], exist_ok=True)
    prev = environ_vars["PREVIOUS_SCORE_FIELD"] if environ_vars["COMPARISON_MODE"] else ""
    with open(os.path.join(output_paths["eval_output"], "eval_predictions.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow([id_field, label] + [f"prob_class_{i}" for i in range(len(probs[0]))] + ([prev] if prev else []))
        for r, t, pr in zip(rows, y, probs):
            w.writerow([r.get(id_field, ""), t] + [round(x, 6) for x in pr] + ([r.get(prev, "")] if prev else []))

    chosen = [m for m in environ_vars["EVAL_METRIC_CHOICES"] if m in METRICS]
    metrics = {"job_type": job_args.job_type, "rows": len(rows), "positives": sum(y)}
    metrics.update({m: METRICS[m](y, scores) for m in chosen})
    if prev:
        old = [number(r.get(prev)) for r in rows]
        if any(v is None for v in old):
            raise SystemExit(f"comparison mode: column {prev!r} is missing or not numeric in some rows")
        basic = [m for m in chosen if m in ("auc", "average_precision")]
        compared = chosen if environ_vars["COMPARISON_METRICS"] == "all" else basic
        metrics["previous"] = {m: METRICS[m](y, old) for m in compared}
        metrics["delta"] = {m: (metrics[m] - metrics["previous"][m]) if metrics[m] is not None and metrics["previous"][m] is not None else None for m in compared}
        if environ_vars["STATISTICAL_TESTS"]:
            metrics["mcnemar"] = mcnemar(y, scores, old)
    os.makedirs(output_paths["metrics_output"], exist_ok=True)
    with open(os.path.join(output_paths["metrics_output"], "metrics.json"), "w", encoding="utf-8") as f:
        json.dump(metrics, f, indent=2)
    with open(os.path.join(output_paths["metrics_output"], "roc_curve.csv"), "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([("fpr", "tpr")] + roc_points(y, scores))
    if environ_vars["COMPARISON_PLOTS"]:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("matplotlib is not installed: roc_curve.csv only")
        else:
            fpr, tpr = zip(*roc_points(y, scores))
            plt.plot(fpr, tpr, label="model")
            if prev:
                fpr0, tpr0 = zip(*roc_points(y, old))
                plt.plot(fpr0, tpr0, label="previous")
            plt.xlabel("false positive rate")
            plt.ylabel("true positive rate")
            plt.legend()
            plt.savefig(os.path.join(output_paths["metrics_output"], "roc_curve.png"))
    print(json.dumps(metrics))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    env = {
        "ID_FIELD": os.environ["ID_FIELD"],
        "LABEL_FIELD": os.environ["LABEL_FIELD"],
        "EVAL_METRIC_CHOICES": [m.strip() for m in os.environ.get("EVAL_METRIC_CHOICES", "auc,average_precision,f1_score").split(",") if m.strip()],
        "COMPARISON_MODE": os.environ.get("COMPARISON_MODE", "false").lower() == "true",
        "PREVIOUS_SCORE_FIELD": os.environ.get("PREVIOUS_SCORE_FIELD", ""),
        "COMPARISON_METRICS": os.environ.get("COMPARISON_METRICS", "all"),
        "STATISTICAL_TESTS": os.environ.get("STATISTICAL_TESTS", "true").lower() == "true",
        "COMPARISON_PLOTS": os.environ.get("COMPARISON_PLOTS", "true").lower() == "true",
    }
    main({"model_input": MODEL_DIR, "processed_data": EVAL_DATA_DIR},
         {"eval_output": EVAL_OUT, "metrics_output": METRICS_OUT}, env, args)
