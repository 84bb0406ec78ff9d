"""FeatureSelection: select features with several methods and combine their verdicts.

Inputs
  /opt/ml/processing/input/data             input_data: split folders as TabularPreprocessing
                                            writes them (<split>/<split>_processed_data.<csv|tsv|
                                            parquet>; every data file of a split folder is read)
  /opt/ml/processing/input/model_artifacts  model_artifacts_input: selected_features.json from
                                            the training job (required by every other job type);
                                            all of its files are passed on to model_artifacts_output
Outputs
  /opt/ml/processing/output/data            processed_data: the same layout and format, holding
                                            the label, the selected features and the non-numeric
                                            columns (which are not candidates), in input order
  /opt/ml/processing/output/model_artifacts model_artifacts_output: selected_features.json
                                            ({"selected_features", "label", "methods", ...}),
                                            feature_scores.csv (per method and combined), and the
                                            files of model_artifacts_input
Environment
  LABEL_FIELD (required), FEATURE_SELECTION_METHODS (comma-separated: variance, correlation,
  mutual_info, chi2, f_test, rfe, importance, lasso), N_FEATURES_TO_SELECT (the final set; each
  method keeps as many), CORRELATION_THRESHOLD (of two features correlated above it, the one
  less related to the label is dropped), VARIANCE_THRESHOLD, RANDOM_STATE, COMBINATION_STRATEGY:
  voting (methods that keep a feature), ranking (mean rank) or scoring (mean of scores
  normalised to 0..1).

The candidates are the numeric columns of train/ other than the label; missing values are
filled with the training median while scoring (the data written is not changed).
"""
import argparse
import json
import os
import sys

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_selection import RFE, VarianceThreshold, chi2, f_classif, mutual_info_classif
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import MinMaxScaler, StandardScaler

from steplib.splits import copy_artifacts, find_splits, output_name, read_split, write_file

INPUT_DIR = "/opt/ml/processing/input/data"
ARTIFACTS_IN_DIR = "/opt/ml/processing/input/model_artifacts"
DATA_OUT_DIR = "/opt/ml/processing/output/data"
ARTIFACTS_OUT_DIR = "/opt/ml/processing/output/model_artifacts"

SELECTION_FILE = "selected_features.json"
SCORES_FILE = "feature_scores.csv"
METHODS = ("variance", "correlation", "mutual_info", "chi2", "f_test", "rfe", "importance", "lasso")


def log(msg):
    print("[feature_selection] " + msg, flush=True)


def top(scores, k):
    """The k best features of a score map (higher is better), ties by name."""
    return [f for f, _ in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]]


def run_method(method, X, y, k, p):
    """(selected features, score per feature) of one method."""
    cols = list(X.columns)
    if method == "variance":
        sel = VarianceThreshold(p["variance_threshold"]).fit(X)
        scores = dict(zip(cols, sel.variances_.astype(float)))
        return [c for c, keep in zip(cols, sel.get_support()) if keep], scores
    if method == "correlation":
        target = {c: abs(float(np.nan_to_num(X[c].corr(y)))) for c in cols}
        corr = X.corr().abs().fillna(0.0)
        dropped = set()
        for i, a in enumerate(cols):
            for b in cols[i + 1:]:
                if a in dropped or b in dropped:
                    continue
                if corr.loc[a, b] > p["correlation_threshold"]:
                    dropped.add(a if target[a] < target[b] else b)
        kept = {c: s for c, s in target.items() if c not in dropped}
        return top(kept, k), target
    if method == "mutual_info":
        scores = dict(zip(cols, mutual_info_classif(X, y, random_state=p["random_state"]).astype(float)))
        return top(scores, k), scores
    if method == "chi2":
        values, _ = chi2(MinMaxScaler().fit_transform(X), y)
        scores = dict(zip(cols, np.nan_to_num(values).astype(float)))
        return top(scores, k), scores
    if method == "f_test":
        values, _ = f_classif(X, y)
        scores = dict(zip(cols, np.nan_to_num(values).astype(float)))
        return top(scores, k), scores
    if method == "rfe":
        est = LogisticRegression(max_iter=500, random_state=p["random_state"])
        rfe = RFE(est, n_features_to_select=min(k, len(cols))).fit(StandardScaler().fit_transform(X), y)
        scores = {c: 1.0 / float(r) for c, r in zip(cols, rfe.ranking_)}
        return [c for c, keep in zip(cols, rfe.support_) if keep], scores
    if method == "importance":
        rf = RandomForestClassifier(n_estimators=100, random_state=p["random_state"], n_jobs=1).fit(X, y)
        scores = dict(zip(cols, rf.feature_importances_.astype(float)))
        return top(scores, k), scores
    if method == "lasso":
        lr = LogisticRegression(penalty="l1", solver="saga", C=0.5, max_iter=2000, random_state=p["random_state"])
        lr.fit(StandardScaler().fit_transform(X), y)
        scores = dict(zip(cols, np.abs(lr.coef_).max(axis=0).astype(float)))
        return top({c: s for c, s in scores.items() if s > 0} or scores, k), scores
    raise ValueError("unknown method %s" % method)


