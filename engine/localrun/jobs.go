package localrun

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cursus-go/cursus/internal/safefs"
)

// processing runs a Processing step as a processing job does: each
// S3Input at its LocalPath (read-only), each output's LocalPath an empty
// writable directory whose content becomes the output's S3Uri when the
// job succeeds, the entry point and arguments of AppSpecification, the
// Environment.
func (r *run) processing(ctx context.Context, s *defStep, sr *StepResult) error {
	app := objOf(s.Arguments, "AppSpecification")
	entry, err := r.ev.strs(app["ContainerEntrypoint"])
	if err != nil {
		return fmt.Errorf("ContainerEntrypoint: %w", err)
	}
	args, err := r.ev.strs(app["ContainerArguments"])
	if err != nil {
		return fmt.Errorf("ContainerArguments: %w", err)
	}
	if len(entry) == 0 {
		return fmt.Errorf("AppSpecification has no ContainerEntrypoint: the image's own entry point cannot run locally")
	}
	env, err := r.ev.strMap(s.Arguments["Environment"])
	if err != nil {
		return fmt.Errorf("Environment: %w", err)
	}
	var mounts []Mount
	for i, in := range listOf(s.Arguments, "ProcessingInputs") {
		m, _ := in.(map[string]any)
		name, _ := m["InputName"].(string)
		s3, ok := m["S3Input"].(map[string]any)
		if !ok {
			return fmt.Errorf("input %s has no S3Input (a dataset definition needs its managed service): give the outputs of %s in data", name, s.Name)
		}
		if t, _ := s3["S3DataType"].(string); t == "ManifestFile" || t == "AugmentedManifestFile" {
			return fmt.Errorf("input %s: S3DataType %s is not supported locally", name, t)
		}
		uri, err := r.ev.str(s3["S3Uri"])
		if err != nil {
			return fmt.Errorf("input %s (ProcessingInputs[%d]) S3Uri: %w", name, i, err)
		}
		lp, _ := s3["LocalPath"].(string)
		mt, _, err := r.inputMount("input "+name, uri, lp)
		if err != nil {
			return err
		}
		mounts = append(mounts, mt)
	}
	type outDir struct {
		name, uri string
		local     hostPath
	}
	var outs []outDir
	for i, o := range listOf(s.Arguments, "ProcessingOutputConfig", "Outputs") {
		m, _ := o.(map[string]any)
		name, _ := m["OutputName"].(string)
		s3 := objOf(m, "S3Output")
		uri, err := r.ev.str(s3["S3Uri"])
		if err != nil {
			return fmt.Errorf("output %s (Outputs[%d]) S3Uri: %w", name, i, err)
		}
		local, err := r.st.storePath(uri)
		if err != nil {
			return fmt.Errorf("output %s: %w", name, err)
		}
		if local.hasObjects() {
			return fmt.Errorf("output %s: %s already holds objects of another step of this run", name, uri)
		}
		if err := local.mkdirAll(0o755); err != nil {
			return fmt.Errorf("output %s: %w", name, err)
		}
		lp, _ := s3["LocalPath"].(string)
		mounts = append(mounts, mountAt(lp, local, true))
		outs = append(outs, outDir{name, uri, local})
	}
	if mounts, err = r.modelResponses(s, sr, mounts); err != nil {
		return err
	}
	j := Job{Command: append(entry, args...), Env: env, Dir: "/opt/ml/processing", Mounts: mounts, Timeout: r.timeout(s)}
	if err := r.runJob(ctx, s, sr, j); err != nil {
		return err
	}
	state := r.ev.steps[s.Name]
	state.props["ProcessingJobName"] = state.job
	for _, o := range outs {
		if err := r.st.bind(o.uri, o.local, s.Name+"."+o.name); err != nil {
			return err
		}
		sr.Outputs[o.name] = o.local.String()
		r.setOutputProps(s, state, o.name, o.uri, o.local)
	}
	return nil
}

