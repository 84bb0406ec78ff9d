# Training launcher of cursus-go engine/localrun: starts a training job's
# entry point the way the SageMaker training toolkit does in a framework
# image (script mode), inside the job's container layout.
#
# Run as: python3 train.py (no arguments). When /opt/ml/code is empty it
# puts the code of sagemaker_submit_directory there first, as the toolkit
# does for a path in the container (a folder is copied, an archive
# unpacked: the SDK's "code" channel of an isolated job). It reads
# /opt/ml/input/config/{hyperparameters,inputdataconfig,resourceconfig}.json
# (written by the runner), JSON-decodes every hyperparameter (a value that
# is not JSON stays text), keeps the sagemaker_* ones as framework
# parameters, and replaces itself with
#   python <sagemaker_program> --<key> <value> ...   (keys sorted)
# in /opt/ml/code, with the SM_* variables of the toolkit in the
# environment. An argument value is Python's str() of the decoded value
# (a mapping becomes k=v,k2=v2), an SM_* value is the text itself or
# compact JSON, as the toolkit writes them.
import json
import os
import shutil
import sys
import tarfile

import reqcheck

BASE = "/opt/ml"
CONFIG = "/opt/ml/input/config"
CODE = "/opt/ml/code"
MODEL = "/opt/ml/model"
INPUT = "/opt/ml/input"
INPUT_DATA = "/opt/ml/input/data"
OUTPUT = "/opt/ml/output"
OUTPUT_DATA = "/opt/ml/output/data"
INTERMEDIATE = "/opt/ml/output/intermediate"


def read(name):
    with open(os.path.join(CONFIG, name)) as f:
        return json.load(f)


def decode(v):
    try:
        return json.loads(v)
    except (ValueError, TypeError):
        return v


def env_value(v):
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def arg_value(v):
    if v is None:
        return ""
    if hasattr(v, "items"):
        return ",".join("%s=%s" % (k, x) for k, x in sorted(v.items()))
    return str(v)


def main():
    raw = read("hyperparameters.json")
    hps = {k: decode(v) for k, v in raw.items()}
    framework = {k: v for k, v in hps.items() if k.startswith("sagemaker_")}
    user = {k: v for k, v in hps.items() if not k.startswith("sagemaker_")}
    program = framework.get("sagemaker_program")
    if not program:
        sys.stderr.write("hyperparameter sagemaker_program is not set: the training toolkit has no entry point to run\n")
        return 2
    submit = framework.get("sagemaker_submit_directory") or CODE
    if not os.listdir(CODE):
        # The toolkit puts the code in /opt/ml/code when it is empty: a
        # folder is copied, an archive unpacked, a file copied. (An S3
        # archive the runner has unpacked already, as the toolkit's
        # download would.)
        if submit.startswith("s3://"):
            sys.stderr.write("sagemaker_submit_directory %s: the container cannot reach S3\n" % submit)
            return 2
        if os.path.isdir(submit):
            if os.path.realpath(submit) != os.path.realpath(CODE):
                for name in os.listdir(submit):
                    src = os.path.join(submit, name)
                    if os.path.isdir(src):
                        shutil.copytree(src, os.path.join(CODE, name))
                    else:
                        shutil.copy2(src, CODE)
        elif os.path.isfile(submit) and tarfile.is_tarfile(submit):
            with tarfile.open(submit, "r:gz") as t:
                t.extractall(CODE, filter="data") if hasattr(tarfile, "data_filter") else t.extractall(CODE)
        elif os.path.isfile(submit):
            shutil.copy2(submit, CODE)
        else:
            sys.stderr.write("sagemaker_submit_directory %s does not exist in the container (an input channel puts files under /opt/ml/input/data/<channel>)\n" % submit)
            return 2
    entry = os.path.join(CODE, program)
    if not os.path.isfile(entry):
        sys.stderr.write("entry point %s is not in the submitted source %s (%s)\n" % (program, submit, ", ".join(sorted(os.listdir(CODE))) or "empty"))
        return 2
    why = reqcheck.check(CODE, "the training toolkit")
    if why:
        sys.stderr.write(why + "\n")
        return 2

    data_config = read("inputdataconfig.json")
    resources = read("resourceconfig.json")
    channels = sorted(data_config)
    args = []
    for k in sorted(user):
        args += ["--" + k if len(k) > 1 else "-" + k, arg_value(user[k])]
    host = resources.get("current_host", "algo-1")
    module = program[:-3] if program.endswith(".py") else program
    env = {
        "hosts": resources.get("hosts", [host]),
        "network_interface_name": resources.get("network_interface_name", "eth0"),
        "hps": user,
        "user_entry_point": program,
        "framework_params": {k: v for k, v in framework.items()
                             if k not in ("sagemaker_program", "sagemaker_submit_directory", "sagemaker_region",
                                          "sagemaker_container_log_level", "sagemaker_job_name")},
        "resource_config": resources,
        "input_data_config": data_config,
        "output_data_dir": OUTPUT_DATA,
        "channels": channels,
        "current_host": host,
        "current_instance_type": resources.get("current_instance_type", "local"),
        "module_name": module,
        "log_level": int(framework.get("sagemaker_container_log_level", 20)),
        "framework_module": os.environ.get("SAGEMAKER_TRAINING_MODULE", ""),
        "input_dir": INPUT,
        "input_config_dir": CONFIG,
        "output_dir": OUTPUT,
        "num_cpus": os.cpu_count() or 1,
        "num_gpus": 0,
        "model_dir": MODEL,
        "module_dir": framework.get("sagemaker_submit_directory", ""),
        "user_args": args,
        "output_intermediate_dir": INTERMEDIATE,
    }
    for c in channels:
        env["channel_" + c] = os.path.join(INPUT_DATA, c)
    for k, v in user.items():
        env["hp_" + k] = v
    env["training_env"] = {k: v for k, v in env.items() if not k.startswith(("channel_", "hp_"))}
    env["training_env"]["job_name"] = framework.get("sagemaker_job_name", os.environ.get("TRAINING_JOB_NAME", ""))
    environ = dict(os.environ)
    environ.update({"SM_" + k.upper(): env_value(v) for k, v in env.items()})
    environ["PYTHONPATH"] = os.pathsep.join([CODE] + [p for p in environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    for d in (MODEL, OUTPUT_DATA, INTERMEDIATE):
        os.makedirs(d, exist_ok=True)
    os.chdir(CODE)

    argv = [sys.executable, entry] + args
    rewrite = environ.pop("CURSUS_REWRITE", None)
    if rewrite:
        # Path-rewriting fallback: the entry point runs through the rewriting
        # launcher too, with the same table (this harness ran under it, so
        # its own constants are already local paths).
        launcher, table = json.loads(rewrite)
        argv = [sys.executable, launcher, table, entry] + args
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, argv, environ)


sys.exit(main())
