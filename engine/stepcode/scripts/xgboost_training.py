"""XGBoostTraining (and every trial of XGBoostTuning): train an XGBoost model on tabular data.

Inputs
  /opt/ml/input/data/train, val, test     the input_path channels: data files (*.csv, *.tsv,
                                          *.json, *.jsonl, *.parquet, optionally .gz) in any
                                          folder depth; val and test are optional
  /opt/ml/input/data/model_artifacts_input  optional: precomputed preprocessing artifacts
                                          (impute_dict, risk_table_map or bin_mapping as .json
                                          or .pkl, selected_features.json) used with the
                                          USE_PRECOMPUTED_* flags; or an earlier model of this
                                          script (its model.tar.gz or files): training continues
                                          boosting from it, with its feature columns, risk tables
                                          and imputation values (objective and classes must match)
  /opt/ml/input/config/hyperparameters.json  the job's hyperparameters, each value a
                                          JSON-encoded string (as the SageMaker SDK passes them)
  /opt/ml/code/hyperparams/hyperparameters.json  optional base hyperparameters shipped with the
                                          code (hyperparameters_<REGION>.json preferred); the
                                          job's values win
Outputs
  /opt/ml/model        xgboost_model.json (the booster), risk_table_map.json, impute_dict.json,
                       feature_columns.txt ("<index>,<name>" per line), feature_importance.json,
                       hyperparameters.json (what the run used, with the derived class list);
                       SageMaker packs it into model.tar.gz
  /opt/ml/output/data  val/ and test/: predictions.csv (id, label, prob_class_<i> or
                       prediction) and metrics.json; metrics.json with both (output.tar.gz)
Environment
  USE_PRECOMPUTED_IMPUTATION, USE_PRECOMPUTED_RISK_TABLES, USE_PRECOMPUTED_FEATURES (the input
  is already imputed / risk-mapped / reduced to the selected features: the artifacts come from
  model_artifacts_input and are not fitted again), REGION (picks the shipped hyperparameters
  file), USE_SECURE_PYPI (logged: the script installs nothing)
Hyperparameters (essential: label_name, tab_field_list, cat_field_list, objective)
  id_name, full_field_list, multiclass_categories, num_class, class_weights, eval_metric,
  smooth_factor, count_threshold, num_round, early_stopping_rounds and the booster's settings
  (eta, max_depth, gamma, min_child_weight, max_delta_step, subsample, colsample_by*,
  lambda_xgb, alpha_xgb, booster, tree_method, scale_pos_weight, sketch_eps,
  num_parallel_tree, base_score, seed). Each round prints "<split> <metric>: <value>" lines
  (validation auc: 0.91), the form the tuning step's metric definitions read.

The SageMaker training toolkit also passes every hyperparameter as --key value arguments; they
are ignored (the JSON file is the source).
"""
import json
import math
import os
import pickle
import sys

import numpy as np
import pandas as pd
import xgboost as xgb

from steplib import metrics, tables, xgbmodel

DATA_DIR = "/opt/ml/input/data"
ARTIFACTS_DIR = "/opt/ml/input/data/model_artifacts_input"
JOB_HPARAMS = "/opt/ml/input/config/hyperparameters.json"
SHIPPED_HPARAMS_DIR = "/opt/ml/code/hyperparams"
MODEL_DIR = "/opt/ml/model"
OUTPUT_DIR = "/opt/ml/output/data"

REQUIRED = ("label_name", "tab_field_list", "cat_field_list", "objective")
LIST_KEYS = ("tab_field_list", "cat_field_list", "full_field_list", "multiclass_categories",
             "class_weights", "eval_metric")
# hyperparameter -> XGBoost parameter, passed when set
BOOSTER_PARAMS = {
    "eta": "eta", "max_depth": "max_depth", "gamma": "gamma", "min_child_weight": "min_child_weight",
    "max_delta_step": "max_delta_step", "subsample": "subsample", "colsample_bytree": "colsample_bytree",
    "colsample_bylevel": "colsample_bylevel", "colsample_bynode": "colsample_bynode",
    "lambda_xgb": "lambda", "alpha_xgb": "alpha", "booster": "booster", "tree_method": "tree_method",
    "scale_pos_weight": "scale_pos_weight", "sketch_eps": "sketch_eps",
    "num_parallel_tree": "num_parallel_tree", "base_score": "base_score", "seed": "seed",
}


