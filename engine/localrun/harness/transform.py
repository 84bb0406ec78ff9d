# Batch-transform harness of cursus-go engine/localrun: serves a model's
# inference code over a transform job's input files the way the model's
# container does behind a batch transform job.
#
# Run as: python3 transform.py <spec.json>; the spec names the model and
# code directories, the program ("" for the container's default handlers),
# the serving contract (torchserve, sagemaker-containers, unknown) and the
# image family (pytorch, xgboost, sklearn, other), the input (a file or a
# directory), the output directory and the job's record handling
# (ContentType, Accept, SplitType, AssembleWith, BatchStrategy,
# MaxPayloadInMB, InputFilter, JoinSource, OutputFilter).
#
# The program is imported from the code directory; model_fn(model_dir)
# loads the model once; each request (its body text for JSON and CSV, as
# the containers decode them, else bytes) goes through transform_fn(model,
# body, content_type, accept) when the program defines it, else
# input_fn(body, content_type) -> predict_fn(data, model) ->
# output_fn(prediction, accept); a handler the program does not define is
# the container's default (TorchServe's serves a TorchScript model; the
# XGBoost and scikit-learn containers have no default model_fn). A handler
# that raises fails the job, as a request the container answers with an
# error fails a transform job. Each input file is split into records
# (SplitType Line) that are sent in batches of at most MaxPayloadInMB
# (MultiRecord) or one by one (SingleRecord), filtered, joined and
# assembled, and written to <output>/<relative path>.out.
import csv
import importlib
import inspect
import io
import json
import os
import sys
import traceback

import reqcheck


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


# --- the containers' default handlers and codecs (a small rendering of
# the toolkits': sagemaker-inference-toolkit's decoder and encoder, the
# SageMaker PyTorch inference toolkit's DefaultPytorchInferenceHandler,
# sagemaker-containers' encoders and the XGBoost and scikit-learn
# containers' defaults).

JSON_TYPE, CSV_TYPE, NPY_TYPE = "application/json", "text/csv", "application/x-npy"
UTF8_TYPES = (JSON_TYPE, CSV_TYPE)


class UnsupportedFormat(Exception):
    def __init__(self, content_type):
        Exception.__init__(self, "Content type %s is not supported by this framework." % content_type)


def decode(body, content_type):
    import numpy as np
    if content_type == JSON_TYPE:
        return np.array(json.loads(body))
    if content_type == CSV_TYPE:
        return np.genfromtxt(io.StringIO(body), delimiter=",")
    if content_type == NPY_TYPE:
        return np.load(io.BytesIO(body), allow_pickle=True)
    raise UnsupportedFormat(content_type)


def encode(value, accept):
    import numpy as np
    if accept == JSON_TYPE:
        return json.dumps(value, default=lambda v: v.tolist() if hasattr(v, "tolist") else json.JSONEncoder().default(v))
    if accept == CSV_TYPE:
        buf = io.StringIO()
        np.savetxt(buf, value, delimiter=",", fmt="%s")
        return buf.getvalue()
    if accept == NPY_TYPE:
        buf = io.BytesIO()
        np.save(buf, value)
        return buf.getvalue()
    raise UnsupportedFormat(accept)


def no_model_fn(model_dir):
    raise NotImplementedError("Please provide a model_fn implementation. See documentation for model_fn at https://sagemaker.readthedocs.io/en/stable/")


class TorchServeDefaults(object):
    """DefaultPytorchInferenceHandler: a TorchScript model, tensors in, the
    first accepted of JSON, CSV and NPY out."""

    def model_fn(self, model_dir):
        import torch
        path = os.path.join(model_dir, "model.pt")
        if not os.path.exists(path):
            found = [f for f in os.listdir(model_dir) if os.path.isfile(os.path.join(model_dir, f)) and os.path.splitext(f)[1] in (".pt", ".pth")]
            if len(found) != 1:
                raise ValueError("Exactly one .pth or .pt file is required for PyTorch models: %s" % found)
            path = os.path.join(model_dir, found[0])
        try:
            return torch.jit.load(path, map_location=torch.device("cpu"))
        except RuntimeError as e:
            raise RuntimeError("Failed to load %s. Please ensure model is saved using torchscript. (%s)" % (path, e))

    def input_fn(self, body, content_type):
        import torch
        arr = decode(body, content_type)
        return torch.FloatTensor(arr) if content_type in UTF8_TYPES else torch.from_numpy(arr)

    def predict_fn(self, data, model):
        import torch
        with torch.no_grad():
            model.eval()
            return model(data)

    def output_fn(self, prediction, accept):
        import torch
        if isinstance(prediction, torch.Tensor):
            prediction = prediction.detach().cpu().numpy().tolist()
        for ct in accept.replace(" ", "").split(","):
            if ct in (JSON_TYPE, CSV_TYPE, NPY_TYPE):
                return encode(prediction, ct)
        raise UnsupportedFormat(accept)


class XGBoostDefaults(object):
    """The XGBoost container's script-mode defaults: no model_fn, a
    DMatrix of the CSV or LIBSVM request, Booster.predict."""

    model_fn = staticmethod(no_model_fn)

    def input_fn(self, body, content_type):
        import numpy as np
        import xgboost as xgb
        text = body.decode("utf-8") if isinstance(body, bytes) else body
        if content_type == CSV_TYPE:
            rows = [["nan" if x == "" else x for x in line.split(",")] for line in text.split("\n")]
            return xgb.DMatrix(np.array(rows).astype(float))
        if content_type in ("text/libsvm", "text/x-libsvm"):
            rows = []
            for line in text.strip().split("\n"):
                rows.append({int(k): float(v) for k, v in (t.split(":", 1) for t in line.split()[1:] if ":" in t)})
            width = max([max(r) + 1 for r in rows if r] or [0])
            data = np.zeros((len(rows), width))
            for i, r in enumerate(rows):
                for k, v in r.items():
                    data[i, k] = v
            return xgb.DMatrix(data)
        raise UnsupportedFormat(content_type)

    def predict_fn(self, data, model):
        return model.predict(data, validate_features=False)

    def output_fn(self, prediction, accept):
        return encode(prediction, accept)


