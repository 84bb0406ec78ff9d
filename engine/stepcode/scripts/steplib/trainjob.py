"""What a training script does around its model in the SageMaker training toolkit: the
hyperparameters, the channels, the preprocessing artifacts, the failure reason, and the
per-split predictions and metrics under /opt/ml/output/data.

The scripts pass the container paths in (their step files' contracts name them); nothing here
reads a path of its own.
"""
import json
import os
import sys

import numpy as np
import pandas as pd

from steplib import evaluation, modelfiles


def log(msg):
    print(msg, flush=True)


def flag(value):
    """A flag's text: true, 1, yes or on (any case)."""
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def count(name, value):
    """A non-negative integer environment variable ("" is 0); exits naming it otherwise."""
    try:
        n = int(str(value).strip() or 0)
    except ValueError:
        raise SystemExit("environment variable %s=%r is not an integer" % (name, value))
    if n < 0:
        raise SystemExit("environment variable %s=%r is negative" % (name, value))
    return n


def decode(value):
    """A hyperparameter as SageMaker passes it: JSON-encoded text, else the text itself."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, sort_keys=True)


def load_hyperparameters(files, required, defaults, list_keys=(), ints=(), floats=()):
    """The job's hyperparameters: each of files that exists, in order, later keys winning
    (sagemaker_* keys dropped, values JSON-decoded), over defaults. Comma-separated text in
    list_keys becomes a list; ints and floats are converted; a missing required key or an
    unconvertible value exits naming it. Older files' num_classes / is_binary set num_class."""
    hp = {}
    for path in files:
        if path and os.path.exists(path):
            log("hyperparameters from %s" % path)
            for k, v in read_json(path).items():
                if not k.startswith("sagemaker_"):
                    hp[k] = decode(v)
    for k in list_keys:
        if isinstance(hp.get(k), str):  # legacy comma-separated lists
            hp[k] = [x.strip() for x in hp[k].split(",") if x.strip()]
    missing = [k for k in required if k not in hp]
    if missing:
        raise SystemExit("hyperparameter(s) %s required (set the config field(s) of the training step)" % ", ".join(missing))
    out = dict(defaults)
    out.update(hp)
    for kind, keys in ((int, ints), (float, floats)):
        for k in keys:
            try:
                out[k] = kind(out[k])
            except (TypeError, ValueError) as e:
                raise SystemExit("hyperparameter %s=%r: %s" % (k, out[k], e))
    if out.get("num_class") is None and out.get("num_classes") is not None:
        out["num_class"] = out["num_classes"]
    if out.get("num_class") is None and str(out.get("is_binary", "")).lower() == "true":
        out["num_class"] = 2
    if out.get("num_class") is not None:
        out["num_class"] = int(out["num_class"])
    if "class_weights" in out:
        out["class_weights"] = [float(w) for w in out["class_weights"] or []]
    return out


def read_channel(data_dir, name):
    """Every data file of one channel (data_dir/<name>) as one frame; None when it has none."""
    files = modelfiles.data_files(os.path.join(data_dir, name))
    if not files:
        return None
    return pd.concat([modelfiles.read_file(p) for p in files], ignore_index=True)


def iter_channel(data_dir, name, chunksize):
    """The frames of one channel, file by file, chunk by chunk."""
    for path in modelfiles.data_files(os.path.join(data_dir, name)):
        for chunk in modelfiles.read_file(path, chunksize):
            yield chunk


def check_columns(df, fields, where):
    missing = [f for f in fields if f not in df.columns]
    if missing:
        raise SystemExit("%s: column(s) %s not in the data (columns: %s)" % (where, missing, list(df.columns)))


def load_artifacts(folder, names):
    """The preprocessing artifacts (<name>.json, else <name>.pkl) of folder that exist."""
    found = {}
    if not os.path.isdir(folder):
        return found
    for name in names:
        path = os.path.join(folder, name + ".json")
        if os.path.exists(path):
            found[name] = read_json(path)
            log("artifact %s from %s" % (name, path))
        elif os.path.exists(os.path.join(folder, name + ".pkl")):
            import pickle

            with open(os.path.join(folder, name + ".pkl"), "rb") as f:
                found[name] = pickle.load(f)
            log("artifact %s from %s.pkl" % (name, name))
    return found


def write_split(eval_dir, name, df, y, prob, id_name, label_name):
    """eval_dir/<name>/predictions.csv (id, label index, prob_class_*) and metrics.json of one
    split; returns the metrics."""
    folder = os.path.join(eval_dir, name)
    os.makedirs(folder, exist_ok=True)
    ids = df[id_name].to_numpy() if id_name in df.columns else np.arange(len(df))
    out = pd.DataFrame({id_name: ids, label_name: y})
    for i in range(prob.shape[1]):
        out["prob_class_%d" % i] = prob[:, i]
    out.to_csv(os.path.join(folder, "predictions.csv"), index=False)
    m = evaluation.training_metrics(y, prob)
    write_json(os.path.join(folder, "metrics.json"), m)
    log("%s metrics: %s" % (name, json.dumps(m, sort_keys=True)))
    return m


def write_failure(failure_file, script, reason):
    """SageMaker shows failure_file (/opt/ml/output/failure) as the job's FailureReason."""
    print("%s: %s" % (script, reason), file=sys.stderr)
    try:
        with open(failure_file, "w", encoding="utf-8") as f:
            f.write(str(reason)[:1024])
    except OSError:
        pass


def run(main, failure_file, script, *args):
    """main(*args), recording an exit with a reason as the job's failure reason."""
    try:
        return main(*args)
    except SystemExit as e:
        if e.code not in (None, 0):
            write_failure(failure_file, script, e.code)
        raise


def require(module, pin, script, failure_file=None):
    """Imports module, or stops the job at once with a reason that names the missing package
    and the config field that chooses the image, instead of a traceback (a training job's
    failure_file gets the reason too)."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        reason = ("%s is not installed in this image (%s): run the step in an image with %s (config field image_uri), or "
                  "let its container install it from a requirements.txt beside the script (it needs a package index)" % (module, e, pin))
        if failure_file is None:
            raise SystemExit(reason)
        write_failure(failure_file, script, reason)
        sys.exit(2)
