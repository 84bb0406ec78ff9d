package localrun

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler"
)

func TestParseImage(t *testing.T) {
	for _, c := range []struct {
		uri     string
		fam     family
		version string
		serving serving
		name    string
	}{
		{torchServeImage, famPyTorch, "2.1.0", servingTorchServe, "the SageMaker PyTorch 2.1.0 image"},
		{"763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:1.1.0-cpu-py3", famPyTorch, "1.1.0", servingContainers, "the SageMaker PyTorch 1.1.0 image"},
		{"520713654638.dkr.ecr.us-west-2.amazonaws.com/sagemaker-pytorch:1.0.0-cpu-py3", famPyTorch, "1.0.0", servingContainers, "the SageMaker PyTorch 1.0.0 image"},
		{torchTrainImage, famPyTorch, "2.1.0", servingTorchServe, "the SageMaker PyTorch 2.1.0 image"},
		{xgbImage, famXGBoost, "1.7", servingContainers, "the SageMaker XGBoost 1.7-1 image"},
		{sklearnImage, famSKLearn, "1.2", servingContainers, "the SageMaker scikit-learn 1.2-1 image"},
		{"123456789012.dkr.ecr.eu-west-1.amazonaws.com/my/lightgbm:3@sha256:abc", famOther, "3", servingUnknown, "image 123456789012.dkr.ecr.eu-west-1.amazonaws.com/my/lightgbm:3@sha256:abc"},
		{"localhost:5000/img", famOther, "", servingUnknown, "image localhost:5000/img"},
	} {
		im := parseImage(c.uri)
		if im.fam != c.fam || im.version != c.version || servingOf(im, "") != c.serving || im.name() != c.name {
			t.Errorf("%s: %s %q %s %q", c.uri, im.fam, im.version, servingOf(im, ""), im.name())
		}
	}
	// an image of no family serves as its catalog step's framework does
	other := parseImage("123456789012.dkr.ecr.eu-west-1.amazonaws.com/lightgbm:3")
	if servingOf(other, "pytorch") != servingTorchServe || servingOf(other, "xgboost") != servingContainers || servingOf(other, "generic") != servingUnknown {
		t.Error("servingOf an unknown image by its step's framework")
	}
}

// torchTrain is a training script that writes model.json (the "model" of
// inferenceScript) and, with torch, a TorchScript model.pt (y = x1 + 2*x2)
// or, with STATE_DICT set, a plain state dict there.
const torchTrain = `
import json, os
json.dump({"mean": 0.5}, open(os.path.join(os.environ["SM_MODEL_DIR"], "model.json"), "w"))
if os.environ.get("WITH_TORCH"):
    import torch
    m = torch.nn.Linear(2, 1, bias=False)
    with torch.no_grad():
        m.weight.copy_(torch.tensor([[1.0, 2.0]]))
    path = os.path.join(os.environ["SM_MODEL_DIR"], "model.pt")
    if os.environ.get("STATE_DICT"):
        torch.save(m.state_dict(), path)
    else:
        torch.jit.script(m).save(path)
print("trained")
`

// repackScript is the test's own repack job, an ordinary training job as
// the SDK's repack step is: the trained archive (channel model) and the
// inference code (channel inference_code) into one archive, the code
// under code/.
const repackScript = `
import os, shutil, tarfile
os.makedirs("/opt/ml/model/code", exist_ok=True)
tarfile.open("/opt/ml/input/data/model/model.tar.gz").extractall("/opt/ml/model")
tarfile.open("/opt/ml/input/data/inference_code/sourcedir.tar.gz").extractall("/opt/ml/model/code")
print("repacked", sorted(os.listdir("/opt/ml/model")), sorted(os.listdir("/opt/ml/model/code")))
`

