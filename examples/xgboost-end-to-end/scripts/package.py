"""Package the trained model with its inference code and calibrator.

Contract (Package):
  inputs   /opt/ml/processing/input/model        model.tar.gz of the training job (or its files)
           /opt/ml/processing/input/script       optional inference code (config field inference_scripts_dir)
           /opt/ml/processing/input/calibration  optional calibrator of ModelCalibration
  output   /opt/ml/processing/output             model.tar.gz: the model files at the root,
                                                 code/ with the inference code, calibration/
  env      WORKING_DIRECTORY                     scratch folder the archive is assembled in
"""
import glob
import os
import shutil
import tarfile

MODEL_DIR = "/opt/ml/processing/input/model"
SCRIPT_DIR = "/opt/ml/processing/input/script"
CALIBRATION_DIR = "/opt/ml/processing/input/calibration"
OUTPUT_DIR = "/opt/ml/processing/output"


def safe_extract(archive, dest):
    root = os.path.realpath(dest)
    with tarfile.open(archive) as t:
        for m in t.getmembers():
            target = os.path.realpath(os.path.join(dest, m.name))
            if m.issym() or m.islnk() or not (target == root or target.startswith(root + os.sep)):
                raise SystemExit(f"refusing archive member {m.name!r} of {archive}")
        t.extractall(dest)


def copy_tree(src, dst):
    n = 0
    for path in sorted(glob.glob(os.path.join(src, "**", "*"), recursive=True)):
        if os.path.isfile(path) and "__pycache__" not in path:
            target = os.path.join(dst, os.path.relpath(path, src))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(path, target)
            n += 1
    return n


def main(input_paths, output_paths, environ_vars, job_args):
    work = environ_vars["WORKING_DIRECTORY"]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    model_in = input_paths["model_input"]
    tars = glob.glob(os.path.join(model_in, "**", "model.tar.gz"), recursive=True)
    if tars:
        safe_extract(tars[0], work)
    elif not copy_tree(model_in, work):
        raise SystemExit(f"no model under {model_in}")
    scripts = input_paths["inference_scripts_input"]
    n_code = copy_tree(scripts, os.path.join(work, "code")) if os.path.isdir(scripts) else 0
    if not n_code:
        print("no inference code given: the archive holds the model only")
    calib = input_paths["calibration_model"]
    n_cal = copy_tree(calib, os.path.join(work, "calibration")) if os.path.isdir(calib) else 0
    out = output_paths["packaged_model"]
    os.makedirs(out, exist_ok=True)
    archive = os.path.join(out, "model.tar.gz")
    with tarfile.open(archive, "w:gz") as t:
        for name in sorted(os.listdir(work)):
            t.add(os.path.join(work, name), arcname=name)
    print(f"wrote {archive}: model, {n_code} code file(s), {n_cal} calibration file(s)")


if __name__ == "__main__":
    main({"model_input": MODEL_DIR, "inference_scripts_input": SCRIPT_DIR, "calibration_model": CALIBRATION_DIR},
         {"packaged_model": OUTPUT_DIR},
         {"WORKING_DIRECTORY": os.environ.get("WORKING_DIRECTORY", "/tmp/packaging_directory")},
         None)
