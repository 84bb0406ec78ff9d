"""Train a LightGBM model on tabular data (LightGBMTraining).

Needs lightgbm (3.3 or later), numpy, pandas and scikit-learn. No SageMaker framework image ships
lightgbm: the compiler packs requirements.txt (requirements/lightgbm.txt) beside this script and the
PyTorch image's training toolkit installs it before the script runs, or config field image_uri
names an image that has it.

Contract:
  inputs   /opt/ml/input/config/hyperparameters.json       the job's hyperparameters (typed config
                                                           fields; each value JSON-encoded as text)
           /opt/ml/input/data/{train,val,test}             CSV, TSV or Parquet files
           /opt/ml/input/data/hyperparameters_s3_uri       optional hyperparameters.json; the job's
                                                           hyperparameters override it key by key
           /opt/ml/input/data/model_artifacts_input        optional impute_dict.json,
                                                           risk_table_map.json, selected_features.json
  outputs  /opt/ml/model        lightgbm_model.txt, model_config.json (fields, classes, category
                                mappings or risk tables, imputation values), feature_importance.json,
                                hyperparameters.json; SageMaker packs it into model.tar.gz
           /opt/ml/output/data  val/ and test/: predictions.csv (id, label, prob_class_*), metrics.json
  env      USE_PRECOMPUTED_IMPUTATION   keep the artifacts' imputation values (the data is imputed)
           USE_PRECOMPUTED_RISK_TABLES  categorical fields are already risk-mapped (numeric)
           USE_PRECOMPUTED_FEATURES     train on the artifacts' selected_features.json only
           USE_NATIVE_CATEGORICAL       LightGBM's own categorical splits (default); else risk tables
           REGION                       region code, recorded in model_config.json

Hyperparameters: label_name, tab_field_list, objective (required); id_name, cat_field_list,
multiclass_categories, num_class, class_weights, metric, num_leaves,
learning_rate, num_boost_round, max_depth, min_data_in_leaf, feature_fraction,
bagging_fraction, bagging_freq, lambda_l1, lambda_l2, early_stopping_rounds,
min_data_per_group, cat_smooth, max_cat_threshold, smooth_factor, count_threshold, seed.
The toolkit's --name value arguments are ignored (the file is read instead).
"""
import os

import numpy as np
import pandas as pd

from steplib import features, labels, trainjob

FAILURE_FILE = "/opt/ml/output/failure"
lgb = trainjob.require("lightgbm", "lightgbm>=3.3", "lightgbm_training", FAILURE_FILE)

HPARAMS_FILE = "/opt/ml/input/config/hyperparameters.json"
DATA_DIR = "/opt/ml/input/data"
HPARAMS_INPUT_DIR = "/opt/ml/input/data/hyperparameters_s3_uri"
ARTIFACTS_DIR = "/opt/ml/input/data/model_artifacts_input"
MODEL_DIR = "/opt/ml/model"
EVAL_DIR = "/opt/ml/output/data"

LIST_KEYS = ("tab_field_list", "cat_field_list", "multiclass_categories", "class_weights", "metric", "full_field_list")
DEFAULTS = {
    "id_name": "id",
    "cat_field_list": [],
    "num_class": None,
    "multiclass_categories": [],
    "class_weights": [],
    "objective": "",
    "metric": [],
    "num_leaves": 31,
    "learning_rate": 0.1,
    "num_boost_round": 100,
    "max_depth": -1,
    "min_data_in_leaf": 20,
    "feature_fraction": 1.0,
    "bagging_fraction": 1.0,
    "bagging_freq": 0,
    "lambda_l1": 0.0,
    "lambda_l2": 0.0,
    "early_stopping_rounds": 0,
    "min_data_per_group": 100,
    "cat_smooth": 10.0,
    "max_cat_threshold": 32,
    "smooth_factor": 0.0,
    "count_threshold": 0,
    "seed": 42,
}
INTS = ("num_leaves", "num_boost_round", "max_depth", "min_data_in_leaf", "bagging_freq",
        "early_stopping_rounds", "min_data_per_group", "max_cat_threshold", "count_threshold", "seed")
FLOATS = ("learning_rate", "feature_fraction", "bagging_fraction", "lambda_l1", "lambda_l2", "cat_smooth", "smooth_factor")
OBJECTIVES = ("binary", "cross_entropy", "multiclass", "multiclassova")


def load_hyperparameters():
    hp = trainjob.load_hyperparameters((os.path.join(HPARAMS_INPUT_DIR, "hyperparameters.json"), HPARAMS_FILE),
                                       ("label_name", "tab_field_list", "objective"), DEFAULTS, LIST_KEYS, INTS, FLOATS)
    if hp["objective"] not in OBJECTIVES:
        raise SystemExit("hyperparameter objective=%r: want one of %s" % (hp["objective"], ", ".join(OBJECTIVES)))
    return hp


