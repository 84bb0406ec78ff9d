package codetest

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler/scripttest"
)

// runSteplib runs Python source with the embedded steplib package importable (the bytes the
// compiler ships beside a script) in a scratch directory, and fails the test with the output
// when the source fails: each test below asserts in Python what a module promises.
func runSteplib(t *testing.T, src string, modules ...string) string {
	t.Helper()
	py := scripttest.Python(t, append([]string{"numpy", "pandas"}, modules...)...)
	dir := t.TempDir()
	lib, err := fs.Sub(catalog.Code(), catalog.CodeLibDir)
	must(t, err)
	must(t, os.CopyFS(filepath.Join(dir, catalog.CodeLibDir), lib))
	must(t, os.WriteFile(filepath.Join(dir, "check.py"), []byte(src), 0o644))
	cmd := exec.Command(py.Path, "-E", "-s", "check.py")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "MPLCONFIGDIR=" + filepath.Join(dir, "mpl")}
	// -E -s: no PYTHONPATH or user site; the script's own directory comes first on sys.path,
	// so steplib imports from it.
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return string(out)
}

func TestSteplibLabels(t *testing.T) {
	t.Parallel()
	runSteplib(t, `
import numpy as np
from steplib import labels

assert labels.category_key(1) == labels.category_key(1.0) == labels.category_key("1") == labels.category_key(" 1.0 ") == "1"
assert labels.category_key(float("nan")) == labels.category_key(None) == ""
assert labels.category_key("a") == "a" and labels.category_key(2.5) == "2.5"
assert sorted(["10", "9", "b", "a"], key=labels.sort_key) == ["9", "10", "a", "b"]

c = labels.Classes({}, [0, 1, 1.0, "0"])
assert c.names == ["0", "1"], c.names
assert list(c.encode([1, "0", "x", None])) == [1, 0, -1, -1]
c = labels.Classes({}, ["b", "a", "c"])
assert c.names == ["a", "b", "c"]
c = labels.Classes({"multiclass_categories": ["low", "mid", "high"], "num_class": 3}, ["mid", "low"])
assert c.names == ["low", "mid", "high"]
for hp, seen, binary, want in (({"num_class": 4}, ["a", "b"], None, "num_class=4"),
                               ({"multiclass_categories": ["a", "b", "c"]}, ["a"], True, "binary objective"),
                               ({}, ["a"], None, "at least two classes"),
                               ({"multiclass_categories": ["a", "b"]}, ["a", "c"], None, "not among the classes"),
                               ({"multiclass_categories": ["a", "a"]}, ["a"], None, "duplicates")):
    try:
        labels.Classes(hp, seen, binary)
    except SystemExit as e:
        assert want in str(e), (want, e)
    else:
        raise AssertionError("no exit for %s" % want)

assert list(labels.encode_known(["b", 1.0], ["1", "b"], "x")) == [1, 0]
try:
    labels.encode_known(["z"], ["1", "b"], "LABEL_FIELD 'y'")
    raise AssertionError("an unknown label passed")
except SystemExit as e:
    assert "['z']" in str(e) and "LABEL_FIELD" in str(e)
assert list(labels.binary_labels([1, "0", True, None, 1.0], "t")) == [1, 0, 1, -1, 1]
try:
    labels.binary_labels([2], "task fraud")
    raise AssertionError("label 2 passed")
except SystemExit as e:
    assert "task fraud" in str(e)
print("ok")
`)
}

