"""Serving handlers for a model of LightGBMTraining (SageMaker PyTorch inference container with
lightgbm installed: the image must have lightgbm>=3.3).

The model directory (model.tar.gz unpacked) holds lightgbm_model.txt and model_config.json
(feature columns, classes, category codes or risk tables, imputation values), as
LightGBMTraining writes them.

Requests:
  text/csv          one record a line; the values are the model's fields in one of these orders
                    (told apart by their count): full_field_list (the training data's columns),
                    full_field_list without its first column (a batch transform's input_filter
                    "$[1:]" drops the id), full_field_list without the id and label (a Payload
                    sample), or tab_field_list + cat_field_list. A header line (the field names)
                    is answered with a header line, so a batch transform that joins its input
                    to the predictions keeps one output line per input line.
  application/json  an object keyed by field, a list of them, {"instances": [...]}, or lists of
                    values (read as CSV records)
Responses:
  application/json  {"predictions": [{"probabilities": [...], "predicted_label": ..., "score": p1}]}
                    (score, the probability of class 1, for binary models)
  text/csv          one line a record: the class probabilities (prob_class_0,... for a header line)
"""
import csv
import io
import json
import math
import os

import lightgbm as lgb
import numpy as np

JSON = "application/json"
CSV = "text/csv"


def model_fn(model_dir):
    with open(os.path.join(model_dir, "model_config.json"), encoding="utf-8") as f:
        config = json.load(f)
    if config.get("framework") != "lightgbm":
        raise ValueError("model_config.json of %s is not a LightGBMTraining model" % model_dir)
    booster = lgb.Booster(model_file=os.path.join(model_dir, config.get("model_file", "lightgbm_model.txt")))
    return {"config": config, "model": booster, "layouts": layouts(config)}


def layouts(config):
    """The positional field orders a CSV record may follow, first match by length wins."""
    full = list(config.get("full_field_list") or [])
    skip = (config.get("id_name"), config.get("label_name"))
    out = []
    for fields in (full, full[1:] if full and full[0] == config.get("id_name") else [], [f for f in full if f not in skip],
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
    """Each request record as a dict keyed by field; None for a CSV header line."""
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
        if [str(v).strip() for v in rec] == fields:
            out.append(None)  # header line
            continue
        out.append(dict(zip(fields, rec)))
    return out


def _number(v):
    if v is None or (isinstance(v, str) and not v.strip()):
        return float("nan")
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


def _category(v):
    """One spelling per category, as LightGBMTraining keyed its codes: 1, 1.0 and "1" are the same;
    missing is ""."""
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
        table = config.get("risk_tables", {}).get(f)
        if mapping is not None:
            code = mapping.get(_category(v))
            row.append(float("nan") if code is None else float(code))
        elif table:
            mapped = table.get("bins", {}).get(_category(v))
            x = float(mapped) if mapped is not None else _number(v)
            row.append(float(table.get("default_bin", 0.0)) if math.isnan(x) else x)
        else:
            x = _number(v)
            impute = config.get("impute_dict", {}).get(f)
            row.append(float(impute) if math.isnan(x) and impute is not None else x)
    return row


def predict_fn(input_data, model):
    config = model["config"]
    records = _records(input_data, model)
    rows = [r for r in records if r is not None]
    classes = config["classes"]
    if not rows:
        return [{"header": ["prob_class_%d" % i for i in range(len(classes))]} for _ in records]
    x = np.array([_vector(r, config) for r in rows], dtype="float64").reshape(len(rows), len(config["feature_columns"]))
    raw = np.asarray(model["model"].predict(x), dtype="float64")
    prob = (np.stack([1 - raw, raw], axis=1) if raw.ndim == 1 else raw.reshape(len(rows), len(classes))).tolist()
    out = []
    answers = iter(prob)
    for r in records:
        if r is None:
            out.append({"header": ["prob_class_%d" % i for i in range(len(classes))]})
            continue
        p = next(answers)
        rec = {"probabilities": p, "predicted_label": classes[max(range(len(p)), key=p.__getitem__)]}
        if len(p) == 2:
            rec["score"] = p[1]
        out.append(rec)
    return out


def output_fn(prediction, accept):
    media = _media(accept)
    if media == CSV:
        return "".join(",".join(p["header"] if "header" in p else [repr(float(v)) for v in p["probabilities"]]) + "\n" for p in prediction)
    if media in ("", "*/*", JSON):
        return json.dumps({"predictions": [p for p in prediction if "header" not in p]})
    raise ValueError("unsupported accept type %r: ask for %s or %s" % (accept, JSON, CSV))
