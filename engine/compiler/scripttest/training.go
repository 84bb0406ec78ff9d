package scripttest

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/compiler"
)

// Training container paths the sandbox mounts.
const (
	TrainingInputRoot  = "/opt/ml/input"
	TrainingModelDir   = "/opt/ml/model"
	TrainingOutputRoot = "/opt/ml/output"
	TrainingCodeDir    = "/opt/ml/code"
)

// TrainingResult is a finished training run.
type TrainingResult struct {
	ModelDir  string            // host directory mounted at /opt/ml/model
	OutputDir string            // host directory mounted at /opt/ml/output/data
	ModelTar  string            // model.tar.gz of ModelDir, as SageMaker uploads it
	OutputTar string            // output.tar.gz of OutputDir
	Hyper     map[string]string // /opt/ml/input/config/hyperparameters.json as written
	Env       map[string]string // the job's environment from the definition (without SM_*)
	Args      []string          // the command run inside the sandbox
	Log       string
	ExitCode  int
}

// RunTraining runs a Training or Tuning step's script and fails the test
// when it exits non-zero.
func RunTraining(t testing.TB, r Run) *TrainingResult {
	t.Helper()
	res, err := RunTrainingErr(t, r)
	if err != nil {
		t.Fatalf("%s: %v\n%s", r.Node, err, res.Log)
	}
	return res
}

