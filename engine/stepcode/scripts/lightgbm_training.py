"""Train a LightGBM model on tabular data (LightGBMTraining).

Needs lightgbm (3.3 or later), numpy, pandas and scikit-learn in the image: the SageMaker
PyTorch and scikit-learn images do not ship lightgbm, so the step needs an image that does
(config field image_uri). Nothing is installed at run time.

Contract:
  inputs   /opt/ml/input/config/hyperparameters.json       the job's hyperparameters (typed config
                                                           fields; each value JSON-encoded as text)
           /opt/ml/input/data/{train,val,test}             CSV, TSV or Parquet files
           /opt/ml/input/data/hyperparameters_s3_uri       optional hyperparameters.json; the job's
                                                           hyperparameters override it key by key
           /opt/ml/input/data/model_artifacts_input        optional impute_dict.json,
                                                           risk_table_map.json, selected_features.json
  outputs  /opt/ml/model        lightgbm_model.txt, model_config.json (fields, classes, category
                                mappings or risk tables, imputation values), feature_importance.json,
                                hyperparameters.json; SageMaker packs it into model.tar.gz
           /opt/ml/output/data  val/ and test/: predictions.csv (id, label, prob_class_*), metrics.json
  env      USE_PRECOMPUTED_IMPUTATION   keep the artifacts' imputation values (the data is imputed)
           USE_PRECOMPUTED_RISK_TABLES  categorical fields are already risk-mapped (numeric)
           USE_PRECOMPUTED_FEATURES     train on the artifacts' selected_features.json only
           USE_NATIVE_CATEGORICAL       LightGBM's own categorical splits (default); else risk tables
           REGION                       region code, recorded in model_config.json

Hyperparameters: label_name, tab_field_list, objective (required); id_name, cat_field_list,
multiclass_categories, num_class, class_weights, metric, num_leaves,
learning_rate, num_boost_round, max_depth, min_data_in_leaf, feature_fraction,
bagging_fraction, bagging_freq, lambda_l1, lambda_l2, early_stopping_rounds,
min_data_per_group, cat_smooth, max_cat_threshold, smooth_factor, count_threshold, seed.
The toolkit's --name value arguments are ignored (the file is read instead).
"""
import glob
import json
import math
import os
import sys

try:
    import lightgbm as lgb
except ImportError as e:  # the image lacks it: say so instead of a traceback
    print("lightgbm_training: lightgbm is not installed in this image (%s); run the step in an image "
          "with lightgbm>=3.3 (config field image_uri)" % e, file=sys.stderr)
    try:
        with open("/opt/ml/output/failure", "w", encoding="utf-8") as f:
            f.write("lightgbm is not installed in this image: set image_uri to an image with lightgbm>=3.3")
    except OSError:
        pass
    sys.exit(2)
import numpy as np
import pandas as pd

HPARAMS_FILE = "/opt/ml/input/config/hyperparameters.json"
DATA_DIR = "/opt/ml/input/data"
HPARAMS_INPUT_DIR = "/opt/ml/input/data/hyperparameters_s3_uri"
ARTIFACTS_DIR = "/opt/ml/input/data/model_artifacts_input"
MODEL_DIR = "/opt/ml/model"
EVAL_DIR = "/opt/ml/output/data"
FAILURE_FILE = "/opt/ml/output/failure"

LIST_KEYS = ("tab_field_list", "cat_field_list", "multiclass_categories", "class_weights", "metric", "full_field_list")
DEFAULTS = {
    "id_name": "id",
    "cat_field_list": [],
    "num_class": None,
    "multiclass_categories": [],
    "class_weights": [],
    "objective": "",
    "metric": [],
    "num_leaves": 31,
    "learning_rate": 0.1,
    "num_boost_round": 100,
    "max_depth": -1,
    "min_data_in_leaf": 20,
    "feature_fraction": 1.0,
    "bagging_fraction": 1.0,
    "bagging_freq": 0,
    "lambda_l1": 0.0,
    "lambda_l2": 0.0,
    "early_stopping_rounds": 0,
    "min_data_per_group": 100,
    "cat_smooth": 10.0,
    "max_cat_threshold": 32,
    "smooth_factor": 0.0,
    "count_threshold": 0,
    "seed": 42,
}
INTS = ("num_leaves", "num_boost_round", "max_depth", "min_data_in_leaf", "bagging_freq",
        "early_stopping_rounds", "min_data_per_group", "max_cat_threshold", "count_threshold", "seed")