func TestSteplibModelfiles(t *testing.T) {
	t.Parallel()
	runSteplib(t, `
import io, json, os, tarfile, tempfile
import pandas as pd
from steplib import modelfiles

root = tempfile.mkdtemp()
model = os.path.join(root, "m")
os.makedirs(os.path.join(model, "sub"))
json.dump({"framework": "lightgbm", "model_file": "w.txt"}, open(os.path.join(model, "sub", "model_config.json"), "w"))
open(os.path.join(model, "sub", "w.txt"), "w").write("weights")
# the folder itself
cfg, w = modelfiles.load(model, "lightgbm", "lightgbm_model.txt", "LightGBMTraining")
assert cfg["framework"] == "lightgbm" and w.endswith("sub/w.txt"), w
# a model.tar.gz below the input
packed = os.path.join(root, "in", "deep")
os.makedirs(packed)
with tarfile.open(os.path.join(packed, "model.tar.gz"), "w:gz") as t:
    t.add(os.path.join(model, "sub"), arcname=".")
cfg, w = modelfiles.load(os.path.join(root, "in"), "lightgbm", "x", "LightGBMTraining")
assert open(w).read() == "weights"
# another framework's model is not taken
try:
    modelfiles.load(model, "pytorch", "model.pt", "PyTorchTraining")
    raise AssertionError("a lightgbm model passed for pytorch")
except SystemExit as e:
    assert "PyTorchTraining" in str(e) and "model.pt" in str(e)
# an archive member that escapes is refused
evil = os.path.join(root, "evil")
os.makedirs(evil)
with tarfile.open(os.path.join(evil, "model.tar.gz"), "w:gz") as t:
    data = b"x"
    info = tarfile.TarInfo("../escape.txt"); info.size = len(data)
    t.addfile(info, io.BytesIO(data))
try:
    modelfiles.unpack(evil)
    raise AssertionError("an escaping member was unpacked")
except SystemExit as e:
    assert "refusing archive member" in str(e)

# data files in any depth, CSV and TSV, read as one frame
data = os.path.join(root, "data")
os.makedirs(os.path.join(data, "a"))
pd.DataFrame({"x": [1, 2]}).to_csv(os.path.join(data, "a", "p1.csv"), index=False)
pd.DataFrame({"x": [3]}).to_csv(os.path.join(data, "p2.tsv"), sep="\t", index=False)
open(os.path.join(data, "notes.txt"), "w").write("not data")
assert [os.path.basename(p) for p in modelfiles.data_files(data)] == ["p1.csv", "p2.tsv"]
assert sorted(modelfiles.read_rows(data)["x"]) == [1, 2, 3]
assert sum(len(c) for c in modelfiles.read_file(os.path.join(data, "a", "p1.csv"), chunksize=1)) == 2
try:
    modelfiles.read_rows(os.path.join(root, "m"))
    raise AssertionError("no data passed")
except SystemExit as e:
    assert "no CSV, TSV or Parquet" in str(e)

out = os.path.join(root, "out")
p = modelfiles.write_predictions(pd.DataFrame({"id": [1], "p": [0.5]}), out, "json", "records")
assert json.load(open(p)) == [{"id": 1, "p": 0.5}]
p = modelfiles.write_predictions(pd.DataFrame({"id": [1]}), out, "csv", "records")
assert open(p).read().splitlines() == ["id", "1"]
try:
    modelfiles.write_predictions(pd.DataFrame(), out, "xlsx", "records")
    raise AssertionError("xlsx passed")
except SystemExit as e:
    assert "OUTPUT_FORMAT" in str(e)
print("ok")
`)
}

