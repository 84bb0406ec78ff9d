"""A trained model's input matrix, built from raw rows the way its trainer built it, as the
trainer recorded it in model_config.json. Evaluation, batch inference and the trainers' own
test pass use the same function, so a model scores the same rows the same way everywhere.
"""
import numpy as np
import pandas as pd

from steplib import labels


def check_fields(df, fields):
    missing = [f for f in fields if f not in df.columns]
    if missing:
        raise SystemExit("the data lacks the model's field(s) %s" % missing)


def risk_value(table, default):
    """The risk-table lookup of one raw value (None when the table does not know it)."""
    bins = table.get("bins", {})
    return lambda v: bins.get(labels.category_key(v), bins.get(str(v), default))


def lightgbm_matrix(config, df):
    """LightGBM's input (LightGBMTraining, LightGBMMTTraining): feature_columns in order, numeric
    fields imputed with impute_dict, categorical fields as their training codes
    (categorical_mappings, NaN when unseen) or risk values (risk_tables; a value already mapped
    to a number is kept)."""
    check_fields(df, config["feature_columns"])
    cols = []
    for f in config["feature_columns"]:
        mapping = config.get("categorical_mappings", {}).get(f)
        table = config.get("risk_tables", {}).get(f)
        if mapping is not None:
            cols.append(df[f].map(lambda v: mapping.get(labels.category_key(v), np.nan)).astype("float64").to_numpy())
        elif table and not pd.api.types.is_numeric_dtype(df[f]):
            cols.append(df[f].map(risk_value(table, float(table.get("default_bin", 0.0)))).astype("float64").to_numpy())
        else:
            x = pd.to_numeric(df[f], errors="coerce").astype("float64")
            impute = config.get("impute_dict", {}).get(f)
            cols.append((x if impute is None else x.fillna(impute)).to_numpy())
    return np.stack(cols, axis=1) if cols else np.zeros((len(df), 0))


def text_value(v):
    """A text cell as a string: "" when missing."""
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return ""
    return str(v)


def token_matrix(tokenizer, texts, length):
    """float32 [rows, length]: each text's token ids (steplib.bpe), padded or cut to length."""
    out = np.zeros((len(texts), length), dtype="float32")
    for i, t in enumerate(texts.tolist() if hasattr(texts, "tolist") else texts):
        out[i] = tokenizer.encode(text_value(t), length)
    return out


def pytorch_tokenizer(config, model_dir):
    """The tokenizer of a PyTorchTraining text model (tokenizer.json beside model.pt), or None
    for a model without a text field."""
    if not config.get("text_field"):
        return None
    import os

    from steplib import bpe

    path = os.path.join(model_dir, config.get("tokenizer_file") or "tokenizer.json")
    if not os.path.exists(path):
        raise SystemExit("the model reads text field %r but its archive holds no %s" % (config["text_field"], os.path.basename(path)))
    return bpe.load(path)


def pytorch_matrix(config, df, tokenizer=None):
    """PyTorchTraining's network input (float32): numeric_fields as floats (NaN when missing, the
    network imputes; a risk-mapped field through its table when the value is a category), then
    embedding_fields as vocabulary indices (0: unseen), then for a text model the text field's
    max_sequence_length token ids (tokenizer: pytorch_tokenizer's)."""
    text = config.get("text_field") or ""
    check_fields(df, config["numeric_fields"] + config["embedding_fields"] + ([text] if text else []))
    if text and tokenizer is None:
        raise SystemExit("the model reads text field %r: its tokenizer is needed" % text)
    cols = []
    for f in config["numeric_fields"]:
        table = config.get("risk_tables", {}).get(f)
        if table:
            num = pd.to_numeric(df[f], errors="coerce")
            mapped = df[f].map(risk_value(table, None))
            cols.append(mapped.where(mapped.notna(), num).fillna(float(table.get("default_bin", 0.0))).astype("float64").to_numpy())
        else:
            cols.append(pd.to_numeric(df[f], errors="coerce").astype("float64").to_numpy())
    for f in config["embedding_fields"]:
        index = {v: i + 1 for i, v in enumerate(config["vocabularies"][f])}
        cols.append(df[f].map(lambda v: index.get(labels.category_key(v), 0)).to_numpy(dtype="float64"))
    m = np.stack(cols, axis=1).astype("float32") if cols else np.zeros((len(df), 0), dtype="float32")
    if text:
        m = np.concatenate([m, token_matrix(tokenizer, df[text], int(config["max_sequence_length"]))], axis=1)
    return m


def torch_device(name):
    """The torch device DEVICE names: auto (a GPU when one is visible), cpu or cuda (which must
    be visible)."""
    import torch

    if name == "cuda" or (name == "auto" and torch.cuda.is_available()):
        if not torch.cuda.is_available():
            raise SystemExit("DEVICE=cuda but no GPU is visible")
        return torch.device("cuda")
    return torch.device("cpu")


def class_probabilities(raw, n_classes):
    """A booster's predictions as [rows, classes] probabilities: a binary model's single column
    (the probability of class 1) becomes two."""
    raw = np.asarray(raw, dtype="float64")
    if raw.ndim == 1:
        raw = np.stack([1 - raw, raw], axis=1)
    return raw.reshape(len(raw), n_classes)
