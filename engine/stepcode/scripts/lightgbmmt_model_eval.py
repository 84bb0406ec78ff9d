"""Score a labelled data set with a model of LightGBMMTTraining and compute each task's metrics
(LightGBMMTModelEval).

Needs lightgbm (3.3 or later), numpy, pandas and scikit-learn (the SageMaker PyTorch image has no
lightgbm: the launcher runproc.py installs the requirements.txt packed with this script, or config
field image_uri names an image that has it).

Contract:
  inputs   /opt/ml/processing/input/model       model.tar.gz of LightGBMMTTraining (or its files):
                                                lightgbmmt_model_<task>.txt per task and
                                                model_config.json
           /opt/ml/processing/input/eval_data   rows with the task label columns (CSV, TSV or
                                                Parquet, any sub-folder)
  outputs  /opt/ml/processing/output/eval       eval_predictions.csv: id, each task's label and
                                                prob_<task>, prob_class_0/1 of the main task
           /opt/ml/processing/output/metrics    metrics.json (per task, mean_*, the main task's
                                                under the plain names) and the main task's curves
  env      ID_FIELD (required)
  args     --job_type
"""
import argparse
import os

from steplib import modelfiles, multitask, trainjob

lgb = trainjob.require("lightgbm", "lightgbm>=3.3", "lightgbmmt_model_eval")

MODEL_DIR = "/opt/ml/processing/input/model"
EVAL_DATA_DIR = "/opt/ml/processing/input/eval_data"
EVAL_OUT = "/opt/ml/processing/output/eval"
METRICS_OUT = "/opt/ml/processing/output/metrics"


def main(input_paths, output_paths, environ_vars, job_args):
    config, first = modelfiles.load(input_paths["model_input"], "lightgbmmt", "lightgbmmt_model_0.txt", "LightGBMMTTraining")
    boosters = multitask.lightgbm_boosters(lgb, config, os.path.dirname(first))
    df = modelfiles.read_rows(input_paths["processed_data"])
    return multitask.evaluate(df, config, lambda rows: multitask.lightgbm_predict(boosters, config, rows), environ_vars, output_paths, job_args.job_type)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    main({"model_input": MODEL_DIR, "processed_data": EVAL_DATA_DIR}, {"eval_output": EVAL_OUT, "metrics_output": METRICS_OUT},
         {"ID_FIELD": os.environ["ID_FIELD"]}, args)
