"""Package: assemble the deployable model.tar.gz, as the SageMaker SDK's repack does.

Inputs
  /opt/ml/processing/input/model        the trained model: model.tar.gz (any *.tar.gz there is
                                        unpacked) or its files
  /opt/ml/processing/input/script       optional: the serving code (inference.py with model_fn,
                                        input_fn, predict_fn, output_fn, and its helpers); the
                                        catalog's inference/<framework> unless the project ships
                                        its own inference_scripts_dir
  /opt/ml/processing/input/calibration  optional: ModelCalibration's or
                                        PercentileModelCalibration's calibration output
Output
  /opt/ml/processing/output/model.tar.gz  the model's files at the archive root, the serving
                                        code under code/ and the calibrator under calibration/
Environment
  WORKING_DIRECTORY   scratch directory the archive is assembled in
"""
import os
import shutil
import sys
import tarfile

MODEL_DIR = "/opt/ml/processing/input/model"
SCRIPT_DIR = "/opt/ml/processing/input/script"
CALIBRATION_DIR = "/opt/ml/processing/input/calibration"
OUTPUT_DIR = "/opt/ml/processing/output"
ARCHIVE = "model.tar.gz"


def log(msg):
    print("[package] " + msg, flush=True)


def fail(msg):
    print("[package] ERROR: " + msg, file=sys.stderr, flush=True)
    sys.exit(1)


def safe_members(tar):
    for m in tar.getmembers():
        name = m.name[2:] if m.name.startswith("./") else m.name
        if name.startswith("/") or ".." in name.split("/") or m.issym() or m.islnk():
            log("skipped unsafe archive member %s" % m.name)
            continue
        yield m


def copy_tree(src, dst, unpack):
    """Copies src's files below dst (unpacking archives when unpack); returns the count."""
    n = 0
    for root, dirs, files in os.walk(src):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
        for name in sorted(files):
            if name.startswith(".") or name.endswith(".pyc"):
                continue
            path = os.path.join(root, name)
            if unpack and name.endswith((".tar.gz", ".tgz")):
                with tarfile.open(path) as tar:
                    members = list(safe_members(tar))
                    tar.extractall(dst, members=members)
                    n += sum(1 for m in members if m.isfile())
                log("unpacked %s" % os.path.relpath(path, src))
                continue
            target = os.path.join(dst, os.path.relpath(path, src))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(path, target)
            n += 1
    return n


def main(input_paths, output_paths, environ_vars, job_args=None):
    work = environ_vars.get("WORKING_DIRECTORY") or "/tmp/packaging_directory"
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    model_src = input_paths["model_input"]
    if not os.path.isdir(model_src) or copy_tree(model_src, work, unpack=True) == 0:
        fail("no model files in %s" % model_src)
    code_src = input_paths.get("inference_scripts_input", SCRIPT_DIR)
    if os.path.isdir(code_src) and any(files for _, _, files in os.walk(code_src)):
        n = copy_tree(code_src, os.path.join(work, "code"), unpack=False)
        log("serving code: %d file(s) under code/" % n)
        if not os.path.isfile(os.path.join(work, "code", "inference.py")):
            log("warning: the serving code has no inference.py")
    else:
        log("no serving code: the model is packaged without code/")
    cal_src = input_paths.get("calibration_model", CALIBRATION_DIR)
    if os.path.isdir(cal_src) and any(files for _, _, files in os.walk(cal_src)):
        n = copy_tree(cal_src, os.path.join(work, "calibration"), unpack=True)
        log("calibration: %d file(s) under calibration/" % n)
    out_dir = output_paths["packaged_model"]
    os.makedirs(out_dir, exist_ok=True)
    archive = os.path.join(out_dir, ARCHIVE)
    names = []
    with tarfile.open(archive, "w:gz") as tar:
        for root, dirs, files in os.walk(work):
            dirs.sort()
            for name in sorted(files):
                path = os.path.join(root, name)
                rel = os.path.relpath(path, work)
                tar.add(path, arcname=rel)
                names.append(rel)
    log("wrote %s (%d files, %d bytes): %s" % (archive, len(names), os.path.getsize(archive), ", ".join(names)))


if __name__ == "__main__":
    main({"model_input": MODEL_DIR, "inference_scripts_input": SCRIPT_DIR, "calibration_model": CALIBRATION_DIR},
         {"packaged_model": OUTPUT_DIR}, {"WORKING_DIRECTORY": os.environ.get("WORKING_DIRECTORY", "/tmp/packaging_directory")})
