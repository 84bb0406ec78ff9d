"""AthenaDataLoading: run a SQL query with Amazon Athena and publish the result.

Outputs (the layout every data-loading step of the catalog writes)
  /opt/ml/processing/output/data       DATA: part-00000.csv (a header row, then the rows as
                                       Athena returns them) or part-00000.parquet
  /opt/ml/processing/output/signature  SIGNATURE: signature, the column names, comma-separated
Environment
  ATHENA_DATABASE, ATHENA_QUERY (required), ATHENA_WORKGROUP, ATHENA_OUTPUT_LOCATION (S3 prefix
  for Athena's own result files; default: the workgroup's), OUTPUT_FORMAT (CSV or PARQUET),
  QUERY_TIMEOUT_SECONDS (the query is stopped and the job fails after it).

The job's role needs athena:StartQueryExecution, GetQueryExecution, GetQueryResults and
StopQueryExecution, Glue read access to the tables and S3 access to the result location. The
region is the job's (AWS_REGION, as SageMaker sets it). Only boto3 is needed, pandas for PARQUET.
"""
import argparse
import csv
import os
import sys
import time

import boto3

DATA_DIR = "/opt/ml/processing/output/data"
SIGNATURE_DIR = "/opt/ml/processing/output/signature"

DONE = ("SUCCEEDED", "FAILED", "CANCELLED")


def log(msg):
    print("[athena_data_loading] " + msg, flush=True)


def client():
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or boto3.session.Session().region_name or "us-east-1"
    return boto3.client("athena", region_name=region)


def run_query(athena, query, database, workgroup, output_location, timeout):
    """Start the query, wait for it, return its execution id; exit on failure or timeout."""
    req = {"QueryString": query, "QueryExecutionContext": {"Database": database}}
    if workgroup:
        req["WorkGroup"] = workgroup
    if output_location:
        req["ResultConfiguration"] = {"OutputLocation": output_location}
    qid = athena.start_query_execution(**req)["QueryExecutionId"]
    log("query %s started in database %s (workgroup %s)" % (qid, database, workgroup or "default"))
    deadline, delay = time.time() + timeout, 1.0
    while True:
        status = athena.get_query_execution(QueryExecutionId=qid)["QueryExecution"]["Status"]
        state = status["State"]
        if state in DONE:
            break
        if time.time() > deadline:
            athena.stop_query_execution(QueryExecutionId=qid)
            sys.exit("query %s did not finish within %d seconds; it was stopped" % (qid, timeout))
        time.sleep(delay)
        delay = min(delay * 1.5, 15.0)
    if state != "SUCCEEDED":
        sys.exit("query %s %s: %s" % (qid, state, status.get("StateChangeReason", "no reason given")))
    return qid


def fetch(athena, qid):
    """Column names and rows (lists of strings, None for NULL) of a finished query."""
    columns, rows, first = None, [], True
    for page in athena.get_paginator("get_query_results").paginate(QueryExecutionId=qid):
        rs = page["ResultSet"]
        if columns is None:
            columns = [c.get("Name") or c.get("Label") for c in rs.get("ResultSetMetadata", {}).get("ColumnInfo", [])]
        for i, row in enumerate(rs.get("Rows", [])):
            values = [d.get("VarCharValue") for d in row.get("Data", [])]
            if first and i == 0 and columns and values == columns:
                continue  # the header row Athena puts first for a SELECT
            rows.append(values)
        first = False
    return columns or [], rows


def write(columns, rows, fmt, data_dir, sig_dir):
    os.makedirs(data_dir, exist_ok=True)
    if fmt == "PARQUET":
        import pandas as pd

        pd.DataFrame(rows, columns=columns).to_parquet(os.path.join(data_dir, "part-00000.parquet"), index=False)
    else:
        with open(os.path.join(data_dir, "part-00000.csv"), "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(columns)
            w.writerows([["" if v is None else v for v in r] for r in rows])
    os.makedirs(sig_dir, exist_ok=True)
    with open(os.path.join(sig_dir, "signature"), "w", encoding="utf-8") as f:
        f.write(",".join(columns) + "\n")


def main(input_paths, output_paths, environ_vars, job_args):
    database = str(environ_vars.get("ATHENA_DATABASE") or "").strip()
    query = str(environ_vars.get("ATHENA_QUERY") or "").strip()
    if not database or not query:
        sys.exit("ATHENA_DATABASE and ATHENA_QUERY are required")
    fmt = str(environ_vars.get("OUTPUT_FORMAT") or "CSV").strip().upper()
    if fmt not in ("CSV", "PARQUET"):
        sys.exit("OUTPUT_FORMAT must be CSV or PARQUET, not %r" % fmt)
    timeout = int(environ_vars.get("QUERY_TIMEOUT_SECONDS") or 3600)
    athena = client()
    qid = run_query(athena, query, database, str(environ_vars.get("ATHENA_WORKGROUP") or "").strip(),
                    str(environ_vars.get("ATHENA_OUTPUT_LOCATION") or "").strip(), timeout)
    columns, rows = fetch(athena, qid)
    if not columns:
        sys.exit("query %s returned no columns" % qid)
    write(columns, rows, fmt, output_paths["DATA"], output_paths["SIGNATURE"])
    log("job type %s: %d rows x %d columns" % (job_args.job_type, len(rows), len(columns)))
    return len(rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Run an Athena query and publish the result as DATA and SIGNATURE.")
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    environ = {
        "ATHENA_DATABASE": os.environ.get("ATHENA_DATABASE", ""),
        "ATHENA_QUERY": os.environ.get("ATHENA_QUERY", ""),
        "ATHENA_WORKGROUP": os.environ.get("ATHENA_WORKGROUP", ""),
        "ATHENA_OUTPUT_LOCATION": os.environ.get("ATHENA_OUTPUT_LOCATION", ""),
        "OUTPUT_FORMAT": os.environ.get("OUTPUT_FORMAT", ""),
        "QUERY_TIMEOUT_SECONDS": os.environ.get("QUERY_TIMEOUT_SECONDS", ""),
    }
    main({}, {"DATA": DATA_DIR, "SIGNATURE": SIGNATURE_DIR}, environ, args)
