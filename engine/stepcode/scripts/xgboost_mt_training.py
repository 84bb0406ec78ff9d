"""Train one multi-task XGBoost model (XgboostMtTraining): several binary labels of the same rows
(chargeback, account takeover, promo abuse, ...) learnt together by one booster with multi-output
trees (a 2-D label matrix, objective binary:logistic, tree_method hist; XGBoost 1.6 or later), so
the tasks share one model, one feature pipeline and one endpoint.

Contract:
  inputs   /opt/ml/input/config/hyperparameters.json     the job's hyperparameters
           /opt/ml/input/data/{train,val,test}           CSV, TSV or Parquet files
           /opt/ml/input/data/hyperparameters_s3_uri     optional hyperparameters.json
  outputs  /opt/ml/model        xgboost_mt_model.json, model_config.json (tasks, main task, fields,
                                category codes, imputation values), feature_importance.json,
                                hyperparameters.json; SageMaker packs it into model.tar.gz
           /opt/ml/output/data  val/ and test/: predictions.csv (id, each task's label,
                                prob_<task>, and prob_class_0/1 of the main task) and metrics.json
                                (per task, means, the main task's under the plain names)

Hyperparameters: task_label_names (at least two 0/1 label columns), tab_field_list (required);
main_task_index, id_name, cat_field_list, task_weights, num_round, eta, max_depth,
min_child_weight, subsample, colsample_bytree, lambda_l2, early_stopping_rounds, seed. Rows
missing a task's label do not count for that task (weight 0 for it).
"""
import os

import numpy as np

from steplib import multitask, trainjob

FAILURE_FILE = "/opt/ml/output/failure"
xgb = trainjob.require("xgboost", "xgboost>=1.6", "xgboost_mt_training", FAILURE_FILE)

HPARAMS_FILE = "/opt/ml/input/config/hyperparameters.json"
DATA_DIR = "/opt/ml/input/data"
HPARAMS_INPUT_DIR = "/opt/ml/input/data/hyperparameters_s3_uri"
MODEL_DIR = "/opt/ml/model"
EVAL_DIR = "/opt/ml/output/data"

LIST_KEYS = ("task_label_names", "tab_field_list", "cat_field_list", "task_weights")
DEFAULTS = {"id_name": "id", "cat_field_list": [], "main_task_index": 0, "task_weights": [], "num_round": 200, "eta": 0.1,
            "max_depth": 6, "min_child_weight": 1.0, "subsample": 1.0, "colsample_bytree": 1.0, "lambda_l2": 1.0,
            "early_stopping_rounds": 20, "seed": 42}
INTS = ("main_task_index", "num_round", "max_depth", "early_stopping_rounds", "seed")
FLOATS = ("eta", "min_child_weight", "subsample", "colsample_bytree", "lambda_l2")


def main():
    hp = trainjob.load_hyperparameters((os.path.join(HPARAMS_INPUT_DIR, "hyperparameters.json"), HPARAMS_FILE),
                                       ("task_label_names", "tab_field_list"), DEFAULTS, LIST_KEYS, INTS, FLOATS)
    tasks, main_index = multitask.tasks_of(hp)
    needed = list(hp["tab_field_list"]) + list(hp["cat_field_list"]) + tasks
    train, val, test = multitask.load_splits(DATA_DIR, needed)
    y_train, y_val = multitask.label_matrix(train, tasks, "train"), multitask.label_matrix(val, tasks, "val")
    weights = [float(w) for w in hp["task_weights"]] or [1.0] * len(tasks)
    if len(weights) != len(tasks):
        raise SystemExit("task_weights has %d values for %d tasks" % (len(weights), len(tasks)))
    pipe = multitask.Pipeline(hp, train)

    def dmatrix(df, y):
        # a missing label is trained as 0 with no weight on that task: XGBoost takes one weight
        # per row, so a row with any missing label is weighted by its known tasks' share
        known = (y >= 0).astype("float64")
        w = (known * np.asarray(weights)).sum(axis=1) / max(sum(weights), 1e-12)
        return xgb.DMatrix(pipe.matrix(df), label=np.where(y >= 0, y, 0), weight=w, feature_names=pipe.config()["feature_columns"])

    params = {"objective": "binary:logistic", "tree_method": "hist", "eta": hp["eta"], "max_depth": hp["max_depth"],
              "min_child_weight": hp["min_child_weight"], "subsample": hp["subsample"], "colsample_bytree": hp["colsample_bytree"],
              "lambda": hp["lambda_l2"], "seed": hp["seed"], "eval_metric": "logloss"}
    d_train, d_val = dmatrix(train, y_train), dmatrix(val, y_val)
    booster = xgb.train(params, d_train, num_boost_round=hp["num_round"], evals=[(d_train, "train"), (d_val, "val")],
                        early_stopping_rounds=hp["early_stopping_rounds"] or None, verbose_eval=20)
    best = getattr(booster, "best_iteration", None)
    trainjob.log("%d tasks %s (main %s), %d training rows, %d rounds (best %s), xgboost %s" % (
        len(tasks), tasks, tasks[main_index], len(train), booster.num_boosted_rounds(), best, xgb.__version__))

    if best is not None:
        booster = booster[: best + 1]  # the best rounds only, saved and scored

    def predict(df):
        p = booster.predict(xgb.DMatrix(pipe.matrix(df), feature_names=pipe.config()["feature_columns"]))
        return np.asarray(p, dtype="float64").reshape(len(df), len(tasks))

    os.makedirs(MODEL_DIR, exist_ok=True)
    booster.save_model(os.path.join(MODEL_DIR, "xgboost_mt_model.json"))
    config = {"framework": "xgboost_mt", "model_file": "xgboost_mt_model.json", "xgboost_version": xgb.__version__,
              "tasks": tasks, "main_task_index": main_index, "task_weights": weights, "id_name": hp["id_name"],
              "classes": ["0", "1"], "params": params, "full_field_list": list(train.columns)}
    config.update(pipe.config())
    trainjob.write_json(os.path.join(MODEL_DIR, "model_config.json"), config)
    gain = booster.get_score(importance_type="gain")
    trainjob.write_json(os.path.join(MODEL_DIR, "feature_importance.json"), {f: float(gain.get(f, 0.0)) for f in config["feature_columns"]})
    trainjob.write_json(os.path.join(MODEL_DIR, "hyperparameters.json"), hp)
    multitask.write_split(EVAL_DIR, "val", val, y_val, predict(val), tasks, main_index, hp["id_name"])
    if test is not None:
        multitask.write_split(EVAL_DIR, "test", test, multitask.label_matrix(test, tasks, "test"), predict(test), tasks, main_index, hp["id_name"])


if __name__ == "__main__":
    trainjob.run(main, FAILURE_FILE, "xgboost_mt_training")
