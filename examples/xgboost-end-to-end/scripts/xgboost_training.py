"""Train an XGBoost model on the train/val/test channels (XGBoostTraining and
XGBoostTuning run this script; their contracts are the same).

Contract:
  inputs   /opt/ml/input/data/{train,val,test}             processed data (CSV/TSV; Parquet with pandas)
           /opt/ml/code/hyperparams/hyperparameters.json    optional; else the job's hyperparameters
                                                            (/opt/ml/input/config/hyperparameters.json)
           /opt/ml/input/data/model_artifacts_input         optional precomputed risk tables, imputation
                                                            dictionary and selected features
  outputs  /opt/ml/model        the model, risk_table_map.json, impute_dict.json, feature_columns.json,
                                hyperparameters.json (SageMaker tars it into model.tar.gz)
           /opt/ml/output/data  val/ and test/ predictions and metrics.json
  env      USE_SECURE_PYPI, USE_PRECOMPUTED_IMPUTATION, USE_PRECOMPUTED_RISK_TABLES,
           USE_PRECOMPUTED_FEATURES, REGION

Hyperparameters: id_name, label_name, full_field_list, cat_field_list, tab_field_list,
multiclass_categories, and the booster's own (eta, max_depth, num_round, objective, eval_metric,
min_child_weight, subsample). Categorical fields are risk-table mapped (smoothed label rate per
category) and numeric fields mean-imputed before training. In the SageMaker XGBoost container the
model is an XGBoost booster; where xgboost is not installed (offline runs) a binary logistic model
is fitted in pure Python with the same preprocessing, so the pipeline's data flow can be tried
end to end on a laptop.
"""
import csv
import glob
import json
import math
import os

DATA_DIR = "/opt/ml/input/data"  # one folder per channel: train/, val/, test/
ARTIFACTS_DIR = "/opt/ml/input/data/model_artifacts_input"
HPARAMS_FILE = "/opt/ml/code/hyperparams/hyperparameters.json"
HPARAMS_DIR = "/opt/ml/code/hyperparams"
JOB_HPARAMS_FILE = "/opt/ml/input/config/hyperparameters.json"
MODEL_DIR = "/opt/ml/model"
EVAL_DIR = "/opt/ml/output/data"

LIST_KEYS = ("full_field_list", "cat_field_list", "tab_field_list", "eval_metric", "multiclass_categories")
RISK_SMOOTHING = 20.0


def load_hyperparameters(shipped, region):
    for path in (shipped, os.path.join(HPARAMS_DIR, f"{region}_hyperparameters.json"), JOB_HPARAMS_FILE):
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                raw = json.load(f)
            print(f"hyperparameters from {path}")
            break
    else:
        raise SystemExit("no hyperparameters: ship hyperparams/hyperparameters.json or set the hyperparameters config field")
    hp = {}
    for k, v in raw.items():
        if k.startswith("sagemaker_"):
            continue
        if isinstance(v, str):  # SageMaker passes every value JSON-encoded as a string
            try:
                v = json.loads(v)
            except ValueError:
                pass
        if k in LIST_KEYS and isinstance(v, str):
            v = [x for x in v.split(",") if x]
        hp[k] = v
    for key in ("label_name", "tab_field_list", "cat_field_list"):
        if key not in hp:
            raise SystemExit(f"hyperparameter {key} is required")
    return hp


def read_rows(folder):
    files = sorted(glob.glob(os.path.join(folder, "**", "*.csv"), recursive=True) + glob.glob(os.path.join(folder, "**", "*.tsv"), recursive=True))
    rows = []
    for path in files:
        with open(path, newline="", encoding="utf-8") as f:
            rows.extend(csv.DictReader(f, delimiter="\t" if path.endswith(".tsv") else ","))
    if not files:
        parquet = sorted(glob.glob(os.path.join(folder, "**", "*.parquet"), recursive=True))
        if parquet:
            import pandas as pd

            for path in parquet:
                rows.extend(pd.read_parquet(path).astype(str).to_dict("records"))
    return rows


def number(v):
    try:
        x = float(v)
        return None if math.isnan(x) else x
    except (TypeError, ValueError):
        return None


def fit_risk_tables(rows, cat_fields, label):
    prior = sum(float(r[label]) for r in rows) / max(len(rows), 1)
    tables = {}
    for field in cat_fields:
        stats = {}
        for r in rows:
            s = stats.setdefault(str(r.get(field, "")), [0.0, 0])
            s[0] += float(r[label])
            s[1] += 1
        bins = {k: (pos + RISK_SMOOTHING * prior) / (n + RISK_SMOOTHING) for k, (pos, n) in stats.items()}
        tables[field] = {"bins": bins, "default_bin": prior}
    return tables