FLOATS = ("learning_rate", "feature_fraction", "bagging_fraction", "lambda_l1", "lambda_l2", "cat_smooth", "smooth_factor")
OBJECTIVES = ("binary", "cross_entropy", "multiclass", "multiclassova")


def log(msg):
    print(msg, flush=True)


def write_failure(reason):
    """SageMaker shows /opt/ml/output/failure as the job's FailureReason."""
    print("lightgbm_training: %s" % reason, file=sys.stderr)
    try:
        with open(FAILURE_FILE, "w", encoding="utf-8") as f:
            f.write(str(reason)[:1024])
    except OSError:
        pass


def flag(value):
    return str(value).strip().lower() in ("1", "true", "yes", "on")


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
    missing = [k for k in ("label_name", "tab_field_list", "objective") if k not in hp]
    if missing:
        raise SystemExit("hyperparameter(s) %s required (set the config field(s) of the training step)" % ", ".join(missing))
    out = dict(DEFAULTS)
    out.update(hp)
    try:
        for k in INTS:
            out[k] = int(out[k])
        for k in FLOATS:
            out[k] = float(out[k])
    except (TypeError, ValueError) as e:
        raise SystemExit("hyperparameter %s=%r: %s" % (k, out[k], e))
    # older hyperparameter files: num_classes / is_binary
    if out.get("num_class") is None and out.get("num_classes") is not None:
        out["num_class"] = out["num_classes"]
    if out.get("num_class") is None and str(out.get("is_binary", "")).lower() == "true":
        out["num_class"] = 2
    if out.get("num_class") is not None:
        out["num_class"] = int(out["num_class"])
    out["class_weights"] = [float(w) for w in out["class_weights"]]
    if out["objective"] not in OBJECTIVES:
        raise SystemExit("hyperparameter objective=%r: want one of %s" % (out["objective"], ", ".join(OBJECTIVES)))
    return out


def data_files(folder):
    files = []
    for ext in ("csv", "tsv", "parquet"):
        files += glob.glob(os.path.join(folder, "**", "*." + ext), recursive=True)
    return sorted(files)


def read_split(name):
    frames = []
    for path in data_files(os.path.join(DATA_DIR, name)):
        if path.endswith(".parquet"):
            frames.append(pd.read_parquet(path))
        else:
            frames.append(pd.read_csv(path, sep="\t" if path.endswith(".tsv") else ","))
    return pd.concat(frames, ignore_index=True) if frames else None


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


def sort_key(v):
    try:
        return (0, float(v), v)
    except ValueError:
        return (1, 0.0, v)


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


def check_columns(df, fields, where):
    missing = [f for f in fields if f not in df.columns]
    if missing:
        raise SystemExit("%s: column(s) %s not in the data (columns: %s)" % (where, missing, list(df.columns)))


def load_artifacts():
    """impute_dict, risk_table_map and selected_features of the preprocessing steps."""
    found = {}
    for name in ("impute_dict", "risk_table_map", "selected_features"):
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


def fit_risk_tables(df, fields, y, smooth_factor, threshold):
    """Per category, the rate of class 1 shrunk towards the overall rate by smooth_factor x rows
    pseudo-observations; a category seen fewer than threshold times gets the overall rate."""
    prior = float(y.mean())
    pseudo = int(len(y) * smooth_factor)
    tables = {}
    for f in fields:
        keys = df[f].map(category_key)
        stats = pd.DataFrame({"k": keys, "y": y}).groupby("k")["y"].agg(["sum", "count"])
        bins = {}
        for k, row in stats.iterrows():
            n = float(row["count"])
            bins[k] = prior if n < threshold else float((row["sum"] + pseudo * prior) / (n + pseudo))
        tables[f] = {"bins": bins, "default_bin": prior}
    return tables