// torchPipeline trains on the PyTorch training image, makes a model on the
// PyTorch 2.1 serving image (TorchServe) and scores with it. repack puts a
// repack job between them and serves its archive from /opt/ml/model/code;
// env is the model's Environment otherwise.
func torchPipeline(t *testing.T, repack bool, modelEnv map[string]string, trainEnv map[string]string) *pipeline {
	p := newPipeline(t)
	p.params = []compiler.Parameter{prefixParam()}
	p.sourceDir("s3://bucket/code/train/sourcedir.tar.gz", "train", map[string]string{"train.py": torchTrain})
	p.sourceDir("s3://bucket/code/serve/sourcedir.tar.gz", "serve", map[string]string{"inference.py": inferenceScript})
	p.sourceDir("s3://bucket/code/repack/sourcedir.tar.gz", "repack", map[string]string{"repack.py": repackScript})
	tenv, _ := json.Marshal(trainEnv)
	p.step(`{"Name": "Train", "Type": "Training", "Arguments": {
		"AlgorithmSpecification": {"TrainingInputMode": "File", "TrainingImage": "` + torchTrainImage + `"},
		"OutputDataConfig": {"S3OutputPath": "s3://bucket/run/training"},
		"ResourceConfig": {"VolumeSizeInGB": 30, "InstanceCount": 1, "InstanceType": "ml.m5.xlarge"},
		"RoleArn": "r", "InputDataConfig": [],
		"HyperParameters": {"sagemaker_program": "\"train.py\"", "sagemaker_submit_directory": "\"s3://bucket/code/train/sourcedir.tar.gz\""},
		"Environment": ` + string(tenv) + `}}`)
	modelData := `{"Get": "Steps.Train.ModelArtifacts.S3ModelArtifacts"}`
	if repack {
		p.step(`{"Name": "Repack", "Type": "Training", "Arguments": {
			"AlgorithmSpecification": {"TrainingInputMode": "File", "TrainingImage": "` + sklearnImage + `"},
			"OutputDataConfig": {"S3OutputPath": "s3://bucket/run/repacked"},
			"ResourceConfig": {"VolumeSizeInGB": 30, "InstanceCount": 1, "InstanceType": "ml.m5.large"},
			"RoleArn": "r",
			"InputDataConfig": [
				{"ChannelName": "model", "DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": {"Get": "Steps.Train.ModelArtifacts.S3ModelArtifacts"}}}},
				{"ChannelName": "inference_code", "DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": "s3://bucket/code/serve/sourcedir.tar.gz"}}}],
			"HyperParameters": {"sagemaker_program": "\"repack.py\"", "sagemaker_submit_directory": "\"s3://bucket/code/repack/sourcedir.tar.gz\""}}}`)
		modelData = `{"Get": "Steps.Repack.ModelArtifacts.S3ModelArtifacts"}`
		modelEnv = map[string]string{"SAGEMAKER_PROGRAM": "inference.py", "SAGEMAKER_SUBMIT_DIRECTORY": "/opt/ml/model/code"}
	}
	env, _ := json.Marshal(modelEnv)
	p.step(`{"Name": "Model", "Type": "Model", "Arguments": {"ExecutionRoleArn": "r", "PrimaryContainer": {"Image": "` + torchServeImage + `",
		"Environment": ` + string(env) + `, "ModelDataUrl": ` + modelData + `}}}`)
	p.step(`{"Name": "Score", "Type": "Transform", "Arguments": {"ModelName": {"Get": "Steps.Model.ModelName"},
		"TransformInput": {"DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": "s3://bucket/raw/score/"}}, "ContentType": "text/csv", "SplitType": "Line"},
		"TransformOutput": {"S3OutputPath": "s3://bucket/run/transform", "Accept": "text/csv", "AssembleWith": "Line"},
		"TransformResources": {"InstanceCount": 1, "InstanceType": "ml.m5.large"}}}`)
	return p
}

