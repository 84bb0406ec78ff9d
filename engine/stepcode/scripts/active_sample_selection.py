"""ActiveSampleSelection: pick the rows of a scored, unlabelled set worth adding to training:
confident predictions as pseudo-labels (semi-supervised learning), or uncertain or diverse ones
for people to label (active learning).

Input
  /opt/ml/processing/input/evaluation_data   evaluation_data: rows scored by an inference step,
                                             with prob_class_<i> columns (SCORE_FIELD_PREFIX) or
                                             one score column (SCORE_FIELD, binary)
Output
  /opt/ml/processing/output/selected_samples    selected_samples: selected_samples.<ext>, the
                                                selected rows with pseudo_label (the predicted
                                                class index), confidence and selection_score
  /opt/ml/processing/output/selection_metadata  selection_metadata: selection_metadata.json
                                                (strategy, parameters, counts per class)
Environment
  SELECTION_STRATEGY  confidence_threshold (max probability >= CONFIDENCE_THRESHOLD; SSL),
                      top_k_per_class (the K_PER_CLASS most confident rows of each predicted
                      class; SSL, balanced), uncertainty (the MAX_SAMPLES rows with the lowest
                      margin, least confidence or highest entropy, UNCERTAINTY_MODE; active
                      learning), diversity (MAX_SAMPLES rows spread over the probability space,
                      greedy k-center with METRIC euclidean or cosine; active learning)
  USE_CASE            ssl, active_learning or auto: ssl refuses the active-learning strategies
                      and the reverse (a pseudo-label from an uncertain row is noise)
  ID_FIELD, MAX_SAMPLES (0: no cap), RANDOM_SEED, OUTPUT_FORMAT (csv, tsv or parquet)
Arguments
  --job_type
"""
import argparse
import json
import os
import sys

import numpy as np
import pandas as pd

from steplib import tables

INPUT_DIR = "/opt/ml/processing/input/evaluation_data"
SAMPLES_OUT = "/opt/ml/processing/output/selected_samples"
METADATA_OUT = "/opt/ml/processing/output/selection_metadata"

SSL = ("confidence_threshold", "top_k_per_class")
ACTIVE = ("uncertainty", "diversity")


def log(msg):
    print("[active_sample_selection] " + msg, flush=True)


def probabilities(df, score_field, prefix):
    """[rows, classes] probabilities: the prefix's columns in class order, or one binary score."""
    if score_field:
        if score_field not in df.columns:
            sys.exit("SCORE_FIELD %r is not a column of the data (columns: %s)" % (score_field, list(df.columns)))
        p = pd.to_numeric(df[score_field], errors="coerce").to_numpy(dtype="float64")
        return np.stack([1 - p, p], axis=1), [score_field]
    cols = sorted((c for c in df.columns if c.startswith(prefix) and c[len(prefix):].isdigit()), key=lambda c: int(c[len(prefix):]))
    if len(cols) < 2:
        sys.exit("no %s<i> columns in the data (columns: %s): score it with an inference step, or set score_field" % (prefix, list(df.columns)))
    return df[cols].apply(pd.to_numeric, errors="coerce").to_numpy(dtype="float64"), cols


def uncertainty(prob, mode):
    """Higher is more uncertain."""
    if mode == "margin":
        top = np.sort(prob, axis=1)
        return 1.0 - (top[:, -1] - top[:, -2])
    if mode == "least_confidence":
        return 1.0 - prob.max(axis=1)
    if mode == "entropy":
        p = np.clip(prob, 1e-12, 1)
        return -(p * np.log(p)).sum(axis=1)
    sys.exit("UNCERTAINTY_MODE %r: margin, least_confidence or entropy" % mode)


def k_center(points, k, metric, rng):
    """Indices of k points chosen greedily, each the farthest from those chosen before."""
    if metric == "cosine":
        norms = np.linalg.norm(points, axis=1, keepdims=True)
        points = points / np.where(norms == 0, 1, norms)
    elif metric != "euclidean":
        sys.exit("METRIC %r: euclidean or cosine" % metric)
    chosen = [int(rng.integers(len(points)))]
    dist = np.linalg.norm(points - points[chosen[0]], axis=1)
    while len(chosen) < min(k, len(points)):
        nxt = int(dist.argmax())
        chosen.append(nxt)
        dist = np.minimum(dist, np.linalg.norm(points - points[nxt], axis=1))
    return np.array(chosen)


def select(prob, env, rng):
    """(selected row indices, their selection scores)."""
    strategy = env["SELECTION_STRATEGY"]
    cap = int(env.get("MAX_SAMPLES") or 0)
    conf = prob.max(axis=1)
    if strategy == "confidence_threshold":
        t = float(env.get("CONFIDENCE_THRESHOLD") or 0.9)
        idx = np.flatnonzero(conf >= t)
        idx = idx[np.argsort(-conf[idx], kind="stable")]
        score = conf
    elif strategy == "top_k_per_class":
        k = int(env.get("K_PER_CLASS") or 100)
        pred = prob.argmax(axis=1)
        parts = []
        for c in range(prob.shape[1]):
            rows = np.flatnonzero(pred == c)
            parts.append(rows[np.argsort(-conf[rows], kind="stable")][:k])
        idx = np.concatenate(parts) if parts else np.array([], dtype=int)
        score = conf
    elif strategy == "uncertainty":
        score = uncertainty(prob, env.get("UNCERTAINTY_MODE") or "margin")
        idx = np.argsort(-score, kind="stable")
    elif strategy == "diversity":
        n = cap or min(len(prob), 100)
        idx = k_center(prob, n, env.get("METRIC") or "euclidean", rng)
        score = np.zeros(len(prob))
        score[idx] = np.arange(len(idx), 0, -1)
    else:
        sys.exit("SELECTION_STRATEGY %r: one of %s" % (strategy, ", ".join(SSL + ACTIVE)))
    if cap:
        idx = idx[:cap]
    return idx, score


