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
                                                           risk_table_map.json of the preprocessing steps
  outputs  /opt/ml/model        model.pt (TorchScript: imputation, scaling, embeddings and the network),
                                model_config.json (fields, classes, category vocabularies, risk tables),
                                hyperparameters.json; SageMaker packs it into model.tar.gz
           /opt/ml/output/data  val/ and test/: predictions.csv (id, label, prob_class_*), metrics.json
  env      USE_PRECOMPUTED_IMPUTATION   the data is already imputed; keep the artifacts' values for serving
           USE_PRECOMPUTED_RISK_TABLES  categorical fields are already risk-mapped (numeric)
           ENABLE_TRUE_STREAMING        read the training files chunk by chunk instead of whole
           NUM_WORKERS_PER_RANK, USE_PERSISTENT_WORKERS  DataLoader workers
           REGION                       region code, recorded in model_config.json

Hyperparameters: label_name, tab_field_list (required); id_name, cat_field_list,
multiclass_categories, num_class, class_weights, hidden_dims, embedding_dim, dropout, lr,
batch_size, max_epochs, optimizer, weight_decay, early_stop_patience, seed. The command-line
arguments the training toolkit adds (--name value per hyperparameter) are ignored: the file is
read instead. Labels are mapped to class indices (multiclass_categories gives the order; without
it 0 and 1 when every label is 0 or 1, else the sorted distinct training labels).
"""
import glob
import json
import math
import os
import sys

import numpy as np
import pandas as pd
import torch
from torch import nn

HPARAMS_FILE = "/opt/ml/input/config/hyperparameters.json"
DATA_DIR = "/opt/ml/input/data"
HPARAMS_INPUT_DIR = "/opt/ml/input/data/hyperparameters_s3_uri"
ARTIFACTS_DIR = "/opt/ml/input/data/model_artifacts_input"
MODEL_DIR = "/opt/ml/model"
EVAL_DIR = "/opt/ml/output/data"
FAILURE_FILE = "/opt/ml/output/failure"

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
}


def log(msg):
    print(msg, flush=True)


def write_failure(reason):
    """SageMaker shows /opt/ml/output/failure as the job's FailureReason."""
    print("pytorch_training: %s" % reason, file=sys.stderr)
    try:
        with open(FAILURE_FILE, "w", encoding="utf-8") as f:
            f.write(str(reason)[:1024])
    except OSError:
        pass


def flag(value):
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def count(name, value):
    try:
        return int(str(value).strip() or 0)
    except ValueError:
        raise SystemExit("environment variable %s=%r is not an integer" % (name, value))


def decode(value):
    """A hyperparameter as SageMaker passes it: JSON-encoded text, else the text itself."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def load_hyperparameters():
    hp = {}
    shipped = os.path.join(HPARAMS_INPUT_DIR, "hyperparameters.json")
    for path in (shipped, HPARAMS_FILE):
        if os.path.exists(path):
            log("hyperparameters from %s" % path)
            for k, v in read_json(path).items():
                if not k.startswith("sagemaker_"):
                    hp[k] = decode(v)
    for k in LIST_KEYS:
        if isinstance(hp.get(k), str):  # legacy comma-separated lists
            hp[k] = [x.strip() for x in hp[k].split(",") if x.strip()]
    missing = [k for k in ("label_name", "tab_field_list") if k not in hp]
    if missing:
        raise SystemExit("hyperparameter(s) %s required (set the config field(s) of the training step)" % ", ".join(missing))
    out = dict(DEFAULTS)
    out.update(hp)
    for k in ("embedding_dim", "batch_size", "max_epochs", "early_stop_patience", "seed"):
        out[k] = int(out[k])
    for k in ("dropout", "lr", "weight_decay"):
        out[k] = float(out[k])
    # older hyperparameter files: num_classes / is_binary
    if out.get("num_class") is None and out.get("num_classes") is not None:
        out["num_class"] = out["num_classes"]
    if out.get("num_class") is None and str(out.get("is_binary", "")).lower() == "true":
        out["num_class"] = 2
    if out.get("num_class") is not None:
        out["num_class"] = int(out["num_class"])
    out["hidden_dims"] = [int(h) for h in out["hidden_dims"]]
    out["class_weights"] = [float(w) for w in out["class_weights"]]
    if out["optimizer"] not in ("adam", "adamw", "sgd"):
        raise SystemExit("hyperparameter optimizer=%r: want adam, adamw or sgd" % out["optimizer"])
    return out


def data_files(folder):
    files = []
    for ext in ("csv", "tsv", "parquet"):
        files += glob.glob(os.path.join(folder, "**", "*." + ext), recursive=True)
    return sorted(files)


def read_file(path, chunksize=None):
    if path.endswith(".parquet"):
        df = pd.read_parquet(path)
        return [df] if chunksize else df
    sep = "\t" if path.endswith(".tsv") else ","
    return pd.read_csv(path, sep=sep, chunksize=chunksize)


def read_split(name):
    files = data_files(os.path.join(DATA_DIR, name))
    if not files:
        return None
    return pd.concat([read_file(p) for p in files], ignore_index=True)


def iter_chunks(name, chunksize):
    for path in data_files(os.path.join(DATA_DIR, name)):
        for chunk in read_file(path, chunksize):
            yield chunk


def category_key(v):
    """One spelling per category or label value: 1, 1.0 and "1" are the same; missing is ""."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    s = str(v).strip()
    try:
        f = float(s)
        if f.is_integer():
            return str(int(f))
    except ValueError:
        pass
    return s


