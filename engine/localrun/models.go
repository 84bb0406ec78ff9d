package localrun

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
)

// modelInfo is a model a Model step created, for Transform steps.
type modelInfo struct {
	step    string
	archive hostPath // model.tar.gz
	env     map[string]string
	code    inferenceCode
}

// inferenceCode is how a model's container serves it: its contract, and
// where its inference program is.
type inferenceCode struct {
	serving serving
	image   image
	// program is the user module ("" when the container serves with its
	// default handlers).
	program string
	// submit is the local sourcedir.tar.gz the container downloads
	// (SAGEMAKER_SUBMIT_DIRECTORY an S3 URI, sagemaker-containers);
	// else the code is in the model archive under inModel.
	submit  hostPath
	inModel string // "code" for /opt/ml/model/code
}

// checkModel verifies what a model container needs, as its image would
// find it when the model is served (containers.go, docs/local-run.md):
// ModelDataUrl is a single gzip'ed tar archive that exists and holds model
// files, and the inference program is where the image reads it from —
// for TorchServe (PyTorch 1.2 and later) the archive's code/ only, for
// sagemaker-containers (XGBoost, scikit-learn) SAGEMAKER_SUBMIT_DIRECTORY,
// which the container cannot download from S3 under network isolation.
// framework is the catalog step's framework ("" when unknown). It returns
// the checks that passed and warnings.
func (r *run) checkModel(what string, container map[string]any, framework string, isolated bool) (hostPath, map[string]string, inferenceCode, []string, []string, error) {
	var checks, warnings []string
	fail := func(err error) (hostPath, map[string]string, inferenceCode, []string, []string, error) {
		return hostPath{}, nil, inferenceCode{}, nil, nil, err
	}
	url, err := r.ev.str(container["ModelDataUrl"])
	if err != nil {
		return fail(fmt.Errorf("%s ModelDataUrl: %w", what, err))
	}
	env, err := r.ev.strMap(container["Environment"])
	if err != nil {
		return fail(fmt.Errorf("%s Environment: %w", what, err))
	}
	imageURI, err := r.ev.str(container["Image"])
	if err != nil {
		return fail(fmt.Errorf("%s Image: %w", what, err))
	}
	local, _, err := r.st.resolve(url)
	if err != nil {
		return fail(fmt.Errorf("%s ModelDataUrl: %w", what, err))
	}
	st, err := local.stat()
	switch {
	case err != nil:
		return fail(fmt.Errorf("%s ModelDataUrl %s: no such object", what, url))
	case st.IsDir():
		return fail(fmt.Errorf("%s ModelDataUrl %s is a prefix (a folder holding %s), not an object: SageMaker needs the URI of the single gzip compressed tar archive (…/model.tar.gz)", what, url, strings.Join(local.names(5), ", ")))
	}
	ents, err := listTarGz(local)
	if err != nil {
		return fail(fmt.Errorf("%s ModelDataUrl %s: %w", what, url, err))
	}
	names := map[string]bool{}
	var model []string
	for _, e := range ents {
		names[e.Name] = true
		if !strings.HasPrefix(e.Name, "code/") {
			model = append(model, e.Name)
		}
	}
	if len(model) == 0 {
		return fail(fmt.Errorf("%s ModelDataUrl %s holds no model files (only: %s)", what, url, strings.Join(entryNames(ents, 8), ", ")))
	}
	checks = append(checks, fmt.Sprintf("%s ModelDataUrl %s is a gzip'ed tar holding %d model file(s): %s", what, url, len(model), strings.Join(first(model, 6), ", ")))

	im := parseImage(imageURI)
	code := inferenceCode{serving: servingOf(im, framework), image: im, program: env["SAGEMAKER_PROGRAM"]}
	submit := env["SAGEMAKER_SUBMIT_DIRECTORY"]
	switch code.serving {
	case servingTorchServe:
		err = r.torchServeCode(what, &code, submit, names, model, &checks, &warnings)
	case servingContainers:
		err = r.containersCode(what, &code, submit, names, isolated, &checks)
	default:
		err = r.unknownImageCode(what, &code, submit, names, &checks)
	}
	if err != nil {
		return fail(err)
	}
	return local, env, code, checks, warnings, nil
}

