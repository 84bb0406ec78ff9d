"""Fit a calibrator that maps model scores to calibrated probabilities.

Contract (ModelCalibration):
  input    /opt/ml/processing/input/eval_data              predictions with scores and labels
  outputs  /opt/ml/processing/output/calibration           calibration_model.json (lookup tables)
           /opt/ml/processing/output/metrics               calibration_metrics.json
           /opt/ml/processing/output/calibrated_data       the rows with calibrated_* columns added
  env      LABEL_FIELD (required), CALIBRATION_METHOD (gam | isotonic | platt), SCORE_FIELD,
           SCORE_FIELDS + TASK_LABEL_NAMES (multi-task), IS_BINARY, NUM_CLASSES, SCORE_FIELD_PREFIX,
           MULTICLASS_CATEGORIES, MONOTONIC_CONSTRAINT, GAM_SPLINES, ERROR_THRESHOLD,
           CALIBRATION_SAMPLE_POINTS
  args     --job_type

Each calibrator is stored as a lookup table of CALIBRATION_SAMPLE_POINTS (score, probability)
pairs that the inference code interpolates. isotonic is pool-adjacent-violators; platt a
logistic fit on the score; gam uses pygam's LogisticGAM when it is installed and otherwise falls
back to isotonic regression (monotonic, like a GAM with MONOTONIC_CONSTRAINT). Metrics: expected
and maximum calibration error over ten bins and the Brier score, before and after.
"""
import argparse
import bisect
import csv
import glob
import json
import math
import os

EVAL_DATA_DIR = "/opt/ml/processing/input/eval_data"
CALIBRATION_OUT = "/opt/ml/processing/output/calibration"
METRICS_OUT = "/opt/ml/processing/output/metrics"
CALIBRATED_DATA_OUT = "/opt/ml/processing/output/calibrated_data"


def read_rows(folder):
    rows, header = [], []
    for path in sorted(glob.glob(os.path.join(folder, "**", "*.csv"), recursive=True)):
        with open(path, newline="", encoding="utf-8") as f:
            r = csv.DictReader(f)
            header = header or list(r.fieldnames or [])
            rows.extend(r)
    return header, rows


def isotonic(scores, labels):
    """Pool adjacent violators: (x breakpoints, fitted values), non-decreasing."""
    pts = sorted(zip(scores, labels))
    blocks = []  # [sum_y, n, x_min, x_max]
    for x, y in pts:
        blocks.append([float(y), 1, x, x])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            s, n, _, hi = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += n
            blocks[-1][3] = hi
    xs, ys = [], []
    for s, n, lo, hi in blocks:
        xs.append((lo + hi) / 2)
        ys.append(s / n)
    return xs, ys


def platt(scores, labels, iterations=200):
    a, b = 1.0, 0.0
    for _ in range(iterations):
        ga = gb = 0.0
        for s, y in zip(scores, labels):
            p = 1 / (1 + math.exp(-max(-30.0, min(30.0, a * s + b))))
            ga += (p - y) * s
            gb += p - y
        a -= 4.0 * ga / len(scores)
        b -= 4.0 * gb / len(scores)
    return lambda s: 1 / (1 + math.exp(-max(-30.0, min(30.0, a * s + b))))


def interpolate(xs, ys, s):
    if s <= xs[0]:
        return ys[0]
    if s >= xs[-1]:
        return ys[-1]
    i = bisect.bisect_right(xs, s)
    x0, x1, y0, y1 = xs[i - 1], xs[i], ys[i - 1], ys[i]
    return y0 if x1 == x0 else y0 + (y1 - y0) * (s - x0) / (x1 - x0)


def fit(method, scores, labels, env):
    if method == "gam":
        try:
            from pygam import LogisticGAM, s as spline

            constraint = "monotonic_inc" if env["MONOTONIC_CONSTRAINT"] else None
            gam = LogisticGAM(spline(0, n_splines=env["GAM_SPLINES"], constraints=constraint)).fit([[x] for x in scores], labels)
            return lambda x: float(gam.predict_proba([[x]])[0])
        except ImportError:
            print("pygam is not installed: the gam method falls back to isotonic regression (monotonic)")
            method = "isotonic"
    if method == "platt":
        return platt(scores, labels)
    if method == "isotonic":
        xs, ys = isotonic(scores, labels)
        return lambda x: interpolate(xs, ys, x)
    raise SystemExit(f"CALIBRATION_METHOD {method!r}: want gam, isotonic or platt")


def calibration_errors(probs, labels, bins=10):
    ece, mce = 0.0, 0.0
    for b in range(bins):
        idx = [i for i, p in enumerate(probs) if b / bins <= p < (b + 1) / bins or (b == bins - 1 and p == 1.0)]
        if not idx:
            continue
        gap = abs(sum(probs[i] for i in idx) / len(idx) - sum(labels[i] for i in idx) / len(idx))
        ece += gap * len(idx) / len(probs)
        mce = max(mce, gap)
    brier = sum((p - y) ** 2 for p, y in zip(probs, labels)) / len(probs)
    return {"ece": ece, "mce": mce, "brier": brier}


