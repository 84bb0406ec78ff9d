"""Load a data set described by the Cradle request specs.

Contract (CradleDataLoading): the four request specs are mounted as JSON files
(SageMaker caps an environment value at 256 characters, a real spec is longer):

  /opt/ml/processing/input/config/data_sources_spec/data_sources_spec.json  required
  /opt/ml/processing/input/config/transform_spec/transform_spec.json        required
  /opt/ml/processing/input/config/output_spec/output_spec.json              required
  /opt/ml/processing/input/config/cradle_job_spec/cradle_job_spec.json      optional

and the job writes /opt/ml/processing/output/{data,metadata,signature}.

The data-loading service itself is not reachable from this example, so the
script validates the specs, records the request it would submit (camelCase,
as the service takes it) in METADATA, and writes a small synthetic data set
that follows output_spec.output_schema and the field types the data sources
declare: STRING ids and categories, INT/DOUBLE numbers, and a binary label
(an INT field named is_* or *label) that depends on the numeric fields, so a
model trained on it learns something. The rows are reproducible for a given
job type and date range.
"""
import argparse
import csv
import hashlib
import json
import math
import os
import random

DATA_SOURCES_SPEC = "/opt/ml/processing/input/config/data_sources_spec"
TRANSFORM_SPEC = "/opt/ml/processing/input/config/transform_spec"
OUTPUT_SPEC = "/opt/ml/processing/input/config/output_spec"
CRADLE_JOB_SPEC = "/opt/ml/processing/input/config/cradle_job_spec"
DATA_OUT = "/opt/ml/processing/output/data"
METADATA_OUT = "/opt/ml/processing/output/metadata"
SIGNATURE_OUT = "/opt/ml/processing/output/signature"

ROWS_PER_JOB = {"training": 600}
DEFAULT_ROWS = 300
CATEGORIES = ["1", "3", "4", "5", "7", "44551"]
PAYMENT_METHODS = ["CARD", "GIFT_CARD", "COD", "BANK"]


def read_spec(folder, name, required=True):
    path = os.path.join(folder, name + ".json")
    if not os.path.exists(path):
        if required:
            raise SystemExit(f"missing request spec {path}: the input {name} must be mounted")
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def field_types(data_sources_spec):
    """Field name -> declared type across every data source."""
    types = {}
    for src in data_sources_spec.get("data_sources", []):
        for key in ("mds_data_source_properties", "edx_data_source_properties", "andes_data_source_properties"):
            props = src.get(key) or {}
            for fld in props.get("output_schema", []) + props.get("schema_overrides", []):
                types[fld["field_name"]] = fld.get("field_type", "STRING").upper()
    return types


def check_specs(ds, tr, out):
    if not ds.get("data_sources"):
        raise SystemExit("data_sources_spec.data_sources is empty")
    for key in ("start_date", "end_date"):
        if key not in ds:
            raise SystemExit(f"data_sources_spec.{key} is required")
    if ds["start_date"] > ds["end_date"]:
        raise SystemExit("data_sources_spec.start_date is after end_date")
    if not tr.get("transform_sql", "").strip():
        raise SystemExit("transform_spec.transform_sql is required")
    if not out.get("output_schema"):
        raise SystemExit("output_spec.output_schema lists no columns")


def request(ds, tr, out, job):
    """The request as the data-loading service takes it (camelCase)."""
    def camel(v):
        if isinstance(v, dict):
            return {k.split("_")[0] + "".join(w.title() for w in k.split("_")[1:]): camel(x) for k, x in v.items()}
        if isinstance(v, list):
            return [camel(x) for x in v]
        return v
    body = {"dataSources": camel(ds), "transformSpecification": camel(tr), "outputSpecification": camel(out)}
    if job is not None:
        body["cradleJobSpecification"] = camel(job)
    return body


def is_label(name, typ):
    n = name.lower()
    return typ in ("INT", "INTEGER", "BIGINT", "BOOLEAN") and (n.startswith("is_") or n.endswith("label"))


