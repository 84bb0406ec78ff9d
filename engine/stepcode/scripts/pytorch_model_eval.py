"""Score a labelled data set with a model of PyTorchTraining and compute its metrics
(PyTorchModelEval).

Runs in the SageMaker PyTorch container (FrameworkProcessor); needs torch, numpy, pandas and
scikit-learn; matplotlib draws the curves when installed, scipy adds the paired tests.

Contract:
  inputs   /opt/ml/processing/input/model       model.tar.gz of PyTorchTraining (or its files):
                                                model.pt (TorchScript) and model_config.json
           /opt/ml/processing/input/eval_data   labelled rows (CSV, TSV or Parquet, any sub-folder)
  outputs  /opt/ml/processing/output/eval       eval_predictions.csv: id, label (class index),
                                                prob_class_* (and the previous score in comparison mode)
           /opt/ml/processing/output/metrics    metrics.json (flat: auc, average_precision, f1_score,
                                                ...; previous_* and delta_* in comparison mode),
                                                roc_curve.png and pr_curve.png with matplotlib
  env      ID_FIELD, LABEL_FIELD (required); EVAL_METRIC_CHOICES (auc, average_precision, f1_score,
           accuracy, log_loss, precision, recall), COMPARISON_MODE, PREVIOUS_SCORE_FIELD,
           COMPARISON_METRICS (all | basic), STATISTICAL_TESTS, COMPARISON_PLOTS, DEVICE
           (auto | cpu | cuda), BATCH_SIZE, NUM_WORKERS
  args     --job_type

Multiclass models report macro averages under the plain names (auc, average_precision,
f1_score) and per-class values as auc_class_<i>. Comparison mode is for binary models: the
previous model's score is its probability of class 1.
"""
import argparse
import os

import numpy as np
import torch

from steplib import evaluation, features, modelfiles

MODEL_DIR = "/opt/ml/processing/input/model"
EVAL_DATA_DIR = "/opt/ml/processing/input/eval_data"
EVAL_OUT = "/opt/ml/processing/output/eval"
METRICS_OUT = "/opt/ml/processing/output/metrics"


def probabilities(model, x, device, batch_size, workers):
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.from_numpy(x)), batch_size=batch_size, num_workers=workers)
    out = []
    with torch.no_grad():
        for (xb,) in loader:
            out.append(torch.softmax(model(xb.to(device)), 1).cpu().numpy())
    return np.concatenate(out).astype("float64")


def main(input_paths, output_paths, environ_vars, job_args):
    config, weights = modelfiles.load(input_paths["model_input"], "pytorch", "model.pt", "PyTorchTraining")
    device = features.torch_device(environ_vars["DEVICE"])
    model = torch.jit.load(weights, map_location=device)
    model.eval()
    tokenizer = features.pytorch_tokenizer(config, os.path.dirname(weights))
    return evaluation.run(input_paths, output_paths, environ_vars, job_args, config,
                          lambda df: (probabilities(model, features.pytorch_matrix(config, df, tokenizer), device, environ_vars["BATCH_SIZE"], environ_vars["NUM_WORKERS"]), "on %s" % device))


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
        "DEVICE": env.get("DEVICE", "auto"),
        "BATCH_SIZE": int(env.get("BATCH_SIZE", "32") or 32),
        "NUM_WORKERS": int(env.get("NUM_WORKERS", "0") or 0),
    }
    main({"model_input": MODEL_DIR, "processed_data": EVAL_DATA_DIR},
         {"eval_output": EVAL_OUT, "metrics_output": METRICS_OUT}, environ_vars, args)