def fit_risk_tables(df, fields, y, smooth_factor, threshold):
    """Per category, the rate of class 1 shrunk towards the overall rate by smooth_factor x rows
    pseudo-observations; a category seen fewer than threshold times gets the overall rate."""
    prior = float(y.mean())
    pseudo = int(len(y) * smooth_factor)
    tables = {}
    for f in fields:
        keys = df[f].map(labels.category_key)
        stats = pd.DataFrame({"k": keys, "y": y}).groupby("k")["y"].agg(["sum", "count"])
        bins = {}
        for k, row in stats.iterrows():
            n = float(row["count"])
            bins[k] = prior if n < threshold else float((row["sum"] + pseudo * prior) / (n + pseudo))
        tables[f] = {"bins": bins, "default_bin": prior}
    return tables


class Features(object):
    """How raw rows become LightGBM's input; saved in model_config.json."""

    def __init__(self, hp, env, artifacts, train_df, y_train, n_classes):
        self.tab, self.cat = list(hp["tab_field_list"]), list(hp["cat_field_list"])
        self.native = trainjob.flag(env["USE_NATIVE_CATEGORICAL"]) and not trainjob.flag(env["USE_PRECOMPUTED_RISK_TABLES"])
        columns = self.tab + self.cat
        if trainjob.flag(env["USE_PRECOMPUTED_FEATURES"]):
            selected = artifacts.get("selected_features")
            if isinstance(selected, dict):
                selected = selected.get("selected_features")
            if not selected:
                raise SystemExit("USE_PRECOMPUTED_FEATURES is true but model_artifacts_input has no selected_features.json")
            unknown = [f for f in selected if f not in columns]
            if unknown:
                raise SystemExit("selected_features.json names %s, which are not in tab_field_list or cat_field_list" % unknown)
            columns = [f for f in columns if f in selected]
            self.tab, self.cat = [f for f in self.tab if f in columns], [f for f in self.cat if f in columns]
            trainjob.log("selected features: %d of %d" % (len(columns), len(hp["tab_field_list"]) + len(hp["cat_field_list"])))
        self.columns = columns
        self.impute = {}
        for f in self.tab:
            m = pd.to_numeric(train_df[f], errors="coerce").mean()
            self.impute[f] = 0.0 if pd.isna(m) else float(m)
        if trainjob.flag(env["USE_PRECOMPUTED_IMPUTATION"]) and "impute_dict" in artifacts:
            self.impute.update({f: float(v) for f, v in artifacts["impute_dict"].items() if f in self.impute})
        self.mappings, self.risk_tables = {}, {}
        if self.native:
            for f in self.cat:
                levels = sorted(set(train_df[f].map(labels.category_key)) - {""}, key=labels.sort_key)
                self.mappings[f] = {v: i for i, v in enumerate(levels)}
        elif trainjob.flag(env["USE_PRECOMPUTED_RISK_TABLES"]):
            for f in self.cat:
                if not pd.api.types.is_numeric_dtype(train_df[f]):
                    raise SystemExit("USE_PRECOMPUTED_RISK_TABLES is true but %s is not numeric: map it with RiskTableMapping first" % f)
            tables = artifacts.get("risk_table_map") or {}
            self.risk_tables = {f: tables[f] for f in self.cat if f in tables}
        else:
            if n_classes != 2:
                raise SystemExit("risk tables (USE_NATIVE_CATEGORICAL false) need a binary label; use native categorical handling or RiskTableMapping")
            self.risk_tables = fit_risk_tables(train_df, self.cat, y_train, hp["smooth_factor"], hp["count_threshold"])

    def matrix(self, df):
        return features.lightgbm_matrix(self.config(), df)

    def config(self):
        return {
            "feature_columns": self.columns,
            "tab_field_list": self.tab,
            "cat_field_list": self.cat,
            "native_categorical": self.native,
            "categorical_mappings": self.mappings,
            "risk_tables": self.risk_tables,
            "impute_dict": self.impute,
        }


def lgb_params(hp, n_classes, native):
    objective = hp["objective"]
    params = {
        "objective": objective, "num_leaves": hp["num_leaves"], "learning_rate": hp["learning_rate"],
        "max_depth": hp["max_depth"], "min_data_in_leaf": hp["min_data_in_leaf"], "feature_fraction": hp["feature_fraction"],
        "bagging_fraction": hp["bagging_fraction"], "bagging_freq": hp["bagging_freq"], "lambda_l1": hp["lambda_l1"],
        "lambda_l2": hp["lambda_l2"], "seed": hp["seed"], "deterministic": True,
        "verbose": -1,
    }
    if objective.startswith("multiclass"):
        params["num_class"] = n_classes
    if hp["metric"]:
        params["metric"] = list(hp["metric"])
    if native:
        params.update({"min_data_per_group": hp["min_data_per_group"], "cat_smooth": hp["cat_smooth"], "max_cat_threshold": hp["max_cat_threshold"]})
    return params


