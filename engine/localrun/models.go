package localrun

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// modelInfo is a model a Model step created, for Transform steps.
type modelInfo struct {
	step    string
	archive hostPath // model.tar.gz
	env     map[string]string
	code    inferenceCode
}

// inferenceCode is where a model's inference program is.
type inferenceCode struct {
	program string
	// submit is the local sourcedir.tar.gz when the code was submitted
	// apart from the model (SAGEMAKER_SUBMIT_DIRECTORY an S3 URI); else
	// the code is in the model archive under inModel.
	submit  hostPath
	inModel string // "code" for /opt/ml/model/code
}

// checkModel verifies what a model container needs, as SageMaker would
// find it when the model is deployed: ModelDataUrl is a single gzip'ed tar
// archive that exists, holds model files, and the inference program the
// container runs (SAGEMAKER_PROGRAM in SAGEMAKER_SUBMIT_DIRECTORY, or
// code/inference.py in the archive) is there. It returns the checks that
// passed.
func (r *run) checkModel(what string, container map[string]any) (hostPath, map[string]string, inferenceCode, []string, error) {
	var checks []string
	url, err := r.ev.str(container["ModelDataUrl"])
	if err != nil {
		return hostPath{}, nil, inferenceCode{}, nil, fmt.Errorf("%s ModelDataUrl: %w", what, err)
	}
	env, err := r.ev.strMap(container["Environment"])
	if err != nil {
		return hostPath{}, nil, inferenceCode{}, nil, fmt.Errorf("%s Environment: %w", what, err)
	}
	local, _, err := r.st.resolve(url)
	if err != nil {
		return hostPath{}, nil, inferenceCode{}, nil, fmt.Errorf("%s ModelDataUrl: %w", what, err)
	}
	st, err := local.stat()
	switch {
	case err != nil:
		return hostPath{}, nil, inferenceCode{}, nil, fmt.Errorf("%s ModelDataUrl %s: no such object", what, url)
	case st.IsDir():
		return hostPath{}, nil, inferenceCode{}, nil, fmt.Errorf("%s ModelDataUrl %s is a prefix (a folder holding %s), not an object: SageMaker needs the URI of the single gzip compressed tar archive (…/model.tar.gz)", what, url, strings.Join(local.names(5), ", "))
	}
	ents, err := listTarGz(local)
	if err != nil {
		return hostPath{}, nil, inferenceCode{}, nil, fmt.Errorf("%s ModelDataUrl %s: %w", what, url, err)
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
		return hostPath{}, nil, inferenceCode{}, nil, fmt.Errorf("%s ModelDataUrl %s holds no model files (only: %s)", what, url, strings.Join(entryNames(ents, 8), ", "))
	}
	checks = append(checks, fmt.Sprintf("%s ModelDataUrl %s is a gzip'ed tar holding %d model file(s): %s", what, url, len(model), strings.Join(first(model, 6), ", ")))

	code := inferenceCode{program: env["SAGEMAKER_PROGRAM"]}
	submit := env["SAGEMAKER_SUBMIT_DIRECTORY"]
	switch {
	case code.program == "":
		if !names["code/inference.py"] {
			return hostPath{}, nil, inferenceCode{}, nil, fmt.Errorf("%s: the archive has no code/inference.py and the container environment names no SAGEMAKER_PROGRAM: the serving container has no inference code to load", what)
		}
		code.program, code.inModel = "inference.py", "code"
		checks = append(checks, what+": the archive holds code/inference.py")
	case strings.HasPrefix(submit, "s3://"):
		src, _, err := r.st.resolve(submit)
		if err != nil {
			return hostPath{}, nil, inferenceCode{}, nil, fmt.Errorf("%s SAGEMAKER_SUBMIT_DIRECTORY: %w", what, err)
		}
		sents, err := listTarGz(src)
		if err != nil {
			return hostPath{}, nil, inferenceCode{}, nil, fmt.Errorf("%s SAGEMAKER_SUBMIT_DIRECTORY %s: %w", what, submit, err)
		}
		if !hasEntry(sents, code.program) {
			return hostPath{}, nil, inferenceCode{}, nil, fmt.Errorf("%s: SAGEMAKER_PROGRAM %s is not in SAGEMAKER_SUBMIT_DIRECTORY %s (it holds: %s)", what, code.program, submit, strings.Join(entryNames(sents, 8), ", "))
		}
		code.submit = src
		checks = append(checks, fmt.Sprintf("%s: SAGEMAKER_PROGRAM %s is in SAGEMAKER_SUBMIT_DIRECTORY %s", what, code.program, submit))
	default:
		dir := "code"
		if submit != "" {
			rel, ok := strings.CutPrefix(path.Clean(submit), "/opt/ml/model/")
			if !ok {
				return hostPath{}, nil, inferenceCode{}, nil, fmt.Errorf("%s: SAGEMAKER_SUBMIT_DIRECTORY %s is neither an S3 URI nor a folder of the model (/opt/ml/model/...)", what, submit)
			}
			dir = rel
		}
		if !names[dir+"/"+code.program] {
			return hostPath{}, nil, inferenceCode{}, nil, fmt.Errorf("%s: SAGEMAKER_PROGRAM %s is not in the model archive's %s/ (the archive holds: %s)", what, code.program, dir, strings.Join(entryNames(ents, 8), ", "))
		}
		code.inModel = dir
		checks = append(checks, fmt.Sprintf("%s: SAGEMAKER_PROGRAM %s is in the archive's %s/", what, code.program, dir))
	}
	return local, env, code, checks, nil
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
	local, env, code, checks, err := r.checkModel("PrimaryContainer", pc)
	if err != nil {
		return err
	}
	sr.Checks = checks
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
		local, _, _, checks, err := r.checkModel(fmt.Sprintf("Containers[%d]", i), m)
		if err != nil {
			return err
		}
		sr.Checks = append(sr.Checks, checks...)
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
	spec := map[string]any{"program": m.code.program}
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
		spec["code_dir"] = "/opt/ml/model/" + m.code.inModel
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