def numeric_column(series):
    return pd.to_numeric(series, errors="coerce").astype("float64")


def load_artifacts():
    """impute_dict and risk_table_map written by MissingValueImputation / RiskTableMapping."""
    found = {}
    for name in ("impute_dict", "risk_table_map"):
        path = os.path.join(ARTIFACTS_DIR, name + ".json")
        if os.path.exists(path):
            found[name] = read_json(path)
            log("artifact %s from %s" % (name, path))
        elif os.path.exists(os.path.join(ARTIFACTS_DIR, name + ".pkl")):
            import pickle

            with open(os.path.join(ARTIFACTS_DIR, name + ".pkl"), "rb") as f:
                found[name] = pickle.load(f)
            log("artifact %s from %s.pkl" % (name, name))
    return found


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

    def observe(self, df):
        """Accumulate the statistics of one chunk of training rows."""
        for f in self.numeric_fields:
            x = numeric_column(df[f]).to_numpy()
            x = x[~np.isnan(x)]
            self.sums[f] += float(x.sum())
            self.squares[f] += float((x * x).sum())
            self.counts[f] += int(x.size)
        for f in self.embedding_fields:
            for v, n in df[f].map(category_key).value_counts().items():
                self.levels[f][v] = self.levels[f].get(v, 0) + int(n)

    def finish(self, artifacts):
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

    def matrix(self, df):
        """float32 [rows, numeric + embedding fields]: NaN where a numeric value is missing, the
        category's index (0: unseen) for an embedded field."""
        cols = [numeric_column(df[f]).to_numpy() for f in self.numeric_fields]
        for f in self.embedding_fields:
            idx = self.index[f]
            cols.append(df[f].map(lambda v: idx.get(category_key(v), 0)).to_numpy(dtype="float64"))
        if not cols:
            return np.zeros((len(df), 0), dtype="float32")
        return np.stack(cols, axis=1).astype("float32")

    def config(self):
        return {
            "numeric_fields": self.numeric_fields,
            "embedding_fields": self.embedding_fields,
            "vocabularies": self.vocab,
            "impute_dict": self.impute,
            "risk_tables": self.risk_tables,
        }


class TabularNet(nn.Module):
    """Imputation and scaling of the numeric inputs, one embedding per categorical field, hidden
    layers, then one logit per class. Input: float [rows, numeric values + category indices].
    embed() returns the last hidden layer (the inference step's EMBEDDING_MODE)."""

    def __init__(self, impute, mean, std, cardinalities, embedding_dim, hidden_dims, n_classes, dropout):
        super(TabularNet, self).__init__()
        self.n_numeric = len(mean)
        self.register_buffer("impute", torch.tensor(impute, dtype=torch.float32))
        self.register_buffer("mean", torch.tensor(mean, dtype=torch.float32))
        self.register_buffer("std", torch.tensor(std, dtype=torch.float32))
        self.embeddings = nn.ModuleList([nn.Embedding(c + 1, embedding_dim) for c in cardinalities])
        layers = []
        width = self.n_numeric + embedding_dim * len(cardinalities)
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
        return self.body(torch.cat(parts, 1))

    def forward(self, x):
        return self.head(self.embed(x))


