"""Serving code of an XGBoost model trained by xgboost_training.py (SageMaker XGBoost container,
script mode): model_fn, input_fn, predict_fn and output_fn.

The model directory is the unpacked model.tar.gz: xgboost_model.json, risk_table_map.json,
impute_dict.json, feature_columns.txt and hyperparameters.json as training wrote them, and,
when Package added one, calibration/ with calibration_model.json (ModelCalibration's lookup
tables) or percentile_score.json (PercentileModelCalibration's score-to-percentile map).

Requests
  text/csv          one row per line; the values are, by their number, the input fields in
                    order (full_field_list without the label and id), the model's feature
                    columns, the input fields with the label, or every column of
                    full_field_list. A first line naming them is a header: it is answered with
                    a header line, so a batch transform that joins its input gets one line a
                    record
  application/json  {"instances": [...]}, a list, or one object; each instance an object
                    {field: value} or a list in the CSV order
Responses
  application/json  {"predictions": [{"legacy-score": p, "calibrated-score": c, ...}]}: for a
                    binary model legacy-score is the class-1 probability; for multiclass every
                    prob_class_<i>, the predicted class and legacy-score its probability; a
                    regression model answers {"prediction": y}
  text/csv          one line per row: binary "legacy_score[,calibrated_score]", multiclass the
                    class probabilities (then the calibrated ones), regression the prediction
"""
import csv
import io
import json
import math
import os

import numpy as np
import pandas as pd
import xgboost as xgb

MODEL_FILE = "xgboost_model.json"
MISSING_CATEGORY = "__missing__"
JSON = "application/json"
CSV = "text/csv"


def _read_json(model_dir, name, default=None):
    path = os.path.join(model_dir, name)
    if not os.path.isfile(path):
        if default is not None:
            return default
        raise ValueError("model artifact %s is missing from %s" % (name, model_dir))
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _feature_columns(model_dir, hp):
    path = os.path.join(model_dir, "feature_columns.txt")
    if os.path.isfile(path):
        cols = []
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    cols.append(line.split(",", 1)[1])
        return cols
    return list(hp.get("feature_columns") or [])


def _calibration(model_dir):
    cal_dir = os.path.join(model_dir, "calibration")
    for name, kind in (("calibration_model.json", "lookup"), ("percentile_score.json", "percentile")):
        path = os.path.join(cal_dir, name)
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                cal = json.load(f)
            cal["kind"] = kind
            return cal
    return None


def model_fn(model_dir):
    """Loads the booster and the preprocessing artifacts training wrote."""
    booster = xgb.Booster()
    booster.load_model(os.path.join(model_dir, MODEL_FILE))
    hp = _read_json(model_dir, "hyperparameters.json")
    columns = _feature_columns(model_dir, hp)
    if not columns:
        raise ValueError("no feature columns in %s" % model_dir)
    label, id_name = hp.get("label_name"), hp.get("id_name")
    full = list(hp.get("full_field_list") or [])
    fields = [f for f in full if f not in (label, id_name)] or list(columns)
    # Row layouts a request may use, by width: the input fields, the feature
    # columns, the input fields with the label (a batch transform of labelled
    # data whose id column the input filter dropped), every column.
    layouts = []
    for names in (fields, list(columns), [f for f in full if f != id_name], full):
        if names and names not in layouts:
            layouts.append(names)
    return {
        "booster": booster,
        "columns": columns,
        "cat_fields": set(hp.get("cat_field_list") or []),
        "risk": _read_json(model_dir, "risk_table_map.json", {}),
        "impute": _read_json(model_dir, "impute_dict.json", {}),
        "fields": fields,
        "layouts": layouts,
        "task": hp.get("task") or ("binary" if hp.get("num_classes", 2) == 2 else "multiclass"),
        "class_labels": [str(c) for c in hp.get("class_labels") or []],
        "calibration": _calibration(model_dir),
    }


def _header(rows, model):
    """Whether the first row names the columns of a layout (a CSV header line)."""
    rows = [r for r in rows if r]
    return bool(rows) and [str(v).strip() for v in rows[0]] in model["layouts"]


def _rows_to_frame(rows, model):
    header = _header(rows, model)
    rows = [r for r in rows if r]
    if header:
        rows = rows[1:]
    if not rows:
        raise ValueError("the request holds no rows")
    width = len(rows[0])
    for names in model["layouts"]:
        if width == len(names):
            return pd.DataFrame([[None if v == "" else v for v in r] for r in rows], columns=names)
    raise ValueError("a row has %d values; the model takes %s" % (
        width, " or ".join("%d (%s)" % (len(n), ",".join(n)) for n in model["layouts"])))


def input_fn(request_body, request_content_type, model=None):
    """Parses a CSV or JSON request into a DataFrame of input fields."""
    if isinstance(request_body, (bytes, bytearray)):
        request_body = request_body.decode("utf-8")
    ctype = (request_content_type or CSV).split(";")[0].strip().lower()
    if ctype == CSV:
        return {"rows": list(csv.reader(io.StringIO(request_body)))}
    if ctype == JSON:
        data = json.loads(request_body)
        if isinstance(data, dict):
            data = data.get("instances", data.get("data", [data]))
        if not isinstance(data, list):
            raise ValueError("a JSON request is an object, a list or {\"instances\": [...]}")
        if data and all(isinstance(x, dict) for x in data):
            return {"records": data}
        return {"rows": [list(map(lambda v: "" if v is None else v, x)) if isinstance(x, list) else [x] for x in data]}
    raise ValueError("unsupported content type %s (use text/csv or application/json)" % request_content_type)


