"""Train a small feed-forward network on tabular data (PyTorchTraining).

Runs in the SageMaker PyTorch training container (script mode); needs torch, numpy and pandas,
and scikit-learn for the metrics.

Contract:
  inputs   /opt/ml/input/config/hyperparameters.json       the job's hyperparameters (typed config
                                                           fields; each value JSON-encoded as text)
           /opt/ml/input/data/{train,val,test}             CSV, TSV or Parquet files
           /opt/ml/input/data/hyperparameters_s3_uri       optional hyperparameters.json; the job's
                                                           hyperparameters override it key by key
           /opt/ml/input/data/model_artifacts_input        optional impute_dict.json and
                                                           risk_table_map.json of the preprocessing steps,
                                                           tokenizer.json of TokenizerTraining (any sub-folder)
  outputs  /opt/ml/model        model.pt (TorchScript: imputation, scaling, embeddings, the text
                                encoder and the network), model_config.json (fields, classes, category
                                vocabularies, risk tables, text field), hyperparameters.json, and for a
                                text model tokenizer.json and tokenizer_bpe.py (the code that encodes
                                with it); SageMaker packs it into model.tar.gz
           /opt/ml/output/data  val/ and test/: predictions.csv (id, label, prob_class_*), metrics.json
  env      USE_PRECOMPUTED_IMPUTATION   the data is already imputed; keep the artifacts' values for serving
           USE_PRECOMPUTED_RISK_TABLES  categorical fields are already risk-mapped (numeric)
           ENABLE_TRUE_STREAMING        read the training files chunk by chunk instead of whole
           NUM_WORKERS_PER_RANK, USE_PERSISTENT_WORKERS  DataLoader workers
           REGION                       region code, recorded in model_config.json

Hyperparameters: label_name, tab_field_list (required); id_name, cat_field_list,
multiclass_categories, num_class, class_weights, hidden_dims, embedding_dim, dropout, lr,
batch_size, max_epochs, optimizer, weight_decay, early_stop_patience, seed; text_name (a text
column: the model then encodes its byte-pair tokens), text_model (bag: averaged token embeddings,
lstm: a bidirectional LSTM, transformer: two encoder layers), max_sequence_length,
text_embedding_dim, tokenizer_vocab_size (when model_artifacts_input holds no tokenizer.json, one
is trained here on at most 100000 training texts). The command-line
arguments the training toolkit adds (--name value per hyperparameter) are ignored: the file is
read instead. Labels are mapped to class indices (multiclass_categories gives the order; without
it 0 and 1 when every label is 0 or 1, else the sorted distinct training labels).
"""
import glob
import math
import os
import shutil

import numpy as np
import pandas as pd
import torch
from torch import nn

from steplib import bpe, features, labels, trainjob

HPARAMS_FILE = "/opt/ml/input/config/hyperparameters.json"
DATA_DIR = "/opt/ml/input/data"
HPARAMS_INPUT_DIR = "/opt/ml/input/data/hyperparameters_s3_uri"
ARTIFACTS_DIR = "/opt/ml/input/data/model_artifacts_input"
MODEL_DIR = "/opt/ml/model"
EVAL_DIR = "/opt/ml/output/data"
FAILURE_FILE = "/opt/ml/output/failure"
MAX_TOKENIZER_TEXTS = 100000
TOKENIZER_CODE = "tokenizer_bpe.py"
TEXT_MODELS = ("bag", "lstm", "transformer")

LIST_KEYS = ("tab_field_list", "cat_field_list", "multiclass_categories", "class_weights", "hidden_dims", "full_field_list")
DEFAULTS = {
    "id_name": "id",
    "cat_field_list": [],
    "num_class": None,
    "multiclass_categories": [],
    "class_weights": [],
    "hidden_dims": [64, 32],
    "embedding_dim": 8,
    "dropout": 0.1,
    "lr": 0.01,
    "batch_size": 64,
    "max_epochs": 10,
    "optimizer": "adam",
    "weight_decay": 0.0,
    "early_stop_patience": 3,
    "seed": 42,
    "text_name": "",
    "text_model": "lstm",
    "max_sequence_length": 64,
    "text_embedding_dim": 64,
    "tokenizer_vocab_size": 4000,
}