class SKLearnDefaults(object):
    """The scikit-learn container's defaults: no model_fn, an array of the
    request (float32 for JSON and CSV), model.predict."""

    model_fn = staticmethod(no_model_fn)

    def input_fn(self, body, content_type):
        import numpy as np
        arr = decode(body, content_type)
        return arr.astype(np.float32) if content_type in UTF8_TYPES else arr

    def predict_fn(self, data, model):
        return model.predict(data)

    def output_fn(self, prediction, accept):
        return encode(prediction, accept)


class OtherDefaults(object):
    """An image of no known contract: a generic reading of the toolkits."""

    model_fn = staticmethod(no_model_fn)

    def input_fn(self, body, content_type):
        import numpy as np
        if isinstance(body, bytes) and not content_type.startswith(NPY_TYPE):
            body = body.decode("utf-8")
        if is_csv(content_type):
            return np.loadtxt(io.StringIO(body), delimiter=",", ndmin=2)
        if is_json(content_type):
            return np.array(json.loads(body))
        if content_type.startswith(NPY_TYPE):
            return np.load(io.BytesIO(body), allow_pickle=False)
        raise UnsupportedFormat(content_type)

    def predict_fn(self, data, model):
        if hasattr(model, "predict"):
            return model.predict(data)
        return model(data)

    def output_fn(self, prediction, accept):
        import numpy as np
        arr = prediction.numpy() if hasattr(prediction, "numpy") else np.asarray(prediction)
        if is_json(accept):
            return json.dumps(arr.tolist())
        if is_csv(accept):
            buf = io.StringIO()
            np.savetxt(buf, arr.reshape(len(arr), -1) if arr.ndim else arr.reshape(1, 1), delimiter=",", fmt="%s")
            return buf.getvalue()
        raise UnsupportedFormat(accept)


DEFAULTS = {"torchserve": TorchServeDefaults, "xgboost": XGBoostDefaults, "sklearn": SKLearnDefaults}

SERVERS = {
    "torchserve": "TorchServe and the SageMaker PyTorch inference toolkit",
    "sagemaker-containers": "sagemaker-containers",
    "unknown": "an image of no contract the local run knows",
}


def call(fn, *args):
    """Calls a handler as the inference toolkit does: with a context
    argument (None here) when it takes one more."""
    try:
        n = len(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        n = len(args)
    if n == len(args) + 1:
        return fn(*(args + (None,)))
    if n != len(args):
        raise TypeError("%s takes %d arguments but %d were given." % (getattr(fn, "__name__", fn), n, len(args)))
    return fn(*args)


def main():
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    code_dir, program = spec["code_dir"], spec.get("program") or ""
    serving = spec.get("serving") or "unknown"
    key = "torchserve" if serving == "torchserve" else spec.get("family") if serving == "sagemaker-containers" else "other"
    defaults = DEFAULTS.get(key, OtherDefaults)()
    module = None
    why = reqcheck.check(code_dir, SERVERS.get(serving, "the serving container"))
    if why:
        fail(why)
    if program:
        if not program.endswith(".py"):
            fail("SAGEMAKER_PROGRAM %r is not a Python file" % program)
        if not os.path.isfile(os.path.join(code_dir, program)):
            fail("the inference program %s is not in %s" % (program, code_dir))
        sys.path.insert(0, code_dir)
        module = importlib.import_module(program[:-3])
        print("transform: %s serves %s from %s" % (SERVERS.get(serving, serving), program, code_dir))
    else:
        print("transform: %s serves with its default handlers (no inference program)" % SERVERS.get(serving, serving))

    def handler(name):
        return getattr(module, name, None) if module is not None else None

    transform_fn = handler("transform_fn")
    if transform_fn is not None and (handler("input_fn") or handler("predict_fn") or handler("output_fn")):
        fail("%s: Cannot use transform_fn implementation in conjunction with input_fn, predict_fn, and/or output_fn implementation" % program)
    if serving == "unknown" and module is not None and handler("model_fn") is None:
        fail("%s defines no model_fn(model_dir)" % program)
    model_fn = handler("model_fn") or defaults.model_fn
    input_fn = handler("input_fn") or defaults.input_fn
    predict_fn = handler("predict_fn") or defaults.predict_fn
    output_fn = handler("output_fn") or defaults.output_fn
    try:
        model = call(model_fn, spec["model_dir"])
    except Exception as e:
        traceback.print_exc()
        fail("loading the model failed, so the container answers every request with an error: %s: %s" % (type(e).__name__, e))

    ct = spec.get("content_type") or "application/octet-stream"
    accept = spec.get("accept") or os.environ.get("SAGEMAKER_DEFAULT_INVOCATIONS_ACCEPT") or JSON_TYPE

    def invoke(rel, body):
        if ct in UTF8_TYPES:
            body = body.decode("utf-8")
        try:
            if transform_fn is not None:
                out = call(transform_fn, model, body, ct, accept)
            else:
                out = call(output_fn, call(predict_fn, call(input_fn, body, ct), model), accept)
        except Exception as e:
            traceback.print_exc()
            fail("%s: the container answered a request with an error (500), which fails the transform job: %s: %s" % (rel, type(e).__name__, e))
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
            resp = invoke(rel, body.encode("utf-8"))
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
