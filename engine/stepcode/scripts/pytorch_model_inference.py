"""Score a data set with a model of PyTorchTraining and write the predictions, without metrics
(PyTorchModelInference).

Runs in the SageMaker PyTorch container (FrameworkProcessor); needs torch, numpy and pandas
(pyarrow for Parquet).

Contract:
  inputs   /opt/ml/processing/input/model       model.tar.gz of PyTorchTraining (or its files):
                                                model.pt (TorchScript) and model_config.json
           /opt/ml/processing/input/eval_data   rows to score (CSV, TSV or Parquet, any sub-folder)
  outputs  /opt/ml/processing/output/eval       predictions.csv (.parquet, .json): every input column,
                                                then prob_class_* (and emb_* in embedding mode)
  env      ID_FIELD (required: the rows keep their id); LABEL_FIELD (optional: passed through, and
           checked against the model's classes when present); OUTPUT_FORMAT (csv | parquet | json),
           JSON_ORIENT (pandas orient of the JSON output), DEVICE (auto | cpu | cuda),
           EMBEDDING_MODE (also write the network's last hidden layer as emb_0..emb_<k>, features for
           a downstream model)
  args     --job_type
"""
import argparse
import os

import pandas as pd
import torch

from steplib import batchscore, features, modelfiles

MODEL_DIR = "/opt/ml/processing/input/model"
EVAL_DATA_DIR = "/opt/ml/processing/input/eval_data"
EVAL_OUT = "/opt/ml/processing/output/eval"


def main(input_paths, output_paths, environ_vars, job_args):
    config, weights = modelfiles.load(input_paths["model_input"], "pytorch", "model.pt", "PyTorchTraining")
    device = features.torch_device(environ_vars["DEVICE"])
    model = torch.jit.load(weights, map_location=device)
    model.eval()
    tokenizer = features.pytorch_tokenizer(config, os.path.dirname(weights))

    def score(df):
        x = torch.from_numpy(features.pytorch_matrix(config, df, tokenizer)).to(device)
        with torch.no_grad():
            cols = batchscore.probability_columns(torch.softmax(model(x), 1).cpu().numpy())
            if environ_vars["EMBEDDING_MODE"]:
                emb = model.embed(x).cpu().numpy()
                cols = pd.concat([cols, pd.DataFrame({"emb_%d" % j: emb[:, j] for j in range(emb.shape[1])})], axis=1)
        return cols

    return batchscore.run(input_paths, output_paths, environ_vars, job_args, config["classes"], score)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    env = os.environ
    environ_vars = {
        "ID_FIELD": env["ID_FIELD"],
        "LABEL_FIELD": env.get("LABEL_FIELD", ""),
        "OUTPUT_FORMAT": env.get("OUTPUT_FORMAT", "csv").strip().lower(),
        "JSON_ORIENT": env.get("JSON_ORIENT", "records"),
        "DEVICE": env.get("DEVICE", "auto"),
        "EMBEDDING_MODE": env.get("EMBEDDING_MODE", "false").strip().lower() in ("1", "true", "yes", "on"),
    }
    main({"model_input": MODEL_DIR, "processed_data": EVAL_DATA_DIR}, {"eval_output": EVAL_OUT}, environ_vars, args)
