"""Category and label values, spelt one way, and the classes of a classifier.

LightGBMTraining, PyTorchTraining and the multi-task trainers key categories, vocabularies and
classes by category_key, and their evaluation and inference scripts read them back the same
way, so 1, 1.0 and "1" always name the same class.
"""
import math

import numpy as np


def category_key(v):
    """One spelling per category or label value: 1, 1.0 and "1" are the same; missing is ""."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    s = str(v).strip()
    try:
        f = float(s)
        if f.is_integer():
            return str(int(f))
    except ValueError:
        pass
    return s


def sort_key(v):
    """Numbers in numeric order before other strings."""
    try:
        return (0, float(v), v)
    except ValueError:
        return (1, 0.0, v)


class Classes(object):
    """The label values in class-index order: multiclass_categories when given; else 0 and 1 for
    a binary task (binary True) or labels that are all 0 or 1; else the sorted distinct training
    labels. num_class, when set, must agree."""

    def __init__(self, hp, train_labels, binary=None):
        given = [category_key(v) for v in (hp.get("multiclass_categories") or [])]
        seen = sorted(set(category_key(v) for v in train_labels) - {""}, key=sort_key)
        n = hp.get("num_class")
        if given:
            if len(set(given)) != len(given):
                raise SystemExit("multiclass_categories %s has duplicates" % given)
            self.names = given
        elif binary or (binary is None and n in (None, 2) and set(seen) <= {"0", "1"}):
            self.names = ["0", "1"]
        else:
            self.names = seen
        if n is not None and n != len(self.names):
            raise SystemExit("num_class=%d but there are %d classes %s: set multiclass_categories or num_class" % (n, len(self.names), self.names[:10]))
        if binary and len(self.names) != 2:
            raise SystemExit("a binary objective needs two classes, there are %d %s" % (len(self.names), self.names[:10]))
        if len(self.names) < 2:
            raise SystemExit("need at least two classes, found %s" % self.names)
        self.index = {v: i for i, v in enumerate(self.names)}
        unknown = [v for v in seen if v not in self.index]
        if unknown:
            raise SystemExit("training labels %s are not among the classes %s: list them in multiclass_categories" % (unknown[:10], self.names))

    def encode(self, labels):
        """Class indices of labels; -1 for a value that is not a class (or missing)."""
        return np.array([self.index.get(category_key(v), -1) for v in labels], dtype="int64")


def encode_known(labels, classes, where):
    """Class indices of labels against a model's class names; exits naming the labels that are
    not classes."""
    index = {v: i for i, v in enumerate(classes)}
    y = np.array([index.get(category_key(v), -1) for v in labels], dtype="int64")
    if (y < 0).any():
        bad = sorted(set(category_key(v) for v, i in zip(labels, y) if i < 0))
        raise SystemExit("%s: labels %s are not classes of the model %s" % (where, bad[:10], classes))
    return y


def binary_labels(series, where):
    """A 0/1 label column as int64 (1, 1.0, "1", True are 1); exits naming other values. Missing
    values are -1."""
    out = []
    bad = set()
    for v in series:
        k = category_key(v)
        if k == "":
            out.append(-1)
        elif k in ("0", "1"):
            out.append(int(k))
        elif k.lower() in ("true", "false"):
            out.append(1 if k.lower() == "true" else 0)
        else:
            bad.add(k)
    if bad:
        raise SystemExit("%s: labels must be 0 or 1, found %s" % (where, sorted(bad)[:10]))
    return np.array(out, dtype="int64")