def load_hyperparameters():
    hp = trainjob.load_hyperparameters((os.path.join(HPARAMS_INPUT_DIR, "hyperparameters.json"), HPARAMS_FILE),
                                       ("label_name", "tab_field_list"), DEFAULTS, LIST_KEYS,
                                       ("embedding_dim", "batch_size", "max_epochs", "early_stop_patience", "seed",
                                        "max_sequence_length", "text_embedding_dim", "tokenizer_vocab_size"),
                                       ("dropout", "lr", "weight_decay"))
    hp["hidden_dims"] = [int(h) for h in hp["hidden_dims"]]
    if hp["optimizer"] not in ("adam", "adamw", "sgd"):
        raise SystemExit("hyperparameter optimizer=%r: want adam, adamw or sgd" % hp["optimizer"])
    if hp["text_name"]:
        if hp["text_model"] not in TEXT_MODELS:
            raise SystemExit("hyperparameter text_model=%r: want %s" % (hp["text_model"], ", ".join(TEXT_MODELS)))
        if hp["max_sequence_length"] < 3:
            raise SystemExit("hyperparameter max_sequence_length=%d: want at least 3 (<cls>, a token, <sep>)" % hp["max_sequence_length"])
        if hp["text_embedding_dim"] < 2:
            raise SystemExit("hyperparameter text_embedding_dim=%d: want at least 2" % hp["text_embedding_dim"])
        if hp["text_name"] in hp["tab_field_list"] or hp["text_name"] in hp["cat_field_list"]:
            raise SystemExit("hyperparameter text_name=%r is also in tab_field_list or cat_field_list" % hp["text_name"])
    return hp


def numeric_column(series):
    return pd.to_numeric(series, errors="coerce").astype("float64")