class Features(object):
    """How raw rows become LightGBM's input; saved in model_config.json."""

    def __init__(self, hp, env, artifacts, train_df, y_train, n_classes):
        self.tab, self.cat = list(hp["tab_field_list"]), list(hp["cat_field_list"])
        self.native = flag(env["USE_NATIVE_CATEGORICAL"]) and not flag(env["USE_PRECOMPUTED_RISK_TABLES"])
        columns = self.tab + self.cat
        if flag(env["USE_PRECOMPUTED_FEATURES"]):
            selected = artifacts.get("selected_features")
            if isinstance(selected, dict):
                selected = selected.get("selected_features")
            if not selected:
                raise SystemExit("USE_PRECOMPUTED_FEATURES is true but model_artifacts_input has no selected_features.json")
            unknown = [f for f in selected if f not in columns]
            if unknown:
                raise SystemExit("selected_features.json names %s, which are not in tab_field_list or cat_field_list" % unknown)
            columns = [f for f in columns if f in selected]
            self.tab, self.cat = [f for f in self.tab if f in columns], [f for f in self.cat if f in columns]
            log("selected features: %d of %d" % (len(columns), len(hp["tab_field_list"]) + len(hp["cat_field_list"])))
        self.columns = columns
        self.impute = {}
        for f in self.tab:
            m = pd.to_numeric(train_df[f], errors="coerce").mean()
            self.impute[f] = 0.0 if pd.isna(m) else float(m)
        if flag(env["USE_PRECOMPUTED_IMPUTATION"]) and "impute_dict" in artifacts:
            self.impute.update({f: float(v) for f, v in artifacts["impute_dict"].items() if f in self.impute})
        self.mappings, self.risk_tables = {}, {}
        if self.native:
            for f in self.cat:
                levels = sorted(set(train_df[f].map(category_key)) - {""}, key=sort_key)
                self.mappings[f] = {v: i for i, v in enumerate(levels)}
        elif flag(env["USE_PRECOMPUTED_RISK_TABLES"]):
            for f in self.cat:
                if not pd.api.types.is_numeric_dtype(train_df[f]):
                    raise SystemExit("USE_PRECOMPUTED_RISK_TABLES is true but %s is not numeric: map it with RiskTableMapping first" % f)
            tables = artifacts.get("risk_table_map") or {}
            self.risk_tables = {f: tables[f] for f in self.cat if f in tables}
        else:
            if n_classes != 2:
                raise SystemExit("risk tables (USE_NATIVE_CATEGORICAL false) need a binary label; use native categorical handling or RiskTableMapping")
            self.risk_tables = fit_risk_tables(train_df, self.cat, y_train, hp["smooth_factor"], hp["count_threshold"])

    def matrix(self, df):
        cols = []
        for f in self.columns:
            if f in self.mappings:
                m = self.mappings[f]
                cols.append(df[f].map(lambda v: m.get(category_key(v), np.nan)).astype("float64").to_numpy())
            elif f in self.cat and self.risk_tables.get(f) and not pd.api.types.is_numeric_dtype(df[f]):
                t = self.risk_tables[f]
                cols.append(df[f].map(lambda v: t["bins"].get(category_key(v), t["default_bin"])).astype("float64").to_numpy())
            else:
                x = pd.to_numeric(df[f], errors="coerce").astype("float64")
                cols.append(x.fillna(self.impute[f]).to_numpy() if f in self.impute else x.to_numpy())
        return np.stack(cols, axis=1) if cols else np.zeros((len(df), 0))

    def config(self):
        return {
            "feature_columns": self.columns,
            "tab_field_list": self.tab,
            "cat_field_list": self.cat,
            "native_categorical": self.native,
            "categorical_mappings": self.mappings,
            "risk_tables": self.risk_tables,
            "impute_dict": self.impute,
        }