// training runs a Training step as a framework image's training toolkit
// does: the submitted sourcedir.tar.gz unpacked in /opt/ml/code, each
// channel at /opt/ml/input/data/<channel>, hyperparameters.json,
// inputdataconfig.json and resourceconfig.json in /opt/ml/input/config,
// an empty /opt/ml/model and /opt/ml/output, then python
// <sagemaker_program> with the hyperparameters as --key value arguments
// and the SM_* environment (harness/train.py). The model directory is
// packed as <S3OutputPath>/<job>/output/model.tar.gz, output/data as
// output.tar.gz beside it.
func (r *run) training(ctx context.Context, s *defStep, sr *StepResult) error {
	state := r.ev.steps[s.Name]
	hps, err := r.ev.strMap(s.Arguments["HyperParameters"])
	if err != nil {
		return fmt.Errorf("HyperParameters: %w", err)
	}
	env, err := r.ev.strMap(s.Arguments["Environment"])
	if err != nil {
		return fmt.Errorf("Environment: %w", err)
	}
	itype, _ := r.ev.str(objOf(s.Arguments, "ResourceConfig")["InstanceType"])
	var channels []trainChannel
	for i, c := range listOf(s.Arguments, "InputDataConfig") {
		m, _ := c.(map[string]any)
		name, _ := m["ChannelName"].(string)
		src := objOf(m, "DataSource", "S3DataSource")
		uri, err := r.ev.str(src["S3Uri"])
		if err != nil {
			return fmt.Errorf("channel %s (InputDataConfig[%d]) S3Uri: %w", name, i, err)
		}
		ct, _ := m["ContentType"].(string)
		channels = append(channels, trainChannel{name: name, uri: uri, contentType: ct})
	}
	base, err := r.ev.str(objOf(s.Arguments, "OutputDataConfig")["S3OutputPath"])
	if err != nil {
		return fmt.Errorf("OutputDataConfig.S3OutputPath: %w", err)
	}
	tj := trainingJob{Hyperparameters: hps, Env: env, InstanceType: itype, Job: state.job, Timeout: r.timeout(s)}
	for _, c := range channels {
		mt, _, err := r.inputMount("channel "+c.name, c.uri, "/opt/ml/input/data/"+c.name)
		if err != nil {
			return err
		}
		tj.Channels = append(tj.Channels, TrainingChannel{Name: c.name, Mount: mt, ContentType: c.contentType})
	}
	if err := r.trainingCode(s, hps, &tj); err != nil {
		return err
	}
	dir := r.stepDir(s)
	if err := layoutTraining(dir, &tj); err != nil {
		return err
	}
	if err := r.runJob(ctx, s, sr, tj.job(dir)); err != nil {
		return err
	}
	uri := strings.TrimSuffix(base, "/") + "/" + state.job + "/output/model.tar.gz"
	local, err := r.st.storePath(uri)
	if err != nil {
		return err
	}
	if err := packTarGz(below(dir, "model"), local); err != nil {
		return fmt.Errorf("pack model.tar.gz: %w", err)
	}
	sr.Outputs[outModelArtifacts] = local.String()
	if data := below(dir, "output/data"); data.hasObjects() {
		od := below(local.dir, strings.TrimSuffix(local.rel, "model.tar.gz")+"output.tar.gz")
		if err := packTarGz(data, od); err != nil {
			return fmt.Errorf("pack output.tar.gz: %w", err)
		}
		sr.Outputs["output_data"] = od.String()
	}
	if ents, err := listTarGz(local); err == nil && len(ents) == 0 {
		sr.Warnings = append(sr.Warnings, "the training script wrote nothing to /opt/ml/model: model.tar.gz is empty")
	}
	state.props["TrainingJobName"] = state.job
	state.props["OutputDataConfig.S3OutputPath"] = base
	r.setOutputProps(s, state, outModelArtifacts, uri, local)
	return nil
}

