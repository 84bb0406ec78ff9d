"""CradleDataLoading: load a data set described by the data-loading service's request specs.

Inputs
  /opt/ml/processing/input/config/data_sources_spec/data_sources_spec.json  required
  /opt/ml/processing/input/config/transform_spec/transform_spec.json        required
  /opt/ml/processing/input/config/output_spec/output_spec.json              required
  /opt/ml/processing/input/config/cradle_job_spec/cradle_job_spec.json      optional
Outputs (the layout every data-loading step of the catalog writes)
  /opt/ml/processing/output/data       DATA: part-00000.<csv|tsv|parquet> in output_spec's
                                       format, with a header row unless
                                       include_header_in_s3_output is false
  /opt/ml/processing/output/metadata   METADATA: metadata.json (job type, source, row count,
                                       columns, and the request in the service's camelCase form)
  /opt/ml/processing/output/signature  SIGNATURE: signature, the column names, comma-separated
Environment
  S3_INPUT_OVERRIDE: the S3 prefix of data the service already exported (csv, tsv, parquet,
  json lines); the job downloads it with boto3 (its role needs s3:ListBucket and s3:GetObject).
  SYNTHETIC_DATA: true makes the job write rows that follow output_spec.output_schema and the
  field types the data sources declare (a demo without the service).

The specs are checked first (sources, date range, SQL, output schema) and the request is
recorded in METADATA. The data-loading service itself is not reachable from a processing job
(its client is not public), so the rows come from S3_INPUT_OVERRIDE when it is set (its
columns must include the output schema's, which are written in that order), else with
SYNTHETIC_DATA from the generator; otherwise the job fails and says which to set.
"""
import argparse
import csv
import hashlib
import json
import math
import os
import random
import sys
import tempfile

DATA_SOURCES_SPEC = "/opt/ml/processing/input/config/data_sources_spec"
TRANSFORM_SPEC = "/opt/ml/processing/input/config/transform_spec"
OUTPUT_SPEC = "/opt/ml/processing/input/config/output_spec"
CRADLE_JOB_SPEC = "/opt/ml/processing/input/config/cradle_job_spec"
DATA_OUT = "/opt/ml/processing/output/data"
METADATA_OUT = "/opt/ml/processing/output/metadata"
SIGNATURE_OUT = "/opt/ml/processing/output/signature"

SYNTHETIC_ROWS = {"training": 600}
SYNTHETIC_DEFAULT_ROWS = 300
CATEGORIES = ["1", "3", "4", "5", "7", "44551"]
PAYMENT_METHODS = ["CARD", "GIFT_CARD", "COD", "BANK"]


def log(msg):
    print("[cradle_data_loading] " + msg, flush=True)


def read_spec(folder, name, required=True):
    path = os.path.join(folder, name + ".json")
    if not os.path.isfile(path):
        if required:
            sys.exit("missing request spec %s: the input %s must be mounted" % (path, name))
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def check_specs(ds, tr, out):
    if not ds.get("data_sources"):
        sys.exit("data_sources_spec.data_sources is empty")
    for key in ("start_date", "end_date"):
        if not ds.get(key):
            sys.exit("data_sources_spec.%s is required" % key)
    if str(ds["start_date"]) > str(ds["end_date"]):
        sys.exit("data_sources_spec.start_date %s is after end_date %s" % (ds["start_date"], ds["end_date"]))
    for i, src in enumerate(ds["data_sources"]):
        if not src.get("data_source_name") or not src.get("data_source_type"):
            sys.exit("data_sources_spec.data_sources[%d] needs data_source_name and data_source_type" % i)
    if not str(tr.get("transform_sql", "")).strip():
        sys.exit("transform_spec.transform_sql is required")
    if not out.get("output_schema"):
        sys.exit("output_spec.output_schema lists no columns")
    fmt = str(out.get("output_format", "CSV")).upper()
    if fmt not in ("CSV", "TSV", "PARQUET"):
        sys.exit("output_spec.output_format %r: want CSV, TSV or PARQUET" % fmt)


def camel(v):
    if isinstance(v, dict):
        return {k.split("_")[0] + "".join(w.title() for w in k.split("_")[1:]): camel(x) for k, x in v.items()}
    if isinstance(v, list):
        return [camel(x) for x in v]
    return v


