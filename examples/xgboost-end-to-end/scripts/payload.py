"""Generate sample inference requests for registration and load tests.

Contract (Payload):
  inputs   /opt/ml/processing/input/model                  the trained model (its hyperparameters.json
                                                           names the input fields)
           /opt/ml/processing/input/custom_payload         optional user-written samples (a CSV line or a JSON
                                                           object over the model's fields), used as given;
                                                           other files there are ignored
           /opt/ml/processing/input/config/field_defaults  optional field_defaults.json: per-field values
  output   /opt/ml/processing/output                       payload.tar.gz, one sample per content type
  env      CONTENT_TYPES (text/csv, application/json), DEFAULT_NUMERIC_VALUE, DEFAULT_TEXT_VALUE,
           WORKING_DIRECTORY
"""
import glob
import json
import os
import shutil
import tarfile

MODEL_DIR = "/opt/ml/processing/input/model"
CUSTOM_PAYLOAD_DIR = "/opt/ml/processing/input/custom_payload"
FIELD_DEFAULTS_DIR = "/opt/ml/processing/input/config/field_defaults"
OUTPUT_DIR = "/opt/ml/processing/output"


def hyperparameters(model_dir):
    for path in glob.glob(os.path.join(model_dir, "**", "hyperparameters.json"), recursive=True):
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    for archive in glob.glob(os.path.join(model_dir, "**", "model.tar.gz"), recursive=True):
        with tarfile.open(archive) as t:
            for m in t.getmembers():
                if os.path.basename(m.name) == "hyperparameters.json" and m.isfile():
                    return json.load(t.extractfile(m))
    raise SystemExit(f"no hyperparameters.json in the model under {model_dir}")


def is_sample(path, fields):
    """A user sample: a CSV line with one value per field, or a JSON object keyed by fields."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read().strip()
    except UnicodeDecodeError:
        return False
    if path.endswith(".json"):
        try:
            obj = json.loads(text)
        except ValueError:
            return False
        return isinstance(obj, dict) and bool(obj) and set(obj) <= set(fields)
    if path.endswith(".csv"):
        lines = text.splitlines()
        return len(lines) == 1 and len(lines[0].split(",")) == len(fields)
    return False


def main(input_paths, output_paths, environ_vars, job_args):
    hp = hyperparameters(input_paths["model_input"])
    skip = {hp.get("id_name"), hp.get("label_name")}
    numeric = set(hp.get("tab_field_list", []))
    fields = [f for f in hp.get("full_field_list", hp.get("tab_field_list", []) + hp.get("cat_field_list", [])) if f not in skip]
    overrides = {}
    path = os.path.join(input_paths["field_defaults"], "field_defaults.json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            overrides = json.load(f)
    unknown = sorted(set(overrides) - set(fields))
    if unknown:
        print(f"field_defaults names fields the model does not take: {unknown}")
    values = {f: overrides.get(f, environ_vars["DEFAULT_NUMERIC_VALUE"] if f in numeric else environ_vars["DEFAULT_TEXT_VALUE"]) for f in fields}

    work = os.path.join(environ_vars["WORKING_DIRECTORY"], "payload_samples")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    custom = []
    for p in sorted(glob.glob(os.path.join(input_paths["custom_payload_input"], "**", "*"), recursive=True)):
        if os.path.isfile(p):
            if is_sample(p, fields):
                shutil.copy2(p, os.path.join(work, os.path.basename(p)))
                custom.append(p)
            else:
                print(f"ignoring {p}: not a sample request of this model's {len(fields)} fields")
    if not custom:
        for ct in environ_vars["CONTENT_TYPES"]:
            if ct == "text/csv":
                body, name = ",".join(str(values[f]) for f in fields) + "\n", "payload_text_csv.csv"
            elif ct == "application/json":
                body, name = json.dumps(values) + "\n", "payload_application_json.json"
            else:
                raise SystemExit(f"content type {ct!r}: want text/csv or application/json")
            with open(os.path.join(work, name), "w", encoding="utf-8") as f:
                f.write(body)
    out = output_paths["payload_sample"]
    os.makedirs(out, exist_ok=True)
    with tarfile.open(os.path.join(out, "payload.tar.gz"), "w:gz") as t:
        for name in sorted(os.listdir(work)):
            t.add(os.path.join(work, name), arcname=name)
    print(f"payload.tar.gz: {sorted(os.listdir(work))} over {len(fields)} fields")


if __name__ == "__main__":
    env = {
        "CONTENT_TYPES": [c.strip() for c in os.environ.get("CONTENT_TYPES", "text/csv").split(",") if c.strip()],
        "DEFAULT_NUMERIC_VALUE": float(os.environ.get("DEFAULT_NUMERIC_VALUE", "0")),
        "DEFAULT_TEXT_VALUE": os.environ.get("DEFAULT_TEXT_VALUE", "DEFAULT_TEXT"),
        "WORKING_DIRECTORY": os.environ.get("WORKING_DIRECTORY", "/tmp/payload_work"),
    }
    main({"model_input": MODEL_DIR, "custom_payload_input": CUSTOM_PAYLOAD_DIR, "field_defaults": FIELD_DEFAULTS_DIR},
         {"payload_sample": OUTPUT_DIR}, env, None)
