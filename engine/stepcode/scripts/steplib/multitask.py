"""Multi-task tree models (LightGBMMTTraining, XgboostMtTraining and their eval and inference
steps): several binary labels of the same rows (chargeback, account takeover, promo abuse, ...)
learnt over one feature pipeline, and judged task by task.

The feature pipeline is the tree models' (steplib.features.lightgbm_matrix): numeric fields
imputed with their training means, categorical fields as their training codes (unseen: missing).
model_config.json records it with the tasks, so evaluation and serving rebuild the same input.
"""
import json
import os

import numpy as np
import pandas as pd

from steplib import evaluation, features, labels, trainjob


def tasks_of(hp):
    """The task label columns and the main task's index, checked."""
    tasks = list(hp.get("task_label_names") or [])
    if len(tasks) < 2:
        raise SystemExit("task_label_names: a multi-task model needs at least two label columns, got %s" % tasks)
    if len(set(tasks)) != len(tasks):
        raise SystemExit("task_label_names %s has duplicates" % tasks)
    main = int(hp.get("main_task_index") or 0)
    if not 0 <= main < len(tasks):
        raise SystemExit("main_task_index %d is not an index of task_label_names %s" % (main, tasks))
    return tasks, main


def label_matrix(df, tasks, where):
    """[rows, tasks] of 0/1 (-1 missing), every task's labels checked to be binary."""
    return np.stack([labels.binary_labels(df[t], "%s: task %s" % (where, t)) for t in tasks], axis=1)


class Pipeline(object):
    """Numeric fields imputed with their means, categorical fields coded by their training
    values; saved in model_config.json."""

    def __init__(self, hp, train_df):
        self.tab, self.cat = list(hp["tab_field_list"]), list(hp.get("cat_field_list") or [])
        overlap = set(self.tab) & set(self.cat)
        if overlap:
            raise SystemExit("fields %s are in both tab_field_list and cat_field_list" % sorted(overlap))
        self.impute = {}
        for f in self.tab:
            m = pd.to_numeric(train_df[f], errors="coerce").mean()
            self.impute[f] = 0.0 if pd.isna(m) else float(m)
        self.mappings = {}
        for f in self.cat:
            levels = sorted(set(train_df[f].map(labels.category_key)) - {""}, key=labels.sort_key)
            self.mappings[f] = {v: i for i, v in enumerate(levels)}

    def config(self):
        return {"feature_columns": self.tab + self.cat, "tab_field_list": self.tab, "cat_field_list": self.cat,
                "categorical_mappings": self.mappings, "impute_dict": self.impute, "risk_tables": {}}

    def matrix(self, df):
        return features.lightgbm_matrix(self.config(), df)


def task_metrics(y, prob, tasks):
    """Per task (rows with a label): rows, positives, auc and average_precision (when both
    classes occur), f1_score, accuracy and log_loss at 0.5; plus their means over the tasks and the
    main task's figures under the plain names."""
    out = {"tasks": {}}
    for k, t in enumerate(tasks):
        keep = y[:, k] >= 0
        yt, pt = y[keep, k], prob[keep, k]
        m = {"rows": int(keep.sum()), "positives": int(yt.sum())}
        if len(yt):
            m.update(evaluation.binary_metrics(yt, pt, ("auc", "average_precision", "f1_score", "accuracy", "log_loss")))
        out["tasks"][t] = m
    for name in ("auc", "average_precision", "f1_score", "accuracy", "log_loss"):
        vals = [m[name] for m in out["tasks"].values() if m.get(name) is not None]
        if vals:
            out["mean_" + name] = float(np.mean(vals))
    return out


def with_main(metrics, tasks, main):
    """The main task's metrics also under the plain names (auc, average_precision, ...), so a
    quality gate or a calibration step reads them as a single-task model's."""
    for k, v in metrics["tasks"][tasks[main]].items():
        if k not in ("rows", "positives"):
            metrics[k] = v
    metrics["main_task"] = tasks[main]
    return metrics