// RunTrainingErr runs a Training step's script (or one trial of a Tuning
// step: trainingArgs) as SageMaker's training toolkit does: the step is compiled alone, its sourcedir.tar.gz is
// unpacked at /opt/ml/code, the definition's hyperparameters are written
// to /opt/ml/input/config/hyperparameters.json (each value the string the
// definition holds), every channel's test input is laid out at
// /opt/ml/input/data/<channel> (an input with several channels takes each
// from the subfolder of that name), and sagemaker_program runs with the
// definition's environment, the toolkit's SM_* variables and every
// hyperparameter as a --key value argument. /opt/ml/model and
// /opt/ml/output are packed into model.tar.gz and output.tar.gz
// afterwards. A non-zero exit is an *ExitError (the result is returned
// too).
func RunTrainingErr(t testing.TB, r Run) (*TrainingResult, error) {
	t.Helper()
	bwrap := Bwrap(t)
	if r.Python.Path == "" {
		r.Python = Python(t, "pandas", "sklearn", "xgboost")
	}
	step, typ, raw, items := compileAlone(t, r)
	args, tuned := trainingArgs(t, typ, raw)

	hyper := map[string]string{}
	for k, v := range args.HyperParameters {
		s, ok := v.(string)
		if !ok {
			t.Fatalf("scripttest: hyperparameter %s is not a literal: %v", k, v)
		}
		hyper[k] = s
	}
	for k, v := range tuned {
		hyper[k] = v
	}
	var submit, program string
	if err := json.Unmarshal([]byte(hyper["sagemaker_submit_directory"]), &submit); err != nil {
		t.Fatalf("scripttest: sagemaker_submit_directory %q: %v", hyper["sagemaker_submit_directory"], err)
	}
	if err := json.Unmarshal([]byte(hyper["sagemaker_program"]), &program); err != nil {
		t.Fatalf("scripttest: sagemaker_program %q: %v", hyper["sagemaker_program"], err)
	}

	root := t.TempDir()
	in, model, output, code := filepath.Join(root, "input"), filepath.Join(root, "model"), filepath.Join(root, "output"), filepath.Join(root, "code")
	for _, d := range []string{filepath.Join(in, "config"), filepath.Join(in, "data"), model, filepath.Join(output, "data"), code} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tarball := ""
	for _, it := range items {
		if it.S3URI == submit {
			tarball = it.LocalPath
		}
	}
	if tarball == "" {
		t.Fatalf("scripttest: the submit directory %s is not in the upload manifest", submit)
	}
	Untar(t, tarball, code)
	hb, err := json.Marshal(hyper)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, "config", "hyperparameters.json"), hb, 0o644); err != nil {
		t.Fatal(err)
	}

	// Channels: the test's inputs, by the port each channel comes from.
	inDef := map[string]bool{}
	for _, ch := range args.InputDataConfig {
		inDef[ch.ChannelName] = true
	}
	var channels []string
	for i := range step.Inputs {
		port := &step.Inputs[i]
		src, ok := r.Inputs[port.LogicalName]
		if !ok {
			continue
		}
		chans := port.TrainingChannels()
		fan := len(chans) > 1 || len(port.Channels) > 0
		for _, ch := range chans {
			if !inDef[ch] {
				t.Fatalf("scripttest: input %s's channel %s is not in the definition", port.LogicalName, ch)
			}
			from := src
			if fan {
				from = filepath.Join(src, ch)
				if _, err := os.Stat(from); err != nil {
					continue // a channel the test has no data for stays empty
				}
			}
			dst := filepath.Join(in, "data", ch)
			if err := os.MkdirAll(dst, 0o755); err != nil {
				t.Fatal(err)
			}
			CopyInto(t, from, dst)
			channels = append(channels, ch)
		}
	}
	sort.Strings(channels)

	out := &TrainingResult{ModelDir: model, OutputDir: filepath.Join(output, "data"), Hyper: hyper, Env: map[string]string{}}
	env := map[string]string{}
	for k, v := range args.Environment {
		s, ok := v.(string)
		if !ok {
			t.Fatalf("scripttest: environment %s is not a literal: %v", k, v)
		}
		out.Env[k] = s
		env[k] = s
	}
	// What the SageMaker training toolkit sets.
	hpDecoded := map[string]any{}
	for k, v := range hyper {
		var x any
		if json.Unmarshal([]byte(v), &x) != nil {
			x = v
		}
		hpDecoded[k] = x
	}
	hpJSON, _ := json.Marshal(hpDecoded)
	chJSON, _ := json.Marshal(channels)
	env["SM_MODEL_DIR"] = TrainingModelDir
	env["SM_OUTPUT_DATA_DIR"] = TrainingOutputRoot + "/data"
	env["SM_INPUT_DIR"] = TrainingInputRoot
	env["SM_INPUT_CONFIG_DIR"] = TrainingInputRoot + "/config"
	env["SM_CHANNELS"] = string(chJSON)
	env["SM_HPS"] = string(hpJSON)
	env["SM_USER_ENTRY_POINT"] = program
	env["SM_MODULE_DIR"] = submit
	for _, ch := range channels {
		env["SM_CHANNEL_"+strings.ToUpper(ch)] = TrainingInputRoot + "/data/" + ch
	}
	for k, v := range r.ExtraEnv {
		env[k] = v
	}
	cmd := []string{r.Python.Path, path.Join(TrainingCodeDir, program)}
	keys := make([]string, 0, len(hpDecoded))
	for k := range hpDecoded {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := hpDecoded[k]
		s, isStr := v.(string)
		if !isStr {
			vb, _ := json.Marshal(v)
			s = string(vb)
		}
		cmd = append(cmd, "--"+k, s)
	}
	out.Args = cmd
	sb := sandbox{bwrap: bwrap, python: r.Python, network: r.Network, chdir: TrainingCodeDir, env: env, cmd: cmd, timeout: r.Timeout,
		binds: [][2]string{{in, TrainingInputRoot}, {model, TrainingModelDir}, {output, TrainingOutputRoot}, {code, TrainingCodeDir}}}
	exit, log, err := sb.run(context.Background())
	out.Log = log
	if err != nil {
		t.Fatalf("scripttest: run %s: %v", r.Node, err)
	}
	if exit != 0 {
		out.ExitCode = exit
		return out, &ExitError{Code: exit}
	}
	out.ModelTar = filepath.Join(t.TempDir(), "model.tar.gz")
	PackTarGz(t, model, out.ModelTar)
	out.OutputTar = filepath.Join(t.TempDir(), "output.tar.gz")
	PackTarGz(t, out.OutputDir, out.OutputTar)
	return out, nil
}

