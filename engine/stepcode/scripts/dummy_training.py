"""Publish a pretrained model as the pipeline's trained model (DummyTraining).

Runs in the SageMaker scikit-learn container (FrameworkProcessor); standard library only.

Contract:
  inputs   /opt/ml/processing/input/model   the pretrained model.tar.gz (config field
                                            pretrained_model_path); a folder of model files without
                                            an archive is packed as it is
           /opt/ml/processing/input/config  optional hyperparameters.json, added to the archive when
                                            the model has none
  outputs  /opt/ml/processing/output/model  model.tar.gz, its files at the archive's root

The archive is checked first: it must open, hold at least one file, and hold no absolute path,
no member outside the archive and no link. A model that already carries hyperparameters.json
keeps it (and the archive is copied unchanged); one without it gets the input's file, and with
neither the step fails: Package and Payload read the field lists from hyperparameters.json.
"""
import json
import os
import shutil
import tarfile
import tempfile

MODEL_INPUT = "/opt/ml/processing/input/model"
CONFIG_INPUT = "/opt/ml/processing/input/config"
MODEL_OUTPUT = "/opt/ml/processing/output/model"

HPARAMS = "hyperparameters.json"


def log(msg):
    print(msg, flush=True)


def find_archive(folder):
    archives = []
    for root, _, names in os.walk(folder):
        archives += [os.path.join(root, n) for n in names if n.endswith(".tar.gz") or n.endswith(".tgz")]
    if len(archives) > 1:
        raise SystemExit("more than one archive under %s: %s" % (folder, sorted(archives)))
    return archives[0] if archives else None


def check_members(archive):
    """The archive's member names (regular files, normalised); refuses unsafe archives."""
    try:
        t = tarfile.open(archive, "r:*")
    except (tarfile.TarError, OSError) as e:
        raise SystemExit("%s is not a readable tar archive: %s" % (archive, e))
    files = []
    with t:
        for m in t.getmembers():
            name = os.path.normpath(m.name)
            if m.name.startswith("/") or name == ".." or name.startswith(".." + os.sep):
                raise SystemExit("refusing %s: member %r lies outside the archive" % (archive, m.name))
            if m.issym() or m.islnk() or m.isdev():
                raise SystemExit("refusing %s: member %r is a link or device" % (archive, m.name))
            if m.isfile():
                files.append(name)
    if not files:
        raise SystemExit("%s holds no files" % archive)
    return files


def find_hyperparameters(folder):
    path = os.path.join(folder, HPARAMS)
    if os.path.isfile(path):
        return path
    found = []
    for root, _, names in os.walk(folder):
        found += [os.path.join(root, n) for n in names if n.endswith(".json")]
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise SystemExit("several JSON files under %s and none named %s: %s" % (folder, HPARAMS, sorted(found)))
    return None


def pack(folder, archive):
    with tarfile.open(archive, "w:gz") as t:
        for name in sorted(os.listdir(folder)):
            t.add(os.path.join(folder, name), arcname=name)


def main(input_paths, output_paths):
    model_in = input_paths["pretrained_model_path"]
    out_dir = output_paths["model_output"]
    os.makedirs(out_dir, exist_ok=True)
    target = os.path.join(out_dir, "model.tar.gz")
    hp_dir = input_paths["hyperparameters_s3_uri"]
    hp_file = find_hyperparameters(hp_dir) if os.path.isdir(hp_dir) else None
    if hp_file:
        with open(hp_file, encoding="utf-8") as f:
            try:
                json.load(f)
            except ValueError as e:
                raise SystemExit("%s is not JSON: %s" % (hp_file, e))

    archive = find_archive(model_in) if os.path.isdir(model_in) else None
    work = tempfile.mkdtemp(prefix="dummy-training-")
    try:
        if archive:
            files = check_members(archive)
            log("model archive %s: %d files" % (archive, len(files)))
            has_hp = any(os.path.basename(f) == HPARAMS for f in files)
            if has_hp:
                if hp_file:
                    log("the model has its own %s; %s is not used" % (HPARAMS, hp_file))
                shutil.copyfile(archive, target)
                log("published %s unchanged" % target)
                return
            with tarfile.open(archive, "r:*") as t:
                t.extractall(work)
        else:
            if not os.path.isdir(model_in) or not any(files for _, _, files in os.walk(model_in)):
                raise SystemExit("no pretrained model under %s: set pretrained_model_path to a model.tar.gz" % model_in)
            log("no archive under %s: packing its files as the model" % model_in)
            for name in os.listdir(model_in):
                src = os.path.join(model_in, name)
                (shutil.copytree if os.path.isdir(src) else shutil.copy2)(src, os.path.join(work, name))
            if os.path.exists(os.path.join(work, HPARAMS)):
                hp_file = None
        if not os.path.exists(os.path.join(work, HPARAMS)):
            if not hp_file:
                raise SystemExit("the model has no %s and none was given under %s: connect a hyperparameters input "
                                 "or put %s into the model archive" % (HPARAMS, hp_dir, HPARAMS))
            shutil.copyfile(hp_file, os.path.join(work, HPARAMS))
            log("added %s from %s" % (HPARAMS, hp_file))
        pack(work, target)
        log("published %s (%d bytes)" % (target, os.path.getsize(target)))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main({"pretrained_model_path": MODEL_INPUT, "hyperparameters_s3_uri": CONFIG_INPUT},
         {"model_output": MODEL_OUTPUT})
