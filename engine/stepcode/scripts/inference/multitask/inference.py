"""Serving handlers for a multi-task model of XgboostMtTraining or LightGBMMTTraining (the
SageMaker XGBoost image serves the first; an image with lightgbm the second): one request, every
task's probability.

The model directory (model.tar.gz unpacked) holds model_config.json (tasks, main task, feature
columns, category codes, imputation values) and the booster file(s) it names, as the trainers
write them.

Requests:
  text/csv          one record a line; the values are the model's fields in one of these orders
                    (told apart by their count): full_field_list (the training data's columns),
                    full_field_list without its first column (the id), or tab_field_list +
                    cat_field_list. A header line of field names is answered with a header line.
  application/json  an object keyed by field, a list of them, {"instances": [...]}, or lists of
                    values (read as CSV records)
Responses:
  application/json  {"predictions": [{"tasks": {task: probability}, "score": the main task's}]}
  text/csv          one line a record: prob_<task> per task, in task order
"""
import csv
import io
import json
import math
import os

import numpy as np

JSON = "application/json"
CSV = "text/csv"


def model_fn(model_dir):
    with open(os.path.join(model_dir, "model_config.json"), encoding="utf-8") as f:
        config = json.load(f)
    fw = config.get("framework")
    if fw == "xgboost_mt":
        import xgboost as xgb

        booster = xgb.Booster()
        booster.load_model(os.path.join(model_dir, config["model_file"]))

        def predict(x):
            d = xgb.DMatrix(x, feature_names=config["feature_columns"])
            return np.asarray(booster.predict(d), dtype="float64").reshape(len(x), len(config["tasks"]))
    elif fw == "lightgbmmt":
        import lightgbm as lgb

        boosters = [lgb.Booster(model_file=os.path.join(model_dir, f)) for f in config["model_files"]]
        main = config["main_task_index"]

        def predict(x):
            raw = [np.asarray(b.predict(x, raw_score=True), dtype="float64") for b in boosters]
            out = np.zeros((len(x), len(boosters)))
            for k, r in enumerate(raw):
                margin = r + raw[main] if config.get("transfer_from_main_task") and k != main else r
                out[:, k] = 1.0 / (1.0 + np.exp(-margin))
            return out
    else:
        raise ValueError("model_config.json of %s is not a multi-task model (framework %r)" % (model_dir, fw))
    return {"config": config, "predict": predict, "layouts": layouts(config)}


def layouts(config):
    """The positional field orders a CSV record may follow, first match by length wins."""
    full = list(config.get("full_field_list") or [])
    out = []
    for fields in (full, full[1:] if full and full[0] == config.get("id_name") else [],
                   list(config.get("tab_field_list", [])) + list(config.get("cat_field_list", []))):
        if fields and all(len(fields) != len(o) for o in out):
            out.append(fields)
    return out


def _media(content_type):
    return (content_type or "").split(";")[0].strip().lower()


def input_fn(request_body, request_content_type):
    if isinstance(request_body, (bytes, bytearray)):
        request_body = request_body.decode("utf-8")
    media = _media(request_content_type)
    if media == JSON:
        data = json.loads(request_body)
        if isinstance(data, dict) and "instances" in data:
            data = data["instances"]
        return data if isinstance(data, list) else [data]
    if media == CSV:
        return [row for row in csv.reader(io.StringIO(request_body)) if row and any(v.strip() for v in row)]
    raise ValueError("unsupported content type %r: send %s or %s" % (request_content_type, CSV, JSON))


def _records(data, model):
    out = []
    for rec in data:
        if isinstance(rec, dict):
            out.append(rec)
            continue
        if not isinstance(rec, (list, tuple)):
            raise ValueError("a record must be an object keyed by field or a list of values, got %r" % (rec,))
        fields = next((f for f in model["layouts"] if len(f) == len(rec)), None)
        if fields is None:
            raise ValueError("a record has %d values; this model takes %s" % (len(rec), " or ".join(str(len(f)) for f in model["layouts"])))
        out.append(None if [str(v).strip() for v in rec] == fields else dict(zip(fields, rec)))
    return out


def _key(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    s = str(v).strip()
    try:
        f = float(s)
        if f.is_integer():
            return str(int(f))
    except ValueError:
        pass
    return s


def _vector(rec, config):
    row = []
    for f in config["feature_columns"]:
        v = rec.get(f)
        mapping = config.get("categorical_mappings", {}).get(f)
        if mapping is not None:
            code = mapping.get(_key(v))
            row.append(float("nan") if code is None else float(code))
            continue
        try:
            x = float(v) if v is not None and str(v).strip() != "" else float("nan")
        except (TypeError, ValueError):
            x = float("nan")
        impute = config.get("impute_dict", {}).get(f)
        row.append(float(impute) if math.isnan(x) and impute is not None else x)
    return row


def predict_fn(input_data, model):
    config = model["config"]
    tasks, main = config["tasks"], config["main_task_index"]
    records = _records(input_data, model)
    rows = [r for r in records if r is not None]
    header = {"header": ["prob_" + t for t in tasks]}
    if not rows:
        return [header for _ in records]
    prob = model["predict"](np.array([_vector(r, config) for r in rows], dtype="float64").reshape(len(rows), len(config["feature_columns"]))).tolist()
    answers = iter(prob)
    out = []
    for r in records:
        if r is None:
            out.append(header)
            continue
        p = next(answers)
        out.append({"tasks": dict(zip(tasks, p)), "score": p[main], "main_task": tasks[main]})
    return out


def output_fn(prediction, accept):
    media = _media(accept)
    if media == CSV:
        return "".join(",".join(p["header"] if "header" in p else [repr(float(v)) for v in p["tasks"].values()]) + "\n" for p in prediction)
    if media in ("", "*/*", JSON):
        return json.dumps({"predictions": [p for p in prediction if "header" not in p]})
    raise ValueError("unsupported accept type %r: ask for %s or %s" % (accept, JSON, CSV))
