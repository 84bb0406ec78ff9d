"""RedshiftDataLoading: run a SQL query against an Amazon Redshift cluster and publish the result.

Output (the layout every data-loading step of the catalog writes)
  /opt/ml/processing/output/data   output: part-00000.csv, a header row (unless DROP_HEADER) and
                                   the result rows; NULL is an empty field
Environment
  CLUSTER_ID, DB_NAME, CLUSTER_ENDPOINT, QUERY, REDSHIFT_ROLE_ARN (required), PORT,
  CONNECTOR_TYPE, DB_USER, OUTPUT_DATA_SOURCE_TYPE (S3, or EDX: also register the file with a
  data exchange), EDX_ARN, DROP_HEADER.

The job assumes REDSHIFT_ROLE_ARN. CONNECTOR_TYPE data_api (the default) runs the query through
the Redshift Data API with boto3 alone (ExecuteStatement, DescribeStatement, GetStatementResult;
as DB_USER when set, else as the role's IAM identity). redshift_connector or pg8000 connect to
CLUSTER_ENDPOINT:PORT with temporary cluster credentials; the driver must be in the image (the
job installs nothing). EDX needs the data-exchange client library in the image.
"""
import argparse
import csv
import os
import sys
import time

import boto3

OUTPUT_DIR = "/opt/ml/processing/output/data"

DONE = ("FINISHED", "FAILED", "ABORTED")


def log(msg):
    print("[redshift_data_loading] " + msg, flush=True)


def region():
    return os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or boto3.session.Session().region_name or "us-east-1"


def assumed_session(role_arn):
    sts = boto3.client("sts", region_name=region())
    creds = sts.assume_role(RoleArn=role_arn, RoleSessionName="cursus-redshift-data-loading")["Credentials"]
    return boto3.session.Session(aws_access_key_id=creds["AccessKeyId"], aws_secret_access_key=creds["SecretAccessKey"],
                                 aws_session_token=creds["SessionToken"], region_name=region())


def field_value(f):
    if f.get("isNull"):
        return None
    for key in ("stringValue", "longValue", "doubleValue", "booleanValue"):
        if key in f:
            v = f[key]
            return ("true" if v else "false") if key == "booleanValue" else v
    if "blobValue" in f:
        return f["blobValue"].hex() if isinstance(f["blobValue"], (bytes, bytearray)) else f["blobValue"]
    return None


def query_data_api(session, cluster_id, database, db_user, sql, timeout=43200):
    rsd = session.client("redshift-data")
    req = {"ClusterIdentifier": cluster_id, "Database": database, "Sql": sql}
    if db_user:
        req["DbUser"] = db_user
    sid = rsd.execute_statement(**req)["Id"]
    log("statement %s submitted to cluster %s, database %s" % (sid, cluster_id, database))
    deadline, delay = time.time() + timeout, 0.5
    while True:
        d = rsd.describe_statement(Id=sid)
        if d["Status"] in DONE:
            break
        if time.time() > deadline:
            rsd.cancel_statement(Id=sid)
            sys.exit("statement %s did not finish within %d seconds; it was cancelled" % (sid, timeout))
        time.sleep(delay)
        delay = min(delay * 1.5, 10.0)
    if d["Status"] != "FINISHED":
        sys.exit("statement %s %s: %s" % (sid, d["Status"], d.get("Error", "no error message")))
    if not d.get("HasResultSet", True):
        sys.exit("statement %s returned no result set: QUERY must be a SELECT" % sid)
    columns, rows, token = None, [], None
    while True:
        page = rsd.get_statement_result(Id=sid, **({"NextToken": token} if token else {}))
        if columns is None:
            columns = [c.get("label") or c.get("name") for c in page.get("ColumnMetadata", [])]
        rows.extend([field_value(f) for f in rec] for rec in page.get("Records", []))
        token = page.get("NextToken")
        if not token:
            return columns, rows


def cluster_login(session, cluster_id, database, db_user):
    rs = session.client("redshift")
    if db_user:
        c = rs.get_cluster_credentials(ClusterIdentifier=cluster_id, DbName=database, DbUser=db_user, DurationSeconds=3600)
    else:
        c = rs.get_cluster_credentials_with_iam(ClusterIdentifier=cluster_id, DbName=database, DurationSeconds=3600)
    return c["DbUser"], c["DbPassword"]