class Preprocessor(object):
    """What turns a raw row into the network's input vector; saved in model_config.json."""

    def __init__(self, hp, precomputed_imputation, precomputed_risk):
        self.tab = list(hp["tab_field_list"])
        self.cat = list(hp["cat_field_list"])
        self.precomputed_imputation = precomputed_imputation
        self.precomputed_risk = precomputed_risk
        self.numeric_fields = self.tab + (self.cat if precomputed_risk else [])
        self.embedding_fields = [] if precomputed_risk else list(self.cat)
        self.sums = {f: 0.0 for f in self.numeric_fields}
        self.squares = {f: 0.0 for f in self.numeric_fields}
        self.counts = {f: 0 for f in self.numeric_fields}
        self.levels = {f: {} for f in self.embedding_fields}
        self.impute = {}
        self.risk_tables = {}
        self.text = hp.get("text_name") or ""
        self.text_len = int(hp.get("max_sequence_length") or 64) if self.text else 0
        self.text_model = hp.get("text_model", "") if self.text else ""
        self.texts = []  # a sample of the training texts, for a tokenizer trained here
        self.tokenizer = None

    def observe(self, df):
        """Accumulate the statistics of one chunk of training rows."""
        for f in self.numeric_fields:
            x = numeric_column(df[f]).to_numpy()
            x = x[~np.isnan(x)]
            self.sums[f] += float(x.sum())
            self.squares[f] += float((x * x).sum())
            self.counts[f] += int(x.size)
        for f in self.embedding_fields:
            for v, n in df[f].map(labels.category_key).value_counts().items():
                self.levels[f][v] = self.levels[f].get(v, 0) + int(n)
        if self.text and len(self.texts) < MAX_TOKENIZER_TEXTS:
            self.texts.extend(str(t) for t in df[self.text].dropna().tolist()[: MAX_TOKENIZER_TEXTS - len(self.texts)])

    def finish(self, artifacts, hp):
        self.mean, self.std = {}, {}
        for f in self.numeric_fields:
            n = self.counts[f]
            m = self.sums[f] / n if n else 0.0
            var = self.squares[f] / n - m * m if n else 0.0
            self.mean[f] = m
            self.std[f] = math.sqrt(var) if var > 1e-12 else 1.0
        self.impute = dict(self.mean)
        if self.precomputed_imputation and "impute_dict" in artifacts:
            for f, v in artifacts["impute_dict"].items():
                if f in self.impute:
                    self.impute[f] = float(v)
        if self.precomputed_risk and "risk_table_map" in artifacts:
            self.risk_tables = {f: t for f, t in artifacts["risk_table_map"].items() if f in self.cat}
        self.vocab = {f: sorted(self.levels[f]) for f in self.embedding_fields}
        self.index = {f: {v: i + 1 for i, v in enumerate(self.vocab[f])} for f in self.embedding_fields}
        if self.text:
            found = sorted(glob.glob(os.path.join(ARTIFACTS_DIR, "**", "tokenizer.json"), recursive=True))
            if found:
                self.tokenizer = bpe.load(found[0])
                trainjob.log("tokenizer from %s (%d tokens)" % (found[0], len(self.tokenizer.vocab)))
            else:
                vocab, merges = bpe.train(self.texts, int(hp.get("tokenizer_vocab_size") or 4000))
                self.tokenizer = bpe.Tokenizer(vocab, merges)
                trainjob.log("no tokenizer in model_artifacts_input: trained one on %d texts (%d tokens)" % (len(self.texts), len(vocab)))

    def matrix(self, df):
        """float32 [rows, numeric + embedding fields]: NaN where a numeric value is missing, the
        category's index (0: unseen) for an embedded field."""
        cols = [numeric_column(df[f]).to_numpy() for f in self.numeric_fields]
        for f in self.embedding_fields:
            idx = self.index[f]
            cols.append(df[f].map(lambda v: idx.get(labels.category_key(v), 0)).to_numpy(dtype="float64"))
        m = np.stack(cols, axis=1).astype("float32") if cols else np.zeros((len(df), 0), dtype="float32")
        if self.text:
            m = np.concatenate([m, features.token_matrix(self.tokenizer, df[self.text], self.text_len)], axis=1)
        return m

    def config(self):
        return {
            "numeric_fields": self.numeric_fields,
            "embedding_fields": self.embedding_fields,
            "vocabularies": self.vocab,
            "impute_dict": self.impute,
            "risk_tables": self.risk_tables,
            "text_field": self.text,
            "max_sequence_length": self.text_len,
            "tokenizer_file": "tokenizer.json" if self.text else "",
            "tokenizer_code": TOKENIZER_CODE if self.text else "",
            "text_model": self.text_model,
        }


class BagEncoder(nn.Module):
    """A text's token embeddings averaged (padding left out)."""

    def __init__(self, vocab, dim, max_len, dropout):
        super(BagEncoder, self).__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=0)

    def forward(self, tokens):
        mask = (tokens != 0).unsqueeze(-1).float()
        return (self.emb(tokens) * mask).sum(1) / mask.sum(1).clamp(min=1.0)


class LSTMEncoder(nn.Module):
    """A bidirectional LSTM over the token embeddings, its outputs averaged over the text."""

    def __init__(self, vocab, dim, max_len, dropout):
        super(LSTMEncoder, self).__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=0)
        self.lstm = nn.LSTM(dim, dim // 2, batch_first=True, bidirectional=True)

    def forward(self, tokens):
        mask = (tokens != 0).unsqueeze(-1).float()
        h, _ = self.lstm(self.emb(tokens))
        return (h * mask).sum(1) / mask.sum(1).clamp(min=1.0)


class TransformerTextEncoder(nn.Module):
    """Two transformer encoder layers over token and position embeddings, averaged over the
    text (padding masked)."""

    def __init__(self, vocab, dim, max_len, dropout):
        super(TransformerTextEncoder, self).__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=0)
        self.pos = nn.Embedding(max_len, dim)
        layer = nn.TransformerEncoderLayer(dim, 4 if dim % 4 == 0 else 1, dim * 2, dropout, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, tokens):
        pad = tokens == 0
        positions = torch.arange(tokens.size(1), device=tokens.device).unsqueeze(0).expand_as(tokens)
        h = self.encoder(self.emb(tokens) + self.pos(positions), src_key_padding_mask=pad)
        # the evaluation fast path may drop the trailing positions every text pads
        mask = (~pad)[:, : h.size(1)].unsqueeze(-1).float()
        return (h * mask).sum(1) / mask.sum(1).clamp(min=1.0)


