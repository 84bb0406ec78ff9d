# Batch-transform harness of cursus-go engine/localrun: serves a model's
# inference code over a transform job's input files the way the SageMaker
# inference toolkit does behind a batch transform job.
#
# Run as: python3 transform.py <spec.json>; the spec names the model and
# code directories, the program, the input (a file or a directory), the
# output directory and the job's record handling (ContentType, Accept,
# SplitType, AssembleWith, BatchStrategy, MaxPayloadInMB, InputFilter,
# JoinSource, OutputFilter).
#
# The program is imported from the code directory; model_fn(model_dir)
# loads the model once; each request goes through transform_fn(model,
# body, content_type, accept) when the program defines it, else
# input_fn(body, content_type) -> predict_fn(data, model) ->
# output_fn(prediction, accept) (a missing input_fn, predict_fn or output_fn
# falls back to a default for CSV, JSON and NPY). Each input file is split
# into records (SplitType Line) that are sent in batches of at most
# MaxPayloadInMB (MultiRecord) or one by one (SingleRecord), filtered,
# joined and assembled, and written to <output>/<relative path>.out.
import csv
import importlib
import io
import json
import os
import sys


def fail(msg):
    sys.stderr.write("transform: " + msg + "\n")
    sys.exit(1)


# --- JSONPath subset of the transform filters: $, $.key, $[i], $[-i],
# $[i:j], $[i,j,...], chained.

def parse_path(expr):
    if not expr or not expr.startswith("$"):
        fail("filter %r: a JSONPath starts with $" % expr)
    steps, i = [], 1
    while i < len(expr):
        c = expr[i]
        if c == ".":
            j = i + 1
            while j < len(expr) and expr[j] not in ".[":
                j += 1
            steps.append(("key", expr[i + 1:j]))
            i = j
        elif c == "[":
            j = expr.index("]", i)
            body = expr[i + 1:j].strip()
            if body.startswith(("'", '"')):
                steps.append(("key", body[1:-1]))
            elif ":" in body:
                a, b = body.split(":", 1)
                steps.append(("slice", int(a) if a.strip() else None, int(b) if b.strip() else None))
            elif "," in body:
                steps.append(("pick", [int(x) for x in body.split(",")]))
            else:
                steps.append(("index", int(body)))
            i = j + 1
        else:
            fail("filter %r: unexpected %r at %d" % (expr, c, i))
    return steps


def apply_path(steps, value):
    for s in steps:
        if s[0] == "key":
            value = value[s[1]]
        elif s[0] == "index":
            value = value[s[1]]
        elif s[0] == "slice":
            value = value[s[1]:s[2]]
        else:
            value = [value[k] for k in s[1]]
    return value


def is_csv(ct):
    return (ct or "").split(";")[0].strip() == "text/csv"


def is_json(ct):
    base = (ct or "").split(";")[0].strip()
    return base in ("application/json", "application/jsonlines")


def csv_fields(record):
    rows = list(csv.reader([record]))
    return rows[0] if rows else []


def csv_record(value):
    if not isinstance(value, list):
        value = [value]
    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow(value)
    return buf.getvalue()


def filter_record(steps, record, ct):
    if steps is None:
        return record
    if is_csv(ct):
        return csv_record(apply_path(steps, csv_fields(record)))
    if is_json(ct):
        return json.dumps(apply_path(steps, json.loads(record)))
    fail("a filter needs text/csv or application/json records, not %s" % ct)


# --- default handlers (the toolkit's decoders and encoders, small).

def default_input_fn(body, content_type):
    import numpy as np
    if isinstance(body, bytes) and not content_type.startswith("application/x-npy"):
        body = body.decode("utf-8")
    if is_csv(content_type):
        return np.loadtxt(io.StringIO(body), delimiter=",", ndmin=2)
    if is_json(content_type):
        return np.array(json.loads(body))
    if content_type.startswith("application/x-npy"):
        return np.load(io.BytesIO(body), allow_pickle=False)
    fail("no input_fn in the inference code and no default decoder for %s" % content_type)


def default_predict_fn(data, model):
    if hasattr(model, "predict"):
        return model.predict(data)
    return model(data)


def default_output_fn(prediction, accept):
    import numpy as np
    arr = prediction.numpy() if hasattr(prediction, "numpy") else np.asarray(prediction)
    if is_json(accept):
        return json.dumps(arr.tolist())
    if is_csv(accept):
        buf = io.StringIO()
        np.savetxt(buf, arr.reshape(len(arr), -1) if arr.ndim else arr.reshape(1, 1), delimiter=",", fmt="%s")
        return buf.getvalue()
    fail("no output_fn in the inference code and no default encoder for %s" % accept)


