"""TokenizerTraining: train a byte-pair-encoding tokenizer on a text column, for the PyTorch text
model (PyTorchTraining with text_name reads it from model_artifacts_input).

Input
  /opt/ml/processing/input/data         input_data: the training data (split folders: train/ is
                                        read when present, else every data file)
Output
  /opt/ml/processing/output/tokenizer   model_artifacts_output: tokenizer.json (vocabulary, merges,
                                        lowercase) and tokenizer_report.json (texts, vocabulary
                                        size, tokens per text, unknown-token rate on the texts)
Environment
  TEXT_FIELD (required), VOCAB_SIZE, MIN_FREQUENCY, LOWERCASE, MAX_TRAIN_TEXTS (a random sample
  of at most this many texts trains the merges), RANDOM_SEED
Arguments
  --job_type

The tokenizer is our own (steplib.bpe, standard library only): the SageMaker images need nothing
more, and Debian, which has no tokenizers or transformers package, runs it too.
"""
import argparse
import json
import os
import random
import sys

from steplib import bpe, splits, tables

INPUT_DIR = "/opt/ml/processing/input/data"
TOKENIZER_OUT = "/opt/ml/processing/output/tokenizer"


def log(msg):
    print("[tokenizer_training] " + msg, flush=True)


def texts_of(folder, field):
    train = os.path.join(folder, "train")
    if os.path.isdir(train) and splits.data_files(train):
        df, _ = splits.read_split(train)
    else:
        df, _ = tables.read_tables(folder, needed=(field,), log=log)
    if df is None:
        sys.exit("no data with a %r column under %s" % (field, folder))
    if field not in df.columns:
        sys.exit("TEXT_FIELD %r is not a column of the data (columns: %s)" % (field, list(df.columns)))
    return [str(t) for t in df[field].dropna().tolist()]


def main(input_paths, output_paths, environ_vars, job_args):
    field = environ_vars["TEXT_FIELD"].strip()
    if not field:
        sys.exit("TEXT_FIELD is empty: name the text column (config field text_name)")
    size = int(environ_vars.get("VOCAB_SIZE") or 8000)
    if size < len(bpe.SPECIAL) + 2:
        sys.exit("VOCAB_SIZE %d is too small" % size)
    texts = texts_of(input_paths["input_data"], field)
    if not texts:
        sys.exit("the %s column holds no text" % field)
    cap = int(environ_vars.get("MAX_TRAIN_TEXTS") or 100000)
    sample = texts
    if len(texts) > cap:
        sample = random.Random(int(environ_vars.get("RANDOM_SEED") or 42)).sample(texts, cap)
    lower = tables.truthy(environ_vars.get("LOWERCASE"), True)
    vocab, merges = bpe.train(sample, size, int(environ_vars.get("MIN_FREQUENCY") or 2), lower)
    tok = bpe.Tokenizer(vocab, merges, lower)
    os.makedirs(output_paths["model_artifacts_output"], exist_ok=True)
    tok.save(os.path.join(output_paths["model_artifacts_output"], "tokenizer.json"))
    probe = sample[:2000]
    ids = [tok.encode(t) for t in probe]
    n = sum(len(x) for x in ids)
    report = {"field": field, "texts": len(texts), "trained_on": len(sample), "vocab_size": len(vocab), "merges": len(merges),
              "lowercase": lower, "mean_tokens_per_text": n / float(len(ids)), "unknown_rate": sum(x.count(bpe.UNK) for x in ids) / float(max(n, 1)),
              "job_type": job_args.job_type}
    with open(os.path.join(output_paths["model_artifacts_output"], "tokenizer_report.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2)
    log("vocabulary %d (%d merges) from %d texts; %.1f tokens a text" % (len(vocab), len(merges), len(sample), report["mean_tokens_per_text"]))
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Train a BPE tokenizer on a text column.")
    parser.add_argument("--job_type", required=True)
    args = parser.parse_args()
    environ = {
        "TEXT_FIELD": os.environ["TEXT_FIELD"],
        "VOCAB_SIZE": os.environ.get("VOCAB_SIZE", "8000"),
        "MIN_FREQUENCY": os.environ.get("MIN_FREQUENCY", "2"),
        "LOWERCASE": os.environ.get("LOWERCASE", "true"),
        "MAX_TRAIN_TEXTS": os.environ.get("MAX_TRAIN_TEXTS", "100000"),
        "RANDOM_SEED": os.environ.get("RANDOM_SEED", "42"),
    }
    main({"input_data": INPUT_DIR}, {"model_artifacts_output": TOKENIZER_OUT}, environ, args)