// torchServeCode resolves a TorchServe model's code: the module
// (SAGEMAKER_PROGRAM, default inference.py) in the archive's code/, else
// the toolkit's default handlers, which need a TorchScript model file.
func (r *run) torchServeCode(what string, code *inferenceCode, submit string, names map[string]bool, model []string, checks, warnings *[]string) error {
	by := code.image.name() + " serves with TorchServe and the SageMaker PyTorch inference toolkit"
	ignored := ""
	if submit != "" && path.Clean(submit) != "/opt/ml/model/code" {
		ignored = fmt.Sprintf("; it never reads SAGEMAKER_SUBMIT_DIRECTORY (%s)", submit)
	}
	explicit := code.program != ""
	if !explicit {
		code.program = "inference.py"
	}
	if names["code/"+code.program] {
		code.inModel = "code"
		*checks = append(*checks, fmt.Sprintf("%s: %s, which imports %s from the archive's code/ (/opt/ml/model/code)%s", what, by, code.program, ignored))
		if ignored != "" {
			*warnings = append(*warnings, fmt.Sprintf("%s: SAGEMAKER_SUBMIT_DIRECTORY %s is not read by %s; the code in the archive's code/ is served", what, submit, code.image.name()))
		}
		return nil
	}
	if explicit {
		return fmt.Errorf("%s: %s, which imports SAGEMAKER_PROGRAM %s only from the model archive's code/ (/opt/ml/model/code), and the archive has no code/%s (it holds: %s)%s; the container would serve with its default handlers instead of %s: %s",
			what, by, code.program, code.program, strings.Join(entryNames(listedEntries(names), 8), ", "), ignored, code.program, repackAdvice)
	}
	// No user module: the toolkit's default handlers load model.pt, or
	// the only .pt or .pth file, with torch.jit.load.
	file := ""
	if names["model.pt"] {
		file = "model.pt"
	} else {
		var pts []string
		for _, m := range model {
			if !strings.Contains(m, "/") && (strings.HasSuffix(m, ".pt") || strings.HasSuffix(m, ".pth")) {
				pts = append(pts, m)
			}
		}
		if len(pts) != 1 {
			return fmt.Errorf("%s: %s; the archive has no code/inference.py and the environment names no SAGEMAKER_PROGRAM, so its default handlers serve, and their model_fn needs model.pt or exactly one .pt or .pth file (found: %s)", what, by, strings.Join(first(pts, 6), ", "))
		}
		file = pts[0]
	}
	code.program = ""
	*checks = append(*checks, fmt.Sprintf("%s: %s with its default handlers (no code/inference.py): torch.jit.load of %s, JSON, CSV or NPY in and out%s", what, by, file, ignored))
	return nil
}