func scoreData(t *testing.T, p *pipeline) map[string]string {
	f := filepath.Join(p.dir, "raw", "score", "part-0.csv")
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte("1,2\n3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"s3://bucket/raw/": filepath.Join(p.dir, "raw")}
}

// TorchServe (the PyTorch 2.1 serving image) imports the inference code
// only from the model archive's code/: a model whose code is an S3
// SAGEMAKER_SUBMIT_DIRECTORY fails with that reason; repacked by an
// ordinary training job, its code is served from /opt/ml/model/code.
func TestTorchServeReadsCodeOnlyFromTheArchive(t *testing.T) {
	needPython(t)
	p := torchPipeline(t, false, map[string]string{"SAGEMAKER_PROGRAM": "inference.py", "SAGEMAKER_SUBMIT_DIRECTORY": "s3://bucket/code/serve/sourcedir.tar.gz"}, nil)
	rep := p.run(Options{Data: scoreData(t, p)})
	m := wantStatus(t, rep, "Model", StatusFailed)
	for _, want := range []string{
		"the SageMaker PyTorch 2.1.0 image serves with TorchServe and the SageMaker PyTorch inference toolkit, which imports SAGEMAKER_PROGRAM inference.py only from the model archive's code/ (/opt/ml/model/code), and the archive has no code/inference.py",
		"it never reads SAGEMAKER_SUBMIT_DIRECTORY (s3://bucket/code/serve/sourcedir.tar.gz)",
		"repacks such a model with its code",
	} {
		if !strings.Contains(m.Error, want) {
			t.Errorf("the model's error lacks %q:\n%s", want, m.Error)
		}
	}
	wantStatus(t, rep, "Score", StatusSkipped)

	p = torchPipeline(t, true, nil, nil)
	rep = p.run(Options{Data: scoreData(t, p)})
	if !rep.Succeeded {
		t.Fatalf("the repacked model: %+v", rep.Failed)
	}
	if r := wantStatus(t, rep, "Repack", StatusSucceeded); !strings.Contains(r.LogTail, "repacked ['code', 'model.json'] ['inference.py']") {
		t.Errorf("repack log: %s", r.LogTail)
	}
	if m := wantStatus(t, rep, "Model", StatusSucceeded); !strings.Contains(strings.Join(m.Checks, "\n"), "which imports inference.py from the archive's code/ (/opt/ml/model/code)") {
		t.Errorf("model checks: %v", m.Checks)
	}
	sc := wantStatus(t, rep, "Score", StatusSucceeded)
	if !strings.Contains(sc.LogTail, "TorchServe and the SageMaker PyTorch inference toolkit serves inference.py from /opt/ml/model/code") {
		t.Errorf("transform log: %s", sc.LogTail)
	}
	if got := readFile(t, filepath.Join(sc.Outputs[outTransform], "part-0.csv.out")); got != "0.50\n0.50\n" {
		t.Errorf("transform output %q", got)
	}
}

// Without a program in its archive TorchServe serves with the toolkit's
// default handlers: a TorchScript model.pt, CSV in and out; a model.pt
// that is not TorchScript fails the transform with the toolkit's reason.
func TestTorchServeDefaultHandlers(t *testing.T) {
	needLibraries(t, "torch", "numpy")
	p := torchPipeline(t, false, nil, map[string]string{"WITH_TORCH": "1"})
	rep := p.run(Options{Data: scoreData(t, p)})
	if !rep.Succeeded {
		t.Fatalf("run: %+v", rep.Failed)
	}
	if m := wantStatus(t, rep, "Model", StatusSucceeded); !strings.Contains(strings.Join(m.Checks, "\n"), "with its default handlers (no code/inference.py): torch.jit.load of model.pt") {
		t.Errorf("model checks: %v", m.Checks)
	}
	sc := wantStatus(t, rep, "Score", StatusSucceeded)
	if got := readFile(t, filepath.Join(sc.Outputs[outTransform], "part-0.csv.out")); got != "5.0\n11.0\n" {
		t.Errorf("the default handlers' output %q, want y = x1 + 2*x2 per line", got)
	}

	p = torchPipeline(t, false, nil, map[string]string{"WITH_TORCH": "1", "STATE_DICT": "1"})
	rep = p.run(Options{Data: scoreData(t, p)})
	sc = wantStatus(t, rep, "Score", StatusFailed)
	if !strings.Contains(sc.Error, "Please ensure model is saved using torchscript") {
		t.Errorf("a state dict under the default handlers: %s", sc.Error)
	}
}

// An isolated training job cannot download its code from S3: the run fails
// with the reason; with the code as the "code" channel and
// sagemaker_submit_directory in it, as the SDK ships it, the toolkit
// unpacks it and the job runs.
func TestIsolatedTrainingNeedsTheCodeChannel(t *testing.T) {
	needPython(t)
	p := modelPipeline(t, `"s3://x/y"`, `"s3://x/z"`)
	p.steps = p.steps[:1]
	args := p.steps[0].Arguments.(map[string]any)
	args["EnableNetworkIsolation"] = true
	rep := p.run(Options{Data: modelData(t, p)})
	tr := wantStatus(t, rep, "Train", StatusFailed)
	if !strings.Contains(tr.Error, "the job runs with EnableNetworkIsolation, so the training toolkit of the SageMaker XGBoost 1.7-1 image cannot download sagemaker_submit_directory s3://bucket/code/src/sourcedir.tar.gz") ||
		!strings.Contains(tr.Error, `ships an isolated job's code as its "code" input channel`) {
		t.Fatalf("error: %s", tr.Error)
	}

	args["InputDataConfig"] = append(args["InputDataConfig"].([]any), map[string]any{"ChannelName": "code",
		"DataSource": map[string]any{"S3DataSource": map[string]any{"S3DataType": "S3Prefix", "S3Uri": "s3://bucket/code/src/sourcedir.tar.gz", "S3DataDistributionType": "FullyReplicated"}}})
	hps := args["HyperParameters"].(map[string]any)
	hps["sagemaker_submit_directory"] = `"/opt/ml/input/data/code/sourcedir.tar.gz"`
	rep = p.run(Options{Data: modelData(t, p)})
	tr = wantStatus(t, rep, "Train", StatusSucceeded)
	var seen map[string]any
	if err := json.Unmarshal([]byte(extractOne(t, tr.Outputs["output_data"], "seen.json")), &seen); err != nil {
		t.Fatal(err)
	}
	if seen["helper"] != float64(42) || seen["channels"] != `["code","train"]` {
		t.Errorf("the job ran from the unpacked channel: %v", seen)
	}
}

// sagemaker-containers (XGBoost, scikit-learn) serve the program from
// SAGEMAKER_SUBMIT_DIRECTORY: not downloadable under network isolation,
// required by scikit-learn, and the XGBoost image without a program runs
// its built-in algorithm, which the runner does not.
func TestSageMakerContainersServing(t *testing.T) {
	needPython(t)
	for _, c := range []struct {
		name, image string
		env         map[string]any
		isolated    bool
		want        string
	}{
		{"isolated", xgbImage, map[string]any{"SAGEMAKER_PROGRAM": "inference.py", "SAGEMAKER_SUBMIT_DIRECTORY": "s3://bucket/code/src/sourcedir.tar.gz"}, true,
			"the model runs with EnableNetworkIsolation, so the SageMaker XGBoost 1.7-1 image cannot download SAGEMAKER_SUBMIT_DIRECTORY s3://bucket/code/src/sourcedir.tar.gz"},
		{"no program", sklearnImage, map[string]any{"SAGEMAKER_SUBMIT_DIRECTORY": "s3://bucket/code/src/sourcedir.tar.gz"}, false,
			"the SageMaker scikit-learn 1.2-1 image serves with sagemaker-containers, which imports the module SAGEMAKER_PROGRAM names, and the environment names none"},
		{"not in the submitted code", sklearnImage, map[string]any{"SAGEMAKER_PROGRAM": "serve.py", "SAGEMAKER_SUBMIT_DIRECTORY": "s3://bucket/code/src/sourcedir.tar.gz"}, false,
			"SAGEMAKER_PROGRAM serve.py is not in SAGEMAKER_SUBMIT_DIRECTORY s3://bucket/code/src/sourcedir.tar.gz (it holds: "},
		{"nothing in /opt/ml/code", sklearnImage, map[string]any{"SAGEMAKER_PROGRAM": "inference.py"}, false,
			"from SAGEMAKER_SUBMIT_DIRECTORY (default /opt/ml/code), and nothing puts code there"},
		{"algorithm mode", xgbImage, map[string]any{}, false,
			"no SAGEMAKER_PROGRAM: the SageMaker XGBoost 1.7-1 image serves in algorithm mode"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := modelPipeline(t, `"s3://x/y"`, `"s3://x/z"`)
			p.steps = p.steps[:3]
			args := p.steps[1].Arguments.(map[string]any)
			mc := args["PrimaryContainer"].(map[string]any)
			mc["Image"], mc["Environment"] = c.image, c.env
			if c.isolated {
				args["EnableNetworkIsolation"] = true
			}
			rep := p.run(Options{Data: modelData(t, p)})
			if s := wantStatus(t, rep, "Model", StatusFailed); !strings.Contains(s.Error, c.want) {
				t.Fatalf("error: %s\nwant: %s", s.Error, c.want)
			}
			wantStatus(t, rep, "Score", StatusSkipped)
		})
	}
}