def lgb_params(hp, n_classes, native):
    objective = hp["objective"]
    params = {
        "objective": objective, "num_leaves": hp["num_leaves"], "learning_rate": hp["learning_rate"],
        "max_depth": hp["max_depth"], "min_data_in_leaf": hp["min_data_in_leaf"], "feature_fraction": hp["feature_fraction"],
        "bagging_fraction": hp["bagging_fraction"], "bagging_freq": hp["bagging_freq"], "lambda_l1": hp["lambda_l1"],
        "lambda_l2": hp["lambda_l2"], "seed": hp["seed"], "deterministic": True,
        "verbose": -1,
    }
    if objective.startswith("multiclass"):
        params["num_class"] = n_classes
    if hp["metric"]:
        params["metric"] = list(hp["metric"])
    if native:
        params.update({"min_data_per_group": hp["min_data_per_group"], "cat_smooth": hp["cat_smooth"], "max_cat_threshold": hp["max_cat_threshold"]})
    return params


def predict(booster, x, n_classes):
    raw = np.asarray(booster.predict(x, num_iteration=booster.best_iteration or None), dtype="float64")
    if raw.ndim == 1:
        raw = np.stack([1 - raw, raw], axis=1)
    return raw if raw.shape[1] == n_classes else raw.reshape(len(x), n_classes)


def metrics_for(y, prob):
    from sklearn.metrics import accuracy_score, average_precision_score, f1_score, log_loss, roc_auc_score

    n = prob.shape[1]
    out = {"rows": int(len(y))}
    pred = prob.argmax(axis=1)
    out["accuracy"] = float(accuracy_score(y, pred))
    out["log_loss"] = float(log_loss(y, np.clip(prob, 1e-15, 1), labels=list(range(n))))
    present = sorted(set(int(v) for v in y))
    if n == 2:
        if len(present) == 2:
            out["auc"] = float(roc_auc_score(y, prob[:, 1]))
            out["average_precision"] = float(average_precision_score(y, prob[:, 1]))
        out["f1_score"] = float(f1_score(y, (prob[:, 1] >= 0.5).astype(int), zero_division=0))
    else:
        aucs, aps = [], []
        for i in present:
            yi = (y == i).astype(int)
            if 0 < yi.sum() < len(y):
                aucs.append(float(roc_auc_score(yi, prob[:, i])))
                aps.append(float(average_precision_score(yi, prob[:, i])))
        if aucs:
            out["auc"] = float(np.mean(aucs))
            out["average_precision"] = float(np.mean(aps))
        out["f1_score"] = float(f1_score(y, pred, average="macro", labels=present, zero_division=0))
    return out


def write_split(name, df, x, y, booster, hp, n_classes):
    prob = predict(booster, x, n_classes)
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