def log(msg):
    print("[xgboost_training] " + msg, flush=True)


def fail(msg):
    print("[xgboost_training] ERROR: " + msg, file=sys.stderr, flush=True)
    sys.exit(1)


def env_flag(environ, name):
    return str(environ.get(name, "")).strip().lower() in ("true", "1", "yes")


def decode(value):
    """A hyperparameter as SageMaker passes it: a JSON-encoded string, or plain text."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def load_hyperparameters(region):
    hp = {}
    shipped = [os.path.join(SHIPPED_HPARAMS_DIR, "hyperparameters_%s.json" % region),
               os.path.join(SHIPPED_HPARAMS_DIR, "%s_hyperparameters.json" % region),
               os.path.join(SHIPPED_HPARAMS_DIR, "hyperparameters.json")]
    for path in shipped:
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                hp.update({k: decode(v) for k, v in json.load(f).items()})
            log("base hyperparameters from " + path)
            break
    if os.path.isfile(JOB_HPARAMS):
        with open(JOB_HPARAMS, encoding="utf-8") as f:
            hp.update({k: decode(v) for k, v in json.load(f).items()})
    for k in list(hp):
        if k.startswith("sagemaker_") or k.startswith("_"):
            del hp[k]
    for k in LIST_KEYS:
        if isinstance(hp.get(k), str):
            hp[k] = [x.strip() for x in hp[k].split(",") if x.strip()]
    missing = [k for k in REQUIRED if k not in hp or hp[k] is None]
    if missing:
        fail("missing hyperparameter(s) %s: set them on the training step (config fields of the same name)" % ", ".join(missing))
    return hp


def read_split(name):
    folder = os.path.join(DATA_DIR, name)
    df, files = tables.read_tables(folder, log=log)
    if df is None:
        return None
    log("%s: %d rows from %d file(s)" % (name, len(df), len(files)))
    return df


def load_artifact(folder, stem, alternatives=()):
    for name in (stem,) + tuple(alternatives):
        for ext, loader in ((".json", json.load), (".pkl", pickle.load)):
            path = os.path.join(folder, name + ext)
            if os.path.isfile(path):
                with open(path, "rb" if ext == ".pkl" else "r") as f:
                    log("precomputed %s from %s" % (stem, path))
                    return loader(f)
    fail("%s.json or .pkl is not in %s although its USE_PRECOMPUTED_* flag is set" % (stem, folder))


def previous_model(folder):
    """The earlier model of this script in model_artifacts_input (xgboost_model.json with its
    hyperparameters.json, risk tables and imputation values; in a model.tar.gz or as files),
    or None when the input holds none."""
    if not os.path.isdir(folder):
        return None
    found = xgbmodel.find_model_dir(folder)
    if found is None:
        return None
    try:
        model = xgbmodel.Model(found)
    except (ValueError, xgb.core.XGBoostError) as e:
        fail("model_artifacts_input holds %s but it does not load: %s" % (xgbmodel.MODEL_FILE, e))
    log("continuing from the earlier model in %s (%d rounds, %d features)" % (found, model.booster.num_boosted_rounds(), len(model.columns)))
    return model


def normalize_risk_tables(tables):
    """Risk tables as {column: {"bins": {category: risk}, "default_bin": risk}}."""
    out = {}
    for col, t in tables.items():
        if isinstance(t, dict) and "bins" in t:
            out[col] = {"bins": {str(k): float(v) for k, v in t["bins"].items()}, "default_bin": float(t.get("default_bin", 0.0))}
        else:
            fail("risk table of %s has no bins" % col)
    return out


class Classes(object):
    """The label's classes: raw label value -> class index."""

    def __init__(self, hp, train, label, objective):
        self.regression = objective.startswith("reg:")
        self.labels = []
        if self.regression:
            return
        cats = hp.get("multiclass_categories")
        values = train[label]
        if cats:
            self.labels = [str(c) for c in cats]
        elif pd.api.types.is_numeric_dtype(values) and (values.dropna() % 1 == 0).all() and values.min() >= 0 and values.max() < 1000:
            top = int(values.max())
            self.labels = [str(i) for i in range(max(top + 1, 2 if objective.startswith("binary:") else 0))]
        else:
            self.labels = sorted(str(v) for v in values.dropna().unique())
        if objective.startswith("binary:"):
            if len(self.labels) != 2:
                fail("objective %s needs two classes; the labels are %s (use multi:softprob)" % (objective, self.labels))
        elif hp.get("num_class") is not None and int(hp["num_class"]) != len(self.labels):
            if not cats and int(hp["num_class"]) > len(self.labels):
                self.labels = [str(i) for i in range(int(hp["num_class"]))]
            else:
                fail("num_class %s does not match the %d classes %s" % (hp["num_class"], len(self.labels), self.labels))
        self.index = xgbmodel.label_index(self.labels)

    def encode(self, series, split):
        if self.regression:
            return pd.to_numeric(series, errors="coerce")
        try:
            return xgbmodel.encode_labels(series, self.labels, self.index)
        except ValueError as e:
            fail("%s: %s" % (split, e))