def query_driver(kind, session, endpoint, port, cluster_id, database, db_user, sql):
    try:
        driver = __import__(kind)
    except ImportError:
        sys.exit("CONNECTOR_TYPE %s: the %s driver is not in this image (the job installs nothing); use data_api" % (kind, kind))
    user, password = cluster_login(session, cluster_id, database, db_user)
    if kind == "pg8000":
        conn = driver.connect(database=database, host=endpoint, port=port, user=user, password=password, ssl_context=True)
    else:
        conn = driver.connect(database=database, host=endpoint, port=port, user=user, password=password)
    try:
        cur = conn.cursor()
        cur.execute(sql)
        columns = [d[0] for d in cur.description]
        return columns, [list(r) for r in cur.fetchall()]
    finally:
        conn.close()


def register_edx(edx_arn, path):
    try:
        from secure_ai_sandbox_python_lib.session import Session
    except ImportError:
        sys.exit("OUTPUT_DATA_SOURCE_TYPE EDX: the data-exchange client (secure_ai_sandbox_python_lib) is not in this image; "
                 "the data was written to %s" % path)
    Session(session_folder="/tmp/").resource("EdxDataLoader").upload_data_to_edx(edx_arn, path)
    log("registered %s with %s" % (path, edx_arn))


def main(input_paths, output_paths, environ_vars, job_args):
    cluster_id = str(environ_vars.get("CLUSTER_ID") or "").strip()
    database = str(environ_vars.get("DB_NAME") or "").strip()
    endpoint = str(environ_vars.get("CLUSTER_ENDPOINT") or "").strip()
    sql = str(environ_vars.get("QUERY") or "").strip()
    role = str(environ_vars.get("REDSHIFT_ROLE_ARN") or "").strip()
    missing = [n for n, v in (("CLUSTER_ID", cluster_id), ("DB_NAME", database), ("CLUSTER_ENDPOINT", endpoint), ("QUERY", sql), ("REDSHIFT_ROLE_ARN", role)) if not v]
    if missing:
        sys.exit("required environment variable(s) not set: %s" % ", ".join(missing))
    port = int(environ_vars.get("PORT") or 5439)
    connector = str(environ_vars.get("CONNECTOR_TYPE") or "data_api").strip()
    db_user = str(environ_vars.get("DB_USER") or "").strip()
    target = str(environ_vars.get("OUTPUT_DATA_SOURCE_TYPE") or "S3").strip().upper()
    edx_arn = str(environ_vars.get("EDX_ARN") or "").strip()
    drop_header = str(environ_vars.get("DROP_HEADER") or "").strip().lower() == "true"
    if target not in ("S3", "EDX"):
        sys.exit("OUTPUT_DATA_SOURCE_TYPE must be S3 or EDX, not %r" % target)
    if target == "EDX" and not edx_arn:
        sys.exit("OUTPUT_DATA_SOURCE_TYPE EDX needs EDX_ARN")
    log("cluster %s (%s:%d), database %s, connector %s, role %s" % (cluster_id, endpoint, port, database, connector, role))

    session = assumed_session(role)
    if connector == "data_api":
        columns, rows = query_data_api(session, cluster_id, database, db_user, sql)
    elif connector in ("redshift_connector", "pg8000"):
        columns, rows = query_driver(connector, session, endpoint, port, cluster_id, database, db_user, sql)
    else:
        sys.exit("CONNECTOR_TYPE must be data_api, redshift_connector or pg8000, not %r" % connector)

    out = output_paths["output"]
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "part-00000.csv")
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        if not drop_header:
            w.writerow(columns)
        w.writerows([["" if v is None else v for v in r] for r in rows])
    log("%d rows x %d columns written to %s" % (len(rows), len(columns), path))
    if target == "EDX":
        register_edx(edx_arn, path)
    return len(rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Run a Redshift query and publish the result.")
    parser.parse_args()
    environ = {
        "CLUSTER_ID": os.environ.get("CLUSTER_ID", ""),
        "DB_NAME": os.environ.get("DB_NAME", ""),
        "CLUSTER_ENDPOINT": os.environ.get("CLUSTER_ENDPOINT", ""),
        "QUERY": os.environ.get("QUERY", ""),
        "REDSHIFT_ROLE_ARN": os.environ.get("REDSHIFT_ROLE_ARN", ""),
        "PORT": os.environ.get("PORT", ""),
        "CONNECTOR_TYPE": os.environ.get("CONNECTOR_TYPE", ""),
        "DB_USER": os.environ.get("DB_USER", ""),
        "OUTPUT_DATA_SOURCE_TYPE": os.environ.get("OUTPUT_DATA_SOURCE_TYPE", ""),
        "EDX_ARN": os.environ.get("EDX_ARN", ""),
        "DROP_HEADER": os.environ.get("DROP_HEADER", ""),
    }
    main({}, {"output": OUTPUT_DIR}, environ, argparse.Namespace())