// The XGBoost image without sagemaker_program trains in algorithm mode,
// which the runner does not run: it says so.
func TestXGBoostAlgorithmModeTraining(t *testing.T) {
	needPython(t)
	p := modelPipeline(t, `"s3://x/y"`, `"s3://x/z"`)
	p.steps = p.steps[:1]
	delete(p.steps[0].Arguments.(map[string]any)["HyperParameters"].(map[string]any), "sagemaker_program")
	rep := p.run(Options{Data: modelData(t, p)})
	if s := wantStatus(t, rep, "Train", StatusFailed); !strings.Contains(s.Error, "the SageMaker XGBoost 1.7-1 image trains in algorithm mode (the built-in XGBoost algorithm), which the local runner does not run") {
		t.Fatalf("error: %s", s.Error)
	}
}

// withoutRepack turns a compiled definition back into the one the SDK
// would not deploy: each Model served from a repack job's archive serves
// the training archive, its code an S3 SAGEMAKER_SUBMIT_DIRECTORY, and the
// repack jobs are gone. It reports whether there was a repack job.
func withoutRepack(t testing.TB, res *compiler.Result) bool {
	b, err := res.Definition.Marshal(false)
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	steps, _ := d["Steps"].([]any)
	repacks := map[string][2]any{}
	var kept []any
	for _, s := range steps {
		m := s.(map[string]any)
		args, _ := m["Arguments"].(map[string]any)
		channels := map[string]any{}
		for _, c := range listOf(args, "InputDataConfig") {
			cm := c.(map[string]any)
			channels[cm["ChannelName"].(string)] = objOf(cm, "DataSource", "S3DataSource")["S3Uri"]
		}
		if m["Type"] == "Training" && channels["model"] != nil && channels["inference_code"] != nil {
			repacks[m["Name"].(string)] = [2]any{channels["model"], channels["inference_code"]}
			continue
		}
		kept = append(kept, s)
	}
	for _, s := range kept {
		m := s.(map[string]any)
		if m["Type"] != "Model" {
			continue
		}
		pc := objOf(m["Arguments"].(map[string]any), "PrimaryContainer")
		g, _ := pc["ModelDataUrl"].(map[string]any)
		ref, _ := g["Get"].(string)
		for name, r := range repacks {
			if ref == "Steps."+name+".ModelArtifacts.S3ModelArtifacts" {
				pc["ModelDataUrl"] = r[0]
				pc["Environment"].(map[string]any)["SAGEMAKER_SUBMIT_DIRECTORY"] = r[1]
			}
		}
		var deps []any
		for _, dep := range listOf(m, "DependsOn") {
			if _, gone := repacks[dep.(string)]; !gone {
				deps = append(deps, dep)
			}
		}
		if deps != nil {
			m["DependsOn"] = deps
		} else {
			delete(m, "DependsOn")
		}
	}
	d["Steps"] = kept
	nb, _ := json.Marshal(d)
	var def compiler.Definition
	if err := json.Unmarshal(nb, &def); err != nil {
		t.Fatal(err)
	}
	res.Definition = &def
	return len(repacks) > 0
}

