package localrun

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler"
)

// train.py of the synthetic training job: it records what the toolkit
// gave it and writes a "model" (the mean of the label column) plus its
// inference code.
const trainScript = `
import argparse, json, os, sys
p = argparse.ArgumentParser()
p.add_argument("--label_name")
p.add_argument("--num_round", type=int)
p.add_argument("--eta", type=float)
p.add_argument("--features")
p.add_argument("--flag")
p.add_argument("--opts")
args = p.parse_args()
rows = [l.split(",") for l in open(os.path.join(os.environ["SM_CHANNEL_TRAIN"], "train.csv")).read().splitlines()]
header, body = rows[0], rows[1:]
col = header.index(args.label_name)
mean = sum(float(r[col]) for r in body) / len(body)
seen = {
    "argv": sys.argv[1:],
    "cwd": os.getcwd(),
    "channels": os.environ["SM_CHANNELS"],
    "hps": json.loads(os.environ["SM_HPS"]),
    "hp_features": os.environ["SM_HP_FEATURES"],
    "model_dir": os.environ["SM_MODEL_DIR"],
    "module": os.environ["SM_MODULE_NAME"],
    "raw": json.load(open("/opt/ml/input/config/hyperparameters.json")),
    "job": os.environ["TRAINING_JOB_NAME"],
    "helper": __import__("helper").VALUE,
}
os.makedirs(os.environ["SM_OUTPUT_DATA_DIR"], exist_ok=True)
json.dump(seen, open(os.path.join(os.environ["SM_OUTPUT_DATA_DIR"], "seen.json"), "w"))
json.dump({"mean": mean}, open(os.path.join(os.environ["SM_MODEL_DIR"], "model.json"), "w"))
print("trained, mean", mean)
`

// inference.py serves the "model": every CSV record gets the mean.
const inferenceScript = `
import json, os
MODEL = "/opt/ml/model"
def model_fn(model_dir):
    assert model_dir == MODEL, model_dir
    return json.load(open(os.path.join(model_dir, "model.json")))
def input_fn(body, content_type):
    assert content_type == "text/csv", content_type
    assert isinstance(body, str), "the containers decode a CSV body to text: %r" % type(body)
    return [l for l in body.splitlines() if l]
def predict_fn(rows, model):
    return [model["mean"] for _ in rows]
def output_fn(pred, accept):
    return "\n".join("%.2f" % p for p in pred), accept
`

// Images of the SageMaker framework families (containers.go).
const (
	xgbImage        = "683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1"
	sklearnImage    = "683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-scikit-learn:1.2-1-cpu-py3"
	torchTrainImage = "763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:2.1.0-cpu-py310"
	torchServeImage = "763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:2.1.0-cpu-py310"
)