class Classes(object):
    """The label values in class-index order: multiclass_categories when given; else 0 and 1 for
    a binary task (binary True) or labels that are all 0 or 1; else the sorted distinct training
    labels. num_class, when set, must agree."""

    def __init__(self, hp, train_labels, binary=None):
        given = [category_key(v) for v in (hp.get("multiclass_categories") or [])]
        seen = sorted(set(category_key(v) for v in train_labels) - {""}, key=sort_key)
        n = hp.get("num_class")
        if given:
            if len(set(given)) != len(given):
                raise SystemExit("multiclass_categories %s has duplicates" % given)
            self.names = given
        elif binary or (binary is None and n in (None, 2) and set(seen) <= {"0", "1"}):
            self.names = ["0", "1"]
        else:
            self.names = seen
        if n is not None and n != len(self.names):
            raise SystemExit("num_class=%d but there are %d classes %s: set multiclass_categories or num_class" % (n, len(self.names), self.names[:10]))
        if binary and len(self.names) != 2:
            raise SystemExit("a binary objective needs two classes, there are %d %s" % (len(self.names), self.names[:10]))
        if len(self.names) < 2:
            raise SystemExit("need at least two classes, found %s" % self.names)
        self.index = {v: i for i, v in enumerate(self.names)}
        unknown = [v for v in seen if v not in self.index]
        if unknown:
            raise SystemExit("training labels %s are not among the classes %s: list them in multiclass_categories" % (unknown[:10], self.names))

    def encode(self, labels):
        return np.array([self.index.get(category_key(v), -1) for v in labels], dtype="int64")


def sort_key(v):
    try:
        return (0, float(v), v)
    except ValueError:
        return (1, 0.0, v)


def check_columns(df, fields, where):
    missing = [f for f in fields if f not in df.columns]
    if missing:
        raise SystemExit("%s: column(s) %s not in the data (columns: %s)" % (where, missing, list(df.columns)))


class ChunkStream(torch.utils.data.IterableDataset):
    """Training rows read file by file, chunk by chunk; DataLoader workers split the chunks."""

    def __init__(self, prep, classes, label, chunksize):
        super(ChunkStream, self).__init__()
        self.prep, self.classes, self.label, self.chunksize = prep, classes, label, chunksize

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        for i, chunk in enumerate(iter_chunks("train", self.chunksize)):
            if info is not None and i % info.num_workers != info.id:
                continue
            x = self.prep.matrix(chunk)
            y = self.classes.encode(chunk[self.label])
            keep = y >= 0
            for xi, yi in zip(x[keep], y[keep]):
                yield torch.from_numpy(xi), int(yi)


def metrics_for(y, prob):
    from sklearn.metrics import accuracy_score, average_precision_score, f1_score, log_loss, roc_auc_score

    n = prob.shape[1]
    out = {"rows": int(len(y))}
    pred = prob.argmax(axis=1)
    out["accuracy"] = float(accuracy_score(y, pred))
    out["log_loss"] = float(log_loss(y, prob, labels=list(range(n))))
    present = sorted(set(int(v) for v in y))
    if n == 2:
        if len(present) == 2:
            out["auc"] = float(roc_auc_score(y, prob[:, 1]))
            out["average_precision"] = float(average_precision_score(y, prob[:, 1]))
        out["f1_score"] = float(f1_score(y, (prob[:, 1] >= 0.5).astype(int), zero_division=0))
    else:
        onehot = np.eye(n)[y]
        aucs, aps = [], []
        for i in present:
            if 0 < onehot[:, i].sum() < len(y):
                aucs.append(float(roc_auc_score(onehot[:, i], prob[:, i])))
                aps.append(float(average_precision_score(onehot[:, i], prob[:, i])))
        if aucs:
            out["auc"] = float(np.mean(aucs))
            out["average_precision"] = float(np.mean(aps))
        out["f1_score"] = float(f1_score(y, pred, average="macro", labels=present, zero_division=0))
    return out


def predict(model, x, device, batch=4096):
    model.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(x), batch):
            out.append(torch.softmax(model(torch.from_numpy(x[i : i + batch]).to(device)), 1).cpu().numpy())
    return np.concatenate(out) if out else np.zeros((0, 0))


def write_split(name, df, x, y, model, device, hp, n_classes):
    prob = predict(model, x, device)
    folder = os.path.join(EVAL_DIR, name)
    os.makedirs(folder, exist_ok=True)
    id_name = hp["id_name"]
    ids = df[id_name].to_numpy() if id_name in df.columns else np.arange(len(df))
    out = pd.DataFrame({id_name: ids, hp["label_name"]: y})
    for i in range(n_classes):
        out["prob_class_%d" % i] = prob[:, i]
    out.to_csv(os.path.join(folder, "predictions.csv"), index=False)
    m = metrics_for(y, prob)
    with open(os.path.join(folder, "metrics.json"), "w", encoding="utf-8") as f:
        json.dump(m, f, indent=2, sort_keys=True)
    log("%s metrics: %s" % (name, json.dumps(m, sort_keys=True)))
    return m