// containersCode resolves a sagemaker-containers model's code: the
// program in SAGEMAKER_SUBMIT_DIRECTORY (default /opt/ml/code), an S3
// archive the container downloads (not under network isolation) or a
// folder of the model.
func (r *run) containersCode(what string, code *inferenceCode, submit string, names map[string]bool, isolated bool, checks *[]string) error {
	by := code.image.name() + " serves with sagemaker-containers"
	if code.program == "" {
		if code.image.fam == famXGBoost {
			return fmt.Errorf("%s: no SAGEMAKER_PROGRAM: %s serves in algorithm mode (the built-in XGBoost ScoringService), which the local runner does not run; name the inference program (SAGEMAKER_PROGRAM) to serve in script mode", what, code.image.name())
		}
		return fmt.Errorf("%s: %s, which imports the module SAGEMAKER_PROGRAM names, and the environment names none: the container has no inference code to load", what, by)
	}
	switch {
	case strings.HasPrefix(submit, "s3://"):
		if isolated {
			return fmt.Errorf("%s: the model runs with EnableNetworkIsolation, so %s cannot download SAGEMAKER_SUBMIT_DIRECTORY %s (no network inside the container): put the code in the model archive's code/ and set SAGEMAKER_SUBMIT_DIRECTORY to /opt/ml/model/code (%s)", what, code.image.name(), submit, repackAdvice)
		}
		if err := r.submittedProgram(what, code, submit); err != nil {
			return err
		}
		*checks = append(*checks, fmt.Sprintf("%s: %s, which downloads SAGEMAKER_SUBMIT_DIRECTORY %s into /opt/ml/code and imports SAGEMAKER_PROGRAM %s from it", what, by, submit, code.program))
		return nil
	case strings.HasPrefix(path.Clean(submit), "/opt/ml/model/"):
		dir := strings.TrimPrefix(path.Clean(submit), "/opt/ml/model/")
		if !names[dir+"/"+code.program] {
			return fmt.Errorf("%s: SAGEMAKER_PROGRAM %s is not in the model archive's %s/ (SAGEMAKER_SUBMIT_DIRECTORY %s; the archive holds: %s)", what, code.program, dir, submit, strings.Join(entryNames(listedEntries(names), 8), ", "))
		}
		code.inModel = dir
		*checks = append(*checks, fmt.Sprintf("%s: %s, which copies SAGEMAKER_SUBMIT_DIRECTORY %s into /opt/ml/code and imports SAGEMAKER_PROGRAM %s from it", what, by, submit, code.program))
		return nil
	case submit == "" || path.Clean(submit) == "/opt/ml/code":
		return fmt.Errorf("%s: %s, which imports SAGEMAKER_PROGRAM %s from SAGEMAKER_SUBMIT_DIRECTORY (default /opt/ml/code), and nothing puts code there: set SAGEMAKER_SUBMIT_DIRECTORY to the code's S3 archive or to a folder of the model archive (/opt/ml/model/code)", what, by, code.program)
	}
	return fmt.Errorf("%s: SAGEMAKER_SUBMIT_DIRECTORY %s is neither an S3 URI nor a folder of the model (/opt/ml/model/...): %s cannot read it", what, submit, code.image.name())
}

// submittedProgram sets code.submit to the S3 archive SAGEMAKER_SUBMIT_DIRECTORY
// names, once it holds SAGEMAKER_PROGRAM.
func (r *run) submittedProgram(what string, code *inferenceCode, submit string) error {
	src, err := r.submittedArchive(submit)
	if err != nil {
		return fmt.Errorf("%s SAGEMAKER_SUBMIT_DIRECTORY: %w", what, err)
	}
	sents, err := listTarGz(src)
	if err != nil {
		return fmt.Errorf("%s SAGEMAKER_SUBMIT_DIRECTORY %s: %w", what, submit, err)
	}
	if !hasEntry(sents, code.program) {
		return fmt.Errorf("%s: SAGEMAKER_PROGRAM %s is not in SAGEMAKER_SUBMIT_DIRECTORY %s (it holds: %s)", what, code.program, submit, strings.Join(entryNames(sents, 8), ", "))
	}
	code.submit = src
	return nil
}