def _category_key(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return MISSING_CATEGORY
    if isinstance(v, float) and v == int(v):
        return str(int(v))
    s = str(v)
    try:
        f = float(s)
        if f == int(f) and s.strip().lstrip("-").replace(".", "", 1).isdigit():
            return str(int(f))
    except (ValueError, OverflowError):
        pass
    return s


def _features(df, model):
    missing = [c for c in model["columns"] if c not in df.columns]
    if missing:
        raise ValueError("the request lacks the input field(s) %s" % ", ".join(missing))
    out = pd.DataFrame(index=df.index)
    for c in model["columns"]:
        if c in model["cat_fields"]:
            t = model["risk"].get(c) or {"bins": {}, "default_bin": 0.0}
            out[c] = df[c].map(_category_key).map(t["bins"]).fillna(t["default_bin"]).astype(float)
        else:
            out[c] = pd.to_numeric(df[c], errors="coerce").fillna(model["impute"].get(c, 0.0)).astype(float)
    return out


def _interpolate(points, x):
    xs = np.asarray([p[0] for p in points], dtype=float)
    ys = np.asarray([p[1] for p in points], dtype=float)
    return np.interp(np.asarray(x, dtype=float), xs, ys)


def _calibrate(cal, probs):
    if cal is None:
        return None
    if cal["kind"] == "percentile":
        out = probs.copy()
        out[:, 1] = _interpolate(cal["mapping"], probs[:, 1])
        out[:, 0] = 1.0 - out[:, 1]
        return out
    tables = cal.get("classes")
    if tables:  # multiclass: one table per class, renormalised
        out = np.column_stack([_interpolate(tables[str(i)], probs[:, i]) if str(i) in tables else probs[:, i] for i in range(probs.shape[1])])
        sums = out.sum(axis=1, keepdims=True)
        return np.divide(out, sums, out=np.full_like(out, 1.0 / out.shape[1]), where=sums > 0)
    if "points" not in cal:  # a multi-task calibrator has no table for this model's score
        return None
    out = probs.copy()
    out[:, 1] = _interpolate(cal["points"], probs[:, 1])
    out[:, 0] = 1.0 - out[:, 1]
    return out


def predict_fn(input_data, model):
    """Scores the rows: class probabilities (and calibrated ones) or regression values."""
    header = False
    if isinstance(input_data, pd.DataFrame):
        df = input_data
    elif "records" in input_data:
        df = pd.DataFrame(input_data["records"])
    else:
        header = _header(input_data["rows"], model)
        df = _rows_to_frame(input_data["rows"], model)
    x = _features(df, model)
    raw = model["booster"].predict(xgb.DMatrix(x.values, feature_names=model["columns"]))
    if model["task"] == "regression":
        return {"task": "regression", "prediction": np.asarray(raw, dtype=float), "header": header}
    probs = np.column_stack([1.0 - raw, raw]) if raw.ndim == 1 else raw
    return {"task": model["task"], "probs": probs, "calibrated": _calibrate(model["calibration"], probs),
            "labels": model["class_labels"], "header": header}


def output_fn(prediction, accept):
    """Serialises the predictions as JSON or CSV."""
    accept = (accept or JSON).split(";")[0].strip().lower()
    if accept in ("*/*", ""):
        accept = JSON
    head = prediction.get("header") and accept == CSV
    if prediction["task"] == "regression":
        values = [float(v) for v in prediction["prediction"]]
        if accept == CSV:
            return ("prediction\n" if head else "") + "\n".join("%.6f" % v for v in values) + "\n"
        return json.dumps({"predictions": [{"prediction": v} for v in values]})
    probs, cal, labels = prediction["probs"], prediction["calibrated"], prediction["labels"]
    binary = probs.shape[1] == 2 and prediction["task"] == "binary"
    if accept == CSV:
        lines = []
        if head:
            names = ["legacy_score"] if binary else ["prob_class_%d" % k for k in range(probs.shape[1])]
            if cal is not None:
                names += ["calibrated_score"] if binary else ["calibrated_prob_class_%d" % k for k in range(probs.shape[1])]
            lines.append(",".join(names))
        for i in range(probs.shape[0]):
            vals = [probs[i, 1]] if binary else list(probs[i])
            if cal is not None:
                vals += [cal[i, 1]] if binary else list(cal[i])
            lines.append(",".join("%.6f" % v for v in vals))
        return "\n".join(lines) + "\n"
    if accept != JSON:
        raise ValueError("unsupported accept type %s (use application/json or text/csv)" % accept)
    out = []
    for i in range(probs.shape[0]):
        rec = {"prob_class_%d" % k: float(probs[i, k]) for k in range(probs.shape[1])}
        if binary:
            rec["legacy-score"] = float(probs[i, 1])
            if cal is not None:
                rec["calibrated-score"] = float(cal[i, 1])
        else:
            k = int(np.argmax(probs[i]))
            rec["predicted-class"] = labels[k] if k < len(labels) else str(k)
            rec["legacy-score"] = float(probs[i, k])
            if cal is not None:
                for j in range(cal.shape[1]):
                    rec["calibrated_prob_class_%d" % j] = float(cal[i, j])
                rec["calibrated-score"] = float(cal[i, int(np.argmax(cal[i]))])
        out.append(rec)
    return json.dumps({"predictions": out})