def main(environ_vars):
    hp = load_hyperparameters()
    label = hp["label_name"]
    artifacts = load_artifacts() if os.path.isdir(ARTIFACTS_DIR) else {}
    train_df, val_df, test_df = read_split("train"), read_split("val"), read_split("test")
    if train_df is None or not len(train_df):
        raise SystemExit("no training rows under %s/train" % DATA_DIR)
    if val_df is None:
        raise SystemExit("no data files under %s/val" % DATA_DIR)
    needed = list(hp["tab_field_list"]) + list(hp["cat_field_list"]) + [label]
    for name, df in (("train", train_df), ("val", val_df), ("test", test_df)):
        if df is not None:
            check_columns(df, needed, name)
    train_df = train_df[train_df[label].notna()].reset_index(drop=True)
    classes = Classes(hp, train_df[label].tolist(), binary=hp["objective"] in ("binary", "cross_entropy"))
    n_classes = len(classes.names)
    y_train = classes.encode(train_df[label])
    y_val = classes.encode(val_df[label])
    if (y_val < 0).any():
        raise SystemExit("val has labels outside the classes %s" % classes.names)
    feats = Features(hp, environ_vars, artifacts, train_df, y_train, n_classes)
    log("%d training rows, %d classes %s, %d features (%s categorical)" % (
        len(train_df), n_classes, classes.names, len(feats.columns), "native" if feats.native else "risk-mapped"))

    weights = None
    if hp["class_weights"]:
        if len(hp["class_weights"]) != n_classes:
            raise SystemExit("class_weights has %d values for %d classes" % (len(hp["class_weights"]), n_classes))
        weights = np.asarray(hp["class_weights"], dtype="float64")[y_train]
    categorical = [f for f in feats.columns if f in feats.mappings]
    train_set = lgb.Dataset(feats.matrix(train_df), label=y_train, weight=weights, feature_name=feats.columns,
                            categorical_feature=categorical or "auto", free_raw_data=False)
    val_set = lgb.Dataset(feats.matrix(val_df), label=y_val, reference=train_set, feature_name=feats.columns,
                          categorical_feature=categorical or "auto", free_raw_data=False)
    callbacks = [lgb.log_evaluation(period=10)]
    if hp["early_stopping_rounds"] > 0:
        callbacks.append(lgb.early_stopping(stopping_rounds=hp["early_stopping_rounds"], verbose=True))
    params = lgb_params(hp, n_classes, feats.native)
    booster = lgb.train(params, train_set, num_boost_round=hp["num_boost_round"], valid_sets=[train_set, val_set],
                        valid_names=["train", "val"], callbacks=callbacks)
    log("trained %d rounds (best %d)" % (booster.current_iteration(), booster.best_iteration or booster.current_iteration()))

    os.makedirs(MODEL_DIR, exist_ok=True)
    booster.save_model(os.path.join(MODEL_DIR, "lightgbm_model.txt"), num_iteration=booster.best_iteration or None)
    hp["full_field_list"] = hp.get("full_field_list") or list(train_df.columns)
    hp["num_class"] = n_classes
    config = {
        "framework": "lightgbm",
        "model_file": "lightgbm_model.txt",
        "lightgbm_version": lgb.__version__,
        "params": params,
        "label_name": label,
        "id_name": hp["id_name"],
        "classes": classes.names,
        "binary": n_classes == 2,
        "full_field_list": hp["full_field_list"],
        "region": environ_vars["REGION"],
    }
    config.update(feats.config())
    with open(os.path.join(MODEL_DIR, "model_config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2, sort_keys=True)
    with open(os.path.join(MODEL_DIR, "feature_importance.json"), "w", encoding="utf-8") as f:
        gain = booster.feature_importance(importance_type="gain")
        json.dump({c: float(g) for c, g in zip(feats.columns, gain)}, f, indent=2, sort_keys=True)
    with open(os.path.join(MODEL_DIR, "hyperparameters.json"), "w", encoding="utf-8") as f:
        json.dump(hp, f, indent=2, sort_keys=True)
    log("saved lightgbm_model.txt, model_config.json, feature_importance.json and hyperparameters.json to %s" % MODEL_DIR)

    write_split("val", val_df, feats.matrix(val_df), y_val, booster, hp, n_classes)
    if test_df is not None:
        y_test = classes.encode(test_df[label])
        keep = y_test >= 0
        kept = test_df[keep].reset_index(drop=True)
        write_split("test", kept, feats.matrix(kept), y_test[keep], booster, hp, n_classes)


if __name__ == "__main__":
    try:
        main({
            "USE_PRECOMPUTED_IMPUTATION": os.environ.get("USE_PRECOMPUTED_IMPUTATION", "false"),
            "USE_PRECOMPUTED_RISK_TABLES": os.environ.get("USE_PRECOMPUTED_RISK_TABLES", "false"),
            "USE_PRECOMPUTED_FEATURES": os.environ.get("USE_PRECOMPUTED_FEATURES", "false"),
            "USE_NATIVE_CATEGORICAL": os.environ.get("USE_NATIVE_CATEGORICAL", "true"),
            "REGION": os.environ.get("REGION", "NA"),
        })
    except SystemExit as e:
        if e.code not in (None, 0):
            write_failure(e.code)
        raise