// unknownImageCode resolves the code of a model whose image's contract is
// not known: where the definition puts it (an S3 archive of
// SAGEMAKER_SUBMIT_DIRECTORY, a folder of the model, else the archive's
// code/inference.py).
func (r *run) unknownImageCode(what string, code *inferenceCode, submit string, names map[string]bool, checks *[]string) error {
	switch {
	case code.program == "":
		if !names["code/inference.py"] {
			return fmt.Errorf("%s: the archive has no code/inference.py and the container environment names no SAGEMAKER_PROGRAM: the serving container has no inference code to load", what)
		}
		code.program, code.inModel = "inference.py", "code"
		*checks = append(*checks, what+": the archive holds code/inference.py")
	case strings.HasPrefix(submit, "s3://"):
		if err := r.submittedProgram(what, code, submit); err != nil {
			return err
		}
		*checks = append(*checks, fmt.Sprintf("%s: SAGEMAKER_PROGRAM %s is in SAGEMAKER_SUBMIT_DIRECTORY %s", what, code.program, submit))
	default:
		dir := "code"
		if submit != "" {
			rel, ok := strings.CutPrefix(path.Clean(submit), "/opt/ml/model/")
			if !ok {
				return fmt.Errorf("%s: SAGEMAKER_SUBMIT_DIRECTORY %s is neither an S3 URI nor a folder of the model (/opt/ml/model/...)", what, submit)
			}
			dir = rel
		}
		if !names[dir+"/"+code.program] {
			return fmt.Errorf("%s: SAGEMAKER_PROGRAM %s is not in the model archive's %s/ (the archive holds: %s)", what, code.program, dir, strings.Join(entryNames(listedEntries(names), 8), ", "))
		}
		code.inModel = dir
		*checks = append(*checks, fmt.Sprintf("%s: SAGEMAKER_PROGRAM %s is in the archive's %s/", what, code.program, dir))
	}
	*checks = append(*checks, fmt.Sprintf("%s: %s is not a SageMaker framework image the local run knows the serving contract of: its code was taken where the definition puts it", what, code.image.uri))
	return nil
}

// submittedArchive is the local file of an S3 sourcedir.tar.gz.
func (r *run) submittedArchive(uri string) (hostPath, error) {
	src, _, err := r.st.resolve(uri)
	if err != nil {
		return hostPath{}, err
	}
	if st, err := src.stat(); err != nil || st.IsDir() {
		return hostPath{}, fmt.Errorf("%s is not an object of this run (an uploaded sourcedir.tar.gz)", uri)
	}
	return src, nil
}

// listedEntries turns the archive's names back into entries, sorted.
func listedEntries(names map[string]bool) []archiveEntry {
	out := make([]archiveEntry, 0, len(names))
	for n := range names {
		out = append(out, archiveEntry{Name: n})
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Name < out[k].Name })
	return out
}

// stepFramework is the framework of the catalog step a SageMaker step was
// compiled from ("" when the run does not know it).
func (r *run) stepFramework(step string) string {
	t, ok := r.stepType[step]
	if !ok {
		return ""
	}
	cat, err := catalog.Default()
	if err != nil {
		return ""
	}
	st, ok := cat.Step(t)
	if !ok {
		return ""
	}
	return st.Compute.Framework
}

func hasEntry(ents []archiveEntry, name string) bool {
	for _, e := range ents {
		if e.Name == name {
			return true
		}
	}
	return false
}

func entryNames(ents []archiveEntry, n int) []string {
	var out []string
	for _, e := range ents {
		out = append(out, e.Name)
	}
	if len(out) == 0 {
		return []string{"nothing"}
	}
	return first(out, n)
}

func first(l []string, n int) []string {
	if len(l) > n {
		return append(append([]string(nil), l[:n]...), fmt.Sprintf("... %d more", len(l)-n))
	}
	return l
}

// model checks a Model (CreateModel) step's container and records the
// model under its name for Transform steps.
func (r *run) model(s *defStep, sr *StepResult) error {
	pc := objOf(s.Arguments, "PrimaryContainer")
	isolated, err := r.flag(s.Arguments["EnableNetworkIsolation"])
	if err != nil {
		return fmt.Errorf("EnableNetworkIsolation: %w", err)
	}
	local, env, code, checks, warnings, err := r.checkModel("PrimaryContainer", pc, r.stepFramework(s.Name), isolated)
	if err != nil {
		return err
	}
	sr.Checks, sr.Warnings = checks, append(sr.Warnings, warnings...)
	sr.Outputs[outModelData] = local.String()
	name := r.ev.steps[s.Name].job
	r.ev.steps[s.Name].props["ModelName"] = name
	r.models[name] = &modelInfo{step: s.Name, archive: local, env: env, code: code}
	return r.writeChecks(s, sr)
}