def request(ds, tr, out, job):
    """The CreateCradleDataLoadJob request, as the service takes it (camelCase)."""
    body = {"dataSources": camel(ds), "transformSpecification": camel(tr), "outputSpecification": camel(out)}
    if job is not None:
        body["cradleJobSpecification"] = camel(job)
    return body


def output_columns(out):
    keep_dot = bool(out.get("keep_dot_in_output_schema", False))
    return [str(c) if keep_dot else str(c).replace(".", "__DOT__") for c in out["output_schema"]]


def field_types(ds):
    types = {}
    for src in ds.get("data_sources", []):
        for key in ("mds_data_source_properties", "edx_data_source_properties", "andes_data_source_properties"):
            props = src.get(key) or {}
            for fld in list(props.get("output_schema", [])) + list(props.get("schema_overrides", [])):
                if isinstance(fld, dict) and fld.get("field_name"):
                    types[fld["field_name"].replace(".", "__DOT__")] = str(fld.get("field_type", "STRING")).upper()
    return types


def download(prefix, folder):
    """Download the data files under an s3:// prefix into folder."""
    import boto3

    bucket, _, key = prefix[len("s3://"):].partition("/")
    s3 = boto3.client("s3", region_name=os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or None)
    n = 0
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=key):
        for obj in page.get("Contents", []):
            rel = obj["Key"][len(key):].lstrip("/") or os.path.basename(obj["Key"])
            if obj["Key"].endswith("/") or os.path.basename(rel).startswith((".", "_")):
                continue
            dst = os.path.join(folder, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            s3.download_file(bucket, obj["Key"], dst)
            n += 1
    log("downloaded %d object(s) from %s" % (n, prefix))


def read_override(folder):
    """Header and rows of the exported files under folder."""
    files = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        files += [os.path.join(root, n) for n in sorted(names) if not n.startswith(".") and n.lower().endswith((".csv", ".tsv", ".parquet", ".json", ".jsonl"))]
    if not files:
        sys.exit("S3_INPUT_OVERRIDE holds no csv, tsv, parquet or json files")
    header, rows = None, []
    for p in files:
        if p.lower().endswith(".parquet"):
            import pandas as pd

            df = pd.read_parquet(p)
            h, body = [str(c) for c in df.columns], df.astype(object).where(df.notna(), None).values.tolist()
        elif p.lower().endswith((".json", ".jsonl")):
            with open(p, encoding="utf-8") as f:
                recs = [json.loads(line) for line in f if line.strip()]
            h = list(recs[0].keys()) if recs else []
            body = [[r.get(c) for c in h] for r in recs]
        else:
            with open(p, newline="", encoding="utf-8") as f:
                lines = list(csv.reader(f, delimiter="\t" if p.lower().endswith(".tsv") else ","))
            h, body = (lines[0], lines[1:]) if lines else ([], [])
        if header is None:
            header = h
        elif h != header:
            sys.exit("%s has columns %s, the first file has %s" % (p, h, header))
        rows += body
    return header, rows, files


def is_label(name, typ):
    n = name.lower()
    return typ in ("INT", "INTEGER", "BIGINT", "BOOLEAN") and (n.startswith("is_") or n.endswith("label"))


def synthesize(columns, types, n_rows, rng):
    """Rows following the declared types; an is_*/…label INT column depends on the others."""
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
            elif low in ("amount", "price", "value"):
                row.append(amount)
            elif typ in ("DOUBLE", "FLOAT", "DECIMAL"):
                row.append(round(rng.gauss(0, 1), 4))
            elif typ in ("INT", "INTEGER", "BIGINT", "LONG"):
                row.append(orders if "count" in low else rng.randint(0, 100))
            elif "date" in low or "time" in low:
                row.append("2025-%02d-%02dT%02d:00:00" % (rng.randint(1, 9), rng.randint(1, 28), rng.randint(0, 23)))
            elif low.endswith("id") and "marketplace" not in low:
                row.append("%s-%06d-%04d" % (col[:3].upper(), i, rng.randint(0, 9999)))
            elif "payment" in low or "method" in low:
                row.append(method)
            else:
                row.append(rng.choice(CATEGORIES))
        rows.append(row)
    return rows


def write_data(columns, rows, out, folder):
    fmt = str(out.get("output_format", "CSV")).upper()
    header = out.get("include_header_in_s3_output", True)
    os.makedirs(folder, exist_ok=True)
    if fmt == "PARQUET":
        import pandas as pd

        path = os.path.join(folder, "part-00000.parquet")
        pd.DataFrame(rows, columns=columns).to_parquet(path, index=False)
        return path
    path = os.path.join(folder, "part-00000." + fmt.lower())
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, delimiter="\t" if fmt == "TSV" else ",", lineterminator="\n")
        if header:
            w.writerow(columns)
        w.writerows([["" if v is None else v for v in r] for r in rows])
    return path


