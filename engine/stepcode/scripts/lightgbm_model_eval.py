"""Score a labelled data set with a model of LightGBMTraining and compute its metrics
(LightGBMModelEval).

Needs lightgbm (3.3 or later), numpy, pandas and scikit-learn (the SageMaker PyTorch image has no
lightgbm: the launcher runproc.py installs the requirements.txt packed with this script, or config
field image_uri names an image that has it); matplotlib draws the curves when installed, scipy
adds the paired tests.

Contract:
  inputs   /opt/ml/processing/input/model       model.tar.gz of LightGBMTraining (or its files):
                                                lightgbm_model.txt and model_config.json
           /opt/ml/processing/input/eval_data   labelled rows (CSV, TSV or Parquet, any sub-folder)
  outputs  /opt/ml/processing/output/eval       eval_predictions.csv: id, label (class index),
                                                prob_class_* (and the previous score in comparison mode)
           /opt/ml/processing/output/metrics    metrics.json (flat: auc, average_precision, f1_score,
                                                ...; previous_* and delta_* in comparison mode),
                                                roc_curve.png and pr_curve.png with matplotlib
  env      ID_FIELD, LABEL_FIELD (required); EVAL_METRIC_CHOICES (auc, average_precision, f1_score,
           accuracy, log_loss, precision, recall), COMPARISON_MODE, PREVIOUS_SCORE_FIELD,
           COMPARISON_METRICS (all | basic), STATISTICAL_TESTS, COMPARISON_PLOTS
  args     --job_type

Multiclass models report macro averages under the plain names (auc, average_precision,
f1_score) and per-class values as auc_class_<i>. Comparison mode is for binary models: the
previous model's score is its probability of class 1.
"""
import argparse
import os

from steplib import evaluation, features, modelfiles, trainjob

lgb = trainjob.require("lightgbm", "lightgbm>=3.3", "lightgbm_model_eval")

MODEL_DIR = "/opt/ml/processing/input/model"
EVAL_DATA_DIR = "/opt/ml/processing/input/eval_data"
EVAL_OUT = "/opt/ml/processing/output/eval"
METRICS_OUT = "/opt/ml/processing/output/metrics"


def main(input_paths, output_paths, environ_vars, job_args):
    config, model_file = modelfiles.load(input_paths["model_input"], "lightgbm", "lightgbm_model.txt", "LightGBMTraining")
    booster = lgb.Booster(model_file=model_file)
    n = len(config["classes"])
    return evaluation.run(input_paths, output_paths, environ_vars, job_args, config,
                          lambda df: (features.class_probabilities(booster.predict(features.lightgbm_matrix(config, df)), n), "(lightgbm %s)" % lgb.__version__))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    env = os.environ
    environ_vars = {
        "ID_FIELD": env["ID_FIELD"],
        "LABEL_FIELD": env["LABEL_FIELD"],
        "EVAL_METRIC_CHOICES": evaluation.names(env.get("EVAL_METRIC_CHOICES", "auc,average_precision,f1_score")),
        "COMPARISON_MODE": evaluation.env_flag(env.get("COMPARISON_MODE", ""), False),
        "PREVIOUS_SCORE_FIELD": env.get("PREVIOUS_SCORE_FIELD", ""),
        "COMPARISON_METRICS": env.get("COMPARISON_METRICS", "all"),
        "STATISTICAL_TESTS": evaluation.env_flag(env.get("STATISTICAL_TESTS", ""), True),
        "COMPARISON_PLOTS": evaluation.env_flag(env.get("COMPARISON_PLOTS", ""), True),
    }
    main({"model_input": MODEL_DIR, "processed_data": EVAL_DATA_DIR},
         {"eval_output": EVAL_OUT, "metrics_output": METRICS_OUT}, environ_vars, args)