def fit_imputation(rows, fields):
    out = {}
    for field in fields:
        vals = [x for x in (number(r.get(field)) for r in rows) if x is not None]
        out[field] = sum(vals) / len(vals) if vals else 0.0
    return out


def features(row, columns, risk, impute):
    vec = []
    for c in columns:
        if c in risk:
            vec.append(risk[c]["bins"].get(str(row.get(c, "")), risk[c]["default_bin"]))
        else:
            x = number(row.get(c))
            vec.append(impute.get(c, 0.0) if x is None else x)
    return vec


def train_logistic(X, y, hp):
    """Binary logistic regression by gradient descent on standardized features."""
    n, d = len(X), len(X[0])
    mean = [sum(r[j] for r in X) / n for j in range(d)]
    std = [math.sqrt(sum((r[j] - mean[j]) ** 2 for r in X) / n) or 1.0 for j in range(d)]
    Z = [[(r[j] - mean[j]) / std[j] for j in range(d)] for r in X]
    w, b = [0.0] * d, 0.0
    lr, l2 = 10 * float(hp.get("eta", 0.1)), 1e-3
    for _ in range(int(hp.get("num_round", 100))):
        gw, gb = [0.0] * d, 0.0
        for z, t in zip(Z, y):
            p = 1 / (1 + math.exp(-max(-30.0, min(30.0, b + sum(wj * zj for wj, zj in zip(w, z))))))
            for j in range(d):
                gw[j] += (p - t) * z[j]
            gb += p - t
        w = [wj - lr * (g / n + l2 * wj) for wj, g in zip(w, gw)]
        b -= lr * gb / n
    return {"kind": "logistic", "weights": w, "bias": b, "mean": mean, "std": std}


def predict_logistic(model, X):
    out = []
    for r in X:
        s = model["bias"] + sum(w * (x - m) / sd for w, x, m, sd in zip(model["weights"], r, model["mean"], model["std"]))
        p = 1 / (1 + math.exp(-max(-30.0, min(30.0, s))))
        out.append([1 - p, p])
    return out


