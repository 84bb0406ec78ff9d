"""Score a labelled data set with a model of XgboostMtTraining and compute each task's metrics
(XgboostMtModelEval).

Contract:
  inputs   /opt/ml/processing/input/model       model.tar.gz of XgboostMtTraining (or its files):
                                                xgboost_mt_model.json and model_config.json
           /opt/ml/processing/input/eval_data   rows with the task label columns (CSV, TSV or
                                                Parquet, any sub-folder)
  outputs  /opt/ml/processing/output/eval       eval_predictions.csv: id, each task's label and
                                                prob_<task>, prob_class_0/1 of the main task
           /opt/ml/processing/output/metrics    metrics.json (per task: rows, positives, auc,
                                                average_precision, f1_score, accuracy, log_loss;
                                                mean_*; the main task's under the plain names),
                                                the main task's roc_curve.png and pr_curve.png
  env      ID_FIELD (required)
  args     --job_type

Rows missing every task's label are left out; a row missing one task's label does not count
for that task.
"""
import argparse
import os

import numpy as np

from steplib import features, modelfiles, multitask, trainjob

xgb = trainjob.require("xgboost", "xgboost>=1.6", "xgboost_mt_model_eval")

MODEL_DIR = "/opt/ml/processing/input/model"
EVAL_DATA_DIR = "/opt/ml/processing/input/eval_data"
EVAL_OUT = "/opt/ml/processing/output/eval"
METRICS_OUT = "/opt/ml/processing/output/metrics"


def main(input_paths, output_paths, environ_vars, job_args):
    config, weights = modelfiles.load(input_paths["model_input"], "xgboost_mt", "xgboost_mt_model.json", "XgboostMtTraining")
    booster = xgb.Booster()
    booster.load_model(weights)
    n = len(config["tasks"])

    def prob(df):
        d = xgb.DMatrix(features.lightgbm_matrix(config, df), feature_names=config["feature_columns"])
        return np.asarray(booster.predict(d), dtype="float64").reshape(len(df), n)

    df = modelfiles.read_rows(input_paths["processed_data"])
    return multitask.evaluate(df, config, prob, environ_vars, output_paths, job_args.job_type)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    main({"model_input": MODEL_DIR, "processed_data": EVAL_DATA_DIR}, {"eval_output": EVAL_OUT, "metrics_output": METRICS_OUT},
         {"ID_FIELD": os.environ["ID_FIELD"]}, args)
