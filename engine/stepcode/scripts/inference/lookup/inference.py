"""Serving handlers for a lookup model of TabularLookupModelBuilding (any SageMaker framework
image: the handlers use the standard library only).

The model directory (model.tar.gz unpacked) holds lookup_table.csv and model_config.json (key
fields, value field, default value), as TabularLookupModelBuilding writes them.

Requests:
  text/csv          one record a line: the key fields' values in key_fields order (a header line
                    of the key field names is answered with a header line)
  application/json  an object keyed by field, a list of them, {"instances": [...]}, or lists of
                    key values
Responses:
  application/json  {"predictions": [{"value": ..., "found": true|false, "row_count": n}]}
                    (an unknown key answers the default value, found false)
  text/csv          one line a record: the value
"""
import csv
import io
import json
import math
import os

JSON = "application/json"
CSV = "text/csv"


def _key(v, normalize):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    s = str(v).strip()
    try:
        f = float(s)
        if f.is_integer():
            s = str(int(f))
    except ValueError:
        pass
    return s.lower() if normalize else s


def _value(text):
    """A table cell as JSON would have it: a number when it reads as one."""
    if text == "":
        return None
    try:
        f = float(text)
        return int(f) if f.is_integer() and "." not in text and "e" not in text.lower() else f
    except ValueError:
        return text


def model_fn(model_dir):
    with open(os.path.join(model_dir, "model_config.json"), encoding="utf-8") as f:
        config = json.load(f)
    if config.get("framework") != "lookup":
        raise ValueError("model_config.json of %s is not a TabularLookupModelBuilding model" % model_dir)
    keys, name, norm = config["key_fields"], config["value_field"], bool(config.get("normalize_keys"))
    table = {}
    with open(os.path.join(model_dir, config.get("model_file", "lookup_table.csv")), newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            table[tuple(_key(row[k], norm) for k in keys)] = (_value(row[name]), int(row.get("row_count") or 0))
    return {"config": config, "table": table}


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


def predict_fn(input_data, model):
    config, table = model["config"], model["table"]
    keys, norm = config["key_fields"], bool(config.get("normalize_keys"))
    out = []
    for rec in input_data:
        if isinstance(rec, dict):
            missing = [k for k in keys if k not in rec]
            if missing:
                raise ValueError("a record lacks the key field(s) %s" % missing)
            key = tuple(_key(rec[k], norm) for k in keys)
        elif isinstance(rec, (list, tuple)):
            if len(rec) != len(keys):
                raise ValueError("a record has %d values; this table is keyed by %d: %s" % (len(rec), len(keys), keys))
            if [str(v).strip() for v in rec] == keys:
                out.append({"header": [config["value_field"]]})
                continue
            key = tuple(_key(v, norm) for v in rec)
        else:
            raise ValueError("a record must be an object keyed by field or a list of key values, got %r" % (rec,))
        hit = table.get(key)
        if hit is None:
            out.append({"value": config.get("default_value"), "found": False, "row_count": 0})
        else:
            out.append({"value": hit[0], "found": True, "row_count": hit[1]})
    return out


def output_fn(prediction, accept):
    media = _media(accept)
    if media == CSV:
        return "".join((p["header"][0] if "header" in p else ("" if p["value"] is None else str(p["value"]))) + "\n" for p in prediction)
    if media in ("", "*/*", JSON):
        return json.dumps({"predictions": [p for p in prediction if "header" not in p]})
    raise ValueError("unsupported accept type %r: ask for %s or %s" % (accept, JSON, CSV))
