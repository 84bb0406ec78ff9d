"""Copy the user's data set (mounted from data_source) to the DATA output.

SageMaker mounts the INPUT_DATA input at /opt/ml/processing/input/data and
uploads /opt/ml/processing/output/{data,metadata,signature} when the job ends.
"""
import argparse
import json
import os
import shutil

INPUT = "/opt/ml/processing/input/data"
OUT = "/opt/ml/processing/output"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_type", default="training")
    args = parser.parse_args()

    data_out = os.path.join(OUT, "data")
    os.makedirs(data_out, exist_ok=True)
    files = []
    for root, _, names in os.walk(INPUT):
        for name in sorted(names):
            src = os.path.join(root, name)
            shutil.copy(src, os.path.join(data_out, name))
            files.append(name)

    os.makedirs(os.path.join(OUT, "metadata"), exist_ok=True)
    with open(os.path.join(OUT, "metadata", "metadata.json"), "w") as f:
        json.dump({"job_type": args.job_type, "files": files}, f)

    os.makedirs(os.path.join(OUT, "signature"), exist_ok=True)
    header = ""
    if files:
        with open(os.path.join(data_out, files[0])) as f:
            header = f.readline().strip()
    with open(os.path.join(OUT, "signature", "signature"), "w") as f:
        f.write("\n".join(header.split(",")))


if __name__ == "__main__":
    main()