def main(input_paths, output_paths, environ_vars, job_args):
    ds = read_spec(input_paths["data_sources_spec"], "data_sources_spec")
    tr = read_spec(input_paths["transform_spec"], "transform_spec")
    out = read_spec(input_paths["output_spec"], "output_spec")
    job = read_spec(input_paths["cradle_job_spec"], "cradle_job_spec", required=False)
    check_specs(ds, tr, out)
    columns = output_columns(out)
    synthetic = str(environ_vars.get("SYNTHETIC_DATA") or "").strip().lower() == "true"
    override = str(environ_vars.get("S3_INPUT_OVERRIDE") or "").strip()

    if override:
        if not override.startswith("s3://"):
            sys.exit("S3_INPUT_OVERRIDE must be an s3:// prefix, not %r" % override)
        local = tempfile.mkdtemp(prefix="cradle-override-")
        download(override, local)
        header, rows, files = read_override(local)
        absent = [c for c in columns if c not in header]
        if absent:
            sys.exit("s3_input_override lacks output_schema columns %s (it has %s)" % (absent, header))
        idx = [header.index(c) for c in columns]
        rows = [[r[i] for i in idx] for r in rows]
        source = {"mode": "s3_input_override", "prefix": override, "files": [os.path.relpath(f, local) for f in files]}
    elif synthetic:
        seed = hashlib.sha256(("%s|%s|%s" % (job_args.job_type, ds["start_date"], ds["end_date"])).encode()).hexdigest()
        rows = synthesize(columns, field_types(ds), SYNTHETIC_ROWS.get(job_args.job_type, SYNTHETIC_DEFAULT_ROWS), random.Random(int(seed[:16], 16)))
        source = {"mode": "synthetic"}
    else:
        sys.exit("no data: the data-loading service is not reachable from a processing job, so set config field "
                 "s3_input_override to the S3 prefix of the service's export, or synthetic_data: true for demo rows")

    data_file = write_data(columns, rows, out, output_paths["DATA"])
    os.makedirs(output_paths["METADATA"], exist_ok=True)
    with open(os.path.join(output_paths["METADATA"], "metadata.json"), "w", encoding="utf-8") as f:
        json.dump(dict(source, job_type=job_args.job_type, row_count=len(rows), columns=columns,
                       data_file=os.path.basename(data_file), request=request(ds, tr, out, job)), f, indent=2)
    os.makedirs(output_paths["SIGNATURE"], exist_ok=True)
    with open(os.path.join(output_paths["SIGNATURE"], "signature"), "w", encoding="utf-8") as f:
        f.write(",".join(columns) + "\n")
    log("%s (%s): %d rows x %d columns to %s" % (job_args.job_type, source["mode"], len(rows), len(columns), data_file))
    return len(rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Load a data set described by the data-loading request specs.")
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    main({"data_sources_spec": DATA_SOURCES_SPEC, "transform_spec": TRANSFORM_SPEC, "output_spec": OUTPUT_SPEC,
          "cradle_job_spec": CRADLE_JOB_SPEC},
         {"DATA": DATA_OUT, "METADATA": METADATA_OUT, "SIGNATURE": SIGNATURE_OUT},
         {"S3_INPUT_OVERRIDE": os.environ.get("S3_INPUT_OVERRIDE", ""), "SYNTHETIC_DATA": os.environ.get("SYNTHETIC_DATA", "")}, args)
