package localrun

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// This file says which container contract a job's image follows: where the
// container reads its code from, what it does without a user module, and
// what it cannot do under network isolation. docs/local-run.md holds the
// table with the toolkits' source each row is read from.

// family is a kind of SageMaker image, by the toolkit its entry point
// runs.
type family string

const (
	// famPyTorch: the SageMaker PyTorch images. Training runs the
	// sagemaker-training toolkit; serving (framework version 1.2 and
	// later) runs TorchServe with the SageMaker PyTorch inference toolkit.
	famPyTorch family = "pytorch"
	// famSKLearn: the SageMaker scikit-learn images. Training runs the
	// sagemaker-training toolkit; serving runs gunicorn with
	// sagemaker-containers.
	famSKLearn family = "sklearn"
	// famXGBoost: the SageMaker XGBoost images. Training and serving run
	// sagemaker-containers: script mode with a user program, the built-in
	// algorithm without one.
	famXGBoost family = "xgboost"
	// famOther: an image of no family the runner knows (a project's own,
	// or a parameter).
	famOther family = "other"
)

// image is a job's image as its URI names it.
type image struct {
	uri, repo, tag string
	fam            family
	// version is the framework version of the tag ("2.1.0" of
	// "2.1.0-cpu-py310"), "" when it has none.
	version string
}

// parseImage reads an ECR image URI: its repository's last segment names
// the family (pytorch-training, pytorch-inference, sagemaker-xgboost,
// sagemaker-scikit-learn, ...), its tag the framework version.
func parseImage(uri string) image {
	im := image{uri: uri, fam: famOther}
	rest := uri
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, ':'); i > strings.LastIndexByte(rest, '/') {
		rest, im.tag = rest[:i], rest[i+1:]
	}
	im.repo = path.Base(rest)
	im.version, _, _ = strings.Cut(im.tag, "-")
	switch r := im.repo; {
	case strings.HasPrefix(r, "pytorch-training"), strings.HasPrefix(r, "pytorch-inference"), r == "sagemaker-pytorch":
		im.fam = famPyTorch
	case r == "sagemaker-scikit-learn":
		im.fam = famSKLearn
	case r == "sagemaker-xgboost", r == "xgboost":
		im.fam = famXGBoost
	}
	return im
}

// atLeast reports whether the image's framework version is at least
// major.minor (false when it has none).
func (im image) atLeast(major, minor int) bool {
	parts := strings.Split(im.version, ".")
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// name is how messages call the image: its framework and the tag's
// version ("the SageMaker XGBoost 1.7-1 image").
func (im image) name() string {
	v := im.tag
	for _, cut := range []string{"-cpu", "-gpu", "-py"} {
		if i := strings.Index(v, cut); i > 0 {
			v = v[:i]
		}
	}
	switch im.fam {
	case famPyTorch:
		return fmt.Sprintf("the SageMaker PyTorch %s image", v)
	case famSKLearn:
		return fmt.Sprintf("the SageMaker scikit-learn %s image", v)
	case famXGBoost:
		return fmt.Sprintf("the SageMaker XGBoost %s image", v)
	}
	return "image " + im.uri
}

// trainingModule is the SAGEMAKER_TRAINING_MODULE a family's training image
// sets (its Dockerfile's ENV), which the toolkit reports as
// SM_FRAMEWORK_MODULE.
func (im image) trainingModule() string {
	switch im.fam {
	case famPyTorch:
		return "sagemaker_pytorch_container.training:main"
	case famSKLearn:
		return "sagemaker_sklearn_container.training:main"
	case famXGBoost:
		return "sagemaker_xgboost_container.training:main"
	}
	return ""
}

// serving is how a model's image serves it.
type serving string

const (
	// servingTorchServe: TorchServe and the SageMaker PyTorch inference
	// toolkit (PyTorch 1.2 and later): the user module (SAGEMAKER_PROGRAM,
	// default inference.py) is imported from /opt/ml/model/code only;
	// SAGEMAKER_SUBMIT_DIRECTORY is not read; without the module the
	// toolkit's default handlers serve a TorchScript model.pt.
	servingTorchServe serving = "torchserve"
	// servingContainers: gunicorn and sagemaker-containers (XGBoost,
	// scikit-learn, PyTorch before 1.2): SAGEMAKER_SUBMIT_DIRECTORY (an S3
	// archive the container downloads, or a directory or archive in the
	// container; default /opt/ml/code) is put in /opt/ml/code and
	// SAGEMAKER_PROGRAM imported from there.
	servingContainers serving = "sagemaker-containers"
	// servingUnknown: an image the runner knows no contract of; the code
	// is taken where the definition puts it.
	servingUnknown serving = "unknown"
)

// servingOf is the serving contract of a model image. An image of no known
// family takes the contract of the framework its catalog step is compiled
// for (a LightGBM model on an image built from the PyTorch one is served as
// a PyTorch model), when there is one.
func servingOf(im image, framework string) serving {
	fam := im.fam
	if fam == famOther {
		switch framework {
		case "pytorch":
			return servingTorchServe
		case "xgboost", "sklearn":
			return servingContainers
		}
		return servingUnknown
	}
	if fam == famPyTorch && (im.atLeast(1, 2) || im.version == "") {
		return servingTorchServe
	}
	return servingContainers
}

// Reasons the containers give, shared by the checks and the harness.
const (
	// repackAdvice is what the SDK does for a PyTorch model's code.
	repackAdvice = "the SageMaker SDK repacks such a model with its code (a repack step: model.tar.gz with code/<program>) and sets SAGEMAKER_SUBMIT_DIRECTORY to /opt/ml/model/code"
	// isolationAdvice is how the SDK ships training code to an isolated job.
	isolationAdvice = "the SageMaker SDK ships an isolated job's code as its \"code\" input channel and sets sagemaker_submit_directory to /opt/ml/input/data/code/sourcedir.tar.gz"
)

// flag evaluates a boolean argument (EnableNetworkIsolation): absent is
// false; a parameter or property is taken as SageMaker reads it.
func (r *run) flag(v any) (bool, error) {
	if v == nil {
		return false, nil
	}
	x, err := r.ev.eval(v)
	if err != nil {
		return false, err
	}
	switch t := x.(type) {
	case bool:
		return t, nil
	case string:
		switch strings.ToLower(t) {
		case "true":
			return true, nil
		case "false", "":
			return false, nil
		}
	}
	return false, fmt.Errorf("want true or false, got %s", text(x))
}
