"""Score a data set with a model of LightGBMMTTraining and write each task's probability, without
metrics (LightGBMMTModelInference).

Needs lightgbm (3.3 or later), numpy and pandas (pyarrow for Parquet). The SageMaker PyTorch image
has no lightgbm: the launcher runproc.py installs the requirements.txt packed with this script, or
config field image_uri names an image that has it.

Contract:
  inputs   /opt/ml/processing/input/model       model.tar.gz of LightGBMMTTraining (or its files)
           /opt/ml/processing/input/eval_data   rows to score (CSV, TSV or Parquet, any sub-folder)
  outputs  /opt/ml/processing/output/eval       predictions.csv (.parquet, .json): every input
                                                column, then prob_<task> per task and
                                                prob_class_0/1 of the main task
  env      ID_FIELD (required), OUTPUT_FORMAT (csv | parquet | json), JSON_ORIENT
  args     --job_type
"""
import argparse
import os

import pandas as pd

from steplib import batchscore, modelfiles, multitask, trainjob

lgb = trainjob.require("lightgbm", "lightgbm>=3.3", "lightgbmmt_model_inference")

MODEL_DIR = "/opt/ml/processing/input/model"
EVAL_DATA_DIR = "/opt/ml/processing/input/eval_data"
EVAL_OUT = "/opt/ml/processing/output/eval"


def main(input_paths, output_paths, environ_vars, job_args):
    config, first = modelfiles.load(input_paths["model_input"], "lightgbmmt", "lightgbmmt_model_0.txt", "LightGBMMTTraining")
    boosters = multitask.lightgbm_boosters(lgb, config, os.path.dirname(first))
    tasks, main_index = config["tasks"], config["main_task_index"]

    def score(df):
        prob = multitask.lightgbm_predict(boosters, config, df)
        cols = pd.DataFrame({"prob_" + t: prob[:, k] for k, t in enumerate(tasks)})
        cols["prob_class_0"] = 1 - prob[:, main_index]
        cols["prob_class_1"] = prob[:, main_index]
        return cols

    return batchscore.run(input_paths, output_paths, environ_vars, job_args, None, score)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    env = os.environ
    environ_vars = {
        "ID_FIELD": env["ID_FIELD"],
        "LABEL_FIELD": "",
        "OUTPUT_FORMAT": env.get("OUTPUT_FORMAT", "csv").strip().lower(),
        "JSON_ORIENT": env.get("JSON_ORIENT", "records"),
    }
    main({"model_input": MODEL_DIR, "processed_data": EVAL_DATA_DIR}, {"eval_output": EVAL_OUT}, environ_vars, args)