def main(environ_vars):
    hp = load_hyperparameters()
    torch.manual_seed(hp["seed"])
    np.random.seed(hp["seed"])
    streaming = flag(environ_vars["ENABLE_TRUE_STREAMING"])
    workers = count("NUM_WORKERS_PER_RANK", environ_vars["NUM_WORKERS_PER_RANK"])
    persistent = flag(environ_vars["USE_PERSISTENT_WORKERS"]) and workers > 0
    precomputed_imputation = flag(environ_vars["USE_PRECOMPUTED_IMPUTATION"])
    precomputed_risk = flag(environ_vars["USE_PRECOMPUTED_RISK_TABLES"])
    label = hp["label_name"]
    artifacts = load_artifacts() if os.path.isdir(ARTIFACTS_DIR) else {}

    val_df, test_df = read_split("val"), read_split("test")
    if val_df is None:
        raise SystemExit("no data files under %s/val" % DATA_DIR)
    prep = Preprocessor(hp, precomputed_imputation, precomputed_risk)
    needed = prep.tab + prep.cat + [label]
    labels, full_fields, n_train = [], None, 0
    if streaming:
        log("streaming the training files (ENABLE_TRUE_STREAMING)")
        for chunk in iter_chunks("train", 10000):
            check_columns(chunk, needed, "train")
            full_fields = full_fields or list(chunk.columns)
            prep.observe(chunk)
            labels.extend(chunk[label].dropna().tolist())
            n_train += len(chunk)
        train_df = None
    else:
        train_df = read_split("train")
        if train_df is not None:
            check_columns(train_df, needed, "train")
            full_fields = list(train_df.columns)
            prep.observe(train_df)
            labels = train_df[label].dropna().tolist()
            n_train = len(train_df)
    if not n_train:
        raise SystemExit("no training rows under %s/train" % DATA_DIR)
    if precomputed_risk:
        for f in prep.cat:
            if not pd.api.types.is_numeric_dtype(val_df[f]):
                raise SystemExit("USE_PRECOMPUTED_RISK_TABLES is true but %s is not numeric: map it with RiskTableMapping first" % f)
    prep.finish(artifacts)
    classes = Classes(hp, labels)
    n_classes = len(classes.names)
    log("%d training rows, %d classes %s, %d numeric and %d embedded fields" % (n_train, n_classes, classes.names, len(prep.numeric_fields), len(prep.embedding_fields)))

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = TabularNet(
        [prep.impute[f] for f in prep.numeric_fields],
        [prep.mean[f] for f in prep.numeric_fields],
        [prep.std[f] for f in prep.numeric_fields],
        [len(prep.vocab[f]) for f in prep.embedding_fields],
        hp["embedding_dim"], hp["hidden_dims"], n_classes, hp["dropout"],
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

    check_columns(val_df, needed, "val")
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
        log("epoch %d train_loss=%.5f val_loss=%.5f" % (epoch, total / max(rows, 1), val_loss))
        if best is None or val_loss < best - 1e-6:
            best, bad = val_loss, 0
            best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        else:
            bad += 1
            if hp["early_stop_patience"] and bad >= hp["early_stop_patience"]:
                log("early stop after epoch %d (best val_loss=%.5f)" % (epoch, best))
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
    with open(os.path.join(MODEL_DIR, "model_config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2, sort_keys=True)
    with open(os.path.join(MODEL_DIR, "hyperparameters.json"), "w", encoding="utf-8") as f:
        json.dump(hp, f, indent=2, sort_keys=True)
    log("saved model.pt, model_config.json and hyperparameters.json to %s" % MODEL_DIR)

    write_split("val", val_df, x_val, y_val, model, device, hp, n_classes)
    if test_df is not None:
        check_columns(test_df, needed, "test")
        y_test = classes.encode(test_df[label])
        keep = y_test >= 0
        write_split("test", test_df[keep], prep.matrix(test_df[keep]), y_test[keep], model, device, hp, n_classes)


if __name__ == "__main__":
    try:
        main({
            "USE_PRECOMPUTED_IMPUTATION": os.environ.get("USE_PRECOMPUTED_IMPUTATION", "false"),
            "USE_PRECOMPUTED_RISK_TABLES": os.environ.get("USE_PRECOMPUTED_RISK_TABLES", "false"),
            "ENABLE_TRUE_STREAMING": os.environ.get("ENABLE_TRUE_STREAMING", "false"),
            "NUM_WORKERS_PER_RANK": os.environ.get("NUM_WORKERS_PER_RANK", "0"),
            "USE_PERSISTENT_WORKERS": os.environ.get("USE_PERSISTENT_WORKERS", "false"),
            "REGION": os.environ.get("REGION", "NA"),
        })
    except SystemExit as e:
        if e.code not in (None, 0):
            write_failure(e.code)
        raise