def synthesize(columns, types, n_rows, rng):
    rows = []
    for i in range(n_rows):
        amount = round(rng.lognormvariate(3.5, 1.0), 2)
        orders = rng.randint(0, 40)
        method = rng.choice(PAYMENT_METHODS)
        latent = 0.9 * (math.log(amount + 1) - 3.5) - 0.08 * orders + (1.2 if method == "GIFT_CARD" else 0.0) - 1.0
        label = 1 if rng.random() < 1 / (1 + math.exp(-latent)) else 0
        row = []
        for col in columns:
            typ = types.get(col, "STRING")
            low = col.lower()
            if is_label(col, typ):
                row.append(label)
            elif low in ("amount", "price", "value") or typ in ("DOUBLE", "FLOAT", "DECIMAL"):
                row.append(amount if low in ("amount", "price", "value") else round(rng.gauss(0, 1), 4))
            elif typ in ("INT", "INTEGER", "BIGINT", "LONG"):
                row.append(orders if "count" in low else rng.randint(0, 100))
            elif "date" in low or "time" in low:
                row.append(f"2025-{rng.randint(1, 9):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:00:00")
            elif low.endswith("id") and "marketplace" not in low:
                row.append(f"{col[:3].upper()}-{i:06d}-{rng.randint(0, 9999):04d}")
            elif "payment" in low or "method" in low:
                row.append(method)
            else:
                row.append(rng.choice(CATEGORIES))
        rows.append(row)
    return rows


def write_data(columns, rows, out_spec):
    fmt = out_spec.get("output_format", "CSV").upper()
    header = out_spec.get("include_header_in_s3_output", True)
    os.makedirs(DATA_OUT, exist_ok=True)
    if fmt in ("CSV", "TSV"):
        path = os.path.join(DATA_OUT, "part-00000." + fmt.lower())
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, delimiter="\t" if fmt == "TSV" else ",")
            if header:
                w.writerow(columns)
            w.writerows(rows)
        return path
    if fmt == "PARQUET":
        import pandas as pd  # present in the processing image; CSV and TSV need nothing

        path = os.path.join(DATA_OUT, "part-00000.parquet")
        pd.DataFrame(rows, columns=columns).to_parquet(path, index=False)
        return path
    raise SystemExit(f"output_spec.output_format {fmt!r}: want CSV, TSV or PARQUET")


def main(input_paths, output_paths, environ_vars, job_args):
    ds = read_spec(input_paths["data_sources_spec"], "data_sources_spec")
    tr = read_spec(input_paths["transform_spec"], "transform_spec")
    out = read_spec(input_paths["output_spec"], "output_spec")
    job = read_spec(input_paths["cradle_job_spec"], "cradle_job_spec", required=False)
    check_specs(ds, tr, out)

    columns = [c.replace(".", "__DOT__") if not out.get("keep_dot_in_output_schema", False) else c for c in out["output_schema"]]
    types = field_types(ds)
    seed = hashlib.sha256(f"{job_args.job_type}|{ds['start_date']}|{ds['end_date']}".encode()).hexdigest()
    rng = random.Random(int(seed[:16], 16))
    rows = synthesize(columns, types, ROWS_PER_JOB.get(job_args.job_type, DEFAULT_ROWS), rng)
    data_file = write_data(columns, rows, out)

    os.makedirs(output_paths["METADATA"], exist_ok=True)
    with open(os.path.join(output_paths["METADATA"], "metadata.json"), "w", encoding="utf-8") as f:
        json.dump({"job_type": job_args.job_type, "mode": "offline-synthetic", "row_count": len(rows),
                   "columns": columns, "data_file": os.path.basename(data_file),
                   "request": request(ds, tr, out, job)}, f, indent=2)
    os.makedirs(output_paths["SIGNATURE"], exist_ok=True)
    with open(os.path.join(output_paths["SIGNATURE"], "signature"), "w", encoding="utf-8") as f:
        f.write(",".join(columns) + "\n")
    print(f"{job_args.job_type}: wrote {len(rows)} rows x {len(columns)} columns to {data_file}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    main(
        {"data_sources_spec": DATA_SOURCES_SPEC, "transform_spec": TRANSFORM_SPEC,
         "output_spec": OUTPUT_SPEC, "cradle_job_spec": CRADLE_JOB_SPEC},
        {"DATA": DATA_OUT, "METADATA": METADATA_OUT, "SIGNATURE": SIGNATURE_OUT},
        {},
        args,
    )
