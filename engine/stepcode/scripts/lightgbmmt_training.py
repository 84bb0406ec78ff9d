"""Train a multi-task LightGBM model (LightGBMMTTraining): several binary labels of the same rows
(chargeback, account takeover, promo abuse, ...) over one feature pipeline. The main task's
booster is trained first; each subtask's booster then starts from the main task's scores
(transfer_from_main_task: init_score is the main task's margin) and learns only how the subtask
differs, so rare subtasks borrow the main task's signal. LightGBM's trees are single-output, so
the model is one booster file per task with the shared input.

Needs lightgbm (3.3 or later), numpy, pandas and scikit-learn. No SageMaker framework image ships
lightgbm: the compiler packs requirements.txt (requirements/lightgbm.txt) beside this script and the
PyTorch image's training toolkit installs it before the script runs, or config field image_uri
names an image that has it.

Contract:
  inputs   /opt/ml/input/config/hyperparameters.json     the job's hyperparameters
           /opt/ml/input/data/{train,val,test}           CSV, TSV or Parquet files
           /opt/ml/input/data/hyperparameters_s3_uri     optional hyperparameters.json
  outputs  /opt/ml/model        lightgbmmt_model_<i>.txt per task, model_config.json (tasks, main
                                task, fields, category codes, imputation values, whether subtasks
                                start from the main task), feature_importance.json,
                                hyperparameters.json
           /opt/ml/output/data  val/ and test/: predictions.csv (id, each task's label,
                                prob_<task>, prob_class_0/1 of the main task) and metrics.json

Hyperparameters: task_label_names (at least two 0/1 label columns), tab_field_list (required);
main_task_index, id_name, cat_field_list, transfer_from_main_task, num_leaves, learning_rate,
num_boost_round, max_depth, min_data_in_leaf, feature_fraction, bagging_fraction, bagging_freq,
lambda_l1, lambda_l2, early_stopping_rounds, seed. A row missing a task's label does not train
that task.
"""
import os

from steplib import multitask, trainjob

FAILURE_FILE = "/opt/ml/output/failure"
lgb = trainjob.require("lightgbm", "lightgbm>=3.3", "lightgbmmt_training", FAILURE_FILE)

HPARAMS_FILE = "/opt/ml/input/config/hyperparameters.json"
DATA_DIR = "/opt/ml/input/data"
HPARAMS_INPUT_DIR = "/opt/ml/input/data/hyperparameters_s3_uri"
MODEL_DIR = "/opt/ml/model"
EVAL_DIR = "/opt/ml/output/data"

LIST_KEYS = ("task_label_names", "tab_field_list", "cat_field_list")
DEFAULTS = {"id_name": "id", "cat_field_list": [], "main_task_index": 0, "transfer_from_main_task": True, "num_leaves": 31,
            "learning_rate": 0.1, "num_boost_round": 100, "max_depth": -1, "min_data_in_leaf": 20, "feature_fraction": 1.0,
            "bagging_fraction": 1.0, "bagging_freq": 0, "lambda_l1": 0.0, "lambda_l2": 0.0, "early_stopping_rounds": 10, "seed": 42}
INTS = ("main_task_index", "num_leaves", "num_boost_round", "max_depth", "min_data_in_leaf", "bagging_freq", "early_stopping_rounds", "seed")
FLOATS = ("learning_rate", "feature_fraction", "bagging_fraction", "lambda_l1", "lambda_l2")