// The PyTorch batch-transform example runs locally with the repack job the
// compiler adds (an ordinary training job) and fails, with TorchServe's
// reason, without it.
func TestPyTorchBatchTransformNeedsTheRepack(t *testing.T) {
	needLibraries(t, "pandas", "sklearn", "torch")
	res, data := exampleRun(t, "pytorch-batch-transform")
	rep, err := Run(context.Background(), res, Options{WorkDir: t.TempDir(), Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Succeeded {
		t.Fatalf("the compiled example: %+v", rep.Failed)
	}
	if m := wantStatus(t, rep, "PyTorchModel", StatusSucceeded); !strings.Contains(strings.Join(m.Checks, "\n"), "imports inference.py from the archive's code/") {
		t.Errorf("checks: %v", m.Checks)
	}
	if !withoutRepack(t, res) {
		t.Fatal("the compiled example has no repack job")
	}
	rep, err = Run(context.Background(), res, Options{WorkDir: t.TempDir(), Data: data})
	if err != nil {
		t.Fatal(err)
	}
	m := wantStatus(t, rep, "PyTorchModel", StatusFailed)
	if !strings.Contains(m.Error, "serves with TorchServe and the SageMaker PyTorch inference toolkit, which imports SAGEMAKER_PROGRAM inference.py only from the model archive's code/") {
		t.Fatalf("error: %s", m.Error)
	}
}

// The training toolkit pip-installs the code's requirements.txt before it runs the entry point
// (sagemaker-training entry_point.install); the local runner installs nothing (a job has no
// network), so a requirement the interpreter lacks fails the job, naming it, and one it satisfies
// lets the job run.
func TestTrainingRequirementsTxt(t *testing.T) {
	needPython(t)
	needLibraries(t, "pandas")
	p := modelPipeline(t, `"s3://x/y"`, `"s3://x/z"`)
	p.steps = p.steps[:1]
	src := &p.manifest[0]
	if src.Kind != compiler.KindSourceTarball {
		t.Fatalf("the first artifact is %+v, want the training code", src)
	}
	src.Files = sortStrings(append(src.Files, "requirements.txt"))
	write := func(body string) {
		if err := os.WriteFile(filepath.Join(src.LocalPath, "requirements.txt"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("# what the image lacks\ncursus-no-such-package>=1.0\n")
	tr := wantStatus(t, p.run(Options{Data: modelData(t, p)}), "Train", StatusFailed)
	if !strings.Contains(tr.Error, "cursus-no-such-package>=1.0 (not installed)") || !strings.Contains(tr.Error, "the training toolkit would pip-install it") {
		t.Fatalf("error: %s", tr.Error)
	}
	write("pandas>=0.1\n")
	wantStatus(t, p.run(Options{Data: modelData(t, p)}), "Train", StatusSucceeded)
}
