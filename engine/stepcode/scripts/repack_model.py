"""Repack a model archive with its inference code, as the SageMaker SDK's repack step does.

The serving containers of PyTorch 1.2 and later (TorchServe with the SageMaker PyTorch inference
toolkit) load inference code only from the model archive's code/ folder (/opt/ml/model/code), and a
model under network isolation cannot fetch code from S3 at all. The compiler therefore adds a
training job running this script before such a model: it writes the trained model's files and the
inference code into one archive, which the model then serves with SAGEMAKER_SUBMIT_DIRECTORY
/opt/ml/model/code.

Training job layout
  /opt/ml/input/data/model            the trained model: model.tar.gz (every *.tar.gz there is
                                      unpacked) or its files
  /opt/ml/input/data/inference_code   the inference code: sourcedir.tar.gz (unpacked) or its files
  /opt/ml/model                       written (SageMaker packs it as model.tar.gz): the model's files
                                      at the root, the inference code under code/
Hyperparameters
  --inference_program                 the serving script SAGEMAKER_PROGRAM names (inference.py);
                                      the job fails when the code does not hold it
"""
import argparse
import os
import shutil
import sys
import tarfile

CHANNELS = "/opt/ml/input/data"
MODEL_OUT = "/opt/ml/model"
CODE_DIR = "code"


def log(msg):
    print("[repack] " + msg, flush=True)


def fail(msg):
    print("[repack] ERROR: " + msg, file=sys.stderr, flush=True)
    sys.exit(1)


def safe_members(tar, what):
    """The regular files and folders of an archive whose paths stay below the folder it unpacks to."""
    for m in tar.getmembers():
        name = m.name[2:] if m.name.startswith("./") else m.name
        if name in ("", "."):
            continue
        if name.startswith("/") or ".." in name.split("/") or not (m.isfile() or m.isdir()):
            fail("%s holds %s, which would unpack outside its folder or is not a regular file" % (what, m.name))
        yield m


def unpack(archive, dst, what):
    """Unpacks a gzip'ed tar archive below dst; returns the files it held."""
    try:
        with tarfile.open(archive, "r:gz") as tar:
            members = list(safe_members(tar, what))
            tar.extractall(dst, members=members)
    except (tarfile.TarError, OSError, EOFError) as e:
        fail("%s is not a readable gzip'ed tar archive: %s" % (what, e))
    return sorted(m.name[2:] if m.name.startswith("./") else m.name for m in members if m.isfile())


def copy_in(src, dst, what, unpack_archives):
    """Copies the files of channel folder src below dst, unpacking archives when asked; returns their names."""
    names = []
    for root, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        for name in sorted(files):
            if name.startswith(".") or name.endswith(".pyc"):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src)
            if unpack_archives and name.endswith((".tar.gz", ".tgz")):
                names += unpack(path, dst, "%s %s" % (what, rel))
                continue
            target = os.path.join(dst, rel)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(path, target)
            names.append(rel)
    return names


def repack(channels, out, program):
    model_src = os.path.join(channels, "model")
    code_src = os.path.join(channels, "inference_code")
    for name, src in (("model", model_src), ("inference_code", code_src)):
        if not os.path.isdir(src):
            fail("the job has no %s channel (%s does not exist)" % (name, src))
    os.makedirs(out, exist_ok=True)
    model_files = [n for n in copy_in(model_src, out, "the model", True) if not n.startswith(CODE_DIR + "/")]
    if not model_files:
        fail("the model channel holds no model files")
    log("model: %d file(s): %s" % (len(model_files), ", ".join(model_files[:8])))
    code_out = os.path.join(out, CODE_DIR)
    if os.path.isdir(code_out):
        log("replacing the code/ the model archive held with the inference code")
        shutil.rmtree(code_out)
    os.makedirs(code_out)
    code_files = copy_in(code_src, code_out, "the inference code", True)
    if program not in code_files:
        fail("the inference code has no %s (it holds: %s)" % (program, ", ".join(code_files) or "nothing"))
    log("inference code: %d file(s) under code/: %s" % (len(code_files), ", ".join(code_files[:8])))
    if "requirements.txt" in code_files:
        log("code/requirements.txt is installed by the serving container when the model loads")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inference_program", default="inference.py")
    args, _ = parser.parse_known_args(argv)
    repack(CHANNELS, MODEL_OUT, args.inference_program)


if __name__ == "__main__":
    main()