def main(environ_vars):
    hp = load_hyperparameters()
    label = hp["label_name"]
    artifacts = trainjob.load_artifacts(ARTIFACTS_DIR, ("impute_dict", "risk_table_map", "selected_features"))
    train_df, val_df, test_df = (trainjob.read_channel(DATA_DIR, c) for c in ("train", "val", "test"))
    if train_df is None or not len(train_df):
        raise SystemExit("no training rows under %s/train" % DATA_DIR)
    if val_df is None:
        raise SystemExit("no data files under %s/val" % DATA_DIR)
    needed = list(hp["tab_field_list"]) + list(hp["cat_field_list"]) + [label]
    for name, df in (("train", train_df), ("val", val_df), ("test", test_df)):
        if df is not None:
            trainjob.check_columns(df, needed, name)
    train_df = train_df[train_df[label].notna()].reset_index(drop=True)
    classes = labels.Classes(hp, train_df[label].tolist(), binary=hp["objective"] in ("binary", "cross_entropy"))
    n_classes = len(classes.names)
    y_train = classes.encode(train_df[label])
    y_val = classes.encode(val_df[label])
    if (y_val < 0).any():
        raise SystemExit("val has labels outside the classes %s" % classes.names)
    feats = Features(hp, environ_vars, artifacts, train_df, y_train, n_classes)
    trainjob.log("%d training rows, %d classes %s, %d features (%s categorical)" % (
        len(train_df), n_classes, classes.names, len(feats.columns), "native" if feats.native else "risk-mapped"))

    weights = None
    if hp["class_weights"]:
        if len(hp["class_weights"]) != n_classes:
            raise SystemExit("class_weights has %d values for %d classes" % (len(hp["class_weights"]), n_classes))
        weights = np.asarray(hp["class_weights"], dtype="float64")[y_train]
    categorical = [f for f in feats.columns if f in feats.mappings]
    train_set = lgb.Dataset(feats.matrix(train_df), label=y_train, weight=weights, feature_name=feats.columns,
                            categorical_feature=categorical or "auto", free_raw_data=False)
    val_set = lgb.Dataset(feats.matrix(val_df), label=y_val, reference=train_set, feature_name=feats.columns,
                          categorical_feature=categorical or "auto", free_raw_data=False)
    callbacks = [lgb.log_evaluation(period=10)]
    if hp["early_stopping_rounds"] > 0:
        callbacks.append(lgb.early_stopping(stopping_rounds=hp["early_stopping_rounds"], verbose=True))
    params = lgb_params(hp, n_classes, feats.native)
    booster = lgb.train(params, train_set, num_boost_round=hp["num_boost_round"], valid_sets=[train_set, val_set],
                        valid_names=["train", "val"], callbacks=callbacks)
    trainjob.log("trained %d rounds (best %d)" % (booster.current_iteration(), booster.best_iteration or booster.current_iteration()))

    os.makedirs(MODEL_DIR, exist_ok=True)
    booster.save_model(os.path.join(MODEL_DIR, "lightgbm_model.txt"), num_iteration=booster.best_iteration or None)
    hp["full_field_list"] = hp.get("full_field_list") or list(train_df.columns)
    hp["num_class"] = n_classes
    config = {
        "framework": "lightgbm",
        "model_file": "lightgbm_model.txt",
        "lightgbm_version": lgb.__version__,
        "params": params,
        "label_name": label,
        "id_name": hp["id_name"],
        "classes": classes.names,
        "binary": n_classes == 2,
        "full_field_list": hp["full_field_list"],
        "region": environ_vars["REGION"],
    }
    config.update(feats.config())
    trainjob.write_json(os.path.join(MODEL_DIR, "model_config.json"), config)
    gain = booster.feature_importance(importance_type="gain")
    trainjob.write_json(os.path.join(MODEL_DIR, "feature_importance.json"), {c: float(g) for c, g in zip(feats.columns, gain)})
    trainjob.write_json(os.path.join(MODEL_DIR, "hyperparameters.json"), hp)
    trainjob.log("saved lightgbm_model.txt, model_config.json, feature_importance.json and hyperparameters.json to %s" % MODEL_DIR)

    def predict(df):
        return features.class_probabilities(booster.predict(feats.matrix(df), num_iteration=booster.best_iteration or None), n_classes)

    trainjob.write_split(EVAL_DIR, "val", val_df, y_val, predict(val_df), hp["id_name"], label)
    if test_df is not None:
        y_test = classes.encode(test_df[label])
        keep = y_test >= 0
        kept = test_df[keep].reset_index(drop=True)
        trainjob.write_split(EVAL_DIR, "test", kept, y_test[keep], predict(kept), hp["id_name"], label)


if __name__ == "__main__":
    trainjob.run(main, FAILURE_FILE, "lightgbm_training", {
        "USE_PRECOMPUTED_IMPUTATION": os.environ.get("USE_PRECOMPUTED_IMPUTATION", "false"),
        "USE_PRECOMPUTED_RISK_TABLES": os.environ.get("USE_PRECOMPUTED_RISK_TABLES", "false"),
        "USE_PRECOMPUTED_FEATURES": os.environ.get("USE_PRECOMPUTED_FEATURES", "false"),
        "USE_NATIVE_CATEGORICAL": os.environ.get("USE_NATIVE_CATEGORICAL", "true"),
        "REGION": os.environ.get("REGION", "NA"),
    })