func modelPipeline(t *testing.T, modelDataURL, payloadURL string) *pipeline {
	p := newPipeline(t)
	p.params = []compiler.Parameter{prefixParam()}
	p.sourceDir("s3://bucket/code/src/sourcedir.tar.gz", "src", map[string]string{"train.py": trainScript, "helper.py": "VALUE = 42\n", "inference.py": inferenceScript})
	p.script("s3://bucket/code/pkg/package.py", "pkg/package.py", `
import os, shutil, tarfile
src = "/opt/ml/processing/input/model/model.tar.gz"
work = "/tmp/pkg"
os.makedirs(work + "/code", exist_ok=True)
tarfile.open(src).extractall(work)
shutil.copy("/opt/ml/processing/input/code/inference.py", work + "/code/inference.py")
with tarfile.open("/opt/ml/processing/output/packaged/model.tar.gz", "w:gz") as t:
    for n in sorted(os.listdir(work)):
        t.add(os.path.join(work, n), arcname=n)
with tarfile.open("/opt/ml/processing/output/payload/payload.tar.gz", "w:gz") as t:
    open("/tmp/sample.csv", "w").write("1,2\n")
    t.add("/tmp/sample.csv", arcname="sample.csv")
`)
	p.script("s3://bucket/code/pkg/inference.py", "pkg/inference.py", inferenceScript)
	p.step(`{"Name": "Train", "Type": "Training", "Arguments": {
		"AlgorithmSpecification": {"TrainingInputMode": "File", "TrainingImage": "` + xgbImage + `"},
		"OutputDataConfig": {"S3OutputPath": {"Std:Join": {"On": "/", "Values": [{"Get": "Parameters.EXECUTION_S3_PREFIX"}, "training"]}}},
		"StoppingCondition": {"MaxRuntimeInSeconds": 600},
		"ResourceConfig": {"VolumeSizeInGB": 30, "InstanceCount": 1, "InstanceType": "ml.m5.xlarge"},
		"RoleArn": "arn:aws:iam::123456789012:role/r",
		"InputDataConfig": [{"ChannelName": "train", "DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": "s3://bucket/raw/train.csv", "S3DataDistributionType": "FullyReplicated"}}}],
		"HyperParameters": {"label_name": "\"y\"", "num_round": "3", "eta": "0.5", "features": "[\"a\",\"b\"]", "flag": "true", "opts": "{\"k\":1}",
			"sagemaker_program": "\"train.py\"", "sagemaker_submit_directory": "\"s3://bucket/code/src/sourcedir.tar.gz\"", "sagemaker_region": "\"us-east-1\""},
		"Environment": {"EXTRA": "1"}}}`)
	p.step(`{"Name": "Model", "Type": "Model", "Arguments": {"ExecutionRoleArn": "r", "PrimaryContainer": {"Image": "` + xgbImage + `",
		"Environment": {"SAGEMAKER_PROGRAM": "inference.py", "SAGEMAKER_SUBMIT_DIRECTORY": "s3://bucket/code/src/sourcedir.tar.gz"},
		"ModelDataUrl": {"Get": "Steps.Train.ModelArtifacts.S3ModelArtifacts"}}}}`)
	p.step(`{"Name": "Score", "Type": "Transform", "Arguments": {"ModelName": {"Get": "Steps.Model.ModelName"},
		"TransformInput": {"DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": "s3://bucket/raw/score/"}}, "ContentType": "text/csv", "SplitType": "Line"},
		"TransformOutput": {"S3OutputPath": {"Std:Join": {"On": "/", "Values": [{"Get": "Parameters.EXECUTION_S3_PREFIX"}, "transform"]}}, "Accept": "text/csv", "AssembleWith": "Line"},
		"TransformResources": {"InstanceCount": 1, "InstanceType": "ml.m5.large"},
		"DataProcessing": {"InputFilter": "$[1:]", "OutputFilter": "$[0,-1]", "JoinSource": "Input"}}}`)
	p.step(`{"Name": "Package", "Type": "Processing", "Arguments": {
		"ProcessingResources": {"ClusterConfig": {"InstanceType": "ml.m5.large", "InstanceCount": 1, "VolumeSizeInGB": 30}},
		"AppSpecification": {"ImageUri": "image", "ContainerEntrypoint": ["python3", "/opt/ml/processing/input/code/package.py"]},
		"RoleArn": "r",
		"ProcessingInputs": [
			{"InputName": "model", "S3Input": {"S3Uri": {"Get": "Steps.Train.ModelArtifacts.S3ModelArtifacts"}, "LocalPath": "/opt/ml/processing/input/model", "S3DataType": "S3Prefix"}},
			{"InputName": "code", "S3Input": {"S3Uri": "s3://bucket/code/pkg/", "LocalPath": "/opt/ml/processing/input/code", "S3DataType": "S3Prefix"}}],
		"ProcessingOutputConfig": {"Outputs": [
			{"OutputName": "packaged", "S3Output": {"S3Uri": {"Std:Join": {"On": "/", "Values": [{"Get": "Parameters.EXECUTION_S3_PREFIX"}, "package", "packaged"]}}, "LocalPath": "/opt/ml/processing/output/packaged"}},
			{"OutputName": "payload", "S3Output": {"S3Uri": {"Std:Join": {"On": "/", "Values": [{"Get": "Parameters.EXECUTION_S3_PREFIX"}, "package", "payload"]}}, "LocalPath": "/opt/ml/processing/output/payload"}}]}}}`)
	p.step(`{"Name": "Register", "Type": "RegisterModel", "Arguments": {"ModelPackageGroupName": "g",
		"InferenceSpecification": {"Containers": [{"Image": "` + xgbImage + `", "Environment": {"SAGEMAKER_PROGRAM": "inference.py", "SAGEMAKER_SUBMIT_DIRECTORY": "/opt/ml/model/code"},
			"ModelDataUrl": ` + modelDataURL + `}],
			"SupportedContentTypes": ["text/csv"], "SupportedResponseMIMETypes": ["text/csv"]},
		"ModelApprovalStatus": "PendingManualApproval", "SamplePayloadUrl": ` + payloadURL + `}}`)
	return p
}