TEXT_ENCODERS = {"bag": BagEncoder, "lstm": LSTMEncoder, "transformer": TransformerTextEncoder}


class TabularNet(nn.Module):
    """Imputation and scaling of the numeric inputs, one embedding per categorical field, a text
    encoder over a text field's token ids (when the model has one), hidden layers, then one logit
    per class. Input: float [rows, numeric values + category indices + token ids]. embed() returns
    the last hidden layer (the inference step's EMBEDDING_MODE)."""

    def __init__(self, impute, mean, std, cardinalities, embedding_dim, hidden_dims, n_classes, dropout,
                 text_model="", text_vocab=0, text_dim=0, text_len=0):
        super(TabularNet, self).__init__()
        self.n_numeric = len(mean)
        self.n_categorical = len(cardinalities)
        self.text_len = text_len
        self.register_buffer("impute", torch.tensor(impute, dtype=torch.float32))
        self.register_buffer("mean", torch.tensor(mean, dtype=torch.float32))
        self.register_buffer("std", torch.tensor(std, dtype=torch.float32))
        self.embeddings = nn.ModuleList([nn.Embedding(c + 1, embedding_dim) for c in cardinalities])
        self.text = TEXT_ENCODERS[text_model](text_vocab, text_dim, text_len, dropout) if text_len else nn.Identity()
        layers = []
        width = self.n_numeric + embedding_dim * len(cardinalities) + (text_dim if text_len else 0)
        for h in hidden_dims:
            layers += [nn.Linear(width, h), nn.ReLU(), nn.Dropout(dropout)]
            width = h
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(width, n_classes)

    @torch.jit.export
    def embed(self, x):
        num = x[:, : self.n_numeric]
        num = torch.where(torch.isnan(num), self.impute.expand_as(num), num)
        parts = [(num - self.mean) / self.std]
        i = 0
        for emb in self.embeddings:
            parts.append(emb(x[:, self.n_numeric + i].long()))
            i += 1
        if self.text_len > 0:
            start = self.n_numeric + self.n_categorical
            parts.append(self.text(x[:, start:start + self.text_len].long()))
        return self.body(torch.cat(parts, 1))

    def forward(self, x):
        return self.head(self.embed(x))


class ChunkStream(torch.utils.data.IterableDataset):
    """Training rows read file by file, chunk by chunk; DataLoader workers split the chunks."""

    def __init__(self, prep, classes, label, chunksize):
        super(ChunkStream, self).__init__()
        self.prep, self.classes, self.label, self.chunksize = prep, classes, label, chunksize

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        for i, chunk in enumerate(trainjob.iter_channel(DATA_DIR, "train", self.chunksize)):
            if info is not None and i % info.num_workers != info.id:
                continue
            x = self.prep.matrix(chunk)
            y = self.classes.encode(chunk[self.label])
            keep = y >= 0
            for xi, yi in zip(x[keep], y[keep]):
                yield torch.from_numpy(xi), int(yi)


def predict(model, x, device, batch=4096):
    model.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(x), batch):
            out.append(torch.softmax(model(torch.from_numpy(x[i : i + batch]).to(device)), 1).cpu().numpy())
    return np.concatenate(out) if out else np.zeros((0, 0))