def prediction_frame(df, id_name, y, prob, tasks, main):
    """id, each task's label, prob_<task> per task, and prob_class_0 / prob_class_1 of the main
    task (what calibration and single-task consumers read)."""
    ids = df[id_name].to_numpy() if id_name in df.columns else np.arange(len(df))
    out = pd.DataFrame({id_name: ids})
    for k, t in enumerate(tasks):
        if y is not None:
            out[t] = y[:, k]
        out["prob_" + t] = prob[:, k]
    out["prob_class_0"] = 1 - prob[:, main]
    out["prob_class_1"] = prob[:, main]
    return out


def write_split(eval_dir, name, df, y, prob, tasks, main, id_name):
    folder = os.path.join(eval_dir, name)
    os.makedirs(folder, exist_ok=True)
    prediction_frame(df, id_name, y, prob, tasks, main).to_csv(os.path.join(folder, "predictions.csv"), index=False)
    m = with_main(task_metrics(y, prob, tasks), tasks, main)
    trainjob.write_json(os.path.join(folder, "metrics.json"), m)
    trainjob.log("%s metrics: %s" % (name, json.dumps({t: {k: v for k, v in x.items() if k in ("auc", "rows")} for t, x in m["tasks"].items()}, sort_keys=True)))
    return m


def load_splits(data_dir, needed):
    """train, val and test frames of a training job (test may be None); exits on a missing
    train or val, or a missing column."""
    train, val, test = (trainjob.read_channel(data_dir, c) for c in ("train", "val", "test"))
    if train is None or not len(train):
        raise SystemExit("no training rows under %s/train" % data_dir)
    if val is None:
        raise SystemExit("no data files under %s/val" % data_dir)
    for name, df in (("train", train), ("val", val), ("test", test)):
        if df is not None:
            trainjob.check_columns(df, needed, name)
    return train, val, test


def evaluate(df, config, prob_fn, env, out_paths, job_type):
    """The eval steps' outputs: eval_predictions.csv and metrics.json (per task, means, the main
    task under the plain names) for the rows with any label; returns the metrics."""
    tasks, main = config["tasks"], config["main_task_index"]
    trainjob.check_columns(df, tasks, "eval_data")
    y = label_matrix(df, tasks, "eval_data")
    keep = (y >= 0).any(axis=1)
    df, y = df[keep].reset_index(drop=True), y[keep]
    if not len(df):
        raise SystemExit("no labelled rows for the tasks %s" % tasks)
    prob = prob_fn(df)
    os.makedirs(out_paths["eval_output"], exist_ok=True)
    prediction_frame(df, env["ID_FIELD"], y, prob, tasks, main).to_csv(os.path.join(out_paths["eval_output"], "eval_predictions.csv"), index=False)
    m = with_main(task_metrics(y, prob, tasks), tasks, main)
    m["job_type"] = job_type
    os.makedirs(out_paths["metrics_output"], exist_ok=True)
    trainjob.write_json(os.path.join(out_paths["metrics_output"], "metrics.json"), m)
    yk, pk = y[:, main], prob[:, main]
    sel = yk >= 0
    evaluation.plots(out_paths["metrics_output"], yk[sel], np.stack([1 - pk[sel], pk[sel]], axis=1), None, False)
    trainjob.log("metrics (%s): %s" % (job_type, json.dumps({t: x.get("auc") for t, x in m["tasks"].items()}, sort_keys=True)))
    return m


def lightgbm_boosters(lgb, config, folder):
    """One lightgbm Booster per task, from the model files config names (model_files)."""
    return [lgb.Booster(model_file=os.path.join(folder, f)) for f in config["model_files"]]


def lightgbm_predict(boosters, config, df):
    """[rows, tasks] probabilities of a LightGBMMTTraining model: each task's booster over the
    shared input, a subtask's raw score added to the main task's when the model was trained
    from it (transfer_from_main_task)."""
    x = features.lightgbm_matrix(config, df)
    main = config["main_task_index"]
    raw = [np.asarray(b.predict(x, raw_score=True), dtype="float64") for b in boosters]
    out = np.zeros((len(df), len(boosters)))
    for k, r in enumerate(raw):
        margin = r + raw[main] if config.get("transfer_from_main_task") and k != main else r
        out[:, k] = 1.0 / (1.0 + np.exp(-margin))
    return out