func TestSteplibFeatures(t *testing.T) {
	t.Parallel()
	runSteplib(t, `
import numpy as np
import pandas as pd
from steplib import features

df = pd.DataFrame({"x": [1.0, None, 3.0], "c": ["a", "zz", 1], "r": ["a", 0.7, None]})
cfg = {"feature_columns": ["x", "c", "r"], "categorical_mappings": {"c": {"a": 0, "1": 1}},
       "risk_tables": {"r": {"bins": {"a": 0.9}, "default_bin": 0.2}}, "impute_dict": {"x": 2.0}}
m = features.lightgbm_matrix(cfg, df)
assert m.shape == (3, 3)
assert list(m[:, 0]) == [1.0, 2.0, 3.0]                       # imputed
assert m[0, 1] == 0 and np.isnan(m[1, 1]) and m[2, 1] == 1    # codes; unseen is NaN
assert list(m[:, 2]) == [0.9, 0.2, 0.2], m[:, 2]              # risk values; unknown and missing: default
num = pd.DataFrame({"x": [1.0], "c": ["a"], "r": [0.4]})
assert features.lightgbm_matrix(cfg, num)[0, 2] == 0.4        # an already mapped column is kept
try:
    features.lightgbm_matrix(cfg, df.drop(columns=["r"]))
    raise AssertionError("a missing field passed")
except SystemExit as e:
    assert "'r'" in str(e)

pcfg = {"numeric_fields": ["x", "r"], "embedding_fields": ["c"], "vocabularies": {"c": ["1", "a"]},
        "risk_tables": {"r": {"bins": {"a": 0.9}, "default_bin": 0.2}}}
m = features.pytorch_matrix(pcfg, df)
assert m.dtype == np.float32 and m.shape == (3, 3)
assert m[0, 0] == 1 and np.isnan(m[1, 0])                     # the network imputes
assert np.allclose(m[:, 1], [0.9, 0.7, 0.2])                  # category mapped, number kept, missing default
assert list(m[:, 2]) == [2, 0, 1]                             # vocabulary index, 0 unseen

p = features.class_probabilities([0.2, 0.9], 2)
assert p.shape == (2, 2) and np.allclose(p[:, 0] + p[:, 1], 1) and p[1, 1] == 0.9
p = features.class_probabilities([[0.1, 0.2, 0.7]], 3)
assert p.shape == (1, 3)
print("ok")
`)
}

func TestSteplibEvaluation(t *testing.T) {
	t.Parallel()
	out := runSteplib(t, `
import argparse, json, os, tempfile
import numpy as np
import pandas as pd
from steplib import evaluation

assert evaluation.names("auc, log_loss,,accuracy ") == ["auc", "log_loss", "accuracy"]
assert evaluation.env_flag("Yes", False) is True and evaluation.env_flag("", True) is True and evaluation.env_flag("off", True) is False
try:
    evaluation.check_choices(["auc", "gini"])
    raise AssertionError("gini passed")
except SystemExit as e:
    assert "gini" in str(e)

y = np.array([0, 0, 1, 1])
m = evaluation.binary_metrics(y, np.array([0.1, 0.4, 0.35, 0.8]), ["auc", "accuracy", "f1_score"])
assert m["auc"] == 0.75 and m["accuracy"] == 0.75, m
assert evaluation.binary_metrics(np.array([1, 1]), np.array([0.2, 0.9]), ["auc"])["auc"] is None
prob = np.array([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8], [0.6, 0.3, 0.1]])
m = evaluation.multiclass_metrics(np.array([0, 1, 2, 1]), prob, ["auc", "f1_score", "accuracy"])
assert m["accuracy"] == 0.75 and "auc_class_2" in m and "f1_score_micro" in m, m
t = evaluation.training_metrics(np.array([0, 1]), np.array([[0.9, 0.1], [0.2, 0.8]]))
assert t["rows"] == 2 and t["auc"] == 1.0 and t["accuracy"] == 1.0
assert evaluation.mcnemar(y, np.array([0, 0, 1, 1.0]), np.array([0, 0, 1, 1.0])) == (0.0, 1.0)

# run: the outputs a model-eval step writes, for any scorer
root = tempfile.mkdtemp()
data = os.path.join(root, "data")
os.makedirs(data)
rows = pd.DataFrame({"id": ["a", "b", "c", "d", "e"], "y": ["no", "yes", "yes", "no", None], "old": [0.3, 0.6, 0.4, 0.2, 0.5]})
rows.to_csv(os.path.join(data, "rows.csv"), index=False)
seen = {}
def score(df):
    seen["rows"] = len(df)
    p = np.where(df["y"] == "yes", 0.9, 0.2)
    return np.stack([1 - p, p], axis=1), "by rule"
paths_in = {"processed_data": data}
paths_out = {"eval_output": os.path.join(root, "eval"), "metrics_output": os.path.join(root, "metrics")}
env = {"ID_FIELD": "id", "LABEL_FIELD": "y", "COMPARISON_MODE": True, "PREVIOUS_SCORE_FIELD": "old", "COMPARISON_METRICS": "all",
       "STATISTICAL_TESTS": True, "COMPARISON_PLOTS": True, "EVAL_METRIC_CHOICES": ["auc", "accuracy"]}
m = evaluation.run(paths_in, paths_out, env, argparse.Namespace(job_type="calibration"), {"classes": ["no", "yes"]}, score)
assert seen["rows"] == 4                                    # the unlabelled row is left out
assert m["auc"] == 1.0 and m["previous_auc"] == 1.0 and m["delta_auc"] == 0.0 and "mcnemar_p_value" in m, m
assert m["class_0_count"] == 2 and m["num_classes"] == 2
pred = pd.read_csv(os.path.join(root, "eval", "eval_predictions.csv"))
assert list(pred.columns) == ["id", "y", "prob_class_0", "prob_class_1", "old"] and list(pred["y"]) == [0, 1, 1, 0]
assert json.load(open(os.path.join(root, "metrics", "metrics.json")))["auc"] == 1.0
for bad, want in (({"classes": ["no", "maybe"]}, "'yes'"), ):
    try:
        evaluation.run(paths_in, paths_out, env, argparse.Namespace(job_type="t"), bad, score)
        raise AssertionError("labels outside the classes passed")
    except SystemExit as e:
        assert want in str(e), e
env["LABEL_FIELD"] = "nope"
try:
    evaluation.run(paths_in, paths_out, env, argparse.Namespace(job_type="t"), {"classes": ["no", "yes"]}, score)
    raise AssertionError("a missing label column passed")
except SystemExit as e:
    assert "nope" in str(e)
print("plots:", sorted(f for f in os.listdir(os.path.join(root, "metrics")) if f.endswith(".png")))
`, "sklearn", "scipy")
	if strings.Contains(out, "matplotlib is not installed") {
		return
	}
	if !strings.Contains(out, "plots: ['pr_curve.png', 'roc_curve.png']") {
		t.Errorf("evaluation.run drew no curves with matplotlib installed:\n%s", out)
	}
}