def main(environ_vars):
    hp = load_hyperparameters()
    torch.manual_seed(hp["seed"])
    np.random.seed(hp["seed"])
    streaming = trainjob.flag(environ_vars["ENABLE_TRUE_STREAMING"])
    workers = trainjob.count("NUM_WORKERS_PER_RANK", environ_vars["NUM_WORKERS_PER_RANK"])
    persistent = trainjob.flag(environ_vars["USE_PERSISTENT_WORKERS"]) and workers > 0
    precomputed_imputation = trainjob.flag(environ_vars["USE_PRECOMPUTED_IMPUTATION"])
    precomputed_risk = trainjob.flag(environ_vars["USE_PRECOMPUTED_RISK_TABLES"])
    label = hp["label_name"]
    artifacts = trainjob.load_artifacts(ARTIFACTS_DIR, ("impute_dict", "risk_table_map"))

    val_df, test_df = trainjob.read_channel(DATA_DIR, "val"), trainjob.read_channel(DATA_DIR, "test")
    if val_df is None:
        raise SystemExit("no data files under %s/val" % DATA_DIR)
    prep = Preprocessor(hp, precomputed_imputation, precomputed_risk)
    needed = prep.tab + prep.cat + [label] + ([prep.text] if prep.text else [])
    seen_labels, full_fields, n_train = [], None, 0
    if streaming:
        trainjob.log("streaming the training files (ENABLE_TRUE_STREAMING)")
        for chunk in trainjob.iter_channel(DATA_DIR, "train", 10000):
            trainjob.check_columns(chunk, needed, "train")
            full_fields = full_fields or list(chunk.columns)
            prep.observe(chunk)
            seen_labels.extend(chunk[label].dropna().tolist())
            n_train += len(chunk)
        train_df = None
    else:
        train_df = trainjob.read_channel(DATA_DIR, "train")
        if train_df is not None:
            trainjob.check_columns(train_df, needed, "train")
            full_fields = list(train_df.columns)
            prep.observe(train_df)
            seen_labels = train_df[label].dropna().tolist()
            n_train = len(train_df)
    if not n_train:
        raise SystemExit("no training rows under %s/train" % DATA_DIR)
    if precomputed_risk:
        for f in prep.cat:
            if not pd.api.types.is_numeric_dtype(val_df[f]):
                raise SystemExit("USE_PRECOMPUTED_RISK_TABLES is true but %s is not numeric: map it with RiskTableMapping first" % f)
    if not prep.text and glob.glob(os.path.join(ARTIFACTS_DIR, "**", "tokenizer.json"), recursive=True):
        raise SystemExit("model_artifacts_input holds a tokenizer.json (TokenizerTraining) but text_name is empty: "
                         "set text_name to the text column the tokenizer was trained on")
    prep.finish(artifacts, hp)
    classes = labels.Classes(hp, seen_labels)
    n_classes = len(classes.names)
    trainjob.log("%d training rows, %d classes %s, %d numeric and %d embedded fields" % (n_train, n_classes, classes.names, len(prep.numeric_fields), len(prep.embedding_fields)))

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = TabularNet(
        [prep.impute[f] for f in prep.numeric_fields],
        [prep.mean[f] for f in prep.numeric_fields],
        [prep.std[f] for f in prep.numeric_fields],
        [len(prep.vocab[f]) for f in prep.embedding_fields],
        hp["embedding_dim"], hp["hidden_dims"], n_classes, hp["dropout"],
        hp["text_model"], len(prep.tokenizer.vocab) if prep.text else 0, hp["text_embedding_dim"], prep.text_len,
    ).to(device)
    weights = None
    if hp["class_weights"]:
        if len(hp["class_weights"]) != n_classes:
            raise SystemExit("class_weights has %d values for %d classes" % (len(hp["class_weights"]), n_classes))
        weights = torch.tensor(hp["class_weights"], dtype=torch.float32, device=device)
    loss_fn = nn.CrossEntropyLoss(weight=weights)
    if hp["optimizer"] == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=hp["lr"], momentum=0.9, weight_decay=hp["weight_decay"])
    elif hp["optimizer"] == "adamw":
        opt = torch.optim.AdamW(model.parameters(), lr=hp["lr"], weight_decay=hp["weight_decay"])
    else:
        opt = torch.optim.Adam(model.parameters(), lr=hp["lr"], weight_decay=hp["weight_decay"])

    if streaming:
        dataset = ChunkStream(prep, classes, label, max(hp["batch_size"] * 16, 1024))
        loader_args = {}
    else:
        y_train = classes.encode(train_df[label])
        keep = y_train >= 0
        dataset = torch.utils.data.TensorDataset(torch.from_numpy(prep.matrix(train_df)[keep]), torch.from_numpy(y_train[keep]))
        loader_args = {"shuffle": True, "generator": torch.Generator().manual_seed(hp["seed"])}
    loader = torch.utils.data.DataLoader(dataset, batch_size=hp["batch_size"], num_workers=workers, persistent_workers=persistent, **loader_args)

    trainjob.check_columns(val_df, needed, "val")
    x_val, y_val = prep.matrix(val_df), classes.encode(val_df[label])
    if (y_val < 0).any():
        raise SystemExit("val has labels outside the classes %s" % classes.names)
    best, best_state, bad = None, None, 0
    for epoch in range(hp["max_epochs"]):
        model.train()
        total, rows = 0.0, 0
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            total += float(loss) * len(yb)
            rows += len(yb)
        model.eval()
        with torch.no_grad():
            val_loss = float(loss_fn(model(torch.from_numpy(x_val).to(device)), torch.from_numpy(y_val).to(device)))
        trainjob.log("epoch %d train_loss=%.5f val_loss=%.5f" % (epoch, total / max(rows, 1), val_loss))
        if best is None or val_loss < best - 1e-6:
            best, bad = val_loss, 0
            best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        else:
            bad += 1
            if hp["early_stop_patience"] and bad >= hp["early_stop_patience"]:
                trainjob.log("early stop after epoch %d (best val_loss=%.5f)" % (epoch, best))
                break
    model.load_state_dict(best_state)
    model.eval()
    model.cpu()
    device = torch.device("cpu")

    os.makedirs(MODEL_DIR, exist_ok=True)
    torch.jit.script(model).save(os.path.join(MODEL_DIR, "model.pt"))
    hp["full_field_list"] = hp.get("full_field_list") or full_fields
    hp["num_class"] = n_classes
    config = {
        "framework": "pytorch",
        "model_file": "model.pt",
        "label_name": label,
        "id_name": hp["id_name"],
        "classes": classes.names,
        "binary": n_classes == 2,
        "tab_field_list": prep.tab,
        "cat_field_list": prep.cat,
        "full_field_list": hp["full_field_list"],
        "region": environ_vars["REGION"],
    }
    config.update(prep.config())
    trainjob.write_json(os.path.join(MODEL_DIR, "model_config.json"), config)
    if prep.text:
        # The tokenizer and the code that encodes with it travel with the model: the serving
        # handler loads both from the model directory.
        prep.tokenizer.save(os.path.join(MODEL_DIR, "tokenizer.json"))
        shutil.copyfile(bpe.__file__, os.path.join(MODEL_DIR, TOKENIZER_CODE))
    trainjob.write_json(os.path.join(MODEL_DIR, "hyperparameters.json"), hp)
    trainjob.log("saved model.pt, model_config.json and hyperparameters.json to %s" % MODEL_DIR)

    trainjob.write_split(EVAL_DIR, "val", val_df, y_val, predict(model, x_val, device), hp["id_name"], label)
    if test_df is not None:
        trainjob.check_columns(test_df, needed, "test")
        y_test = classes.encode(test_df[label])
        keep = y_test >= 0
        trainjob.write_split(EVAL_DIR, "test", test_df[keep], y_test[keep], predict(model, prep.matrix(test_df[keep]), device), hp["id_name"], label)


if __name__ == "__main__":
    trainjob.run(main, FAILURE_FILE, "pytorch_training", {
        "USE_PRECOMPUTED_IMPUTATION": os.environ.get("USE_PRECOMPUTED_IMPUTATION", "false"),
        "USE_PRECOMPUTED_RISK_TABLES": os.environ.get("USE_PRECOMPUTED_RISK_TABLES", "false"),
        "ENABLE_TRUE_STREAMING": os.environ.get("ENABLE_TRUE_STREAMING", "false"),
        "NUM_WORKERS_PER_RANK": os.environ.get("NUM_WORKERS_PER_RANK", "0"),
        "USE_PERSISTENT_WORKERS": os.environ.get("USE_PERSISTENT_WORKERS", "false"),
        "REGION": os.environ.get("REGION", "NA"),
    })
