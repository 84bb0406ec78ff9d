"""Score a data set with a model of LightGBMTraining and write the predictions, without metrics
(LightGBMModelInference).

Needs lightgbm (3.3 or later), numpy and pandas (pyarrow for Parquet). The SageMaker PyTorch image
has no lightgbm: the launcher runproc.py installs the requirements.txt packed with this script, or
config field image_uri names an image that has it.

Contract:
  inputs   /opt/ml/processing/input/model       model.tar.gz of LightGBMTraining (or its files):
                                                lightgbm_model.txt and model_config.json
           /opt/ml/processing/input/eval_data   rows to score (CSV, TSV or Parquet, any sub-folder)
  outputs  /opt/ml/processing/output/eval       predictions.csv (.parquet, .json): every input column,
                                                then prob_class_*
  env      ID_FIELD (required: the rows keep their id); LABEL_FIELD (optional: passed through, and
           checked against the model's classes when present); OUTPUT_FORMAT (csv | parquet | json),
           JSON_ORIENT (pandas orient of the JSON output)
  args     --job_type
"""
import argparse
import os

from steplib import batchscore, features, modelfiles, trainjob

lgb = trainjob.require("lightgbm", "lightgbm>=3.3", "lightgbm_model_inference")

MODEL_DIR = "/opt/ml/processing/input/model"
EVAL_DATA_DIR = "/opt/ml/processing/input/eval_data"
EVAL_OUT = "/opt/ml/processing/output/eval"


def main(input_paths, output_paths, environ_vars, job_args):
    config, model_file = modelfiles.load(input_paths["model_input"], "lightgbm", "lightgbm_model.txt", "LightGBMTraining")
    booster = lgb.Booster(model_file=model_file)
    n_classes = len(config["classes"])

    def score(df):
        return batchscore.probability_columns(features.class_probabilities(booster.predict(features.lightgbm_matrix(config, df)), n_classes))

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
    }
    main({"model_input": MODEL_DIR, "processed_data": EVAL_DATA_DIR}, {"eval_output": EVAL_OUT}, environ_vars, args)
