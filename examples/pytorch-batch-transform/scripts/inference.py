"""SageMaker PyTorch inference handlers for the model pytorch_training.py saves.

The batch transform sends CSV lines (the id column dropped by the input
filter); each prediction is the positive-class probability.
"""
import io
import os

import numpy as np
import torch


def model_fn(model_dir):
    model = torch.load(os.path.join(model_dir, "model.pt"), map_location="cpu")
    model.eval()
    return model


def input_fn(body, content_type):
    if content_type != "text/csv":
        raise ValueError("unsupported content type " + content_type)
    text = body.decode() if isinstance(body, bytes) else body
    return torch.tensor(np.loadtxt(io.StringIO(text), delimiter=",", ndmin=2), dtype=torch.float32)


def predict_fn(data, model):
    with torch.no_grad():
        return torch.sigmoid(model(data)).numpy()


def output_fn(prediction, accept):
    return "\n".join(str(float(p[0])) for p in prediction), "text/csv"