// register checks a RegisterModel (CreateModelPackage) step: every
// inference container as a Model step's, and the sample payload.
func (r *run) register(s *defStep, sr *StepResult) error {
	spec := objOf(s.Arguments, "InferenceSpecification")
	conts := listOf(spec, "Containers")
	if len(conts) == 0 {
		return fmt.Errorf("InferenceSpecification has no Containers")
	}
	for i, c := range conts {
		m, _ := c.(map[string]any)
		local, _, _, checks, warnings, err := r.checkModel(fmt.Sprintf("Containers[%d]", i), m, r.stepFramework(s.Name), false)
		if err != nil {
			return err
		}
		sr.Checks, sr.Warnings = append(sr.Checks, checks...), append(sr.Warnings, warnings...)
		if i == 0 {
			sr.Outputs[outModelData] = local.String()
		}
	}
	if v, ok := s.Arguments["SamplePayloadUrl"]; ok && v != nil {
		url, err := r.ev.str(v)
		if err != nil {
			return fmt.Errorf("SamplePayloadUrl: %w", err)
		}
		local, _, err := r.st.resolve(url)
		if err != nil {
			return fmt.Errorf("SamplePayloadUrl: %w", err)
		}
		st, err := local.stat()
		switch {
		case err != nil:
			return fmt.Errorf("SamplePayloadUrl %s: no such object", url)
		case st.IsDir():
			return fmt.Errorf("SamplePayloadUrl %s is a prefix (a folder holding %s), not an object: SageMaker needs the URI of the payload archive itself (…/payload.tar.gz)", url, strings.Join(local.names(5), ", "))
		}
		ents, err := listTarGz(local)
		if err != nil {
			return fmt.Errorf("SamplePayloadUrl %s: %w", url, err)
		}
		if len(ents) == 0 {
			return fmt.Errorf("SamplePayloadUrl %s is an empty archive", url)
		}
		sr.Checks = append(sr.Checks, fmt.Sprintf("SamplePayloadUrl %s is a gzip'ed tar of %d sample(s)", url, len(ents)))
		sr.Outputs[outSamplePayload] = local.String()
	}
	group, _ := r.ev.str(s.Arguments["ModelPackageGroupName"])
	r.ev.steps[s.Name].props["ModelPackageArn"] = "arn:aws:sagemaker:local:000000000000:model-package/" + strings.ToLower(group) + "/1"
	return r.writeChecks(s, sr)
}