def combine(results, strategy, k, features):
    if strategy == "voting":
        votes = {f: float(sum(f in sel for sel, _ in results.values())) for f in features}
        mean_norm = combine(results, "scoring", len(features), features)[1]
        ordered = sorted(features, key=lambda f: (-votes[f], -mean_norm[f], f))
        return ordered[:k], votes
    if strategy == "ranking":
        ranks = {f: [] for f in features}
        for _, scores in results.values():
            for r, f in enumerate(top(scores, len(scores))):
                ranks[f].append(r + 1)
        mean = {f: float(np.mean(r)) if r else float(len(features)) for f, r in ranks.items()}
        ordered = sorted(features, key=lambda f: (mean[f], f))
        return ordered[:k], {f: 1.0 / mean[f] for f in features}
    if strategy == "scoring":
        total = {f: 0.0 for f in features}
        for _, scores in results.values():
            vals = np.array([scores.get(f, 0.0) for f in features], dtype=float)
            span = vals.max() - vals.min()
            norm = (vals - vals.min()) / span if span > 0 else np.ones_like(vals)
            for f, v in zip(features, norm):
                total[f] += v / len(results)
        return top(total, k), total
    sys.exit("COMBINATION_STRATEGY must be voting, ranking or scoring, not %r" % strategy)


def select(train, label, methods, k, strategy, p):
    if label not in train.columns:
        sys.exit("LABEL_FIELD %r is not a column of train (columns %s)" % (label, list(train.columns)))
    train = train[train[label].notna()]
    features = [c for c in train.columns if c != label and pd.api.types.is_numeric_dtype(train[c]) and not pd.api.types.is_bool_dtype(train[c])]
    if not features:
        sys.exit("train has no numeric feature columns besides the label")
    X = train[features].astype(float)
    X = X.fillna(X.median()).fillna(0.0)
    y = pd.to_numeric(train[label], errors="coerce").astype(int)
    k = min(k, len(features))
    results = {}
    for m in methods:
        try:
            results[m] = run_method(m, X, y, k, p)
            log("%s keeps %d: %s" % (m, len(results[m][0]), results[m][0]))
        except Exception as e:  # one failing method does not stop the others
            log("%s failed and is left out: %s" % (m, e))
    if not results:
        sys.exit("every feature selection method failed")
    chosen, combined = combine(results, strategy, k, features)
    chosen = [f for f in features if f in set(chosen)]  # input order
    table = pd.DataFrame({"feature": features})
    for m, (sel, scores) in results.items():
        table[m + "_score"] = [scores.get(f, 0.0) for f in features]
        table[m + "_selected"] = [f in sel for f in features]
    table["combined_score"] = [combined.get(f, 0.0) for f in features]
    table["selected"] = [f in chosen for f in features]
    return chosen, features, table, sorted(results)


def keep_columns(df, label, candidates, chosen):
    drop = set(candidates) - set(chosen)
    return df[[c for c in df.columns if c not in drop or c == label]]


