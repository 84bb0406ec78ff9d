"""Payload: write sample inference requests for model registration and load testing.

Inputs
  /opt/ml/processing/input/model           the trained model (model.tar.gz or its files): its
                                           hyperparameters.json names the input fields
                                           (full_field_list without the label and id, else the
                                           feature columns) and which are numeric
                                           (tab_field_list) or text (cat_field_list)
  /opt/ml/processing/input/custom_payload  optional: custom_payloads.json ({content type: sample
                                           body}, from config field custom_payloads), or sample
                                           files (*.csv, *.json) used as they are
  /opt/ml/processing/input/config/field_defaults  optional: field_defaults.json, a sample value
                                           per field name
Output
  /opt/ml/processing/output/payload.tar.gz one sample request per content type:
                                           payload_text_csv_0.csv (the input fields' values in
                                           order, one line, no header),
                                           payload_application_json_0.json ({field: value})
Environment
  CONTENT_TYPES (comma-separated: text/csv, application/json), DEFAULT_NUMERIC_VALUE,
  DEFAULT_TEXT_VALUE, WORKING_DIRECTORY (scratch directory)
"""
import json
import os
import shutil
import sys
import tarfile

MODEL_DIR = "/opt/ml/processing/input/model"
CUSTOM_PAYLOAD_DIR = "/opt/ml/processing/input/custom_payload"
FIELD_DEFAULTS_DIR = "/opt/ml/processing/input/config/field_defaults"
OUTPUT_DIR = "/opt/ml/processing/output"
ARCHIVE = "payload.tar.gz"
EXTENSIONS = {"text/csv": "csv", "application/json": "json", "application/jsonlines": "jsonl"}


def log(msg):
    print("[payload] " + msg, flush=True)


def fail(msg):
    print("[payload] ERROR: " + msg, file=sys.stderr, flush=True)
    sys.exit(1)


def hyperparameters(model_dir, work):
    path = os.path.join(model_dir, "hyperparameters.json")
    if not os.path.isfile(path):
        for name in sorted(os.listdir(model_dir)) if os.path.isdir(model_dir) else []:
            if name.endswith((".tar.gz", ".tgz")):
                with tarfile.open(os.path.join(model_dir, name)) as tar:
                    for m in tar.getmembers():
                        if m.isfile() and os.path.basename(m.name) == "hyperparameters.json" and ".." not in m.name.split("/"):
                            with tar.extractfile(m) as f, open(os.path.join(work, "hyperparameters.json"), "wb") as out:
                                out.write(f.read())
                            path = os.path.join(work, "hyperparameters.json")
                            break
            if os.path.isfile(path):
                break
    if not os.path.isfile(path):
        fail("no hyperparameters.json in %s (nor in a model.tar.gz there)" % model_dir)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def input_fields(hp):
    label, id_name = hp.get("label_name"), hp.get("id_name")
    fields = [f for f in (hp.get("full_field_list") or []) if f not in (label, id_name)]
    if not fields:
        fields = list(hp.get("feature_columns") or []) or list(hp.get("tab_field_list") or []) + list(hp.get("cat_field_list") or [])
    if not fields:
        fail("hyperparameters.json names no input fields (full_field_list, tab_field_list, cat_field_list)")
    return fields


def number(v):
    f = float(v)
    return int(f) if f == int(f) else f


def main(input_paths, output_paths, environ_vars, job_args=None):
    work = environ_vars.get("WORKING_DIRECTORY") or "/tmp/payload_work"
    if os.path.exists(work):
        shutil.rmtree(work)
    samples = os.path.join(work, "samples")
    os.makedirs(samples)
    types = [t.strip() for t in (environ_vars.get("CONTENT_TYPES") or "text/csv").split(",") if t.strip()]
    for t in types:
        if t not in EXTENSIONS:
            fail("content type %s: the generator writes %s" % (t, ", ".join(sorted(EXTENSIONS))))
    written = []
    custom = input_paths.get("custom_payload_input", CUSTOM_PAYLOAD_DIR)
    spec = os.path.join(custom, "custom_payloads.json")
    if os.path.isfile(spec):
        with open(spec, encoding="utf-8") as f:
            bodies = json.load(f)
        for t, body in sorted(bodies.items()):
            name = "payload_%s_0.%s" % (t.replace("/", "_"), EXTENSIONS.get(t, "txt"))
            with open(os.path.join(samples, name), "w", encoding="utf-8") as out:
                out.write(body if isinstance(body, str) else json.dumps(body))
            written.append(name)
        log("custom payloads for %s" % ", ".join(sorted(bodies)))
    elif os.path.isdir(custom):
        for name in sorted(os.listdir(custom)):  # sample files at the top level only
            if name.endswith((".csv", ".json", ".jsonl")) and os.path.isfile(os.path.join(custom, name)):
                shutil.copy2(os.path.join(custom, name), os.path.join(samples, name))
                written.append(name)
        if written:
            log("custom payload files: %s" % ", ".join(written))
    if not written:
        hp = hyperparameters(input_paths["model_input"], work)
        fields = input_fields(hp)
        text_fields = set(hp.get("cat_field_list") or [])
        numeric_fields = set(hp.get("tab_field_list") or [])
        defaults = {}
        dpath = os.path.join(input_paths.get("field_defaults", FIELD_DEFAULTS_DIR), "field_defaults.json")
        if os.path.isfile(dpath):
            with open(dpath, encoding="utf-8") as f:
                defaults = json.load(f) or {}
        num_default = number(environ_vars.get("DEFAULT_NUMERIC_VALUE") or 0)
        text_default = environ_vars.get("DEFAULT_TEXT_VALUE") or "DEFAULT_TEXT"
        record = {}
        for fld in fields:
            if fld in defaults:
                record[fld] = defaults[fld]
            elif fld in numeric_fields or (fld not in text_fields and not text_fields and not numeric_fields):
                record[fld] = num_default
            else:
                record[fld] = text_default
        for t in types:
            name = "payload_%s_0.%s" % (t.replace("/", "_"), EXTENSIONS[t])
            with open(os.path.join(samples, name), "w", encoding="utf-8") as out:
                if t == "text/csv":
                    out.write(",".join("" if record[f] is None else str(record[f]) for f in fields) + "\n")
                else:
                    out.write(json.dumps(record) + ("\n" if t == "application/jsonlines" else ""))
            written.append(name)
        log("generated %s for %d input fields: %s" % (", ".join(types), len(fields), ", ".join(fields)))
    out_dir = output_paths["payload_sample"]
    os.makedirs(out_dir, exist_ok=True)
    archive = os.path.join(out_dir, ARCHIVE)
    with tarfile.open(archive, "w:gz") as tar:
        for name in written:
            tar.add(os.path.join(samples, name), arcname=name)
    log("wrote %s: %s" % (archive, ", ".join(written)))


if __name__ == "__main__":
    env = {
        "CONTENT_TYPES": os.environ.get("CONTENT_TYPES", "text/csv"),
        "DEFAULT_NUMERIC_VALUE": os.environ.get("DEFAULT_NUMERIC_VALUE", "0"),
        "DEFAULT_TEXT_VALUE": os.environ.get("DEFAULT_TEXT_VALUE", "DEFAULT_TEXT"),
        "WORKING_DIRECTORY": os.environ.get("WORKING_DIRECTORY", "/tmp/payload_work"),
    }
    main({"model_input": MODEL_DIR, "custom_payload_input": CUSTOM_PAYLOAD_DIR, "field_defaults": FIELD_DEFAULTS_DIR},
         {"payload_sample": OUTPUT_DIR}, env)