def tasks(env, header):
    """(score column, label column, positive class) per calibrator."""
    if env["SCORE_FIELDS"]:
        labels = env["TASK_LABEL_NAMES"] or [env["LABEL_FIELD"]] * len(env["SCORE_FIELDS"])
        if len(labels) != len(env["SCORE_FIELDS"]):
            raise SystemExit("TASK_LABEL_NAMES needs one label per SCORE_FIELDS entry")
        return [(s, l, None) for s, l in zip(env["SCORE_FIELDS"], labels)]
    if env["IS_BINARY"]:
        return [(env["SCORE_FIELD"], env["LABEL_FIELD"], None)]
    cats = env["MULTICLASS_CATEGORIES"] or [str(i) for i in range(env["NUM_CLASSES"])]
    return [(f"{env['SCORE_FIELD_PREFIX']}{i}", env["LABEL_FIELD"], c) for i, c in enumerate(cats)]


def norm(v):
    """A class value as text: 1, 1.0 and "1" are the same class."""
    try:
        x = float(v)
        return str(int(x)) if x.is_integer() else str(x)
    except (TypeError, ValueError):
        return str(v)


def main(input_paths, output_paths, environ_vars, job_args):
    header, rows = read_rows(input_paths["evaluation_data"])
    if not rows:
        raise SystemExit(f"no prediction rows under {input_paths['evaluation_data']}")
    model = {"method": environ_vars["CALIBRATION_METHOD"], "job_type": job_args.job_type, "calibrators": []}
    metrics = {"job_type": job_args.job_type, "rows": len(rows), "tasks": {}}
    n_points = environ_vars["CALIBRATION_SAMPLE_POINTS"]
    for score_col, label_col, positive in tasks(environ_vars, header):
        for col in (score_col, label_col):
            if col not in header:
                raise SystemExit(f"column {col!r} not in the evaluation data ({header})")
        used = [r for r in rows if r[score_col] not in ("", None) and r[label_col] not in ("", None)]
        scores = [float(r[score_col]) for r in used]
        labels = [int(norm(r[label_col]) == norm(positive)) if positive is not None else int(float(r[label_col])) for r in used]
        f = fit(environ_vars["CALIBRATION_METHOD"], scores, labels, environ_vars)
        grid = [i / (n_points - 1) for i in range(n_points)]
        table = [[x, min(1.0, max(0.0, f(x)))] for x in grid]
        model["calibrators"].append({"score_field": score_col, "label_field": label_col, "positive_class": positive, "lookup_table": table})
        calibrated = [f(s) for s in scores]
        before, after = calibration_errors(scores, labels), calibration_errors(calibrated, labels)
        metrics["tasks"][score_col] = {"before": before, "after": after, "within_error_threshold": after["ece"] <= environ_vars["ERROR_THRESHOLD"]}
        if after["ece"] > environ_vars["ERROR_THRESHOLD"]:
            print(f"warning: {score_col}: ECE {after['ece']:.4f} exceeds ERROR_THRESHOLD {environ_vars['ERROR_THRESHOLD']}")
        for r in rows:
            r["calibrated_" + score_col] = round(f(float(r[score_col])), 6) if r[score_col] not in ("", None) else ""

    for key in ("calibration_output", "metrics_output", "calibrated_data"):
        os.makedirs(output_paths[key], exist_ok=True)
    with open(os.path.join(output_paths["calibration_output"], "calibration_model.json"), "w", encoding="utf-8") as f:
        json.dump(model, f)
    with open(os.path.join(output_paths["metrics_output"], "calibration_metrics.json"), "w", encoding="utf-8") as f:
        json.dump(metrics, f, indent=2)
    with open(os.path.join(output_paths["calibrated_data"], "calibrated_data.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print(json.dumps(metrics["tasks"]))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()

    def csv_list(value):
        return [x.strip() for x in value.split(",") if x.strip()]

    env = {
        "LABEL_FIELD": os.environ["LABEL_FIELD"],
        "CALIBRATION_METHOD": os.environ.get("CALIBRATION_METHOD", "gam").lower(),
        "SCORE_FIELD": os.environ.get("SCORE_FIELD", "prob_class_1"),
        "SCORE_FIELDS": csv_list(os.environ.get("SCORE_FIELDS", "")),
        "TASK_LABEL_NAMES": csv_list(os.environ.get("TASK_LABEL_NAMES", "")),
        "MONOTONIC_CONSTRAINT": os.environ.get("MONOTONIC_CONSTRAINT", "true").lower() == "true",
        "GAM_SPLINES": int(os.environ.get("GAM_SPLINES", "10")),
        "ERROR_THRESHOLD": float(os.environ.get("ERROR_THRESHOLD", "0.05")),
        "IS_BINARY": os.environ.get("IS_BINARY", "true").lower() == "true",
        "NUM_CLASSES": int(os.environ.get("NUM_CLASSES", "2")),
        "SCORE_FIELD_PREFIX": os.environ.get("SCORE_FIELD_PREFIX", "prob_class_"),
        "MULTICLASS_CATEGORIES": csv_list(os.environ.get("MULTICLASS_CATEGORIES", "")),
        "CALIBRATION_SAMPLE_POINTS": max(2, int(os.environ.get("CALIBRATION_SAMPLE_POINTS", "1000"))),
    }
    main({"evaluation_data": EVAL_DATA_DIR},
         {"calibration_output": CALIBRATION_OUT, "metrics_output": METRICS_OUT, "calibrated_data": CALIBRATED_DATA_OUT},
         env, args)