// trainingArgs returns the training job of a Training step, or of one
// trial of a Tuning step: its static hyperparameters plus, per range, the
// value a tuner would pass as plain text (the minimum of a numeric range,
// the first categorical value), returned apart in tuned.
func trainingArgs(t testing.TB, typ string, raw json.RawMessage) (compiler.TrainingArguments, map[string]string) {
	t.Helper()
	switch typ {
	case "Training":
		var a compiler.TrainingArguments
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatal(err)
		}
		return a, nil
	case "Tuning":
		var tu compiler.TuningArguments
		if err := json.Unmarshal(raw, &tu); err != nil {
			t.Fatal(err)
		}
		d := tu.TrainingJobDefinition
		tuned := map[string]string{}
		r := tu.HyperParameterTuningJobConfig.ParameterRanges
		for _, c := range r.ContinuousParameterRanges {
			tuned[c.Name] = c.MinValue
		}
		for _, c := range r.IntegerParameterRanges {
			tuned[c.Name] = c.MinValue
		}
		for _, c := range r.CategoricalParameterRanges {
			tuned[c.Name] = c.Values[0]
		}
		return compiler.TrainingArguments{AlgorithmSpecification: d.AlgorithmSpecification, OutputDataConfig: d.OutputDataConfig,
			InputDataConfig: d.InputDataConfig, HyperParameters: d.StaticHyperParameters, Environment: d.Environment}, tuned
	}
	t.Fatalf("scripttest: a %s step is not a training job", typ)
	return compiler.TrainingArguments{}, nil
}

// PackTarGz packs the files below dir into a gzip tar archive at dst
// (creating its directory), with paths relative to dir, as SageMaker packs
// a training job's model directory.
func PackTarGz(t testing.TB, dir, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	err = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		hdr, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		hdr.Name = filepath.ToSlash(rel)
		if info.IsDir() {
			hdr.Name += "/"
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if info.IsDir() {
			return nil
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(tw, src)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if err == nil {
		err = gz.Close()
	}
	if err != nil {
		t.Fatalf("scripttest: pack %s: %v", dir, err)
	}
}

// TarFiles lists the regular files of a gzip tar archive, sorted.
func TarFiles(t testing.TB, archive string) []string {
	t.Helper()
	var out []string
	walkTar(t, archive, func(h *tar.Header, _ io.Reader) {
		if h.Typeflag == tar.TypeReg {
			out = append(out, strings.TrimPrefix(h.Name, "./"))
		}
	})
	sort.Strings(out)
	return out
}

// TarContents returns the regular files of a gzip tar archive by name.
func TarContents(t testing.TB, archive string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	walkTar(t, archive, func(h *tar.Header, r io.Reader) {
		if h.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(r)
			if err != nil {
				t.Fatalf("scripttest: %s: %s: %v", archive, h.Name, err)
			}
			out[strings.TrimPrefix(h.Name, "./")] = b
		}
	})
	return out
}

// Untar unpacks a gzip tar archive into dir (for tests that read an archive a script wrote).
func Untar(t testing.TB, archive, dir string) {
	t.Helper()
	walkTar(t, archive, func(h *tar.Header, r io.Reader) {
		name := filepath.Clean(filepath.FromSlash(strings.TrimPrefix(h.Name, "./")))
		if strings.HasPrefix(name, "..") || filepath.IsAbs(name) {
			t.Fatalf("scripttest: %s holds the unsafe path %s", archive, h.Name)
		}
		dst := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dst, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func walkTar(t testing.TB, archive string, fn func(*tar.Header, io.Reader)) {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("scripttest: %s: %v", archive, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("scripttest: %s: %v", archive, fmt.Errorf("read: %w", err))
		}
		fn(h, tr)
	}
}