func TestSteplibTrainjob(t *testing.T) {
	t.Parallel()
	runSteplib(t, `
import json, os, tempfile
import numpy as np
import pandas as pd
from steplib import trainjob

root = tempfile.mkdtemp()
shipped, job = os.path.join(root, "shipped.json"), os.path.join(root, "job.json")
json.dump({"label_name": "y", "lr": "0.5", "tab_field_list": "a, b"}, open(shipped, "w"))
json.dump({"lr": "0.25", "sagemaker_program": "\"x.py\"", "num_classes": "3", "class_weights": "[1, 2, 3]"}, open(job, "w"))
hp = trainjob.load_hyperparameters((shipped, job, os.path.join(root, "absent.json")), ("label_name", "tab_field_list"),
                                   {"lr": 0.1, "rounds": "7"}, ("tab_field_list",), ("rounds",), ("lr",))
assert hp["lr"] == 0.25 and hp["rounds"] == 7 and hp["tab_field_list"] == ["a", "b"], hp
assert "sagemaker_program" not in hp and hp["num_class"] == 3 and hp["class_weights"] == [1.0, 2.0, 3.0]
for required, ints, want in ((("objective",), (), "objective"), ((), ("label_name",), "label_name")):
    try:
        trainjob.load_hyperparameters((shipped,), required, {}, (), ints, ())
        raise AssertionError("passed: " + want)
    except SystemExit as e:
        assert want in str(e), e
assert trainjob.flag("Yes") and not trainjob.flag("0") and trainjob.count("N", "") == 0 and trainjob.count("N", " 3 ") == 3
for v in ("x", "-1"):
    try:
        trainjob.count("NUM_WORKERS", v)
        raise AssertionError("count passed " + v)
    except SystemExit as e:
        assert "NUM_WORKERS" in str(e)

data = os.path.join(root, "data")
os.makedirs(os.path.join(data, "train", "part"))
pd.DataFrame({"a": [1, 2]}).to_csv(os.path.join(data, "train", "t1.csv"), index=False)
pd.DataFrame({"a": [3]}).to_csv(os.path.join(data, "train", "part", "t2.csv"), index=False)
assert list(trainjob.read_channel(data, "train")["a"]) == [3, 1, 2]  # files in path order, sub-folders too
assert trainjob.read_channel(data, "val") is None
assert sum(len(c) for c in trainjob.iter_channel(data, "train", 1)) == 3
try:
    trainjob.check_columns(pd.DataFrame({"a": [1]}), ["a", "b"], "train")
    raise AssertionError("a missing column passed")
except SystemExit as e:
    assert "train" in str(e) and "'b'" in str(e)

arts = os.path.join(root, "arts")
os.makedirs(arts)
json.dump({"a": 1.5}, open(os.path.join(arts, "impute_dict.json"), "w"))
assert trainjob.load_artifacts(arts, ("impute_dict", "risk_table_map")) == {"impute_dict": {"a": 1.5}}
assert trainjob.load_artifacts(os.path.join(root, "none"), ("impute_dict",)) == {}

m = trainjob.write_split(os.path.join(root, "eval"), "val", pd.DataFrame({"k": ["p", "q"]}), np.array([0, 1]),
                         np.array([[0.7, 0.3], [0.4, 0.6]]), "k", "y")
assert m["auc"] == 1.0
pred = pd.read_csv(os.path.join(root, "eval", "val", "predictions.csv"))
assert list(pred.columns) == ["k", "y", "prob_class_0", "prob_class_1"] and list(pred["k"]) == ["p", "q"]

failure = os.path.join(root, "failure")
def main(x):
    raise SystemExit("bad input %s" % x)
try:
    trainjob.run(main, failure, "demo", 7)
    raise AssertionError("run swallowed the exit")
except SystemExit:
    pass
assert open(failure).read() == "bad input 7"
try:
    trainjob.require("no_such_module_xyz", "no_such_module_xyz>=1", "demo")
    raise AssertionError("a missing module passed")
except SystemExit as e:
    assert "no_such_module_xyz is not installed" in str(e) and "image_uri" in str(e)
assert trainjob.require("json", "json", "demo") is json
print("ok")
`, "sklearn")
}