def auc(y, p):
    pos = sum(y)
    neg = len(y) - pos
    if pos == 0 or neg == 0:
        return None
    order = sorted(range(len(p)), key=lambda i: p[i])
    ranks, i = [0.0] * len(p), 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and p[order[j + 1]] == p[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return (sum(r for r, t in zip(ranks, y) if t) - pos * (pos + 1) / 2) / (pos * neg)


def average_precision(y, p):
    pairs = sorted(zip(p, y), reverse=True)
    hits, total, pos = 0, 0.0, sum(y)
    for i, (_, t) in enumerate(pairs, 1):
        if t:
            hits += 1
            total += hits / i
    return total / pos if pos else None


def main(input_paths, output_paths, environ_vars, job_args):
    if environ_vars["USE_SECURE_PYPI"]:
        print("USE_SECURE_PYPI: packages come from the secure mirror; this script needs none beyond the image")
    hp = load_hyperparameters(input_paths["hyperparameters_s3_uri"], environ_vars["REGION"])
    label, id_name = hp["label_name"], hp.get("id_name", "")
    multiclass = [str(c) for c in hp.get("multiclass_categories", [0, 1])]
    splits = {name: read_rows(os.path.join(input_paths["input_path"], name)) for name in ("train", "val", "test")}
    if not splits["train"]:
        raise SystemExit(f"no training rows under {input_paths['input_path']}/train")
    for name, rows in splits.items():
        splits[name] = [r for r in rows if number(r.get(label)) is not None]

    artifacts = input_paths["model_artifacts_input"]

    def precomputed(name):
        path = os.path.join(artifacts, name)
        if not os.path.exists(path):
            raise SystemExit(f"{name} not found in {artifacts} although a USE_PRECOMPUTED_* flag is set")
        with open(path, encoding="utf-8") as f:
            return json.load(f)

    train = splits["train"]
    cat_fields, tab_fields = list(hp["cat_field_list"]), list(hp["tab_field_list"])
    if environ_vars["USE_PRECOMPUTED_FEATURES"]:
        selected = precomputed("selected_features.json")
        cat_fields = [c for c in cat_fields if c in selected]
        tab_fields = [c for c in tab_fields if c in selected]
    risk = precomputed("risk_table_map.json") if environ_vars["USE_PRECOMPUTED_RISK_TABLES"] else fit_risk_tables(train, cat_fields, label)
    impute = precomputed("impute_dict.json") if environ_vars["USE_PRECOMPUTED_IMPUTATION"] else fit_imputation(train, tab_fields)
    columns = [c for c in hp.get("full_field_list", tab_fields + cat_fields) if c in tab_fields or c in cat_fields]

    def matrix(rows):
        return [features(r, columns, risk, impute) for r in rows], [int(float(r[label])) for r in rows]

    X, y = matrix(train)
    model_dir = output_paths["model_output"]
    os.makedirs(model_dir, exist_ok=True)
    try:
        import xgboost as xgb
    except ImportError:
        xgb = None
    if xgb is not None:
        params = {k: hp[k] for k in ("eta", "max_depth", "min_child_weight", "subsample", "objective", "eval_metric") if k in hp}
        if len(multiclass) > 2:
            params.update(objective="multi:softprob", num_class=len(multiclass))
        dtrain = xgb.DMatrix(X, label=y, feature_names=columns)
        evals = [(dtrain, "train")]
        if splits["val"]:
            Xv, yv = matrix(splits["val"])
            evals.append((xgb.DMatrix(Xv, label=yv, feature_names=columns), "validation"))
        booster = xgb.train(params, dtrain, int(hp.get("num_round", 100)), evals=evals)
        booster.save_model(os.path.join(model_dir, "xgboost_model.json"))

        def predict(Xs):
            raw = booster.predict(xgb.DMatrix(Xs, feature_names=columns))
            return [list(map(float, r)) if hasattr(r, "__len__") else [1 - float(r), float(r)] for r in raw]
    else:
        if len(multiclass) > 2:
            raise SystemExit("multiclass training needs xgboost (present in the SageMaker XGBoost image)")
        print("xgboost is not installed: fitting the pure-Python logistic fallback")
        model = train_logistic(X, y, hp)
        with open(os.path.join(model_dir, "logistic_model.json"), "w", encoding="utf-8") as f:
            json.dump(model, f)

        def predict(Xs):
            return predict_logistic(model, Xs)

    for name, obj in (("risk_table_map.json", risk), ("impute_dict.json", impute), ("feature_columns.json", columns), ("hyperparameters.json", hp)):
        with open(os.path.join(model_dir, name), "w", encoding="utf-8") as f:
            json.dump(obj, f, indent=2)

    metrics = {}
    for name in ("val", "test"):
        rows = splits[name]
        if not rows:
            continue
        Xs, ys = matrix(rows)
        probs = predict(Xs)
        folder = os.path.join(output_paths["evaluation_output"], name)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "predictions.csv"), "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(([id_name] if id_name else []) + [label] + [f"prob_class_{i}" for i in range(len(probs[0]))])
            for r, t, pr in zip(rows, ys, probs):
                w.writerow(([r.get(id_name, "")] if id_name else []) + [t] + [round(x, 6) for x in pr])
        scores = [pr[-1] for pr in probs]
        metrics[name] = {"rows": len(rows), "auc": auc(ys, scores), "average_precision": average_precision(ys, scores)}
        print(f"{name}: {metrics[name]}")
    os.makedirs(output_paths["evaluation_output"], exist_ok=True)
    with open(os.path.join(output_paths["evaluation_output"], "metrics.json"), "w", encoding="utf-8") as f:
        json.dump(metrics, f, indent=2)


if __name__ == "__main__":
    env = {
        "USE_SECURE_PYPI": os.environ.get("USE_SECURE_PYPI", "false").lower() == "true",
        "USE_PRECOMPUTED_IMPUTATION": os.environ.get("USE_PRECOMPUTED_IMPUTATION", "false").lower() == "true",
        "USE_PRECOMPUTED_RISK_TABLES": os.environ.get("USE_PRECOMPUTED_RISK_TABLES", "false").lower() == "true",
        "USE_PRECOMPUTED_FEATURES": os.environ.get("USE_PRECOMPUTED_FEATURES", "false").lower() == "true",
        "REGION": os.environ.get("REGION", "NA"),
    }
    main(
        {"input_path": DATA_DIR, "hyperparameters_s3_uri": HPARAMS_FILE, "model_artifacts_input": ARTIFACTS_DIR},
        {"model_output": MODEL_DIR, "evaluation_output": EVAL_DIR},
        env,
        None,
    )