def fit_imputation(train, fields):
    out = {}
    for c in fields:
        vals = pd.to_numeric(train[c], errors="coerce")
        m = vals.mean()
        out[c] = 0.0 if pd.isna(m) else float(m)
    return out


def fit_risk_tables(train, fields, target, smooth, threshold):
    prior = float(target.mean()) if len(target) else 0.0
    smooth_n = int(len(train) * smooth)
    risk = {}
    for c in fields:
        keys = train[c].map(xgbmodel.category_key)
        grouped = pd.DataFrame({"k": keys, "y": target}).groupby("k")["y"].agg(["sum", "count"])
        bins = {}
        for k, row in grouped.iterrows():
            if row["count"] < threshold:
                continue
            bins[str(k)] = float((row["sum"] + smooth_n * prior) / (row["count"] + smooth_n))
        risk[c] = {"bins": bins, "default_bin": prior}
    return risk


def features(df, columns, cat_fields, risk, impute, split):
    try:
        return xgbmodel.features(df, columns, cat_fields, risk, impute)
    except ValueError as e:
        fail("%s: %s" % (split, e))


class RoundPrinter(xgb.callback.TrainingCallback):
    """Prints '<split> <metric>: <value>' per round, the form tuning metric regexes read."""

    def after_iteration(self, model, epoch, evals_log):
        parts = []
        for split, logged in evals_log.items():
            for metric, values in logged.items():
                parts.append("%s %s: %.6f" % (split, metric, values[-1]))
        if parts:
            print("[%d] %s" % (epoch, "; ".join(parts)), flush=True)
        return False


def booster_params(hp, objective, classes):
    params = {"objective": objective}
    for key, name in BOOSTER_PARAMS.items():
        if hp.get(key) is not None:
            params[name] = hp[key]
    if objective.startswith("multi:"):
        params["objective"] = "multi:softprob"  # softmax trains the same trees; probabilities are written either way
        params["num_class"] = len(classes.labels)
    logged = hp.get("eval_metric")
    if not logged:
        if objective.startswith("binary:"):
            logged = ["logloss", "auc"]
        elif objective.startswith("multi:"):
            logged = ["mlogloss", "merror"]
        else:
            logged = ["rmse"]
    params["eval_metric"] = list(logged)
    weights = hp.get("class_weights")
    if weights and objective.startswith("binary:"):
        if len(weights) != 2 or float(weights[0]) <= 0:
            fail("class_weights %s: a binary task takes two positive weights" % weights)
        params["scale_pos_weight"] = float(weights[1]) / float(weights[0])
    return params


def sample_weights(hp, y, classes):
    weights = hp.get("class_weights")
    if not weights or classes.regression or len(classes.labels) == 2:
        return None
    if len(weights) != len(classes.labels):
        fail("class_weights has %d values for %d classes" % (len(weights), len(classes.labels)))
    return np.asarray([float(weights[int(v)]) for v in y])


