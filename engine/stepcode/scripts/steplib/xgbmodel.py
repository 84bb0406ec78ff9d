"""An XGBoost model as xgboost_training.py writes it, and the features it scores.

The model folder (or a model.tar.gz below it) holds xgboost_model.json, hyperparameters.json
(feature_columns, cat_field_list, class_labels, task), risk_table_map.json
({column: {"bins": {category: risk}, "default_bin": risk}}) and impute_dict.json
({column: value}). The serving code (inference/xgboost/inference.py) applies the same
rules on its own: it ships alone inside the model archive.
"""
import json
import math
import os

import numpy as np
import pandas as pd

from steplib import tables

MODEL_FILE = "xgboost_model.json"
MISSING_CATEGORY = "__missing__"


def category_key(v):
    """The risk-table key of a categorical value: missing values share one key, and a
    whole float reads as the integer (a column pandas parsed as 1.0 matches "1")."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return MISSING_CATEGORY
    if isinstance(v, float) and v == int(v):
        return str(int(v))
    return str(v)


def features(df, columns, cat_fields, risk, impute):
    """The model's feature matrix: categorical columns mapped through their risk tables
    (unseen categories get the default risk), numeric ones with missing values imputed.
    Raises ValueError naming the feature columns df lacks."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError("the data lacks the feature column(s) %s (columns: %s)" % (", ".join(missing), ", ".join(map(str, df.columns))))
    out = pd.DataFrame(index=df.index)
    for c in columns:
        if c in cat_fields:
            t = risk.get(c) or {"bins": {}, "default_bin": 0.0}
            out[c] = df[c].map(category_key).map(t["bins"]).fillna(t["default_bin"]).astype(float)
        else:
            out[c] = pd.to_numeric(df[c], errors="coerce").fillna(impute.get(c, 0.0)).astype(float)
    return out


def find_model_dir(folder):
    """The folder holding xgboost_model.json: folder itself, one below it, or the unpacked
    model.tar.gz found there; None when there is none."""
    for root in tables.unpack_archives(folder):
        for r, _, files in os.walk(root):
            if MODEL_FILE in files:
                return r
    return None


def label_index(labels):
    """Class index by label text: each of labels (the class values, as text, in index order)
    and, for a number, its float and whole-number spellings ("1" also as "1.0")."""
    index = {}
    for i, v in enumerate(labels):
        index[v] = i
        try:
            f = float(v)
            index[str(f)] = i
            if f == int(f):
                index[str(int(f))] = i
        except (ValueError, OverflowError):
            pass
    return index


def encode_labels(series, labels, index=None):
    """Class indices of a label column (NaN for a missing label) against labels (index:
    label_index(labels), when the caller keeps it); a value that is not one of the classes
    raises ValueError."""
    if index is None:
        index = label_index(labels)

    def one(v):
        if pd.isna(v):
            return np.nan
        key = str(v)
        if key not in index:
            key = category_key(v)
        if key not in index:
            raise ValueError("label value %r is not one of the classes %s" % (v, labels))
        return index[key]
    return series.map(one)


def load(folder):
    """The Model of find_model_dir(folder); raises ValueError when folder holds none."""
    model_dir = find_model_dir(folder)
    if model_dir is None:
        raise ValueError("no %s in %s (nor in a model.tar.gz there)" % (MODEL_FILE, folder))
    return Model(model_dir)


def probabilities(raw):
    """Class probabilities (rows x classes) from a booster's raw prediction: a binary model's
    class-1 scores get their class-0 column."""
    return np.column_stack([1.0 - raw, raw]) if raw.ndim == 1 else raw


def prediction_frame(df, id_field, scores, regression, label=None, label_values=None, log=None):
    """The predictions of df's rows: the id column (when df has id_field; log says so when it
    has not), label holding label_values (when given), then prob_class_<i> per class, or
    prediction for a regression model."""
    preds = pd.DataFrame()
    if id_field and id_field in df.columns:
        preds[id_field] = df[id_field].values
    elif id_field and log is not None:
        log("id column %s is not in the data; predictions carry no id" % id_field)
    if label_values is not None:
        preds[label] = label_values
    if regression:
        preds["prediction"] = scores
    else:
        for i in range(scores.shape[1]):
            preds["prob_class_%d" % i] = scores[:, i]
    return preds


class Model(object):
    """A trained model loaded from a model folder."""

    def __init__(self, folder):
        import xgboost as xgb

        self._xgb = xgb
        self.dir = folder
        self.booster = xgb.Booster()
        self.booster.load_model(os.path.join(folder, MODEL_FILE))
        self.hp = self._json("hyperparameters.json")
        self.columns = [str(c) for c in self.hp.get("feature_columns") or []]
        if not self.columns:
            raise ValueError("hyperparameters.json in %s names no feature_columns" % folder)
        self.cat_fields = set(self.hp.get("cat_field_list") or [])
        self.risk = self._json("risk_table_map.json")
        self.impute = self._json("impute_dict.json")
        self.task = self.hp.get("task", "binary")
        self.labels = [str(c) for c in self.hp.get("class_labels") or []]

    def _json(self, name):
        p = os.path.join(self.dir, name)
        if not os.path.isfile(p):
            return {}
        with open(p, encoding="utf-8") as f:
            return json.load(f)

    def predict(self, df):
        """Class probabilities (rows x classes) or, for regression, the predicted values."""
        x = features(df, self.columns, self.cat_fields, self.risk, self.impute)
        raw = self.booster.predict(self._xgb.DMatrix(x.values, feature_names=self.columns))
        if self.task == "regression":
            return np.asarray(raw, dtype=float)
        return probabilities(raw)

    def encode_labels(self, series):
        """Class indices of a label column (NaN for a missing label); a value that is not one
        of the model's classes raises ValueError. Regression: the numbers."""
        if self.task == "regression":
            return pd.to_numeric(series, errors="coerce")
        return encode_labels(series, self.labels)