// writeChecks keeps a check step's findings as its log.
func (r *run) writeChecks(s *defStep, sr *StepResult) error {
	f := filepath.Join(r.stepDir(s), "log.txt")
	if err := r.opts.FS.WriteFile(f, []byte(strings.Join(sr.Checks, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	sr.LogFile = f
	sr.LogTail = strings.Join(sr.Checks, "\n")
	return nil
}

// transform runs a Transform step: the model's archive unpacked at
// /opt/ml/model, its code (from the archive or the submitted source), and
// harness/transform.py serving every input file through the inference
// handlers with the job's record handling.
func (r *run) transform(ctx context.Context, s *defStep, sr *StepResult) error {
	name, err := r.ev.str(s.Arguments["ModelName"])
	if err != nil {
		return fmt.Errorf("ModelName: %w", err)
	}
	m, ok := r.models[name]
	if !ok {
		return fmt.Errorf("ModelName %s is not a model a Model step of this run created", name)
	}
	in := objOf(s.Arguments, "TransformInput")
	src := objOf(in, "DataSource", "S3DataSource")
	uri, err := r.ev.str(src["S3Uri"])
	if err != nil {
		return fmt.Errorf("TransformInput S3Uri: %w", err)
	}
	out := objOf(s.Arguments, "TransformOutput")
	outURI, err := r.ev.str(out["S3OutputPath"])
	if err != nil {
		return fmt.Errorf("TransformOutput S3OutputPath: %w", err)
	}
	dp := objOf(s.Arguments, "DataProcessing")
	spec := map[string]any{"program": m.code.program, "serving": string(m.code.serving), "family": string(m.code.image.fam)}
	for key, v := range map[string]any{
		"content_type": in["ContentType"], "split_type": in["SplitType"], "accept": out["Accept"], "assemble_with": out["AssembleWith"],
		"batch_strategy": s.Arguments["BatchStrategy"], "max_payload_mb": s.Arguments["MaxPayloadInMB"],
		"input_filter": dp["InputFilter"], "output_filter": dp["OutputFilter"], "join_source": dp["JoinSource"],
	} {
		if v == nil {
			continue
		}
		str, err := r.ev.str(v)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		spec[key] = str
	}
	dir := r.stepDir(s)
	modelDir := filepath.Join(dir, "model")
	if err := extractTarGz(m.archive, modelDir); err != nil {
		return fmt.Errorf("unpack the model of %s: %w", m.step, err)
	}
	mounts := []Mount{{Container: "/opt/ml/model", Host: modelDir}}
	if m.code.submit != (hostPath{}) {
		codeDir := filepath.Join(dir, "code")
		if err := extractTarGz(m.code.submit, codeDir); err != nil {
			return fmt.Errorf("unpack the inference code of %s: %w", m.step, err)
		}
		mounts = append(mounts, Mount{Container: "/opt/ml/code", Host: codeDir})
		spec["code_dir"] = "/opt/ml/code"
	} else {
		in := m.code.inModel
		if in == "" {
			in = "code" // the inference toolkit's code_dir, where a model without a program has none
		}
		spec["code_dir"] = "/opt/ml/model/" + in
	}
	inMount, _, err := r.inputMount("transform input", uri, "/opt/ml/transform/input")
	if err != nil {
		return err
	}
	spec["input"] = inMount.Container
	outLocal, err := r.st.storePath(outURI)
	if err != nil {
		return err
	}
	if err := outLocal.mkdirAll(0o755); err != nil {
		return fmt.Errorf("TransformOutput S3OutputPath: %w", err)
	}
	mounts = append(mounts, inMount, mountAt("/opt/ml/transform/output", outLocal, true))
	spec["model_dir"], spec["output_dir"] = "/opt/ml/model", "/opt/ml/transform/output"
	if r.ex.sandbox == PathRewrite {
		root := filepath.Join(dir, "root")
		for _, k := range []string{"code_dir", "input", "model_dir", "output_dir"} {
			spec[k] = root + spec[k].(string)
		}
	}
	b, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	specFile := filepath.Join(dir, "transform-spec.json")
	if err := os.WriteFile(specFile, b, 0o644); err != nil {
		return err
	}
	mounts = append(mounts, Mount{Container: "/opt/ml/transform/spec.json", Host: specFile})
	env := map[string]string{}
	for k, v := range m.env {
		env[k] = v
	}
	extra, err := r.ev.strMap(s.Arguments["Environment"])
	if err != nil {
		return fmt.Errorf("Environment: %w", err)
	}
	for k, v := range extra {
		env[k] = v
	}
	if m.code.serving == servingContainers && m.code.image.fam == famXGBoost {
		if _, ok := env["OMP_NUM_THREADS"]; !ok {
			env["OMP_NUM_THREADS"] = "1" // the XGBoost container's serving default: one thread a worker
		}
	}
	j := Job{Command: []string{"python3", harnessContainerDir + "/transform.py", "/opt/ml/transform/spec.json"}, Env: env, Dir: "/opt/ml/model",
		Mounts: mounts, Timeout: r.timeout(s)}
	if err := r.runJob(ctx, s, sr, j); err != nil {
		return err
	}
	state := r.ev.steps[s.Name]
	state.props["TransformJobName"] = state.job
	if err := r.st.bind(outURI, outLocal, s.Name+"."+outTransform); err != nil {
		return err
	}
	sr.Outputs[outTransform] = outLocal.String()
	r.setOutputProps(s, state, outTransform, outURI, outLocal)
	return nil
}