def main():
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    code_dir, program = spec["code_dir"], spec["program"]
    if not program.endswith(".py"):
        fail("SAGEMAKER_PROGRAM %r is not a Python file" % program)
    if not os.path.isfile(os.path.join(code_dir, program)):
        fail("the inference program %s is not in %s" % (program, code_dir))
    sys.path.insert(0, code_dir)
    module = importlib.import_module(program[:-3])
    if not hasattr(module, "model_fn"):
        fail("%s defines no model_fn(model_dir)" % program)
    model = module.model_fn(spec["model_dir"])

    ct, accept = spec.get("content_type") or "application/octet-stream", spec.get("accept") or spec.get("content_type") or "application/json"
    transform_fn = getattr(module, "transform_fn", None)
    input_fn = getattr(module, "input_fn", default_input_fn)
    predict_fn = getattr(module, "predict_fn", default_predict_fn)
    output_fn = getattr(module, "output_fn", default_output_fn)

    def invoke(body):
        if transform_fn is not None:
            out = transform_fn(model, body, ct, accept)
        else:
            out = output_fn(predict_fn(input_fn(body, ct), model), accept)
        if isinstance(out, tuple):
            out = out[0]
        if isinstance(out, bytes):
            out = out.decode("utf-8")
        return out if isinstance(out, str) else str(out)

    in_filter = parse_path(spec["input_filter"]) if spec.get("input_filter") else None
    out_filter = parse_path(spec["output_filter"]) if spec.get("output_filter") else None
    join = spec.get("join_source") == "Input"
    split = spec.get("split_type") or "None"
    if split not in ("None", "Line"):
        fail("SplitType %s is not supported by the local runner (None and Line are)" % split)
    single = spec.get("batch_strategy") == "SingleRecord"
    max_payload = int(float(spec.get("max_payload_mb") or 6) * 1024 * 1024)
    assemble = spec.get("assemble_with") or "None"

    src, out_dir = spec["input"], spec["output_dir"]
    if os.path.isdir(src):
        files = sorted(os.path.relpath(os.path.join(d, n), src) for d, _, ns in os.walk(src) for n in ns if not n.startswith("."))
        base = src
    else:
        files, base = [os.path.basename(src)], os.path.dirname(src)
    total = 0
    for rel in files:
        with open(os.path.join(base, rel), "rb") as f:
            data = f.read()
        if split == "Line":
            records = [r for r in data.decode("utf-8").splitlines() if r.strip()]
        else:
            records = [data.decode("utf-8")]
        sent = [filter_record(in_filter, r, ct) for r in records]
        batches, cur, size = [], [], 0
        for i, r in enumerate(sent):
            n = len(r.encode("utf-8")) + 1
            if cur and (single or size + n > max_payload):
                batches.append(cur)
                cur, size = [], 0
            cur.append(i)
            size += n
        if cur:
            batches.append(cur)
        results = []
        for b in batches:
            body = "\n".join(sent[i] for i in b)
            resp = invoke(body.encode("utf-8"))
            if split == "Line" and (join or out_filter is not None or assemble == "Line"):
                lines = [l for l in resp.splitlines() if l.strip()]
                if len(b) > 1 and len(lines) != len(b):
                    fail("%s: a batch of %d records got %d response lines; with SplitType Line, JoinSource and AssembleWith the response must have one line per record" % (rel, len(b), len(lines)))
                pieces = lines if len(b) > 1 else ["\n".join(lines)]
            else:
                pieces = [resp]
            for i, out in zip(b, pieces):
                if join:
                    if is_csv(accept):
                        out = records[i] + "," + out
                    else:
                        out = json.dumps({"SageMakerInput": json.loads(records[i]), "SageMakerOutput": json.loads(out)})
                results.append(filter_record(out_filter, out, accept if not join or is_csv(accept) else "application/json"))
        dst = os.path.join(out_dir, rel + ".out")
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "w") as f:
            if assemble == "Line":
                f.write("\n".join(results) + ("\n" if results else ""))
            else:
                f.write("".join(results))
        total += len(records)
        print("transform: %s: %d record(s), %d request(s) -> %s" % (rel, len(records), len(batches), os.path.relpath(dst, out_dir)))
    if not files:
        fail("the transform input %s holds no files" % src)
    print("transform: %d file(s), %d record(s)" % (len(files), total))


main()