func TestSteplibBatchscore(t *testing.T) {
	t.Parallel()
	out := runSteplib(t, `
import argparse, os, tempfile
import numpy as np
import pandas as pd
from steplib import batchscore

root = tempfile.mkdtemp()
data = os.path.join(root, "data")
os.makedirs(os.path.join(data, "b"))
pd.DataFrame({"id": [1, 2], "x": [0.1, 0.9], "y": ["0", "7"]}).to_csv(os.path.join(data, "a.csv"), index=False)
pd.DataFrame({"id": [3], "x": [0.5], "y": ["1"]}).to_csv(os.path.join(data, "b", "c.csv"), index=False)
env = {"ID_FIELD": "id", "LABEL_FIELD": "y", "OUTPUT_FORMAT": "csv", "JSON_ORIENT": "records"}
def score(df):
    p = df["x"].to_numpy()
    return batchscore.probability_columns(np.stack([1 - p, p], axis=1))
path = batchscore.run({"processed_data": data}, {"eval_output": os.path.join(root, "out")}, env, argparse.Namespace(job_type="testing"), ["0", "1"], score)
out = pd.read_csv(path)
assert list(out.columns) == ["id", "x", "y", "prob_class_0", "prob_class_1"] and list(out["id"]) == [1, 2, 3], out
assert np.allclose(out["prob_class_1"], [0.1, 0.9, 0.5])
env["ID_FIELD"] = "key"
try:
    batchscore.run({"processed_data": data}, {"eval_output": os.path.join(root, "out")}, env, argparse.Namespace(job_type="t"), None, score)
    raise AssertionError("a missing id column passed")
except SystemExit as e:
    assert "ID_FIELD 'key'" in str(e)
env["ID_FIELD"] = "id"
try:
    batchscore.run({"processed_data": data}, {"eval_output": os.path.join(root, "out")}, env, argparse.Namespace(job_type="t"), None, lambda df: pd.DataFrame({"p": [1]}))
    raise AssertionError("a short answer passed")
except SystemExit as e:
    assert "answered 1 rows" in str(e)
`)
	if !strings.Contains(out, "labels ['7'] that are not classes") {
		t.Errorf("batchscore.run did not warn of a label outside the model's classes:\n%s", out)
	}
}
