"""Train a small feed-forward PyTorch classifier on the train/val channels.

SageMaker script mode: channels in SM_CHANNEL_TRAIN / SM_CHANNEL_VAL,
hyperparameters as --name value arguments, the model saved to SM_MODEL_DIR.
"""
import argparse
import glob
import json
import os

import pandas as pd
import torch
from torch import nn


def load(channel: str, label: str):
    df = pd.concat(pd.read_csv(f) for f in sorted(glob.glob(os.path.join(channel, "*.csv"))))
    x = torch.tensor(df.drop(columns=[label]).values, dtype=torch.float32)
    y = torch.tensor(df[label].values, dtype=torch.float32).unsqueeze(1)
    return x, y


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--label_name", default="label")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch_size", type=int, default=64)
    p.add_argument("--hidden_size", type=int, default=128)
    p.add_argument("--learning_rate", type=float, default=1e-3)
    args, _ = p.parse_known_args()

    x, y = load(os.environ["SM_CHANNEL_TRAIN"], args.label_name)
    xv, yv = load(os.environ["SM_CHANNEL_VAL"], args.label_name)
    model = nn.Sequential(nn.Linear(x.shape[1], args.hidden_size), nn.ReLU(), nn.Linear(args.hidden_size, 1))
    opt = torch.optim.Adam(model.parameters(), lr=args.learning_rate)
    loss_fn = nn.BCEWithLogitsLoss()
    for epoch in range(args.epochs):
        for i in range(0, len(x), args.batch_size):
            opt.zero_grad()
            loss = loss_fn(model(x[i:i + args.batch_size]), y[i:i + args.batch_size])
            loss.backward()
            opt.step()
        with torch.no_grad():
            print(f"epoch {epoch} val_loss={loss_fn(model(xv), yv).item():.4f}")

    model_dir = os.environ.get("SM_MODEL_DIR", "/opt/ml/model")
    torch.save(model, os.path.join(model_dir, "model.pt"))
    with open(os.path.join(model_dir, "features.json"), "w") as f:
        json.dump({"n_features": int(x.shape[1])}, f)


if __name__ == "__main__":
    main()