def main(input_paths, output_paths, environ_vars, job_args):
    strategy, use = environ_vars["SELECTION_STRATEGY"], (environ_vars.get("USE_CASE") or "auto").strip()
    if use == "ssl" and strategy in ACTIVE:
        sys.exit("USE_CASE ssl with SELECTION_STRATEGY %s: a pseudo-label from an uncertain row is noise; use %s" % (strategy, " or ".join(SSL)))
    if use == "active_learning" and strategy in SSL:
        sys.exit("USE_CASE active_learning with SELECTION_STRATEGY %s picks rows the model already knows; use %s" % (strategy, " or ".join(ACTIVE)))
    if use not in ("ssl", "active_learning", "auto"):
        sys.exit("USE_CASE %r: ssl, active_learning or auto" % use)
    fmt = (environ_vars.get("OUTPUT_FORMAT") or "csv").strip().lower()
    if fmt not in ("csv", "tsv", "parquet"):
        sys.exit("OUTPUT_FORMAT %r: csv, tsv or parquet" % fmt)
    df, files = tables.read_tables(input_paths["evaluation_data"], log=log)
    if df is None or not len(df):
        sys.exit("no scored rows under %s" % input_paths["evaluation_data"])
    id_field = environ_vars.get("ID_FIELD") or "id"
    if id_field not in df.columns:
        sys.exit("ID_FIELD %r is not a column of the data (columns: %s)" % (id_field, list(df.columns)))
    prob, cols = probabilities(df, environ_vars.get("SCORE_FIELD", "").strip(), environ_vars.get("SCORE_FIELD_PREFIX") or "prob_class_")
    ok = ~np.isnan(prob).any(axis=1)
    if not ok.all():
        log("left out %d rows without scores" % int((~ok).sum()))
    df, prob = df[ok].reset_index(drop=True), prob[ok]
    rng = np.random.default_rng(int(environ_vars.get("RANDOM_SEED") or 42))
    idx, score = select(prob, environ_vars, rng)
    out = df.iloc[idx].copy()
    out["pseudo_label"] = prob[idx].argmax(axis=1)
    out["confidence"] = prob[idx].max(axis=1)
    out["selection_score"] = score[idx]
    os.makedirs(output_paths["selected_samples"], exist_ok=True)
    path = os.path.join(output_paths["selected_samples"], "selected_samples." + fmt)
    if fmt == "parquet":
        out.to_parquet(path, index=False)
    else:
        out.to_csv(path, sep="\t" if fmt == "tsv" else ",", index=False)
    meta = {"job_type": job_args.job_type, "strategy": strategy, "use_case": use, "score_columns": cols,
            "candidates": int(len(df)), "selected": int(len(out)),
            "per_class": {str(k): int(v) for k, v in out["pseudo_label"].value_counts().sort_index().items()},
            "parameters": {k: environ_vars.get(k) for k in ("CONFIDENCE_THRESHOLD", "K_PER_CLASS", "MAX_SAMPLES", "UNCERTAINTY_MODE", "METRIC", "RANDOM_SEED")}}
    os.makedirs(output_paths["selection_metadata"], exist_ok=True)
    with open(os.path.join(output_paths["selection_metadata"], "selection_metadata.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2)
    log("%s: %d of %d rows selected, per class %s" % (strategy, len(out), len(df), meta["per_class"]))
    return meta


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Select rows for pseudo-labelling or labelling.")
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    environ = {
        "SELECTION_STRATEGY": os.environ.get("SELECTION_STRATEGY", "confidence_threshold"),
        "USE_CASE": os.environ.get("USE_CASE", "auto"),
        "CONFIDENCE_THRESHOLD": os.environ.get("CONFIDENCE_THRESHOLD", "0.9"),
        "K_PER_CLASS": os.environ.get("K_PER_CLASS", "100"),
        "MAX_SAMPLES": os.environ.get("MAX_SAMPLES", "0"),
        "UNCERTAINTY_MODE": os.environ.get("UNCERTAINTY_MODE", "margin"),
        "METRIC": os.environ.get("METRIC", "euclidean"),
        "ID_FIELD": os.environ.get("ID_FIELD", "id"),
        "SCORE_FIELD": os.environ.get("SCORE_FIELD", ""),
        "SCORE_FIELD_PREFIX": os.environ.get("SCORE_FIELD_PREFIX", "prob_class_"),
        "RANDOM_SEED": os.environ.get("RANDOM_SEED", "42"),
        "OUTPUT_FORMAT": os.environ.get("OUTPUT_FORMAT", "csv"),
    }
    main({"evaluation_data": INPUT_DIR}, {"selected_samples": SAMPLES_OUT, "selection_metadata": METADATA_OUT}, environ, args)
