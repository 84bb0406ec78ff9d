"""Serving handlers for a model of PyTorchTraining (SageMaker PyTorch inference container).

The model directory (model.tar.gz unpacked) holds model.pt (TorchScript: imputation, scaling,
embeddings, the text encoder and the network) and model_config.json (fields, classes, category
vocabularies, risk tables, text field), as PyTorchTraining writes them; a text model also holds
tokenizer.json and tokenizer_bpe.py, the code that encodes text with it (loaded from the model
directory, so the model is served with the tokenizer code it was trained with).

Requests:
  text/csv          one record a line; the values are the model's fields in one of these orders
                    (told apart by their count): full_field_list (the training data's columns),
                    full_field_list without its first column (a batch transform's input_filter
                    "$[1:]" drops the id), full_field_list without the id and label (a Payload
                    sample), or tab_field_list + cat_field_list (+ the text field). A header line (the field names)
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
import importlib.util
import io
import json
import math
import os

import torch

JSON = "application/json"
CSV = "text/csv"


def model_fn(model_dir):
    with open(os.path.join(model_dir, "model_config.json"), encoding="utf-8") as f:
        config = json.load(f)
    if config.get("framework") != "pytorch":
        raise ValueError("model_config.json of %s is not a PyTorchTraining model" % model_dir)
    model = torch.jit.load(os.path.join(model_dir, config.get("model_file", "model.pt")), map_location="cpu")
    model.eval()
    return {"config": config, "model": model, "layouts": layouts(config), "tokenizer": tokenizer(config, model_dir)}


def tokenizer(config, model_dir):
    """A text model's tokenizer, read with the encoding code the model carries; None without a
    text field."""
    if not config.get("text_field"):
        return None
    code = os.path.join(model_dir, config.get("tokenizer_code") or "tokenizer_bpe.py")
    data = os.path.join(model_dir, config.get("tokenizer_file") or "tokenizer.json")
    for f in (code, data):
        if not os.path.exists(f):
            raise ValueError("the model reads text field %r but %s holds no %s" % (config["text_field"], model_dir, os.path.basename(f)))
    spec = importlib.util.spec_from_file_location("cursus_model_tokenizer", code)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.load(data)


def layouts(config):
    """The positional field orders a CSV record may follow, first match by length wins."""
    full = list(config.get("full_field_list") or [])
    skip = (config.get("id_name"), config.get("label_name"))
    out = []
    for fields in (full, full[1:] if full and full[0] == config.get("id_name") else [], [f for f in full if f not in skip],
                   list(config.get("tab_field_list", [])) + list(config.get("cat_field_list", [])) + ([config["text_field"]] if config.get("text_field") else [])):
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
    """One spelling per category, as PyTorchTraining keyed its vocabularies: 1, 1.0 and "1" are the
    same; missing is ""."""
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


def _vector(rec, config, tok):
    row = []
    for f in config["numeric_fields"]:
        table = config.get("risk_tables", {}).get(f)
        v = rec.get(f)
        if table:
            mapped = table.get("bins", {}).get(_category(v), table.get("bins", {}).get(str(v)))
            x = float(mapped) if mapped is not None else _number(v)
            row.append(float(table.get("default_bin", 0.0)) if math.isnan(x) else x)
        else:
            row.append(_number(v))
    for f in config["embedding_fields"]:
        vocab = config["vocabularies"][f]
        index = config.setdefault("_index", {}).get(f)
        if index is None:
            index = config["_index"][f] = {v: i + 1 for i, v in enumerate(vocab)}
        row.append(float(index.get(_category(rec.get(f)), 0)))
    if tok is not None:
        text = rec.get(config["text_field"])
        row.extend(float(i) for i in tok.encode("" if text is None else str(text), int(config["max_sequence_length"])))
    return row


def predict_fn(input_data, model):
    config = model["config"]
    records = _records(input_data, model)
    rows = [r for r in records if r is not None]
    classes = config["classes"]
    if not rows:
        return [{"header": ["prob_class_%d" % i for i in range(len(classes))]} for _ in records]
    width = len(config["numeric_fields"]) + len(config["embedding_fields"]) + (int(config["max_sequence_length"]) if model["tokenizer"] is not None else 0)
    x = torch.tensor([_vector(r, config, model["tokenizer"]) for r in rows], dtype=torch.float32).reshape(len(rows), width)
    with torch.no_grad():
        prob = torch.softmax(model["model"](x), 1).tolist()
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