// trainingCode applies the training image's contract for its code
// (containers.go): the toolkit runs sagemaker_program from
// sagemaker_submit_directory, which it downloads when it is an S3 archive
// (the runner unpacks it, as the download would; not under network
// isolation, where the container has no network) and copies or unpacks
// when it is a path in the container (the harness does, as the toolkit
// does: the SDK's "code" channel of an isolated job). Without
// sagemaker_program the XGBoost image runs its built-in algorithm, which
// the runner does not.
func (r *run) trainingCode(s *defStep, hps map[string]string, tj *trainingJob) error {
	imageURI, err := r.ev.str(objOf(s.Arguments, "AlgorithmSpecification")["TrainingImage"])
	if err != nil {
		return fmt.Errorf("AlgorithmSpecification.TrainingImage: %w", err)
	}
	im := parseImage(imageURI)
	isolated, err := r.flag(s.Arguments["EnableNetworkIsolation"])
	if err != nil {
		return fmt.Errorf("EnableNetworkIsolation: %w", err)
	}
	if m := im.trainingModule(); m != "" {
		if _, ok := tj.Env["SAGEMAKER_TRAINING_MODULE"]; !ok {
			tj.Env["SAGEMAKER_TRAINING_MODULE"] = m
		}
	}
	program, submit := decodeHP(hps["sagemaker_program"]), decodeHP(hps["sagemaker_submit_directory"])
	if program == "" {
		if im.fam == famXGBoost {
			return fmt.Errorf("hyperparameter sagemaker_program is not set: %s trains in algorithm mode (the built-in XGBoost algorithm), which the local runner does not run; name the training script (sagemaker_program) to train in script mode", im.name())
		}
		return fmt.Errorf("hyperparameter sagemaker_program is not set: the training toolkit of %s has no entry point to run", im.name())
	}
	switch {
	case strings.HasPrefix(submit, "s3://"):
		if isolated {
			return fmt.Errorf("the job runs with EnableNetworkIsolation, so the training toolkit of %s cannot download sagemaker_submit_directory %s (no network inside the container): %s", im.name(), submit, isolationAdvice)
		}
		code, err := r.submittedArchive(submit)
		if err != nil {
			return fmt.Errorf("sagemaker_submit_directory: %w", err)
		}
		tj.SourceTarball = code
	case strings.HasPrefix(submit, "file://"):
		return fmt.Errorf("sagemaker_submit_directory %s is a path on the machine that built the definition (the SDK's local mode): a SageMaker job cannot read it", submit)
	case submit == "" || strings.HasPrefix(submit, "/"):
		// a path in the container (default /opt/ml/code): train.py copies
		// or unpacks it into /opt/ml/code as the toolkit does
	default:
		return fmt.Errorf("sagemaker_submit_directory %q is neither an S3 URI nor a path in the container", submit)
	}
	return nil
}

type trainChannel struct{ name, uri, contentType string }

// TrainingChannel is one input channel of a training job: its data
// mounted at /opt/ml/input/data/<Name>.
type TrainingChannel struct {
	Name        string
	Mount       Mount
	ContentType string
}

// trainingJob is a training job ready to lay out.
type trainingJob struct {
	Hyperparameters map[string]string // as in the definition: JSON-encoded text
	Env             map[string]string
	Channels        []TrainingChannel
	SourceTarball   hostPath // the downloaded sourcedir.tar.gz (zero when the code is in the container)
	InstanceType    string
	Job             string
	Timeout         time.Duration
}