def main(input_paths, output_paths, environ_vars, job_args=None):
    if env_flag(environ_vars, "USE_SECURE_PYPI"):
        log("USE_SECURE_PYPI is set; this script installs no packages")
    hp = load_hyperparameters(environ_vars.get("REGION", "NA") or "NA")
    label, id_name, objective = hp["label_name"], hp.get("id_name") or "", str(hp["objective"])
    tab_fields = [str(c) for c in hp["tab_field_list"]]
    cat_fields = [str(c) for c in hp["cat_field_list"]]
    overlap = set(tab_fields) & set(cat_fields)
    if overlap:
        fail("column(s) %s are in both tab_field_list and cat_field_list" % ", ".join(sorted(overlap)))
    if label in tab_fields or label in cat_fields:
        fail("the label %s is also a feature" % label)

    splits = {}
    for name in ("train", "val", "test"):
        df = read_split(name)
        if df is None:
            continue
        if label not in df.columns:
            fail("%s data has no label column %s (columns: %s)" % (name, label, ", ".join(map(str, df.columns))))
        splits[name] = df
    if "train" not in splits:
        fail("no training data under %s/train" % DATA_DIR)

    artifacts = input_paths.get("model_artifacts_input", ARTIFACTS_DIR)
    base = previous_model(artifacts)
    if base is not None and env_flag(environ_vars, "USE_PRECOMPUTED_FEATURES"):
        log("USE_PRECOMPUTED_FEATURES is ignored: the earlier model's feature columns are used")
    if base is not None:
        tab_fields = [c for c in base.columns if c not in base.cat_fields]
        cat_fields = [c for c in base.columns if c in base.cat_fields]
    elif env_flag(environ_vars, "USE_PRECOMPUTED_FEATURES"):
        selected = load_artifact(artifacts, "selected_features")
        if isinstance(selected, dict):
            selected = selected.get("selected_features", list(selected))
        keep = set(map(str, selected))
        tab_fields = [c for c in tab_fields if c in keep]
        cat_fields = [c for c in cat_fields if c in keep]
        log("selected features: %d numeric, %d categorical" % (len(tab_fields), len(cat_fields)))
    order = base.columns if base is not None else [str(c) for c in (hp.get("full_field_list") or [])]
    columns = [c for c in order if c in tab_fields or c in cat_fields]
    columns += [c for c in tab_fields + cat_fields if c not in columns]
    if not columns:
        fail("no feature columns: tab_field_list and cat_field_list are empty")

    train = splits["train"]
    classes = Classes(hp, train, label, objective)
    targets = {}
    for name, df in splits.items():
        y = classes.encode(df[label], name)
        keep = ~y.isna()
        splits[name] = df[keep].reset_index(drop=True)
        targets[name] = y[keep].reset_index(drop=True)
    train, y_train = splits["train"], targets["train"]
    if len(train) == 0:
        fail("no labelled training rows")

    if base is not None:
        if str(base.hp.get("objective")) != objective:
            fail("the earlier model in model_artifacts_input was trained with objective %s, this job has %s" % (base.hp.get("objective"), objective))
        if base.labels != classes.labels:
            fail("the earlier model's classes %s differ from this job's %s" % (base.labels, classes.labels))
        impute, risk = dict(base.impute), dict(base.risk)
    elif env_flag(environ_vars, "USE_PRECOMPUTED_IMPUTATION"):
        impute = {str(k): float(v) for k, v in load_artifact(artifacts, "impute_dict").items()}
    else:
        impute = fit_imputation(train, [c for c in columns if c not in cat_fields])
    if base is not None:
        pass
    elif env_flag(environ_vars, "USE_PRECOMPUTED_RISK_TABLES"):
        risk = normalize_risk_tables(load_artifact(artifacts, "risk_table_map", ("bin_mapping",)))
    else:
        risk = fit_risk_tables(train, [c for c in columns if c in cat_fields], y_train.astype(float),
                               float(hp.get("smooth_factor") or 0.0), int(hp.get("count_threshold") or 0))

    params = booster_params(hp, objective, classes)
    log("parameters: %s" % json.dumps(params, sort_keys=True))
    x_train = features(train, columns, cat_fields, risk, impute, "train")
    dtrain = xgb.DMatrix(x_train.values, label=y_train.values, feature_names=columns,
                         weight=sample_weights(hp, y_train.values, classes))
    evals = [(dtrain, "train")]
    if "val" in splits and len(splits["val"]):
        x_val = features(splits["val"], columns, cat_fields, risk, impute, "val")
        evals.append((xgb.DMatrix(x_val.values, label=targets["val"].values, feature_names=columns), "validation"))
    early = hp.get("early_stopping_rounds")
    booster = xgb.train(params, dtrain, num_boost_round=int(hp.get("num_round") or 100), evals=evals,
                        early_stopping_rounds=int(early) if early and len(evals) > 1 else None,
                        verbose_eval=False, callbacks=[RoundPrinter()],
                        xgb_model=base.booster if base is not None else None)
    if early and len(evals) > 1 and booster.best_iteration + 1 < booster.num_boosted_rounds():
        log("early stopping: keeping the first %d rounds" % (booster.best_iteration + 1))
        booster = booster[: booster.best_iteration + 1]

    model_dir = output_paths.get("model_output", MODEL_DIR)
    os.makedirs(model_dir, exist_ok=True)
    booster.save_model(os.path.join(model_dir, "xgboost_model.json"))
    used = dict(hp)
    used.update({"objective": objective, "feature_columns": columns, "tab_field_list": tab_fields,
                 "cat_field_list": cat_fields, "class_labels": classes.labels, "num_classes": len(classes.labels),
                 "is_binary": len(classes.labels) == 2, "task": task_of(classes)})
    if not used.get("full_field_list"):
        used["full_field_list"] = ([id_name] if id_name else []) + columns + [label]
    write_json(os.path.join(model_dir, "hyperparameters.json"), used)
    write_json(os.path.join(model_dir, "risk_table_map.json"), risk)
    write_json(os.path.join(model_dir, "impute_dict.json"), impute)
    write_json(os.path.join(model_dir, "feature_importance.json"), booster.get_score(importance_type="weight"))
    with open(os.path.join(model_dir, "feature_columns.txt"), "w", encoding="utf-8") as f:
        f.write("# feature columns in model order: <index>,<name>\n")
        for i, c in enumerate(columns):
            f.write("%d,%s\n" % (i, c))
    log("model written to %s (%d features, %s)" % (model_dir, len(columns), task_of(classes)))

    out_dir = output_paths.get("evaluation_output", OUTPUT_DIR)
    summary = {}
    for name in ("val", "test"):
        df = splits.get(name)
        if df is None or not len(df):
            continue
        x = features(df, columns, cat_fields, risk, impute, name)
        raw = booster.predict(xgb.DMatrix(x.values, feature_names=columns))
        y = targets[name].values
        if classes.regression:
            pred = xgbmodel.prediction_frame(df, id_name, raw, True, label, y)
            report = {"num_samples": int(len(y))}
            report.update(metrics.regression(y, raw))
        else:
            probs = xgbmodel.probabilities(raw)
            y = y.astype(int)
            pred = xgbmodel.prediction_frame(df, id_name, probs, False, label, y)
            report = {"num_samples": int(len(y))}
            if probs.shape[1] == 2:
                report.update(metrics.binary(y, probs[:, 1], ("auc_roc", "average_precision", "f1_score", "accuracy")))
            else:
                report.update(metrics.multiclass(y, probs, ("auc_roc", "f1_score", "accuracy")))
        folder = os.path.join(out_dir, name)
        os.makedirs(folder, exist_ok=True)
        pred.to_csv(os.path.join(folder, "predictions.csv"), index=False)
        write_json(os.path.join(folder, "metrics.json"), report)
        summary[name] = report
        log("%s metrics: %s" % (name, json.dumps({k: v for k, v in report.items() if not isinstance(v, dict)}, sort_keys=True)))
    os.makedirs(out_dir, exist_ok=True)
    write_json(os.path.join(out_dir, "metrics.json"), summary)


def task_of(classes):
    if classes.regression:
        return "regression"
    return "binary" if len(classes.labels) == 2 else "multiclass"


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, sort_keys=True, default=float)


if __name__ == "__main__":
    environ = {
        "USE_SECURE_PYPI": os.environ.get("USE_SECURE_PYPI", ""),
        "USE_PRECOMPUTED_IMPUTATION": os.environ.get("USE_PRECOMPUTED_IMPUTATION", ""),
        "USE_PRECOMPUTED_RISK_TABLES": os.environ.get("USE_PRECOMPUTED_RISK_TABLES", ""),
        "USE_PRECOMPUTED_FEATURES": os.environ.get("USE_PRECOMPUTED_FEATURES", ""),
        "REGION": os.environ.get("REGION", "NA"),
    }
    main({"input_path": DATA_DIR, "hyperparameters_s3_uri": SHIPPED_HPARAMS_DIR, "model_artifacts_input": ARTIFACTS_DIR},
         {"model_output": MODEL_DIR, "evaluation_output": OUTPUT_DIR}, environ)