def main():
    hp = trainjob.load_hyperparameters((os.path.join(HPARAMS_INPUT_DIR, "hyperparameters.json"), HPARAMS_FILE),
                                       ("task_label_names", "tab_field_list"), DEFAULTS, LIST_KEYS, INTS, FLOATS)
    tasks, main_index = multitask.tasks_of(hp)
    transfer = trainjob.flag(hp["transfer_from_main_task"])
    train, val, test = multitask.load_splits(DATA_DIR, list(hp["tab_field_list"]) + list(hp["cat_field_list"]) + tasks)
    y_train, y_val = multitask.label_matrix(train, tasks, "train"), multitask.label_matrix(val, tasks, "val")
    pipe = multitask.Pipeline(hp, train)
    cols = pipe.config()["feature_columns"]
    x_train, x_val = pipe.matrix(train), pipe.matrix(val)
    params = {"objective": "binary", "num_leaves": hp["num_leaves"], "learning_rate": hp["learning_rate"], "max_depth": hp["max_depth"],
              "min_data_in_leaf": hp["min_data_in_leaf"], "feature_fraction": hp["feature_fraction"], "bagging_fraction": hp["bagging_fraction"],
              "bagging_freq": hp["bagging_freq"], "lambda_l1": hp["lambda_l1"], "lambda_l2": hp["lambda_l2"], "seed": hp["seed"],
              "deterministic": True, "verbose": -1}
    categorical = list(pipe.cat)
    order = [main_index] + [k for k in range(len(tasks)) if k != main_index]
    boosters, main_margin = [None] * len(tasks), None
    for k in order:
        tr, va = y_train[:, k] >= 0, y_val[:, k] >= 0
        if len(set(y_train[tr, k].tolist())) < 2:
            raise SystemExit("task %s: the training rows hold one class only" % tasks[k])
        init_tr = init_va = None
        if transfer and k != main_index:
            init_tr, init_va = main_margin[0][tr], main_margin[1][va]
        d_train = lgb.Dataset(x_train[tr], label=y_train[tr, k], init_score=init_tr, feature_name=cols,
                              categorical_feature=categorical or "auto", free_raw_data=False)
        d_val = lgb.Dataset(x_val[va], label=y_val[va, k], init_score=init_va, reference=d_train, feature_name=cols,
                            categorical_feature=categorical or "auto", free_raw_data=False)
        callbacks = [lgb.log_evaluation(period=20)]
        if hp["early_stopping_rounds"] > 0:
            callbacks.append(lgb.early_stopping(stopping_rounds=hp["early_stopping_rounds"], verbose=False))
        b = lgb.train(params, d_train, num_boost_round=hp["num_boost_round"], valid_sets=[d_val], valid_names=["val"], callbacks=callbacks)
        boosters[k] = b
        trainjob.log("task %s: %d rounds (best %d)%s" % (tasks[k], b.current_iteration(), b.best_iteration or b.current_iteration(),
                                                        " from the main task's scores" if init_tr is not None else ""))
        if k == main_index:
            it = b.best_iteration or None
            main_margin = (b.predict(x_train, raw_score=True, num_iteration=it), b.predict(x_val, raw_score=True, num_iteration=it))

    os.makedirs(MODEL_DIR, exist_ok=True)
    files = []
    for k, b in enumerate(boosters):
        name = "lightgbmmt_model_%d.txt" % k
        b.save_model(os.path.join(MODEL_DIR, name), num_iteration=b.best_iteration or None)
        files.append(name)
    config = {"framework": "lightgbmmt", "model_file": files[0], "model_files": files, "lightgbm_version": lgb.__version__,
              "tasks": tasks, "main_task_index": main_index, "transfer_from_main_task": transfer, "id_name": hp["id_name"],
              "classes": ["0", "1"], "params": params, "full_field_list": list(train.columns)}
    config.update(pipe.config())
    trainjob.write_json(os.path.join(MODEL_DIR, "model_config.json"), config)
    importance = {t: {c: float(g) for c, g in zip(cols, b.feature_importance(importance_type="gain"))} for t, b in zip(tasks, boosters)}
    trainjob.write_json(os.path.join(MODEL_DIR, "feature_importance.json"), importance)
    trainjob.write_json(os.path.join(MODEL_DIR, "hyperparameters.json"), hp)
    saved = multitask.lightgbm_boosters(lgb, config, MODEL_DIR)  # score as the eval step will: the saved files
    multitask.write_split(EVAL_DIR, "val", val, y_val, multitask.lightgbm_predict(saved, config, val), tasks, main_index, hp["id_name"])
    if test is not None:
        multitask.write_split(EVAL_DIR, "test", test, multitask.label_matrix(test, tasks, "test"),
                              multitask.lightgbm_predict(saved, config, test), tasks, main_index, hp["id_name"])


if __name__ == "__main__":
    trainjob.run(main, FAILURE_FILE, "lightgbmmt_training")