func modelData(t *testing.T, p *pipeline) map[string]string {
	raw := filepath.Join(p.dir, "raw")
	for name, body := range map[string]string{"train.csv": "a,b,y\n1,2,1\n3,4,0\n5,6,1\n7,8,0\n", "score/part-0.csv": "id1,1,2\nid2,3,4\n", "score/sub/part-1.csv": "id3,5,6\n"} {
		f := filepath.Join(raw, name)
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return map[string]string{"s3://bucket/raw/": raw}
}

func TestTrainModelTransformRegister(t *testing.T) {
	needPython(t)
	for _, kind := range []Sandbox{Bubblewrap, PathRewrite} {
		t.Run(string(kind), func(t *testing.T) {
			needSandbox(t, kind)
			pkg := `{"Std:Join": {"On": "/", "Values": [` + outGet("Package", "packaged") + `, "model.tar.gz"]}}`
			payload := `{"Std:Join": {"On": "/", "Values": [` + outGet("Package", "payload") + `, "payload.tar.gz"]}}`
			p := modelPipeline(t, pkg, payload)
			rep := p.run(Options{Sandbox: kind, Data: modelData(t, p)})
			if !rep.Succeeded {
				t.Fatalf("run failed: %+v", rep.Failed)
			}
			tr := wantStatus(t, rep, "Train", StatusSucceeded)
			archive := tr.Outputs[outModelArtifacts]
			if !strings.HasSuffix(archive, "/output/model.tar.gz") || !strings.Contains(archive, "/run/training/train-") {
				t.Fatalf("model.tar.gz goes to <S3OutputPath>/<job>/output/: %s", archive)
			}
			ents, err := listTarGz(trusted(archive))
			if err != nil || !hasEntry(ents, "model.json") {
				t.Fatalf("model.tar.gz holds the model directory: %v %v", ents, err)
			}
			var seen map[string]any
			if err := json.Unmarshal([]byte(extractOne(t, tr.Outputs["output_data"], "seen.json")), &seen); err != nil {
				t.Fatal(err)
			}
			argv, _ := json.Marshal(seen["argv"])
			// the toolkit's arguments: sorted keys, Python's str() of the
			// decoded value, a mapping as k=v
			if want := `["--eta","0.5","--features","['a', 'b']","--flag","True","--label_name","y","--num_round","3","--opts","k=1"]`; string(argv) != want {
				t.Errorf("argv %s, want %s", argv, want)
			}
			if seen["cwd"] != "/opt/ml/code" && kind == Bubblewrap || seen["channels"] != `["train"]` || seen["hp_features"] != `["a","b"]` ||
				seen["module"] != "train" || seen["helper"] != float64(42) {
				t.Errorf("toolkit environment: %v", seen)
			}
			if hps, _ := seen["hps"].(map[string]any); hps["num_round"] != float64(3) || hps["sagemaker_program"] != nil {
				t.Errorf("SM_HPS has the decoded user hyperparameters only: %v", seen["hps"])
			}
			if raw, _ := seen["raw"].(map[string]any); raw["label_name"] != `"y"` || raw["sagemaker_program"] != `"train.py"` {
				t.Errorf("hyperparameters.json keeps the definition's text: %v", seen["raw"])
			}
			m := wantStatus(t, rep, "Model", StatusSucceeded)
			if len(m.Checks) != 2 || !strings.Contains(m.Checks[1], "the SageMaker XGBoost 1.7-1 image serves with sagemaker-containers, which downloads SAGEMAKER_SUBMIT_DIRECTORY s3://bucket/code/src/sourcedir.tar.gz into /opt/ml/code and imports SAGEMAKER_PROGRAM inference.py from it") {
				t.Errorf("model checks: %v", m.Checks)
			}
			sc := wantStatus(t, rep, "Score", StatusSucceeded)
			out := sc.Outputs[outTransform]
			// input id,a,b -> filtered a,b -> 0.50; joined id,a,b,0.50 -> $[0,-1]
			if got := readFile(t, filepath.Join(out, "part-0.csv.out")); got != "id1,0.50\nid2,0.50\n" {
				t.Errorf("transform output %q", got)
			}
			if got := readFile(t, filepath.Join(out, "sub", "part-1.csv.out")); got != "id3,0.50\n" {
				t.Errorf("transform output of a nested file %q", got)
			}
			reg := wantStatus(t, rep, "Register", StatusSucceeded)
			if len(reg.Checks) != 3 || !strings.Contains(reg.Checks[1], "which copies SAGEMAKER_SUBMIT_DIRECTORY /opt/ml/model/code into /opt/ml/code and imports SAGEMAKER_PROGRAM inference.py from it") || reg.Outputs[outSamplePayload] == "" {
				t.Errorf("register checks %v outputs %v", reg.Checks, reg.Outputs)
			}
		})
	}
}

// RegisterModel pointing at the package prefix (not the archive) fails
// with what SageMaker needs.
func TestRegisterModelNeedsTheArchive(t *testing.T) {
	needPython(t)
	p := modelPipeline(t, outGet("Package", "packaged"), outGet("Package", "payload"))
	rep := p.run(Options{Data: modelData(t, p)})
	s := wantStatus(t, rep, "Register", StatusFailed)
	if !strings.Contains(s.Error, "is a prefix (a folder holding model.tar.gz), not an object: SageMaker needs the URI of the single gzip compressed tar archive") {
		t.Fatalf("error: %s", s.Error)
	}
	if rep.Failed == nil || rep.Failed.Step != "Register" {
		t.Fatalf("failed: %+v", rep.Failed)
	}
}

// A model archive without inference code fails the Model check.
func TestModelWithoutCode(t *testing.T) {
	needPython(t)
	p := modelPipeline(t, `"s3://x/y"`, `"s3://x/z"`)
	mc := p.steps[1].Arguments.(map[string]any)["PrimaryContainer"].(map[string]any)
	mc["Environment"] = map[string]any{}
	rep := p.run(Options{Data: modelData(t, p)})
	s := wantStatus(t, rep, "Model", StatusFailed)
	if !strings.Contains(s.Error, "no SAGEMAKER_PROGRAM: the SageMaker XGBoost 1.7-1 image serves in algorithm mode") {
		t.Fatalf("error: %s", s.Error)
	}
	wantStatus(t, rep, "Score", StatusSkipped)
}

func extractOne(t *testing.T, archive, name string) string {
	t.Helper()
	dir := t.TempDir()
	if err := extractTarGz(trusted(archive), dir); err != nil {
		t.Fatal(err)
	}
	return readFile(t, filepath.Join(dir, name))
}
