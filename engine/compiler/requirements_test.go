package compiler_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/pipelines"
	"github.com/cursus-go/cursus/engine/pipelines/pipelinestest"
)

// compileCatalogDAG compiles a catalog DAG with its essential fields filled (pipelinestest.Fill)
// and the changes of mod applied to the filled values.
func compileCatalogDAG(t *testing.T, id string, mod func(f *pipelinestest.Filled)) *compiler.Result {
	t.Helper()
	cat, err := pipelines.Default()
	if err != nil {
		t.Fatal(err)
	}
	e, err := cat.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	nodes := make([]catalog.NodeName, len(e.Nodes))
	for i, n := range e.Nodes {
		nodes[i] = catalog.NodeName(n)
	}
	f, err := pipelinestest.Fill(schema, nodes)
	if err != nil {
		t.Fatal(err)
	}
	if mod != nil {
		mod(f)
	}
	set, err := schema.Build(config.BuildInput{Nodes: nodes, Base: f.Base, Steps: f.Steps})
	if err != nil {
		t.Fatal(err)
	}
	res, err := compiler.Compile(context.Background(), compiler.Input{DAG: e.DAG(), Configs: set, BaseDir: t.TempDir()})
	if err != nil {
		t.Fatalf("compile %s: %v", id, err)
	}
	b, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	checkDefinition(t, id, b)
	return res
}

// codeOf returns the code artifact of step whose files include file, or nil.
func codeOf(res *compiler.Result, step catalog.SageMakerStepName, file string) *compiler.Artifact {
	for i, a := range res.Manifest {
		if slices.Contains(a.Steps, step) && slices.Contains(a.Files, file) {
			return &res.Manifest[i]
		}
	}
	return nil
}

// requirementsOf returns the requirements.txt the code of step ships ("" when none).
func requirementsOf(t *testing.T, res *compiler.Result, step catalog.SageMakerStepName) string {
	t.Helper()
	a := codeOf(res, step, catalog.RequirementsTxt)
	if a == nil {
		return ""
	}
	b, err := a.ReadFile(nil, catalog.RequirementsTxt)
	if err != nil {
		t.Fatalf("%s: %v", step, err)
	}
	return string(b)
}

// imageOfStep returns the image of a step of the definition.
func imageOfStep(t *testing.T, res *compiler.Result, name catalog.SageMakerStepName) any {
	t.Helper()
	for _, s := range res.Definition.AllSteps() {
		if s.Name != name {
			continue
		}
		switch a := s.Arguments.(type) {
		case *compiler.TrainingArguments:
			return a.AlgorithmSpecification.TrainingImage
		case *compiler.ProcessingArguments:
			return a.AppSpecification.ImageUri
		case *compiler.ModelArguments:
			return a.PrimaryContainer.Image
		}
	}
	t.Fatalf("no step %s", name)
	return nil
}

// No SageMaker framework image ships lightgbm, so the LightGBM steps run on the PyTorch image of
// the pipeline's region and install it as the SDK's containers install a source directory's
// requirements.txt: the training toolkit beside the script, the processing launcher from the code
// archive, the inference toolkit from the model's code/. image_uri is only an override: a catalog
// DAG is deployable without it.
func TestLightGBMInstallsOnTheFrameworkImage(t *testing.T) {
	const pin = "lightgbm>=3.3.0,<5"
	res := compileCatalogDAG(t, "lightgbm_batch_inference", nil)
	checkDeployable(t, res)
	eq(t, "training image", imageOfStep(t, res, "LightGBMTraining"), "763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:2.1.0-cpu-py310")
	eq(t, "model image", imageOfStep(t, res, "LightGBMModel"), "763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:2.1.0-cpu-py310")
	for _, step := range []catalog.SageMakerStepName{"LightGBMTraining", "LightGBMModel"} {
		if r := requirementsOf(t, res, step); !strings.Contains(r, pin) {
			t.Errorf("%s ships requirements.txt %q, want %s", step, r, pin)
		}
	}
	if a := codeOf(res, "LightGBMModel", catalog.InferenceEntryPoint); a == nil || a.Kind != compiler.KindSourceTarball {
		t.Errorf("the model's serving code is not one archive with inference.py: %+v", a)
	}

	// Evaluation runs from a code archive through the launcher, which installs the file; Package
	// puts it into the model's code/ beside inference.py, for the registered model's container.
	res = compileCatalogDAG(t, "lightgbm_complete_e2e", nil)
	checkDeployable(t, res)
	eval := catalog.SageMakerStepName("LightGBMModelEval-Calibration")
	if r := requirementsOf(t, res, eval); !strings.Contains(r, pin) {
		t.Errorf("%s ships requirements.txt %q", eval, r)
	}
	if codeOf(res, eval, "runproc.py") == nil {
		t.Errorf("%s is not launched by runproc.py, which installs requirements.txt", eval)
	}
	if a := codeOf(res, "Package", catalog.InferenceEntryPoint); a == nil || !slices.Contains(a.Files, catalog.RequirementsTxt) {
		t.Errorf("Package's serving code has no requirements.txt: %+v", a)
	}

	// The multi-task serving code is shared: a LightGBM-MT model's code/ installs lightgbm, an
	// XGBoost-MT model's (served by the XGBoost image) installs nothing.
	res = compileCatalogDAG(t, "lightgbmmt_complete_e2e", nil)
	checkDeployable(t, res)
	for _, step := range []catalog.SageMakerStepName{"LightGBMMTTraining", "Package"} {
		if r := requirementsOf(t, res, step); !strings.Contains(r, pin) {
			t.Errorf("lightgbmmt %s ships requirements.txt %q", step, r)
		}
	}
	res = compileCatalogDAG(t, "xgboost_mt_complete_e2e", nil)
	if r := requirementsOf(t, res, "Package"); r != "" {
		t.Errorf("an XGBoost-MT model's code installs %q", r)
	}
}

// Under network isolation pip reaches no package index: a LightGBM job on the framework image
// would fail before its code starts, so readiness refuses it and names the image to give; an
// image_uri (an image with lightgbm) clears it.
func TestLightGBMUnderIsolationNeedsAnImage(t *testing.T) {
	isolate := func(f *pipelinestest.Filled) { f.Base["enable_network_isolation"] = true }
	res := compileCatalogDAG(t, "lightgbm_batch_inference", isolate)
	var nodes []string
	for _, b := range res.Blockers {
		if b.Kind != compiler.BlockerCannotInstall {
			continue
		}
		nodes = append(nodes, string(b.Node))
		if b.Field != "image_uri" || !strings.Contains(b.Problem, "lightgbm>=3.3.0,<5") || !strings.Contains(b.Fix, "image_uri") {
			t.Errorf("blocker %+v: want the field image_uri, the missing package and the fix", b)
		}
	}
	slices.Sort(nodes)
	eq(t, "nodes that cannot install", nodes, []string{"LightGBMModel", "LightGBMTraining"})

	res = compileCatalogDAG(t, "lightgbm_batch_inference", func(f *pipelinestest.Filled) {
		isolate(f)
		for _, n := range []catalog.NodeName{"LightGBMTraining", "LightGBMModel"} {
			f.Steps[n]["image_uri"] = "210987654321.dkr.ecr.us-east-1.amazonaws.com/lightgbm-pytorch:2.1.0"
		}
	})
	for _, b := range res.Blockers {
		if b.Kind == compiler.BlockerCannotInstall {
			t.Errorf("an image_uri with lightgbm still blocks: %+v", b)
		}
	}
}
