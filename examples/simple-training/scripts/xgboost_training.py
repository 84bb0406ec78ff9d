"""Train an XGBoost binary classifier on the train/val channels.

SageMaker script mode: channels arrive in SM_CHANNEL_TRAIN / SM_CHANNEL_VAL,
hyperparameters as command-line arguments, the model goes to SM_MODEL_DIR.
"""
import argparse
import glob
import os

import pandas as pd
import xgboost as xgb


def load(channel: str, label: str):
    files = sorted(glob.glob(os.path.join(channel, "*.csv")))
    df = pd.concat(pd.read_csv(f) for f in files)
    return xgb.DMatrix(df.drop(columns=[label]), label=df[label])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--label_name", default="label")
    parser.add_argument("--eta", type=float, default=0.1)
    parser.add_argument("--max_depth", type=int, default=6)
    parser.add_argument("--num_round", type=int, default=100)
    parser.add_argument("--objective", default="binary:logistic")
    args, _ = parser.parse_known_args()

    train = load(os.environ["SM_CHANNEL_TRAIN"], args.label_name)
    val = load(os.environ["SM_CHANNEL_VAL"], args.label_name)
    params = {"eta": args.eta, "max_depth": args.max_depth, "objective": args.objective, "eval_metric": "auc"}
    booster = xgb.train(params, train, args.num_round, evals=[(val, "val")])
    booster.save_model(os.path.join(os.environ.get("SM_MODEL_DIR", "/opt/ml/model"), "xgboost-model.json"))


if __name__ == "__main__":
    main()
