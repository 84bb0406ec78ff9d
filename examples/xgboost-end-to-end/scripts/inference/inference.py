"""Inference handlers for the packaged model (SageMaker XGBoost serving).

The archive Package writes holds the model files at its root (xgboost_model.json or the offline
logistic_model.json, risk_table_map.json, impute_dict.json, feature_columns.json,
hyperparameters.json), this file under code/ and, when calibrated, calibration/
calibration_model.json. Requests are CSV lines with the model's input fields in
full_field_list order (id and label left out), or JSON objects / lists of objects keyed by field.
The response carries legacy-score (the model's probability of class 1) and calibrated-score.
"""
import bisect
import csv
import io
import json
import math
import os


def _read(model_dir, name, default=None):
    path = os.path.join(model_dir, name)
    if not os.path.exists(path):
        return default
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def model_fn(model_dir):
    hp = _read(model_dir, "hyperparameters.json", {})
    model = {
        "columns": _read(model_dir, "feature_columns.json"),
        "risk": _read(model_dir, "risk_table_map.json", {}),
        "impute": _read(model_dir, "impute_dict.json", {}),
        "fields": [f for f in hp.get("full_field_list", []) if f not in (hp.get("id_name"), hp.get("label_name"))],
        "calibration": _read(os.path.join(model_dir, "calibration"), "calibration_model.json"),
    }
    if os.path.exists(os.path.join(model_dir, "xgboost_model.json")):
        import xgboost as xgb

        booster = xgb.Booster()
        booster.load_model(os.path.join(model_dir, "xgboost_model.json"))
        model["booster"] = booster
    else:
        model["logistic"] = _read(model_dir, "logistic_model.json")
    return model


def input_fn(request_body, content_type):
    if isinstance(request_body, bytes):
        request_body = request_body.decode("utf-8")
    if content_type == "application/json":
        data = json.loads(request_body)
        return data if isinstance(data, list) else [data]
    if content_type == "text/csv":
        return [row for row in csv.reader(io.StringIO(request_body)) if row]
    raise ValueError(f"unsupported content type {content_type}")


def _vector(record, model):
    if not isinstance(record, dict):
        record = dict(zip(model["fields"], record))
    out = []
    for c in model["columns"]:
        v = record.get(c)
        if c in model["risk"]:
            out.append(model["risk"][c]["bins"].get(str(v), model["risk"][c]["default_bin"]))
        else:
            try:
                out.append(float(v))
            except (TypeError, ValueError):
                out.append(model["impute"].get(c, 0.0))
    return out


def _calibrate(score, model):
    cal = model["calibration"]
    if not cal or not cal.get("calibrators"):
        return score
    table = cal["calibrators"][0]["lookup_table"]
    xs = [p[0] for p in table]
    i = min(max(bisect.bisect_right(xs, score), 1), len(xs) - 1)
    (x0, y0), (x1, y1) = table[i - 1], table[i]
    return y0 if x1 == x0 else y0 + (y1 - y0) * (min(max(score, x0), x1) - x0) / (x1 - x0)


def predict_fn(input_data, model):
    X = [_vector(r, model) for r in input_data]
    if "booster" in model:
        import xgboost as xgb

        raw = model["booster"].predict(xgb.DMatrix(X, feature_names=model["columns"]))
        scores = [float(r[-1]) if hasattr(r, "__len__") else float(r) for r in raw]
    else:
        m = model["logistic"]
        scores = []
        for r in X:
            s = m["bias"] + sum(w * (x - mu) / sd for w, x, mu, sd in zip(m["weights"], r, m["mean"], m["std"]))
            scores.append(1 / (1 + math.exp(-max(-30.0, min(30.0, s)))))
    return [{"legacy-score": s, "calibrated-score": _calibrate(s, model)} for s in scores]


def output_fn(prediction, accept):
    if accept == "text/csv":
        return "\n".join(f"{p['legacy-score']},{p['calibrated-score']}" for p in prediction) + "\n"
    return json.dumps({"predictions": prediction})