def main(input_paths, output_paths, environ_vars, job_args):
    label = str(environ_vars.get("LABEL_FIELD") or "").strip()
    if not label:
        sys.exit("LABEL_FIELD is required")
    methods = [m.strip() for m in str(environ_vars.get("FEATURE_SELECTION_METHODS") or "variance,correlation,mutual_info,rfe").split(",") if m.strip()]
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        sys.exit("unknown FEATURE_SELECTION_METHODS %s; known: %s" % (unknown, ", ".join(METHODS)))
    k = int(environ_vars.get("N_FEATURES_TO_SELECT") or 10)
    strategy = str(environ_vars.get("COMBINATION_STRATEGY") or "voting").strip()
    p = {
        "correlation_threshold": float(environ_vars.get("CORRELATION_THRESHOLD") or 0.95),
        "variance_threshold": float(environ_vars.get("VARIANCE_THRESHOLD") or 0.01),
        "random_state": int(environ_vars.get("RANDOM_STATE") or 42),
    }
    job_type = job_args.job_type
    splits = find_splits(input_paths["input_data"], job_type)
    data_out, art_out = output_paths["processed_data"], output_paths["model_artifacts_output"]
    art_in = input_paths["model_artifacts_input"]
    os.makedirs(art_out, exist_ok=True)
    copied = copy_artifacts(art_in, art_out)
    if copied:
        log("passed on %d artifact file(s) from %s" % (copied, art_in))

    if job_type == "training":
        train, _ = read_split(splits["train"])
        chosen, candidates, table, ran = select(train, label, methods, k, strategy, p)
        table.to_csv(os.path.join(art_out, SCORES_FILE), index=False)
        with open(os.path.join(art_out, SELECTION_FILE), "w", encoding="utf-8") as f:
            json.dump({"selected_features": chosen, "candidate_features": candidates, "label": label, "methods": ran,
                       "combination_strategy": strategy, "n_features_to_select": k}, f, indent=2)
        log("selected %d of %d features: %s" % (len(chosen), len(candidates), chosen))
    else:
        path = os.path.join(art_in, SELECTION_FILE) if art_in else ""
        if not path or not os.path.isfile(path):
            sys.exit("job type %s needs the training job's %s in %s" % (job_type, SELECTION_FILE, art_in))
        with open(path, encoding="utf-8") as f:
            saved = json.load(f)
        chosen, candidates = saved["selected_features"], saved.get("candidate_features", saved["selected_features"])
        log("keeping the %d features selected in training" % len(chosen))

    counts = {}
    for split, folder in splits.items():
        df, fmt = read_split(folder)
        missing = [c for c in chosen if c not in df.columns]
        if missing:
            sys.exit("%s lacks the selected features %s" % (split, missing))
        out = keep_columns(df, label, candidates, chosen)
        os.makedirs(os.path.join(data_out, split), exist_ok=True)
        write_file(out, os.path.join(data_out, split, output_name(split, fmt)))
        counts[split] = out.shape[1]
        log("%s: %d rows, %d columns" % (split, len(out), out.shape[1]))
    return counts


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Select features and keep them in every split.")
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    environ = {
        "LABEL_FIELD": os.environ.get("LABEL_FIELD", ""),
        "FEATURE_SELECTION_METHODS": os.environ.get("FEATURE_SELECTION_METHODS", ""),
        "N_FEATURES_TO_SELECT": os.environ.get("N_FEATURES_TO_SELECT", ""),
        "CORRELATION_THRESHOLD": os.environ.get("CORRELATION_THRESHOLD", ""),
        "VARIANCE_THRESHOLD": os.environ.get("VARIANCE_THRESHOLD", ""),
        "RANDOM_STATE": os.environ.get("RANDOM_STATE", ""),
        "COMBINATION_STRATEGY": os.environ.get("COMBINATION_STRATEGY", ""),
    }
    main({"input_data": INPUT_DIR, "model_artifacts_input": ARTIFACTS_IN_DIR},
         {"processed_data": DATA_OUT_DIR, "model_artifacts_output": ARTIFACTS_OUT_DIR}, environ, args)
