package localrun

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/internal/testenv"
)

// needPython returns the interpreter tests run scripts with, or skips
// (fails under CI) when there is none.
func needPython(t testing.TB) string {
	t.Helper()
	p := FindPython()
	if !p.Available {
		testenv.Missing(t, "no Python interpreter: "+p.Reason)
	}
	return p.Path
}

// needLibraries skips (fails under CI) when the interpreter lacks one of
// the modules or bubblewrap cannot run.
func needLibraries(t testing.TB, mods ...string) {
	t.Helper()
	testenv.Need(t, Ready(mods...))
}

// needSandbox skips (fails under CI) when bubblewrap cannot run here.
func needSandbox(t testing.TB, kind Sandbox) {
	t.Helper()
	if kind != Bubblewrap {
		return
	}
	if k, why := DetectSandbox(); k != Bubblewrap {
		testenv.Missing(t, "bubblewrap cannot run here: "+why)
	}
}

// pipeline is a synthetic compiled pipeline: steps given as definition
// JSON, scripts as files of a temporary code directory.
type pipeline struct {
	t        *testing.T
	dir      string
	steps    []compiler.Step
	manifest compiler.Manifest
	params   []compiler.Parameter
	nodes    []compiler.NodeReport
}

func newPipeline(t *testing.T) *pipeline {
	return &pipeline{t: t, dir: t.TempDir()}
}

// script writes a script and adds it to the manifest at uri.
func (p *pipeline) script(uri, name, body string) {
	p.t.Helper()
	f := filepath.Join(p.dir, "code", name)
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.manifest = append(p.manifest, compiler.Artifact{Kind: compiler.KindFile, LocalPath: f, S3URI: uri})
}

// sourceDir writes files into a source directory packed as
// sourcedir.tar.gz at uri.
func (p *pipeline) sourceDir(uri, name string, files map[string]string) {
	p.t.Helper()
	d := filepath.Join(p.dir, name)
	var rels []string
	for rel, body := range files {
		f := filepath.Join(d, rel)
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			p.t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			p.t.Fatal(err)
		}
		rels = append(rels, rel)
	}
	p.manifest = append(p.manifest, compiler.Artifact{Kind: compiler.KindSourceTarball, LocalPath: d, S3URI: uri, Files: sortStrings(rels), SHA256: strings.Repeat("ab", 32)})
}

func sortStrings(l []string) []string {
	for i := range l {
		for k := i + 1; k < len(l); k++ {
			if l[k] < l[i] {
				l[i], l[k] = l[k], l[i]
			}
		}
	}
	return l
}

// step adds a step from its definition JSON.
func (p *pipeline) step(js string) {
	p.t.Helper()
	var s compiler.Step
	if err := json.Unmarshal([]byte(js), &s); err != nil {
		p.t.Fatalf("step JSON: %v\n%s", err, js)
	}
	p.steps = append(p.steps, s)
}

// node records the catalog step type of a SageMaker step.
func (p *pipeline) node(stepName catalog.SageMakerStepName, stepType catalog.StepType) {
	p.nodes = append(p.nodes, compiler.NodeReport{StepName: stepName, StepType: stepType})
}

func (p *pipeline) result() *compiler.Result {
	return &compiler.Result{
		PipelineName: "test-pipeline",
		Definition:   &compiler.Definition{Version: compiler.DefinitionVersion, Metadata: map[string]string{}, Parameters: p.params, Steps: p.steps},
		Manifest:     p.manifest,
		Report:       &compiler.Report{Nodes: p.nodes},
	}
}

func (p *pipeline) run(opts Options) *Report {
	p.t.Helper()
	if opts.WorkDir == "" {
		opts.WorkDir = filepath.Join(p.dir, "work")
	}
	rep, err := Run(context.Background(), p.result(), opts)
	if err != nil {
		p.t.Fatalf("Run: %v", err)
	}
	return rep
}

func stepOf(t *testing.T, rep *Report, name string) StepResult {
	t.Helper()
	for _, s := range rep.Steps {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no step %s in the report", name)
	return StepResult{}
}

func wantStatus(t *testing.T, rep *Report, name, status string) StepResult {
	t.Helper()
	s := stepOf(t, rep, name)
	if s.Status != status {
		t.Fatalf("step %s is %s, want %s (error: %s)\nlog:\n%s", name, s.Status, status, s.Error, s.LogTail)
	}
	return s
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// processing returns the definition JSON of a processing step running
// code/<script> with the given inputs ([name, S3Uri JSON, LocalPath]),
// outputs (names: LocalPath /opt/ml/processing/output/<name>, S3Uri
// s3://bucket/out/<step>/<name>), arguments and environment.
func processing(name, script string, inputs [][3]string, outputs []string, args []string, env map[string]string, dependsOn ...string) string {
	var ins []string
	for _, in := range inputs {
		ins = append(ins, `{"InputName": "`+in[0]+`", "AppManaged": false, "S3Input": {"S3Uri": `+in[1]+`, "LocalPath": "`+in[2]+`", "S3DataType": "S3Prefix", "S3InputMode": "File", "S3DataDistributionType": "FullyReplicated", "S3CompressionType": "None"}}`)
	}
	ins = append(ins, `{"InputName": "code", "AppManaged": false, "S3Input": {"S3Uri": "s3://bucket/code/`+script+`", "LocalPath": "/opt/ml/processing/input/code", "S3DataType": "S3Prefix", "S3InputMode": "File", "S3DataDistributionType": "FullyReplicated", "S3CompressionType": "None"}}`)
	var outs []string
	for _, o := range outputs {
		outs = append(outs, `{"OutputName": "`+o+`", "AppManaged": false, "S3Output": {"S3Uri": {"Std:Join": {"On": "/", "Values": [{"Get": "Parameters.EXECUTION_S3_PREFIX"}, "`+strings.ToLower(name)+`", "`+o+`"]}}, "LocalPath": "/opt/ml/processing/output/`+o+`", "S3UploadMode": "EndOfJob"}}`)
	}
	argJSON, _ := json.Marshal(args)
	envJSON, _ := json.Marshal(env)
	deps, _ := json.Marshal(dependsOn)
	return `{"Name": "` + name + `", "Type": "Processing", "DependsOn": ` + string(deps) + `, "Arguments": {
		"ProcessingResources": {"ClusterConfig": {"InstanceType": "ml.m5.large", "InstanceCount": 1, "VolumeSizeInGB": 30}},
		"AppSpecification": {"ImageUri": "image", "ContainerEntrypoint": ["python3", "/opt/ml/processing/input/code/` + script + `"], "ContainerArguments": ` + string(argJSON) + `},
		"RoleArn": "arn:aws:iam::123456789012:role/r",
		"ProcessingInputs": [` + strings.Join(ins, ",") + `],
		"ProcessingOutputConfig": {"Outputs": [` + strings.Join(outs, ",") + `]},
		"Environment": ` + string(envJSON) + `}}`
}

// outGet is the Get of a processing step's output URI.
func outGet(step, out string) string {
	return `{"Get": "Steps.` + step + `.ProcessingOutputConfig.Outputs['` + out + `'].S3Output.S3Uri"}`
}

func prefixParam() compiler.Parameter {
	return compiler.Parameter{Name: "EXECUTION_S3_PREFIX", Type: "String", DefaultValue: "s3://bucket/run"}
}