// layoutTraining lays a training job out under dir: code/ (the unpacked
// source), config/ (the three config files), model/ and output/ (empty).
func layoutTraining(dir string, tj *trainingJob) error {
	for _, d := range []string{"code", "config", "model", "output"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	if tj.SourceTarball != (hostPath{}) {
		if err := extractTarGz(tj.SourceTarball, filepath.Join(dir, "code")); err != nil {
			return fmt.Errorf("unpack the submitted source: %w", err)
		}
	}
	channels := map[string]string{}
	for _, c := range tj.Channels {
		channels[c.Name] = c.ContentType
	}
	return WriteToolkitConfig(filepath.Join(dir, "config"), tj.Hyperparameters, channels, tj.InstanceType, tj.Job)
}

// TrainingToolkitCommand is the container command that starts a training
// job's entry point as the SageMaker training toolkit does
// (harness/train.py). The job needs its code at /opt/ml/code, its config
// at /opt/ml/input/config (WriteToolkitConfig), its channels at
// /opt/ml/input/data/<channel> and a writable /opt/ml/model and
// /opt/ml/output.
func TrainingToolkitCommand() []string {
	return []string{"python3", harnessContainerDir + "/train.py"}
}

// WriteToolkitConfig writes the three files SageMaker gives a training
// container into dir: hyperparameters.json (each value the definition's
// text, JSON-encoded, with sagemaker_job_name added when jobName is set),
// inputdataconfig.json (channel name -> content type, "" for none) and
// resourceconfig.json (one host, algo-1, of instanceType).
func WriteToolkitConfig(dir string, hyperparameters, channels map[string]string, instanceType, jobName string) error {
	hp := map[string]string{}
	for k, v := range hyperparameters {
		hp[k] = v
	}
	if _, ok := hp["sagemaker_job_name"]; !ok && jobName != "" {
		hp["sagemaker_job_name"] = jsonText(jobName)
	}
	dataConfig := map[string]any{}
	for name, ct := range channels {
		cfg := map[string]any{"TrainingInputMode": "File", "S3DistributionType": "FullyReplicated", "RecordWrapperType": "None"}
		if ct != "" {
			cfg["ContentType"] = ct
		}
		dataConfig[name] = cfg
	}
	if instanceType == "" {
		instanceType = "local"
	}
	resources := map[string]any{
		"current_host": "algo-1", "hosts": []string{"algo-1"}, "current_instance_type": instanceType,
		"current_group_name": "homogeneousCluster", "network_interface_name": "eth0",
		"instance_groups": []any{map[string]any{"instance_group_name": "homogeneousCluster", "instance_type": instanceType, "hosts": []string{"algo-1"}}},
	}
	for name, v := range map[string]any{"hyperparameters.json": hp, "inputdataconfig.json": dataConfig, "resourceconfig.json": resources} {
		// dir is the job's own directory in the run directory this run made.
		if err := safefs.Trusted().WriteJSON(filepath.Join(dir, name), v); err != nil {
			return err
		}
	}
	return nil
}

// job is the container run of a laid-out training job.
func (tj *trainingJob) job(dir string) Job {
	mounts := []Mount{
		{Container: "/opt/ml/code", Host: filepath.Join(dir, "code"), Writable: true},
		{Container: "/opt/ml/input/config", Host: filepath.Join(dir, "config")},
		{Container: "/opt/ml/model", Host: filepath.Join(dir, "model"), Writable: true},
		{Container: "/opt/ml/output", Host: filepath.Join(dir, "output"), Writable: true},
	}
	for _, c := range tj.Channels {
		mounts = append(mounts, c.Mount)
	}
	env := map[string]string{"TRAINING_JOB_NAME": tj.Job}
	for k, v := range tj.Env {
		env[k] = v
	}
	return Job{Command: TrainingToolkitCommand(), Env: env, Dir: "/opt/ml/code", Mounts: mounts, Timeout: tj.Timeout}
}

// decodeHP decodes a hyperparameter as the toolkit does: JSON when it
// parses, else the text.
func decodeHP(v string) string {
	var s string
	if err := json.Unmarshal([]byte(v), &s); err == nil {
		return s
	}
	return v
}

func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// modelResponses readies a step whose job calls a hosted model (Bedrock):
// the recorded answers data gives for it are mounted at
// ModelResponsesPath, where the job replays them instead of calling the
// model, and the result says so; answers the definition itself mounts
// there (a config-sourced model_responses input) are replayed the same
// way. Without either the step is refused before it runs: the sandbox has
// no network, and the error names the data key to add.
func (r *run) modelResponses(s *defStep, sr *StepResult, mounts []Mount) ([]Mount, error) {
	svc, calls := modelCallSteps[r.stepType[s.Name]]
	if !calls {
		return mounts, nil
	}
	key := s.Name + "." + ModelResponsesKey
	if p, ok := r.responses[s.Name]; ok {
		mounts = append(mounts, mountAt(ModelResponsesPath, p, false))
		note := fmt.Sprintf("model calls substituted: %s is not called; the answers recorded in %s (data key %q) are replayed by record id", svc, p, key)
		sr.Checks = append(sr.Checks, note)
		sr.Warnings = append(sr.Warnings, note)
		return mounts, nil
	}
	for _, m := range mounts {
		if m.Container == ModelResponsesPath {
			note := fmt.Sprintf("model calls substituted: %s is not called; the answers of the step's model_responses input are replayed by record id", svc)
			sr.Checks = append(sr.Checks, note)
			sr.Warnings = append(sr.Warnings, note)
			return mounts, nil
		}
	}
	return nil, fmt.Errorf("%s calls %s, which a local run does not reach (its sandbox has no network): give the model's answers recorded beforehand as data %q, a JSONL file of {\"id\": <record id>, \"text\": <answer>} lines (or a CSV of id, text), and they are replayed instead of the calls", s.Name, svc, key)
}
